/**
 * `clusterset restart-member-controller`: what each member bundle's restart Job runs (from the
 * reconciler's image), and what a person can run with a kubeconfig. It loads, like `reconcile`, only
 * the in-cluster runtime (lib/reconciler/run.ts), none of the compiler.
 *
 * Exit codes: 0 when the Pod template holds the annotations (set now or already); 1 when the
 * Deployment is missing or the API refuses; 2 for a usage problem.
 */
import type { Argv, CommandModule } from 'yargs';
import { MEMBER_CONTROLLER_DEPLOYMENT } from '../names';
import type * as Run from '../reconciler/run';

interface RestartArgs {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  deployment: string;
  annotation: string[];
}

export const RESTART_COMMAND = 'restart-member-controller';

export const restartCommand: CommandModule<object, RestartArgs> = {
  command: RESTART_COMMAND,
  describe:
    "restart Antrea's member controller if its Pod template lacks these annotations (what a member bundle's restart Job runs)",
  builder: (y: Argv) =>
    y
      .option('kubeconfig', {
        type: 'string',
        describe:
          'kubeconfig of the member (default: in-cluster credentials, else $KUBECONFIG or ~/.kube/config)',
      })
      .option('context', { type: 'string', describe: 'kubeconfig context (default: current)' })
      .option('namespace', {
        type: 'string',
        demandOption: true,
        describe: "the member controller's namespace (the model's memberNamespace, kube-system by default)",
      })
      .option('deployment', {
        type: 'string',
        default: MEMBER_CONTROLLER_DEPLOYMENT,
        describe: "Antrea's member controller Deployment",
      })
      .option('annotation', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'KEY=VALUE to hold on the Pod template (repeatable)',
      })
      .example(
        '$0 restart-member-controller --context east --namespace kube-system --annotation clusterset/tiers-checksum=<sha256>',
        'what the Job of east’s bundle does, from a workstation',
      ) as unknown as Argv<RestartArgs>,
  handler: async (a) => {
    const fail = (code: number, message: string) => {
      process.stderr.write(`clusterset ${RESTART_COMMAND}: ${message}\n`);
      process.exitCode = code;
    };
    // Loaded here: other commands never pay for client-node (see reconcile.ts).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { restart, parseAnnotations, DeploymentMissing } = require('../reconciler/run') as typeof Run;
    let annotations: Record<string, string>;
    try {
      annotations = parseAnnotations(a.annotation);
    } catch (e) {
      return fail(2, (e as Error).message);
    }
    const where = `Deployment ${a.namespace}/${a.deployment}`;
    try {
      const r = await restart({
        ...(a.kubeconfig !== undefined ? { kubeconfig: a.kubeconfig } : {}),
        ...(a.context !== undefined ? { context: a.context } : {}),
        namespace: a.namespace,
        deployment: a.deployment,
        annotations,
      });
      const keys = Object.keys(r.changed);
      process.stdout.write(
        keys.length === 0
          ? `${where}: its Pod template already holds ${Object.keys(annotations).join(', ')}; nothing to restart\n`
          : `${where}: set ${keys.map((k) => `${k}=${r.changed[k]}`).join(', ')}; it rolls out a new ReplicaSet\n`,
      );
    } catch (e) {
      if (e instanceof DeploymentMissing) return fail(1, e.message);
      if ((e as Error).name === 'UsageError') return fail(2, (e as Error).message);
      fail(1, `${where}: ${(e as Error).message}`);
    }
  },
};
