/**
 * The warm standby beside Antrea's leader (waitForAntreaLeader, issue 33): the pure decision
 * (lib/reconciler/antrea-leader.ts) from the observed Deployment and webhook configurations, and the
 * elector's hold-back (lib/reconciler/election.ts) against a fake Lease: held back it never takes
 * the Lease, it takes it at once when woken after the hold-back clears, and held back while leading
 * it stops leading at once (isLeader false before wake() returns) and releases the Lease.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  antreaLeaderRunning,
  observeDeployment,
  observePod,
  podMayRun,
  type ObservedAntreaLeader,
  type ObservedPod,
} from '../../lib/reconciler/antrea-leader';
import { parseReconcilerConfig } from '../../lib/reconciler-config';
import { LeaderElector } from '../../lib/reconciler/election';
import { ApiError, type KubeClient } from '../../lib/reconciler/kube';
import { jsonLogger } from '../../lib/reconciler/log';
import { ANTREA_LEADER_WEBHOOKS } from '../../lib/names';

const NS = 'antrea-multicluster';
const gone: ObservedAntreaLeader = {
  namespace: NS,
  deployment: undefined,
  mutatingWebhook: false,
  validatingWebhook: false,
};

test('GIVEN nothing of Antrea leader WHEN deciding THEN the reconciler may lead', () => {
  assert.equal(antreaLeaderRunning(gone), []);
});

test('GIVEN the Deployment scaled to 0 and its Pods gone, no webhook configurations THEN the reconciler may lead', () => {
  assert.equal(antreaLeaderRunning({ ...gone, deployment: { specReplicas: 0, statusReplicas: 0 } }), []);
  assert.equal(
    antreaLeaderRunning({ ...gone, deployment: { specReplicas: 0, statusReplicas: undefined } }),
    [],
    'a status without replicas is 0',
  );
});

test('GIVEN the Deployment running THEN held back, naming the Deployment and its replicas', () => {
  assert.equal(antreaLeaderRunning({ ...gone, deployment: { specReplicas: 1, statusReplicas: 1 } }), [
    'Deployment antrea-multicluster/antrea-mc-controller has replicas (spec.replicas 1, status.replicas 1)',
  ]);
});

test('GIVEN the Deployment scaled to 0 while the ReplicaSet controller still counts a Pod (status.replicas 1) THEN still held back', () => {
  assert.equal(
    antreaLeaderRunning({ ...gone, deployment: { specReplicas: 0, statusReplicas: 1 } }).length,
    1,
  );
});

test('GIVEN status.terminatingReplicas (Kubernetes 1.33 and later) above 0 THEN held back, naming it', () => {
  assert.equal(
    antreaLeaderRunning({
      ...gone,
      deployment: { specReplicas: 0, statusReplicas: 0, terminatingReplicas: 1 },
    }),
    [
      'Deployment antrea-multicluster/antrea-mc-controller has replicas (spec.replicas 0, status.replicas 0, status.terminatingReplicas 1)',
    ],
  );
});

// ---------------------------------------------------------------------------------------------------
// The Pods of Antrea's leader ServiceAccount (issue 39): a process runs on after its Pod is deleted.

const running: ObservedPod = {
  name: 'antrea-mc-controller-5d8f7-abcde',
  phase: 'Running',
  nodeName: 'node-1',
  deletionTimestamp: undefined,
  gracePeriodSeconds: undefined,
  containers: [{ name: 'antrea-mc-controller', state: 'running' }],
};
/** After `kubectl scale --replicas=0`: the Pod is marked for deletion, its process got SIGTERM. */
const terminating: ObservedPod = {
  ...running,
  deletionTimestamp: '2026-12-07T09:25:12Z',
  gracePeriodSeconds: 10,
};
const stopped: ObservedPod = {
  ...terminating,
  containers: [{ name: 'antrea-mc-controller', state: 'terminated' }],
};

test('GIVEN the Deployment scaled to 0 (status.replicas already 0) WHEN its Pod is terminating, its container still running THEN held back, naming the Pod', () => {
  assert.equal(
    antreaLeaderRunning({ ...gone, deployment: { specReplicas: 0, statusReplicas: 0 }, pods: [terminating] }),
    [
      'Pod antrea-multicluster/antrea-mc-controller-5d8f7-abcde (ServiceAccount antrea-mc-controller) may still run: ' +
        'Running, container antrea-mc-controller running, being deleted since 2026-12-07T09:25:12Z (grace period 10 s): ' +
        'its process runs until the kubelet on node-1 reports it stopped',
    ],
  );
});

test('GIVEN a Pod being deleted WHEN the kubelet reports every container terminated THEN it no longer counts, even while a finalizer holds the object', () => {
  assert.is(podMayRun(stopped), false);
  assert.equal(
    antreaLeaderRunning({ ...gone, deployment: { specReplicas: 0, statusReplicas: 0 }, pods: [stopped] }),
    [],
  );
  assert.is(podMayRun({ ...stopped, phase: 'Failed' }), false);
});

test('GIVEN a Pod in a terminal phase THEN it no longer counts; GIVEN one running or not yet started THEN it counts', () => {
  assert.is(podMayRun({ ...running, phase: 'Succeeded' }), false);
  assert.is(podMayRun({ ...running, phase: 'Failed', deletionTimestamp: undefined }), false);
  assert.is(podMayRun(running), true);
  assert.is(
    podMayRun({ ...running, phase: 'Pending', containers: [] }),
    true,
    'a Pod not started yet may start',
  );
  assert.is(
    podMayRun({ ...running, phase: 'Pending', nodeName: undefined, containers: [] }),
    true,
    'an unscheduled Pod may be scheduled',
  );
});

test('GIVEN a Pod being deleted THEN it counts while any container, init containers included, is not reported terminated, or none is reported yet', () => {
  assert.is(
    podMayRun({
      ...terminating,
      containers: [
        { name: 'init', state: 'terminated' },
        { name: 'antrea-mc-controller', state: 'running' },
      ],
    }),
    true,
  );
  assert.is(
    podMayRun({ ...terminating, containers: [] }),
    true,
    'bound, no status yet: the kubelet may be starting it',
  );
  assert.is(
    podMayRun({ ...terminating, nodeName: undefined, containers: [] }),
    false,
    'never bound to a node: nothing ever ran',
  );
});

test('GIVEN a Pod whose node stopped reporting (Terminating for long, container still reported running) THEN it still counts', () => {
  assert.is(podMayRun({ ...terminating, deletionTimestamp: '2026-01-01T00:00:00Z' }), true);
});

test('GIVEN a Pod as the API returns it WHEN observed THEN phase, node, deletion and every container state are read', () => {
  assert.equal(
    observePod({
      metadata: {
        name: 'p',
        deletionTimestamp: '2026-12-07T09:25:12Z',
        deletionGracePeriodSeconds: 10,
        finalizers: ['test/hold'],
      },
      spec: { nodeName: 'n', serviceAccountName: 'antrea-mc-controller' },
      status: {
        phase: 'Running',
        initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 0 } } }],
        containerStatuses: [
          { name: 'a', state: { running: { startedAt: 'x' } } },
          { name: 'b', state: { waiting: { reason: 'ImagePullBackOff' } } },
        ],
      },
    }),
    {
      name: 'p',
      phase: 'Running',
      nodeName: 'n',
      deletionTimestamp: '2026-12-07T09:25:12Z',
      gracePeriodSeconds: 10,
      containers: [
        { name: 'i', state: 'terminated' },
        { name: 'a', state: 'running' },
        { name: 'b', state: 'waiting' },
      ],
    },
  );
  assert.equal(observePod({}), {
    name: '',
    phase: undefined,
    nodeName: undefined,
    deletionTimestamp: undefined,
    gracePeriodSeconds: undefined,
    containers: [],
  });
});

test('GIVEN several Pods that may run WHEN deciding THEN each is named once, in name order, after the Deployment', () => {
  const r = antreaLeaderRunning({
    ...gone,
    deployment: { specReplicas: 1, statusReplicas: 1 },
    pods: [{ ...running, name: 'b' }, stopped, { ...running, name: 'a' }],
  });
  assert.is(r.length, 3);
  assert.match(r[0]!, /^Deployment /);
  assert.match(r[1]!, /^Pod antrea-multicluster\/a /);
  assert.match(r[2]!, /^Pod antrea-multicluster\/b /);
});

test('GIVEN a Deployment without spec.replicas (the API server defaults it to 1) THEN held back', () => {
  assert.equal(
    antreaLeaderRunning({ ...gone, deployment: { specReplicas: undefined, statusReplicas: undefined } }),
    ['Deployment antrea-multicluster/antrea-mc-controller has replicas (spec.replicas 1, status.replicas 0)'],
  );
});

test('GIVEN the Deployment gone but either webhook configuration left THEN held back, naming it', () => {
  assert.equal(antreaLeaderRunning({ ...gone, mutatingWebhook: true }), [
    `MutatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.mutating} exists`,
  ]);
  assert.equal(antreaLeaderRunning({ ...gone, validatingWebhook: true }), [
    `ValidatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.validating} exists`,
  ]);
  assert.equal(
    antreaLeaderRunning({
      ...gone,
      deployment: { specReplicas: 1, statusReplicas: 0 },
      mutatingWebhook: true,
      validatingWebhook: true,
    }).length,
    3,
    'everything that runs is named',
  );
});

test('GIVEN a Deployment as the API returns it WHEN observed THEN spec, status and terminating replicas are read', () => {
  assert.equal(observeDeployment({ spec: { replicas: 2 }, status: { replicas: 1, readyReplicas: 1 } }), {
    specReplicas: 2,
    statusReplicas: 1,
  });
  assert.equal(observeDeployment({ spec: { replicas: 0 }, status: { terminatingReplicas: 1 } }), {
    specReplicas: 0,
    statusReplicas: undefined,
    terminatingReplicas: 1,
  });
  assert.equal(observeDeployment({ spec: {}, status: {} }), {
    specReplicas: undefined,
    statusReplicas: undefined,
  });
});

test('GIVEN a config WHEN parsed THEN waitForAntreaLeader is optional, and must be a boolean', () => {
  const base = {
    clusterSetId: 's',
    leaderNamespace: NS,
    leader: 'hub',
    members: [],
    services: [],
    retireMembersAfterSeconds: 60,
  };
  assert.is(parseReconcilerConfig({ ...base }, 'x').waitForAntreaLeader, undefined);
  assert.is(parseReconcilerConfig({ ...base, waitForAntreaLeader: true }, 'x').waitForAntreaLeader, true);
  assert.throws(
    () => parseReconcilerConfig({ ...base, waitForAntreaLeader: 'yes' }, 'x'),
    /waitForAntreaLeader: true or false/,
  );
});

// ---------------------------------------------------------------------------------------------------
// The elector held back

const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/clusterset-reconciler`;

type Lease = { metadata: { name: string; resourceVersion?: string }; spec?: { holderIdentity?: string } };

/** One Lease: GET, POST, PUT with compare-and-swap. */
function fakeLeases() {
  const state = { lease: undefined as Lease | undefined, rv: 0, writes: 0 };
  const store = (l: Lease) => {
    state.lease = structuredClone({ ...l, metadata: { ...l.metadata, resourceVersion: String(++state.rv) } });
    state.writes++;
    return structuredClone(state.lease);
  };
  const request = (method: string, path: string, body?: unknown): Promise<unknown> => {
    const [p] = path.split('?');
    if (method === 'GET' && p === LEASE)
      return state.lease
        ? Promise.resolve(structuredClone(state.lease))
        : Promise.reject(new ApiError(404, 'NotFound', 'no Lease'));
    if (method === 'POST' && p === LEASE.slice(0, LEASE.lastIndexOf('/')))
      return state.lease
        ? Promise.reject(new ApiError(409, 'AlreadyExists', 'exists'))
        : Promise.resolve(store(body as Lease));
    if (method === 'PUT' && p === LEASE) {
      const b = body as Lease;
      if (b.metadata.resourceVersion !== state.lease?.metadata.resourceVersion)
        return Promise.reject(new ApiError(409, 'Conflict', 'modified'));
      return Promise.resolve(store(b));
    }
    return Promise.reject(new Error(`unexpected ${method} ${path}`));
  };
  return { state, client: { request } as unknown as KubeClient };
}

function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (ok()) return resolve();
      if (Date.now() - t0 > ms) return reject(new Error(`timed out: ${what}`));
      setTimeout(tick, 2);
    };
    tick();
  });
}

function standbyElector(held: { now: string[] }) {
  const api = fakeLeases();
  const events: string[] = [];
  const logs: { level: string; msg: string; why?: string }[] = [];
  const elector = new LeaderElector({
    client: api.client,
    namespace: NS,
    name: 'clusterset-reconciler',
    identity: 'replica-a',
    fieldManager: 'clusterset-reconciler',
    log: jsonLogger('debug', (l) => logs.push(JSON.parse(l) as { level: string; msg: string })),
    // Long enough that only wake() can explain a prompt change.
    retryPeriodMs: 60_000,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
    beforeRelease: async () => {
      events.push('settled');
    },
    holdBack: () => held.now,
  });
  return { api, events, logs, elector };
}

test('GIVEN Antrea leader running WHEN the elector runs THEN it never takes nor creates the Lease; once woken with nothing running it leads at once; held back again it stops at once and releases the Lease', async () => {
  const held = { now: ['Deployment antrea-multicluster/antrea-mc-controller has replicas'] };
  const { api, events, logs, elector } = standbyElector(held);
  const ac = new AbortController();
  const running = elector.run(ac.signal);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(events, [], 'held back: never leads');
  assert.is(api.state.lease, undefined, 'no Lease created while held back');
  assert.is(elector.isLeader(), false);

  held.now = [];
  const t0 = Date.now();
  elector.wake();
  await until('leading', () => elector.isLeader());
  assert.ok(Date.now() - t0 < 1000, 'woken, it leads without waiting a retry period (60 s)');
  assert.is(api.state.lease?.spec?.holderIdentity, 'replica-a');

  held.now = ['ValidatingWebhookConfiguration x exists'];
  elector.wake();
  assert.is(elector.isLeader(), false, 'stops leading before wake() returns: no write starts after it');
  assert.equal(events, ['started', 'stopped']);
  await until('Lease released', () => api.state.lease?.spec?.holderIdentity === '');
  assert.equal(events, ['started', 'stopped', 'settled'], 'writes in flight settled before the release');
  const stopped = logs.find((l) => l.msg === 'stopped leading');
  assert.match(String(stopped?.why), /held back: ValidatingWebhookConfiguration x exists/);

  held.now = [];
  elector.wake();
  await until('leading again', () => elector.isLeader());
  assert.equal(events, ['started', 'stopped', 'settled', 'started']);
  ac.abort();
  await running;
  assert.is(api.state.lease?.spec?.holderIdentity, '', 'released on shutdown');
});

test('GIVEN the hold-back clears during a round WHEN wake() came while no wait was pending THEN the next wait ends at once', async () => {
  const held = { now: ['x'] };
  const { elector } = standbyElector(held);
  const ac = new AbortController();
  // wake() before run(): nothing waits yet; the first wait must not swallow it.
  elector.wake();
  const running = elector.run(ac.signal);
  await new Promise((r) => setTimeout(r, 20));
  held.now = [];
  elector.wake();
  await until('leading', () => elector.isLeader(), 1000);
  ac.abort();
  await running;
});

test('GIVEN no holdBack WHEN the elector runs THEN it leads as before (the flag off changes nothing)', async () => {
  const api = fakeLeases();
  const elector = new LeaderElector({
    client: api.client,
    namespace: NS,
    name: 'clusterset-reconciler',
    identity: 'replica-a',
    fieldManager: 'clusterset-reconciler',
    log: jsonLogger('error', () => undefined),
    retryPeriodMs: 60_000,
    onStartedLeading: () => undefined,
    onStoppedLeading: () => undefined,
  });
  const ac = new AbortController();
  const running = elector.run(ac.signal);
  await until('leading', () => elector.isLeader());
  elector.wake();
  assert.is(elector.isLeader(), true, 'wake() without a hold-back does not step down');
  ac.abort();
  await running;
});

test.run();
