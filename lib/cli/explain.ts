/**
 * `clusterset explain [model] [--cluster ID] [--format text|markdown|json|mermaid]`: describes the
 * ClusterSet (or one cluster) and its reachability table on stdout. Reads the model only; never a
 * cluster.
 *
 * It checks the model exactly as synth does and prints the same diagnostics, but stops after the
 * plan: rendering and validating the bundles adds nothing to an explanation of the model.
 */
import type { CommandModule } from 'yargs';
import { checkModel } from '../check';
import { formatDiagnostic } from '../diagnostics';
import { explain, formatReport, UnknownClusterError, type ExplainFormat } from '../explain';
import { loadModel } from '../load';
import type { ClusterSetProps } from '../model';
import { plan as makePlan, type Plan } from '../plan';

/** The checked model's plan, or undefined after printing why not (exit 2: unreadable, 1: invalid). */
export function loadPlan(model: string): Plan | undefined {
  let input: unknown;
  try {
    input = loadModel(model);
  } catch (e) {
    process.stderr.write(`clusterset: cannot load ${model}: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return undefined;
  }
  const diagnostics = checkModel(input);
  if (diagnostics.length > 0) {
    process.stderr.write(
      `clusterset: ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} in ${model}; nothing to explain:\n`,
    );
    for (const d of diagnostics) process.stderr.write(`  ${formatDiagnostic(d)}\n`);
    process.exitCode = 1;
    return undefined;
  }
  return makePlan(input as ClusterSetProps);
}

interface ExplainArgs {
  model: string;
  cluster?: string;
  format: ExplainFormat;
}

/** The yargs command; registered in main.ts. */
export const explainCommand: CommandModule<object, ExplainArgs> = {
  command: 'explain [model]',
  describe: 'describe what each cluster exports, imports and enforces, and who can reach which Service',
  builder: (y) =>
    y
      .positional('model', {
        type: 'string',
        default: 'clusterset.ts',
        describe: 'model file (.ts, .js, .json, .yaml)',
      })
      .option('cluster', { type: 'string', describe: 'explain one cluster (its ID)' })
      .option('format', {
        choices: ['text', 'markdown', 'json', 'mermaid'] as const,
        default: 'text' as const,
        describe: 'output format',
      }) as never,
  handler: (a) => {
    const plan = loadPlan(a.model);
    if (!plan) return;
    try {
      const report = explain(plan, a.cluster === undefined ? {} : { cluster: a.cluster });
      process.stdout.write(formatReport(report, plan, a.format));
    } catch (e) {
      if (!(e instanceof UnknownClusterError)) throw e;
      process.stderr.write(`clusterset: --cluster: ${e.message}\n`);
      process.exitCode = 2;
    }
  },
};
