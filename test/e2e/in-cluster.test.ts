// End-to-end: the reconciler as a leader cluster runs it. The image built by the package's `clusterset image
// build` (test/image) is imported into two real nodes of the leader (test/kube nodes: kubelet, kube-proxy,
// kube-scheduler, containerd); the leader bundle is applied as Argo CD applies it, so the Deployment
// `clusterset-reconciler` is scheduled and runs as rendered (probes, resources, security context, two
// replicas spread over the nodes, the PodDisruptionBudget) with in-cluster credentials; members write exactly
// what Antrea's member controller writes (parties/antrea-member/in-leader.ts).
//
// - every flow of antrea-mc.md §h passes with the in-cluster reconciler (reconciler-flows.ts, as
//   reconciler.test.ts runs them with a process);
// - the Pods hold what the bundle renders, a drain takes one at a time;
// - the Pod that holds the Lease is deleted mid-burst: the other takes over, no endpoint update is
//   lost, no label ID changes;
// - the memory limit holds at the benchmark's largest shape (bench/reconciler/shapes.ts LARGEST:
//   10 members, 1,000 Services, each exported by all 10, written at once).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RECONCILER_IMAGE, RECONCILER_NAME } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import { exportersOf, LARGEST, memberIds, parseShape } from '../../bench/reconciler/shapes';
import { cluster, service, type ModelDraft } from '../helpers/models';
import { buildImage, saveImage } from '../image/image';
import { request, stopAll } from '../kube/cluster';
import { containerMemoryCgroup } from '../kube/node';
import { eventually } from '../kube/wait';
import { DeploymentReconciler, reconcilerStatus, type Pod } from './deployment-reconciler';
import { setUpClusterSet, type ClusterSetFixture, type FixtureOptions } from './fixture';
import { SimulatedMember } from '../parties/antrea-member/in-leader';
import { flowsSuite, type ReconcilerDriver } from './reconciler-flows';
import { assertSameIds, PORTS, Workload } from './workload';

/** Two nodes, so that the replicas' anti-affinity can spread them. */
const NODES = 2;

/** The fixture with the image in every leader node before the bundle (and so the Deployment) lands. */
async function setUpInCluster(model: ModelDraft, prefix: string, opts: FixtureOptions = {}) {
  const archive = await saveImage(await buildImage());
  return setUpClusterSet(model, prefix, {
    ...opts,
    leaderNodes: NODES,
    beforeApply: async (clusters) => {
      for (const n of clusters.get(model.leader)!.nodes) await n.importImage(archive);
    },
  });
}

const driver: ReconcilerDriver = {
  setUp: setUpInCluster,
  async start(f) {
    const d = new DeploymentReconciler(f.leader, f.ns);
    d.begin();
    await d.start(f.plan.reconciler.replicas);
    return d;
  },
};

flowsSuite(
  'in-cluster: the flows of antrea-mc.md §h with the leader Deployment on real nodes',
  'incl',
  driver,
);

// -------------------------------------------------------------------------------------------------

/** The benchmark's largest shape (bench/reconciler), where the memory limit must hold. */
const SHAPE = parseShape(LARGEST);
const MEMBERS = memberIds(SHAPE.members);
/** The members that write the random stream of the fail-over test. */
const STREAMERS = 3;
const STREAMED = 25;

function model(): ModelDraft {
  return {
    clusterSetId: 'incluster',
    leader: 'hub',
    members: MEMBERS,
    clusters: [cluster('hub', 0), ...MEMBERS.map((m, i) => cluster(m, i + 1))],
    services: Array.from({ length: SHAPE.services }, (_, i) =>
      service('app', `svc-${i}`, exportersOf(SHAPE, i), [{ name: 'http', port: 80 }]),
    ),
  };
}

interface Ctx {
  f: ClusterSetFixture;
  rec: DeploymentReconciler;
  members: SimulatedMember[];
  w: Workload;
}

let ctx: Promise<Ctx> | undefined;

function context(): Promise<Ctx> {
  ctx ??= (async () => {
    const f = await setUpInCluster(model(), 'incl-dep');
    const members = MEMBERS.map(
      (id) =>
        new SimulatedMember(id, f.leader, f.tokens.get(id)!, f.ns, f.plan.clusterSetId, f.plan.leader.id),
    );
    for (const m of members) {
      await m.announce();
      m.startAnnouncing(5000);
    }
    const rec = new DeploymentReconciler(f.leader, f.ns);
    rec.begin();
    await rec.leaderPod(120_000);
    const w = new Workload(f, members.slice(0, STREAMERS), {
      services: SHAPE.services,
      streamed: STREAMED,
      seed: 20261203,
    });
    return { f, rec, members, w };
  })();
  return ctx;
}

/** An object of the leader bundle as synth rendered it. */
function rendered(f: ClusterSetFixture, kind: string, name: string): Record<string, unknown> {
  const file = path.join(f.dir, 'clusters', f.plan.leader.id, f.ns, `${kind}.${name}.yaml`);
  return loadYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

const ready = (p: Pod) =>
  p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

async function readyPods(c: Ctx, n: number): Promise<Pod[]> {
  return eventually(
    `${n} Ready reconciler Pods`,
    async () => {
      const pods = (await c.rec.pods()).filter((p) => !p.metadata.deletionTimestamp && ready(p));
      return pods.length === n ? pods : undefined;
    },
    120_000,
    250,
  );
}

/** The Eviction API, as `kubectl drain` uses it. */
function evict(c: Ctx, pod: string) {
  return request(c.f.leader.admin, 'POST', `/api/v1/namespaces/${c.f.ns}/pods/${pod}/eviction`, {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name: pod, namespace: c.f.ns },
  });
}

const dep = suite('in-cluster: the leader Deployment from the built image on real nodes');

dep(
  'GIVEN the leader bundle applied as Argo CD applies it THEN both replicas run the built image on distinct nodes as rendered, with in-cluster credentials; one holds the Lease and the other stands by',
  async () => {
    const c = await context();
    const pods = await readyPods(c, 2);
    const built = await buildImage();
    const template = (
      rendered(c.f, 'Deployment', RECONCILER_NAME) as {
        spec: { template: { spec: { containers: Record<string, unknown>[]; securityContext: unknown } } };
      }
    ).spec.template.spec;
    const want = template.containers[0]!;
    assert.is(
      new Set(pods.map((p) => p.spec.nodeName)).size,
      2,
      'the anti-affinity spread them over the nodes',
    );
    for (const p of pods) {
      const have = p.spec.containers[0]!;
      assert.is(have.image, DEFAULT_RECONCILER_IMAGE);
      const st = reconcilerStatus(p)!;
      assert.is(st.restartCount, 0, `${p.metadata.name} never restarted`);
      assert.match(st.containerID ?? '', /^containerd:\/\//);
      const imageID = (p.status.containerStatuses![0] as { imageID?: string }).imageID ?? '';
      assert.ok(imageID.endsWith(built.id), `${p.metadata.name} runs image ${built.id} (${imageID})`);
      for (const k of [
        'args',
        'env',
        'ports',
        'livenessProbe',
        'readinessProbe',
        'resources',
        'securityContext',
      ])
        assert.equal(pick(have[k], want[k]), want[k], `${p.metadata.name} ${k} as rendered`);
      assert.equal(p.spec.securityContext, template.securityContext);
      assert.is(p.status.qosClass, 'Burstable');
    }
    // In-cluster config: the `kubernetes` Service and the projected ServiceAccount token.
    const started = await eventually('both replicas logged their start', async () => {
      const s = c.rec.logs.filter((l) => l.msg === 'reconciler starting');
      return new Set(s.map((l) => l.pod)).size >= 2 ? s : undefined;
    });
    for (const l of started) assert.is(l.server, 'https://10.96.0.1:443', 'in-cluster config');
    const leader = await c.rec.leaderPod();
    const standby = pods.find((p) => p.metadata.name !== leader.metadata.name)!;
    assert.is((await c.rec.podMetrics(standby)).get('clusterset_reconciler_leader'), 0);
    assert.equal(
      await c.rec.podGet(standby, '/readyz'),
      { status: 200, body: 'ok\n' },
      'the standby is Ready',
    );
    assert.ok(
      !c.rec.logs.some((l) => l.level === 'error'),
      c.rec.logs
        .filter((l) => l.level === 'error')
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
  },
);

/** `have` cut down to the keys `want` has, recursively: defaults the API server adds are left out. */
function pick(have: unknown, want: unknown): unknown {
  if (Array.isArray(want) && Array.isArray(have)) return have.map((h, i) => pick(h, want[i]));
  if (want && typeof want === 'object' && have && typeof have === 'object')
    return Object.fromEntries(
      Object.keys(want).map((k) => [
        k,
        pick((have as Record<string, unknown>)[k], (want as Record<string, unknown>)[k]),
      ]),
    );
  return have;
}

dep(
  'GIVEN the PodDisruptionBudget THEN a drain evicts one replica, refuses the second while the first is replaced, and the Deployment recovers',
  async () => {
    const c = await context();
    const pdb = await eventually('PodDisruptionBudget status', async () => {
      const r = await request(
        c.f.leader.admin,
        'GET',
        `/apis/policy/v1/namespaces/${c.f.ns}/poddisruptionbudgets/${RECONCILER_NAME}`,
      );
      const s = (r.json as { status?: { disruptionsAllowed?: number; currentHealthy?: number } }).status;
      return s?.currentHealthy === 2 ? s : undefined;
    });
    assert.is(pdb.disruptionsAllowed, 1);
    const [a, b] = await readyPods(c, 2);
    const first = await evict(c, a!.metadata.name);
    assert.is(first.status, 201, `the first eviction is allowed: ${first.body}`);
    const second = await evict(c, b!.metadata.name);
    assert.is(
      second.status,
      429,
      `the second is refused while one is down: HTTP ${second.status} ${second.body}`,
    );
    assert.match(second.body, /disruption budget/i);
    await readyPods(c, 2);
    await c.rec.leaderPod();
    assert.is(c.rec.exitCodes.get(a!.metadata.name), 0, 'the evicted reconciler exited 0 on SIGTERM');
  },
);

dep(
  'GIVEN members writing WHEN the Pod holding the Lease is deleted mid-burst THEN it releases the Lease, another replica takes it, no endpoint update is lost and no label ID changes',
  async () => {
    const c = await context();
    const before = await c.rec.leaderPod();
    await c.w.exportLabels();
    await c.w.converge('labels');
    const ids = await c.w.labelIds();
    assert.is(ids.size, 1 + 4 * STREAMERS);
    const standby = (await readyPods(c, 2)).find((p) => p.metadata.name !== before.metadata.name)!;
    await c.w.stream(150, async (done) => {
      if (done === 50) {
        const r = await request(
          c.f.leader.admin,
          'DELETE',
          `/api/v1/namespaces/${c.f.ns}/pods/${before.metadata.name}`,
        );
        assert.is(r.status, 200, r.body);
      }
    });
    // The released Lease goes to whichever replica asks first: the standby, or the Pod the
    // ReplicaSet started in place of the deleted one (it campaigns once its caches hold their list).
    const after = await c.rec.leaderPod(60_000);
    assert.is.not(after.metadata.name, before.metadata.name);
    process.stderr.write(
      `  fail-over: ${after.metadata.name === standby.metadata.name ? 'the standby' : 'the replacement Pod'} took the Lease\n`,
    );
    assert.ok(
      c.rec.logs.some((l) => l.pod === before.metadata.name && l.msg === 'released the Lease'),
      `the deleted replica logged the release: ${JSON.stringify(c.rec.logs.filter((l) => l.pod === before.metadata.name).slice(-5))}`,
    );
    await c.w.converge('the Lease holder deleted mid-burst');
    assertSameIds(ids, await c.w.labelIds());
    await eventually('the deleted Pod exit code', async () =>
      c.rec.exitCodes.has(before.metadata.name) ? true : undefined,
    );
    assert.is(c.rec.exitCodes.get(before.metadata.name), 0, 'it exited 0 on SIGTERM');
    assert.ok(
      c.rec.logs.some((l) => l.pod === before.metadata.name && l.msg === 'stopped'),
      'the deleted replica stopped cleanly (and released the Lease)',
    );
    await readyPods(c, 2);
  },
);

dep(
  "GIVEN the benchmark's largest shape written at once (10 members x 1,000 Services, each exported by all 10: 20,000 exports) THEN it converges within the rendered memory limit: no OOM kill, no restart, the limit never hit",
  async () => {
    const c = await context();
    const leader = await c.rec.leaderPod();
    const st = reconcilerStatus(leader)!;
    const node = c.f.leader.nodes.find((n) => n.name === leader.spec.nodeName)!;
    const mem = containerMemoryCgroup(node, st.containerID!.replace('containerd://', ''));
    const limit = Number(fs.readFileSync(mem.limitFile, 'utf8'));
    const failsBefore = fs.readFileSync(mem.eventsFile, 'utf8');
    // Every member writes all of its exports at once, 5 Services in flight each, as the bench does.
    const byId = new Map(c.members.map((m) => [m.id, m]));
    await Promise.all(
      c.members.map(async (m, mi) => {
        const mine = Array.from({ length: SHAPE.services }, (_, i) => i).filter((i) =>
          exportersOf(SHAPE, i).includes(m.id),
        );
        const inFlight = 5;
        for (let k = 0; k < mine.length; k += inFlight)
          await Promise.all(
            mine.slice(k, k + inFlight).map(async (i) => {
              const ip = `10.${mi + 101}.${Math.floor(i / 250)}.${i % 250}`;
              await byId.get(m.id)!.exportService('app', `svc-${i}`, { ports: PORTS, clusterIP: ip });
              const by = c.w.exported.get(`svc-${i}`) ?? new Map<string, string>();
              by.set(m.id, ip);
              c.w.exported.set(`svc-${i}`, by);
            }),
          );
      }),
    );
    await c.w.converge(`the burst of ${SHAPE.name}`, 600_000);
    const peak = Number(fs.readFileSync(mem.peakFile, 'utf8'));
    process.stderr.write(
      `  burst: the leader replica's memory cgroup peaked at ${(peak / 2 ** 20).toFixed(0)} MiB of ${(limit / 2 ** 20).toFixed(0)} MiB\n`,
    );
    assert.ok(peak < limit, `peak ${peak} below the limit ${limit}`);
    assert.is(fs.readFileSync(mem.eventsFile, 'utf8'), failsBefore, 'the memory limit was never hit');
    const now = (await c.rec.pods()).find((p) => p.metadata.name === leader.metadata.name)!;
    const after = reconcilerStatus(now)!;
    assert.is(after.restartCount, 0, 'no restart');
    assert.is(after.lastState?.terminated, undefined, 'no OOM kill');
    assert.is((await c.rec.holder()) ?? '', leader.metadata.name, 'it kept the Lease through the burst');
  },
);

dep('cleanup', async () => {
  const c = await ctx;
  for (const m of c?.members ?? []) m.stopAnnouncing();
  if (c) {
    assert.is(await c.rec.stop(), 0, 'every replica exits 0 on SIGTERM');
    await c.rec.close();
  }
  await stopAll();
});

dep.run();
