/**
 * `clusterset status [model] [--out DIR] [--kubeconfig F] [--context-for CLUSTER=CONTEXT ...]
 * [--format text|markdown|json] [--timeout S] [--watch]`: the live ClusterSet against the model and
 * out/, read from the leader and every member with GET, LIST and WATCH only (lib/status/rbac.ts).
 *
 * Exit 0 when everything matches the model, 1 when something does not (or a cluster cannot be
 * reached), 2 for usage and model errors (among them a kubeconfig that is missing, empty or holds no
 * context). Who applied an object is information, not a mismatch, unless the model's `delivery`
 * names the tools that must have (lib/status/report/clusters.ts). With --watch it redraws on every
 * change the watches bring, until interrupted, and then exits with the status of the last report it
 * drew.
 */
import * as path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import type * as ClientNode from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import type * as Kubeconfig from '../kubeconfig';
import type * as Kube from '../reconciler/kube';
import type * as Read from '../status/read';
import { bundlesFromFiles, collectionsFor, type BundleObject, type ClusterRead } from '../status/live';
import { statusReport } from '../status/report';
import type { StatusReport } from '../status/report/types';
import { formatStatus, STATUS_FORMATS, type StatusFormat } from '../status/format';
import type { Plan } from '../plan';
import { didYouMean } from '../check/util';
import { planModelFile } from './model';
import { readOutDir } from './diff';

const EXIT_USAGE = 2;

interface StatusArgs {
  model: string;
  out: string;
  kubeconfig?: string;
  'context-for': string[];
  format: StatusFormat;
  timeout: number;
  watch: boolean;
}

class StatusUsageError extends Error {}

/** Cluster ID → its bundle's objects, from out/clusters/<id>/ (kustomization.yaml aside). */
export function readBundles(outDir: string, plan: Plan): Map<string, BundleObject[]> {
  let tree: ReturnType<typeof readOutDir>;
  try {
    tree = readOutDir(outDir);
  } catch (e) {
    throw new StatusUsageError(`${outDir}: ${(e as Error).message}`);
  }
  const bundles = bundlesFromFiles(tree.files, plan);
  if ([...bundles.values()].every((b) => b.length === 0))
    throw new StatusUsageError(`${outDir} holds no cluster bundle: run \`clusterset synth\` first`);
  return bundles;
}

/** `--context-for east=ctx-east` → Map; every cluster not named uses the context named as its ID. */
export function parseContexts(plan: Plan, given: readonly string[]): Map<string, string> {
  const ids = new Set(plan.clusters.map((c) => c.id));
  const out = new Map(plan.clusters.map((c) => [c.id, c.id]));
  for (const g of given) {
    const eq = g.indexOf('=');
    if (eq <= 0 || eq === g.length - 1)
      throw new StatusUsageError(`--context-for ${JSON.stringify(g)}: write CLUSTER=CONTEXT`);
    const id = g.slice(0, eq);
    if (!ids.has(id))
      throw new StatusUsageError(
        `--context-for ${JSON.stringify(g)}: the model has no cluster ${JSON.stringify(id)} (it has: ${[...ids].join(', ')})${didYouMean(id, ids)}`,
      );
    out.set(id, g.slice(eq + 1));
  }
  return out;
}

/**
 * The kubeconfig, or a usage error naming the file and the fix: none, unreadable, empty, not a
 * kubeconfig, or without a single context (lib/kubeconfig.ts).
 */
function loadKubeConfig(plan: Plan, file: string | undefined): KubeConfig {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeconfigError, loadKubeconfig } = require('../kubeconfig') as typeof Kubeconfig;
  try {
    return loadKubeconfig(file).kc;
  } catch (e) {
    if (!(e instanceof KubeconfigError)) throw e;
    throw new StatusUsageError(
      `${e.message}; pass --kubeconfig (or set $KUBECONFIG to) a kubeconfig with a context per cluster, ` +
        `named as its ID (${plan.clusters.map((c) => c.id).join(', ')}) or mapped with --context-for CLUSTER=CONTEXT`,
    );
  }
}

interface Target {
  readonly id: string;
  readonly keys: readonly string[];
  readonly client?: Kube.KubeClient;
  /** Why there is no client (no such context). */
  readonly missing?: string;
}

function targets(plan: Plan, bundles: Map<string, BundleObject[]>, a: StatusArgs): Target[] {
  const contexts = parseContexts(plan, a['context-for']);
  const base = loadKubeConfig(plan, a.kubeconfig);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeClient } = require('../reconciler/kube') as typeof Kube;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeConfig: KC } = require('@kubernetes/client-node') as typeof ClientNode;
  return plan.clusters.map((c) => {
    const keys = collectionsFor(plan, c.id, bundles.get(c.id) ?? []);
    const ctx = contexts.get(c.id)!;
    if (!base.getContextObject(ctx))
      return {
        id: c.id,
        keys,
        missing: `no context ${JSON.stringify(ctx)} in the kubeconfig: name one with --context-for ${c.id}=CONTEXT`,
      };
    const kc = new KC();
    kc.loadFromOptions({
      clusters: base.clusters,
      users: base.users,
      contexts: base.contexts,
      currentContext: ctx,
    });
    const client = new KubeClient(kc, {
      userAgent: 'clusterset-status',
      requestTimeoutMs: a.timeout * 1000,
      maxSockets: 4,
    });
    return { id: c.id, keys, client };
  });
}

function exitFor(r: StatusReport): number {
  return r.ok ? 0 : 1;
}

async function once(
  plan: Plan,
  bundles: Map<string, BundleObject[]>,
  ts: Target[],
  a: StatusArgs,
): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { readCluster } = require('../status/read') as typeof Read;
  const reads = new Map<string, ClusterRead>();
  await Promise.all(
    ts.map(async (t) => {
      reads.set(
        t.id,
        t.client
          ? await readCluster(t.client, t.keys, a.timeout * 1000)
          : { lists: new Map(), errors: new Map(), unreachable: t.missing! },
      );
      t.client?.close();
    }),
  );
  const r = statusReport({ plan, bundles, reads, nowMs: Date.now() });
  process.stdout.write(formatStatus(r, a.format));
  return exitFor(r);
}

function watch(
  plan: Plan,
  bundles: Map<string, BundleObject[]>,
  ts: Target[],
  a: StatusArgs,
): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ClusterWatch } = require('../status/read') as typeof Read;
  const ac = new AbortController();
  const tty = process.stdout.isTTY === true && a.format !== 'json';
  let last: string | undefined;
  let code = 1;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    timer = undefined;
    // Not before every cluster has been listed (or given up on): a first picture of half-read
    // clusters would show problems that are not there.
    if (![...watches.values()].every((w) => w.settled())) return;
    const reads = new Map<string, ClusterRead>(
      ts.map((t) => [
        t.id,
        watches.get(t.id)?.read() ?? { lists: new Map(), errors: new Map(), unreachable: t.missing! },
      ]),
    );
    const r = statusReport({ plan, bundles, reads, nowMs: Date.now() });
    code = exitFor(r);
    // Redrawn only when something other than the time changed.
    const same = JSON.stringify({ ...r, at: '' });
    if (same === last) return;
    last = same;
    const text = a.format === 'json' ? `${JSON.stringify(r)}\n` : formatStatus(r, a.format);
    process.stdout.write(tty ? `\x1b[H\x1b[2J${text}` : a.format === 'json' ? text : `${text}\n`);
  };
  const schedule = () => {
    timer ??= setTimeout(draw, 250);
  };
  const watches = new Map(
    ts.flatMap((t) =>
      t.client ? [[t.id, new ClusterWatch(t.client, t.keys, a.timeout * 1000, schedule, ac.signal)]] : [],
    ),
  );
  // Ages and timeouts move with the clock, not with events: looked at again every few seconds (no
  // request is made; the watches bring everything).
  const tick = setInterval(schedule, 5000);
  schedule();
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      clearInterval(tick);
      if (timer) clearTimeout(timer);
      ac.abort();
      for (const t of ts) t.client?.close();
      resolve(code);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export const statusCommand: CommandModule<object, StatusArgs> = {
  command: 'status [model]',
  describe: 'compare the live ClusterSet (leader and every member) with the model and out/, read-only',
  builder: (y: Argv) =>
    y
      .positional('model', { type: 'string', default: 'clusterset.ts', describe: 'model file' })
      .option('out', {
        type: 'string',
        default: 'out',
        describe: 'the rendered output the clusters should hold',
      })
      .option('kubeconfig', {
        type: 'string',
        describe: 'kubeconfig with a context per cluster (default: $KUBECONFIG, else ~/.kube/config)',
      })
      .option('context-for', {
        type: 'string',
        array: true,
        default: [] as string[],
        describe: 'CLUSTER=CONTEXT: the context of a cluster (default: the context named as the cluster ID)',
      })
      .option('format', {
        choices: STATUS_FORMATS,
        default: 'text' as StatusFormat,
        describe: 'output format',
      })
      .option('timeout', { type: 'number', default: 10, describe: 'seconds each cluster gets to answer' })
      .option('watch', {
        type: 'boolean',
        default: false,
        describe: 'redraw as the clusters change, until interrupted',
      })
      .example('$0 status', 'exit 1 when the live ClusterSet is not what the model says (CI, cron)')
      .example(
        '$0 status --context-for hub=prod-hub --format markdown',
        'a report for an issue',
      ) as unknown as Argv<StatusArgs>,
  handler: async (a) => {
    if (!(a.timeout > 0)) {
      process.stderr.write('clusterset: status: --timeout must be a positive number of seconds\n');
      process.exitCode = EXIT_USAGE;
      return;
    }
    const plan = await planModelFile(a.model, { consequence: 'nothing was read' });
    if (!plan) return;
    let bundles: Map<string, BundleObject[]>;
    let ts: Target[];
    try {
      bundles = readBundles(path.resolve(a.out), plan);
      ts = targets(plan, bundles, a);
    } catch (e) {
      if (!(e instanceof StatusUsageError)) throw e;
      process.stderr.write(`clusterset: status: ${e.message}\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    process.exitCode = a.watch ? await watch(plan, bundles, ts, a) : await once(plan, bundles, ts, a);
  },
};
