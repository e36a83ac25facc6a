/**
 * Antrea's member controller, the import side, as far as `clusterset status` looks: reads the
 * leader's ResourceImports with the member's own token and writes into the member cluster exactly
 * what test/parties/antrea-member/imports.ts says Antrea writes (Services, ServiceImports with the
 * ClusterIP, Endpoints, imported policies, ClusterInfoImports, LabelIdentities), posts its
 * ACNPImportFailed Events into the leader namespace with that token, and deletes an imported policy
 * whose Tier went away (acnp_resourceimport_controller.go). Also the member's own status writes:
 * ClusterSet status and ServiceExport `Valid`. Run on demand (no watch loop), where the real one
 * reacts to events.
 */
import type { Plan } from '../../../lib/plan';
import { BUILTIN_TIERS } from '../../../lib/names';
import { collectionPath, resource } from '../../../lib/status/resources';
import type { Auth, Cluster } from '../../kube/cluster';
import { request, requestRetrying } from '../../kube/cluster';
import { expectStatus } from '../../kube/objects';
import { IMPORTED_ACNP, memberClusterSetStatus, memberWrites, serviceExportStatus } from './imports';

type Obj = Record<string, unknown>;

const md = (o: Obj) => o.metadata as { name: string; namespace?: string };

function pathOf(o: Obj, name?: string): string {
  const base = collectionPath(resource(String(o.kind)), md(o).namespace);
  return name === undefined ? base : `${base}/${name}`;
}

/** Creates `o`, or updates it in place keeping what the server holds beside (resourceVersion). */
async function upsert(auth: Auth, o: Obj): Promise<Obj> {
  const cur = await request(auth, 'GET', pathOf(o, md(o).name));
  if (cur.status === 404)
    return expectStatus(`create ${o.kind} ${md(o).name}`, await request(auth, 'POST', pathOf(o), o), 201)
      .json as Obj;
  expectStatus(`get ${o.kind} ${md(o).name}`, cur, 200);
  const live = cur.json as Obj;
  const next = { ...live, ...o, metadata: { ...(live.metadata as Obj), ...(o.metadata as Obj) } };
  return expectStatus(
    `update ${o.kind} ${md(o).name}`,
    await request(auth, 'PUT', pathOf(o, md(o).name), next),
    200,
  ).json as Obj;
}

async function items(auth: Auth, path: string): Promise<Obj[]> {
  const r = expectStatus(`list ${path}`, await requestRetrying(auth, 'GET', path), 200);
  return ((r.json as { items?: Obj[] }).items ?? []) as Obj[];
}

/**
 * A ServiceImport of memberWrites() as the member writes it: `ips` the ClusterIP of the Service
 * `antrea-mc-<name>` it wrote first.
 */
export async function withClusterIp(admin: Auth, si: Obj): Promise<Obj> {
  const m = md(si);
  const svc = expectStatus(
    `get Service antrea-mc-${m.name}`,
    await request(admin, 'GET', `/api/v1/namespaces/${m.namespace}/services/antrea-mc-${m.name}`),
    200,
  ).json as { spec: { clusterIP: string } };
  return { ...si, spec: { ...(si.spec as Obj), ips: [svc.spec.clusterIP] } };
}

export interface ImportSync {
  readonly member: string;
  readonly cluster: Cluster;
  /** The member's token in the leader. */
  readonly leaderAuth: Auth;
}

/** One pass of the member's import reconcilers over every ResourceImport of the leader namespace. */
export async function syncImports(plan: Plan, s: ImportSync, now = new Date()): Promise<void> {
  const admin = s.cluster.admin;
  const ris = await items(s.leaderAuth, collectionPath(resource('ResourceImport'), plan.leaderNamespace));
  const tiers = new Set([
    ...BUILTIN_TIERS,
    ...(await items(admin, collectionPath(resource('Tier')))).map((t) => md(t).name),
  ]);
  const namespaces = new Set((await items(admin, '/api/v1/namespaces')).map((n) => md(n).name));
  const w = memberWrites(ris, {
    memberId: s.member,
    leaderNs: plan.leaderNamespace,
    memberNs: plan.memberNamespace,
    tiers,
    namespaces,
    now,
  });
  for (const svc of w.services) await upsert(admin, svc);
  for (const si of w.serviceImports) await upsert(admin, await withClusterIp(admin, si));
  for (const e of w.endpoints) await upsert(admin, e);
  for (const p of w.policies) await upsert(admin, p);
  for (const c of w.clusterInfoImports) await upsert(admin, c);
  for (const l of w.labelIdentities) await upsert(admin, l);
  // A policy imported before whose Tier is gone: deleted, and the Event posted.
  for (const e of w.events) {
    const ri = (e.involvedObject as { name: string }).name;
    const policy = ris.find((r) => md(r).name === ri);
    const name = `antrea-mc-${String((policy?.spec as Obj | undefined)?.name ?? '')}`;
    const del = await request(admin, 'DELETE', `${collectionPath(resource('ClusterNetworkPolicy'))}/${name}`);
    expectStatus(`delete ClusterNetworkPolicy ${name}`, del, 200, 404);
    expectStatus(`post Event ${md(e).name}`, await request(s.leaderAuth, 'POST', pathOf(e), e), 201);
  }
}

/** Every object of a kind in the member cluster, all namespaces. */
async function everywhere(auth: Auth, kind: string): Promise<Obj[]> {
  const r = resource(kind);
  const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  return items(auth, `${base}/${r.plural}`);
}

async function remove(auth: Auth, o: Obj): Promise<void> {
  const m = md(o);
  expectStatus(
    `delete ${String(o.kind)} ${m.name}`,
    await requestRetrying(auth, 'DELETE', pathOf(o, m.name)),
    200,
    202,
    404,
  );
}

/**
 * What Antrea's member controller deletes in its own cluster once its ClusterSet is gone and its
 * announce deleted (cleanUpResources → cleanUpResourcesCreatedByMC, Antrea v2.7): for every
 * ServiceImport, Service `antrea-mc-<name>` and then the ServiceImport; every ClusterNetworkPolicy
 * annotated `multicluster.antrea.io/imported-acnp`; every LabelIdentity; every ClusterInfoImport.
 * NotFound is no error. It deletes no Endpoints: kube-controller-manager's endpoints controller
 * deletes those of a deleted Service.
 */
export async function cleanUpImports(cluster: Cluster): Promise<void> {
  const admin = cluster.admin;
  for (const si of await everywhere(admin, 'ServiceImport')) {
    const m = md(si);
    await remove(admin, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `antrea-mc-${m.name}`, namespace: m.namespace },
    });
    await remove(admin, { ...si, kind: 'ServiceImport' });
  }
  for (const p of await everywhere(admin, 'ClusterNetworkPolicy')) {
    const a = (md(p) as { annotations?: Record<string, string> }).annotations ?? {};
    if (IMPORTED_ACNP in a) await remove(admin, { ...p, kind: 'ClusterNetworkPolicy' });
  }
  for (const l of await everywhere(admin, 'LabelIdentity'))
    await remove(admin, { ...l, kind: 'LabelIdentity' });
  for (const c of await everywhere(admin, 'ClusterInfoImport'))
    await remove(admin, { ...c, kind: 'ClusterInfoImport' });
}

/** The member's 30 s status write on its own ClusterSet (connected to the leader). */
export async function writeClusterSetStatus(plan: Plan, s: ImportSync, connected = true): Promise<void> {
  const p = `${collectionPath(resource('ClusterSet'), plan.memberNamespace)}/${plan.clusterSetId}`;
  const cur = expectStatus('get member ClusterSet', await request(s.cluster.admin, 'GET', p), 200)
    .json as Obj;
  const generation = Number((cur.metadata as Obj).generation ?? 1);
  const next = { ...cur, status: memberClusterSetStatus(plan.leader.id, connected, generation, new Date()) };
  expectStatus(
    'update member ClusterSet status',
    await request(s.cluster.admin, 'PUT', `${p}/status`, next),
    200,
  );
}

/** The member's ServiceExport condition for a Service it exported. */
export async function writeServiceExportValid(s: ImportSync, ns: string, name: string): Promise<void> {
  const p = `${collectionPath(resource('ServiceExport'), ns)}/${name}`;
  const cur = expectStatus(`get ServiceExport ${ns}/${name}`, await request(s.cluster.admin, 'GET', p), 200)
    .json as Obj;
  const next = { ...cur, status: serviceExportStatus(new Date()) };
  expectStatus(
    `update ServiceExport ${ns}/${name} status`,
    await request(s.cluster.admin, 'PUT', `${p}/status`, next),
    200,
  );
}
