/**
 * Synth into a directory: compile the model and write what changed. The one entry point that the CLI's
 * `synth` and the benchmark share.
 */
import { writeOut } from './cli/write';
import type { CompileResult } from './compile';
import { compile } from './compile';

export interface SynthOutcome {
  /** The compile, when one ran (undefined when an up-to-date out/ let synth skip it). */
  readonly result?: CompileResult;
  readonly write: readonly string[];
  readonly unchanged: readonly string[];
  readonly prune: readonly string[];
  /** What recovering an interrupted earlier run did, if anything. */
  readonly recovered?: string;
}

/** Compiles `model` and writes its files into `outDir`; writes nothing when the model has problems. */
export function synthInto(model: unknown, outDir: string): SynthOutcome {
  const result = compile(model);
  if (result.diagnostics.length > 0) return { result, write: [], unchanged: [], prune: [] };
  return { result, ...writeOut(outDir, result.files) };
}
