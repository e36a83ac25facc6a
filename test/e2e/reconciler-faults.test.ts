// End-to-end faults: the reconciler killed mid-stream, the leader's kube-apiserver restarted, a watch forced
// past its expiry (410) by etcd compaction, two replicas, malformed exports. Members write as Antrea's member
// does (parties/antrea-member/in-leader.ts) while the faults happen; after each, the leader must hold exactly
// what an undisturbed run would (computed from what the members wrote), with no finalizer left behind and no
// label identity ID changed.
//
// The leader runs with --watch-cache=false, so that watches are served from etcd and compacting etcd
// expires them for real.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RESOURCE_EXPORT_FINALIZER, announceFinalizer, announceName } from '../../lib/names';
import { cluster, service, type ModelDraft } from '../helpers/models';
import { request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import { setUpClusterSet, type ClusterSetFixture } from './fixture';
import { SimulatedMember } from '../parties/antrea-member/in-leader';
import { metricSum, startReconciler, type ReconcilerProcess } from './reconciler-process';
import { assertSameIds, PORTS, Workload } from './workload';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';
const SERVICES = 30;
/** Services the random writes use; the rest are kept for the malformed-export case. */
const STREAMED = 25;
const MEMBERS = ['m1', 'm2', 'm3'];
/** Short Lease timings so that fail-over fits in a test. */
const FAST = ['--lease-duration', '4', '--renew-deadline', '3', '--retry-period', '1'];

function model(): ModelDraft {
  return {
    clusterSetId: 'faults',
    leader: 'hub',
    members: MEMBERS,
    clusters: [cluster('hub', 0), ...MEMBERS.map((m, i) => cluster(m, i + 1))],
    services: Array.from({ length: SERVICES }, (_, i) =>
      service('app', `svc-${i}`, MEMBERS, [{ name: 'http', port: 80 }]),
    ),
  };
}

interface Ctx {
  f: ClusterSetFixture;
  members: SimulatedMember[];
  w: Workload;
  recs: ReconcilerProcess[];
}

let ctx: Promise<Ctx> | undefined;

function context(): Promise<Ctx> {
  ctx ??= (async () => {
    const f = await setUpClusterSet(model(), 'faults', { leaderApiserverArgs: ['--watch-cache=false'] });
    const members = MEMBERS.map(
      (id) =>
        new SimulatedMember(id, f.leader, f.tokens.get(id)!, f.ns, f.plan.clusterSetId, f.plan.leader.id),
    );
    for (const m of members) await m.announce();
    const w = new Workload(f, members, { services: SERVICES, streamed: STREAMED, seed: 20261202 });
    return { f, members, w, recs: [] };
  })();
  return ctx;
}

async function untilLeader(r: ReconcilerProcess, timeoutMs = 30_000): Promise<void> {
  await eventually(
    `${r.name} leads`,
    async () => ((await r.metrics()).get('clusterset_reconciler_leader') === 1 ? true : undefined),
    timeoutMs,
  );
}

function writes(m: Map<string, number>): number {
  return metricSum(m, 'clusterset_reconciler_writes_total');
}

/** The malformed exports of the malformed-exports case, refused in their status for good. */
const REFUSED = [
  'm1-junk',
  'mars-app-svc-25-service',
  'm1-app-svc-26-service',
  'm1-app-svc-27-endpoints',
  'm2-app-svc-28-endpoints',
];

async function differencesBesidesRefused(c: Ctx): Promise<string[]> {
  return (await c.w.differences()).filter((d) => !REFUSED.some((n) => d === `${n}: status Failure`));
}

const faults = suite('reconciler: faults on real API servers');

faults(
  'GIVEN members writing WHEN the reconciler is killed (SIGKILL) mid-stream and another started THEN it converges, no update lost, no label ID changed',
  async () => {
    const c = await context();
    const r1 = startReconciler(c.f, 'faults-1', { args: FAST });
    c.recs.push(r1);
    await untilLeader(r1);
    await c.w.exportLabels();
    await c.w.converge('labels');
    const ids = await c.w.labelIds();
    assert.is(ids.size, 13);
    let r2: ReconcilerProcess | undefined;
    await c.w.stream(120, async (done) => {
      if (done === 40) r1.kill('SIGKILL');
      if (done === 80 && !r2) {
        r2 = startReconciler(c.f, 'faults-2', { args: FAST });
        c.recs.push(r2);
      }
    });
    assert.is(await r1.exited, 'SIGKILL');
    await untilLeader(r2!);
    await c.w.converge('SIGKILL mid-stream');
    assertSameIds(ids, await c.w.labelIds());
    // Members withdrew as Antrea's does (Service export first) all through: nothing was refused.
    for (const r of [r1, r2!]) {
      assert.equal(
        r.logs.filter((l) => l.msg === 'export refused'),
        [],
        `${r.name} refused no export`,
      );
    }
    assert.is(
      metricSum(await r2!.metrics(), 'clusterset_reconciler_refused_exports_total'),
      0,
      'and counted no refusal',
    );
  },
);

faults(
  'GIVEN a running reconciler WHEN the leader kube-apiserver restarts THEN it reconnects, converges, and keeps label IDs',
  async () => {
    const c = await context();
    const r = c.recs.at(-1)!;
    const ids = await c.w.labelIds();
    await c.f.leader.restartApiserver({ downMs: 3000 });
    for (const m of c.members) await m.announce();
    await c.w.stream(45);
    await c.w.converge('API server restart');
    assertSameIds(ids, await c.w.labelIds());
    assert.is(r.child.exitCode, null, 'the reconciler kept running');
    await untilLeader(r);
    const m = await r.metrics();
    assert.ok(
      (m.get('clusterset_reconciler_watch_restarts_total{reason="error",resource="resourceexports"}') ?? 0) >=
        1,
      'the watch broke and was restarted',
    );
  },
);

faults(
  "GIVEN a watch older than etcd's compaction WHEN it resumes THEN 410 makes it list again, and nothing missed meanwhile is lost",
  async () => {
    const c = await context();
    await c.recs.at(-1)!.stop();
    const r = startReconciler(c.f, 'faults-3', { args: [...FAST, '--watch-timeout', '2'] });
    c.recs.push(r);
    await untilLeader(r);
    await c.w.converge('a fresh start');
    const before =
      (await r.metrics()).get(
        'clusterset_reconciler_watch_restarts_total{reason="expired",resource="resourceexports"}',
      ) ?? 0;
    r.kill('SIGSTOP');
    try {
      await sleep(6000); // the server ends the paused process's watches (timeoutSeconds 2-3)
      await c.w.stream(30);
      // Compact etcd up to now: every revision the paused watches knew is gone.
      const etcd = (path: string, body: unknown) =>
        fetch(`${c.f.leader.etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
      const range = await etcd('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
      const revision = ((await range.json()) as { header: { revision: string } }).header.revision;
      const compact = await etcd('/v3/kv/compaction', { revision, physical: true });
      assert.is(compact.status, 200, await compact.text());
    } finally {
      r.kill('SIGCONT');
    }
    await c.w.converge('watch expiry');
    const after =
      (await r.metrics()).get(
        'clusterset_reconciler_watch_restarts_total{reason="expired",resource="resourceexports"}',
      ) ?? 0;
    assert.ok(after > before, `the resourceexports watch expired and was relisted (${before} → ${after})`);
  },
);

faults(
  'GIVEN two replicas THEN only the Lease holder writes; WHEN it is killed THEN the other takes over and converges',
  async () => {
    const c = await context();
    const a = c.recs.at(-1)!;
    const b = startReconciler(c.f, 'faults-4', { args: FAST });
    c.recs.push(b);
    await b.port;
    await eventually('standby synced', async () =>
      (await b.get('/readyz')).status === 200 ? true : undefined,
    );
    await c.w.stream(30);
    await c.w.converge('two replicas');
    const [ma, mb] = [await a.metrics(), await b.metrics()];
    assert.is(ma.get('clusterset_reconciler_leader'), 1);
    assert.is(mb.get('clusterset_reconciler_leader'), 0);
    assert.ok(writes(ma) > 0, 'the leader wrote');
    assert.is(writes(mb), 0, 'the standby wrote nothing');
    a.kill('SIGKILL');
    await untilLeader(b, 30_000);
    await c.w.stream(30);
    await c.w.converge('fail-over');
    assert.ok(writes(await b.metrics()) > 0);
  },
);

faults(
  'fails GIVEN malformed exports (wrong kind, wrong cluster ID, missing payload, bad IP, huge subsets) THEN each is refused in its status, the reconciler lives on, and good exports still flow',
  async () => {
    const c = await context();
    const r = c.recs.at(-1)!;
    const admin = c.f.leader.admin;
    const [m1, m2] = c.members as [SimulatedMember, SimulatedMember];
    const post = async (obj: unknown) => {
      const res = await request(admin, 'POST', `${MC}/${c.f.ns}/resourceexports`, obj);
      assert.is(res.status, 201, res.body);
    };
    const [m3] = c.members.slice(2) as [SimulatedMember];
    const raw = m1.serviceExport('app', 'svc-25', PORTS);
    await post({
      ...raw,
      metadata: { ...raw.metadata, name: 'm1-junk' },
      spec: { kind: 'Raw', clusterID: 'm1', raw: { data: 'eA==' } },
    });
    const mars = m1.serviceExport('app', 'svc-25', PORTS);
    await post({
      ...mars,
      metadata: { ...mars.metadata, name: 'mars-app-svc-25-service' },
      spec: { ...mars.spec, clusterID: 'mars' },
    });
    const noPayload = m1.serviceExport('app', 'svc-26', PORTS);
    await post({
      ...noPayload,
      spec: { clusterID: 'm1', name: 'svc-26', namespace: 'app', kind: 'Service' },
    });
    await m1.upsertExport(m1.serviceExport('app', 'svc-27', PORTS));
    await m1.upsertExport(
      m1.endpointsExport('app', 'svc-27', [{ addresses: [{ ip: '999.1.1.1' }], ports: [{ port: 80 }] }]),
    );
    // ~1.2 MB of endpoints from one member: over the import budget, refused; the other's still flow.
    const huge = Array.from({ length: 55_000 }, (_, i) => ({
      ip: `10.99.${Math.floor(i / 250)}.${i % 250}`,
    }));
    await m2.upsertExport(m2.serviceExport('app', 'svc-28', PORTS));
    await m2.upsertExport(
      m2.endpointsExport('app', 'svc-28', [
        { addresses: huge, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
      ]),
    );
    await m3.exportService('app', 'svc-28', { ports: PORTS, clusterIP: '10.3.200.28' });
    c.w.exported.set('svc-28', new Map([['m3', '10.3.200.28']]));

    const reasons = await eventually('every malformed export refused', async () => {
      const byName = new Map(
        (await c.w.list('resourceexports')).map((e) => [(e.metadata as { name: string }).name, e]),
      );
      const cond = (n: string) =>
        (byName.get(n)?.status as { conditions?: { type: string; message: string }[] } | undefined)
          ?.conditions?.[0];
      return REFUSED.every((n) => cond(n)?.type === 'Failure')
        ? new Map(REFUSED.map((n) => [n, cond(n)!.message]))
        : undefined;
    });
    assert.match(reasons.get('m1-junk')!, /kind "Raw" is not one a member exports/);
    assert.match(
      reasons.get('mars-app-svc-25-service')!,
      /cluster mars is not a member of ClusterSet faults/,
    );
    assert.match(reasons.get('m1-app-svc-26-service')!, /spec.service.serviceSpec.ports is missing/);
    assert.match(reasons.get('m1-app-svc-27-endpoints')!, /"999.1.1.1" is not an IP address/);
    assert.match(reasons.get('m2-app-svc-28-endpoints')!, /larger than 1000000 bytes/);
    assert.is(r.child.exitCode, null, 'still running');
    assert.equal(await r.get('/healthz'), { status: 200, body: 'ok\n' });
    // The refused ones aside, everything converges, and a new good export flows.
    await m2.exportService('app', 'svc-29', { ports: PORTS, clusterIP: '10.2.200.29' });
    c.w.exported.set('svc-29', new Map([['m2', '10.2.200.29']]));
    await eventually(
      'good exports flow beside the refused ones',
      async () => ((await differencesBesidesRefused(c)).length === 0 ? true : undefined),
      30_000,
    );
  },
);

faults(
  "GIVEN a member that leaves (its announce deleted, as Antrea's member does once its ClusterSet is gone) WHEN the reconciler is killed while that member's exports are being deleted THEN another releases the announce only once every one of them is gone, and the imports drop the member",
  async () => {
    const c = await context();
    const admin = c.f.leader.admin;
    const m3 = c.members[2]!;
    const exportsPath = `${MC}/${c.f.ns}/resourceexports`;
    const announcePath = `${MC}/${c.f.ns}/memberclusterannounces/${announceName('m3')}`;
    type Meta = { name: string; deletionTimestamp?: string; finalizers?: string[] };
    const m3Exports = async () =>
      (await c.w.list('resourceexports'))
        .filter((e) => (e.spec as { clusterID?: string }).clusterID === 'm3')
        .map((e) => e.metadata as Meta);
    const announce = async () => {
      const r = await request(admin, 'GET', announcePath);
      return r.status === 404 ? undefined : (r.json as { metadata: Meta }).metadata;
    };
    const before = await m3Exports();
    assert.ok(before.length > 1, `m3 exports several objects (${before.length})`);
    assert.ok((await announce())?.finalizers?.includes(announceFinalizer('m3')), 'its announce is held');
    // One export's deletion is slowed by a finalizer of the test's own (a slow deletion, not a
    // member's write), so that the kill lands while the member's exports are still being deleted.
    const HOLD = 'faults.test/hold';
    const held = before[0]!;
    const patch = (finalizers: string[]) =>
      request(
        admin,
        'PATCH',
        `${exportsPath}/${held.name}`,
        { metadata: { finalizers } },
        'application/merge-patch+json',
      );
    assert.is((await patch([...(held.finalizers ?? []), HOLD])).status, 200);

    const r1 = c.recs.at(-1)!;
    const left = await m3.deleteAnnounce();
    assert.is(left.status, 200, left.body);
    // r1 deletes every export of m3 and withdraws their data; the held one stays, being deleted.
    await eventually('every export of m3 but the held one deleted, and released', async () => {
      const now = await m3Exports();
      return now.length === 1 &&
        now[0]!.name === held.name &&
        now[0]!.deletionTimestamp !== undefined &&
        !now[0]!.finalizers?.includes(RESOURCE_EXPORT_FINALIZER)
        ? true
        : undefined;
    });
    const a = await announce();
    assert.ok(a?.deletionTimestamp, 'the announce is being deleted');
    assert.ok(a?.finalizers?.includes(announceFinalizer('m3')), 'and held while an export of m3 is left');
    r1.kill('SIGKILL');
    assert.is(await r1.exited, 'SIGKILL');

    const r2 = startReconciler(c.f, 'faults-5', { args: FAST });
    c.recs.push(r2);
    await untilLeader(r2);
    await eventually('r2 synced', async () => ((await r2.get('/readyz')).status === 200 ? true : undefined));
    await sleep(2000);
    assert.ok(
      (await announce())?.finalizers?.includes(announceFinalizer('m3')),
      'still held after the restart',
    );
    assert.is((await patch([])).status, 200);
    await eventually('the announce of m3 gone', async () => ((await announce()) ? undefined : true));
    assert.equal(await m3Exports(), [], 'no export of m3 left');
    // What an undisturbed reconciler makes of it: m3 exports nothing any more.
    for (const by of c.w.exported.values()) by.delete('m3');
    for (const holders of c.w.labels.values()) holders.delete('m3');
    await eventually(
      'the imports drop m3',
      async () => ((await differencesBesidesRefused(c)).length === 0 ? true : undefined),
      30_000,
    );
  },
);

faults('cleanup', async () => {
  const c = await ctx;
  for (const r of c?.recs ?? []) if (r.child.exitCode === null && r.child.signalCode === null) await r.stop();
  await stopAll();
});

faults.run();
