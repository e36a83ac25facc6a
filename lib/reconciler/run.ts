/**
 * `clusterset reconcile`: loads the kubeconfig (in-cluster when none is given) and the compiled
 * config, serves health and metrics, and runs the controller until SIGTERM or SIGINT, on which it
 * stops writing, releases its Lease and exits 0.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { RECONCILER_CONFIG_KEY, RECONCILER_CONFIG_NAME } from '../names';
import { ConfigError, parseReconcilerConfigText, type ReconcilerConfig } from '../reconciler-config';
import { Controller } from './controller';
import { KubeClient, isApiError } from './kube';
import { jsonLogger, type Level, type Logger } from './log';
import { Metrics } from './metrics';
import { reexportAfterRestart, recordRestart, restartMemberController, type RestartResult } from './restart';

export { DeploymentMissing, parseAnnotations } from './restart';

export interface ReconcileOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
  /** The leader namespace; @default - the config's leaderNamespace */
  readonly namespace?: string;
  /** A config file; @default - ConfigMap clusterset-reconciler-config in the namespace */
  readonly config?: string;
  /** host:port for /healthz, /readyz and /metrics; port 0 picks one; '' serves nothing. */
  readonly listen: string;
  /** Lease holder identity. @default - $POD_NAME, else <hostname>_<pid> */
  readonly identity?: string;
  readonly logLevel: Level;
  readonly workers: number;
  readonly resyncSeconds: number;
  readonly watchTimeoutSeconds: number;
  readonly leaseDurationSeconds: number;
  readonly renewDeadlineSeconds: number;
  readonly retryPeriodSeconds: number;
}

/** A problem with how the command was called: exit 2, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

function loadKubeConfig(o: { readonly kubeconfig?: string; readonly context?: string }): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
    else if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) kc.loadFromCluster();
    else kc.loadFromDefault();
  } catch (e) {
    throw new UsageError(
      `cannot read the kubeconfig ${o.kubeconfig ?? '(default)'}: ${(e as Error).message}`,
    );
  }
  if (o.context !== undefined) {
    if (!kc.getContextObject(o.context))
      throw new UsageError(
        `no context ${JSON.stringify(o.context)} in the kubeconfig (it has: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || 'none'
        })`,
      );
    kc.setCurrentContext(o.context);
  }
  if (!kc.getCurrentCluster()) throw new UsageError('the kubeconfig names no current cluster');
  return kc;
}

async function loadConfig(o: ReconcileOptions, client: KubeClient): Promise<ReconcilerConfig> {
  if (o.config !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(o.config, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read the config file ${o.config}: ${(e as Error).message}`);
    }
    return parseReconcilerConfigText(text, o.config);
  }
  if (o.namespace === undefined)
    throw new UsageError('give --config FILE, or --namespace NS to read ConfigMap ' + RECONCILER_CONFIG_NAME);
  const where = `ConfigMap ${o.namespace}/${RECONCILER_CONFIG_NAME}`;
  let cm: { data?: Record<string, string> };
  try {
    cm = await client.request(
      'GET',
      `/api/v1/namespaces/${o.namespace}/configmaps/${RECONCILER_CONFIG_NAME}`,
    );
  } catch (e) {
    throw new UsageError(
      `cannot read ${where}: ${(e as Error).message}${isApiError(e, 403) ? ' (in the cluster the config is mounted: use --config)' : ''}`,
    );
  }
  const text = cm.data?.[RECONCILER_CONFIG_KEY];
  if (text === undefined) throw new UsageError(`${where} has no key ${RECONCILER_CONFIG_KEY}`);
  return parseReconcilerConfigText(text, where);
}

function parseListen(listen: string): { host: string; port: number } | undefined {
  if (listen === '') return undefined;
  const m = /^(.*):(\d+)$/.exec(listen);
  if (!m || Number(m[2]) > 65535)
    throw new UsageError(`--listen ${listen}: expected host:port, e.g. 0.0.0.0:8080`);
  return { host: m[1] || '0.0.0.0', port: Number(m[2]) };
}

function serve(
  addr: { host: string; port: number },
  controller: Controller,
  metrics: Metrics,
  log: Logger,
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type });
      res.end(body);
    };
    if (path === '/healthz') return send(200, 'ok\n');
    if (path === '/readyz') {
      const missing = controller.notSynced();
      return missing.length === 0
        ? send(200, 'ok\n')
        : send(503, `caches not synced: ${missing.join(', ')}\n`);
    }
    if (path === '/metrics') return send(200, metrics.render(), 'text/plain; version=0.0.4; charset=utf-8');
    send(404, 'not found: try /healthz, /readyz or /metrics\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) =>
      reject(new UsageError(`cannot listen on ${addr.host}:${addr.port}: ${e.message}`)),
    );
    server.listen(addr.port, addr.host, () => {
      const a = server.address();
      log.info('serving health and metrics', {
        address: typeof a === 'object' && a ? `${a.address}:${a.port}` : String(a),
      });
      resolve(server);
    });
  });
}

/** Runs the reconciler until a signal; resolves when it has stopped cleanly. */
export async function reconcile(o: ReconcileOptions, signal?: AbortSignal): Promise<void> {
  const log = jsonLogger(o.logLevel);
  const kc = loadKubeConfig(o);
  const client = new KubeClient(kc, { userAgent: 'clusterset-reconciler' });
  let config: ReconcilerConfig;
  try {
    config = await loadConfig(o, client);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (o.namespace !== undefined && o.namespace !== config.leaderNamespace)
    throw new UsageError(
      `--namespace ${o.namespace} is not the config's leader namespace ${config.leaderNamespace}`,
    );
  const addr = parseListen(o.listen);
  const identity = o.identity ?? process.env.POD_NAME ?? `${os.hostname()}_${process.pid}`;
  const metrics = new Metrics();
  const controller = new Controller({
    client,
    config,
    identity,
    log,
    metrics,
    workers: o.workers,
    resyncSeconds: o.resyncSeconds,
    watchTimeoutSeconds: o.watchTimeoutSeconds,
    leaseDurationS: o.leaseDurationSeconds,
    renewDeadlineMs: o.renewDeadlineSeconds * 1000,
    retryPeriodMs: o.retryPeriodSeconds * 1000,
  });
  const server = addr ? await serve(addr, controller, metrics, log) : undefined;
  const ac = new AbortController();
  const stop = (why: string) => {
    if (ac.signal.aborted) return;
    log.info('stopping', { why });
    ac.abort();
  };
  const onSignal = (s: NodeJS.Signals) => stop(s);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  signal?.addEventListener('abort', () => stop('aborted'));
  log.info('reconciler starting', {
    server: client.server,
    namespace: config.leaderNamespace,
    clusterSet: config.clusterSetId,
    identity,
    members: config.members.length,
    services: config.services.length,
  });
  try {
    await controller.run(ac.signal);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    if (server) {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await closed;
    }
    client.close();
    log.info('stopped');
  }
}

/**
 * `clusterset restart-member-controller`: sets the annotations on the Pod template of Antrea's member
 * controller Deployment where they differ, then, with `clusterSet`, waits for the restarted
 * controller to connect and has it reconcile every ServiceExport (restart.ts). In a Pod (the member
 * bundle's Job) with no kubeconfig it uses the Pod's ServiceAccount. A failure it can name is
 * recorded on the member's ClusterSet before it is thrown.
 */
export async function restart(o: {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace: string;
  readonly deployment: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly clusterSet?: string;
  readonly exportNamespaces?: readonly string[];
  readonly job?: string;
  readonly log?: (line: string) => void;
  /** Told what the restart did, before the wait. */
  readonly onRestarted?: (r: RestartResult) => void;
}): Promise<RestartResult & { readonly reexported?: readonly string[] }> {
  const client = new KubeClient(loadKubeConfig(o), { userAgent: 'clusterset-restart' });
  const job = o.job ?? 'restart-member-controller';
  const csPath =
    o.clusterSet === undefined
      ? undefined
      : `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${encodeURIComponent(o.namespace)}/clustersets/${encodeURIComponent(o.clusterSet)}`;
  try {
    const r = await restartMemberController(client, o.namespace, o.deployment, o.annotations);
    o.onRestarted?.(r);
    if (o.clusterSet === undefined || r.restartedAt === undefined) return r;
    const reexported = await reexportAfterRestart(client, {
      namespace: o.namespace,
      clusterSet: o.clusterSet,
      since: r.restartedAt,
      exportNamespaces: o.exportNamespaces ?? [],
      job,
      ...(o.log ? { log: o.log } : {}),
    });
    return { ...r, reexported };
  } catch (e) {
    if (csPath)
      await recordRestart(client, csPath, job, 'failed', (e as Error).message).catch(() => undefined);
    throw e;
  } finally {
    client.close();
  }
}
