// End-to-end faults: the reconciler killed mid-stream, the leader's kube-apiserver restarted, a watch
// forced past its expiry (410) by etcd compaction, two replicas, malformed exports. Members write as
// Antrea's member does (member.ts) while the faults happen; after each, the leader must hold exactly
// what an undisturbed run would (computed from what the members wrote), with no finalizer left
// behind and no label identity ID changed.
//
// The leader runs with --watch-cache=false, so that watches are served from etcd and compacting etcd
// expires them for real.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { labelIdentityHash } from '../../lib/names';
import { cluster, service, type ModelDraft } from '../helpers/models';
import { request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import { setUpClusterSet, type ClusterSetFixture } from './fixture';
import { SimulatedMember } from './member';
import { metricSum, startReconciler, type ReconcilerProcess } from './reconciler-process';

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

/** A seeded PRNG (mulberry32), so a failing run can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Ctx {
  f: ClusterSetFixture;
  members: SimulatedMember[];
  /** What each member exports now: service → member → ClusterIP. */
  exported: Map<string, Map<string, string>>;
  labels: Map<string, Set<string>>;
  version: number;
  random: () => number;
  /** `<svc>/<member>` withdrawn since the last convergence: no re-export until it is gone. */
  pending: Set<string>;
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
    return {
      f,
      members,
      exported: new Map(),
      labels: new Map(),
      version: 0,
      random: rng(20261202),
      pending: new Set<string>(),
      recs: [],
    };
  })();
  return ctx;
}

const PORTS = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }];

/** One member write, chosen at random: export or update a Service (new ClusterIP), or withdraw it. */
async function randomOp(c: Ctx, m: SimulatedMember): Promise<void> {
  let svc = '';
  do svc = `svc-${Math.floor(c.random() * STREAMED)}`;
  while (c.pending.has(`${svc}/${m.id}`));
  const by = c.exported.get(svc) ?? new Map<string, string>();
  c.exported.set(svc, by);
  if (by.has(m.id) && c.random() < 0.35) {
    by.delete(m.id);
    // Its exports stay until the leader releases them; a member re-exporting would wait for that.
    c.pending.add(`${svc}/${m.id}`);
    await m.withdrawService('app', svc);
  } else {
    const ip = `10.${MEMBERS.indexOf(m.id) + 1}.${Math.floor(c.version / 250)}.${c.version % 250}`;
    c.version++;
    by.set(m.id, ip);
    await m.exportService('app', svc, { ports: PORTS, clusterIP: ip });
  }
}

/** `n` writes spread over the members, each member writing in order, members in parallel. */
async function stream(c: Ctx, n: number, during?: (done: number) => Promise<void> | void): Promise<void> {
  let done = 0;
  await Promise.all(
    c.members.map(async (m) => {
      for (let i = 0; i < n / c.members.length; i++) {
        await randomOp(c, m);
        done++;
        await during?.(done);
      }
    }),
  );
}

async function list(c: Ctx, resource: string): Promise<Record<string, unknown>[]> {
  const r = await request(c.f.leader.admin, 'GET', `${MC}/${c.f.ns}/${resource}`);
  if (r.status !== 200) throw new Error(`list ${resource}: HTTP ${r.status}`);
  return (r.json as { items: Record<string, unknown>[] }).items;
}

/** What differs from the state an undisturbed reconciler would have produced; empty when converged. */
async function differences(c: Ctx): Promise<string[]> {
  const out: string[] = [];
  const imports = new Map(
    (await list(c, 'resourceimports')).map((i) => [(i.metadata as { name: string }).name, i]),
  );
  for (let i = 0; i < SERVICES; i++) {
    const svc = `svc-${i}`;
    const want = [...(c.exported.get(svc)?.values() ?? [])].sort();
    const ri = imports.get(`app-${svc}-endpoints`);
    const have = ri
      ? (ri.spec as { endpoints: { subsets: { addresses: { ip: string }[] }[] } }).endpoints.subsets
          .flatMap((s) => s.addresses.map((a) => a.ip))
          .sort()
      : [];
    if (JSON.stringify(want) !== JSON.stringify(have))
      out.push(`${svc}: want ${want.join(',')} have ${have.join(',')}`);
  }
  for (const e of await list(c, 'resourceexports')) {
    const md = e.metadata as { name: string; deletionTimestamp?: string };
    if (md.deletionTimestamp) out.push(`${md.name}: still being deleted (finalizer not released)`);
    const cond = (e.status as { conditions?: { type: string }[] } | undefined)?.conditions?.[0];
    const kind = (e.spec as { kind?: string }).kind;
    if ((kind === 'Service' || kind === 'Endpoints') && !md.deletionTimestamp && cond?.type !== 'Succeeded')
      out.push(`${md.name}: status ${cond?.type ?? 'none'}`);
  }
  for (const [l, holders] of c.labels) {
    const has = imports.has(labelIdentityHash(l));
    if (has !== holders.size > 0) out.push(`label ${l}: import ${has ? 'present' : 'missing'}`);
  }
  return out;
}

async function converge(c: Ctx, what: string, timeoutMs = 60_000): Promise<void> {
  let last: string[] = [];
  try {
    await eventually(
      `converged after ${what}`,
      async () => {
        last = await differences(c);
        if (last.length > 0) return undefined;
        c.pending.clear();
        return true;
      },
      timeoutMs,
      500,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${last.slice(0, 20).join('\n')}`);
  }
}

async function labelIds(c: Ctx): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const i of await list(c, 'resourceimports')) {
    const spec = i.spec as { kind: string; labelIdentity?: { label: string; id: number } };
    if (spec.kind === 'LabelIdentity') out.set(spec.labelIdentity!.label, spec.labelIdentity!.id);
  }
  return out;
}

async function exportLabel(c: Ctx, m: SimulatedMember, label: string): Promise<void> {
  await m.exportLabel(label);
  const holders = c.labels.get(label) ?? new Set<string>();
  holders.add(m.id);
  c.labels.set(label, holders);
}

function assertSameIds(before: Map<string, number>, after: Map<string, number>): void {
  for (const [l, id] of before) if (after.has(l)) assert.is(after.get(l), id, `label ID of ${l} changed`);
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

const faults = suite('reconciler: faults on real API servers');

faults(
  'GIVEN members writing WHEN the reconciler is killed (SIGKILL) mid-stream and another started THEN it converges, no update lost, no label ID changed',
  async () => {
    const c = await context();
    const r1 = startReconciler(c.f, 'faults-1', { args: FAST });
    c.recs.push(r1);
    await untilLeader(r1);
    for (const [i, m] of c.members.entries()) {
      await exportLabel(c, m, `ns:kubernetes.io/metadata.name=app&pod:app=shared`);
      for (let j = 0; j < 4; j++)
        await exportLabel(c, m, `ns:kubernetes.io/metadata.name=app&pod:app=m${i}-${j}`);
    }
    await converge(c, 'labels');
    const ids = await labelIds(c);
    assert.is(ids.size, 13);
    let r2: ReconcilerProcess | undefined;
    await stream(c, 120, async (done) => {
      if (done === 40) r1.kill('SIGKILL');
      if (done === 80 && !r2) {
        r2 = startReconciler(c.f, 'faults-2', { args: FAST });
        c.recs.push(r2);
      }
    });
    assert.is(await r1.exited, 'SIGKILL');
    await untilLeader(r2!);
    await converge(c, 'SIGKILL mid-stream');
    assertSameIds(ids, await labelIds(c));
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
    const ids = await labelIds(c);
    await c.f.leader.restartApiserver({ downMs: 3000 });
    for (const m of c.members) await m.announce();
    await stream(c, 45);
    await converge(c, 'API server restart');
    assertSameIds(ids, await labelIds(c));
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
    await converge(c, 'a fresh start');
    const before =
      (await r.metrics()).get(
        'clusterset_reconciler_watch_restarts_total{reason="expired",resource="resourceexports"}',
      ) ?? 0;
    r.kill('SIGSTOP');
    try {
      await sleep(6000); // the server ends the paused process's watches (timeoutSeconds 2-3)
      await stream(c, 30);
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
    await converge(c, 'watch expiry');
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
    await stream(c, 30);
    await converge(c, 'two replicas');
    const [ma, mb] = [await a.metrics(), await b.metrics()];
    assert.is(ma.get('clusterset_reconciler_leader'), 1);
    assert.is(mb.get('clusterset_reconciler_leader'), 0);
    assert.ok(writes(ma) > 0, 'the leader wrote');
    assert.is(writes(mb), 0, 'the standby wrote nothing');
    a.kill('SIGKILL');
    await untilLeader(b, 30_000);
    await stream(c, 30);
    await converge(c, 'fail-over');
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
    c.exported.set('svc-28', new Map([['m3', '10.3.200.28']]));

    const refused = [
      'm1-junk',
      'mars-app-svc-25-service',
      'm1-app-svc-26-service',
      'm1-app-svc-27-endpoints',
      'm2-app-svc-28-endpoints',
    ];
    const reasons = await eventually('every malformed export refused', async () => {
      const byName = new Map(
        (await list(c, 'resourceexports')).map((e) => [(e.metadata as { name: string }).name, e]),
      );
      const cond = (n: string) =>
        (byName.get(n)?.status as { conditions?: { type: string; message: string }[] } | undefined)
          ?.conditions?.[0];
      return refused.every((n) => cond(n)?.type === 'Failure')
        ? new Map(refused.map((n) => [n, cond(n)!.message]))
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
    const differencesBesidesRefused = async () =>
      (await differences(c)).filter((d) => !refused.some((n) => d === `${n}: status Failure`));
    await m2.exportService('app', 'svc-29', { ports: PORTS, clusterIP: '10.2.200.29' });
    c.exported.set('svc-29', new Map([['m2', '10.2.200.29']]));
    await eventually(
      'good exports flow beside the refused ones',
      async () => ((await differencesBesidesRefused()).length === 0 ? true : undefined),
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
