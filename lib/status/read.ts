/**
 * Reading the clusters for `clusterset status`, with GET and LIST only (and watches for --watch).
 * Each cluster is read on its own, under its own deadline: one that cannot be reached is reported
 * as such and never holds up the others.
 */
import { ApiError, type KubeClient } from '../reconciler/kube';
import { Informer } from '../reconciler/informer';
import type { Logger } from '../reconciler/log';
import { Metrics } from '../reconciler/metrics';
import type { ClusterRead, Obj } from './live';

type ListBody = { metadata?: { continue?: string }; items?: Obj[] };

function describe(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.code === 404) return 'not served (is its CRD installed?)';
    if (e.code === 403) return `forbidden: ${e.message.replace(/^[^:]*: /, '')}`;
    return `${e.code} ${e.reason}`;
  }
  return (e as Error).message;
}

/** An error that says the cluster itself is not there (no answer), not that one list failed. */
function isUnreachable(e: unknown): boolean {
  return !(e instanceof ApiError) || e.code === 401 || e.code >= 500;
}

async function listAll(
  client: KubeClient,
  key: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Obj[]> {
  const [path, query] = key.split('?') as [string, string | undefined];
  const items: Obj[] = [];
  let cont: string | undefined;
  do {
    const q = new URLSearchParams(query ?? '');
    q.set('limit', '500');
    if (cont) q.set('continue', cont);
    const body = await client.request<ListBody>('GET', `${path}?${q}`, undefined, { signal, timeoutMs });
    items.push(...(body.items ?? []));
    cont = body.metadata?.continue || undefined;
  } while (cont);
  return items;
}

/**
 * Lists `keys` in one cluster, a few at a time, all within `timeoutMs`: the cluster is unreachable
 * when its first answer does not come (or is a 401 or 5xx); a collection that fails otherwise is
 * listed in `errors`.
 */
export async function readCluster(
  client: KubeClient,
  keys: readonly string[],
  timeoutMs: number,
): Promise<ClusterRead> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const lists = new Map<string, readonly Obj[]>();
  const errors = new Map<string, string>();
  let unreachable: string | undefined;
  try {
    // The first list alone: a cluster that does not answer costs one timeout, not one per list.
    const [first, ...rest] = keys;
    const one = async (key: string) => {
      try {
        lists.set(key, await listAll(client, key, ac.signal, timeoutMs));
      } catch (e) {
        if (ac.signal.aborted) unreachable ??= `no answer within ${timeoutMs / 1000} s`;
        else if (isUnreachable(e)) unreachable ??= describe(e);
        else errors.set(key, describe(e));
      }
    };
    if (first !== undefined) await one(first);
    if (unreachable === undefined) {
      let next = 0;
      const worker = async () => {
        while (next < rest.length && unreachable === undefined) await one(rest[next++]!);
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    }
  } finally {
    clearTimeout(timer);
  }
  return unreachable !== undefined ? { lists: new Map(), errors: new Map(), unreachable } : { lists, errors };
}

interface Held {
  readonly name: string;
  readonly resourceVersion: string;
  readonly obj: Obj;
}

/**
 * Watches `keys` in one cluster and calls `onChange` after every change; `read()` is what is known
 * now. A cluster whose collections have not all been listed within `timeoutMs` reads as
 * unreachable (with the last error seen) until they are.
 */
export class ClusterWatch {
  private readonly informers = new Map<string, Informer<Held>>();
  private readonly lastError = new Map<string, { readonly message: string; readonly at: number }>();
  private readonly started = Date.now();

  constructor(
    client: KubeClient,
    private readonly keys: readonly string[],
    private readonly timeoutMs: number,
    onChange: () => void,
    signal: AbortSignal,
  ) {
    const metrics = new Metrics();
    for (const key of keys) {
      const [path, query] = key.split('?') as [string, string | undefined];
      const fieldSelector = query
        ? (new URLSearchParams(query).get('fieldSelector') ?? undefined)
        : undefined;
      const log: Logger = {
        debug: () => undefined,
        info: () => undefined,
        warn: (_msg, fields) => {
          this.lastError.set(key, { message: String(fields?.error ?? 'watch failed'), at: Date.now() });
          onChange();
        },
        error: () => undefined,
      };
      const inf = new Informer<Held>({
        client,
        path,
        resource: key,
        ...(fieldSelector ? { fieldSelector } : {}),
        trim: (o) => {
          const md = (o.metadata ?? {}) as { name?: string; resourceVersion?: string };
          return { name: md.name ?? '', resourceVersion: md.resourceVersion ?? '', obj: o };
        },
        onChange: () => onChange(),
        log,
        metrics,
        watchTimeoutSeconds: 60,
      });
      this.informers.set(key, inf);
      void inf.run(signal);
      void inf.waitSynced().then(onChange);
    }
  }

  /** The error of `key` if none of its lists or events came after it. */
  private errorOf(key: string): string | undefined {
    const e = this.lastError.get(key);
    return e && e.at >= this.informers.get(key)!.lastContactMs ? e.message : undefined;
  }

  /** Every collection listed once, or this cluster known unreachable, or its time to answer up. */
  settled(): boolean {
    if ([...this.informers.values()].every((i) => i.synced)) return true;
    return this.read().unreachable !== undefined || Date.now() - this.started > this.timeoutMs;
  }

  read(): ClusterRead {
    const lists = new Map<string, readonly Obj[]>();
    const errors = new Map<string, string>();
    for (const key of this.keys) {
      const inf = this.informers.get(key)!;
      if (inf.synced)
        lists.set(
          key,
          [...inf.store.values()].map((h) => h.obj),
        );
      const e = this.errorOf(key);
      if (e && !inf.synced) errors.set(key, e);
    }
    // Every collection failing since its last contact: the cluster is gone (what was seen of it
    // before is stale, so none of it is shown).
    const failing = this.keys.map((k) => this.errorOf(k)).filter((e) => e !== undefined);
    if (this.keys.length > 0 && failing.length === this.keys.length)
      return { lists: new Map(), errors: new Map(), unreachable: failing[0]! };
    if (lists.size === 0 && this.keys.length > 0 && Date.now() - this.started > this.timeoutMs)
      return { lists, errors: new Map(), unreachable: `no answer within ${this.timeoutMs / 1000} s` };
    return { lists, errors };
  }
}
