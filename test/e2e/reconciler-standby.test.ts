// End-to-end: the reconciler's warm standby beside Antrea's own leader controller
// (reconciler.waitForAntreaLeader, issue 33), on a real leader API server and controller manager, with
// `clusterset reconcile` run as a process with its own ServiceAccount's token and the bundle's RBAC.
//
// Antrea's leader is stood in for by what the reconciler looks at: Deployment antrea-mc-controller
// as Antrea's leader manifest has it (test/parties/antrea-manifests.ts; its status written by the
// real kube-controller-manager: the leader has no nodes, so its Pod stays Pending, counted in
// status.replicas until a scale to 0 deletes it) and the two leader webhook
// configurations (registered with no webhooks: their existence is what counts, and webhooks failing
// closed would refuse this test's own member writes). Its writes are made with a real token of its
// ServiceAccount, bound to a Role like Antrea's leader Role (antrea-mc.md §e).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { ANTREA_LEADER_DEPLOYMENT, ANTREA_LEADER_WEBHOOKS, serviceExportName } from '../../lib/names';
import { compiledImportsPolicyName } from '../../lib/render/admission';
import { loadYaml } from '../../lib/yaml';
import { cluster, service, type ModelDraft } from '../helpers/models';
import { request, stopAll, type Auth, type Response } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { leaderAuth, setUpClusterSet, simulatedMember, tokenFor, type ClusterSetFixture } from './fixture';
import { expectStatus } from '../kube/objects';
import { antreaControllerDeployment } from '../parties/antrea-manifests';
import type { SimulatedMember } from '../parties/antrea-member/in-leader';
import { metricSum, startReconciler, type ReconcilerProcess } from './reconciler-process';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const NAME = 'standby-1';
const PORTS = [{ name: 'http', port: 80, protocol: 'TCP' as const }];

function model(waitForAntreaLeader: boolean): ModelDraft {
  return {
    clusterSetId: 'standby',
    leader: 'hub',
    members: ['east', 'west'],
    clusters: [cluster('hub', 0), cluster('east', 1), cluster('west', 2)],
    services: [service('demo', 'web', ['east', 'west'], [{ name: 'http', port: 80 }])],
    reconciler: { waitForAntreaLeader, retireMembersAfter: '24h' },
  };
}

interface Ctx {
  f: ClusterSetFixture;
  rec: ReconcilerProcess;
  east: SimulatedMember;
  west: SimulatedMember;
  /** Antrea's leader, with its ServiceAccount's token. */
  antrea: Auth;
}

const ok = (what: string, r: Response): Response => expectStatus(what, r, 200, 201);

async function deployment(c: Ctx): Promise<{ spec: { replicas: number }; status: { replicas?: number } }> {
  const r = ok(
    'get Deployment',
    await request(
      c.f.leader.admin,
      'GET',
      `/apis/apps/v1/namespaces/${c.f.ns}/deployments/${ANTREA_LEADER_DEPLOYMENT}`,
    ),
  );
  return r.json as { spec: { replicas: number }; status: { replicas?: number } };
}

async function scale(c: Ctx, replicas: number): Promise<void> {
  ok(
    `scale ${ANTREA_LEADER_DEPLOYMENT} to ${replicas}`,
    await request(
      c.f.leader.admin,
      'PATCH',
      `/apis/apps/v1/namespaces/${c.f.ns}/deployments/${ANTREA_LEADER_DEPLOYMENT}`,
      { spec: { replicas } },
      'application/merge-patch+json',
    ),
  );
}

async function untilStatusReplicas(c: Ctx, n: number): Promise<void> {
  await eventually(
    `status.replicas of ${ANTREA_LEADER_DEPLOYMENT} is ${n} (kube-controller-manager)`,
    async () => ((await deployment(c)).status.replicas ?? 0) === n || undefined,
    30_000,
  );
}

async function leaseHolder(c: Ctx): Promise<string | undefined> {
  const r = await request(
    c.f.leader.admin,
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${c.f.ns}/leases/clusterset-reconciler`,
  );
  if (r.status === 404) return undefined;
  return (ok('get Lease', r).json as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '';
}

async function getMc(c: Ctx, resource: string, name: string): Promise<Record<string, unknown> | undefined> {
  const r = await request(c.f.leader.admin, 'GET', `${MC}/${c.f.ns}/${resource}/${name}`);
  if (r.status === 404) return undefined;
  return ok(`get ${resource}/${name}`, r).json as Record<string, unknown>;
}

async function importIps(c: Ctx): Promise<string[] | undefined> {
  const ri = await getMc(c, 'resourceimports', 'demo-web-endpoints');
  if (!ri) return undefined;
  const subsets = (ri.spec as { endpoints: { subsets: { addresses: { ip: string }[] }[] } }).endpoints
    .subsets;
  return subsets.flatMap((s) => s.addresses.map((a) => a.ip)).sort();
}

const exportCondition = async (c: Ctx, name: string) =>
  ((await getMc(c, 'resourceexports', name))?.status as { conditions?: { type: string }[] } | undefined)
    ?.conditions?.[0]?.type;

const mergePatch = (auth: Auth, path: string, body: unknown) =>
  request(auth, 'PATCH', path, body, 'application/merge-patch+json');

const denied = (r: Response) => r.status === 403 || r.status === 422;

const standby = suite("reconciler: warm standby beside Antrea's leader, and the cut-over");
let ctx: Promise<Ctx> | undefined;

const context = (): Promise<Ctx> => {
  ctx ??= (async () => {
    const f = await setUpClusterSet(model(true), 'standby');
    const admin = f.leader.admin;
    const ns = f.ns;
    // Antrea's leader: its ServiceAccount, a Role like its own (antrea-mc.md §e), its Deployment.
    ok(
      'SA',
      await request(admin, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: ANTREA_LEADER_DEPLOYMENT, namespace: ns },
      }),
    );
    const mc = 'multicluster.crd.antrea.io';
    ok(
      'Role',
      await request(admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'antrea-mc-controller-role', namespace: ns },
        rules: [
          {
            apiGroups: [mc],
            resources: ['clustersets', 'memberclusterannounces', 'resourceexports', 'resourceimports'],
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          },
          {
            apiGroups: [mc],
            resources: [
              'clustersets/status',
              'memberclusterannounces/status',
              'resourceexports/status',
              'resourceimports/status',
            ],
            verbs: ['get', 'patch', 'update'],
          },
          {
            apiGroups: [mc],
            resources: [
              'clustersets/finalizers',
              'memberclusterannounces/finalizers',
              'resourceexports/finalizers',
              'resourceimports/finalizers',
            ],
            verbs: ['update'],
          },
        ],
      }),
    );
    ok(
      'RoleBinding',
      await request(admin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'antrea-mc-controller-rolebinding', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-controller-role' },
        subjects: [{ kind: 'ServiceAccount', name: ANTREA_LEADER_DEPLOYMENT, namespace: ns }],
      }),
    );
    ok(
      'Deployment',
      await request(
        admin,
        'POST',
        `/apis/apps/v1/namespaces/${ns}/deployments`,
        antreaControllerDeployment(ns, 'leader'),
      ),
    );
    for (const [kind, name] of [
      ['mutatingwebhookconfigurations', ANTREA_LEADER_WEBHOOKS.mutating],
      ['validatingwebhookconfigurations', ANTREA_LEADER_WEBHOOKS.validating],
    ] as const)
      ok(
        name,
        await request(admin, 'POST', `${ADMISSION}/${kind}`, {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind:
            kind === 'mutatingwebhookconfigurations'
              ? 'MutatingWebhookConfiguration'
              : 'ValidatingWebhookConfiguration',
          metadata: {
            name,
            labels: { role: 'leader', 'served-by': 'antrea-mc-controller', 'served-in': ns },
          },
          webhooks: [],
        }),
      );
    const c = {
      f,
      east: simulatedMember(f, 'east'),
      west: simulatedMember(f, 'west'),
      antrea: leaderAuth(f, await tokenFor(f.leader, ns, ANTREA_LEADER_DEPLOYMENT)),
    } as Omit<Ctx, 'rec'>;
    await untilStatusReplicas(c as Ctx, 1);
    await c.east.announce();
    const rec = startReconciler(f, NAME);
    await rec.port;
    return { ...c, rec };
  })();
  return ctx;
};

standby.after(async () => {
  if (ctx) {
    const c = await ctx.catch(() => undefined);
    if (c) assert.is(await c.rec.stop(), 0, 'exits 0 on SIGTERM');
  }
  await stopAll();
});

standby(
  "GIVEN Antrea's leader Deployment running and its webhook configurations WHEN the reconciler starts THEN it is Ready, says it waits and on what, and takes no Lease",
  async () => {
    const c = await context();
    await eventually('Ready', async () => (await c.rec.get('/readyz')).status === 200 || undefined, 30_000);
    const line = await eventually(
      'the standby log line',
      async () => c.rec.logs.find((l) => l.msg.startsWith('standby: waiting for Antrea')),
      10_000,
    );
    assert.is(line.level, 'warn');
    const running = line.running as string[];
    // The real ReplicaSet controller created its Pod before the reconciler started (status.replicas
    // read 1); no node takes it here, and a Pod that may yet be scheduled counts as running.
    const pods = ok('list Pods', await request(c.f.leader.admin, 'GET', `/api/v1/namespaces/${c.f.ns}/pods`))
      .json as { items: { metadata: { name: string } }[] };
    const pod = pods.items
      .map((p) => p.metadata.name)
      .find((n) => n.startsWith(`${ANTREA_LEADER_DEPLOYMENT}-`));
    assert.ok(pod, "the ReplicaSet controller's Pod");
    assert.equal(running, [
      `Deployment ${c.f.ns}/antrea-mc-controller has replicas (spec.replicas 1, status.replicas 1)`,
      `Pod ${c.f.ns}/${pod} (ServiceAccount ${ANTREA_LEADER_DEPLOYMENT}) may still run: Pending, not scheduled yet`,
      `MutatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.mutating} exists`,
      `ValidatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.validating} exists`,
    ]);
    const m = await c.rec.metrics();
    assert.is(m.get('clusterset_reconciler_waiting_for_antrea_leader'), 1);
    assert.is(m.get('clusterset_reconciler_leader'), 0);
    assert.is(await leaseHolder(c), undefined, 'no Lease created');
  },
);

standby(
  "GIVEN the standby WHEN a member exports and Antrea's leader writes THEN the reconciler writes nothing; the policies admit Antrea's leader and still refuse a forged member write and anyone else's compiled-import write",
  async () => {
    const c = await context();
    await c.east.exportService('demo', 'web', { ports: PORTS, clusterIP: '10.101.0.10' });
    const svcExport = serviceExportName('east', 'demo', 'web', 'service');
    // Antrea's leader, as it writes today (its token): the Endpoints import (with what it last knew),
    // the compiled ServiceImport import (updated; deleted, dry run) and its status, export status,
    // export and announce finalizers, the leader ClusterSet's status.
    const ns = c.f.ns;
    const imports = `${MC}/${ns}/resourceimports`;
    ok(
      'Antrea creates an Endpoints import',
      await request(c.antrea, 'POST', imports, {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
        kind: 'ResourceImport',
        metadata: { name: 'demo-web-endpoints', namespace: ns },
        spec: {
          name: 'web',
          namespace: 'demo',
          kind: 'Endpoints',
          endpoints: {
            subsets: [
              { addresses: [{ ip: '10.9.9.9' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
            ],
          },
        },
      }),
    );
    // An Update of the whole object, as Antrea's leader writes (Create/Update, not apply).
    const compiled = await getMc(c, 'resourceimports', 'demo-web-service');
    ok(
      'Antrea updates the compiled ServiceImport import',
      await request(c.antrea, 'PUT', `${imports}/demo-web-service`, compiled),
    );
    ok(
      'Antrea deletes the compiled ServiceImport import (dry run)',
      await request(c.antrea, 'DELETE', `${imports}/demo-web-service?dryRun=All`),
    );
    ok(
      'Antrea writes the import status',
      await mergePatch(c.antrea, `${imports}/demo-web-service/status`, {
        status: {
          clusterStatuses: [
            {
              clusterID: 'east',
              conditions: [{ type: 'Ready', status: 'True', message: 'update is successful' }],
            },
          ],
        },
      }),
    );
    ok(
      'Antrea writes an export status',
      await mergePatch(c.antrea, `${MC}/${ns}/resourceexports/${svcExport}/status`, {
        status: {
          conditions: [
            {
              type: 'Succeeded',
              status: 'True',
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
            },
          ],
        },
      }),
    );
    const exp = await getMc(c, 'resourceexports', svcExport);
    ok(
      'Antrea updates export finalizers',
      await request(c.antrea, 'PUT', `${MC}/${ns}/resourceexports/${svcExport}`, exp),
    );
    ok(
      'Antrea adds its announce finalizer',
      await mergePatch(c.antrea, `${MC}/${ns}/memberclusterannounces/member-announce-from-east`, {
        metadata: { finalizers: ['memberclusterannounce.finalizer.antrea.io/east'] },
      }),
    );
    ok(
      'Antrea writes the ClusterSet status',
      await mergePatch(
        c.antrea,
        `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${ns}/clustersets/${c.f.plan.clusterSetId}/status`,
        { status: { totalClusters: 1, readyClusters: 1 } },
      ),
    );
    // Forged: a member exporting as another; the reconciler writing a compiled import.
    const forged = c.east.serviceExport('demo', 'web', PORTS);
    const r1 = await c.east.req('POST', `${MC}/${ns}/resourceexports`, {
      ...forged,
      metadata: {
        ...forged.metadata,
        name: serviceExportName('west', 'demo', 'web', 'service'),
        labels: { ...forged.metadata.labels, sourceClusterID: 'west' },
      },
      spec: { ...forged.spec, clusterID: 'west' },
    });
    assert.ok(denied(r1), `a forged member write is refused: HTTP ${r1.status} ${r1.body.slice(0, 200)}`);
    const r2 = await mergePatch(
      leaderAuth(c.f, c.f.reconcilerToken),
      `${imports}/demo-web-service?dryRun=All`,
      {
        metadata: { annotations: { forged: 'yes' } },
      },
    );
    assert.ok(
      denied(r2),
      `the exception is Antrea's leader's alone: HTTP ${r2.status} ${r2.body.slice(0, 200)}`,
    );
    assert.match(r2.body, /compiled by clusterset from git/);
    // Meanwhile the reconciler writes nothing and holds no Lease.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await importIps(c), ['10.9.9.9'], "the import as Antrea's leader wrote it");
    const m = await c.rec.metrics();
    assert.is(metricSum(m, 'clusterset_reconciler_writes_total'), 0, 'no write');
    assert.is(await leaseHolder(c), undefined);
    assert.is(m.get('clusterset_reconciler_waiting_for_antrea_leader'), 1);
  },
);

standby(
  "GIVEN the standby WHEN Antrea's leader webhook configurations are deleted and its Deployment scaled to 0 THEN the reconciler leads within seconds and converges",
  async () => {
    const c = await context();
    for (const [kind, name] of [
      ['mutatingwebhookconfigurations', ANTREA_LEADER_WEBHOOKS.mutating],
      ['validatingwebhookconfigurations', ANTREA_LEADER_WEBHOOKS.validating],
    ] as const)
      ok(`delete ${name}`, await request(c.f.leader.admin, 'DELETE', `${ADMISSION}/${kind}/${name}`));
    await new Promise((r) => setTimeout(r, 1000));
    assert.is(await leaseHolder(c), undefined, 'the Deployment still runs: no Lease yet');
    await scale(c, 0);
    await untilStatusReplicas(c, 0);
    const t0 = Date.now();
    await eventually(
      'the reconciler holds the Lease',
      async () => (await leaseHolder(c)) === NAME || undefined,
      10_000,
      50,
    );
    const ms = Date.now() - t0;
    assert.ok(ms < 5000, `led ${ms} ms after Antrea's leader was gone`);
    assert.ok(
      c.rec.logs.some((l) => l.msg === "Antrea's leader controller is gone: this reconciler may lead"),
    );
    await eventually(
      'the Endpoints import converged to east',
      async () => JSON.stringify(await importIps(c)) === JSON.stringify(['10.101.0.10']) || undefined,
      30_000,
    );
    await eventually(
      'east exports Succeeded',
      async () =>
        (await exportCondition(c, serviceExportName('east', 'demo', 'web', 'endpoints'))) === 'Succeeded' ||
        undefined,
      30_000,
    );
    const m = await c.rec.metrics();
    assert.is(m.get('clusterset_reconciler_waiting_for_antrea_leader'), 0);
    assert.is(m.get('clusterset_reconciler_leader'), 1);
    assert.ok(await getMc(c, 'resourceimports', 'demo-web-service'), 'the compiled import is still there');
  },
);

standby(
  "GIVEN the reconciler leading WHEN Antrea's leader Deployment gets a replica again THEN it steps down at once, logs an error naming it, releases the Lease and writes nothing more",
  async () => {
    const c = await context();
    await scale(c, 1);
    const line = await eventually(
      'the error log line',
      async () => c.rec.logs.find((l) => l.level === 'error' && /came back/.test(l.msg)),
      5000,
      50,
    );
    assert.match(
      (line.running as string[]).join('\n'),
      /Deployment .*antrea-mc-controller has replicas \(spec.replicas 1/,
    );
    await eventually('the Lease released', async () => (await leaseHolder(c)) === '' || undefined, 5000, 50);
    const before = metricSum(await c.rec.metrics(), 'clusterset_reconciler_writes_total');
    await c.west.exportService('demo', 'web', { ports: PORTS, clusterIP: '10.102.0.10' });
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await importIps(c), ['10.101.0.10'], 'the new exporter is not merged: nobody writes');
    const m = await c.rec.metrics();
    assert.is(metricSum(m, 'clusterset_reconciler_writes_total'), before, 'no write since stepping down');
    assert.is(m.get('clusterset_reconciler_leader'), 0);
    assert.is(m.get('clusterset_reconciler_waiting_for_antrea_leader'), 1);
    assert.is((await c.rec.get('/readyz')).status, 200, 'still Ready');
    // Gone again: it leads again and merges the new exporter.
    await scale(c, 0);
    await untilStatusReplicas(c, 0);
    await eventually(
      'the Endpoints import merged west',
      async () =>
        JSON.stringify(await importIps(c)) === JSON.stringify(['10.101.0.10', '10.102.0.10']) || undefined,
      15_000,
    );
  },
);

standby(
  "GIVEN the flag set false (the compiled-imports policy the flag-off bundle renders) THEN Antrea's leader may no longer write a compiled import",
  async () => {
    const c = await context();
    const r = compile(model(false));
    const name = compiledImportsPolicyName(r.plan!);
    const file = [...r.files.keys()].find((f) => f.endsWith(`ValidatingAdmissionPolicy.${name}.yaml`));
    assert.ok(file, 'the flag-off bundle renders the policy');
    const policy = loadYaml(r.files.get(file!)!) as Record<string, unknown>;
    // Replaced whole, as a sync with prune replaces it (an apply under another manager would keep
    // the list entry the bundle's manager owns).
    const path = `${ADMISSION}/validatingadmissionpolicies/${name}`;
    const live = ok('get the policy', await request(c.f.leader.admin, 'GET', path)).json as {
      metadata: Record<string, unknown>;
    };
    ok(
      'replace the policy with the flag-off one',
      await request(c.f.leader.admin, 'PUT', path, { ...policy, metadata: { ...live.metadata } }),
    );
    const refused = await eventually(
      "Antrea's leader refused",
      async () => {
        const x = await mergePatch(c.antrea, `${MC}/${c.f.ns}/resourceimports/demo-web-service?dryRun=All`, {
          metadata: { annotations: { late: 'write' } },
        });
        return denied(x) ? x : undefined;
      },
      15_000,
    );
    assert.match(refused.body, /compiled by clusterset from git/);
  },
);

standby.run();
