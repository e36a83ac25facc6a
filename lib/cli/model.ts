/**
 * Loading and checking the model for every command, so that each one reports a broken model the
 * same way: `clusterset: cannot load …` (exit 2), or every diagnostic at once with what the command
 * did not do because of them.
 */
import type { CompileResult } from '../compile';
import { compile } from '../compile';
import { checkModel } from '../check';
import type { Diagnostic } from '../diagnostics';
import { formatDiagnostic } from '../diagnostics';
import { loadModelFile } from '../load';
import type { ClusterSetProps } from '../model';
import type { Plan } from '../plan';
import { plan as makePlan } from '../plan';

export interface ModelOptions {
  /** What the command did not do, e.g. "nothing was written". */
  readonly consequence: string;
  /** Exit code for a model with problems. @default 1 */
  readonly problemExit?: number;
  /** Called at each compile stage (for --progress). */
  readonly onStage?: (stage: string) => void;
}

async function load(file: string): Promise<{ input: unknown } | undefined> {
  try {
    return { input: await loadModelFile(file) };
  } catch (e) {
    process.stderr.write(`clusterset: cannot load ${file}: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return undefined;
  }
}

function reportProblems(file: string, ds: readonly Diagnostic[], o: ModelOptions): void {
  process.stderr.write(
    `clusterset: ${ds.length} problem${ds.length === 1 ? '' : 's'} in ${file}; ${o.consequence}:\n`,
  );
  for (const d of ds) process.stderr.write(`  ${formatDiagnostic(d)}\n`);
  process.exitCode = o.problemExit ?? 1;
}

/** The compiled model, or undefined after reporting why there is none. */
export async function compileModelFile(file: string, o: ModelOptions): Promise<CompileResult | undefined> {
  const loaded = await load(file);
  if (!loaded) return undefined;
  const r = compile(loaded.input, o.onStage);
  if (r.diagnostics.length === 0) return r;
  reportProblems(file, r.diagnostics, o);
  return undefined;
}

/**
 * The checked model's plan without rendering, or undefined after reporting why there is none: for
 * commands that explain the model rather than its output.
 */
export async function planModelFile(file: string, o: ModelOptions): Promise<Plan | undefined> {
  const loaded = await load(file);
  if (!loaded) return undefined;
  const ds = checkModel(loaded.input);
  if (ds.length === 0) return makePlan(loaded.input as ClusterSetProps);
  reportProblems(file, ds, o);
  return undefined;
}
