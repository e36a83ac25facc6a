/**
 * Startup (`npm run bench:startup`, not a test): wall time of `clusterset --help` and of `clusterset
 * validate` on a small model, run as the installed package runs (the compiled dist/, built first by
 * `npm run build:js`), next to a bare `node -e 0`, median of N runs each, side by side in one run.
 * Goal: `--help` within 10x of `node -e 0`. Every command loads only what it uses: the model
 * compiler for synth/validate/diff/explain, @kubernetes/client-node for token and reconcile.
 *
 * Usage: npm run bench:startup [-- --runs 15]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { minimalModel } from '../../test/helpers/models';

const root = path.resolve(__dirname, '..', '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 15;
const main = path.join(root, 'dist', 'lib', 'cli', 'main.js');
if (!fs.existsSync(main)) throw new Error('dist/ is missing: run npm run build:js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-startup-'));
const model = path.join(dir, 'model.json');
fs.writeFileSync(model, JSON.stringify(minimalModel()));

function median(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${String(r.status)}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const base = median(['-e', '0']);
const rows: [string, number][] = [
  ['node -e 0', base],
  ['clusterset --help', median([main, '--help'])],
  ['clusterset validate (3 clusters)', median([main, 'validate', model])],
];
console.log(`median of ${RUNS} runs each, ${os.cpus().length} cores\n`);
for (const [what, ms] of rows) {
  console.log(`${what.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  x${(ms / base).toFixed(1)}`);
}
const ratio = rows[1]![1] / base;
console.log(
  `\n--help is x${ratio.toFixed(1)} of node -e 0: ${ratio <= 10 ? 'MET' : 'NOT MET'} (goal: within x10)`,
);
fs.rmSync(dir, { recursive: true, force: true });
