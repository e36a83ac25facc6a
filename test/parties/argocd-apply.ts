// Apply a rendered cluster bundle (out/clusters/<cluster>/) to a real API server the way Argo CD
// does with ServerSideApply=true: sync waves, then kind order (CRDs, Namespaces, then Argo CD's kind
// order), server-side apply with field manager `argocd-controller` and force, waiting for CRDs to be
// Established before their kinds are applied. Every rejection is collected; nothing stops early.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import type { Auth, Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';

export const FIELD_MANAGER = 'argocd-controller';
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';

/** A Kubernetes object as read from a bundle file. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

export interface BundleObject {
  /** Path of the file, relative to the bundle directory. */
  file: string;
  obj: KubeObject;
  /** Parsed sync wave (annotation argocd.argoproj.io/sync-wave, default 0). */
  wave: number;
}

export interface Rejection {
  file: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** HTTP status from the server; 0 when the object never reached the server. */
  status: number;
  /** Status.reason from the server, e.g. Invalid, Forbidden, NotFound. */
  reason?: string;
  /** The server's message (Status.message), or why the object was not sent. */
  message: string;
}

export interface Applied {
  file: string;
  /** What was sent. */
  obj: KubeObject;
  /** What the server returned from the apply. */
  result: KubeObject;
}

export interface ApplyResult {
  /** Objects in the order they were applied (rejected ones included). */
  order: BundleObject[];
  applied: Applied[];
  /** Every object the server (or discovery) refused, in apply order. Empty means a clean sync. */
  rejected: Rejection[];
}

// gitops-engine pkg/sync/sync_tasks.go kindOrder (the order Argo CD applies kinds within a wave).
const ARGO_KIND_ORDER = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

function kindRank(kind: string): number {
  if (kind === 'CustomResourceDefinition') return -2;
  if (kind === 'Namespace') return -1;
  const i = ARGO_KIND_ORDER.indexOf(kind);
  // Kinds Argo CD does not know come after all known ones.
  return i < 0 ? ARGO_KIND_ORDER.length : i;
}

function parseWave(obj: KubeObject): number {
  const raw = obj.metadata?.annotations?.[SYNC_WAVE];
  if (raw === undefined) return 0;
  const n = Number.parseInt(String(raw), 10);
  return Number.isFinite(n) ? n : 0;
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listYaml(p));
    else if (
      e.isFile() &&
      /\.ya?ml$/.test(e.name) &&
      e.name !== 'kustomization.yaml' &&
      e.name !== 'kustomization.yml'
    ) {
      out.push(p);
    }
  }
  return out;
}

/** Reads every object of a bundle directory (all *.yaml below it except kustomization.yaml). */
export function loadBundle(dir: string): BundleObject[] {
  const objs: BundleObject[] = [];
  for (const f of listYaml(dir).sort()) {
    const rel = path.relative(dir, f);
    for (const doc of yaml.loadAll(fs.readFileSync(f, 'utf8'))) {
      if (doc === null || doc === undefined) continue;
      const obj = doc as KubeObject;
      if (typeof obj !== 'object' || !obj.apiVersion || !obj.kind || !obj.metadata) {
        throw new Error(`${rel}: not a Kubernetes object (apiVersion, kind and metadata are required)`);
      }
      objs.push({ file: rel, obj, wave: parseWave(obj) });
    }
  }
  return objs;
}

/** Argo CD's sync order: wave, then kind (CRDs, Namespaces, Argo CD's kind order), then name. */
export function syncOrder(objs: BundleObject[]): BundleObject[] {
  return [...objs].sort(
    (a, b) =>
      a.wave - b.wave ||
      kindRank(a.obj.kind) - kindRank(b.obj.kind) ||
      (a.obj.kind < b.obj.kind ? -1 : a.obj.kind > b.obj.kind ? 1 : 0) ||
      cmp(a.obj.metadata.name ?? '', b.obj.metadata.name ?? '') ||
      cmp(a.obj.metadata.namespace ?? '', b.obj.metadata.namespace ?? '') ||
      cmp(a.file, b.file),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------------
// Discovery

interface ResourceInfo {
  name: string;
  namespaced: boolean;
}

/** Maps apiVersion + kind to the REST resource, through the server's discovery documents. */
export class Discovery {
  private readonly cache = new Map<string, Map<string, ResourceInfo>>();
  constructor(private readonly auth: Auth) {}

  invalidate(apiVersion?: string): void {
    if (apiVersion) this.cache.delete(apiVersion);
    else this.cache.clear();
  }

  async resource(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    let kinds = this.cache.get(apiVersion);
    if (!kinds || !kinds.has(kind)) {
      const res = await request(
        this.auth,
        'GET',
        apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`,
      );
      kinds = new Map();
      if (res.status === 200) {
        const list = res.json as { resources?: { name: string; kind: string; namespaced: boolean }[] };
        for (const r of list.resources ?? []) {
          if (!r.name.includes('/')) kinds.set(r.kind, { name: r.name, namespaced: r.namespaced });
        }
      } else if (res.status !== 404) {
        throw new Error(`discovery of ${apiVersion} failed: HTTP ${res.status} ${res.body}`);
      }
      this.cache.set(apiVersion, kinds);
    }
    return kinds.get(kind);
  }

  /** The REST path of one object (namespace already decided by the caller for namespaced kinds). */
  async objectPath(
    obj: KubeObject,
    namespace: string | undefined,
  ): Promise<{ path: string; namespaced: boolean } | undefined> {
    const r = await this.resource(obj.apiVersion, obj.kind);
    if (!r) return undefined;
    const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
    const ns = r.namespaced ? `/namespaces/${encodeURIComponent(namespace ?? 'default')}` : '';
    return {
      path: `${base}${ns}/${r.name}/${encodeURIComponent(obj.metadata.name ?? '')}`,
      namespaced: r.namespaced,
    };
  }
}

const discoveries = new WeakMap<Cluster, Discovery>();
function discoveryFor(cluster: Cluster): Discovery {
  let d = discoveries.get(cluster);
  if (!d) {
    d = new Discovery(cluster.admin);
    discoveries.set(cluster, d);
  }
  return d;
}

// ---------------------------------------------------------------------------------------------------
// Apply

interface Status {
  kind?: string;
  message?: string;
  reason?: string;
}

function statusOf(body: unknown, fallback: string): { message: string; reason?: string } {
  const s = body as Status | undefined;
  if (s && s.kind === 'Status' && s.message) return { message: s.message, reason: s.reason };
  return { message: fallback };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a CRD's Established condition; returns an error message on timeout. */
async function waitEstablished(auth: Auth, crdName: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await request(
      auth,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
    );
    if (res.status === 200) {
      const conds =
        (res.json as { status?: { conditions?: { type: string; status: string; message?: string }[] } })
          .status?.conditions ?? [];
      const est = conds.find((c) => c.type === 'Established');
      if (est?.status === 'True') return undefined;
      const np = conds.find((c) => c.type === 'NamesAccepted');
      if (np?.status === 'False') return `CRD ${crdName} names not accepted: ${np.message ?? ''}`;
      last = est?.message ?? 'not Established yet';
    } else {
      last = `HTTP ${res.status}`;
    }
    await sleep(100);
  }
  return `CRD ${crdName} was not Established after ${timeoutMs} ms (${last})`;
}

function namespaceFor(b: BundleObject): string | undefined {
  if (b.obj.metadata.namespace) return b.obj.metadata.namespace;
  // Bundle layout: <cluster>/<namespace or _cluster>/<kind>.<name>.yaml
  const parent = path.basename(path.dirname(b.file));
  return parent && parent !== '.' && parent !== '_cluster' ? parent : undefined;
}

export interface ApplyOptions {
  fieldManager?: string;
  /** How long to wait for a CRD applied in this sync to be Established (default 60 s). */
  crdTimeoutMs?: number;
  /** Server-side dry run (dryRun=All): nothing is persisted. */
  dryRun?: boolean;
}

/** Applies one object with server-side apply; returns the stored object or a rejection. */
export async function applyObject(
  cluster: Cluster,
  b: BundleObject,
  opts: ApplyOptions = {},
): Promise<{ result: KubeObject } | { rejection: Rejection }> {
  const { obj } = b;
  const ns = namespaceFor(b);
  const base = {
    file: b.file,
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name ?? '',
    ...(ns ? { namespace: ns } : {}),
  };
  if (!obj.metadata.name) {
    return { rejection: { ...base, status: 0, message: 'metadata.name is required for server-side apply' } };
  }
  const disc = discoveryFor(cluster);
  let loc = await disc.objectPath(obj, ns);
  if (!loc) {
    // A CRD may just have been established; discovery can lag behind for a moment.
    for (let i = 0; i < 20 && !loc; i++) {
      await sleep(250);
      disc.invalidate(obj.apiVersion);
      loc = await disc.objectPath(obj, ns);
    }
  }
  if (!loc) {
    return {
      rejection: {
        ...base,
        status: 404,
        reason: 'NotFound',
        message: `the server does not serve ${obj.kind} in ${obj.apiVersion} (discovery); is its CRD missing or rejected?`,
      },
    };
  }
  const q = new URLSearchParams({ fieldManager: opts.fieldManager ?? FIELD_MANAGER, force: 'true' });
  if (opts.dryRun) q.set('dryRun', 'All');
  const res = await request(cluster.admin, 'PATCH', `${loc.path}?${q}`, obj, 'application/apply-patch+yaml');
  if (res.status >= 200 && res.status < 300) return { result: res.json as KubeObject };
  const { message, reason } = statusOf(res.json, res.body);
  const rejection: Rejection = { ...base, status: res.status, message };
  if (!loc.namespaced) delete rejection.namespace;
  if (reason) rejection.reason = reason;
  return { rejection };
}

/**
 * Applies every object of a bundle directory like an Argo CD sync with ServerSideApply=true and
 * returns what was applied and every rejection (with the server's message). It does not stop at the
 * first rejection.
 */
export async function applyBundle(
  cluster: Cluster,
  dir: string,
  opts: ApplyOptions = {},
): Promise<ApplyResult> {
  const order = syncOrder(loadBundle(dir));
  const result: ApplyResult = { order, applied: [], rejected: [] };
  // CRDs of this bundle: "<group>/<kind>" -> CRD name, so their kinds wait for Established.
  const crdByKind = new Map<string, string>();
  const crdReady = new Map<string, Promise<string | undefined>>();
  for (const b of order) {
    if (b.obj.kind !== 'CustomResourceDefinition') continue;
    const spec = b.obj.spec as { group?: string; names?: { kind?: string } } | undefined;
    if (spec?.group && spec.names?.kind && b.obj.metadata.name) {
      crdByKind.set(`${spec.group}/${spec.names.kind}`, b.obj.metadata.name);
    }
  }
  const disc = discoveryFor(cluster);
  for (const b of order) {
    const group = b.obj.apiVersion.includes('/') ? b.obj.apiVersion.split('/')[0] : '';
    const crdName = crdByKind.get(`${group}/${b.obj.kind}`);
    if (crdName) {
      let wait = crdReady.get(crdName);
      if (!wait) {
        wait = waitEstablished(cluster.admin, crdName, opts.crdTimeoutMs ?? 60_000);
        crdReady.set(crdName, wait);
      }
      const err = await wait;
      if (err) {
        result.rejected.push({
          file: b.file,
          apiVersion: b.obj.apiVersion,
          kind: b.obj.kind,
          name: b.obj.metadata.name ?? '',
          ...(b.obj.metadata.namespace ? { namespace: b.obj.metadata.namespace } : {}),
          status: 0,
          message: `not applied: ${err}`,
        });
        continue;
      }
      disc.invalidate(b.obj.apiVersion);
    }
    const r = await applyObject(cluster, b, opts);
    if ('result' in r) result.applied.push({ file: b.file, obj: b.obj, result: r.result });
    else result.rejected.push(r.rejection);
  }
  return result;
}

/** Fetches what the server stored for obj (same apiVersion); undefined if it does not exist. */
export async function readBack(cluster: Cluster, obj: KubeObject): Promise<KubeObject | undefined> {
  const loc = await discoveryFor(cluster).objectPath(obj, obj.metadata.namespace);
  if (!loc) throw new Error(`the server does not serve ${obj.kind} in ${obj.apiVersion}`);
  const res = await request(cluster.admin, 'GET', loc.path);
  if (res.status === 404) return undefined;
  if (res.status !== 200)
    throw new Error(`GET ${loc.path}: HTTP ${res.status}: ${statusOf(res.json, res.body).message}`);
  return res.json as KubeObject;
}

/**
 * Lists every field of `applied` that the server did not store as sent (pruned by a schema, defaulted
 * to something else, or normalised), as JSON-ish paths with both values. Fields the server adds are
 * ignored. An empty list means everything applied was kept.
 */
export function notStoredAsApplied(applied: unknown, stored: unknown, at = ''): string[] {
  if (applied === null || typeof applied !== 'object') {
    return applied === stored
      ? []
      : [`${at || '.'}: applied ${JSON.stringify(applied)}, stored ${JSON.stringify(stored)}`];
  }
  if (Array.isArray(applied)) {
    if (!Array.isArray(stored)) return [`${at}: applied an array, stored ${JSON.stringify(stored)}`];
    if (stored.length !== applied.length) {
      return [`${at}: applied ${applied.length} items, stored ${stored.length}`];
    }
    return applied.flatMap((v, i) => notStoredAsApplied(v, stored[i], `${at}[${i}]`));
  }
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) {
    return [`${at || '.'}: applied an object, stored ${JSON.stringify(stored)}`];
  }
  const s = stored as Record<string, unknown>;
  return Object.entries(applied as Record<string, unknown>).flatMap(([k, v]) =>
    k in s ? notStoredAsApplied(v, s[k], `${at}.${k}`) : [`${at}.${k}: not stored (pruned?)`],
  );
}
