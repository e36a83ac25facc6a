// End-to-end: every golden case's bundles applied, the way Argo CD applies them, to real control
// planes (one per cluster of the case), and the leader's admission policies and RBAC proven with
// real ServiceAccount tokens. No mocks: kube-apiserver, kube-controller-manager and etcd from
// test/kube.
//
// Members are prepared as Antrea's member manifest would leave them: the CRDs it installs are
// applied first (from the vendored crds/), since a member bundle relies on them.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import {
  memberIdentityName,
  serviceExportName,
  announceName,
  RESOURCE_EXPORT_FINALIZER,
  serviceImportName,
} from '../../lib/names';
import type { Plan } from '../../lib/plan';
import { usesClusterSetV1Alpha2 } from '../../lib/render/clusterset';
import { RECONCILER_NAME } from '../../lib/render/reconciler';
import { loadYaml } from '../../lib/yaml';
import type { Auth, Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import type { BundleObject } from '../kube/apply';
import { applyBundle, applyObject, notStoredAsApplied, readBack } from '../kube/apply';
import { eventually } from '../kube/wait';
import { ANTREA_MEMBER_CRDS } from './crds';

const ROOT = path.resolve(__dirname, '..', '..');
const CASES = path.join(ROOT, 'test', 'cases');

/** CRDs of External Secrets, which a member must run when the model delivers its token that way. */
const EXTERNAL_SECRETS_CRDS = [
  'external-secrets.io_externalsecrets.yaml',
  'external-secrets.io_secretstores.yaml',
];

/**
 * Prepares a member as Antrea's member manifest would (and External Secrets' chart, when used). Antrea before 1.13 shipped a ClusterSet CRD
 * whose only version was v1alpha1; that CRD is not vendored, so for such targets the vendored one is
 * cut down to its v1alpha1 version (made the storage version), which is what those members read.
 */
async function installAntreaMember(cluster: Cluster, plan: Plan): Promise<void> {
  for (const file of [...ANTREA_MEMBER_CRDS, ...(plan.externalSecrets ? EXTERNAL_SECRETS_CRDS : [])]) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as BundleObject['obj'];
    if (file === 'multicluster.crd.antrea.io_clustersets.yaml' && !usesClusterSetV1Alpha2(plan)) {
      const spec = obj.spec as { versions: { name: string; storage: boolean }[] };
      spec.versions = spec.versions
        .filter((v) => v.name === 'v1alpha1')
        .map((v) => ({ ...v, storage: true }));
    }
    const r = await applyObject(cluster, { file, obj, wave: 0 }, { fieldManager: 'antrea-install' });
    if ('rejection' in r) throw new Error(`installing ${file}: ${r.rejection.message}`);
  }
}

function casePlan(name: string): Plan {
  const r = compile(loadModel(path.join(CASES, name, 'clusterset.ts')));
  if (!r.plan || r.diagnostics.length > 0) throw new Error(`case ${name} does not compile`);
  return r.plan;
}

/** Starts one control plane per cluster of the case and applies every bundle, leader first. */
async function applyCase(
  name: string,
): Promise<{ plan: Plan; clusters: Map<string, Cluster>; problems: string[] }> {
  const plan = casePlan(name);
  const ids = fs.readdirSync(path.join(CASES, name, 'expected', 'clusters')).sort();
  const clusters = await startClusters(ids.map((id) => `${name}-${id}`));
  const byId = new Map(ids.map((id) => [id, clusters.get(`${name}-${id}`) as Cluster]));
  const problems: string[] = [];
  const order = [plan.leader.id, ...ids.filter((id) => id !== plan.leader.id)];
  for (const id of order) {
    const cluster = byId.get(id) as Cluster;
    if (plan.members.some((m) => m.id === id)) await installAntreaMember(cluster, plan);
    const result = await applyBundle(cluster, path.join(CASES, name, 'expected', 'clusters', id));
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

const golden = suite('golden bundles on real API servers');

for (const name of fs.readdirSync(CASES).sort()) {
  golden(
    `GIVEN golden case ${name} WHEN each bundle is applied like Argo CD THEN nothing is rejected or pruned`,
    async () => {
      try {
        const { problems } = await applyCase(name);
        assert.equal(problems, []);
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
    return { plan, leader, ns, tokens, reconcilerToken };
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

/** [verb, group, resource, subresource, allowed] — what the reconciler may and may not do. */
const RECONCILER_MATRIX: [string, string, string, string, boolean][] = [
  ['list', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['watch', 'multicluster.crd.antrea.io', 'resourceexports', '', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceexports', 'status', true],
  ['update', 'multicluster.crd.antrea.io', 'resourceexports', 'finalizers', true],
  ['create', 'multicluster.crd.antrea.io', 'resourceexports', '', false],
  ['delete', 'multicluster.crd.antrea.io', 'resourceexports', '', false],
  ['watch', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', true],
  ['create', 'multicluster.crd.antrea.io', 'memberclusterannounces', '', false],
  ['create', 'multicluster.crd.antrea.io', 'resourceimports', '', true],
  ['delete', 'multicluster.crd.antrea.io', 'resourceimports', '', true],
  ['get', 'multicluster.crd.antrea.io', 'clustersets', '', true],
  ['update', 'multicluster.crd.antrea.io', 'clustersets', '', false],
  ['patch', 'multicluster.crd.antrea.io', 'clustersets', 'status', true],
  ['create', '', 'events', '', true],
  ['update', 'coordination.k8s.io', 'leases', '', true],
  ['get', '', 'secrets', '', false],
  ['list', '', 'secrets', '', false],
  ['list', '', 'configmaps', '', false],
  ['create', '', 'serviceaccounts', '', false],
  ['create', 'rbac.authorization.k8s.io', 'rolebindings', '', false],
];

admission(
  'GIVEN the reconciler token WHEN its rights are reviewed THEN it has exactly what it needs',
  async () => {
    const c = await context();
    const wrong: string[] = [];
    for (const [verb, group, resource, subresource, expected] of RECONCILER_MATRIX) {
      const r = await request(
        as(c, c.reconcilerToken),
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { namespace: c.ns, verb, group, resource, subresource } },
        },
      );
      const allowed = (r.json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed === true;
      if (allowed !== expected)
        wrong.push(
          `${verb} ${group || 'core'}/${resource}${subresource ? `/${subresource}` : ''}: allowed=${allowed}`,
        );
    }
    // Its own config map, by name, and nothing else.
    const own = await request(
      as(c, c.reconcilerToken),
      'GET',
      `/api/v1/namespaces/${c.ns}/configmaps/clusterset-reconciler-config`,
    );
    if (own.status !== 200) wrong.push(`get its config map: ${describe(own)}`);
    assert.equal(wrong, []);
  },
);

admission('cleanup', async () => {
  await stopAll();
});

admission.run();
