/**
 * Synth into a directory: compile the model and write what changed. The one entry point that the CLI's
 * `synth` and the benchmark share.
 *
 * An unchanged synth skips the compile. After a write, `<out>/.clusterset-cache` records the digest
 * of the compile's inputs (lib/digest.ts: the model and the compiler) and the size of every file it
 * wrote or found unchanged. The next synth with the same digest writes nothing and compiles nothing
 * when out/ is as that write left it: nothing an interrupted write left at its top, no directory of
 * its files changed (a file added or removed there), and every listed file present,
 * of the recorded size and older than the cache file. The last condition is git's answer to "racy"
 * timestamps: a file changed after the cache was written has a modification time at or after the
 * cache file's (the kernel stamps both from one clock), so it is never taken for unchanged; and the
 * cache is written only once the clock has moved past the write's last step, so our own files and
 * directories are never racy. What this cannot see is a file put back with an older timestamp and the same size
 * (`cp -p`, `tar x`, `touch -d`): `synth --force` compiles and compares bytes regardless, and
 * `synth --check` always does.
 *
 * The cache also records the model file that wrote out/ (`model`, an absolute path), which the CLI's
 * synth reads to refuse writing the default out/ from another model (lib/cli/commands.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BOOKKEEPING, LEGACY_STRAY, writeOut } from './fs/write';
import type { CompileResult } from './compile';
import type * as Compile from './compile';
import type { Diagnostic } from './diagnostics';
import { compileDigest } from './digest';

/** The record of the last write, beside the files; never listed in the index, never committed. */
export const CACHE_FILE = '.clusterset-cache';

export interface SynthOutcome {
  /** The compile, when one ran (undefined when an up-to-date out/ let synth skip it). */
  readonly result?: CompileResult;
  readonly write: readonly string[];
  readonly unchanged: readonly string[];
  readonly prune: readonly string[];
  /** The files of `prune` that no synth wrote, in a folder synth owns (lib/fs/write.ts). */
  readonly foreign: readonly string[];
  /** What recovering an interrupted earlier run did, if anything. */
  readonly recovered?: string;
  /**
   * The model's warnings: the compile's, or those the cache recorded when it skipped the compile
   * (they depend on the model and the compiler alone, which the digest covers).
   */
  readonly warnings: readonly Diagnostic[];
}

export interface SynthOptions {
  /** Compile and compare even when the cache says out/ is up to date. */
  readonly force?: boolean;
  /** Called at each compile stage (for --progress). */
  readonly onStage?: (stage: string) => void;
  /** The model file, recorded in the cache as the model out/ was written from (modelOf). */
  readonly modelFile?: string;
}

interface Cache {
  readonly version: 1;
  readonly digest: string;
  /** [path relative to out/, size in bytes] of every file the write left, the index among them. */
  readonly files: readonly (readonly [string, number])[];
  /** The compile's warnings, reported again by a synth that skips the compile. */
  readonly warnings: readonly Diagnostic[];
  /** The absolute path of the model file the write came from, when the caller said. */
  readonly model?: string;
}

function readCache(outDir: string): { cache: Cache; mtimeMs: number } | undefined {
  const file = path.join(outDir, CACHE_FILE);
  try {
    const mtimeMs = fs.statSync(file).mtimeMs;
    const cache = JSON.parse(fs.readFileSync(file, 'utf8')) as Cache;
    return cache.version === 1 && Array.isArray(cache.files) && Array.isArray(cache.warnings)
      ? { cache, mtimeMs }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The model file (absolute path) that last wrote out/, as its cache records it; undefined if none does. */
export function modelOf(outDir: string): string | undefined {
  const model = readCache(outDir)?.cache.model;
  return typeof model === 'string' ? model : undefined;
}

/**
 * The files of out/ when it is exactly as the write with this digest left it, and the warnings of
 * that write's compile; else undefined.
 */
export function upToDate(
  outDir: string,
  digest: string,
): { readonly files: string[]; readonly warnings: readonly Diagnostic[] } | undefined {
  const found = readCache(outDir);
  if (!found || found.cache.digest !== digest) return undefined;
  const before = found.mtimeMs;
  // Nothing an interrupted write left at the top (journal, pending list, staging directory, …).
  for (const name of fs.readdirSync(outDir)) {
    if (BOOKKEEPING.includes(name) || LEGACY_STRAY.test(name)) return undefined;
  }
  const listed: string[] = [];
  const dirs = new Set<string>();
  for (const [rel, size] of found.cache.files) {
    const file = path.join(outDir, rel);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st || !st.isFile() || st.size !== size || st.mtimeMs >= before) return undefined;
    // Each directory up to out/'s top folders: a file added in a new folder changes its parent's.
    for (let d = path.dirname(file); d.length > outDir.length && !dirs.has(d); d = path.dirname(d))
      dirs.add(d);
    listed.push(rel);
  }
  // A file added beside ours since (one a branch switch left, a stray of an older clusterset's
  // interrupted write) changed its directory's timestamp: a listing per directory is not needed.
  // out/ itself is left out: the cache file changes it, and synth prunes nothing at its top.
  for (const dir of dirs) {
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (!st || st.mtimeMs >= before) return undefined;
  }
  return { files: listed, warnings: found.cache.warnings };
}

/** Busy-waits (at most ~50 ms) until a fresh file's timestamp is later than `than`; false if it never is. */
function writeAfter(file: string, text: string, than: number): boolean {
  const deadline = performance.now() + 50;
  for (;;) {
    fs.writeFileSync(file, text);
    if (fs.statSync(file).mtimeMs > than) return true;
    if (performance.now() > deadline) return false;
  }
}

function writeCache(
  outDir: string,
  digest: string,
  files: ReadonlyMap<string, string>,
  warnings: readonly Diagnostic[],
  modelFile: string | undefined,
): void {
  const cacheFile = path.join(outDir, CACHE_FILE);
  try {
    // The write's last step (removing its journal) touched out/ itself, after every file and
    // directory below it: the cache file must be stamped later than that.
    const newest = fs.statSync(outDir).mtimeMs;
    const cache: Cache = {
      version: 1,
      digest,
      files: [...files].map(([rel, text]) => [rel, Buffer.byteLength(text)] as const),
      warnings,
      ...(modelFile === undefined ? {} : { model: path.resolve(modelFile) }),
    };
    if (!writeAfter(cacheFile, JSON.stringify(cache), newest)) fs.rmSync(cacheFile, { force: true });
  } catch {
    // A cache is an optimization: without one the next synth compiles.
    fs.rmSync(cacheFile, { force: true });
  }
}

/**
 * Records `modelFile` in the cache of an out/ that is up to date, when another model file (with the
 * same values) wrote it: out/ now belongs to this one. The rewritten cache stays later than out/.
 */
function recordModel(outDir: string, modelFile: string): void {
  const found = readCache(outDir);
  const model = path.resolve(modelFile);
  if (!found || found.cache.model === model) return;
  const cacheFile = path.join(outDir, CACHE_FILE);
  try {
    const text = JSON.stringify({ ...found.cache, model });
    if (!writeAfter(cacheFile, text, Math.max(found.mtimeMs, fs.statSync(outDir).mtimeMs)))
      fs.rmSync(cacheFile, { force: true });
  } catch {
    fs.rmSync(cacheFile, { force: true });
  }
}

/**
 * synthInto's compile, or its skip, with the write left for later: `write` when there is one to do.
 * For a caller that must yield to the event loop between the two (the CLI, to honour a signal that
 * arrived during the compile before anything is written).
 */
export function compileForSynth(
  model: unknown,
  outDir: string,
  o: SynthOptions = {},
):
  | { readonly outcome: SynthOutcome }
  | { readonly result: CompileResult; readonly write: () => SynthOutcome } {
  const digest = compileDigest(model);
  if (digest !== undefined && !o.force) {
    const known = upToDate(outDir, digest);
    if (known) {
      if (o.modelFile !== undefined) recordModel(outDir, o.modelFile);
      return {
        outcome: { write: [], unchanged: known.files, prune: [], foreign: [], warnings: known.warnings },
      };
    }
  }
  // Loaded only when a compile runs, so that an up-to-date synth starts fast.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { compile } = require('./compile') as typeof Compile;
  const result = compile(model, o.onStage);
  if (result.diagnostics.length > 0)
    return {
      outcome: { result, write: [], unchanged: [], prune: [], foreign: [], warnings: result.warnings },
    };
  return {
    result,
    write: () => {
      const written = writeOut(outDir, result.files);
      if (digest !== undefined) writeCache(outDir, digest, result.files, result.warnings, o.modelFile);
      else fs.rmSync(path.join(outDir, CACHE_FILE), { force: true });
      return { result, ...written, warnings: result.warnings };
    },
  };
}

/** Compiles `model` and writes its files into `outDir`; writes nothing when the model has problems. */
export function synthInto(model: unknown, outDir: string, o: SynthOptions = {}): SynthOutcome {
  const c = compileForSynth(model, outDir, o);
  return 'outcome' in c ? c.outcome : c.write();
}
