/**
 * Requests by object, for test code that writes as some party does (Create and Update with its
 * field manager, as client-go's typed clients do; never an apply): an answer checked against the
 * statuses it may have, an object's REST path from its apiVersion and kind, and create, get and
 * update of a whole object. Used by the played parties (test/parties/) and the worlds that put them
 * together.
 */
import type { Auth, Response } from './http';
import { request } from './http';

type Obj = Record<string, unknown>;

/** The metadata the tests read of an object. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A container's state or last state in a Pod's status. */
export interface ContainerState {
  running?: { startedAt?: string };
  waiting?: { reason?: string; message?: string };
  terminated?: { exitCode: number; signal?: number; reason?: string; message?: string; finishedAt?: string };
}

/** What the tests read of a Pod's status. */
export interface PodStatus {
  phase?: string;
  podIP?: string;
  qosClass?: string;
  conditions?: { type: string; status: string }[];
  containerStatuses?: {
    name: string;
    ready: boolean;
    restartCount: number;
    containerID?: string;
    state?: ContainerState;
    lastState?: ContainerState;
  }[];
}

/** `r` when its status is one of `codes`; otherwise an error naming `what`, the status and the body's start. */
export function expectStatus(what: string, r: Response, ...codes: number[]): Response {
  if (!codes.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 400)}`);
  return r;
}

const md = (o: Obj) => o.metadata as { name: string; namespace?: string; [k: string]: unknown };

function collection(apiVersion: string, plural: string, namespace?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
}

const PLURALS: Record<string, string> = {
  Namespace: 'namespaces',
  ServiceAccount: 'serviceaccounts',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
  Service: 'services',
  Endpoints: 'endpoints',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Deployment: 'deployments',
  CustomResourceDefinition: 'customresourcedefinitions',
  ClusterSet: 'clustersets',
  MemberClusterAnnounce: 'memberclusterannounces',
  ResourceExport: 'resourceexports',
  ResourceImport: 'resourceimports',
  Gateway: 'gateways',
  ClusterInfoImport: 'clusterinfoimports',
  LabelIdentity: 'labelidentities',
  ServiceExport: 'serviceexports',
  ServiceImport: 'serviceimports',
  ClusterNetworkPolicy: 'clusternetworkpolicies',
  Tier: 'tiers',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
};

/** The collection of `o` (by its apiVersion, kind and namespace), or `o` itself when `name` is given. */
export function pathOf(o: Obj, name?: string): string {
  const c = collection(String(o.apiVersion), PLURALS[String(o.kind)]!, md(o).namespace);
  return name === undefined ? c : `${c}/${name}`;
}

/** Creates `o` as `manager` (Create, as Antrea's and antctl's clients do); returns the object. */
export async function create(auth: Auth, o: Obj, manager: string): Promise<Obj> {
  const r = await request(auth, 'POST', `${pathOf(o)}?fieldManager=${manager}`, o);
  return expectStatus(`create ${String(o.kind)} ${md(o).name}`, r, 201).json as Obj;
}

/** Updates `o` (which carries its resourceVersion) as `manager`, or its status. */
export async function update(auth: Auth, o: Obj, manager: string, sub = ''): Promise<Obj> {
  const r = await request(auth, 'PUT', `${pathOf(o, md(o).name)}${sub}?fieldManager=${manager}`, o);
  return expectStatus(`update ${String(o.kind)} ${md(o).name}${sub}`, r, 200).json as Obj;
}

/**
 * Whether the identity of `auth` may do what `resourceAttributes` says (`namespace`, `verb`, `group`,
 * `resource`, `subresource`, `name`): a SelfSubjectAccessReview, as `kubectl auth can-i` sends it.
 */
export async function canI(auth: Auth, resourceAttributes: Record<string, string>): Promise<boolean> {
  const r = await request(auth, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes },
  });
  return (r.json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed === true;
}

/** The live object `o` names. */
export async function get(auth: Auth, o: Obj): Promise<Obj> {
  const r = await request(auth, 'GET', pathOf(o, md(o).name));
  return expectStatus(`get ${String(o.kind)} ${md(o).name}`, r, 200).json as Obj;
}
