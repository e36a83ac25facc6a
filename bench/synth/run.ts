/**
 * The synth benchmark (`npm run bench`): synthesizes synthetic ClusterSets of several sizes and
 * shapes (bench/synth/shapes.ts) and compares synth with the serialization floor, measured side by
 * side in the same run, each shape in a child process of its own (bench/synth/measure.ts):
 * - (a) synth: `synthInto(model, dir)` from lib/synth.ts (what the CLI's synth runs) into a fresh
 *   directory, split into the compile's stages (`outcome.result.timings`) and the write (the rest
 *   of synthInto: the model's digest, writeOut and the cache file);
 * - (b) the floor, pinned to plain js-yaml 4 with fixed options: the same final objects dumped with
 *   `yaml.dump(o, { noRefs: true, lineWidth: -1 })` from `js-yaml` directly (not our `dumpYaml`, no
 *   sortKeys, no custom schema, so that a faster emitter of ours does not move the floor), one
 *   `fs.writeFileSync` per object into per-cluster directories created before timing: no model,
 *   checks, constructs, validation, ordering, staging or index;
 * - (c) the no-op re-synth: `synthInto` again into the last (a) directory, measured only through
 *   synthInto (which may skip the compile when out/ is up to date); it reports whether it compiled
 *   and must write nothing (checked on what synthInto says and on the files' inodes and mtimes);
 * - (d) peak RSS and peak heap of the child; CPU time (user + system) beside wall time.
 * For 200x1000 it also times whole processes, startup included: `node dist/lib/cli/main.js synth
 * model.json --out DIR` (what the installed package's bin/clusterset runs: dist/ is built by `npm
 * run bench` first), fresh and no-op, and `node bin/clusterset synth` in this checkout (tsx from the
 * sources), beside `node -e 0` and the in-process figure.
 *
 * Goals (issue 12), judged at 200x1000 and at each named shape in the run (c<N>, policies,
 * exporters), MET or MISSED for each, and a final line:
 * - synth <= 1.5x the floor;
 * - a no-op re-synth <= 0.5x the floor, writing nothing.
 * The verdict is on wall time (what a user waits for); the same verdict on CPU time (user + system)
 * is printed beside it, because on a shared machine other processes stretch wall time at random
 * while CPU time stays put. CPU time also counts work on other threads (V8's parallel garbage
 * collection, and any work synth ever spreads over cores), so on a quiet machine it reads higher
 * than wall time. They are meant on tmpfs (`--dir /dev/shm`); the report says what file system it
 * measured on.
 * Repeated runs that differ by more than x1.3 are flagged: on a shared machine they make the
 * figures unreliable.
 *
 * Profile: npm run bench -- --sizes 200x1000 --reps 1 --cpu-prof /tmp/prof
 *          npx tsx bench/synth/profile-top.ts /tmp/prof/*.cpuprofile 20
 * Growth exponents per stage: npm run bench:growth (bench/synth/growth.ts).
 *
 * Usage: npm run bench [-- --sizes 3x10,200x1000,c4000,policies,exporters --reps 3 --dir /dev/shm]
 *   --sizes      comma-separated shapes: CLUSTERSxSERVICES, c<CLUSTERS>, policies[<N>], exporters[<N>]
 *                (see shapes.ts; default DEFAULT_SIZES below)
 *   --reps       timed repetitions per shape (default 3; 2 at >= 100,000 clusters x services and for
 *                the named shapes c<N>, policies and exporters)
 *   --dir        where the temporary output directories go (default: the OS temp dir)
 *   --cpu-prof   write a V8 CPU profile of each child into DIR (timings are then inflated)
 *   --no-process skip the whole-process timing
 *
 * Exit status 1 when a no-op re-synth wrote, pruned or changed a file; 2 when the benchmark could not
 * run. Missed goals do not change the exit status (they are printed as MISSED).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mb, ms, ratio, spread, table } from './format';
import type { ShapeResult } from './measure';
import { arg, filesUnder, measureShape, settle } from './measure';
import { parseShape, parseShapes } from './shapes';

const DEFAULT_SIZES = '3x10,10x100,50x500,100x1000,200x1000,c4000,policies,exporters';
const SYNTH_GOAL = 1.5;
const NOOP_GOAL = 0.5;
/** The size the whole-process timing and the original goals are about. */
const TARGET = '200x1000';
const STAGES = ['check', 'plan', 'render', 'validate', 'emit'];
const root = path.resolve(__dirname, '..', '..');

const isCxS = (r: ShapeResult): boolean => /^\d+x\d+$/.test(r.name);
/** Where the goals are judged: 200x1000 and every named shape. */
const judged = (r: ShapeResult): boolean => r.name === TARGET || !isCxS(r);
const noopWrote = (r: ShapeResult): boolean => r.noopReported > 0 || r.noopChangedOnDisk > 0;

/** The file-system type `dir` is on (from /proc/mounts), or undefined where that cannot be read. */
function fsType(dir: string): string | undefined {
  try {
    const real = fs.realpathSync(dir);
    let best: { mount: string; type: string } | undefined;
    for (const line of fs.readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mount, type] = line.split(' ');
      if (!mount || !type) continue;
      const inside = real === mount || real.startsWith(mount.endsWith('/') ? mount : `${mount}/`);
      if (inside && (!best || mount.length > best.mount.length)) best = { mount, type };
    }
    return best?.type;
  } catch {
    return undefined;
  }
}

function printResults(results: readonly ShapeResult[]): void {
  const perObject = (x: number, r: ShapeResult): string => ((x * 1000) / r.objects).toFixed(0);
  console.log(
    table([
      [
        'shape',
        'objects',
        'files',
        'MB',
        'synth ms',
        'floor ms',
        'synth/floor',
        'no-op ms',
        'no-op/floor',
        'no-op compiled',
        'no-op writes',
        'compile ms',
        'write ms',
        'synth µs/obj',
        'floor µs/obj',
      ],
      ...results.map((r) => [
        r.name,
        String(r.objects),
        String(r.files),
        (r.bytes / 1024 / 1024).toFixed(1),
        ms(r.synthMs),
        ms(r.floorMs),
        ratio(r.synthMs / r.floorMs),
        ms(r.noopMs),
        ratio(r.noopMs / r.floorMs),
        r.noopCompiled ? 'yes' : 'no',
        String(Math.max(r.noopReported, r.noopChangedOnDisk)),
        ms(r.compileMs),
        ms(r.writeMs),
        perObject(r.synthMs, r),
        perObject(r.floorMs, r),
      ]),
    ]),
  );
  console.log('');
  console.log(
    table([
      [
        'shape',
        'synth CPU ms',
        'floor CPU ms',
        'no-op CPU ms',
        'CPU synth/floor',
        'CPU no-op/floor',
        'peak RSS MB',
        'peak heap MB',
      ],
      ...results.map((r) => [
        r.name,
        ms(r.synthCpuMs),
        ms(r.floorCpuMs),
        ms(r.noopCpuMs),
        ratio(r.synthCpuMs / r.floorCpuMs),
        ratio(r.noopCpuMs / r.floorCpuMs),
        mb(r.peakRss),
        mb(r.peakHeapUsed),
      ]),
    ]),
  );
  console.log('\nBest of N runs after 1 warm-up; each shape in its own process. All runs (ms):');
  const worst = (r: ShapeResult): number =>
    Math.max(spread(r.synthRuns), spread(r.floorRuns), spread(r.noopRuns));
  for (const r of results) {
    console.log(
      `  ${r.name}: N=${r.reps}, synth [${r.synthRuns.map(ms).join(', ')}], floor [${r.floorRuns.map(ms).join(', ')}], ` +
        `no-op [${r.noopRuns.map(ms).join(', ')}], spread x${worst(r).toFixed(2)}`,
    );
  }
  const noisy = results.filter((r) => r.reps > 1 && worst(r) > 1.3);
  if (noisy.length > 0) {
    console.log(
      `CAUTION: repeated runs differ by more than x1.3 at ${noisy.map((r) => r.name).join(', ')}: the machine was ` +
        'noisy and those figures are unreliable; rerun on a quieter machine, and/or use --dir /dev/shm.',
    );
  }
  const single = results.filter((r) => r.reps === 1);
  if (single.length > 0)
    console.log(`(${single.map((r) => r.name).join(', ')}: one run, no spread to judge.)`);
}

function printStages(results: readonly ShapeResult[]): void {
  const shown = results.filter((r) => r.objects >= 1000);
  if (shown.length === 0) return;
  const stages = [...new Set([...STAGES, ...shown.flatMap((r) => Object.keys(r.stages))])];
  const cell = (v: number | undefined, total: number): string =>
    v === undefined ? '-' : `${ms(v)} (${((100 * v) / total).toFixed(0)}%)`;
  console.log('\nWhere synth spends its time (best run, ms and share of synth):');
  console.log(
    table([
      ['stage', ...shown.map((r) => r.name)],
      ...stages.map((s) => [s, ...shown.map((r) => cell(r.stages[s], r.synthMs))]),
      ['rest: digest, write, cache', ...shown.map((r) => cell(r.writeMs, r.synthMs))],
      ['synth', ...shown.map((r) => ms(r.synthMs))],
      [
        'no-op (compile stages)',
        ...shown.map((r) =>
          r.noopStages
            ? `${ms(r.noopMs)} (${ms(Object.values(r.noopStages).reduce((a, b) => a + b, 0))})`
            : ms(r.noopMs),
        ),
      ],
    ]),
  );
}

/** Per-object cost across the CxS sizes (same shape, growing): linear or not. */
function printGrowth(results: readonly ShapeResult[]): void {
  const perObject = (r: ShapeResult): number => (r.synthMs * 1000) / r.objects;
  const compilePerObject = (r: ShapeResult): number => (r.compileMs * 1000) / r.objects;
  // Sizes under 1,000 objects are dominated by fixed costs and are left out of the judgement.
  const sized = results.filter((r) => isCxS(r) && r.objects >= 1000).sort((a, b) => a.objects - b.objects);
  console.log(
    '\nGrowth over the CxS sizes (slope 1.0 = linear in objects; per stage: npm run bench:growth):',
  );
  for (let i = 1; i < sized.length; i++) {
    const a = sized[i - 1]!;
    const b = sized[i]!;
    const slope = Math.log(b.synthMs / a.synthMs) / Math.log(b.objects / a.objects);
    const floorSlope = Math.log(b.floorMs / a.floorMs) / Math.log(b.objects / a.objects);
    console.log(
      `  ${a.name} -> ${b.name}: objects x${(b.objects / a.objects).toFixed(2)}, time x${(b.synthMs / a.synthMs).toFixed(2)}, ` +
        `slope ${slope.toFixed(2)} (floor ${floorSlope.toFixed(2)})`,
    );
  }
  if (sized.length < 2) {
    console.log('  not enough CxS sizes with >= 1,000 objects to judge growth');
    return;
  }
  // Linear means a constant cost per object: within x1.5 from the smallest judged size to the largest.
  const first = sized[0]!;
  const last = sized[sized.length - 1]!;
  const growth = perObject(last) / perObject(first);
  const compileGrowth = compilePerObject(last) / compilePerObject(first);
  const judge = (g: number): string =>
    g > 1.5 ? 'SUPERLINEAR' : g < 0.8 ? 'linear (sublinear: fixed costs amortize)' : 'linear';
  console.log(
    `  synth is ${judge(growth)}: ${perObject(first).toFixed(0)} µs/object at ${first.name}, ${perObject(last).toFixed(0)} at ` +
      `${last.name} (x${growth.toFixed(2)}); the compile alone is ${judge(compileGrowth)}: ` +
      `${compilePerObject(first).toFixed(0)} -> ${compilePerObject(last).toFixed(0)} µs/object (x${compileGrowth.toFixed(2)}). ` +
      'Linear = per-object cost within x1.5 across sizes >= 1,000 objects.',
  );
}

/** GNU time(1), for the CPU time of a child process (Node's spawnSync does not report it). */
const GNU_TIME = ['/usr/bin/time'].find((t) => {
  try {
    return spawnSync(t, ['-f', '%U', 'true'], { encoding: 'utf8' }).status === 0;
  } catch {
    return false;
  }
});

interface Timed {
  /** Wall time of each run. */
  readonly runs: readonly number[];
  /** CPU time of each run (empty without GNU time). */
  readonly cpu: readonly number[];
  readonly stdout: string;
}

/** The newest modification time of any file under `dir` whose name ends with one of `exts`. */
function newestSource(dir: string, exts: readonly string[]): number {
  const sources = filesUnder(dir).filter((f) => exts.some((x) => f.endsWith(x)));
  return Math.max(0, ...sources.map((f) => fs.statSync(f).mtimeMs));
}

/**
 * Whole processes, startup included, at 200x1000: the model as JSON, `synth` run as a child process
 * end to end (best of `reps`), beside `node -e 0` and the in-process figures of `target`.
 */
function printWholeProcess(tmp: string, target: ShapeResult, reps: number): void {
  console.log(
    `\nWhole process at ${TARGET}, startup included (least of ${reps} runs; wall time of all runs in brackets):`,
  );
  const main = path.join(root, 'dist', 'lib', 'cli', 'main.js');
  if (!fs.existsSync(main)) {
    console.log('  skipped: dist/ is missing (`npm run bench` builds it; else run `npm run build:js` first)');
    return;
  }
  const sources = Math.max(
    newestSource(path.join(root, 'lib'), ['.ts']),
    newestSource(path.join(root, 'generated'), ['.ts', '.js']),
  );
  if (sources > fs.statSync(main).mtimeMs)
    console.log(
      '  CAUTION: lib/ or generated/ changed after dist/ was built: run `npm run build:js` for current figures',
    );
  const dir = fs.mkdtempSync(path.join(tmp, 'clusterset-bench-process-'));
  try {
    const model = path.join(dir, 'model.json');
    fs.writeFileSync(model, JSON.stringify(parseShape(TARGET).model()));
    let n = 0;
    const fresh = (): string => path.join(dir, `out-${n++}`);
    const cpuFile = path.join(dir, 'cpu');
    /**
     * Runs `node ARGS` `reps` times, each into `out()`: wall time, and CPU time (user + system, 10 ms
     * resolution) from GNU time(1) where there is one.
     */
    const time = (args: (out: string) => string[], out: () => string): Timed => {
      const runs: number[] = [];
      const cpu: number[] = [];
      let stdout = '';
      for (let i = 0; i < reps; i++) {
        const argv = [process.execPath, ...args(out())];
        const command = GNU_TIME ? [GNU_TIME, '-f', '%U %S', '-o', cpuFile, ...argv] : argv;
        settle();
        const t0 = performance.now();
        const r = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        runs.push(performance.now() - t0);
        if (r.status !== 0)
          throw new Error(
            `${argv.join(' ')} exited ${String(r.status ?? r.signal)}: ${r.stderr.slice(0, 2000)}`,
          );
        if (GNU_TIME) {
          const [user, system] = fs.readFileSync(cpuFile, 'utf8').trim().split(/\s+/).map(Number);
          cpu.push((user! + system!) * 1000);
        }
        stdout = r.stdout.trim();
      }
      return { runs, cpu, stdout };
    };
    const bare = time(
      () => ['-e', '0'],
      () => '',
    );
    const dist = time((out) => [main, 'synth', model, '--out', out], fresh);
    const lastOut = path.join(dir, `out-${n - 1}`);
    const noop = time(
      (out) => [main, 'synth', model, '--out', out],
      () => lastOut,
    );
    const checkout = time(
      (out) => [path.join(root, 'bin', 'clusterset'), 'synth', model, '--out', out],
      fresh,
    );
    const best = (xs: readonly number[]): string => (xs.length > 0 ? ms(Math.min(...xs)) : '-');
    const row = (what: string, t: Timed, inProcess?: { wall: number; cpu: number }): string[] => [
      what,
      best(t.runs),
      `[${t.runs.map(ms).join(', ')}]`,
      best(t.cpu),
      inProcess ? ms(inProcess.wall) : '',
      inProcess ? ms(inProcess.cpu) : '',
      inProcess && t.cpu.length > 0 ? ms(Math.min(...t.cpu) - inProcess.cpu) : '',
      ratio(Math.min(...t.runs) / Math.min(...bare.runs)),
    ];
    const synthIn = { wall: target.synthMs, cpu: target.synthCpuMs };
    console.log(
      table([
        [
          '',
          'wall ms',
          'runs',
          'CPU ms',
          'in-process wall',
          'in-process CPU',
          'CPU process - in-process',
          'wall x node -e 0',
        ],
        row('node -e 0', bare),
        row('synth, fresh out/ (node dist/lib/cli/main.js)', dist, synthIn),
        row('no-op re-synth (node dist/lib/cli/main.js)', noop, {
          wall: target.noopMs,
          cpu: target.noopCpuMs,
        }),
        row('synth, fresh out/ (node bin/clusterset: tsx, sources)', checkout, synthIn),
      ]),
    );
    if (!GNU_TIME) console.log('  (no GNU time at /usr/bin/time: no CPU time of the processes)');
    console.log(`  fresh: ${dist.stdout}`);
    console.log(`  no-op: ${noop.stdout}`);
    console.log(
      '  (an installed package runs bin/clusterset -> dist/lib/cli/main.js, as the first two rows; in a checkout\n' +
        '   bin/clusterset runs the sources through tsx, as the last row and `npm run synth`. In-process figures\n' +
        '   are warm, after a warm-up in the same process; a process also starts Node, loads the CLI and the\n' +
        '   model, and compiles cold.)',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** MET/MISSED for each goal at each judged shape, and a final line. */
function printGoals(results: readonly ShapeResult[], tmp: string): void {
  const type = fsType(tmp);
  const at = results.filter(judged);
  console.log(`\nGoals (issue 12), measured on ${type ?? 'an unknown file system'} (${tmp}):`);
  if (type !== 'tmpfs') console.log('  (the goals are for tmpfs: npm run bench -- --dir /dev/shm)');
  if (at.length === 0) {
    console.log(`  not judged: run ${TARGET} and the named shapes (c4000, policies, exporters)`);
    return;
  }
  const verdict = (ok: boolean): string => (ok ? 'MET' : 'MISSED');
  let met = 0;
  let cpuMet = 0;
  const lines: string[][] = [];
  const line = (
    goal: string,
    r: ShapeResult,
    wall: number,
    cpu: number,
    limit: number,
    noop: string,
  ): void => {
    const wrote = noop !== '' && noopWrote(r);
    met += wall <= limit && !wrote ? 1 : 0;
    cpuMet += cpu <= limit && !wrote ? 1 : 0;
    lines.push([
      goal,
      r.name,
      ratio(wall),
      verdict(wall <= limit && !wrote),
      ratio(cpu),
      verdict(cpu <= limit && !wrote),
      noop,
    ]);
  };
  for (const r of at)
    line(
      `synth <= ${SYNTH_GOAL}x the floor`,
      r,
      r.synthMs / r.floorMs,
      r.synthCpuMs / r.floorCpuMs,
      SYNTH_GOAL,
      '',
    );
  for (const r of at) {
    const wrote = noopWrote(r)
      ? `WROTE ${Math.max(r.noopReported, r.noopChangedOnDisk)} files`
      : 'wrote nothing';
    const noop = `${r.noopCompiled ? 'compiled' : 'skipped the compile'}, ${wrote}`;
    line(
      `no-op <= ${NOOP_GOAL}x the floor, writes nothing`,
      r,
      r.noopMs / r.floorMs,
      r.noopCpuMs / r.floorCpuMs,
      NOOP_GOAL,
      noop,
    );
  }
  console.log(
    table([['goal', 'shape', 'wall / floor', 'verdict', 'CPU / floor', 'on CPU', 'no-op'], ...lines]).replace(
      /^/gm,
      '  ',
    ),
  );
  console.log(
    `Final: ${met} of ${lines.length} goals MET${met === lines.length ? '' : `, ${lines.length - met} MISSED`} on wall time ` +
      `(${cpuMet} of ${lines.length} on CPU time) at ${at.map((r) => r.name).join(', ')}; ` +
      'missed goals do not change the exit status.',
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const shapes = parseShapes(arg(argv, '--sizes') ?? DEFAULT_SIZES);
  const repsArg = arg(argv, '--reps');
  const cpuProf = arg(argv, '--cpu-prof');
  const tmp = path.resolve(arg(argv, '--dir') ?? os.tmpdir());
  console.log(
    `clusterset synth benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, output under ${tmp} (${fsType(tmp) ?? 'unknown file system'})` +
      `${cpuProf ? `, CPU profiles in ${cpuProf} (timings inflated)` : ''}`,
  );
  const results: ShapeResult[] = [];
  for (const shape of shapes) {
    const reps = repsArg ? Number(repsArg) : shape.reps;
    const t0 = performance.now();
    process.stdout.write(`  ${shape.name} (${reps} runs) ... `);
    const r = await measureShape(shape.name, {
      reps,
      dir: tmp,
      ...(cpuProf ? { cpuProfDir: path.resolve(cpuProf) } : {}),
    });
    const s = (performance.now() - t0) / 1000;
    console.log(`${s < 1 ? '<1' : s.toFixed(0)} s`);
    results.push(r);
  }
  console.log('');
  printResults(results);
  printStages(results);
  printGrowth(results);
  const target = results.find((r) => r.name === TARGET);
  if (target && !argv.includes('--no-process')) printWholeProcess(tmp, target, repsArg ? Number(repsArg) : 3);
  printGoals(results, tmp);
  const wrote = results.filter(noopWrote);
  console.log(
    wrote.length === 0
      ? 'No-op re-synth: nothing written, pruned or changed at every shape: OK'
      : `No-op re-synth WROTE files at ${wrote.map((r) => `${r.name} (reported ${r.noopReported}, on disk ${r.noopChangedOnDisk})`).join(', ')}`,
  );
  return wrote.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  },
);
