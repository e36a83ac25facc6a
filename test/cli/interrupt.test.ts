/**
 * out/ is old or new under any interruption: the CLI, run as users run it, is stopped at each
 * phase of a write (test-only fault points in lib/fs/write.ts hold it there, as busy synchronous
 * code would).
 *
 * SIGKILL (the point blocks until the kill): then
 * - `synth --check` reports what the interrupted run left (exit 1), never "up to date", and `diff`
 *   refuses to compare it (exit 2);
 * - recovery alone gives exactly the old output (killed before the commit) or exactly the new one
 *   (killed after it), nothing mixed and no stray file;
 * - the next synth gives exactly the new output.
 *
 * SIGINT, SIGTERM and SIGHUP, sent to the process group as a terminal's Ctrl-C is (the point pauses
 * two seconds, then goes on): the process exits 128 + the signal's number with out/ already old
 * (stopped before the write) or new (during it), nothing left to recover.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recover, strays } from '../../lib/fs/write';
import { CACHE_FILE } from '../../lib/synth';
import { INDEX_FILE } from '../../lib/emit';
import { setImmutable } from '../helpers/immutable';
import { minimalModel, service } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');

/** Old: three Services. New: one changed, one removed (pruned), two added. */
function models(dir: string): { old: string; next: string } {
  const a = minimalModel();
  a.services!.push(service('shop', 'pay', ['east']), service('web', 'front', ['west']));
  const b = minimalModel();
  b.services![0]!.ports = [{ name: 'http', port: 9090, protocol: 'TCP' }];
  b.services!.push(
    service('shop', 'pay', ['east']),
    service('ops', 'logs', ['west']),
    service('ops', 'metrics', ['east']),
  );
  const old = path.join(dir, 'old.json');
  const next = path.join(dir, 'new.json');
  fs.writeFileSync(old, JSON.stringify(a));
  fs.writeFileSync(next, JSON.stringify(b));
  return { old, next };
}

/**
 * out/ as a reader sees it. The synth cache (lib/synth.ts) is left out: it is no part of the output,
 * and one that an interrupted run leaves behind names the old digest, so it never lets a skip through.
 */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(dir)) return out;
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    if (rel === CACHE_FILE) continue;
    const p = path.join(dir, rel);
    out[rel] = fs.statSync(p).isDirectory() ? '<dir>' : fs.readFileSync(p, 'utf8');
  }
  return out;
}

function synth(
  cwd: string,
  model: string,
  ...extra: string[]
): { status: number; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [bin, 'synth', model, '--out', 'out', ...extra], {
    cwd,
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, stderr: r.stderr, stdout: r.stdout };
}

/**
 * Runs synth of `model` until it reaches `point`, then sends `signal`: SIGKILL to the process, which
 * the point blocks until then; any other signal to its process group (a terminal's Ctrl-C), the
 * point pausing and going on. Returns how synth exited and what it said.
 */
async function interrupt(
  cwd: string,
  model: string,
  point: string,
  signal: NodeJS.Signals,
  via: 'bin' | 'npm' = 'bin',
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  if (via === 'npm') {
    // As the package's own `npm run synth` does: npm runs bin/clusterset through a shell.
    const script = `node ${JSON.stringify(bin)} synth ${JSON.stringify(model)} --out out`;
    fs.writeFileSync(path.join(cwd, 'package.json'), JSON.stringify({ scripts: { synth: script } }));
  }
  const [cmd, args] =
    via === 'bin'
      ? [process.execPath, [bin, 'synth', model, '--out', 'out']]
      : ['npm', ['run', '--silent', 'synth']];
  const group = signal !== 'SIGKILL';
  const child = spawn(cmd, args, {
    cwd,
    env: { ...process.env, CLUSTERSET_FAULT: group ? `${point}:pause` : point },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: group,
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fault point ${point} not reached: ${stderr}`)), 60_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes(`fault point ${point} reached`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`synth exited before ${point}: ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, sig) => r({ code, signal: sig })),
  );
  if (group) process.kill(-child.pid!, signal);
  else child.kill(signal);
  return { ...(await exited), stderr };
}

const dirs: Record<string, string> = {};
function fresh(name: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `cs-int-${name}-`));
  dirs[name] = d;
  return d;
}

// The old and new outputs, rendered once without interruption.
const ref = fresh('ref');
const { old, next } = models(ref);
assert.is(synth(ref, old).status, 0);
const OLD = snapshot(path.join(ref, 'out'));
/** A copy of the old output, to start each case from without running synth. */
const OLD_OUT = path.join(fresh('old'), 'out');
fs.cpSync(path.join(ref, 'out'), OLD_OUT, { recursive: true });
assert.is(synth(ref, next).status, 0);
const NEW = snapshot(path.join(ref, 'out'));

const BEFORE_COMMIT = ['created-half', 'staged-half', 'journal-tmp'];
const AFTER_COMMIT = ['committed', 'applied-half', 'pruned'];

for (const point of [...BEFORE_COMMIT, ...AFTER_COMMIT]) {
  for (const signal of ['SIGKILL'] as const) {
    test(`GIVEN synth killed with ${signal} at ${point} WHEN checked, compared, recovered and synthesized again THEN out/ is ${BEFORE_COMMIT.includes(point) ? 'old' : 'new'}, then new, with no stray`, async () => {
      const dir = fresh(`${point}-${signal}`);
      const m = models(dir);
      fs.cpSync(OLD_OUT, path.join(dir, 'out'), { recursive: true });
      assert.equal(snapshot(path.join(dir, 'out')), OLD);

      const killed = await interrupt(dir, m.next, point, signal);
      assert.is(killed.signal, 'SIGKILL');

      const check = synth(dir, m.next, '--check');
      assert.is(check.status, 1, 'an interrupted write is never "up to date"');
      assert.match(check.stderr, /interrupted synth left/);
      const diff = spawnSync(process.execPath, [bin, 'diff', m.next, '--out', 'out'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.is(diff.status, 2, 'diff compares no mixed out/');
      assert.match(diff.stderr, /cannot read out\/: it holds what an interrupted synth left/);

      const out = path.join(dir, 'out');
      const did = recover(out);
      assert.ok(did, 'recovery had something to do');
      assert.equal(snapshot(out), BEFORE_COMMIT.includes(point) ? OLD : NEW);

      const again = synth(dir, m.next);
      assert.is(again.status, 0, again.stderr);
      assert.equal(snapshot(out), NEW);
      assert.is(synth(dir, m.next, '--check').status, 0);
    });
  }
}

/** Catchable signals: [point, signal, what out/ is when synth has exited]. */
const CAUGHT: [string, NodeJS.Signals, 'old' | 'new'][] = [
  ['compiled', 'SIGINT', 'old'],
  ...[...BEFORE_COMMIT, ...AFTER_COMMIT].map((p): [string, NodeJS.Signals, 'new'] => [p, 'SIGINT', 'new']),
  ['compiled', 'SIGTERM', 'old'],
  ['staged-half', 'SIGTERM', 'new'],
  ['applied-half', 'SIGHUP', 'new'],
];

for (const [point, signal, expected] of CAUGHT) {
  test(`GIVEN synth sent ${signal} at ${point} THEN it exits ${128 + os.constants.signals[signal]} with out/ ${expected} on disk and nothing to recover`, async () => {
    const dir = fresh(`${point}-${signal}`);
    const m = models(dir);
    const out = path.join(dir, 'out');
    fs.cpSync(OLD_OUT, out, { recursive: true });

    const r = await interrupt(dir, m.next, point, signal);
    assert.is(r.code, 128 + os.constants.signals[signal], r.stderr);
    assert.match(
      r.stderr,
      expected === 'new'
        ? new RegExp(`stopped by ${signal}; out/ was written in full first`)
        : new RegExp(`stopped by ${signal}; nothing was written to out/`),
    );
    assert.equal(strays(out), [], 'nothing left to recover');
    assert.equal(snapshot(out), expected === 'new' ? NEW : OLD);
    assert.is(synth(dir, m.next, '--check').status, expected === 'new' ? 0 : 1);
  });
}

test('GIVEN synth run by npm run synth WHEN its process group gets SIGINT while staging THEN it stops with 130 (SIGINT) with out/ new and nothing to recover', async () => {
  const dir = fresh('npm');
  const m = models(dir);
  assert.is(synth(dir, m.old).status, 0);
  const r = await interrupt(dir, m.next, 'staged-half', 'SIGINT', 'npm');
  // npm ends itself with the signal its script ended by: a shell reports 130 either way.
  assert.ok(r.code === 130 || (r.code === null && r.signal === 'SIGINT'), `${r.code} ${r.signal}`);
  assert.match(r.stderr, /stopped by SIGINT; out\/ was written in full first/);
  assert.equal(strays(path.join(dir, 'out')), []);
  assert.equal(snapshot(path.join(dir, 'out')), NEW);
});

test('GIVEN synth killed half-way through the apply WHEN the next synth cannot complete it (the index, still to replace, made immutable) THEN it rolls the write back: exit 74, out/ old with nothing to recover; once cleared, new', async () => {
  const dir = fresh('apply-fails');
  const m = models(dir);
  const out = path.join(dir, 'out');
  fs.cpSync(OLD_OUT, out, { recursive: true });
  await interrupt(dir, m.next, 'applied-half', 'SIGKILL');
  assert.ok(fs.existsSync(path.join(out, '.clusterset-old')), 'the files replaced so far are kept');
  const index = path.join(out, INDEX_FILE);
  setImmutable(index, true);
  let r: ReturnType<typeof synth>;
  try {
    r = synth(dir, m.next);
  } finally {
    setImmutable(index, false);
  }
  assert.is(r.status, 74, r.stderr);
  assert.match(r.stderr, /cannot write .*\.clusterset-index: operation not permitted/);
  assert.equal(strays(out), []);
  assert.equal(snapshot(out), OLD);
  assert.is(synth(dir, m.next).status, 0);
  assert.equal(snapshot(out), NEW);
});

test('GIVEN temporary files an older clusterset left beside their targets WHEN checked and synthesized THEN --check reports them and synth removes them', () => {
  const dir = fresh('legacy');
  const m = models(dir);
  assert.is(synth(dir, m.old).status, 0);
  const stray = path.join(dir, 'out', 'clusters', 'east', 'kustomization.yaml.clusterset-tmp-4242');
  fs.writeFileSync(stray, 'half');
  const check = synth(dir, m.old, '--check');
  assert.is(check.status, 1);
  assert.match(check.stderr, /kustomization\.yaml\.clusterset-tmp-4242/);
  const r = synth(dir, m.old);
  assert.is(r.status, 0, r.stderr);
  assert.not.ok(fs.existsSync(stray));
  assert.equal(snapshot(path.join(dir, 'out')), OLD);
});

test.after(() => {
  for (const d of Object.values(dirs)) fs.rmSync(d, { recursive: true, force: true });
});

test.run();
