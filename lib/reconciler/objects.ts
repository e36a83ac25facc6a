/**
 * The objects the reconciler reads, cut down to what it uses, so that a leader with tens of thousands
 * of exports stays small in memory. Pure: these functions take the JSON the API server sends.
 */
import { createHash } from 'node:crypto';
import { TOUCH_TS_ANNOTATION } from '../names';

export const MC_GROUP = 'multicluster.crd.antrea.io';
export const MC_VERSION = 'v1alpha1';
export const MC_API_VERSION = `${MC_GROUP}/${MC_VERSION}`;

/** A ResourceExport or ResourceImport condition. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** Fields of metadata every cached object keeps. */
export interface CachedMeta {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly creationTimestamp: string;
  /** Set once the object is being deleted (it still exists because of finalizers). */
  readonly deleting: boolean;
  /** When the deletion was asked for (RFC 3339, the API server's clock), while `deleting`. */
  readonly deletionTimestamp?: string;
  readonly finalizers: readonly string[];
}

/** A ResourceExport: its spec as written (the payloads are read as they are) and first condition. */
export interface CachedExport extends CachedMeta {
  readonly spec: ExportSpec | undefined;
  readonly condition: Condition | undefined;
}

/** ResourceExport.spec, loosely typed: members (or anyone with the right) may write anything. */
export interface ExportSpec {
  readonly clusterID?: unknown;
  readonly name?: unknown;
  readonly namespace?: unknown;
  readonly kind?: unknown;
  readonly service?: { readonly serviceSpec?: { readonly ports?: unknown } } | unknown;
  readonly endpoints?: { readonly subsets?: unknown } | unknown;
  readonly clusterInfo?: unknown;
  readonly labelIdentity?: { readonly normalizedLabel?: unknown } | unknown;
}

/** A ResourceImport: what the reconciler compares, never the whole payload. */
export interface CachedImport extends CachedMeta {
  readonly kind: string | undefined;
  readonly specName: string | undefined;
  readonly specNamespace: string | undefined;
  /** Digest of the canonical JSON of the whole spec (see specDigest). */
  readonly specDigest: string;
  /** LabelIdentity imports: the label and ID. */
  readonly label: string | undefined;
  readonly labelId: number | undefined;
  /**
   * Compiled ServiceImport imports: `status.clusterStatuses` as stored (undefined: no status yet),
   * which the reconciler keeps (desired/service.ts importStatusAction).
   */
  readonly clusterStatuses?: readonly ImportClusterStatus[];
}

/** One entry of ResourceImport `status.clusterStatuses`. */
export interface ImportClusterStatus {
  readonly clusterID: string;
  readonly conditions: readonly Condition[];
}

/** A MemberClusterAnnounce. */
export interface CachedAnnounce extends CachedMeta {
  readonly clusterID: string | undefined;
  readonly touchTs: string | undefined;
  /**
   * When the leader's API server last accepted a write of the announce by anyone but the
   * reconciler (newest `managedFields[].time`), in ms since the epoch; the creation time otherwise.
   */
  readonly lastWriteMs: number;
}

/** The leader ClusterSet. */
export interface CachedClusterSet extends CachedMeta {
  readonly generation: number;
  readonly status: ClusterSetStatus | undefined;
}

export interface ClusterSetStatus {
  readonly observedGeneration?: number;
  readonly totalClusters?: number;
  readonly readyClusters?: number;
  readonly conditions?: readonly Condition[];
  readonly clusterStatuses?: readonly {
    readonly clusterID: string;
    readonly conditions?: readonly Condition[];
  }[];
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function meta(o: Json): CachedMeta {
  const m = isObject(o.metadata) ? o.metadata : {};
  return {
    name: str(m.name) ?? '',
    uid: str(m.uid) ?? '',
    resourceVersion: str(m.resourceVersion) ?? '',
    creationTimestamp: str(m.creationTimestamp) ?? '',
    deleting: typeof m.deletionTimestamp === 'string' && m.deletionTimestamp !== '',
    ...(typeof m.deletionTimestamp === 'string' && m.deletionTimestamp !== ''
      ? { deletionTimestamp: m.deletionTimestamp }
      : {}),
    finalizers: Array.isArray(m.finalizers)
      ? m.finalizers.filter((f): f is string => typeof f === 'string')
      : [],
  };
}

function condition(v: unknown): Condition | undefined {
  if (!isObject(v) || typeof v.type !== 'string' || typeof v.status !== 'string') return undefined;
  return {
    type: v.type,
    status: v.status,
    ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
    ...(typeof v.message === 'string' ? { message: v.message } : {}),
    ...(typeof v.lastTransitionTime === 'string' ? { lastTransitionTime: v.lastTransitionTime } : {}),
  };
}

/**
 * The fields of an export's spec the reconciler reads: where it belongs and the payload of its own
 * kind, cut to what is compared or copied (a Service export carries the whole Service spec, of which
 * only the ports matter).
 */
function trimExportSpec(spec: Json): ExportSpec {
  const out: Record<string, unknown> = {};
  for (const k of ['clusterID', 'name', 'namespace', 'kind'] as const) if (k in spec) out[k] = spec[k];
  const payload = (k: string, cut: (v: Json) => unknown) => {
    if (k in spec) out[k] = isObject(spec[k]) ? cut(spec[k]) : spec[k];
  };
  switch (spec.kind) {
    case 'Service':
      payload('service', (svc) =>
        'serviceSpec' in svc
          ? {
              serviceSpec: isObject(svc.serviceSpec)
                ? 'ports' in svc.serviceSpec
                  ? { ports: svc.serviceSpec.ports }
                  : {}
                : svc.serviceSpec,
            }
          : {},
      );
      break;
    case 'Endpoints':
      payload('endpoints', (ep) => ('subsets' in ep ? { subsets: ep.subsets } : {}));
      break;
    case 'ClusterInfo':
      payload('clusterInfo', (ci) => ci);
      break;
    case 'LabelIdentity':
      payload('labelIdentity', (li) =>
        'normalizedLabel' in li ? { normalizedLabel: li.normalizedLabel } : {},
      );
      break;
  }
  return out as ExportSpec;
}

export function trimExport(o: Json): CachedExport {
  const status = isObject(o.status) ? o.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  return {
    ...meta(o),
    spec: isObject(o.spec) ? trimExportSpec(o.spec) : undefined,
    condition: condition(conditions[0]),
  };
}

export function trimImport(o: Json): CachedImport {
  const spec = isObject(o.spec) ? o.spec : {};
  const li = isObject(spec.labelIdentity) ? spec.labelIdentity : {};
  const status = isObject(o.status) ? o.status : undefined;
  const kind = str(spec.kind);
  return {
    ...meta(o),
    kind,
    specName: str(spec.name),
    specNamespace: str(spec.namespace),
    specDigest: specDigest(o.spec),
    label: str(li.label),
    labelId: typeof li.id === 'number' ? li.id : undefined,
    ...(kind === 'ServiceImport' && status !== undefined
      ? { clusterStatuses: importClusterStatuses(status.clusterStatuses) }
      : {}),
  };
}

function importClusterStatuses(v: unknown): ImportClusterStatus[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((s) =>
    isObject(s) && typeof s.clusterID === 'string'
      ? [
          {
            clusterID: s.clusterID,
            conditions: (Array.isArray(s.conditions) ? s.conditions : []).flatMap((c) => {
              const x = condition(c);
              return x ? [x] : [];
            }),
          },
        ]
      : [],
  );
}

/** Milliseconds of an RFC 3339 time, or undefined when it is not one. */
export function parseTime(s: unknown): number | undefined {
  if (typeof s !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s))
    return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

export function trimAnnounce(o: Json, ownFieldManager: string): CachedAnnounce {
  const m = meta(o);
  const md = isObject(o.metadata) ? o.metadata : {};
  const annotations = isObject(md.annotations) ? md.annotations : {};
  let lastWriteMs = parseTime(m.creationTimestamp) ?? 0;
  if (Array.isArray(md.managedFields)) {
    for (const f of md.managedFields) {
      if (!isObject(f) || f.manager === ownFieldManager) continue;
      const t = parseTime(f.time);
      if (t !== undefined && t > lastWriteMs) lastWriteMs = t;
    }
  }
  return {
    ...m,
    clusterID: str(o.clusterID),
    touchTs: str(annotations[TOUCH_TS_ANNOTATION]),
    lastWriteMs,
  };
}

export function trimClusterSet(o: Json): CachedClusterSet {
  const md = isObject(o.metadata) ? o.metadata : {};
  return {
    ...meta(o),
    generation: typeof md.generation === 'number' ? md.generation : 0,
    status: isObject(o.status) ? (o.status as ClusterSetStatus) : undefined,
  };
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A short digest of a spec's canonical JSON, to compare a desired spec with a stored one. */
export function specDigest(spec: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(spec ?? null))
    .digest('base64url')
    .slice(0, 22);
}
