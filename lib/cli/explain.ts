/**
 * `clusterset explain [model] [--cluster ID] [--format text|markdown|json|mermaid]`: describes the
 * ClusterSet (or one cluster) and its reachability table on stdout. Reads the model only; never a
 * cluster.
 *
 * It checks the model exactly as synth does and prints the same diagnostics, then explains the plan
 * (rendering the bundles only to say what in each is ours); validating and writing them adds nothing
 * to an explanation of the model.
 */
import type { CommandModule } from 'yargs';
import { explain, formatReport, UnknownClusterError, type ExplainFormat } from '../explain';
import { planModelFile } from './model';
import { statusRbacYaml } from '../status/rbac';

interface ExplainArgs {
  model: string;
  cluster?: string;
  format: ExplainFormat;
  'status-rbac': boolean;
  namespace: string;
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
      .option('status-rbac', {
        type: 'boolean',
        default: false,
        describe:
          'print the read-only ServiceAccount, ClusterRole and ClusterRoleBinding `clusterset status` needs in each cluster (YAML; the model is not read)',
      })
      .option('namespace', {
        type: 'string',
        default: 'default',
        describe: 'with --status-rbac: the namespace of the status ServiceAccount',
      })
      .option('format', {
        choices: ['text', 'markdown', 'json', 'mermaid'] as const,
        default: 'text' as const,
        describe: 'output format',
      }) as never,
  handler: async (a) => {
    if (a['status-rbac']) {
      process.stdout.write(statusRbacYaml(a.namespace));
      return;
    }
    const plan = await planModelFile(a.model, { consequence: 'nothing to explain' });
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
