/**
 * What `clusterset status` read from one cluster: the items of each collection it lists, the
 * collections it could not list, or why the cluster could not be reached at all. Pure data, so that
 * the report is a function of it (and tests build it by hand).
 */
import * as path from 'node:path';
import type { Plan } from '../plan';
import { ANTREA_LEADER_POD_SELECTOR, MEMBER_RESTART_NAME } from '../names';
import { loadYaml } from '../yaml';
import { collectionPath, resource, resourceOf } from './resources';

export type Obj = Record<string, unknown>;

export interface ClusterRead {
  /** Collection key (see collectionKey) → its items. */
  readonly lists: ReadonlyMap<string, readonly Obj[]>;
  /** Collection key → why it could not be listed (403, 404: the API is not served, ...). */
  readonly errors: ReadonlyMap<string, string>;
  /** Why the cluster could not be reached at all (it is then reported and nothing else). */
  readonly unreachable?: string;
}

/** One object of a cluster's bundle in out/, as rendered. */
export interface BundleObject {
  /** Its path under out/. */
  readonly file: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly object: Obj;
}

/**
 * Cluster ID → its bundle's objects (sorted by file), from the files of out/ (`clusters/<id>/…`,
 * kustomization.yaml aside); clusters the plan does not list are ignored.
 */
export function bundlesFromFiles(
  files: ReadonlyMap<string, string>,
  plan: Plan,
): Map<string, BundleObject[]> {
  const bundles = new Map<string, BundleObject[]>(plan.clusters.map((c) => [c.id, []]));
  for (const [file, text] of files) {
    const m = /^clusters\/([^/]+)\/(.+\.ya?ml)$/.exec(file);
    if (!m || path.posix.basename(m[2]!) === 'kustomization.yaml') continue;
    const list = bundles.get(m[1]!);
    if (!list) continue;
    const o = loadYaml(text) as Obj | null;
    if (!o || typeof o !== 'object') continue;
    const md = (o.metadata ?? {}) as { name?: string; namespace?: string };
    list.push({
      file,
      apiVersion: String(o.apiVersion ?? ''),
      kind: String(o.kind ?? ''),
      name: md.name ?? '',
      ...(md.namespace ? { namespace: md.namespace } : {}),
      object: o,
    });
  }
  for (const b of bundles.values()) b.sort((x, y) => (x.file < y.file ? -1 : 1));
  return bundles;
}

/** The events Antrea's member posts when a replicated policy cannot be imported (antrea-mc.md §c.3). */
export const ACNP_IMPORT_FAILED = 'ACNPImportFailed';

/** A collection: its path and an optional field selector, written as one key. */
export function collectionKey(path: string, fieldSelector?: string): string {
  return fieldSelector ? `${path}?fieldSelector=${encodeURIComponent(fieldSelector)}` : path;
}

export function kindKey(kind: string, namespace?: string, fieldSelector?: string): string {
  return collectionKey(collectionPath(resource(kind), namespace), fieldSelector);
}

/** The key of the collection holding a bundle object, undefined for a kind status does not read. */
export function bundleKey(o: BundleObject): string | undefined {
  const r = resourceOf(o.apiVersion, o.kind);
  return r ? collectionKey(collectionPath(r, o.namespace)) : undefined;
}

/**
 * Secrets are never read: a status identity that can read the leader namespace's Secrets can read
 * every member's token. Their presence is seen through what uses them (the member ClusterSet turns
 * Ready only with a working token).
 */
export function isUnread(o: { kind: string; apiVersion: string }): boolean {
  return o.kind === 'Secret' && o.apiVersion === 'v1';
}

/** The Pods of the members' restart Jobs (their ServiceAccount's), where what stops them shows. */
export const RESTART_POD_SELECTOR = `spec.serviceAccountName=${MEMBER_RESTART_NAME}`;

/** Every ServiceExport of a member, in all namespaces: a leftover export may be of any. */
export const SERVICE_EXPORTS_ALL = collectionKey(
  `/apis/${resource('ServiceExport').apiVersion}/${resource('ServiceExport').plural}`,
);

/** Every collection status lists in cluster `id`: its bundle's, and what Antrea writes there. */
export function collectionsFor(plan: Plan, id: string, bundle: readonly BundleObject[]): string[] {
  const keys = new Set<string>();
  for (const o of bundle) {
    if (isUnread(o)) continue;
    const k = bundleKey(o);
    if (k) keys.add(k);
  }
  if (id === plan.leader.id) {
    const ns = plan.leaderNamespace;
    for (const kind of ['MemberClusterAnnounce', 'ResourceExport', 'ResourceImport', 'ClusterSet', 'Lease'])
      keys.add(kindKey(kind, ns));
    keys.add(kindKey('Event', ns, `reason=${ACNP_IMPORT_FAILED}`));
    // In warm standby, the Pods that may still run Antrea's leader (the reconciler waits for them).
    if (plan.reconciler.waitForAntreaLeader) keys.add(kindKey('Pod', ns, ANTREA_LEADER_POD_SELECTOR));
  }
  if (plan.members.some((m) => m.id === id)) {
    const ns = plan.memberNamespace;
    keys.add(kindKey('ClusterSet', ns));
    keys.add(kindKey('ClusterInfoImport', ns));
    keys.add(kindKey('Pod', ns, RESTART_POD_SELECTOR));
    keys.add(SERVICE_EXPORTS_ALL);
    for (const kind of ['ClusterNetworkPolicy', 'Tier', 'LabelIdentity']) keys.add(kindKey(kind));
    for (const sns of plan.serviceNamespaces)
      for (const kind of ['Service', 'Endpoints', 'ServiceImport', 'ServiceExport'])
        keys.add(kindKey(kind, sns));
  }
  return [...keys].sort();
}

/** The items of a collection; undefined when it was not (or could not be) read. */
export function listOf(read: ClusterRead | undefined, key: string): readonly Obj[] | undefined {
  return read?.lists.get(key);
}

export function nameOf(o: Obj): string {
  return ((o.metadata as Obj | undefined)?.name as string | undefined) ?? '';
}

export function findNamed(list: readonly Obj[] | undefined, name: string): Obj | undefined {
  return list?.find((o) => nameOf(o) === name);
}
