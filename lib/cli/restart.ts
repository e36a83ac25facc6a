/**
 * `clusterset restart-member-controller`: what each member bundle's restart Job runs (from the
 * reconciler's image), and what a person can run with a kubeconfig. It loads, like `reconcile`, only
 * the in-cluster runtime (lib/reconciler/run.ts), none of the compiler.
 *
 * With `--cluster-set` (what the Job passes) it then waits until the restarted controller reports
 * its leader connected and has it reconcile every ServiceExport, so that no withdrawal is lost to
 * Antrea's member dropping what it sees before it connects; it records what it does, or why it
 * cannot, on that ClusterSet (lib/reconciler/restart.ts).
 *
 * Exit codes: 0 when the Pod template holds the annotations (set now or already) and, with
 * `--cluster-set`, every ServiceExport was reconciled after the restart; 1 when the API refuses or
 * cannot be reached; 2 for a usage problem; 3 when Antrea's member controller is not installed (its
 * Deployment is missing). The Job's Pod restarts on a non-zero exit, with the kubelet's back-off, so
 * it runs again by itself once the cause is gone.
 */
import type { Argv, CommandModule } from 'yargs';
import { MEMBER_CONTROLLER_DEPLOYMENT, RESTART_COMMAND, RESTART_JOB_ENV } from '../names';
import type * as Run from '../reconciler/run';

interface RestartArgs {
  kubeconfig?: string;
  context?: string;
  namespace: string;
  deployment: string;
  annotation: string[];
  'cluster-set'?: string;
  'export-namespace'?: string[];
  job?: string;
}

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
      .option('cluster-set', {
        type: 'string',
        describe:
          "the member's ClusterSet in --namespace: wait for the restarted controller to connect, have it reconcile every ServiceExport, record progress there",
      })
      .option('export-namespace', {
        type: 'string',
        array: true,
        describe:
          'with --cluster-set: a namespace whose ServiceExports are reconciled again after the restart (repeatable)',
      })
      .option('job', {
        type: 'string',
        describe: 'the name it records its progress under (default: $CLUSTERSET_JOB, which the Job sets)',
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
    const job = a.job ?? process.env[RESTART_JOB_ENV];
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
        ...(a['cluster-set'] !== undefined ? { clusterSet: a['cluster-set'] } : {}),
        ...(a['export-namespace'] ? { exportNamespaces: a['export-namespace'] } : {}),
        ...(job ? { job } : {}),
        log: (line) => process.stdout.write(`${line}\n`),
        onRestarted: (x) => {
          const keys = Object.keys(x.changed);
          process.stdout.write(
            keys.length === 0
              ? `${where}: its Pod template already holds ${Object.keys(annotations).join(', ')}; nothing to restart\n`
              : `${where}: set ${keys.map((k) => `${k}=${x.changed[k]}`).join(', ')}; it rolls out a new ReplicaSet\n`,
          );
        },
      });
      if (r.reexported)
        process.stdout.write(
          `every ServiceExport reconciled by the controller started after ${r.restartedAt}: ${r.reexported.length} annotated\n`,
        );
    } catch (e) {
      if (e instanceof DeploymentMissing) return fail(3, e.message);
      if ((e as Error).name === 'UsageError') return fail(2, (e as Error).message);
      fail(1, `${where}: ${(e as Error).message}`);
    }
  },
};
