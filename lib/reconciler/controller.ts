/**
 * The reconciler's edge: caches of the four resources it reads, a work queue of keys, the Lease that
 * says who may write, and the writes themselves. Every decision is made by the pure functions of
 * desired/ from what the caches hold; this file only maps events to keys and actions to requests.
 *
 * Keys: `svc/<ns>/<name>` (an Endpoints import and the status of that Service's exports),
 * `ci/<id>-clusterinfo`, `label/<hash16>`, `member/<id>` (announce finalizer and retirement),
 * `export/<name>` (exports no other key owns), and `clusterset` (the leader ClusterSet's status).
 *
 * With `waitForAntreaLeader`, four more caches: Antrea's leader Deployment and its two webhook
 * configurations (one object each, by name), and the Pods of its ServiceAccount in the leader
 * namespace (a process of Antrea's leader runs on after its Pod is marked for deletion, until the
 * kubelet reports it stopped). Every change of them asks antrea-leader.ts whether Antrea's leader
 * may still write, and wakes the elector, which leads only while nothing of it can.
 */
import { performance } from 'node:perf_hooks';
import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_POD_SELECTOR,
  ANTREA_LEADER_WEBHOOKS,
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
import { reconcileClusterInfo } from './desired/cluster-info';
import { reconcileClusterSet } from './desired/clusterset';
import { rfc3339 } from './desired/conditions';
import {
  announceClusterId,
  CLUSTERSET_KEY,
  exportKey,
  importKey,
  memberKey,
  serviceKey,
} from './desired/keys';
import { reconcileLabel } from './desired/label';
import { reconcileMember } from './desired/member';
import type { Action, ImportSpec, Outcome } from './desired/outcome';
import { reconcileService } from './desired/service';
import { reconcileStray } from './desired/stray-export';
import {
  antreaLeaderRunning,
  observeDeployment,
  observePod,
  type ObservedDeployment,
  type ObservedPod,
} from './antrea-leader';
import { LeaderElector } from './election';
import { Informer } from './informer';
import { isApiError, type KubeClient } from './kube';
import { LABEL_ID_CURSOR_ANNOTATION, LabelIdAllocator, NeedReservation } from './label-ids';
import type { Logger } from './log';
import type { Metrics } from './metrics';
import {
  MC_API_VERSION,
  MC_GROUP,
  specDigest,
  trimAnnounce,
  trimClusterSet,
  trimExport,
  trimImport,
  type CachedAnnounce,
  type CachedClusterSet,
  type CachedExport,
  type CachedImport,
} from './objects';
import { WorkQueue } from './queue';

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

function addTo(index: Map<string, Set<string>>, key: string | undefined, name: string): void {
  if (key === undefined) return;
  let s = index.get(key);
  if (!s) index.set(key, (s = new Set()));
  s.add(name);
}

function removeFrom(index: Map<string, Set<string>>, key: string | undefined, name: string): void {
  if (key === undefined) return;
  const s = index.get(key);
  if (!s) return;
  s.delete(name);
  if (s.size === 0) index.delete(key);
}

function clusterOf(e: CachedExport | undefined): string | undefined {
  const id = e?.spec?.clusterID;
  return typeof id === 'string' ? id : undefined;
}

/**
 * An object of Antrea's leader the standby watches: its name, its replicas for the Deployment, what
 * may still run for a Pod.
 */
interface CachedAntreaObject {
  readonly name: string;
  readonly resourceVersion: string;
  readonly deployment?: ObservedDeployment;
  readonly pod?: ObservedPod;
}

function trimAntreaObject(
  raw: Record<string, unknown>,
  what: 'deployment' | 'pod' | 'webhook',
): CachedAntreaObject {
  const md = (raw.metadata ?? {}) as { name?: string; resourceVersion?: string };
  return {
    name: md.name ?? '',
    resourceVersion: md.resourceVersion ?? '',
    ...(what === 'deployment' ? { deployment: observeDeployment(raw) } : {}),
    ...(what === 'pod' ? { pod: observePod(raw) } : {}),
  };
}

export class Controller {
  readonly exports: Informer<CachedExport>;
  readonly imports: Informer<CachedImport>;
  readonly announces: Informer<CachedAnnounce>;
  readonly clusterSets: Informer<CachedClusterSet>;
  readonly queue: WorkQueue;
  readonly elector: LeaderElector;
  /** Antrea's leader Deployment, Pods and webhook configurations, watched only with waitForAntreaLeader. */
  readonly antreaLeader:
    | {
        readonly deployment: Informer<CachedAntreaObject>;
        readonly pods: Informer<CachedAntreaObject>;
        readonly mutating: Informer<CachedAntreaObject>;
        readonly validating: Informer<CachedAntreaObject>;
      }
    | undefined;
  /** What of Antrea's leader ran at the last change seen (joined), to log each change once. */
  private antreaSeen: string | undefined;
  private readonly allocator = new LabelIdAllocator();
  /** Key → names of the exports it owns; cluster ID → names of its exports. */
  private readonly byKey = new Map<string, Set<string>>();
  private readonly byCluster = new Map<string, Set<string>>();
  /** Import name → digest of the spec last sent, and of what the server stored for it. */
  private readonly applied = new Map<string, { desired: string; stored: string }>();
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
    this.exports = new Informer({
      ...common,
      path: `${this.base}/resourceexports`,
      resource: 'resourceexports',
      trim: trimExport,
      onChange: (name, old, cur) => this.onExport(name, old, cur),
    });
    this.imports = new Informer({
      ...common,
      path: `${this.base}/resourceimports`,
      resource: 'resourceimports',
      trim: trimImport,
      onChange: (name, old, cur) => this.onImport(name, old, cur),
    });
    this.announces = new Informer({
      ...common,
      path: `${this.base}/memberclusterannounces`,
      resource: 'memberclusterannounces',
      trim: (raw) => trimAnnounce(raw, RECONCILER_FIELD_MANAGER),
      onChange: (name) => {
        const id = announceClusterId(name);
        if (id !== undefined) this.queue.add(memberKey(id));
        this.queue.add(CLUSTERSET_KEY);
      },
    });
    this.clusterSets = new Informer({
      ...common,
      path: this.clusterSetsPath,
      resource: 'clustersets',
      fieldSelector: `metadata.name=${o.config.clusterSetId}`,
      trim: trimClusterSet,
      onChange: () => this.queue.add(CLUSTERSET_KEY),
    });
    if (o.config.waitForAntreaLeader) {
      const watch = (
        path: string,
        resource: string,
        fieldSelector: string,
        what: 'deployment' | 'pod' | 'webhook',
      ) =>
        new Informer<CachedAntreaObject>({
          ...common,
          path,
          resource,
          fieldSelector,
          trim: (raw) => trimAntreaObject(raw, what),
          onChange: () => this.onAntreaLeader(),
        });
      const admission = '/apis/admissionregistration.k8s.io/v1';
      this.antreaLeader = {
        deployment: watch(
          `/apis/apps/v1/namespaces/${this.ns}/deployments`,
          'deployments',
          `metadata.name=${ANTREA_LEADER_DEPLOYMENT}`,
          'deployment',
        ),
        pods: watch(`/api/v1/namespaces/${this.ns}/pods`, 'pods', ANTREA_LEADER_POD_SELECTOR, 'pod'),
        mutating: watch(
          `${admission}/mutatingwebhookconfigurations`,
          'mutatingwebhookconfigurations',
          `metadata.name=${ANTREA_LEADER_WEBHOOKS.mutating}`,
          'webhook',
        ),
        validating: watch(
          `${admission}/validatingwebhookconfigurations`,
          'validatingwebhookconfigurations',
          `metadata.name=${ANTREA_LEADER_WEBHOOKS.validating}`,
          'webhook',
        ),
      };
    }
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
    this.registerGauges();
  }

  /** Every cache: the four resources, and Antrea's leader's objects with waitForAntreaLeader. */
  private get informers(): Pick<Informer<never>, 'run' | 'waitSynced' | 'synced'>[] {
    const a = this.antreaLeader;
    return [
      this.exports,
      this.imports,
      this.announces,
      this.clusterSets,
      ...(a ? [a.deployment, a.pods, a.mutating, a.validating] : []),
    ];
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
    const a = this.antreaLeader;
    if (!a) return [];
    if (!this.antreaLeaderSynced())
      return ["the caches of Antrea's leader Deployment, Pods and webhook configurations have not synced"];
    return antreaLeaderRunning({
      namespace: this.ns,
      deployment: a.deployment.store.get(ANTREA_LEADER_DEPLOYMENT)?.deployment,
      pods: [...a.pods.store.values()].flatMap((o) => (o.pod ? [o.pod] : [])),
      mutatingWebhook: a.mutating.store.has(ANTREA_LEADER_WEBHOOKS.mutating),
      validatingWebhook: a.validating.store.has(ANTREA_LEADER_WEBHOOKS.validating),
    });
  }

  /**
   * A change of Antrea's leader objects (or their first sync): log what runs when that changed,
   * as an error when it came back under a leading reconciler, then wake the elector, which stops
   * leading at once or takes the Lease within its next round.
   */
  private antreaLeaderSynced(): boolean {
    const a = this.antreaLeader;
    return !!a && a.deployment.synced && a.pods.synced && a.mutating.synced && a.validating.synced;
  }

  private onAntreaLeader(): void {
    if (!this.antreaLeaderSynced()) return;
    const running = this.antreaLeaderRunning();
    const seen = running.join('\n');
    if (seen !== this.antreaSeen) {
      const first = this.antreaSeen === undefined;
      this.antreaSeen = seen;
      if (running.length === 0)
        this.o.log.info(
          first
            ? "Antrea's leader controller is not running: this reconciler may lead"
            : "Antrea's leader controller is gone: this reconciler may lead",
          { namespace: this.ns },
        );
      else if (this.elector.isLeader())
        this.o.log.error(
          "Antrea's leader controller came back while this reconciler leads: it stops writing and releases the Lease until Antrea's leader is gone again (two leader writers must never run at once)",
          { namespace: this.ns, running },
        );
      else
        this.o.log.warn("standby: waiting for Antrea's leader controller to stop before leading", {
          namespace: this.ns,
          running,
        });
    }
    this.elector.wake();
  }

  /** Runs until the signal aborts: caches, then the election; the queue runs while leading. */
  async run(signal: AbortSignal): Promise<void> {
    const informers = this.informers.map((i) => i.run(signal));
    await Promise.race([
      Promise.all(this.informers.map((i) => i.waitSynced())),
      new Promise((r) => signal.addEventListener('abort', r)),
    ]);
    if (!signal.aborted) this.o.log.info('caches synced', this.counts());
    this.onAntreaLeader();
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

  private counts(): Record<string, number> {
    return {
      exports: this.exports.store.size,
      imports: this.imports.store.size,
      announces: this.announces.store.size,
    };
  }

  private startLeading(): void {
    const persisted = this.elector.annotation(LABEL_ID_CURSOR_ANNOTATION);
    this.allocator.start(persisted === undefined ? undefined : Number(persisted));
    this.enqueueAll();
    this.queue.resume();
  }

  /** Every key the caches and the config name. */
  allKeys(): Set<string> {
    const keys = new Set<string>([CLUSTERSET_KEY]);
    for (const s of this.o.config.services) keys.add(serviceKey(s.namespace, s.name));
    for (const e of this.exports.store.values()) keys.add(exportKey(e));
    for (const i of this.imports.store.values()) {
      const k = importKey(i);
      if (k) keys.add(k);
    }
    for (const a of this.announces.store.values()) {
      const id = announceClusterId(a.name);
      if (id) keys.add(memberKey(id));
    }
    return keys;
  }

  enqueueAll(): void {
    for (const k of this.allKeys()) this.queue.add(k);
  }

  // -------------------------------------------------------------------------------------------------
  // Events → keys

  private onExport(name: string, old: CachedExport | undefined, cur: CachedExport | undefined): void {
    const oldKey = old ? exportKey(old) : undefined;
    const newKey = cur ? exportKey(cur) : undefined;
    removeFrom(this.byKey, oldKey, name);
    removeFrom(this.byCluster, clusterOf(old), name);
    addTo(this.byKey, newKey, name);
    addTo(this.byCluster, clusterOf(cur), name);
    if (oldKey) this.queue.add(oldKey);
    if (newKey && newKey !== oldKey) this.queue.add(newKey);
    for (const id of new Set([clusterOf(old), clusterOf(cur)])) {
      if (id !== undefined && this.announces.store.get(announceName(id))?.deleting)
        this.queue.add(memberKey(id));
    }
  }

  private onImport(name: string, old: CachedImport | undefined, cur: CachedImport | undefined): void {
    if (old?.kind === 'LabelIdentity' && cur?.kind !== 'LabelIdentity') this.allocator.forget(name);
    if (cur?.kind === 'LabelIdentity') this.allocator.adopt(name, cur.labelId, cur.creationTimestamp);
    if (!cur) this.applied.delete(name);
    const keys = new Set([old && importKey(old), cur && importKey(cur)]);
    for (const k of keys) if (k) this.queue.add(k);
  }

  // -------------------------------------------------------------------------------------------------
  // Keys → outcomes (pure functions) → writes

  private exportsOf(key: string): CachedExport[] {
    const out: CachedExport[] = [];
    for (const n of this.byKey.get(key) ?? []) {
      const e = this.exports.store.get(n);
      if (e) out.push(e);
    }
    return out;
  }

  private readonly sameSpec = (existing: CachedImport, desired: ImportSpec): boolean => {
    const d = specDigest(desired);
    if (existing.specDigest === d) return true;
    const a = this.applied.get(existing.name);
    return a !== undefined && a.desired === d && a.stored === existing.specDigest;
  };

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
          exports: this.exportsOf(key),
          existing: this.imports.store.get(endpointsImportName(namespace, name)),
          compiled: this.imports.store.get(serviceImportName(namespace, name)),
          sameSpec: this.sameSpec,
          now,
        });
      }
      case 'ci':
        return reconcileClusterInfo({
          config,
          name: rest,
          export: this.exportsOf(key)[0],
          existing: this.imports.store.get(rest),
          sameSpec: this.sameSpec,
          now,
        });
      case 'label':
        return reconcileLabel({
          config,
          hash: rest,
          exports: this.exportsOf(key),
          existing: this.imports.store.get(rest),
          ids: this.allocator,
          sameSpec: this.sameSpec,
          now,
        });
      case 'member': {
        const names = this.byCluster.get(rest) ?? new Set<string>();
        return reconcileMember({
          clusterId: rest,
          isMember: config.members.some((m) => m.id === rest),
          announce: this.announces.store.get(announceName(rest)),
          exports: [...names].map((n) => this.exports.store.get(n)).filter((e): e is CachedExport => !!e),
          retireAfterMs: config.retireMembersAfterSeconds * 1000,
          nowMs,
        });
      }
      case 'export': {
        const e = this.exports.store.get(rest);
        return e && exportKey(e) === key ? reconcileStray(e, now) : { actions: [], refused: [] };
      }
      case CLUSTERSET_KEY:
        return reconcileClusterSet({
          clusterSet: this.clusterSets.store.get(config.clusterSetId),
          announces: [...this.announces.store.values()],
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
      const early = Promise.allSettled(refusals.map((a) => this.apply(key, a, refused)));
      const statuses = outcome.actions.filter((a) => isStatus(a) && !refusals.includes(a));
      const [writes] = await Promise.allSettled([
        (async () => {
          for (const a of outcome.actions) {
            if (isStatus(a)) continue;
            if (!this.elector.isLeader()) throw new NotLeader();
            await this.apply(key, a, refused);
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
        const done = await Promise.allSettled(statuses.map((a) => this.apply(key, a, refused)));
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

  /** An allocation whose import was not written: the hash holds what its import (if any) holds. */
  private resyncClaim(hash: string): void {
    this.allocator.forget(hash);
    const i = this.imports.store.get(hash);
    if (i?.kind === 'LabelIdentity') this.allocator.adopt(hash, i.labelId, i.creationTimestamp);
  }

  private async apply(key: string, a: Action, refused: ReadonlyMap<string, string>): Promise<void> {
    const c = this.o.client;
    const fm = `fieldManager=${RECONCILER_FIELD_MANAGER}`;
    const count = (result: string) => this.o.metrics.writes.inc({ action: a.op, result });
    try {
      switch (a.op) {
        case 'createImport':
        case 'replaceImport': {
          let stored: Record<string, unknown>;
          try {
            stored =
              a.op === 'createImport'
                ? await c.request('POST', `${this.base}/resourceimports?${fm}`, {
                    apiVersion: MC_API_VERSION,
                    kind: 'ResourceImport',
                    metadata: { name: a.name, namespace: this.ns },
                    spec: a.spec,
                  })
                : await c.request(
                    'PATCH',
                    `${this.base}/resourceimports/${a.name}?${fm}`,
                    [
                      { op: 'test', path: '/metadata/uid', value: a.uid },
                      { op: 'replace', path: '/spec', value: a.spec },
                    ],
                    { patch: 'json' },
                  );
          } catch (e) {
            if (a.spec.kind === 'LabelIdentity') this.resyncClaim(a.name);
            throw e;
          }
          const cached = this.imports.upsert(stored);
          this.applied.set(a.name, { desired: specDigest(a.spec), stored: cached.specDigest });
          this.o.log.debug(a.op === 'createImport' ? 'import created' : 'import updated', {
            import: a.name,
            key,
          });
          break;
        }
        case 'deleteImport':
          try {
            await c.request('DELETE', `${this.base}/resourceimports/${a.name}`, {
              apiVersion: 'v1',
              kind: 'DeleteOptions',
              preconditions: { uid: a.uid },
            });
          } catch (e) {
            if (!isApiError(e, 404)) throw e;
          }
          this.imports.drop(a.name);
          this.o.log.debug('import deleted', { import: a.name, key });
          break;
        case 'importStatus':
          try {
            const stored = await c.request(
              'PATCH',
              `${this.base}/resourceimports/${a.name}/status?${fm}`,
              { metadata: { uid: a.uid }, status: { clusterStatuses: a.clusterStatuses } },
              { patch: 'merge' },
            );
            this.imports.upsert(stored);
          } catch (e) {
            if (!isApiError(e, 404, 409)) throw e; // gone, or replaced by a new object with its own event
          }
          break;
        case 'exportStatus':
          try {
            const stored = await c.request(
              'PATCH',
              `${this.base}/resourceexports/${a.name}/status?${fm}`,
              { metadata: { uid: a.uid }, status: { conditions: [a.condition] } },
              { patch: 'merge' },
            );
            this.exports.upsert(stored);
          } catch (e) {
            if (!isApiError(e, 404, 409)) throw e; // gone, or replaced by a new object with its own event
          }
          if (a.condition.type === 'Failure') {
            const kind = this.exports.store.get(a.name)?.spec?.kind;
            this.o.metrics.refusals.inc({ kind: typeof kind === 'string' ? kind : 'unknown' });
            this.o.log.warn('export refused', {
              export: a.name,
              why: refused.get(a.name) ?? a.condition.message,
            });
          }
          break;
        case 'releaseExport': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.base}/resourceexports/${a.name}?${fm}`,
            [
              { op: 'test', path: '/metadata/resourceVersion', value: a.resourceVersion },
              { op: 'replace', path: '/metadata/finalizers', value: a.finalizers },
            ],
            { patch: 'json' },
          );
          if (a.finalizers.length === 0) this.exports.drop(a.name);
          else this.exports.upsert(stored);
          this.o.log.debug('export finalizer removed', { export: a.name, key });
          break;
        }
        case 'deleteExport':
        case 'deleteAnnounce': {
          const resource = a.op === 'deleteExport' ? 'resourceexports' : 'memberclusterannounces';
          const informer: Pick<Informer<CachedExport | CachedAnnounce>, 'drop' | 'upsert'> = a.op ===
          'deleteExport'
            ? this.exports
            : this.announces;
          try {
            const r = await c.request<Record<string, unknown>>(
              'DELETE',
              `${this.base}/${resource}/${a.name}`,
              {
                apiVersion: 'v1',
                kind: 'DeleteOptions',
                preconditions: { uid: a.uid },
              },
            );
            if (r.kind === 'Status') informer.drop(a.name);
            else informer.upsert(r);
          } catch (e) {
            if (!isApiError(e, 404)) throw e;
            informer.drop(a.name);
          }
          this.o.log.info(
            a.op === 'deleteExport' ? 'export of a retired member deleted' : 'silent member retired',
            {
              [a.op === 'deleteExport' ? 'export' : 'announce']: a.name,
              key,
            },
          );
          break;
        }
        case 'announceFinalizers': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.base}/memberclusterannounces/${a.name}?${fm}`,
            [
              { op: 'test', path: '/metadata/resourceVersion', value: a.resourceVersion },
              { op: 'replace', path: '/metadata/finalizers', value: a.finalizers },
            ],
            { patch: 'json' },
          );
          const md = stored.metadata as { deletionTimestamp?: string };
          if (md.deletionTimestamp && a.finalizers.length === 0) this.announces.drop(a.name);
          else this.announces.upsert(stored);
          break;
        }
        case 'clusterSetStatus': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.clusterSetsPath}/${a.name}/status?${fm}`,
            { status: a.status },
            { patch: 'merge' },
          );
          this.clusterSets.upsert(stored);
          break;
        }
      }
      count('ok');
    } catch (e) {
      count(isApiError(e) ? String(e.code) : 'error');
      throw e;
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Metrics and health

  private registerGauges(): void {
    const m = this.o.metrics;
    m.gauge('queue_depth', 'Keys waiting to be reconciled.', () => [[{}, this.queue.depth]]);
    m.gauge('queue_scheduled', 'Keys scheduled for a later reconcile (retries, timers).', () => [
      [{}, this.queue.scheduled],
    ]);
    m.gauge('queue_in_flight', 'Keys being reconciled now.', () => [[{}, this.queue.inFlight]]);
    m.gauge('queue_deferred', 'Keys waiting to write export statuses, behind every other key.', () => [
      [{}, this.queue.deferred],
    ]);
    m.gauge('leader', '1 while this replica holds the Lease.', () => [[{}, this.elector.isLeader() ? 1 : 0]]);
    m.gauge('imports', 'ResourceImports in the leader namespace, by spec.kind.', () => {
      const counts = new Map<string, number>();
      for (const i of this.imports.store.values())
        counts.set(i.kind ?? '', (counts.get(i.kind ?? '') ?? 0) + 1);
      return [...counts].map(([kind, n]) => [{ kind }, n]);
    });
    m.gauge('exports', 'ResourceExports in the leader namespace, by spec.kind and condition.', () => {
      const counts = new Map<string, number>();
      for (const e of this.exports.store.values()) {
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
      const now = this.now();
      for (const a of this.announces.store.values()) {
        if (a.deleting) continue;
        total++;
        if (now - a.lastWriteMs <= 30_000) ready++;
      }
      return [
        [{ state: 'ready' }, ready],
        [{ state: 'not_ready' }, total - ready],
      ];
    });
    m.gauge('label_ids', 'Label identity IDs in use.', () => [[{}, this.allocator.size]]);
    m.gauge(
      'waiting_for_antrea_leader',
      "1 while this replica is held back from leading because Antrea's leader controller still runs (waitForAntreaLeader).",
      () => [[{}, this.antreaLeaderRunning().length > 0 ? 1 : 0]],
    );
  }

  /** For /readyz: which caches have not synced yet (empty when ready). */
  notSynced(): string[] {
    const out: string[] = [];
    if (!this.exports.synced) out.push('resourceexports');
    if (!this.imports.synced) out.push('resourceimports');
    if (!this.announces.synced) out.push('memberclusterannounces');
    if (!this.clusterSets.synced) out.push('clustersets');
    const a = this.antreaLeader;
    if (a && !a.deployment.synced) out.push('deployments');
    if (a && !a.pods.synced) out.push('pods');
    if (a && !a.mutating.synced) out.push('mutatingwebhookconfigurations');
    if (a && !a.validating.synced) out.push('validatingwebhookconfigurations');
    return out;
  }
}
