/**
 * Reading a snapshot: the objects `clusterset import` looks at, by their Antrea and Kubernetes kinds,
 * and the few fields of each it reads. Pure; every list comes back in one order (namespace, name),
 * whatever order the snapshot holds them in, so nothing downstream depends on the read order.
 */
import type { ClusterSnapshot, LiveObject } from './snapshot';

export const MC_V1ALPHA1 = 'multicluster.crd.antrea.io/v1alpha1';
export const MC_V1ALPHA2 = 'multicluster.crd.antrea.io/v1alpha2';
export const MCS_V1ALPHA1 = 'multicluster.x-k8s.io/v1alpha1';
export const CRD_V1BETA1 = 'crd.antrea.io/v1beta1';

/** Antrea's annotation on what antctl created (antctl mc leave/destroy deletes by it). */
export const CREATED_BY_ANTCTL = 'multicluster.antrea.io/created-by-antctl';
/** The annotation tying a token Secret to its ServiceAccount. */
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SA_TOKEN_TYPE = 'kubernetes.io/service-account-token';
/** The member gateway annotations on Nodes (CTRL/member/node_controller.go). */
export const GATEWAY_ANNOTATION = 'multicluster.antrea.io/gateway';
export const GATEWAY_IP_ANNOTATION = 'multicluster.antrea.io/gateway-ip';
/** The shared member identity of Antrea before 2.7. */
export const PRE_27_MEMBER_SA = 'antrea-mc-member-access-sa';
/** The ConfigMap key of the MultiClusterConfig (leader and member alike). */
export const MC_CONFIG_KEY = 'controller_manager_config.yaml';
/** Antrea's multi-cluster controller Deployment (leader and member alike). */
export const MC_CONTROLLER = 'antrea-mc-controller';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Code-unit order (never locale order, which differs between machines). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function key(o: LiveObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/** The objects of one apiVersion (or any version of a group, `group/*`) and kind, by namespace and name. */
export function list(
  c: ClusterSnapshot | undefined,
  apiVersion: string,
  kind: string,
  namespace?: string,
): LiveObject[] {
  if (!c) return [];
  const group = apiVersion.endsWith('/*') ? apiVersion.slice(0, -1) : undefined;
  return c.objects
    .filter(
      (o) =>
        o.kind === kind &&
        (group ? o.apiVersion.startsWith(group) : o.apiVersion === apiVersion) &&
        (namespace === undefined || o.metadata.namespace === namespace),
    )
    .sort((a, b) => cmp(key(a), key(b)));
}

export function find(
  c: ClusterSnapshot | undefined,
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): LiveObject | undefined {
  return list(c, apiVersion, kind, namespace).find((o) => o.metadata.name === name);
}

export function annotation(o: LiveObject, k: string): string | undefined {
  return o.metadata.annotations?.[k];
}

export function spec(o: LiveObject | undefined): Json {
  return o && isObject(o.spec) ? o.spec : {};
}

/** `ResourceImport antrea-multicluster/x`: how findings name a live object. */
export function ref(o: LiveObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** The image tag of a Deployment's container, e.g. `v2.7.0` of `antrea/antrea-mc-controller:v2.7.0`. */
export function imageOf(d: LiveObject | undefined, container: string): string | undefined {
  const pod = d && isObject(d.spec) && isObject(d.spec.template) ? d.spec.template : undefined;
  const podSpec = pod && isObject(pod.spec) ? pod.spec : undefined;
  const containers = podSpec && Array.isArray(podSpec.containers) ? podSpec.containers : [];
  const c = containers.find((x) => isObject(x) && x.name === container) ?? containers[0];
  return isObject(c) ? str(c.image) : undefined;
}

/** `2.7.0` from an image reference tagged `v2.7.0` (or `2.7.0`); undefined for a digest or `latest`. */
export function versionOfImage(image: string | undefined): string | undefined {
  if (!image) return undefined;
  const noDigest = image.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  if (colon <= slash) return undefined;
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(noDigest.slice(colon + 1));
  return m ? `${m[1]}.${m[2]}.${m[3] ?? '0'}` : undefined;
}

/** `[major, minor, patch]` of `2.7.0`. */
export function versionParts(v: string): [number, number, number] {
  const [a, b, c] = v.split('.').map(Number);
  return [a ?? 0, b ?? 0, c ?? 0];
}

export function compareVersions(a: string, b: string): number {
  const x = versionParts(a);
  const y = versionParts(b);
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The first condition of an object's status (Antrea's leader writes exactly one on exports). */
export function firstCondition(o: LiveObject): Json | undefined {
  const status = isObject(o.status) ? o.status : undefined;
  const cs = status && Array.isArray(status.conditions) ? status.conditions : [];
  return isObject(cs[0]) ? cs[0] : undefined;
}

/** Structural equality of JSON values, key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
    );
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
  }
  return a === b;
}

/** One field where two JSON values differ, spelled `a.b[2].c`. */
export interface FieldDiff {
  readonly path: string;
  readonly live: unknown;
  readonly rendered: unknown;
}

/** Every field where `rendered` differs from `live`, depth first, in key order. */
export function diffJson(live: unknown, rendered: unknown, path: string): FieldDiff[] {
  if (isObject(live) && isObject(rendered)) {
    const keys = [...new Set([...Object.keys(live), ...Object.keys(rendered)])].sort(cmp);
    return keys.flatMap((k) =>
      live[k] === undefined && rendered[k] === undefined
        ? []
        : diffJson(live[k], rendered[k], `${path}.${k}`),
    );
  }
  if (Array.isArray(live) && Array.isArray(rendered) && live.length === rendered.length) {
    return live.flatMap((x, i) => diffJson(x, rendered[i], `${path}[${i}]`));
  }
  return sameJson(live, rendered) ? [] : [{ path, live, rendered }];
}

/** A JSON value for a message, short. */
export function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
