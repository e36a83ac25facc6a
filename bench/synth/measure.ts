/**
 * One shape of the synth benchmark, measured in a child process of its own (so that peak RSS is per
 * shape): `runChild(name, ...)` forks this file with `--worker NAME`, and the child sends back a
 * ShapeResult. Shared by `npm run bench` (run.ts) and `npm run bench:growth` (growth.ts).
 *
 * In the child: one warm-up (a compile, whose objects the floor dumps, and writeOut), then N
 * repetitions of
 *   (a) synth: `synthInto(model, dir)` (lib/synth.ts, what the CLI's synth runs) into a fresh
 *       directory; the compile/write split comes from the compile's own stage timings
 *       (`outcome.result.timings`; write = the rest of synthInto: the model's digest, writeOut and
 *       the cache file);
 *   (b) the floor: the same final objects (compile().bundles of the warm-up, deep-copied before
 *       timing) dumped with plain js-yaml 4, `yaml.dump(o, { noRefs: true, lineWidth: -1 })` (no
 *       sortKeys, no custom schema: pinned, so that a faster emitter of ours does not move it), one
 *       `fs.writeFileSync` per object into per-cluster directories created before timing;
 * and then N times (c) the no-op: `synthInto(model, dir)` again into the last (a) directory, only
 * through synthInto (which may skip the compile when out/ is up to date: `outcome.result` is then
 * undefined). It must write nothing: what synthInto reports (written and pruned files) and what the
 * directory shows (every file's inode, size and mtime, before and after) are both checked.
 * Each call gets a fresh deep copy of the model, as a new process would.
 * (d) peak RSS of the child (`process.resourceUsage().maxRSS`) and the largest heap used right after
 * a synth, while its result is alive.
 *
 * Before each timed block the child collects garbage and runs sync(1), and it deletes its output only
 * when the shape is done, so that one block's disk writeback is not charged to the next.
 * `--stages` (growth): per-stage wall and CPU time of compile + writeOut instead (runStages).
 */
import { execFileSync, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { writeOut } from '../../lib/fs/write';
import { compile } from '../../lib/compile';
import { compileDigest } from '../../lib/digest';
import type { Bundles } from '../../lib/render';
import { synthInto } from '../../lib/synth';
import { parseShape } from './shapes';

/** What a child reports for one shape. Times in milliseconds, memory in bytes. */
export interface ShapeResult {
  readonly name: string;
  readonly scale: number;
  readonly objects: number;
  /** Bytes of all files the compile produced. */
  readonly bytes: number;
  readonly files: number;
  readonly reps: number;
  /** Best (a). */
  readonly synthMs: number;
  /** Least CPU time (user + system) of the (a) runs. */
  readonly synthCpuMs: number;
  /** The compile's stage times (sum) and the rest of synthInto (digest, writeOut, cache) of the best (a). */
  readonly compileMs: number;
  readonly writeMs: number;
  /** `outcome.result.timings` of the best (a). */
  readonly stages: Readonly<Record<string, number>>;
  /** All (a) runs, for judging noise. */
  readonly synthRuns: readonly number[];
  /** Best (b). */
  readonly floorMs: number;
  readonly floorRuns: readonly number[];
  readonly floorCpuMs: number;
  /** Best (c). */
  readonly noopMs: number;
  readonly noopRuns: readonly number[];
  readonly noopCpuMs: number;
  /** Whether any no-op ran the compile (synthInto's `result` defined). */
  readonly noopCompiled: boolean;
  /** The stage timings of the best no-op, when it compiled. */
  readonly noopStages?: Readonly<Record<string, number>>;
  /** Most files any no-op reported written or pruned. */
  readonly noopReported: number;
  /** Most files any no-op added, removed or modified on disk (inode, size or mtime). */
  readonly noopChangedOnDisk: number;
  readonly peakRss: number;
  readonly peakHeapUsed: number;
}

/** What a child reports for one shape of a growth family (--stages). */
export interface StagesResult {
  readonly name: string;
  readonly scale: number;
  readonly objects: number;
  readonly reps: number;
  /** Per stage (the compile's, then `write`): the least wall time and the least CPU time over the runs. */
  readonly wallMs: Readonly<Record<string, number>>;
  readonly cpuMs: Readonly<Record<string, number>>;
  /** Wall time of each run, compile + write. */
  readonly runs: readonly number[];
}

/** One synthInto, in figures. */
interface Synthesized {
  readonly ms: number;
  readonly cpu: number;
  readonly written: number;
  readonly pruned: number;
  /** The compile's stage timings; undefined when synthInto skipped the compile. */
  readonly timings?: Readonly<Record<string, number>>;
}

export interface ChildOptions {
  readonly reps: number;
  /** Where the temporary output directories go. */
  readonly dir: string;
  /** Write a V8 CPU profile of the child into this directory. */
  readonly cpuProfDir?: string;
}

// ---------------------------------------------------------------- child: one shape

function freshDir(root: string, name: string): string {
  const d = path.join(root, name);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/** A fresh floor directory with one directory per cluster already in it. */
function floorDir(root: string, name: string, bundles: Bundles): string {
  const d = freshDir(root, name);
  for (const cluster of bundles.keys()) fs.mkdirSync(path.join(d, cluster));
  return d;
}

const FLOOR_OPTIONS: yaml.DumpOptions = { noRefs: true, lineWidth: -1 };

/** The serialization floor: plain js-yaml 4 with fixed options, one plain write per object. */
function writeFloor(dir: string, bundles: Bundles): number {
  let n = 0;
  for (const [cluster, objects] of bundles) {
    const clusterDir = path.join(dir, cluster);
    for (const o of objects) {
      const file = path.join(
        clusterDir,
        `${o.kind}.${o.metadata.namespace ?? '_cluster'}.${o.metadata.name}.yaml`,
      );
      fs.writeFileSync(file, yaml.dump(o, FLOOR_OPTIONS));
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
 * the previous block's files (or of other processes) is not charged to this one.
 */
export function settle(): void {
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

/** Every file under `dir`, as absolute paths. */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every file under `dir` (relative path) with what a write changes: inode, size, mtime. */
function snapshot(dir: string): Map<string, string> {
  return new Map(
    filesUnder(dir).map((p) => {
      const s = fs.lstatSync(p, { bigint: true });
      return [path.relative(dir, p), `${s.ino}:${s.size}:${s.mtimeNs}`];
    }),
  );
}

/** Files added, removed or changed between two snapshots. */
function changed(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): number {
  let n = 0;
  for (const [p, v] of after) if (before.get(p) !== v) n++;
  for (const p of before.keys()) if (!after.has(p)) n++;
  return n;
}

const sum = (xs: Iterable<number>): number => [...xs].reduce((a, b) => a + b, 0);

/**
 * The model of shape `name`, digested, compiled and written once: a warm-up (JIT, ajv validators, CRD
 * loading, and the compiler's own digest, which synthInto computes once per process).
 */
function warmUp(name: string, root: string) {
  const shape = parseShape(name);
  const model = shape.model();
  compileDigest(model);
  const warm = compile(model);
  if (warm.diagnostics.length > 0 || !warm.bundles) {
    const first = warm.diagnostics.slice(0, 5).map((d) => `${d.rule} ${d.path}: ${d.message}`);
    throw new Error(`synthetic model ${name} does not compile:\n${first.join('\n')}`);
  }
  // The write path too (writeOut directly: a warm-up is not measured, and a second compile costs).
  writeOut(freshDir(root, 'warm'), warm.files);
  const objects = sum([...warm.bundles.values()].map((os_) => os_.length));
  return { shape, model, warm, bundles: warm.bundles, objects };
}

function runShape(name: string, o: ChildOptions): ShapeResult {
  const root = fs.mkdtempSync(path.join(o.dir, `clusterset-bench-${name}-`));
  let peakHeapUsed = 0;
  const sampleHeap = (): void => {
    peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed);
  };
  try {
    const { shape, model, warm, objects, ...w } = warmUp(name, root);
    sampleHeap();
    // A deep copy, so that the floor dumps objects no compile is holding on to.
    const bundles: Bundles = structuredClone(w.bundles);
    const files = warm.files.size;
    const bytes = sum([...warm.files.values()].map((text) => Buffer.byteLength(text)));
    writeFloor(floorDir(root, 'floor-warm', bundles), bundles);

    /**
     * synthInto on a fresh copy of the model, as a new process would get it. Returns figures only, so
     * that the compile's result is garbage before the next timed block.
     */
    const synth = (dir: string): Synthesized => {
      const input = structuredClone(model);
      settle();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const outcome = synthInto(input, dir);
      const ms = performance.now() - t0;
      const cpu = cpuMs(c0);
      sampleHeap();
      if ((outcome.result?.diagnostics.length ?? 0) > 0)
        throw new Error(`synthInto found problems in ${name}`);
      const { write, prune, result } = outcome;
      return {
        ms,
        cpu,
        written: write.length,
        pruned: prune.length,
        ...(result ? { timings: result.timings } : {}),
      };
    };

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
    for (let i = 0; i < o.reps; i++) {
      // (a) full synth into a fresh directory
      const dir = freshDir(root, `synth-${i}`);
      const a = synth(dir);
      if (!a.timings) throw new Error(`synthInto skipped the compile into the empty directory ${dir}`);
      if (a.written !== files) throw new Error(`synthInto wrote ${a.written} files of ${files} into ${dir}`);
      synthCpuMs = Math.min(synthCpuMs, a.cpu);
      synthRuns.push(a.ms);
      const compileMs = sum(Object.values(a.timings));
      if (a.ms < best.synthMs)
        best = { synthMs: a.ms, compileMs, writeMs: a.ms - compileMs, stages: a.timings };
      lastDir = dir;

      // (b) the floor, same objects
      const fdir = floorDir(root, `floor-${i}`, bundles);
      settle();
      const fc0 = process.cpuUsage();
      const f0 = performance.now();
      const written = writeFloor(fdir, bundles);
      floorRuns.push(performance.now() - f0);
      floorCpuMs = Math.min(floorCpuMs, cpuMs(fc0));
      if (written !== objects) throw new Error(`floor wrote ${written} files for ${objects} objects`);
    }

    // (c) no-op re-synth into the last directory, N times
    const noopRuns: number[] = [];
    let noopCpuMs = Infinity;
    let noopCompiled = false;
    let noopStages: Readonly<Record<string, number>> | undefined;
    let noopReported = 0;
    let noopChangedOnDisk = 0;
    for (let i = 0; i < o.reps; i++) {
      const before = snapshot(lastDir);
      const c = synth(lastDir);
      const after = snapshot(lastDir);
      if (c.ms < Math.min(Infinity, ...noopRuns)) noopStages = c.timings;
      noopRuns.push(c.ms);
      noopCpuMs = Math.min(noopCpuMs, c.cpu);
      noopCompiled ||= c.timings !== undefined;
      noopReported = Math.max(noopReported, c.written + c.pruned);
      noopChangedOnDisk = Math.max(noopChangedOnDisk, changed(before, after));
    }

    return {
      name,
      scale: shape.scale,
      objects,
      files,
      bytes,
      reps: o.reps,
      ...best,
      synthCpuMs,
      synthRuns,
      floorMs: Math.min(...floorRuns),
      floorRuns,
      floorCpuMs,
      noopMs: Math.min(...noopRuns),
      noopRuns,
      noopCpuMs,
      noopCompiled,
      ...(noopStages ? { noopStages } : {}),
      noopReported,
      noopChangedOnDisk,
      peakRss: process.resourceUsage().maxRSS * 1024,
      peakHeapUsed,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Growth (--stages): wall and CPU time of each stage. synthInto's onStage marks where each compile
 * stage starts but not where the last one ends, so this runs synthInto's parts itself, reading CPU
 * time between them: `compileDigest(model)` (the `digest` stage), `compile(model, onStage)` and
 * `writeOut(dir, files)` into a fresh directory (the `write` stage). Left out: the cache file
 * synthInto writes after the files (one small file, after waiting at most 50 ms for the clock).
 */
function runStages(name: string, o: ChildOptions): StagesResult {
  const root = fs.mkdtempSync(path.join(o.dir, `clusterset-growth-${name}-`));
  try {
    const { shape, model, objects } = warmUp(name, root);
    const wallMs: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    const keep = (into: Record<string, number>, stage: string, v: number): void => {
      into[stage] = Math.min(into[stage] ?? Infinity, v);
    };
    const runs: number[] = [];
    for (let i = 0; i < o.reps; i++) {
      const dir = freshDir(root, `synth-${i}`);
      const input = structuredClone(model);
      settle();
      const marks: { stage: string; cpu: NodeJS.CpuUsage }[] = [];
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      compileDigest(input);
      keep(wallMs, 'digest', performance.now() - t0);
      keep(cpu, 'digest', cpuMs(c0));
      const r = compile(input, (stage) => marks.push({ stage, cpu: process.cpuUsage() }));
      const compiled = process.cpuUsage();
      const t1 = performance.now();
      const w = writeOut(dir, r.files);
      const written = process.cpuUsage();
      const t2 = performance.now();
      if (r.diagnostics.length > 0 || w.write.length !== r.files.size)
        throw new Error(`${name}: compile or write failed`);
      marks.forEach((m, j) => {
        const end = marks[j + 1]?.cpu ?? compiled;
        keep(cpu, m.stage, (end.user + end.system - m.cpu.user - m.cpu.system) / 1000);
        keep(wallMs, m.stage, r.timings[m.stage]!);
      });
      keep(cpu, 'write', (written.user + written.system - compiled.user - compiled.system) / 1000);
      keep(wallMs, 'write', t2 - t1);
      runs.push(t2 - t0);
    }
    return { name, scale: shape.scale, objects, reps: o.reps, wallMs, cpuMs: cpu, runs };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- parent: a shape in a child

function inChild<T>(name: string, o: ChildOptions, mode: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const execArgv = [...process.execArgv, '--expose-gc'];
    if (o.cpuProfDir)
      execArgv.push(
        '--cpu-prof',
        `--cpu-prof-dir=${o.cpuProfDir}`,
        `--cpu-prof-name=synth-${name}.cpuprofile`,
      );
    const args = ['--worker', name, '--reps', String(o.reps), '--dir', o.dir, ...mode];
    const child = fork(__filename, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: T | undefined;
    let failure: string | undefined;
    child.on('message', (m: { result?: T; error?: string }) => {
      result = m.result ?? result;
      failure = m.error ?? failure;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`shape ${name}: ${failure ?? `child exited with code ${code}`}`));
    });
  });
}

/** `npm run bench`: (a)-(d) of shape `name` in a child process. */
export function measureShape(name: string, o: ChildOptions): Promise<ShapeResult> {
  return inChild(name, o, []);
}

/** `npm run bench:growth`: wall and CPU time per stage of shape `name` in a child process. */
export function measureStages(name: string, o: ChildOptions): Promise<StagesResult> {
  return inChild(name, o, ['--stages']);
}

export function arg(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

if (require.main === module && process.argv.includes('--worker')) {
  try {
    const name = arg(process.argv, '--worker') ?? '';
    const o = {
      reps: Number(arg(process.argv, '--reps') ?? 3),
      dir: arg(process.argv, '--dir') ?? os.tmpdir(),
    };
    const result = process.argv.includes('--stages') ? runStages(name, o) : runShape(name, o);
    process.send?.({ result }, () => process.disconnect());
  } catch (e) {
    process.exitCode = 1;
    process.send?.({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
      process.disconnect(),
    );
  }
}
