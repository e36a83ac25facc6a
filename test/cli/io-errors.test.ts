/**
 * I/O failures while writing out/, on real file systems: each gives one line naming the path, the
 * cause and the fix (exit 74, no stack trace), and out/ is left exactly as it was.
 *
 * Read-only and full file systems are real tmpfs mounts made in a private mount namespace
 * (`unshare`); permission denied is a real unprivileged user (`setpriv` to nobody when the tests
 * run as root, the current user otherwise).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INDEX_FILE } from '../../lib/emit';
import { strays } from '../../lib/fs/write';
import { setImmutable } from '../helpers/immutable';
import { minimalModel, service } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');
const EXIT_IO = 74;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-io-'));
fs.chmodSync(work, 0o755);
const oldModel = path.join(work, 'old.json');
const newModel = path.join(work, 'new.json');
{
  const a = minimalModel();
  const b = minimalModel();
  b.services!.push(service('shop', 'pay', ['east']), service('ops', 'logs', ['west']));
  fs.writeFileSync(oldModel, JSON.stringify(a));
  fs.writeFileSync(newModel, JSON.stringify(b));
  fs.chmodSync(oldModel, 0o644);
  fs.chmodSync(newModel, 0o644);
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const p = path.join(dir, rel);
    out[rel] = fs.statSync(p).isDirectory() ? '<dir>' : fs.readFileSync(p, 'utf8');
  }
  return out;
}

const sh = (script: string) => spawnSync('sh', ['-c', script], { encoding: 'utf8' });
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

const OLD_OUT = path.join(work, 'old-out');
{
  const r = spawnSync(process.execPath, [bin, 'synth', oldModel, '--out', OLD_OUT], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
}
const OLD = snapshot(OLD_OUT);
const NEW_OUT = path.join(work, 'new-out');
{
  const r = spawnSync(process.execPath, [bin, 'synth', newModel, '--out', NEW_OUT], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
}
const NEW = snapshot(NEW_OUT);

function assertOneLine(stderr: string, cause: RegExp, file: string): void {
  const lines = stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line, got:\n${stderr}`);
  assert.match(lines[0]!, /^clusterset: cannot write /);
  assert.ok(lines[0]!.includes(file), `names ${file}: ${lines[0]}`);
  assert.match(lines[0]!, cause);
  assert.match(lines[0]!, /; fix: /);
  assert.not.match(stderr, /\n\s+at /, 'no stack trace');
}

test('GIVEN --out naming a file WHEN synth runs THEN exit 74 with one line naming it, and the file is untouched', () => {
  const file = path.join(work, 'not-a-dir');
  fs.writeFileSync(file, 'keep me');
  const r = spawnSync(process.execPath, [bin, 'synth', newModel, '--out', file], { encoding: 'utf8' });
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(r.stderr, /is a file, not a directory/, file);
  assert.is(fs.readFileSync(file, 'utf8'), 'keep me');
});

test('GIVEN out/ the user cannot write WHEN synth runs THEN exit 74, "permission denied" with the fix, and out/ as it was', () => {
  const dir = path.join(work, 'perm');
  fs.cpSync(OLD_OUT, path.join(dir, 'out'), { recursive: true });
  fs.chmodSync(dir, 0o755);
  for (const rel of ['', ...fs.readdirSync(path.join(dir, 'out'), { recursive: true, encoding: 'utf8' })]) {
    const p = path.join(dir, 'out', rel);
    fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o555 : 0o444);
  }
  const asUser = process.getuid?.() === 0 ? 'setpriv --reuid=65534 --regid=65534 --clear-groups ' : '';
  const r = sh(`cd ${q(dir)} && ${asUser}${q(process.execPath)} ${q(bin)} synth ${q(newModel)} --out out`);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(
    r.stderr,
    /permission denied; fix: make .* writable for this user, or choose another --out/,
    dir,
  );
  assert.equal(snapshot(path.join(dir, 'out')), OLD);
});

/**
 * Runs synth of the new model on a tmpfs mounted in a private mount namespace, with the old
 * output copied in first; `setup` runs after the copy (e.g. remount read-only). Returns the
 * result and a copy of out/ taken before the namespace goes.
 */
function onTmpfs(
  name: string,
  size: string,
  setup: string,
): { status: number; stderr: string; after: Record<string, string> } {
  const dir = path.join(work, name);
  fs.mkdirSync(path.join(dir, 'mnt'), { recursive: true });
  const script = [
    'set -e',
    `mount -t tmpfs -o size=${size} tmpfs ${q(path.join(dir, 'mnt'))}`,
    `cp -a ${q(OLD_OUT)} ${q(path.join(dir, 'mnt', 'out'))}`,
    setup,
    `set +e`,
    `${q(process.execPath)} ${q(bin)} synth ${q(newModel)} --out ${q(path.join(dir, 'mnt', 'out'))} 2> ${q(path.join(dir, 'stderr'))}`,
    `echo $? > ${q(path.join(dir, 'rc'))}`,
    `cp -a ${q(path.join(dir, 'mnt', 'out'))} ${q(path.join(dir, 'after'))}`,
  ].join('\n');
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', script], { encoding: 'utf8' });
  assert.is(r.status, 0, `unshare/mount failed: ${r.stderr}`);
  return {
    status: Number(fs.readFileSync(path.join(dir, 'rc'), 'utf8')),
    stderr: fs.readFileSync(path.join(dir, 'stderr'), 'utf8'),
    after: snapshot(path.join(dir, 'after')),
  };
}

test('GIVEN out/ on a read-only file system WHEN synth runs THEN exit 74, "read-only", and out/ as it was', () => {
  const dir = path.join(work, 'rofs');
  const r = onTmpfs('rofs', '4m', `mount -o remount,ro ${q(path.join(dir, 'mnt'))}`);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(
    r.stderr,
    /the file system is read-only; fix: choose an --out on a writable file system/,
    dir,
  );
  assert.equal(r.after, OLD);
});

test('GIVEN out/ on a full file system WHEN synth runs THEN exit 74, "no space left", and out/ as it was', () => {
  const dir = path.join(work, 'full');
  // Fill the file system but for a few pages: the old output stays, the new one cannot be staged.
  const fill = `dd if=/dev/zero of=${q(path.join(dir, 'mnt', 'filler'))} bs=4k 2>/dev/null || true`;
  const r = onTmpfs('full', '1m', fill);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(r.stderr, /no space left on the device; fix: free some space/, dir);
  assert.equal(r.after, OLD);
});

/** The files of `a` that `b` holds with other content: what a write from a to b replaces. */
const replaced = (a: Record<string, string>, b: Record<string, string>): string[] =>
  Object.keys(a).filter((f) => a[f] !== '<dir>' && b[f] !== undefined && b[f] !== a[f]);

/** Runs synth of `model` into `out` with `file` immutable for the run; returns what it said. */
function withImmutable(out: string, file: string, model: string): { status: number; stderr: string } {
  setImmutable(file, true);
  try {
    const r = spawnSync(process.execPath, [bin, 'synth', model, '--out', out], { encoding: 'utf8' });
    return { status: r.status ?? -1, stderr: r.stderr };
  } finally {
    setImmutable(file, false);
  }
}

test('GIVEN the index made immutable (replaced last, after every other file) WHEN synth runs THEN exit 74 naming it with the fix, and every file already replaced is put back: out/ as it was, nothing to recover', () => {
  const out = path.join(work, 'immutable-index', 'out');
  fs.cpSync(OLD_OUT, out, { recursive: true });
  const others = replaced(OLD, NEW).filter((f) => f !== INDEX_FILE);
  assert.ok(others.length >= 3, `the write replaces other files first: ${others.join(', ')}`);
  const r = withImmutable(out, path.join(out, INDEX_FILE), newModel);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(r.stderr, /operation not permitted .*immutable.*; fix: check `lsattr /, INDEX_FILE);
  assert.equal(strays(out), [], 'no journal, staging or old files left');
  assert.equal(snapshot(out), OLD);
  // Once the file can be replaced, the same synth writes the new output.
  const again = spawnSync(process.execPath, [bin, 'synth', newModel, '--out', out], { encoding: 'utf8' });
  assert.is(again.status, 0, again.stderr);
  assert.equal(snapshot(out), NEW);
});

test('GIVEN a file to prune made immutable (pruned last, after every rename) WHEN synth runs THEN exit 74 naming it, and the files replaced and pruned before are put back', () => {
  const out = path.join(work, 'immutable-prune', 'out');
  fs.cpSync(NEW_OUT, out, { recursive: true });
  // Pruned in the order the index lists them: the last one fails after all the others went.
  const index = NEW[INDEX_FILE]!.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const pruned = index.filter((f) => OLD[f] === undefined);
  assert.ok(pruned.length >= 2, `the old model prunes files: ${pruned.join(', ')}`);
  const last = pruned[pruned.length - 1]!;
  const r = withImmutable(out, path.join(out, last), oldModel);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(r.stderr, /operation not permitted/, last);
  assert.equal(strays(out), []);
  assert.equal(snapshot(out), NEW);
});

test('GIVEN files no synth wrote in out/clusters/ (pruned in order), the last made immutable WHEN synth runs THEN exit 74 naming it, and the one already pruned is put back: out/ as it was', () => {
  const out = path.join(work, 'immutable-foreign', 'out');
  fs.cpSync(NEW_OUT, out, { recursive: true });
  const first = path.join(out, 'clusters', 'east', 'Job.left-by-a-branch-switch.yaml');
  const last = path.join(out, 'clusters', 'west', 'Job.left-by-a-branch-switch.yaml');
  fs.writeFileSync(first, 'kind: Job\n');
  fs.writeFileSync(last, 'kind: Job\n');
  const before = snapshot(out);
  const r = withImmutable(out, last, newModel);
  assert.is(r.status, EXIT_IO, r.stderr);
  assertOneLine(r.stderr, /operation not permitted/, 'clusters/west/Job.left-by-a-branch-switch.yaml');
  assert.equal(strays(out), []);
  assert.equal(snapshot(out), before);
  // Once it can be removed, the same synth removes both.
  const again = spawnSync(process.execPath, [bin, 'synth', newModel, '--out', out], { encoding: 'utf8' });
  assert.is(again.status, 0, again.stderr);
  assert.equal(snapshot(out), NEW);
});

test.after(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

test.run();
