/**
 * Argo CD's cascade deletion of an Application, as we read it from Argo CD's documentation and
 * source. It is OUR READING, written in TypeScript, not Argo CD's code: Argo CD's controller
 * (gitops-engine) cannot be built on this machine (see test/flux-gc/ for Flux, whose own code runs).
 *
 * What we read:
 * - User guide "App Deletion" (argo-cd.readthedocs.io, release-2.5 to 3.3): an Application carrying
 *   `resources-finalizer.argocd.argoproj.io` is deleted with a cascade: the application controller
 *   deletes the Application's resources, with foreground propagation, or background propagation
 *   with `resources-finalizer.argocd.argoproj.io/background`; then it removes the finalizer.
 * - User guide "Sync Options", "No Resource Deletion": `argocd.argoproj.io/sync-options:
 *   Delete=false` keeps a resource when its Application is deleted.
 * - User guide "Resource Tracking" (3.x): the resources an Application manages are the live objects
 *   whose `argocd.argoproj.io/tracking-id` annotation is `<app>:<group>/<kind>:<namespace>/<name>`
 *   of that very object (annotation tracking, Argo CD 3's default).
 * - argoproj/argo-cd controller/appcontroller.go, `finalizeApplicationDeletion` and
 *   `shouldBeDeleted`: the live objects the Application manages (getPermittedAppLiveObjects: also
 *   limited to what its AppProject permits, which ours permits for every kind of the bundle); while
 *   any of them is being deleted, wait; else delete those that should be deleted, which are all but
 *   CustomResourceDefinitions, the Application itself, and objects whose sync-options annotation
 *   lists `Delete=false` (or carrying Helm's `helm.sh/resource-policy: keep`), one batch at a time
 *   (controller/sort_delete.go `FilterObjectsForDeletion`: the highest sync wave first and, within
 *   it, one kind at a time in reverse install order); when none is left, remove the finalizer.
 * - The options are parsed as gitops-engine's / argo-cd's `resource.HasAnnotationOption`: the
 *   annotation value split on commas, each item trimmed of spaces, compared exactly.
 */
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';
import { sleep } from '../kube/wait';

export const TRACKING_ID = 'argocd.argoproj.io/tracking-id';
export const SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';
export const RESOURCES_FINALIZER_BACKGROUND = 'resources-finalizer.argocd.argoproj.io/background';

interface Meta {
  name: string;
  namespace?: string;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

/** A live object with the REST path it was listed at. */
export interface LiveObject {
  readonly group: string;
  readonly kind: string;
  readonly metadata: Meta;
  /** REST path of the object, for DELETE. */
  readonly path: string;
}

/** The tracking id Argo CD writes on an object it applies for Application `app`. */
export function trackingId(
  app: string,
  o: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } },
): string {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '';
  return `${app}:${group}/${o.kind}:${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** `HasAnnotationOption`: is `option` one of the comma-separated items of annotation `key`? */
export function hasAnnotationOption(meta: Meta, key: string, option: string): boolean {
  return (meta.annotations?.[key] ?? '')
    .split(',')
    .map((s) => s.trim())
    .some((s) => s === option);
}

/** `shouldBeDeleted` for an Application that is not itself in its own resources. */
export function shouldBeDeleted(o: LiveObject): boolean {
  const crd = o.group === 'apiextensions.k8s.io' && o.kind === 'CustomResourceDefinition';
  return (
    !crd &&
    !hasAnnotationOption(o.metadata, SYNC_OPTIONS, 'Delete=false') &&
    !hasAnnotationOption(o.metadata, HELM_RESOURCE_POLICY, 'keep')
  );
}

// controller/sort_delete.go: the uninstall order of kinds (Helm's), index = rank; unknown kinds 0.
const KIND_ORDER = [
  'APIService',
  'Ingress',
  'Service',
  'CronJob',
  'Job',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'Pod',
  'DaemonSet',
  'RoleBindingList',
  'RoleBinding',
  'RoleList',
  'Role',
  'ClusterRoleBindingList',
  'ClusterRoleBinding',
  'ClusterRoleList',
  'ClusterRole',
  'CustomResourceDefinition',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'ConfigMap',
  'SecretList',
  'Secret',
  'ServiceAccount',
  'PodDisruptionBudget',
  'PodSecurityPolicy',
  'LimitRange',
  'ResourceQuota',
  'NetworkPolicy',
  'Namespace',
];
const kindRank = (k: string): number => Math.max(0, KIND_ORDER.indexOf(k));
const wave = (o: LiveObject): number => {
  const n = Number.parseInt(o.metadata.annotations?.[SYNC_WAVE] ?? '0', 10);
  return Number.isFinite(n) ? n : 0;
};

/** `FilterObjectsForDeletion`: the first batch to delete (highest wave, then one kind). */
export function filterObjectsForDeletion(objs: readonly LiveObject[]): LiveObject[] {
  if (objs.length <= 1) return [...objs];
  // sort.Reverse of: wave ascending, then kind rank descending, then name ascending.
  const sorted = [...objs].sort(
    (a, b) =>
      wave(b) - wave(a) ||
      kindRank(a.kind) - kindRank(b.kind) ||
      (a.metadata.name < b.metadata.name ? 1 : a.metadata.name > b.metadata.name ? -1 : 0),
  );
  const first = sorted[0]!;
  const batch: LiveObject[] = [];
  for (const o of sorted) {
    if (wave(o) !== wave(first) || o.kind !== first.kind) break;
    batch.push(o);
  }
  return batch;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

async function getJson<T>(cluster: Cluster, path: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const r = await request(cluster.admin, 'GET', path);
    if (r.status === 200) return r.json as T;
    // 429 while the storage of a just-established CRD initializes: retry, as a client would.
    if (r.status !== 429 || attempt >= 50)
      throw new Error(`GET ${path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    await sleep(200);
  }
}

/** Every live object of every listable kind (preferred versions, as Argo CD's cluster cache watches). */
async function liveObjects(cluster: Cluster): Promise<LiveObject[]> {
  const groupVersions: { group: string; gv: string }[] = [{ group: '', gv: 'v1' }];
  const groups = await getJson<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>(
    cluster,
    '/apis',
  );
  for (const g of groups.groups) groupVersions.push({ group: g.name, gv: g.preferredVersion.groupVersion });
  const out: LiveObject[] = [];
  for (const { group, gv } of groupVersions) {
    const base = gv === 'v1' && group === '' ? '/api/v1' : `/apis/${gv}`;
    const list = await getJson<{ resources: ApiResource[] }>(cluster, base);
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list') || !r.verbs.includes('delete')) continue;
      const items = await getJson<{ items: { metadata: Meta }[] }>(cluster, `${base}/${r.name}`);
      for (const it of items.items) {
        const ns = r.namespaced ? `/namespaces/${encodeURIComponent(it.metadata.namespace ?? '')}` : '';
        out.push({
          group,
          kind: r.kind,
          metadata: it.metadata,
          path: `${base}${ns}/${r.name}/${encodeURIComponent(it.metadata.name)}`,
        });
      }
    }
  }
  return out;
}

/** The live objects Application `app` manages: their tracking id names the app and the object itself. */
export async function managedLiveObjects(cluster: Cluster, app: string): Promise<LiveObject[]> {
  return (await liveObjects(cluster)).filter(
    (o) =>
      o.metadata.annotations?.[TRACKING_ID] ===
      `${app}:${o.group}/${o.kind}:${o.metadata.namespace ?? ''}/${o.metadata.name}`,
  );
}

/**
 * Runs the cascade deletion of Application `app` (carrying `finalizer`) against `cluster` until
 * Argo CD would remove the finalizer. Returns every object it deleted, in order.
 */
export async function cascadeDelete(
  cluster: Cluster,
  app: string,
  finalizer: string,
  timeoutMs = 120_000,
): Promise<LiveObject[]> {
  if (finalizer !== RESOURCES_FINALIZER && finalizer !== RESOURCES_FINALIZER_BACKGROUND)
    throw new Error(`${finalizer} is not Argo CD's resources finalizer`);
  const propagationPolicy = finalizer === RESOURCES_FINALIZER_BACKGROUND ? 'Background' : 'Foreground';
  const deleted: LiveObject[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (Date.now() > deadline)
      throw new Error(`cascade deletion of ${app} did not finish in ${timeoutMs} ms`);
    const live = await managedLiveObjects(cluster, app);
    if (live.some((o) => o.metadata.deletionTimestamp)) {
      await sleep(200);
      continue;
    }
    const left = live.filter(shouldBeDeleted);
    if (left.length === 0) return deleted;
    for (const o of filterObjectsForDeletion(left)) {
      const r = await request(cluster.admin, 'DELETE', o.path, {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy,
      });
      if (r.status !== 200 && r.status !== 202 && r.status !== 404)
        throw new Error(`DELETE ${o.path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
      deleted.push(o);
    }
  }
}
