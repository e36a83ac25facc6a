/**
 * Growth exponents per stage (`npm run bench:growth`, slower than `npm run bench`): for each family
 * of shapes (bench/synth/shapes.ts FAMILIES: clusters c500..c4000 at 1,000 Services; policies
 * 250..1,000 of each kind; exporters 12..50 per Service), each shape in its own process
 * (bench/synth/measure.ts --stages), the least wall time and the least CPU time (user + system) over
 * N runs of synthInto's digest of the model, of each compile stage (check, plan, render, validate,
 * emit) and of the write. The child runs synthInto's parts itself (`compileDigest`, `compile(model,
 * onStage)`, `writeOut` into a fresh directory), reading CPU time between them (see runStages).
 *
 * For each stage: the log-log slope (least squares over the family) of its CPU time against the
 * family's scale variable and against output objects, the same for wall time, and the slope of the
 * last step alone. Verdict per stage on the CPU-time slope against the scale variable: <= 1.2
 * linear, else SUPERLINEAR. CPU time is judged because on this shared machine other processes
 * stretch wall time at random; a stage whose largest time is under 10 ms is marked noisy.
 *
 * Usage: npm run bench:growth [-- --families clusters,policies,exporters --reps 3 --dir /dev/shm]
 *   --families which families (default all)
 *   --reps     timed repetitions per shape (default 3)
 *   --dir      where the temporary output directories go (default: the OS temp dir)
 * Exit status 0 whatever the verdicts (a report, not a test); 2 when it could not run.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { logLogSlope, ms, spread, table } from './format';
import type { StagesResult } from './measure';
import { arg, measureStages } from './measure';
import type { Family } from './shapes';
import { FAMILIES } from './shapes';

const STAGES = ['digest', 'check', 'plan', 'render', 'validate', 'emit', 'write'];
const LINEAR = 1.2;
const NOISY_MS = 10;

/** The stages in pipeline order (any the compiler adds later, before write), and their sum. */
function stagesOf(r: StagesResult): string[] {
  const extra = Object.keys(r.cpuMs).filter((s) => !STAGES.includes(s));
  return [...STAGES.slice(0, -1), ...extra, 'write'];
}
const total = (t: Readonly<Record<string, number>>): number => Object.values(t).reduce((a, b) => a + b, 0);

function report(family: Family, results: readonly StagesResult[]): void {
  console.log(`\nFamily "${family.name}": scale = ${family.variable}`);
  const names = stagesOf(results[0]!);
  const cell = (r: StagesResult, s: string): string => `${ms(r.cpuMs[s] ?? NaN)} (${ms(r.wallMs[s] ?? NaN)})`;
  console.log(
    table([
      ['shape', 'scale', 'objects', ...names, 'all', 'runs (wall)', 'spread'],
      ...results.map((r) => [
        r.name,
        String(r.scale),
        String(r.objects),
        ...names.map((s) => cell(r, s)),
        `${ms(total(r.cpuMs))} (${ms(total(r.wallMs))})`,
        `[${r.runs.map(ms).join(', ')}]`,
        r.reps > 1 ? `x${spread(r.runs).toFixed(2)}` : '-',
      ]),
    ]),
  );
  console.log(
    `(ms: least CPU time (least wall time) over the runs; objects grow with slope ` +
      `${logLogSlope(results.map((r) => [r.scale, r.objects])).toFixed(2)} against ${family.name})`,
  );
  const time = (r: StagesResult, s: string, of: 'cpuMs' | 'wallMs'): number =>
    s === 'all' ? total(r[of]) : r[of][s]!;
  const rows = [...names, 'all'].map((s) => {
    const slope = (of: 'cpuMs' | 'wallMs', x: (r: StagesResult) => number): number =>
      logLogSlope(results.map((r) => [x(r), time(r, s, of)]));
    const cpuVsScale = slope('cpuMs', (r) => r.scale);
    const [a, b] = results.slice(-2) as [StagesResult, StagesResult];
    const last = Math.log(time(b, s, 'cpuMs') / time(a, s, 'cpuMs')) / Math.log(b.scale / a.scale);
    const largest = Math.max(...results.map((r) => time(r, s, 'cpuMs')));
    const noisy = largest < NOISY_MS ? ` (noisy: < ${NOISY_MS} ms)` : '';
    return [
      s,
      cpuVsScale.toFixed(2),
      slope('cpuMs', (r) => r.objects).toFixed(2),
      last.toFixed(2),
      slope('wallMs', (r) => r.scale).toFixed(2),
      slope('wallMs', (r) => r.objects).toFixed(2),
      `${cpuVsScale <= LINEAR ? 'linear' : 'SUPERLINEAR'}${noisy}`,
    ];
  });
  console.log(
    table([
      [
        'stage',
        `CPU vs ${family.name}`,
        'CPU vs objects',
        'CPU last step',
        `wall vs ${family.name}`,
        'wall vs objects',
        'verdict (CPU vs scale)',
      ],
      ...rows,
    ]),
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const wanted = (arg(argv, '--families') ?? FAMILIES.map((f) => f.name).join(',')).split(',');
  const families = wanted.map((w) => {
    const f = FAMILIES.find((x) => x.name === w.trim());
    if (!f) throw new Error(`--families: "${w}" is not one of ${FAMILIES.map((x) => x.name).join(', ')}`);
    return f;
  });
  const repsArg = arg(argv, '--reps');
  const tmp = path.resolve(arg(argv, '--dir') ?? os.tmpdir());
  console.log(
    `clusterset synth growth: node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, output under ${tmp}; slope <= ${LINEAR} = linear`,
  );
  const all: [Family, StagesResult[]][] = [];
  for (const family of families) {
    const results: StagesResult[] = [];
    for (const name of family.shapes) {
      const reps = repsArg ? Number(repsArg) : 3;
      const t0 = performance.now();
      process.stdout.write(`  ${name} (${reps} runs) ... `);
      results.push(await measureStages(name, { reps, dir: tmp }));
      console.log(`${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    all.push([family, results]);
  }
  for (const [family, results] of all) report(family, results);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  },
);
