/**
 * `clusterset reconcile`: the leader's reconciler, as a yargs command module. The same code runs in
 * the leader's Deployment (in-cluster credentials, the config mounted from its ConfigMap) and on a
 * workstation (a kubeconfig, the config read from the ConfigMap or a file). The reconciler and
 * @kubernetes/client-node are loaded only when this command runs.
 *
 * Exit codes: 0 after SIGTERM or SIGINT (Lease released); 2 for a usage or config problem; 1 for
 * anything unexpected.
 */
import type { Argv, CommandModule } from 'yargs';
import type * as Run from '../reconciler/run';

interface ReconcileArgs {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  config?: string;
  listen: string;
  identity?: string;
  'log-level': string;
  workers: number;
  resync: number;
  'watch-timeout': number;
  'lease-duration': number;
  'renew-deadline': number;
  'retry-period': number;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export const reconcileCommand: CommandModule<object, ReconcileArgs> = {
  command: 'reconcile',
  describe:
    'run the leader reconciler: Endpoints, ClusterInfo and LabelIdentity imports, export status and finalizers, member retirement, ClusterSet status',
  builder: (y: Argv) =>
    y
      .option('kubeconfig', {
        type: 'string',
        describe:
          'kubeconfig of the leader (default: in-cluster credentials, else $KUBECONFIG or ~/.kube/config)',
      })
      .option('context', { type: 'string', describe: 'kubeconfig context (default: current)' })
      .option('namespace', {
        type: 'string',
        describe:
          "the leader namespace (default: the config's); without --config the config is read from its ConfigMap there",
      })
      .option('config', {
        type: 'string',
        describe: 'the compiled config file (config.json of ConfigMap clusterset-reconciler-config)',
      })
      .option('listen', {
        type: 'string',
        default: '127.0.0.1:8080',
        describe: "address of /healthz, /readyz and /metrics (port 0: any free port; '': none)",
      })
      .option('identity', {
        type: 'string',
        describe: 'Lease holder identity (default: $POD_NAME, else host_pid)',
      })
      .option('log-level', { type: 'string', choices: LEVELS, default: 'info' })
      .option('workers', { type: 'number', default: 4, describe: 'keys reconciled at once' })
      .option('resync', { type: 'number', default: 300, describe: 'seconds between full resyncs' })
      .option('watch-timeout', {
        type: 'number',
        default: 300,
        describe: 'seconds a watch lasts before it is renewed',
      })
      .option('lease-duration', { type: 'number', default: 15, describe: 'Lease duration, seconds' })
      .option('renew-deadline', {
        type: 'number',
        default: 10,
        describe: 'seconds without a renewal after which the leader stops writing',
      })
      .option('retry-period', { type: 'number', default: 2, describe: 'seconds between Lease attempts' })
      .example(
        '$0 reconcile --kubeconfig leader.yaml --namespace antrea-multicluster',
        'run against a leader from a workstation',
      )
      .example(
        '$0 reconcile --namespace antrea-multicluster --config /etc/clusterset/config.json --listen 0.0.0.0:8080',
        'as the leader Deployment runs it',
      ) as unknown as Argv<ReconcileArgs>,
  handler: async (a) => {
    const problems: string[] = [];
    for (const k of [
      'workers',
      'resync',
      'watch-timeout',
      'lease-duration',
      'renew-deadline',
      'retry-period',
    ] as const)
      if (!(a[k] > 0)) problems.push(`--${k} must be a positive number`);
    if (!(a['renew-deadline'] < a['lease-duration']))
      problems.push('--renew-deadline must be shorter than --lease-duration');
    if (!(a['retry-period'] < a['renew-deadline']))
      problems.push('--retry-period must be shorter than --renew-deadline');
    if (problems.length > 0) {
      process.stderr.write(problems.map((p) => `clusterset reconcile: ${p}\n`).join(''));
      process.exitCode = 2;
      return;
    }
    // Loaded here, not at the top: other commands never pay for the reconciler and client-node.
    // (require, not import(): tsx's CommonJS loader and the compiled output both resolve it.)
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { reconcile, UsageError } = require('../reconciler/run') as typeof Run;
    try {
      await reconcile({
        ...(a.kubeconfig !== undefined ? { kubeconfig: a.kubeconfig } : {}),
        ...(a.context !== undefined ? { context: a.context } : {}),
        ...(a.namespace !== undefined ? { namespace: a.namespace } : {}),
        ...(a.config !== undefined ? { config: a.config } : {}),
        ...(a.identity !== undefined ? { identity: a.identity } : {}),
        listen: a.listen,
        logLevel: a['log-level'] as (typeof LEVELS)[number],
        workers: a.workers,
        resyncSeconds: a.resync,
        watchTimeoutSeconds: a['watch-timeout'],
        leaseDurationSeconds: a['lease-duration'],
        renewDeadlineSeconds: a['renew-deadline'],
        retryPeriodSeconds: a['retry-period'],
      });
    } catch (e) {
      if (e instanceof UsageError) {
        process.stderr.write(`clusterset reconcile: ${e.message}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`clusterset reconcile: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = 1;
    }
  },
};
