/**
 * The synth benchmark (`npm run bench`): compiles synthetic ClusterSets of growing size and compares
 * the compiler with the serialization floor, measured in the same run.
 *
 * For each size (clusters x services) a fresh child process (so that peak RSS is per size) runs:
 * - one warm-up compile + write, then the best of N of
 *   (a) `compile(model)` + `writeOut()` into a fresh temporary directory;
 *   (b) the floor: the same final objects (compile().bundles, deep-copied before timing) dumped with
 *       the same `dumpYaml` and written one file per object with plain `fs.writeFileSync`: no model,
 *       checks, constructs, validation, ordering, staging or index;
 * - (c) a no-op re-synth: compile + writeOut into the directory of the last (a) run, which must
 *   write 0 files;
 * - (d) peak RSS of the child (`process.resourceUsage().maxRSS`) and the largest heap used right
 *   after a compile, while its result is alive.
 * Before each timed block the child collects garbage and runs sync(1), and it deletes its output
 * only when the size is done, so that one block's disk writeback is not charged to the next. Wall
 * time and CPU time (user + system) are both reported; repeated runs that differ by more than x1.3
 * are flagged, since on a shared machine they make the figures unreliable.
 *
 * Profile: npm run bench -- --sizes 200x1000 --reps 1 --cpu-prof /tmp/prof
 *          npx tsx bench/synth/profile-top.ts /tmp/prof/*.cpuprofile 20
 *
 * Usage: npm run bench [-- --sizes 3x10,10x100 --reps 3 --cpu-prof DIR]
 *   --sizes    comma-separated CLUSTERSxSERVICES (default 3x10,10x100,50x500,100x1000,200x1000)
 *   --reps     timed repetitions per size (default 3, or 2 when clusters x services >= 100000)
 *   --dir      where the temporary output directories go (default: the OS temp dir, i.e. disk here;
 *              /dev/shm takes file-system noise out and leaves the CPU side)
 *   --cpu-prof write a V8 CPU profile of each child into DIR (timings are then inflated)
 *
 * Exit status 1 when a no-op re-synth rewrote a file.
 */
import { execFileSync, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeOut } from '../../lib/cli/write';
import { compile } from '../../lib/compile';
import type { Bundles } from '../../lib/render';
import { dumpYaml } from '../../lib/yaml';
import { synthetic } from './model';

const DEFAULT_SIZES = '3x10,10x100,50x500,100x1000,200x1000';

interface Size {
  readonly clusters: number;
  readonly services: number;
}

/** What a child reports for one size. Times in milliseconds, memory in bytes. */
interface SizeResult {
  readonly clusters: number;
  readonly services: number;
  readonly objects: number;
  /** Bytes of all files compile() produced. */
  readonly bytes: number;
  readonly files: number;
  readonly reps: number;
  /** Best (a): compile + writeOut into a fresh directory. */
  readonly synthMs: number;
  /** Least CPU time (user + system) of the (a) runs. */
  readonly synthCpuMs: number;
  /** compile() and writeOut() of that best run. */
  readonly compileMs: number;
  readonly writeMs: number;
  /** compile().timings of that best run. */
  readonly stages: Readonly<Record<string, number>>;
  /** All (a) runs, for judging noise. */
  readonly synthRuns: readonly number[];
  /** Best (b). */
  readonly floorMs: number;
  readonly floorRuns: readonly number[];
  readonly floorCpuMs: number;
  /** (c) */
  readonly noopMs: number;
  readonly noopRewritten: number;
  /** (d) */
  readonly peakRss: number;
  readonly peakHeapUsed: number;
}

function parseSizes(spec: string): Size[] {
  return spec.split(',').map((s) => {
    const m = /^\s*(\d+)x(\d+)\s*$/.exec(s);
    if (!m) throw new Error(`--sizes: "${s}" is not CLUSTERSxSERVICES, e.g. 50x500`);
    return { clusters: Number(m[1]), services: Number(m[2]) };
  });
}

function arg(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

// ---------------------------------------------------------------- child: one size

function freshDir(root: string, name: string): string {
  const d = path.join(root, name);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** The serialization floor: dump each object with the same dumper, one plain write per object. */
function writeFloor(dir: string, bundles: Bundles): number {
  let n = 0;
  for (const [cluster, objects] of bundles) {
    const clusterDir = path.join(dir, cluster);
    fs.mkdirSync(clusterDir, { recursive: true });
    for (const o of objects) {
      const file = path.join(
        clusterDir,
        `${o.kind}.${o.metadata.namespace ?? '_cluster'}.${o.metadata.name}.yaml`,
      );
      fs.writeFileSync(file, dumpYaml(o));
      n++;
    }
  }
  return n;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Before each timed block: collect garbage and flush the kernel's dirty pages, so that writeback of
 * the previous block's files (or of other processes) is not charged to this one. Output directories
 * are removed only when the size is done, for the same reason (unlinks cost the kernel work later).
 */
function settle(): void {
  gc();
  try {
    execFileSync('sync', { stdio: 'ignore' });
  } catch {
    // no sync(1): timings just get noisier
  }
}

/** CPU time (user + system) since `since`, in ms. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

function runSize(size: Size, reps: number, tmp: string): SizeResult {
  const model = synthetic(size.clusters, size.services);
  const root = fs.mkdtempSync(path.join(tmp, `clusterset-bench-${size.clusters}x${size.services}-`));
  let peakHeapUsed = 0;
  const sampleHeap = (): void => {
    peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed);
  };
  try {
    // Warm-up (JIT, ajv validators, CRD loading), and the objects for the floor.
    const warm = compile(model);
    if (warm.diagnostics.length > 0 || !warm.bundles) {
      const first = warm.diagnostics.slice(0, 5).map((d) => `${d.rule} ${d.path}: ${d.message}`);
      throw new Error(
        `synthetic model ${size.clusters}x${size.services} does not compile:\n${first.join('\n')}`,
      );
    }
    sampleHeap();
    writeOut(freshDir(root, 'warm'), warm.files);
    const bundles: Bundles = structuredClone(warm.bundles);
    const objects = [...bundles.values()].reduce((n, os_) => n + os_.length, 0);
    const files = warm.files.size;
    const bytes = [...warm.files.values()].reduce((n, text) => n + Buffer.byteLength(text), 0);
    writeFloor(freshDir(root, 'floor-warm'), bundles);

    const synthRuns: number[] = [];
    const floorRuns: number[] = [];
    let synthCpuMs = Infinity;
    let floorCpuMs = Infinity;
    let best = {
      synthMs: Infinity,
      compileMs: 0,
      writeMs: 0,
      stages: {} as Readonly<Record<string, number>>,
    };
    let lastDir = '';
    for (let i = 0; i < reps; i++) {
      // (a) full synth into a fresh directory
      const dir = freshDir(root, `synth-${i}`);
      settle();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = compile(model);
      const t1 = performance.now();
      sampleHeap();
      writeOut(dir, r.files);
      const t2 = performance.now();
      synthCpuMs = Math.min(synthCpuMs, cpuMs(c0));
      synthRuns.push(t2 - t0);
      if (t2 - t0 < best.synthMs)
        best = { synthMs: t2 - t0, compileMs: t1 - t0, writeMs: t2 - t1, stages: r.timings };
      lastDir = dir;

      // (b) the floor, same objects
      const floorDir = freshDir(root, `floor-${i}`);
      settle();
      const fc0 = process.cpuUsage();
      const f0 = performance.now();
      const written = writeFloor(floorDir, bundles);
      floorRuns.push(performance.now() - f0);
      floorCpuMs = Math.min(floorCpuMs, cpuMs(fc0));
      if (written !== objects) throw new Error(`floor wrote ${written} files for ${objects} objects`);
    }

    // (c) no-op re-synth into the last directory
    settle();
    const n0 = performance.now();
    const again = compile(model);
    sampleHeap();
    const w = writeOut(lastDir, again.files);
    const noopMs = performance.now() - n0;

    return {
      clusters: size.clusters,
      services: size.services,
      objects,
      files,
      bytes,
      reps,
      ...best,
      synthCpuMs,
      synthRuns,
      floorMs: Math.min(...floorRuns),
      floorRuns,
      floorCpuMs,
      noopMs,
      noopRewritten: w.write.length,
      peakRss: process.resourceUsage().maxRSS * 1024,
      peakHeapUsed,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- parent: sizes in children

function runChild(
  size: Size,
  reps: number,
  tmp: string,
  cpuProfDir: string | undefined,
): Promise<SizeResult> {
  return new Promise((resolve, reject) => {
    const execArgv = [...process.execArgv, '--expose-gc'];
    if (cpuProfDir)
      execArgv.push(
        '--cpu-prof',
        `--cpu-prof-dir=${cpuProfDir}`,
        `--cpu-prof-name=synth-${size.clusters}x${size.services}.cpuprofile`,
      );
    const child = fork(
      __filename,
      ['--worker', `${size.clusters}x${size.services}`, '--reps', String(reps), '--dir', tmp],
      {
        execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    let result: SizeResult | undefined;
    let failure: string | undefined;
    child.on('message', (m: { result?: SizeResult; error?: string }) => {
      result = m.result ?? result;
      failure = m.error ?? failure;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result) resolve(result);
      else
        reject(
          new Error(`size ${size.clusters}x${size.services}: ${failure ?? `child exited with code ${code}`}`),
        );
    });
  });
}

const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    )
    .join('\n');
}

function report(results: readonly SizeResult[]): boolean {
  const perObject = (r: SizeResult): number => (r.synthMs * 1000) / r.objects;
  const compilePerObject = (r: SizeResult): number => (r.compileMs * 1000) / r.objects;
  const rows = [
    [
      'size',
      'objects',
      'files',
      'MB',
      'compile+write ms',
      'floor ms',
      'ratio',
      'µs/object',
      'compile µs/obj',
      'floor µs/obj',
      'no-op ms',
      'no-op rewrites',
      'peak RSS MB',
      'peak heap MB',
      'CPU ms',
      'floor CPU ms',
      'CPU ratio',
    ],
    ...results.map((r) => [
      `${r.clusters}x${r.services}`,
      String(r.objects),
      String(r.files),
      (r.bytes / 1024 / 1024).toFixed(1),
      ms(r.synthMs),
      ms(r.floorMs),
      `${(r.synthMs / r.floorMs).toFixed(2)}x`,
      perObject(r).toFixed(0),
      compilePerObject(r).toFixed(0),
      ((r.floorMs * 1000) / r.objects).toFixed(0),
      ms(r.noopMs),
      String(r.noopRewritten),
      mb(r.peakRss),
      mb(r.peakHeapUsed),
      ms(r.synthCpuMs),
      ms(r.floorCpuMs),
      `${(r.synthCpuMs / r.floorCpuMs).toFixed(2)}x`,
    ]),
  ];
  console.log(table(rows));
  console.log('(best of N runs after 1 warm-up; each size in its own process; all runs:)');
  const spread = (xs: readonly number[]): number => Math.max(...xs) / Math.min(...xs);
  for (const r of results) {
    console.log(
      `  ${r.clusters}x${r.services}: N=${r.reps}, compile+write [${r.synthRuns.map(ms).join(', ')}], floor [${r.floorRuns.map(ms).join(', ')}]` +
        `, spread x${Math.max(spread(r.synthRuns), spread(r.floorRuns)).toFixed(2)}`,
    );
  }
  const noisy = results.filter((r) => r.reps > 1 && Math.max(spread(r.synthRuns), spread(r.floorRuns)) > 1.3);
  if (noisy.length > 0) {
    console.log(
      `CAUTION: repeated runs differ by more than x1.3 at ${noisy.map((r) => `${r.clusters}x${r.services}`).join(', ')}: ` +
        'the machine was noisy and the figures below are unreliable: rerun on a quieter machine, and/or use --dir /dev/shm to take the disk out.',
    );
  }

  const biggest = results.reduce((a, b) => (b.objects > a.objects ? b : a));
  console.log(`\nStages at ${biggest.clusters}x${biggest.services} (best run, ms):`);
  const stages = [
    ...Object.entries(biggest.stages),
    ['write (writeOut)', biggest.writeMs] as [string, number],
  ];
  console.log(
    table([
      ['stage', 'ms', 'share'],
      ...stages.map(([k, v]) => [k, ms(v), `${((100 * v) / biggest.synthMs).toFixed(0)}%`]),
    ]),
  );

  // Linearity: per-object cost and the log-log slope of time against objects between sizes.
  // Sizes under 1,000 objects are dominated by fixed costs and are left out of the judgement.
  const judged = [...results].filter((r) => r.objects >= 1000).sort((a, b) => a.objects - b.objects);
  console.log('\nGrowth (slope 1.0 = linear in objects):');
  for (let i = 1; i < judged.length; i++) {
    const a = judged[i - 1]!;
    const b = judged[i]!;
    const slope = Math.log(b.synthMs / a.synthMs) / Math.log(b.objects / a.objects);
    const floorSlope = Math.log(b.floorMs / a.floorMs) / Math.log(b.objects / a.objects);
    console.log(
      `  ${a.clusters}x${a.services} -> ${b.clusters}x${b.services}: objects x${(b.objects / a.objects).toFixed(2)}, ` +
        `time x${(b.synthMs / a.synthMs).toFixed(2)}, slope ${slope.toFixed(2)} (floor ${floorSlope.toFixed(2)})`,
    );
  }
  if (judged.length >= 2) {
    // Linear means a constant cost per object: the per-object cost at the largest size is within
    // x1.5 of the smallest judged size (more than that is superlinear; less is fixed costs
    // amortizing). Judged on compile+write and on compile() alone, which excludes the disk, the
    // noisiest part on a shared machine.
    const first = judged[0]!;
    const last = judged[judged.length - 1]!;
    const growth = perObject(last) / perObject(first);
    const compileGrowth = compilePerObject(last) / compilePerObject(first);
    const judge = (g: number): string =>
      g > 1.5 ? 'SUPERLINEAR' : g < 0.8 ? 'linear (sublinear: fixed costs amortize)' : 'linear';
    console.log(
      `Verdict: compile+write is ${judge(growth)}: ${perObject(first).toFixed(0)} µs/object at ${first.clusters}x${first.services}, ` +
        `${perObject(last).toFixed(0)} at ${last.clusters}x${last.services} (x${growth.toFixed(2)}); ` +
        `compile() alone is ${judge(compileGrowth)}: ${compilePerObject(first).toFixed(0)} -> ${compilePerObject(last).toFixed(0)} µs/object ` +
        `(x${compileGrowth.toFixed(2)}). Linear = per-object cost within x1.5 across sizes >= 1,000 objects.`,
    );
  } else {
    console.log('Verdict: not enough sizes with >= 1,000 objects to judge growth');
  }
  const target = results.find((r) => r.clusters === 200 && r.services === 1000) ?? biggest;
  const ratio = target.synthMs / target.floorMs;
  console.log(
    `Target at ${target.clusters}x${target.services}: ${ratio.toFixed(2)}x the floor (target <= 3x): ${ratio <= 3 ? 'MET' : 'MISSED'}`,
  );
  const rewrote = results.filter((r) => r.noopRewritten > 0);
  console.log(
    rewrote.length === 0
      ? 'No-op re-synth: 0 files rewritten at every size: OK'
      : `No-op re-synth REWROTE files at ${rewrote.map((r) => `${r.clusters}x${r.services} (${r.noopRewritten})`).join(', ')}`,
  );
  return rewrote.length === 0;
}

async function main(argv: readonly string[]): Promise<number> {
  const sizes = parseSizes(arg(argv, '--sizes') ?? DEFAULT_SIZES);
  const repsArg = arg(argv, '--reps');
  const cpuProf = arg(argv, '--cpu-prof');
  const tmp = path.resolve(arg(argv, '--dir') ?? os.tmpdir());
  console.log(
    `clusterset synth benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, output under ${tmp}${cpuProf ? `, CPU profiles in ${cpuProf} (timings inflated)` : ''}`,
  );
  const results: SizeResult[] = [];
  for (const size of sizes) {
    const reps = repsArg ? Number(repsArg) : size.clusters * size.services >= 100_000 ? 2 : 3;
    const t0 = performance.now();
    process.stdout.write(`  ${size.clusters}x${size.services} (${reps} runs) ... `);
    const r = await runChild(size, reps, tmp, cpuProf ? path.resolve(cpuProf) : undefined);
    console.log(
      `${(performance.now() - t0) / 1000 < 1 ? '<1' : ((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    results.push(r);
  }
  console.log('');
  return report(results) ? 0 : 1;
}

if (process.argv.includes('--worker')) {
  const [size] = parseSizes(arg(process.argv, '--worker') ?? '');
  try {
    const result = runSize(
      size!,
      Number(arg(process.argv, '--reps') ?? 3),
      arg(process.argv, '--dir') ?? os.tmpdir(),
    );
    process.send?.({ result }, () => process.disconnect());
  } catch (e) {
    process.exitCode = 1;
    process.send?.({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
      process.disconnect(),
    );
  }
} else {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(2);
    },
  );
}
