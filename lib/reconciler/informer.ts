/**
 * A list-and-watch cache of one resource in one namespace, kept correct through everything a long
 * watch meets (STYLE 14; client-node's own informer stalls on these, kubernetes-client/javascript
 * #364, #596):
 * - the server ends the watch (every `timeoutSeconds`, or on restart): watch again from the last
 *   resourceVersion seen (bookmarks included);
 * - the resourceVersion expired (410 Gone, as a status or as an ERROR event): list again and diff
 *   the new list against the cache, so deletions missed meanwhile are seen;
 * - errors (connection refused, 5xx, 403 while RBAC syncs): retry with backoff, up to 30 s apart;
 * - a watch that goes silent without closing (a dead connection): a watchdog aborts it once it
 *   outlives its own timeoutSeconds by a margin.
 * Every change reaches `onChange(name, old, new)`; a relist reports exactly what differs.
 */
import { ApiError, type KubeClient, type WatchEvent } from './kube';
import type { Logger } from './log';
import { sleep } from './sleep';
import type { Metrics } from './metrics';

export interface Cached {
  readonly name: string;
  readonly resourceVersion: string;
}

export interface InformerOptions<T extends Cached> {
  readonly client: KubeClient;
  /** Collection path, e.g. /apis/g/v/namespaces/ns/resourceexports. */
  readonly path: string;
  /** Resource name for logs and metrics. */
  readonly resource: string;
  readonly fieldSelector?: string;
  readonly trim: (o: Record<string, unknown>) => T;
  readonly onChange: (name: string, old: T | undefined, cur: T | undefined) => void;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Seconds a watch lasts before the server ends it (jittered up to +50%). @default 300 */
  readonly watchTimeoutSeconds?: number;
  /** @default 500 */
  readonly pageSize?: number;
}

/** Orders resourceVersions when both are etcd revisions (as they are); otherwise "different". */
export function newerVersion(a: string, b: string): boolean {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return a.length !== b.length ? a.length > b.length : a > b;
  return a !== b;
}

export class Informer<T extends Cached> {
  readonly store = new Map<string, T>();
  private syncedOnce = false;
  private readonly waiters: (() => void)[] = [];
  /** When the last event or list arrived (ms), for health. */
  lastContactMs = 0;
  /** The current watch, to abort it (tests, shutdown). */
  private current: AbortController | undefined;

  constructor(private readonly o: InformerOptions<T>) {}

  get synced(): boolean {
    return this.syncedOnce;
  }

  /** Resolves once the first list is in the cache. */
  waitSynced(): Promise<void> {
    return this.syncedOnce ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  /**
   * Puts an object the reconciler just wrote into the cache, if it is newer than what the cache
   * holds, and reports it like an event; the watch event that follows is then recognized as seen.
   */
  upsert(raw: Record<string, unknown>): T {
    const obj = this.o.trim(raw);
    const old = this.store.get(obj.name);
    if (!old || newerVersion(obj.resourceVersion, old.resourceVersion)) {
      this.store.set(obj.name, obj);
      this.o.onChange(obj.name, old, obj);
    }
    return this.store.get(obj.name)!;
  }

  /** Drops an object the reconciler just deleted for good, and reports it like an event. */
  drop(name: string): void {
    const old = this.store.get(name);
    if (!old) return;
    this.store.delete(name);
    this.o.onChange(name, old, undefined);
  }

  /** Ends the current watch; the loop lists or watches again as it would after any close. */
  restartWatch(): void {
    this.current?.abort();
  }

  async run(signal: AbortSignal): Promise<void> {
    let rv: string | undefined;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (rv === undefined) rv = await this.relist(signal);
        const started = Date.now();
        const r = await this.watchOnce(rv, signal);
        if (signal.aborted) break;
        rv = r.expired ? undefined : r.rv;
        this.o.metrics.watchRestarts.inc({ resource: this.o.resource, reason: r.reason });
        if (r.expired) this.o.log.info('watch expired; listing again', { resource: this.o.resource });
        // A watch that closes at once, again and again, must not spin.
        failures = r.events > 0 || Date.now() - started > 5000 ? 0 : failures + 1;
        if (failures > 0) await sleep(backoff(failures), signal);
      } catch (e) {
        if (signal.aborted) break;
        if (e instanceof ApiError && e.code === 410) {
          rv = undefined;
          this.o.metrics.watchRestarts.inc({ resource: this.o.resource, reason: 'expired' });
          this.o.log.info('watch expired; listing again', { resource: this.o.resource });
          continue;
        }
        failures++;
        this.o.metrics.watchRestarts.inc({ resource: this.o.resource, reason: 'error' });
        this.o.log.warn('list or watch failed; retrying', {
          resource: this.o.resource,
          error: (e as Error).message,
          retryInMs: backoff(failures),
        });
        await sleep(backoff(failures), signal);
      }
    }
  }

  private query(extra: Record<string, string>): string {
    const q = new URLSearchParams(extra);
    if (this.o.fieldSelector) q.set('fieldSelector', this.o.fieldSelector);
    return q.toString();
  }

  /** Lists everything (in pages), replaces the cache, reports the differences; returns the list RV. */
  private async relist(signal: AbortSignal): Promise<string> {
    const fresh = new Map<string, T>();
    let cont: string | undefined;
    let rv = '';
    do {
      const q: Record<string, string> = { limit: String(this.o.pageSize ?? 500) };
      if (cont) q.continue = cont;
      const list = await this.o.client.request<{
        metadata?: { resourceVersion?: string; continue?: string };
        items?: Record<string, unknown>[];
      }>('GET', `${this.o.path}?${this.query(q)}`, undefined, { signal });
      if (signal.aborted) return '';
      for (const item of list.items ?? []) {
        const obj = this.o.trim(item);
        fresh.set(obj.name, obj);
      }
      rv = list.metadata?.resourceVersion ?? rv;
      cont = list.metadata?.continue || undefined;
    } while (cont);
    this.o.metrics.relists.inc({ resource: this.o.resource });
    this.lastContactMs = Date.now();
    const removed = [...this.store.entries()].filter(([name]) => !fresh.has(name));
    for (const [name, old] of removed) {
      this.store.delete(name);
      this.o.onChange(name, old, undefined);
    }
    for (const [name, obj] of fresh) {
      const old = this.store.get(name);
      if (old && old.resourceVersion === obj.resourceVersion) continue;
      this.store.set(name, obj);
      this.o.onChange(name, old, obj);
    }
    if (!this.syncedOnce) {
      this.syncedOnce = true;
      for (const w of this.waiters.splice(0)) w();
    }
    return rv;
  }

  private async watchOnce(
    rv: string,
    signal: AbortSignal,
  ): Promise<{ rv: string; expired: boolean; events: number; reason: string }> {
    const base = this.o.watchTimeoutSeconds ?? 300;
    const timeout = Math.round(base * (1 + Math.random() * 0.5));
    const q = this.query({
      watch: '1',
      resourceVersion: rv,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(timeout),
    });
    const ac = new AbortController();
    this.current = ac;
    const onAbort = () => ac.abort();
    signal.addEventListener('abort', onAbort);
    let reason = 'closed';
    // The watchdog: the server ends the watch after `timeout`; a watch still open well after that is
    // a dead connection nobody told us about.
    const watchdog = setTimeout(
      () => {
        reason = 'stalled';
        this.o.log.warn('watch silent past its timeout; restarting it', { resource: this.o.resource });
        ac.abort();
      },
      (timeout + Math.max(15, Math.min(60, timeout))) * 1000,
    );
    let last = rv;
    let expired = false;
    let events = 0;
    const onEvent = (e: WatchEvent) => {
      this.lastContactMs = Date.now();
      const o = e.object;
      if (e.type === 'ERROR') {
        const code = (o as { code?: unknown }).code;
        if (code === 410) {
          expired = true;
          reason = 'expired';
          ac.abort();
          return;
        }
        throw new ApiError(
          typeof code === 'number' ? code : 500,
          String((o as { reason?: unknown }).reason ?? 'WatchError'),
          `watch ${this.o.resource}: ${String((o as { message?: unknown }).message ?? 'error event')}`,
        );
      }
      const md = (o.metadata ?? {}) as { name?: string; resourceVersion?: string };
      if (md.resourceVersion) last = md.resourceVersion;
      if (e.type === 'BOOKMARK') return;
      events++;
      const name = md.name ?? '';
      const old = this.store.get(name);
      if (e.type === 'DELETED') {
        this.store.delete(name);
        this.o.onChange(name, old ?? this.o.trim(o), undefined);
        return;
      }
      const obj = this.o.trim(o);
      if (old && !newerVersion(obj.resourceVersion, old.resourceVersion)) return; // our own write, seen
      this.store.set(name, obj);
      this.o.onChange(name, old, obj);
    };
    try {
      await this.o.client.watch(`${this.o.path}?${q}`, onEvent, ac.signal);
    } finally {
      clearTimeout(watchdog);
      signal.removeEventListener('abort', onAbort);
      if (this.current === ac) this.current = undefined;
    }
    if (reason === 'closed' && ac.signal.aborted && !signal.aborted) reason = 'restarted';
    return { rv: last, expired, events, reason };
  }
}

/** 0.5 s, 1 s, 2 s, … up to 30 s, with jitter. */
export function backoff(failures: number): number {
  const base = Math.min(30_000, 500 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
