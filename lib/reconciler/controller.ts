/**
 * The reconciler's edge: the caches of what it reads (caches.ts), a work queue of keys, the Lease
 * that says who may write, and the writes (writes.ts). Every decision is made by the pure functions
 * of desired/ from what the caches hold; this file runs the loop: while this replica leads, each key
 * the queue hands out has its outcome computed from the caches and its actions applied, export
 * statuses behind every other key. With `waitForAntreaLeader`, Antrea's leader is watched too
 * (antrea-leader-watch.ts), and the elector leads only while nothing of it may write.
 */
import { performance } from 'node:perf_hooks';
import {
  MANAGED_BY,
  MANAGED_BY_LABEL,
  PART_OF_LABEL,
  RECONCILER_FIELD_MANAGER,
  RECONCILER_LEASE_NAME,
  announceName,
  endpointsImportName,
  serviceImportName,
} from '../names';
import type { ReconcilerConfig } from '../reconciler-config';
import { AntreaLeaderWatch } from './antrea-leader-watch';
import { Caches } from './caches';
import { reconcileClusterInfo } from './desired/cluster-info';
import { reconcileClusterSet } from './desired/clusterset';
import { rfc3339 } from './desired/conditions';
import { CLUSTERSET_KEY, exportKey } from './desired/keys';
import { reconcileLabel } from './desired/label';
import { reconcileMember } from './desired/member';
import type { Action, Outcome } from './desired/outcome';
import { reconcileService } from './desired/service';
import { reconcileStray } from './desired/stray-export';
import { LeaderElector } from './election';
import { registerGauges } from './gauges';
import type { Informer } from './informer';
import type { KubeClient } from './kube';
import { LABEL_ID_CURSOR_ANNOTATION, LabelIdAllocator, NeedReservation } from './label-ids';
import type { Logger } from './log';
import type { Metrics } from './metrics';
import { MC_API_VERSION, MC_GROUP, type CachedImport } from './objects';
import { WorkQueue } from './queue';
import { Writer } from './writes';

export interface ControllerOptions {
  readonly client: KubeClient;
  readonly config: ReconcilerConfig;
  readonly identity: string;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Keys reconciled at once. @default 4 */
  readonly workers?: number;
  /** Every key is reconciled again this often. @default 300 */
  readonly resyncSeconds?: number;
  /** @default 300 */
  readonly watchTimeoutSeconds?: number;
  readonly leaseDurationS?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly now?: () => number;
}

/** A write was about to happen without the Lease. */
export class NotLeader extends Error {
  override name = 'NotLeader';
  constructor() {
    super('not the leader');
  }
}

export class Controller {
  readonly caches: Caches;
  readonly queue: WorkQueue;
  readonly elector: LeaderElector;
  /** Antrea's leader Deployment, Pods and webhook configurations, watched only with waitForAntreaLeader. */
  readonly antreaLeader: AntreaLeaderWatch | undefined;
  private readonly allocator = new LabelIdAllocator();
  private readonly writer: Writer;
  private reserving: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly ns: string;
  private readonly base: string;
  /**
   * The leader ClusterSet through v1alpha2, the version the bundle renders and stores: the CRD has
   * no conversion webhook, so a write through v1alpha1 prunes what v1alpha1 lacks (`spec.clusterID`)
   * from the stored object.
   */
  private readonly clusterSetsPath: string;

  constructor(private readonly o: ControllerOptions) {
    this.now = o.now ?? Date.now;
    this.ns = o.config.leaderNamespace;
    this.base = `/apis/${MC_API_VERSION}/namespaces/${this.ns}`;
    this.clusterSetsPath = `/apis/${MC_GROUP}/v1alpha2/namespaces/${this.ns}/clustersets`;
    const common = {
      client: o.client,
      log: o.log,
      metrics: o.metrics,
      ...(o.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: o.watchTimeoutSeconds } : {}),
    };
    this.caches = new Caches({
      common,
      config: o.config,
      base: this.base,
      clusterSetsPath: this.clusterSetsPath,
      enqueue: (key) => this.queue.add(key),
      onImport: (name, old, cur) => this.onImport(name, old, cur),
    });
    if (o.config.waitForAntreaLeader)
      this.antreaLeader = new AntreaLeaderWatch({
        common,
        ns: this.ns,
        log: o.log,
        elector: { isLeader: () => this.elector.isLeader(), wake: () => this.elector.wake() },
      });
    this.queue = new WorkQueue({
      concurrency: o.workers ?? 4,
      process: (key, deferred) => this.process(key, deferred),
      onError: (key, e, retryInMs, failures) => {
        if (e instanceof NotLeader) return;
        const log = failures >= 3 ? o.log.warn : o.log.info;
        log('reconcile failed; retrying', { key, error: (e as Error).message, retryInMs, failures });
      },
    });
    this.elector = new LeaderElector({
      client: o.client,
      namespace: this.ns,
      name: RECONCILER_LEASE_NAME,
      identity: o.identity,
      fieldManager: RECONCILER_FIELD_MANAGER,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [PART_OF_LABEL]: o.config.clusterSetId },
      log: o.log,
      ...(o.leaseDurationS !== undefined ? { leaseDurationS: o.leaseDurationS } : {}),
      ...(o.renewDeadlineMs !== undefined ? { renewDeadlineMs: o.renewDeadlineMs } : {}),
      ...(o.retryPeriodMs !== undefined ? { retryPeriodMs: o.retryPeriodMs } : {}),
      now: this.now,
      onStartedLeading: () => this.startLeading(),
      onStoppedLeading: () => this.queue.pause(),
      // Shutting down: take no new key, let the writes in flight finish (5 s at most), then release.
      beforeRelease: async () => {
        this.queue.pause();
        await Promise.race([this.queue.settled(), new Promise((r) => setTimeout(r, 5000).unref())]);
      },
      ...(this.antreaLeader ? { holdBack: () => this.antreaLeaderRunning() } : {}),
    });
    this.writer = new Writer({
      client: o.client,
      log: o.log,
      metrics: o.metrics,
      ns: this.ns,
      base: this.base,
      clusterSetsPath: this.clusterSetsPath,
      caches: this.caches,
      allocator: this.allocator,
    });
    registerGauges(o.metrics, {
      queue: this.queue,
      elector: this.elector,
      caches: this.caches,
      allocator: this.allocator,
      now: this.now,
      antreaLeaderRunning: () => this.antreaLeaderRunning(),
    });
  }

  /** Every cache: the four resources, and Antrea's leader's objects with waitForAntreaLeader. */
  private get informers(): Pick<Informer<never>, 'run' | 'waitSynced' | 'synced'>[] {
    return [...this.caches.informers, ...(this.antreaLeader?.informers ?? [])];
  }

  /** All caches hold their first list. */
  get synced(): boolean {
    return this.informers.every((i) => i.synced);
  }

  /**
   * What of Antrea's leader still runs (antrea-leader.ts), or that its caches have not synced yet;
   * empty when the reconciler may lead (always, without waitForAntreaLeader).
   */
  antreaLeaderRunning(): string[] {
    return this.antreaLeader?.running() ?? [];
  }

  /** Runs until the signal aborts: caches, then the election; the queue runs while leading. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = this.informers.map((i) => i.run(signal));
    await Promise.race([
      Promise.all(this.informers.map((i) => i.waitSynced())),
      new Promise((r) => signal.addEventListener('abort', r)),
    ]);
    if (!signal.aborted) this.o.log.info('caches synced', this.caches.counts());
    this.antreaLeader?.onChange();
    const resync = setInterval(
      () => {
        if (this.elector.isLeader()) this.enqueueAll();
      },
      (this.o.resyncSeconds ?? 300) * 1000,
    );
    resync.unref();
    try {
      if (!signal.aborted) await this.elector.run(signal);
    } finally {
      clearInterval(resync);
      this.queue.shutdown();
      await Promise.all(informers);
    }
  }

  private startLeading(): void {
    const persisted = this.elector.annotation(LABEL_ID_CURSOR_ANNOTATION);
    this.allocator.start(persisted === undefined ? undefined : Number(persisted));
    this.enqueueAll();
    this.queue.resume();
  }

  enqueueAll(): void {
    for (const k of this.caches.allKeys()) this.queue.add(k);
  }

  /** An import changed (before its keys are woken): the label IDs it holds, and what was sent for it. */
  private onImport(name: string, old: CachedImport | undefined, cur: CachedImport | undefined): void {
    if (old?.kind === 'LabelIdentity' && cur?.kind !== 'LabelIdentity') this.allocator.forget(name);
    if (cur?.kind === 'LabelIdentity') this.allocator.adopt(name, cur.labelId, cur.creationTimestamp);
    if (!cur) this.writer.forget(name);
  }

  // -------------------------------------------------------------------------------------------------
  // Keys → outcomes (pure functions) → writes

  private compute(key: string): Outcome {
    const nowMs = this.now();
    const now = rfc3339(nowMs);
    const config = this.o.config;
    const slash = key.indexOf('/');
    const type = slash < 0 ? key : key.slice(0, slash);
    const rest = key.slice(slash + 1);
    switch (type) {
      case 'svc': {
        const [namespace, name] = rest.split('/') as [string, string];
        return reconcileService({
          config,
          namespace,
          name,
          exports: this.caches.exportsOf(key),
          existing: this.caches.imports.store.get(endpointsImportName(namespace, name)),
          compiled: this.caches.imports.store.get(serviceImportName(namespace, name)),
          sameSpec: this.writer.sameSpec,
          now,
        });
      }
      case 'ci':
        return reconcileClusterInfo({
          config,
          name: rest,
          export: this.caches.exportsOf(key)[0],
          existing: this.caches.imports.store.get(rest),
          sameSpec: this.writer.sameSpec,
          now,
        });
      case 'label':
        return reconcileLabel({
          config,
          hash: rest,
          exports: this.caches.exportsOf(key),
          existing: this.caches.imports.store.get(rest),
          ids: this.allocator,
          sameSpec: this.writer.sameSpec,
          now,
        });
      case 'member':
        return reconcileMember({
          clusterId: rest,
          isMember: config.members.some((m) => m.id === rest),
          announce: this.caches.announces.store.get(announceName(rest)),
          exports: this.caches.exportsFrom(rest),
          retireAfterMs: config.retireMembersAfterSeconds * 1000,
          nowMs,
        });
      case 'export': {
        const e = this.caches.exports.store.get(rest);
        return e && exportKey(e) === key ? reconcileStray(e, now) : { actions: [], refused: [] };
      }
      case CLUSTERSET_KEY:
        return reconcileClusterSet({
          clusterSet: this.caches.clusterSets.store.get(config.clusterSetId),
          announces: [...this.caches.announces.store.values()],
          nowMs,
        });
      default:
        this.o.log.warn('unknown key', { key });
        return { actions: [], refused: [] };
    }
  }

  /**
   * Reconciles a key: computes its outcome and applies it, all but the export status writes, which
   * wait behind every other key (the queue's deferred lane): when the key comes round there, its
   * outcome is computed again and applied whole, the status writes at once. Imports (what members
   * act on) are so never queued behind statuses (what only people read) in a burst. A key alone in
   * the queue (a change on its own) writes its statuses at once: its refusals beside its import
   * writes, the rest right after them, as Antrea's leader does.
   */
  private async process(key: string, deferred: boolean): Promise<{ requeueAfterMs?: number }> {
    const type = key.split('/')[0]!;
    const t0 = performance.now();
    let result = 'ok';
    try {
      if (!this.elector.isLeader()) throw new NotLeader();
      let outcome: Outcome;
      for (let attempt = 0; ; attempt++) {
        try {
          outcome = this.compute(key);
          break;
        } catch (e) {
          if (!(e instanceof NeedReservation) || attempt >= 2) throw e;
          await this.reserveLabelIds();
        }
      }
      const refused = new Map(outcome.refused.map((r) => [r.export, r.why]));
      const isStatus = (a: Action) => a.op === 'exportStatus' || a.op === 'importStatus';
      // A change alone writes its refusals beside its other writes: a refusal holds whatever the
      // import becomes, while a Succeeded (or an import's status) follows the import it describes.
      const refusals =
        !deferred && this.queue.alone(key)
          ? outcome.actions.filter((a) => a.op === 'exportStatus' && a.condition.type === 'Failure')
          : [];
      const early = Promise.allSettled(refusals.map((a) => this.writer.apply(key, a, refused)));
      const statuses = outcome.actions.filter((a) => isStatus(a) && !refusals.includes(a));
      const [writes] = await Promise.allSettled([
        (async () => {
          for (const a of outcome.actions) {
            if (isStatus(a)) continue;
            if (!this.elector.isLeader()) throw new NotLeader();
            await this.writer.apply(key, a, refused);
          }
        })(),
        early,
      ]);
      if (writes!.status === 'rejected') throw writes!.reason;
      const failedRefusal = (await early).find((d): d is PromiseRejectedResult => d.status === 'rejected');
      if (failedRefusal) throw failedRefusal.reason;
      if (statuses.length > 0 && !deferred && !this.queue.alone(key)) this.queue.addDeferred(key);
      else if (statuses.length > 0) {
        if (!this.elector.isLeader()) throw new NotLeader();
        const done = await Promise.allSettled(statuses.map((a) => this.writer.apply(key, a, refused)));
        const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
        if (failed) throw failed.reason;
      }
      return outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : {};
    } catch (e) {
      result = e instanceof NotLeader ? 'not_leader' : 'error';
      throw e;
    } finally {
      this.o.metrics.reconcileSeconds.observe({ key: type }, (performance.now() - t0) / 1000);
      this.o.metrics.reconciles.inc({ key: type, result });
    }
  }

  /** Reserves the next block of label IDs in the Lease before any of it is handed out. */
  private reserveLabelIds(): Promise<void> {
    this.reserving ??= (async () => {
      const through = this.allocator.reservation();
      await this.elector.setAnnotations({ [LABEL_ID_CURSOR_ANNOTATION]: String(through) });
      this.allocator.reserved();
      this.o.log.debug('reserved label IDs', { cursorAfterBlock: through });
    })().finally(() => {
      this.reserving = undefined;
    });
    return this.reserving;
  }

  /** For /readyz: which caches have not synced yet (empty when ready). */
  notSynced(): string[] {
    return [...this.caches.notSynced(), ...(this.antreaLeader?.notSynced() ?? [])];
  }
}
