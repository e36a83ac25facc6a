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

/** The live object `o` names. */
export async function get(auth: Auth, o: Obj): Promise<Obj> {
  const r = await request(auth, 'GET', pathOf(o, md(o).name));
  return expectStatus(`get ${String(o.kind)} ${md(o).name}`, r, 200).json as Obj;
}
