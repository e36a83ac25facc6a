// The flows of antrea-mc.md §h, on real control planes, with the member side played by writing exactly what
// Antrea's member controller writes (parties/antrea-member/in-leader.ts), from real Services in real member
// control planes. One suite, two ways to run the reconciler: as `clusterset reconcile` with its own
// ServiceAccount's token (reconciler.test.ts), and as the leader bundle's Deployment, from the built image,
// on a real node with in-cluster credentials (in-cluster.test.ts).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  announceName,
  clusterInfoName,
  labelIdentityExportName,
  labelIdentityHash,
  serviceExportName,
} from '../../lib/names';
import { cluster, service, type ModelDraft } from '../helpers/models';
import type { Cluster } from '../kube/cluster';
import { request, stopAll } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { simulatedMember, type ClusterSetFixture, type FixtureOptions } from './fixture';
import type { SimulatedMember } from '../parties/antrea-member/in-leader';
import { metricSum, type LogLine } from './reconciler-process';

/** A running reconciler, however it runs: a process, or the Pods of the leader's Deployment. */
export interface RunningReconciler {
  /** Its JSON log lines so far (of every replica), appended as they come. */
  readonly logs: LogLine[];
  /** GET on its health and metrics port (the Lease holder's, where there are replicas). */
  get(path: string): Promise<{ status: number; body: string }>;
  /** Parsed /metrics of the Lease holder: `name{labels}` → value. */
  metrics(): Promise<Map<string, number>>;
  /** SIGTERM (every replica); resolves with the exit code once it has stopped. */
  stop(): Promise<number | string>;
}

export interface ReconcilerDriver {
  /** Compiles the model and brings up its control planes, as setUpClusterSet does. */
  setUp(model: ModelDraft, prefix: string, opts: FixtureOptions): Promise<ClusterSetFixture>;
  /** Starts a reconciler; resolves once it serves health and metrics. */
  start(f: ClusterSetFixture, name: string): Promise<RunningReconciler>;
}

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

function model(): ModelDraft {
  return {
    clusterSetId: 'flows',
    leader: 'hub',
    members: ['east', 'west', 'north'],
    clusters: [cluster('hub', 0), cluster('east', 1), cluster('west', 2), cluster('north', 3)],
    services: [
      service('demo', 'web', ['east', 'west', 'north'], [{ name: 'http', port: 80 }]),
      service('demo', 'api', ['east'], [{ name: 'grpc', port: 9090 }]),
    ],
  };
}

interface Ctx {
  f: ClusterSetFixture;
  rec: RunningReconciler;
  east: SimulatedMember;
  west: SimulatedMember;
  north: SimulatedMember;
  /** ClusterIP of each member's demo/<svc> in its own control plane. */
  ips: Map<string, string>;
}

async function createService(c: Cluster, name: string, port: number, portName: string): Promise<string> {
  const r = await request(c.admin, 'POST', '/api/v1/namespaces/demo/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'demo' },
    spec: { selector: { app: name }, ports: [{ name: portName, port, targetPort: 8080 }] },
  });
  if (r.status !== 201) throw new Error(`Service demo/${name} in ${c.name}: HTTP ${r.status} ${r.body}`);
  return (r.json as { spec: { clusterIP: string } }).spec.clusterIP;
}

async function get(c: Ctx, resource: string, name: string): Promise<Record<string, unknown> | undefined> {
  const r = await request(c.f.leader.admin, 'GET', `${MC}/${c.f.ns}/${resource}/${name}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${resource}/${name}: HTTP ${r.status} ${r.body}`);
  return r.json as Record<string, unknown>;
}

/** The IPs an Endpoints import carries, sorted; undefined when there is no import. */
async function importIps(c: Ctx, svc: string): Promise<string[] | undefined> {
  const ri = await get(c, 'resourceimports', `demo-${svc}-endpoints`);
  if (!ri) return undefined;
  const subsets = (ri.spec as { endpoints: { subsets: { addresses: { ip: string }[] }[] } }).endpoints
    .subsets;
  return subsets.flatMap((s) => s.addresses.map((a) => a.ip)).sort();
}

async function untilIps(c: Ctx, svc: string, want: string[] | undefined): Promise<void> {
  const sorted = want && [...want].sort();
  await eventually(
    `demo-${svc}-endpoints holds ${JSON.stringify(sorted)}`,
    async () => {
      const have = await importIps(c, svc);
      return JSON.stringify(have) === JSON.stringify(sorted) ? true : undefined;
    },
    30_000,
  );
}

type Cond = { type: string; status: string; reason?: string; message?: string };

async function untilCondition(c: Ctx, name: string, type: string, message?: RegExp): Promise<Cond> {
  return eventually(
    `export ${name} has condition ${type}`,
    async () => {
      const re = await get(c, 'resourceexports', name);
      const cond = (re?.status as { conditions?: Cond[] } | undefined)?.conditions?.[0];
      return cond && cond.type === type && (!message || message.test(cond.message ?? '')) ? cond : undefined;
    },
    30_000,
  );
}

async function untilGone(c: Ctx, resource: string, name: string, timeoutMs = 30_000): Promise<number> {
  const t0 = Date.now();
  await eventually(
    `${resource}/${name} is gone`,
    async () => ((await get(c, resource, name)) ? undefined : true),
    timeoutMs,
  );
  return Date.now() - t0;
}

const REFUSED = 'clusterset_reconciler_refused_exports_total';

const L = (app: string) => `ns:kubernetes.io/metadata.name=demo&pod:app=${app}`;

async function labelIds(c: Ctx, labels: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const l of labels) {
    const ri = await eventually(
      `label import of ${l}`,
      () => get(c, 'resourceimports', labelIdentityHash(l)),
      30_000,
    );
    const spec = ri.spec as { kind: string; labelIdentity: { label: string; id: number } };
    assert.is(spec.kind, 'LabelIdentity');
    assert.is(spec.labelIdentity.label, l);
    out.set(l, spec.labelIdentity.id);
  }
  return out;
}

/** Registers the flows as one uvu suite, run with the given reconciler driver. */
export function flowsSuite(title: string, prefix: string, driver: ReconcilerDriver): void {
  const flows = suite(title);
  let ctx: Promise<Ctx> | undefined;
  const context = (): Promise<Ctx> => {
    ctx ??= (async () => {
      const f = await driver.setUp(model(), prefix, { memberClusters: ['east', 'west'] });
      const member = (id: string) => simulatedMember(f, id);
      const [east, west, north] = [member('east'), member('west'), member('north')];
      const ips = new Map<string, string>();
      for (const m of [east, west]) {
        ips.set(`${m.id}/web`, await createService(m.cluster!, 'web', 80, 'http'));
        ips.set(`${m.id}/api`, await createService(m.cluster!, 'api', 9090, 'grpc'));
      }
      for (const m of [east, west]) {
        await m.announce();
        m.startAnnouncing(5000);
      }
      const rec = await driver.start(f, `${prefix}-1`);
      return { f, rec, east, west, north, ips };
    })();
    return ctx;
  };

  flows(
    'GIVEN the first live exporter WHEN it exports THEN the Endpoints import carries its ClusterIP and both exports succeed',
    async () => {
      const c = await context();
      await c.east.exportService('demo', 'web');
      await untilIps(c, 'web', [c.ips.get('east/web')!]);
      const cond = await untilCondition(c, serviceExportName('east', 'demo', 'web', 'service'), 'Succeeded');
      assert.is(cond.status, 'True');
      await untilCondition(c, serviceExportName('east', 'demo', 'web', 'endpoints'), 'Succeeded');
      const ri = await get(c, 'resourceimports', 'demo-web-endpoints');
      assert.equal((ri!.spec as { name: string; namespace: string; kind: string }).kind, 'Endpoints');
      assert.equal(Object.keys(ri!.spec as object).sort(), ['endpoints', 'kind', 'name', 'namespace']);
      const md = ri!.metadata as { labels?: unknown; ownerReferences?: unknown };
      assert.is(md.labels, undefined, 'no labels on imports (as Antrea)');
      assert.is(md.ownerReferences, undefined);
    },
  );

  flows(
    'GIVEN a second exporter WHEN it exports THEN its endpoints are merged into the same import',
    async () => {
      const c = await context();
      await c.west.exportService('demo', 'web');
      await untilIps(c, 'web', [c.ips.get('east/web')!, c.ips.get('west/web')!]);
    },
  );

  flows(
    'fails GIVEN an exporter whose Service ports differ from the model THEN Failure with the ports, its endpoints stay out, and a fix is taken up',
    async () => {
      const c = await context();
      const northIp = '10.250.0.1';
      await c.north.exportService('demo', 'web', {
        ports: [{ name: 'http', port: 81, protocol: 'TCP', targetPort: 8080 }],
        clusterIP: northIp,
      });
      const cond = await untilCondition(c, serviceExportName('north', 'demo', 'web', 'service'), 'Failure');
      assert.is(cond.reason, 'ConvergeFailure');
      assert.match(
        cond.message!,
        /^ResourceExport can't be converged to ResourceImport: ports \[81\/TCP http\] differ from the model's \[80\/TCP http\]/,
      );
      await untilCondition(c, serviceExportName('north', 'demo', 'web', 'endpoints'), 'Failure', /refused/);
      assert.equal(await importIps(c, 'web'), [c.ips.get('east/web')!, c.ips.get('west/web')!].sort());
      await c.north.exportService('demo', 'web', {
        ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }],
        clusterIP: northIp,
      });
      await untilCondition(c, serviceExportName('north', 'demo', 'web', 'service'), 'Succeeded');
      await untilIps(c, 'web', [c.ips.get('east/web')!, c.ips.get('west/web')!, northIp]);
    },
  );

  flows(
    'fails GIVEN a member not listed in exportedFrom WHEN it exports THEN Failure with the reason, and only listed exporters flow',
    async () => {
      const c = await context();
      await c.west.exportService('demo', 'api');
      await c.east.exportService('demo', 'api');
      const cond = await untilCondition(c, serviceExportName('west', 'demo', 'api', 'service'), 'Failure');
      assert.match(cond.message!, /cluster west is not listed in exportedFrom of Service demo\/api \(east\)/);
      await untilCondition(c, serviceExportName('west', 'demo', 'api', 'endpoints'), 'Failure');
      await untilIps(c, 'api', [c.ips.get('east/api')!]);
    },
  );

  flows(
    "GIVEN exporters withdraw as Antrea's member does (the Service export, then 20-40 ms later the Endpoints export) THEN finalizers are released promptly, subsets shrink, the last one deletes the import, and no export is refused",
    async () => {
      const c = await context();
      const refusedBefore = metricSum(await c.rec.metrics(), REFUSED);
      const logsBefore = c.rec.logs.length;
      await c.west.withdrawService('demo', 'web');
      const ms = await untilGone(c, 'resourceexports', serviceExportName('west', 'demo', 'web', 'endpoints'));
      await untilGone(c, 'resourceexports', serviceExportName('west', 'demo', 'web', 'service'));
      assert.ok(ms < 5000, `finalizer released in ${ms} ms`);
      await untilIps(c, 'web', [c.ips.get('east/web')!, '10.250.0.1']);
      await c.east.withdrawService('demo', 'web');
      await c.north.withdrawService('demo', 'web');
      await untilIps(c, 'web', undefined);
      for (const id of ['east', 'north'])
        for (const kind of ['service', 'endpoints'] as const)
          await untilGone(c, 'resourceexports', serviceExportName(id, 'demo', 'web', kind));
      const refusals = c.rec.logs.slice(logsBefore).filter((l) => l.msg === 'export refused');
      assert.equal(refusals, [], 'an ordinary withdrawal logs no refusal');
      assert.is(metricSum(await c.rec.metrics(), REFUSED), refusedBefore, 'and counts none');
    },
  );

  flows(
    'GIVEN ClusterInfo exports WHEN one names its own cluster and one another cluster THEN the first is imported, and the spoof is denied to the member and, written by an admin, refused by the reconciler',
    async () => {
      const c = await context();
      const info = {
        clusterID: 'east',
        serviceCIDR: '10.96.0.0/16',
        podCIDRs: ['10.244.0.0/16'],
        gatewayInfos: [{ gatewayIP: '192.0.2.10' }],
      };
      await c.east.upsertExport(c.east.clusterInfoExport(info));
      const ri = await eventually(
        'import east-clusterinfo',
        () => get(c, 'resourceimports', clusterInfoName('east')),
        30_000,
      );
      assert.equal(ri.spec, {
        kind: 'ClusterInfo',
        name: 'east-clusterinfo',
        namespace: c.f.ns,
        clusterinfo: info,
      });
      // West's own token cannot write it: admission refuses it in Antrea's words.
      const spoof = c.west.clusterInfoExport({ ...info, gatewayInfos: [{ gatewayIP: '198.51.100.66' }] });
      const denied = await c.west.req('POST', `${MC}/${c.f.ns}/resourceexports`, spoof);
      assert.is(denied.status, 403, `HTTP ${denied.status}: ${denied.body.slice(0, 400)}`);
      assert.match(
        (denied.json as { message: string }).message,
        'Member cluster is not authorized to spoof ClusterInfo.ClusterID',
      );
      // Written past admission (as an admin), the reconciler must still refuse it on its own.
      const written = await request(c.f.leader.admin, 'POST', `${MC}/${c.f.ns}/resourceexports`, spoof);
      assert.is(written.status, 201, `HTTP ${written.status}: ${written.body.slice(0, 400)}`);
      const cond = await untilCondition(c, clusterInfoName('west'), 'Failure');
      assert.match(cond.message!, /clusterInfo.clusterID is "east", but the export is from cluster west/);
      assert.is(await get(c, 'resourceimports', clusterInfoName('west')), undefined);
      const still = await get(c, 'resourceimports', clusterInfoName('east'));
      assert.equal(still!.spec, ri.spec, 'the spoof did not touch the real import');
    },
  );

  flows(
    'GIVEN label identities from two members WHEN the reconciler restarts and labels come and go THEN IDs are unique, stable, in range, and a freed ID is not reused',
    async () => {
      const c = await context();
      await c.east.exportLabel(L('a'));
      await c.east.exportLabel(L('b'));
      await c.west.exportLabel(L('a'));
      await c.west.exportLabel(L('c'));
      const before = await labelIds(c, [L('a'), L('b'), L('c')]);
      const ids = [...before.values()];
      assert.is(new Set(ids).size, 3, 'unique');
      for (const id of ids) assert.ok(id >= 1 && id <= 16777214);

      assert.is(await c.rec.stop(), 0, 'exits 0 on SIGTERM');
      c.rec = await driver.start(c.f, `${prefix}-2`);
      await c.east.exportLabel(L('d'));
      const after = await labelIds(c, [L('a'), L('b'), L('c'), L('d')]);
      for (const [l, id] of before) assert.is(after.get(l), id, `ID of ${l} kept across the restart`);

      await c.east.withdrawLabel(L('b'));
      await untilGone(c, 'resourceimports', labelIdentityHash(L('b')));
      await c.west.withdrawLabel(L('a'));
      assert.ok(
        await get(c, 'resourceimports', labelIdentityHash(L('a'))),
        'a label another member still has stays',
      );
      await c.west.exportLabel(L('e'));
      const e = (await labelIds(c, [L('e')])).get(L('e'))!;
      assert.not.ok([...after.values()].includes(e), `the new label got ${e}, not a freed or used ID`);
    },
  );

  flows(
    "fails GIVEN a member's malformed label export beside its good one THEN the malformed one is refused with a status and a log line, gets no import, and every other label import stays as it was",
    async () => {
      const c = await context();
      const held = [L('a'), L('c'), L('d'), L('e')];
      const before = await labelIds(c, held);
      const refusedBefore = metricSum(await c.rec.metrics(), REFUSED);
      const logsBefore = c.rec.logs.length;
      // Two '&pod:': Antrea's leader would relay it and antrea-controller in every member misreads or
      // panics on it (antrea-io/antrea#8385). Admission lets it through (its name is the member's).
      const bad = `${L('f')}&pod:app=g`;
      const name = labelIdentityExportName('west', labelIdentityHash(bad));
      await Promise.all([c.west.exportLabel(bad), c.west.exportLabel(L('g'))]);
      const cond = await untilCondition(c, name, 'Failure', /it has "&pod:" more than once$/);
      assert.is(cond.reason, 'ConvergeFailure');
      assert.match(cond.message!, /normalizedLabel is not a label as Antrea's member writes it/);
      assert.is(await get(c, 'resourceimports', labelIdentityHash(bad)), undefined, 'no import');
      const after = await labelIds(c, [...held, L('g')]);
      for (const [l, id] of before) assert.is(after.get(l), id, `${l} keeps its ID`);
      assert.not.ok([...before.values()].includes(after.get(L('g'))!), 'the good label got an ID of its own');
      const good = await get(
        c,
        'resourceexports',
        labelIdentityExportName('west', labelIdentityHash(L('g'))),
      );
      assert.is(good!.status, undefined, 'an accepted label export gets no status (as Antrea)');
      await eventually(
        'an "export refused" log line',
        async () =>
          c.rec.logs.slice(logsBefore).some((l) => l.msg === 'export refused' && l.export === name) ||
          undefined,
        30_000,
      );
      assert.ok(metricSum(await c.rec.metrics(), REFUSED) > refusedBefore, 'counted as a refusal');
      assert.is(await get(c, 'resourceimports', labelIdentityHash(bad)), undefined, 'still no import');
      await c.west.withdrawLabel(bad);
      await untilGone(c, 'resourceexports', name);
    },
  );

  flows(
    'GIVEN a member silent for longer than the retirement time THEN its announce and exports are deleted and its endpoints withdrawn',
    async () => {
      const c = await context();
      const ip = '10.250.0.2';
      await c.north.announce();
      await c.north.exportService('demo', 'web', {
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
        clusterIP: ip,
      });
      await untilIps(c, 'web', [ip]);
      const a = await eventually('finalizer on north announce', async () => {
        const x = await get(c, 'memberclusterannounces', announceName('north'));
        const fin = (x?.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? [];
        return fin.includes('memberclusterannounce.finalizer.antrea.io/north') ? x : undefined;
      });
      assert.ok(a);
      // The last refresh the member made was 25 h ago: past Antrea's (and the default) 24 h.
      await c.north.announce(new Date(Date.now() - 25 * 3600_000));
      await untilGone(c, 'memberclusterannounces', announceName('north'));
      // The announce goes only once every export of the member is gone (no finalizer left behind).
      for (const kind of ['service', 'endpoints'] as const)
        assert.is(
          await get(c, 'resourceexports', serviceExportName('north', 'demo', 'web', kind)),
          undefined,
          `north's ${kind} export gone before its announce`,
        );
      await untilIps(c, 'web', undefined);
      assert.ok(
        c.rec.logs.some((l) => l.msg === 'silent member retired' && l.announce === announceName('north')),
      );
    },
  );

  flows(
    "GIVEN members refreshing their announces THEN the leader ClusterSet reports them ready, as Antrea's leader does",
    async () => {
      const c = await context();
      const status = await eventually('ClusterSet status with 2 ready members', async () => {
        const cs = await get(c, 'clustersets', c.f.plan.clusterSetId);
        const s = cs?.status as { readyClusters?: number; totalClusters?: number } | undefined;
        return s?.totalClusters === 2 && s.readyClusters === 2
          ? (cs!.status as Record<string, unknown>)
          : undefined;
      });
      const statuses = status.clusterStatuses as { clusterID: string; conditions: Cond[] }[];
      assert.equal(
        statuses.map((s) => s.clusterID),
        ['east', 'west'],
      );
      for (const s of statuses)
        assert.equal(
          {
            type: s.conditions[0]!.type,
            status: s.conditions[0]!.status,
            reason: s.conditions[0]!.reason,
            message: s.conditions[0]!.message,
          },
          { type: 'Ready', status: 'True', reason: 'Connected', message: 'Member Connected' },
        );
      assert.equal(
        (status.conditions as Cond[]).map((x) => [x.type, x.status]),
        [['Ready', 'True']],
      );
      // The status write went through v1alpha2: a v1alpha1 write would have pruned spec.clusterID
      // (no conversion webhook), and Argo CD would see the leader ClusterSet drift.
      const v2 = await request(
        c.f.leader.admin,
        'GET',
        `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${c.f.ns}/clustersets/${c.f.plan.clusterSetId}`,
      );
      assert.is((v2.json as { spec?: { clusterID?: string } }).spec?.clusterID, c.f.plan.leader.id);
    },
  );

  flows('GIVEN the running reconciler THEN health, readiness and Prometheus metrics are served', async () => {
    const c = await context();
    assert.equal(await c.rec.get('/healthz'), { status: 200, body: 'ok\n' });
    assert.equal(await c.rec.get('/readyz'), { status: 200, body: 'ok\n' });
    const m = await c.rec.metrics();
    assert.is(m.get('clusterset_reconciler_leader'), 1);
    assert.ok(m.has('clusterset_reconciler_queue_depth'));
    assert.ok((m.get('clusterset_reconciler_imports{kind="LabelIdentity"}') ?? 0) >= 3);
    assert.is(m.get('clusterset_reconciler_imports{kind="ServiceImport"}'), 2);
    assert.ok((m.get('clusterset_reconciler_reconcile_duration_seconds_count{key="label"}') ?? 0) > 0);
    assert.ok(
      c.rec.logs.every((l) => typeof l.time === 'string' && typeof l.level === 'string'),
      'JSON logs',
    );
  });

  flows('cleanup', async () => {
    const c = await ctx;
    c?.east.stopAnnouncing();
    c?.west.stopAnnouncing();
    if (c) assert.is(await c.rec.stop(), 0);
    await stopAll();
  });

  flows.run();
}
