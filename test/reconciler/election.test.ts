/**
 * Leader election (lib/reconciler/election.ts) against a fake API server holding one Lease: the
 * reconciler creates its Lease when there is none (no bundle renders it), a replica that loses the
 * race to create it does not lead, and a Lease deleted under the leader is created again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LeaderElector } from '../../lib/reconciler/election';
import { ApiError, type KubeClient } from '../../lib/reconciler/kube';
import { jsonLogger } from '../../lib/reconciler/log';

const NS = 'antrea-multicluster';
const NAME = 'clusterset-reconciler';
const ITEM = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${NAME}`;
const COLLECTION = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
const LABELS = { 'app.kubernetes.io/managed-by': 'clusterset', 'app.kubernetes.io/part-of': 'test-set' };

type Lease = {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
};

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/** The API server, as far as one Lease goes: GET, POST (create), PUT (compare-and-swap on resourceVersion). */
class FakeLeases {
  lease: Lease | undefined;
  readonly calls: Call[] = [];
  private rv = 0;
  /** Answers the next create with 409, after storing this Lease: another replica created it first. */
  raceOnCreate: Lease | undefined;

  store(l: Lease): Lease {
    this.lease = structuredClone({ ...l, metadata: { ...l.metadata, resourceVersion: String(++this.rv) } });
    return structuredClone(this.lease);
  }

  request = (method: string, path: string, body?: unknown): Promise<unknown> => {
    this.calls.push({ method, path, ...(body !== undefined ? { body: structuredClone(body) } : {}) });
    const [p] = path.split('?');
    if (method === 'GET' && p === ITEM) {
      if (!this.lease) return Promise.reject(new ApiError(404, 'NotFound', `leases "${NAME}" not found`));
      return Promise.resolve(structuredClone(this.lease));
    }
    if (method === 'POST' && p === COLLECTION) {
      if (this.raceOnCreate) {
        this.store(this.raceOnCreate);
        this.raceOnCreate = undefined;
      }
      if (this.lease)
        return Promise.reject(new ApiError(409, 'AlreadyExists', `leases "${NAME}" already exists`));
      return Promise.resolve(this.store(body as Lease));
    }
    if (method === 'PUT' && p === ITEM) {
      const b = body as Lease;
      if (!this.lease) return Promise.reject(new ApiError(404, 'NotFound', 'gone'));
      if (b.metadata.resourceVersion !== this.lease.metadata.resourceVersion)
        return Promise.reject(new ApiError(409, 'Conflict', 'the object has been modified'));
      return Promise.resolve(this.store(b));
    }
    return Promise.reject(new Error(`unexpected ${method} ${path}`));
  };

  get client(): KubeClient {
    // Looked up on every call, so that a test may wrap `request` after the elector is built.
    return { request: (m: string, p: string, b?: unknown) => this.request(m, p, b) } as unknown as KubeClient;
  }
}

interface Run {
  readonly events: string[];
  readonly logs: { level: string; msg: string }[];
  readonly elector: LeaderElector;
}

/**
 * Runs an elector of identity `identity` against `api` until `stop` says so (checked after every
 * start and stop of leading, and every request), then lets it shut down.
 */
async function elect(
  api: FakeLeases,
  stop: (r: Run) => boolean,
  on: { started?: (r: Run) => void } = {},
  identity = 'replica-a',
): Promise<Run> {
  const ac = new AbortController();
  const events: string[] = [];
  const logs: { level: string; msg: string }[] = [];
  const log = jsonLogger('debug', (line) => {
    const o = JSON.parse(line) as { level: string; msg: string };
    logs.push({ level: o.level, msg: o.msg });
  });
  let run: Run | undefined = undefined;
  const check = () => {
    if (run && stop(run)) ac.abort();
  };
  const elector = new LeaderElector({
    client: api.client,
    namespace: NS,
    name: NAME,
    identity,
    fieldManager: 'clusterset-reconciler',
    labels: LABELS,
    log,
    retryPeriodMs: 1,
    onStartedLeading: () => {
      events.push(`started ${String(elector.isLeader())}`);
      on.started?.(run!);
      check();
    },
    onStoppedLeading: () => {
      events.push('stopped');
      check();
    },
  });
  run = { events, logs, elector };
  const request = api.request;
  api.request = (m, p, b) => {
    check();
    return request(m, p, b);
  };
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    ac.abort();
  }, 5000);
  await elector.run(ac.signal);
  clearTimeout(limit);
  assert.not.ok(timedOut, `the elector never reached the expected state: ${events.join(', ')}`);
  api.request = request;
  return run;
}

const posts = (api: FakeLeases) => api.calls.filter((c) => c.method === 'POST');

test('GIVEN no Lease WHEN the reconciler elects THEN it creates the Lease with itself as holder and the ownership labels, and leads', async () => {
  const api = new FakeLeases();
  const r = await elect(api, (x) => x.events.length >= 1);
  assert.equal(r.events.slice(0, 1), ['started true'], 'leading, and able to act at once');
  assert.is(posts(api).length, 1);
  const create = posts(api)[0]!;
  assert.is(create.path, `${COLLECTION}?fieldManager=clusterset-reconciler`);
  const body = create.body as {
    apiVersion: string;
    kind: string;
    metadata: Record<string, unknown>;
    spec: Record<string, unknown>;
  };
  assert.is(body.apiVersion, 'coordination.k8s.io/v1');
  assert.is(body.kind, 'Lease');
  assert.equal(body.metadata, { name: NAME, namespace: NS, labels: LABELS });
  assert.is(body.spec.holderIdentity, 'replica-a');
  assert.is(body.spec.leaseDurationSeconds, 15);
  assert.is(body.spec.leaseTransitions, 0);
  assert.match(String(body.spec.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime');
  assert.is(body.spec.acquireTime, body.spec.renewTime);
  // The GET that found none came first; the create was the write that took it.
  assert.equal(
    api.calls.slice(0, 2).map((c) => c.method),
    ['GET', 'POST'],
  );
  assert.ok(r.logs.some((l) => l.msg === 'created the Lease'));
  assert.not.ok(
    r.logs.some((l) => l.level === 'warn'),
    JSON.stringify(r.logs),
  );
  // On shutdown it releases the Lease it created.
  assert.is(api.lease?.spec?.holderIdentity, '');
  assert.equal(api.lease?.metadata.labels, LABELS);
});

test('GIVEN a fresh Lease another replica holds WHEN the reconciler elects THEN it neither creates one nor leads', async () => {
  const api = new FakeLeases();
  api.store({
    metadata: { name: NAME, namespace: NS },
    spec: { holderIdentity: 'replica-b', renewTime: new Date().toISOString(), leaseDurationSeconds: 15 },
  });
  const r = await elect(api, () => api.calls.filter((c) => c.method === 'GET').length >= 3);
  assert.equal(r.events, []);
  assert.equal(posts(api), []);
  assert.is(r.elector.isLeader(), false);
  assert.is(api.lease?.spec?.holderIdentity, 'replica-b');
});

test('fails GIVEN another replica creates the Lease between our read and our create (409) THEN the reconciler does not lead, says nothing alarming, and reads theirs next', async () => {
  const api = new FakeLeases();
  api.raceOnCreate = {
    metadata: { name: NAME, namespace: NS },
    spec: { holderIdentity: 'replica-b', renewTime: new Date().toISOString(), leaseDurationSeconds: 15 },
  };
  const r = await elect(api, () => api.calls.filter((c) => c.method === 'GET').length >= 3);
  assert.equal(r.events, [], 'never started leading');
  assert.is(r.elector.isLeader(), false);
  assert.is(posts(api).length, 1, 'one create, refused');
  assert.equal(
    api.calls.slice(0, 3).map((c) => c.method),
    ['GET', 'POST', 'GET'],
  );
  assert.is(r.elector.holder, 'replica-b');
  assert.is(api.lease?.spec?.holderIdentity, 'replica-b', 'theirs, untouched');
  assert.not.ok(
    r.logs.some((l) => l.level === 'warn'),
    JSON.stringify(r.logs),
  );
});

test('GIVEN the reconciler leading WHEN its Lease is deleted THEN it stops leading, creates the Lease again, and leads again', async () => {
  const api = new FakeLeases();
  let deleted = false;
  const r = await elect(api, (x) => x.events.length >= 3, {
    started: () => {
      if (deleted) return;
      deleted = true;
      api.lease = undefined; // `kubectl delete lease`, say
    },
  });
  assert.equal(r.events.slice(0, 3), ['started true', 'stopped', 'started true']);
  assert.is(posts(api).length, 2);
  for (const p of posts(api)) {
    const body = p.body as { metadata: { labels?: unknown }; spec: { holderIdentity: string } };
    assert.equal(body.metadata.labels, LABELS);
    assert.is(body.spec.holderIdentity, 'replica-a');
  }
  assert.ok(r.logs.some((l) => l.level === 'warn' && l.msg === 'stopped leading'));
});

test('fails GIVEN the reconciler leading WHEN its Lease is deleted and another replica creates it first THEN it stops leading and does not lead again', async () => {
  const api = new FakeLeases();
  let deleted = false;
  const r = await elect(
    api,
    (x) => x.events.includes('stopped') && api.calls.filter((c) => c.method === 'GET').length >= 5,
    {
      started: () => {
        if (deleted) return;
        deleted = true;
        api.lease = undefined;
        api.raceOnCreate = {
          metadata: { name: NAME, namespace: NS },
          spec: {
            holderIdentity: 'replica-b',
            renewTime: new Date().toISOString(),
            leaseDurationSeconds: 15,
          },
        };
      },
    },
  );
  assert.equal(r.events, ['started true', 'stopped']);
  assert.is(r.elector.isLeader(), false);
  assert.is(api.lease?.spec?.holderIdentity, 'replica-b');
});

test('GIVEN another replica held the Lease WHEN the Lease is deleted THEN the reconciler waits a lease duration before it creates one (the holder may act until its renew deadline)', async () => {
  const api = new FakeLeases();
  api.store({
    metadata: { name: NAME, namespace: NS },
    spec: { holderIdentity: 'replica-b', renewTime: new Date().toISOString(), leaseDurationSeconds: 15 },
  });
  let gets = 0;
  const r = await elect(api, () => {
    gets = api.calls.filter((c) => c.method === 'GET').length;
    if (gets === 2) api.lease = undefined; // deleted after it saw replica-b hold it
    return gets >= 8;
  });
  assert.equal(posts(api), [], 'no create within the lease duration');
  assert.equal(r.events, []);
  assert.is(r.elector.isLeader(), false);
});

test('fails GIVEN the Lease cannot be read (not a 404) THEN the reconciler creates nothing and does not lead', async () => {
  const api = new FakeLeases();
  const request = api.request;
  api.request = (m, p, b) =>
    m === 'GET'
      ? (api.calls.push({ method: m, path: p }), Promise.reject(new ApiError(403, 'Forbidden', 'no')))
      : request(m, p, b);
  const r = await elect(api, () => api.calls.length >= 3);
  assert.equal(r.events, []);
  assert.equal(posts(api), []);
  assert.ok(r.logs.some((l) => l.level === 'warn' && l.msg === 'Lease read or write failed'));
});

test.run();
