// End-to-end: every example's bundles (examples/<name>/out/) applied, the way Argo CD applies them,
// to real control planes (one per cluster of the example), and the leader's admission policies and
// RBAC proven with real ServiceAccount tokens. No mocks: kube-apiserver, kube-controller-manager
// and etcd from test/kube.
//
// Members are prepared as Antrea's member manifest would leave them: the CRDs it installs are
// applied first (from the vendored crds/), and its member controller Deployment (test/e2e/
// parties/antrea-member/install.ts), since a member bundle relies on them.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { explain } from '../../lib/explain';
import { loadModel } from '../../lib/load';
import {
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_RESTART_NAME,
  RECONCILER_CONFIG_NAME,
  RECONCILER_LEASE_NAME,
  RECONCILER_NAME,
  RESOURCE_EXPORT_FINALIZER,
  announceFinalizer,
  announceName,
  clusterInfoName,
  labelIdentityHash,
  memberIdentityName,
  serviceExportName,
  serviceImportName,
} from '../../lib/names';
import { MEMBER_CONFIG_KEY, memberConfigText } from '../../lib/antrea-member-config';
import { serviceNamespacesIn, type Plan } from '../../lib/plan';
import { render } from '../../lib/render';
import { EXPECTED_MEMBER_CONFIG_ANNOTATION } from '../../lib/render/member-restart';
import type { Auth, Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import { canI } from '../kube/objects';
import {
  FIELD_MANAGER,
  applyBundle,
  notStoredAsApplied,
  readBack,
  type KubeObject,
} from '../parties/argocd-apply';
import { eventually } from '../kube/wait';
import { ANTREA_DEFAULT_MEMBER_CONFIG } from '../parties/antrea-manifests';
import {
  ANTREA_INSTALL_MANAGER,
  APPLICATION_TEAM_MANAGER,
  installAntreaMember,
} from '../parties/antrea-member/install';
import { EXAMPLES_DIR, caseNames, caseOut } from '../helpers/golden';

function casePlan(name: string): Plan {
  const r = compile(loadModel(path.join(EXAMPLES_DIR, name, 'clusterset.ts')));
  if (!r.plan || r.diagnostics.length > 0) throw new Error(`case ${name} does not compile`);
  return r.plan;
}

/** Starts one control plane per cluster of the case and applies every bundle, leader first. */
async function applyCase(
  name: string,
): Promise<{ plan: Plan; clusters: Map<string, Cluster>; problems: string[] }> {
  const plan = casePlan(name);
  const ids = fs.readdirSync(path.join(caseOut(name), 'clusters')).sort();
  const clusters = await startClusters(ids.map((id) => `${name}-${id}`));
  const byId = new Map(ids.map((id) => [id, clusters.get(`${name}-${id}`) as Cluster]));
  const problems: string[] = [];
  const order = [plan.leader.id, ...ids.filter((id) => id !== plan.leader.id)];
  for (const id of order) {
    const cluster = byId.get(id) as Cluster;
    if (plan.members.some((m) => m.id === id)) await installAntreaMember(cluster, plan, id);
    const result = await applyBundle(cluster, path.join(caseOut(name), 'clusters', id));
    for (const r of result.rejected)
      problems.push(`${id}: ${r.kind} ${r.namespace ?? ''}/${r.name}: ${r.message}`);
    for (const a of result.applied) {
      const stored = await readBack(cluster, a.obj);
      if (!stored) problems.push(`${id}: ${a.obj.kind} ${a.obj.metadata.name} is gone after apply`);
      else for (const d of notStoredAsApplied(a.obj, stored)) problems.push(`${id}: ${a.file}: ${d}`);
    }
    if (result.applied.length === 0) problems.push(`${id}: nothing was applied`);
  }
  return { plan, clusters: byId, problems };
}

/** Managers of a live object's fields. */
function managers(o: KubeObject | undefined): string[] {
  return ((o?.metadata.managedFields ?? []) as { manager: string }[]).map((m) => m.manager).sort();
}

/**
 * Who owns what the other owners usually hold, in every member: Antrea's member controller ConfigMap
 * and the exported Services' Namespaces are the bundle's only when the model takes them over;
 * otherwise the bundle never touched them, and the restart Job carries the settings Antrea's
 * install must hold, exactly as `clusterset explain` prints them.
 */
async function ownershipProblems(plan: Plan, clusters: Map<string, Cluster>): Promise<string[]> {
  const problems: string[] = [];
  for (const m of plan.members) {
    const cluster = clusters.get(m.id) as Cluster;
    const ns = plan.memberNamespace;
    const cm = await readBack(cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: MEMBER_CONTROLLER_CONFIG, namespace: ns },
    });
    const jobs = await request(
      cluster.admin,
      'GET',
      `/apis/batch/v1/namespaces/${ns}/jobs?labelSelector=app.kubernetes.io%2Fname%3D${MEMBER_RESTART_NAME}`,
    );
    const job = ((jobs.json as { items?: KubeObject[] } | undefined)?.items ?? [])[0];
    if (!job) problems.push(`${m.id}: no restart Job`);
    const expected = job?.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION];
    const data = (cm?.data as Record<string, string> | undefined)?.[MEMBER_CONFIG_KEY];
    const explained = explain(plan, { cluster: m.id }).clusters[0]?.memberControllerConfig?.content;
    if (plan.takeOver.memberControllerConfig) {
      if (data !== memberConfigText(m)) problems.push(`${m.id}: the bundle's ConfigMap is not in place`);
      if (!managers(cm).includes(FIELD_MANAGER)) problems.push(`${m.id}: the ConfigMap is not the bundle's`);
      if (expected !== undefined) problems.push(`${m.id}: an expected-config annotation while we own it`);
    } else {
      if (data !== ANTREA_DEFAULT_MEMBER_CONFIG) problems.push(`${m.id}: the install's ConfigMap changed`);
      if (managers(cm).join() !== ANTREA_INSTALL_MANAGER)
        problems.push(`${m.id}: ConfigMap managers ${managers(cm).join()}, not the install alone`);
      if (expected !== explained || expected !== memberConfigText(m))
        problems.push(`${m.id}: the restart Job's expected config is not what explain prints`);
    }
    for (const name of serviceNamespacesIn(plan, m)) {
      const live = await readBack(cluster, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      const owners = managers(live);
      const want = plan.takeOver.serviceNamespaces ? FIELD_MANAGER : APPLICATION_TEAM_MANAGER;
      if (!owners.includes(want)) problems.push(`${m.id}: Namespace ${name} has managers ${owners.join()}`);
      if (!plan.takeOver.serviceNamespaces && owners.includes(FIELD_MANAGER))
        problems.push(`${m.id}: the bundle applied Namespace ${name}, which the application team owns`);
    }
  }
  return problems;
}

const golden = suite('golden bundles on real API servers');

for (const name of caseNames()) {
  golden(
    `GIVEN example ${name} WHEN each bundle is applied like Argo CD THEN nothing is rejected or pruned, and what another owner holds is left to it unless the model takes it over`,
    async () => {
      try {
        const { plan, clusters, problems } = await applyCase(name);
        assert.equal(problems, []);
        assert.equal(await ownershipProblems(plan, clusters), []);
      } finally {
        await stopAll();
      }
    },
  );
}

golden.run();

// ---------------------------------------------------------------------------------------------------
// Admission and RBAC on the leader, with real tokens.

const admission = suite('leader admission and RBAC');

interface Ctx {
  plan: Plan;
  /** Every cluster of the case, by ID. */
  clusters: Map<string, Cluster>;
  leader: Cluster;
  ns: string;
  /** Member ID → its real token, read from the Secret the controller manager filled. */
  tokens: Map<string, string>;
  reconcilerToken: string;
}

let ctx: Promise<Ctx> | undefined;

function context(): Promise<Ctx> {
  ctx ??= (async () => {
    const { plan, clusters, problems } = await applyCase('minimal');
    if (problems.length > 0) throw new Error(`minimal case did not apply:\n${problems.join('\n')}`);
    const leader = clusters.get(plan.leader.id) as Cluster;
    const ns = plan.leaderNamespace;
    const tokens = new Map<string, string>();
    for (const m of plan.members) {
      const secret = memberIdentityName(m.id);
      const token = await eventually(`token in Secret ${ns}/${secret}`, async () => {
        const r = await request(leader.admin, 'GET', `/api/v1/namespaces/${ns}/secrets/${secret}`);
        const data = (r.json as { data?: Record<string, string> } | undefined)?.data;
        return data?.token ? Buffer.from(data.token, 'base64').toString('utf8') : undefined;
      });
      tokens.set(m.id, token);
    }
    // The reconciler's identity has no long-lived token Secret; ask the API server for one.
    const tr = await request(
      leader.admin,
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/${RECONCILER_NAME}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      },
    );
    const reconcilerToken = (tr.json as { status?: { token?: string } } | undefined)?.status?.token;
    if (!reconcilerToken)
      throw new Error(`TokenRequest for ${RECONCILER_NAME}: HTTP ${tr.status} ${tr.body}`);
    return { plan, clusters, leader, ns, tokens, reconcilerToken };
  })();
  return ctx;
}

function as(c: Ctx, token: string): Auth {
  return { server: c.leader.server, ca: c.leader.caPem, token };
}

function memberToken(c: Ctx, index: number): [string, string] {
  const m = c.plan.members[index];
  if (!m) throw new Error(`no member ${index}`);
  return [m.id, c.tokens.get(m.id) as string];
}

function serviceExport(c: Ctx, clusterId: string, name = 'web'): Record<string, unknown> {
  return {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'ResourceExport',
    metadata: {
      name: serviceExportName(clusterId, 'demo', name, 'service'),
      namespace: c.ns,
      labels: {
        sourceName: name,
        sourceNamespace: 'demo',
        sourceClusterID: clusterId,
        sourceKind: 'Service',
      },
      finalizers: [RESOURCE_EXPORT_FINALIZER],
    },
    spec: {
      clusterID: clusterId,
      name,
      namespace: 'demo',
      kind: 'Service',
      service: { serviceSpec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
    },
  };
}

function announce(c: Ctx, clusterId: string): Record<string, unknown> {
  return {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'MemberClusterAnnounce',
    metadata: { name: announceName(clusterId), namespace: c.ns },
    clusterID: clusterId,
    clusterSetID: c.plan.clusterSetId,
    leaderClusterID: c.plan.leader.id,
  };
}

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

function describe(r: { status: number; body: string }): string {
  return `HTTP ${r.status}: ${r.body.slice(0, 400)}`;
}

admission(
  'GIVEN a member token WHEN it creates and updates its own ResourceExport and announce THEN both are allowed',
  async () => {
    const c = await context();
    const [id, token] = memberToken(c, 0);
    const re = serviceExport(c, id);
    let r = await request(as(c, token), 'POST', `${MC}/${c.ns}/resourceexports`, re);
    assert.is(r.status, 201, describe(r));
    const stored = r.json as { metadata: Record<string, unknown> };
    r = await request(
      as(c, token),
      'PUT',
      `${MC}/${c.ns}/resourceexports/${(re.metadata as { name: string }).name}`,
      {
        ...re,
        metadata: {
          ...(re.metadata as object),
          resourceVersion: stored.metadata.resourceVersion,
          annotations: { touched: 'yes' },
        },
      },
    );
    assert.is(r.status, 200, describe(r));
    r = await request(as(c, token), 'POST', `${MC}/${c.ns}/memberclusterannounces`, announce(c, id));
    assert.is(r.status, 201, describe(r));
    r = await request(
      as(c, token),
      'PATCH',
      `${MC}/${c.ns}/memberclusterannounces/${announceName(id)}`,
      { metadata: { annotations: { 'touch-ts': '2026-12-02T00:00:00Z' } } },
      'application/merge-patch+json',
    );
    assert.is(r.status, 200, describe(r));
  },
);

admission(
  'fails GIVEN a member token WHEN it writes an export or announce for another cluster ID',
  async () => {
    const c = await context();
    const [, token] = memberToken(c, 0);
    const [other] = memberToken(c, 1);
    let r = await request(
      as(c, token),
      'POST',
      `${MC}/${c.ns}/resourceexports`,
      serviceExport(c, other, 'api'),
    );
    assert.is(r.status, 403, describe(r));
    assert.match(r.body, /may only write ResourceExports whose spec.clusterID/);
    r = await request(as(c, token), 'POST', `${MC}/${c.ns}/memberclusterannounces`, announce(c, other));
    assert.is(r.status, 403, describe(r));
    assert.match(r.body, /may only write MemberClusterAnnounce/);
  },
);

admission(
  'fails GIVEN a member token WHEN it writes an export with its own ID under a foreign name',
  async () => {
    const c = await context();
    const [id, token] = memberToken(c, 0);
    const re = serviceExport(c, id, 'misnamed');
    (re.metadata as { name: string }).name = 'someone-else-demo-misnamed-service';
    const r = await request(as(c, token), 'POST', `${MC}/${c.ns}/resourceexports`, re);
    assert.is(r.status, 422, describe(r));
    assert.match(r.body, new RegExp(`named ${serviceExportName(id, 'demo', 'misnamed', 'service')}`));
  },
);

admission(
  'fails GIVEN a member token WHEN it writes a compiled ResourceImport or reads Secrets',
  async () => {
    const c = await context();
    const [, token] = memberToken(c, 0);
    const svc = c.plan.services[0];
    if (!svc) throw new Error('the minimal case declares a Service');
    const riName = serviceImportName(svc.namespace, svc.name);
    let r = await request(as(c, token), 'GET', `${MC}/${c.ns}/resourceimports/${riName}`);
    assert.is(r.status, 200, `members read imports: ${describe(r)}`);
    r = await request(
      as(c, token),
      'PATCH',
      `${MC}/${c.ns}/resourceimports/${riName}`,
      { metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    assert.is(r.status, 403, describe(r));
    r = await request(as(c, token), 'DELETE', `${MC}/${c.ns}/resourceimports/${riName}`);
    assert.is(r.status, 403, describe(r));
    r = await request(as(c, token), 'GET', `/api/v1/namespaces/${c.ns}/secrets`);
    assert.is(r.status, 403, describe(r));
    r = await request(
      as(c, token),
      'GET',
      `/api/v1/namespaces/${c.ns}/secrets/${memberIdentityName(memberToken(c, 1)[0])}`,
    );
    assert.is(r.status, 403, describe(r));
  },
);

admission(
  'GIVEN the reconciler token WHEN it writes dynamic imports THEN allowed, and compiled ones are refused by admission',
  async () => {
    const c = await context();
    const auth = as(c, c.reconcilerToken);
    const endpoints = {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceImport',
      metadata: { name: 'demo-web-endpoints', namespace: c.ns },
      spec: {
        name: 'web',
        namespace: 'demo',
        kind: 'Endpoints',
        endpoints: { subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] },
      },
    };
    let r = await request(auth, 'POST', `${MC}/${c.ns}/resourceimports`, endpoints);
    assert.is(r.status, 201, describe(r));
    r = await request(auth, 'DELETE', `${MC}/${c.ns}/resourceimports/demo-web-endpoints`);
    assert.is(r.status, 200, describe(r));
    const svc = c.plan.services[0];
    if (!svc) throw new Error('the minimal case declares a Service');
    const riName = serviceImportName(svc.namespace, svc.name);
    r = await request(
      auth,
      'PATCH',
      `${MC}/${c.ns}/resourceimports/${riName}`,
      { metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    assert.is(r.status, 403, describe(r));
    assert.match(r.body, /compiled by clusterset/);
    r = await request(auth, 'DELETE', `${MC}/${c.ns}/resourceimports/${riName}`);
    assert.is(r.status, 403, describe(r));
    r = await request(auth, 'POST', `${MC}/${c.ns}/resourceimports`, {
      ...endpoints,
      metadata: { name: 'demo-rogue-service', namespace: c.ns },
      spec: {
        name: 'rogue',
        namespace: 'demo',
        kind: 'ServiceImport',
        serviceImport: { spec: { ports: [{ port: 1, protocol: 'TCP' }], type: 'ClusterSetIP' } },
      },
    });
    assert.is(r.status, 403, describe(r));
  },
);

admission(
  'GIVEN the reconciler token WHEN it writes ClusterInfo and LabelIdentity imports THEN well-formed ones are admitted and misnamed ones refused',
  async () => {
    const c = await context();
    const auth = as(c, c.reconcilerToken);
    const [id] = memberToken(c, 0);
    const ri = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceImport',
      metadata: { name, namespace: c.ns },
      spec,
    });
    const clusterInfo = (name: string) =>
      ri(name, {
        kind: 'ClusterInfo',
        name,
        namespace: c.ns,
        clusterinfo: {
          clusterID: id,
          serviceCIDR: '10.96.0.0/16',
          gatewayInfos: [{ gatewayIP: '192.0.2.1' }],
        },
      });
    const labelIdentity = (name: string, labelId: number) =>
      ri(name, {
        kind: 'LabelIdentity',
        labelIdentity: { label: 'ns:kubernetes.io/metadata.name=demo&pod:', id: labelId },
      });
    const created: string[] = [];
    // Messages are matched on the JSON body, where the API server writes `<` and `>` as \u003c, \u003e.
    const post = async (obj: { metadata: { name: string } }, status: number, body?: RegExp) => {
      const r = await request(auth, 'POST', `${MC}/${c.ns}/resourceimports`, obj);
      assert.is(r.status, status, `${obj.metadata.name}: ${describe(r)}`);
      if (body) assert.match(r.body, body);
      if (r.status === 201) created.push(obj.metadata.name);
    };
    await post(clusterInfo(clusterInfoName(id)), 201);
    await post(clusterInfo(`${id}-info`), 422, /ClusterInfo ResourceImport named .*-clusterinfo/);
    const hash = labelIdentityHash('ns:kubernetes.io/metadata.name=demo&pod:');
    await post(labelIdentity(hash, 1), 201);
    await post(
      labelIdentity(labelIdentityHash('ns:kubernetes.io/metadata.name=demo&pod:app=web'), 0),
      422,
      /LabelIdentity ResourceImport named by 16 hex digits/,
    );
    await post(
      labelIdentity('c5d961e1f6175a5z', 2),
      422,
      /LabelIdentity ResourceImport named by 16 hex digits/,
    );
    await post(
      ri('demo-web-endpoints-x', { kind: 'Endpoints', name: 'web', namespace: 'demo' }),
      422,
      /Endpoints ResourceImport named .*-endpoints/,
    );
    await post(
      ri('demo-web-raw', { kind: 'ExternalEntity', name: 'web', namespace: 'demo' }),
      403,
      /not ExternalEntity/,
    );
    // An update keeps to the same rules: the ID of a label identity stays in range.
    const r = await request(
      auth,
      'PATCH',
      `${MC}/${c.ns}/resourceimports/${hash}`,
      { spec: { labelIdentity: { id: 16777215 } } },
      'application/merge-patch+json',
    );
    assert.is(r.status, 422, describe(r));
    for (const name of created) {
      const d = await request(auth, 'DELETE', `${MC}/${c.ns}/resourceimports/${name}`);
      assert.is(d.status, 200, `delete ${name}: ${describe(d)}`);
    }
  },
);

admission(
  "GIVEN a member's export WHEN the reconciler changes its spec or adds a finalizer THEN refused, and WHEN it sets its status or removes its finalizer THEN allowed",
  async () => {
    const c = await context();
    const [id, token] = memberToken(c, 1);
    const re = serviceExport(c, id, 'rec');
    const name = (re.metadata as { name: string }).name;
    let r = await request(as(c, token), 'POST', `${MC}/${c.ns}/resourceexports`, re);
    assert.is(r.status, 201, describe(r));
    const auth = as(c, c.reconcilerToken);
    const patch = (body: unknown, sub = '') =>
      request(
        auth,
        'PATCH',
        `${MC}/${c.ns}/resourceexports/${name}${sub}`,
        body,
        'application/merge-patch+json',
      );
    r = await patch({ spec: { name: 'other' } });
    assert.is(r.status, 403, describe(r));
    assert.match(
      r.body,
      /may only remove finalizers from ResourceExport .*: its spec and labels belong to the member/,
    );
    r = await patch({ metadata: { labels: { sourceClusterID: 'someone-else' } } });
    assert.is(r.status, 403, describe(r));
    r = await patch({ metadata: { finalizers: [RESOURCE_EXPORT_FINALIZER, 'example.com/extra'] } });
    assert.is(r.status, 403, describe(r));
    assert.match(r.body, /never add one/);
    r = await patch({ status: { conditions: [{ type: 'Succeeded', status: 'True' }] } }, '/status');
    assert.is(r.status, 200, `status is not matched by the policy: ${describe(r)}`);
    r = await patch({ metadata: { finalizers: null } });
    assert.is(r.status, 200, describe(r));
    assert.is((r.json as { metadata: { finalizers?: string[] } }).metadata.finalizers, undefined);
    r = await request(auth, 'DELETE', `${MC}/${c.ns}/resourceexports/${name}`);
    assert.is(r.status, 200, `a silent member's export is deleted: ${describe(r)}`);
  },
);

admission(
  "GIVEN a member's announce WHEN the reconciler adds a foreign finalizer or touches it THEN refused, and its own finalizer THEN allowed",
  async () => {
    const c = await context();
    const [id, token] = memberToken(c, 1);
    let r = await request(as(c, token), 'POST', `${MC}/${c.ns}/memberclusterannounces`, {
      ...announce(c, id),
      metadata: {
        name: announceName(id),
        namespace: c.ns,
        annotations: { 'touch-ts': '2026-12-02T00:00:00Z' },
      },
    });
    assert.is(r.status, 201, describe(r));
    const auth = as(c, c.reconcilerToken);
    const patch = (body: unknown) =>
      request(
        auth,
        'PATCH',
        `${MC}/${c.ns}/memberclusterannounces/${announceName(id)}`,
        body,
        'application/merge-patch+json',
      );
    r = await patch({ metadata: { finalizers: ['example.com/foreign'] } });
    assert.is(r.status, 403, describe(r));
    assert.match(
      r.body,
      new RegExp(`may only add or remove the finalizer ${announceFinalizer(id).replace(/\./g, '\\.')}`),
    );
    r = await patch({ metadata: { annotations: { 'touch-ts': '2000-01-01T00:00:00Z' } } });
    assert.is(r.status, 403, describe(r));
    assert.match(r.body, /its cluster IDs, labels and annotations belong to the member/);
    r = await patch({ metadata: { finalizers: [announceFinalizer(id)] } });
    assert.is(r.status, 200, describe(r));
    assert.equal((r.json as { metadata: { finalizers?: string[] } }).metadata.finalizers, [
      announceFinalizer(id),
    ]);
    r = await patch({ metadata: { finalizers: null } });
    assert.is(r.status, 200, describe(r));
    r = await request(auth, 'POST', `${MC}/${c.ns}/memberclusterannounces`, announce(c, id));
    assert.is(r.status, 403, `the reconciler never creates announces: ${describe(r)}`);
    r = await request(auth, 'DELETE', `${MC}/${c.ns}/memberclusterannounces/${announceName(id)}`);
    assert.is(r.status, 200, `a silent member is retired: ${describe(r)}`);
  },
);

/**
 * [verb, group, resource, subresource, allowed, name?] — what the reconciler may and may not do:
 * exactly the Role's verbs; `update` only on its own Lease, `create` of Leases (its own alone, by the
 * admission policy); no ConfigMaps (its config is mounted), no Events.
 */
const RECONCILER_MATRIX: [string, string, string, string, boolean, string?][] = [
  ['get', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['list', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['watch', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['patch', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['delete', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceexports', '', false],
  ['create', 'multicluster.crd.antrea.io', 'resourceexports', '', false],
  ['patch', 'multicluster.crd.antrea.io', 'resourceexports', 'status', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceexports', 'status', false],
  ['update', 'multicluster.crd.antrea.io', 'resourceexports', 'finalizers', false],
  ['watch', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', true],
  ['patch', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', true],
  ['delete', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', true],
  ['create', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', false],
  ['update', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', false],
  ['update', 'multicluster.crd.antrea.io', 'memberclusterannounces', 'finalizers', false],
  ['create', 'multicluster.crd.antrea.io', 'resourceimports', '', true],
  ['patch', 'multicluster.crd.antrea.io', 'resourceimports', '', true],
  ['delete', 'multicluster.crd.antrea.io', 'resourceimports', '', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceimports', '', false],
  ['patch', 'multicluster.crd.antrea.io', 'resourceimports', 'status', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceimports', 'status', false],
  ['get', 'multicluster.crd.antrea.io', 'clustersets', '', true],
  ['update', 'multicluster.crd.antrea.io', 'clustersets', '', false],
  ['patch', 'multicluster.crd.antrea.io', 'clustersets', 'status', true],
  ['update', 'multicluster.crd.antrea.io', 'clustersets', 'status', false],
  ['create', '', 'events', '', false],
  ['create', 'events.k8s.io', 'events', '', false],
  ['get', 'coordination.k8s.io', 'leases', '', true, RECONCILER_LEASE_NAME],
  ['update', 'coordination.k8s.io', 'leases', '', true, RECONCILER_LEASE_NAME],
  ['update', 'coordination.k8s.io', 'leases', '', false, 'another-lease'],
  // RBAC cannot name the object of a create; the reconciler-writes policy holds it to its own.
  ['create', 'coordination.k8s.io', 'leases', '', true],
  ['delete', 'coordination.k8s.io', 'leases', '', false, RECONCILER_LEASE_NAME],
  ['get', '', 'configmaps', '', false, RECONCILER_CONFIG_NAME],
  ['list', '', 'configmaps', '', false],
  ['get', '', 'secrets', '', false],
  ['list', '', 'secrets', '', false],
  ['create', '', 'serviceaccounts', '', false],
  ['create', 'rbac.authorization.k8s.io', 'rolebindings', '', false],
];

admission(
  'GIVEN the reconciler token WHEN its rights are reviewed THEN it has exactly what it needs',
  async () => {
    const c = await context();
    const wrong: string[] = [];
    for (const [verb, group, resource, subresource, expected, name] of RECONCILER_MATRIX) {
      const allowed = await canI(as(c, c.reconcilerToken), {
        namespace: c.ns,
        verb,
        group,
        resource,
        subresource,
        ...(name ? { name } : {}),
      });
      if (allowed !== expected)
        wrong.push(
          `${verb} ${group || 'core'}/${resource}${subresource ? `/${subresource}` : ''}${name ? ` ${name}` : ''}: allowed=${allowed}`,
        );
    }
    // Not even its own config map: it reads the mounted file.
    const own = await request(
      as(c, c.reconcilerToken),
      'GET',
      `/api/v1/namespaces/${c.ns}/configmaps/${RECONCILER_CONFIG_NAME}`,
    );
    if (own.status !== 403) wrong.push(`get its config map: ${describe(own)}`);
    // No bundle holds the Lease: it may create its own (dry run), and the policy refuses any other.
    const lease = (name: string) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: c.ns },
    });
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${c.ns}/leases?dryRun=All`;
    const mine = await request(as(c, c.reconcilerToken), 'POST', leases, lease(RECONCILER_LEASE_NAME));
    if (mine.status !== 201 && mine.status !== 409) wrong.push(`create its Lease: ${describe(mine)}`);
    const other = await request(as(c, c.reconcilerToken), 'POST', leases, lease('another-lease'));
    if (other.status !== 403 || !other.body.includes('may only create its own Lease'))
      wrong.push(`create another Lease: ${describe(other)}`);
    assert.equal(wrong, []);
  },
);

admission(
  "GIVEN the minimal case applied WHEN each cluster runs the kubectl command explain prints THEN it lists exactly the bundle's objects that carry clusterset's labels",
  async () => {
    const c = await context();
    const report = explain(c.plan);
    const bundles = render(c.plan);
    for (const [id, cluster] of c.clusters) {
      const own = report.clusters.find((x) => x.id === id)!.ownership!;
      const args = own.command.split(' ').slice(1);
      assert.is(args.splice(0, 2).join(' '), `--context <${id}>`);
      const out = execFileSync('kubectl', ['--kubeconfig', cluster.kubeconfigPath, ...args, '-o', 'name'], {
        encoding: 'utf8',
      });
      const listed = out.split('\n').filter(Boolean).sort();
      // What the bundle labels, spelled as `kubectl -o name` spells it: `<kind>.<group>/<name>`.
      const expected = (bundles.get(id) ?? [])
        .filter((o) => o.metadata.labels?.['app.kubernetes.io/part-of'] === c.plan.clusterSetId)
        .map((o) => {
          const group = o.apiVersion.includes('/')
            ? `.${o.apiVersion.slice(0, o.apiVersion.lastIndexOf('/'))}`
            : '';
          return `${o.kind.toLowerCase()}${group}/${o.metadata.name}`;
        })
        .sort();
      assert.equal(listed, expected, id);
      assert.is(listed.length, own.labelled);
      assert.not.ok(
        listed.some((l) => l.startsWith('deployment.apps/antrea-mc-controller')),
        "Antrea's Deployment is not listed",
      );
    }
  },
);

admission('cleanup', async () => {
  await stopAll();
});

admission.run();
