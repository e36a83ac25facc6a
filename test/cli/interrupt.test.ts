/**
 * out/ is old or new under any interruption: the CLI, run as users run it, is stopped at each
 * phase of a write (test-only fault points in lib/cli/write.ts block it there, as busy synchronous
 * code would be) and killed with SIGINT or SIGKILL. Then:
 * - `synth --check` reports what the interrupted run left (exit 1), never "up to date";
 * - recovery alone gives exactly the old output (killed before the commit) or exactly the new one
 *   (killed after it), nothing mixed and no stray file;
 * - the next synth gives exactly the new output.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { recover } from '../../lib/cli/write';
import { CACHE_FILE } from '../../lib/synth';
import { minimalModel, service } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const main = path.join(root, 'lib', 'cli', 'main.ts');

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

/** Runs synth of `model` until it reaches `point`, then kills it with `signal`. */
async function interrupt(
  cwd: string,
  model: string,
  point: string,
  signal: NodeJS.Signals,
  via: 'bin' | 'tsx' = 'bin',
): Promise<void> {
  const args = via === 'bin' ? [bin, 'synth', model, '--out', 'out'] : [main, 'synth', model, '--out', 'out'];
  const child = spawn(via === 'bin' ? process.execPath : tsx, args, {
    cwd,
    env: { ...process.env, CLUSTERSET_FAULT: point },
    stdio: ['ignore', 'ignore', 'pipe'],
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
  const exited = new Promise((r) => child.on('exit', r));
  child.kill(signal);
  await exited;
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
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    test(`GIVEN synth killed with ${signal} at ${point} WHEN checked, recovered and synthesized again THEN out/ is ${BEFORE_COMMIT.includes(point) ? 'old' : 'new'}, then new, with no stray`, async () => {
      const dir = fresh(`${point}-${signal}`);
      const m = models(dir);
      fs.cpSync(OLD_OUT, path.join(dir, 'out'), { recursive: true });
      assert.equal(snapshot(path.join(dir, 'out')), OLD);

      await interrupt(dir, m.next, point, signal);

      const check = synth(dir, m.next, '--check');
      assert.is(check.status, 1, 'an interrupted write is never "up to date"');
      assert.match(check.stderr, /interrupted synth left/);

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

test('GIVEN synth run through the tsx wrapper (npm run synth) WHEN interrupted with SIGINT while staging THEN out/ stays old and the next synth of the old model leaves it exactly old', async () => {
  const dir = fresh('tsx');
  const m = models(dir);
  assert.is(synth(dir, m.old).status, 0);
  await interrupt(dir, m.next, 'staged-half', 'SIGINT', 'tsx');
  const r = synth(dir, m.old);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /dropped the staged files of an interrupted synth/);
  assert.match(r.stdout, / 0 files written/);
  assert.equal(snapshot(path.join(dir, 'out')), OLD);
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
