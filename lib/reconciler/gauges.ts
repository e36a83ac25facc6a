/**
 * The reconciler's gauges, read when /metrics is scraped: the queue's lanes, whether this replica
 * holds the Lease, the imports, exports and announced members its caches hold, the label IDs in use,
 * and whether Antrea's leader holds it back. The counters and the histogram are counted where they
 * happen (controller.ts, writes.ts, informer.ts).
 */
import type { Caches } from './caches';
import type { LeaderElector } from './election';
import type { LabelIdAllocator } from './label-ids';
import type { Metrics } from './metrics';
import type { WorkQueue } from './queue';

/** What the gauges read: the controller's parts. */
export interface Gauged {
  readonly queue: WorkQueue;
  readonly elector: LeaderElector;
  readonly caches: Pick<Caches, 'imports' | 'exports' | 'announces'>;
  readonly allocator: LabelIdAllocator;
  readonly now: () => number;
  /** What of Antrea's leader still runs (empty when this replica may lead). */
  readonly antreaLeaderRunning: () => string[];
}

export function registerGauges(m: Metrics, c: Gauged): void {
  m.gauge('queue_depth', 'Keys waiting to be reconciled.', () => [[{}, c.queue.depth]]);
  m.gauge('queue_scheduled', 'Keys scheduled for a later reconcile (retries, timers).', () => [
    [{}, c.queue.scheduled],
  ]);
  m.gauge('queue_in_flight', 'Keys being reconciled now.', () => [[{}, c.queue.inFlight]]);
  m.gauge('queue_deferred', 'Keys waiting to write export statuses, behind every other key.', () => [
    [{}, c.queue.deferred],
  ]);
  m.gauge('leader', '1 while this replica holds the Lease.', () => [[{}, c.elector.isLeader() ? 1 : 0]]);
  m.gauge('imports', 'ResourceImports in the leader namespace, by spec.kind.', () => {
    const counts = new Map<string, number>();
    for (const i of c.caches.imports.store.values())
      counts.set(i.kind ?? '', (counts.get(i.kind ?? '') ?? 0) + 1);
    return [...counts].map(([kind, n]) => [{ kind }, n]);
  });
  m.gauge('exports', 'ResourceExports in the leader namespace, by spec.kind and condition.', () => {
    const counts = new Map<string, number>();
    for (const e of c.caches.exports.store.values()) {
      const k = `${typeof e.spec?.kind === 'string' ? e.spec.kind : ''}\0${e.condition?.type ?? 'None'}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return [...counts].map(([k, n]) => {
      const [kind, condition] = k.split('\0') as [string, string];
      return [{ kind, condition }, n];
    });
  });
  m.gauge('members', 'Announced members, by readiness (written to in the last 30 s).', () => {
    let ready = 0;
    let total = 0;
    const now = c.now();
    for (const a of c.caches.announces.store.values()) {
      if (a.deleting) continue;
      total++;
      if (now - a.lastWriteMs <= 30_000) ready++;
    }
    return [
      [{ state: 'ready' }, ready],
      [{ state: 'not_ready' }, total - ready],
    ];
  });
  m.gauge('label_ids', 'Label identity IDs in use.', () => [[{}, c.allocator.size]]);
  m.gauge(
    'waiting_for_antrea_leader',
    "1 while this replica is held back from leading because Antrea's leader controller still runs (waitForAntreaLeader).",
    () => [[{}, c.antreaLeaderRunning().length > 0 ? 1 : 0]],
  );
}
