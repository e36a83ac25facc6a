/**
 * The reconciler's caches of the four resources it reads in the leader namespace (ResourceExports,
 * ResourceImports, MemberClusterAnnounces and the leader ClusterSet), the exports indexed by the key
 * that owns them and by their cluster, and every change mapped to the keys it wakes
 * (desired/keys.ts): an export wakes its old and new key, and its cluster's member key while that
 * member's announce is being deleted; an import its key; an announce its member key and the
 * ClusterSet's; the ClusterSet its own.
 */
import { announceName, RECONCILER_FIELD_MANAGER } from '../names';
import type { ReconcilerConfig } from '../reconciler-config';
import {
  announceClusterId,
  CLUSTERSET_KEY,
  exportKey,
  importKey,
  memberKey,
  serviceKey,
} from './desired/keys';
import { Informer, type InformerOptions } from './informer';
import {
  trimAnnounce,
  trimClusterSet,
  trimExport,
  trimImport,
  type CachedAnnounce,
  type CachedClusterSet,
  type CachedExport,
  type CachedImport,
} from './objects';

export interface CachesOptions {
  /** What every informer shares: the client, log, metrics and watch timeout. */
  readonly common: Pick<InformerOptions<never>, 'client' | 'log' | 'metrics' | 'watchTimeoutSeconds'>;
  readonly config: ReconcilerConfig;
  /** `/apis/<group>/<version>/namespaces/<leader namespace>`. */
  readonly base: string;
  /** The leader ClusterSets' collection path (see the Controller's). */
  readonly clusterSetsPath: string;
  /** Wakes a key. */
  readonly enqueue: (key: string) => void;
  /** Told of every change of an import before its keys are woken. */
  readonly onImport: (name: string, old: CachedImport | undefined, cur: CachedImport | undefined) => void;
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

export class Caches {
  readonly exports: Informer<CachedExport>;
  readonly imports: Informer<CachedImport>;
  readonly announces: Informer<CachedAnnounce>;
  readonly clusterSets: Informer<CachedClusterSet>;
  /** Key → names of the exports it owns; cluster ID → names of its exports. */
  private readonly byKey = new Map<string, Set<string>>();
  private readonly byCluster = new Map<string, Set<string>>();

  constructor(private readonly o: CachesOptions) {
    const { common, config } = o;
    this.exports = new Informer({
      ...common,
      path: `${o.base}/resourceexports`,
      resource: 'resourceexports',
      trim: trimExport,
      onChange: (name, old, cur) => this.onExport(name, old, cur),
    });
    this.imports = new Informer({
      ...common,
      path: `${o.base}/resourceimports`,
      resource: 'resourceimports',
      trim: trimImport,
      onChange: (name, old, cur) => this.onImport(name, old, cur),
    });
    this.announces = new Informer({
      ...common,
      path: `${o.base}/memberclusterannounces`,
      resource: 'memberclusterannounces',
      trim: (raw) => trimAnnounce(raw, RECONCILER_FIELD_MANAGER),
      onChange: (name) => {
        const id = announceClusterId(name);
        if (id !== undefined) o.enqueue(memberKey(id));
        o.enqueue(CLUSTERSET_KEY);
      },
    });
    this.clusterSets = new Informer({
      ...common,
      path: o.clusterSetsPath,
      resource: 'clustersets',
      fieldSelector: `metadata.name=${config.clusterSetId}`,
      trim: trimClusterSet,
      onChange: () => o.enqueue(CLUSTERSET_KEY),
    });
  }

  /** The four caches. */
  get informers(): Pick<Informer<never>, 'run' | 'waitSynced' | 'synced'>[] {
    return [this.exports, this.imports, this.announces, this.clusterSets];
  }

  counts(): Record<string, number> {
    return {
      exports: this.exports.store.size,
      imports: this.imports.store.size,
      announces: this.announces.store.size,
    };
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

  // -------------------------------------------------------------------------------------------------
  // Events → keys

  private onExport(name: string, old: CachedExport | undefined, cur: CachedExport | undefined): void {
    const oldKey = old ? exportKey(old) : undefined;
    const newKey = cur ? exportKey(cur) : undefined;
    removeFrom(this.byKey, oldKey, name);
    removeFrom(this.byCluster, clusterOf(old), name);
    addTo(this.byKey, newKey, name);
    addTo(this.byCluster, clusterOf(cur), name);
    if (oldKey) this.o.enqueue(oldKey);
    if (newKey && newKey !== oldKey) this.o.enqueue(newKey);
    for (const id of new Set([clusterOf(old), clusterOf(cur)])) {
      if (id !== undefined && this.announces.store.get(announceName(id))?.deleting)
        this.o.enqueue(memberKey(id));
    }
  }

  private onImport(name: string, old: CachedImport | undefined, cur: CachedImport | undefined): void {
    this.o.onImport(name, old, cur);
    const keys = new Set([old && importKey(old), cur && importKey(cur)]);
    for (const k of keys) if (k) this.o.enqueue(k);
  }

  // -------------------------------------------------------------------------------------------------
  // Indexes

  /** The exports a key owns. */
  exportsOf(key: string): CachedExport[] {
    const out: CachedExport[] = [];
    for (const n of this.byKey.get(key) ?? []) {
      const e = this.exports.store.get(n);
      if (e) out.push(e);
    }
    return out;
  }

  /** The exports whose spec.clusterID is this cluster. */
  exportsFrom(clusterId: string): CachedExport[] {
    const names = this.byCluster.get(clusterId) ?? new Set<string>();
    return [...names].map((n) => this.exports.store.get(n)).filter((e): e is CachedExport => !!e);
  }

  /** For /readyz: which of the four caches have not synced yet. */
  notSynced(): string[] {
    const out: string[] = [];
    if (!this.exports.synced) out.push('resourceexports');
    if (!this.imports.synced) out.push('resourceimports');
    if (!this.announces.synced) out.push('memberclusterannounces');
    if (!this.clusterSets.synced) out.push('clustersets');
    return out;
  }
}
