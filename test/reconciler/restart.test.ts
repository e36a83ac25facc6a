/**
 * `clusterset restart-member-controller` (lib/reconciler/restart.ts), what each member's restart Job
 * runs: the annotations it holds Antrea's Deployment to, parsed from its flags, and the patch it makes
 * against a fake API server (only what differs, with the resourceVersion read, again on a conflict).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, type KubeClient, type PatchType } from '../../lib/reconciler/kube';
import {
  connectedSince,
  DeploymentMissing,
  exportsToTouch,
  managerTime,
  reexportAfterRestart,
  RESTART_FIELD_MANAGER,
  parseAnnotations,
  restartMemberController,
  staleAnnotations,
} from '../../lib/reconciler/restart';
import * as run from '../../lib/reconciler/run';

const TIERS = 'clusterset/tiers-checksum';
const CONFIG = 'clusterset/config-checksum';
const PATH = '/apis/apps/v1/namespaces/kube-system/deployments/antrea-mc-controller';

const deployment = (resourceVersion: string, annotations?: Record<string, string>) => ({
  metadata: { name: 'antrea-mc-controller', namespace: 'kube-system', resourceVersion },
  spec: {
    replicas: 1,
    template: {
      metadata: { labels: { app: 'antrea' }, ...(annotations ? { annotations } : {}) },
      spec: { containers: [{ name: 'antrea-mc-controller' }] },
    },
  },
});

test('GIVEN the annotations wanted THEN staleAnnotations is those the Pod template lacks or holds with another value, nothing else', () => {
  const want = { [TIERS]: 'new', [CONFIG]: 'c' };
  assert.equal(staleAnnotations(deployment('1', { [TIERS]: 'old', [CONFIG]: 'c', other: 'x' }), want), {
    [TIERS]: 'new',
  });
  assert.equal(staleAnnotations(deployment('1'), want), want, 'no annotations at all');
  assert.equal(staleAnnotations({}, want), want, 'no template');
  assert.equal(staleAnnotations(deployment('1', { ...want, other: 'x' }), want), {}, 'all held');
  assert.equal(
    staleAnnotations(deployment('1', { [TIERS]: '' }), { [TIERS]: '' }),
    {},
    'an empty value is a value',
  );
  assert.equal(staleAnnotations(deployment('1', { other: 'x' }), {}), {});
});

test('GIVEN --annotation flags THEN parseAnnotations reads KEY=VALUE, the value up to the end (= and empty included)', () => {
  assert.equal(parseAnnotations([]), {});
  assert.equal(parseAnnotations([`${TIERS}=abc`, `${CONFIG}=def`]), { [TIERS]: 'abc', [CONFIG]: 'def' });
  assert.equal(parseAnnotations(['a=b=c', 'empty=', 'example.com/Some_Key.1=x y']), {
    a: 'b=c',
    empty: '',
    'example.com/Some_Key.1': 'x y',
  });
  // The flags the rendered Job passes parse back to what it sets.
  assert.equal(parseAnnotations([`${TIERS}=${'f'.repeat(64)}`]), { [TIERS]: 'f'.repeat(64) });
});

test('fails GIVEN a malformed --annotation (no =, no key, an invalid key or prefix) THEN parseAnnotations throws, naming the flag', () => {
  for (const bad of [
    'novalue',
    '=v',
    'Bad Key=x',
    '-a=x',
    'a-=x',
    '/a=x',
    'a/b/c=x',
    'Example.com/a=x',
    'example.com/=x',
    'a/=x',
  ])
    assert.throws(
      () => parseAnnotations([`${TIERS}=ok`, bad]),
      (e: Error) =>
        e.message === `--annotation ${JSON.stringify(bad)}: expected KEY=VALUE with a valid annotation key`,
      bad,
    );
});

test('fails GIVEN the same key twice THEN parseAnnotations throws, even with the same value', () => {
  assert.throws(
    () => parseAnnotations([`${TIERS}=a`, `${TIERS}=b`]),
    /--annotation clusterset\/tiers-checksum is given twice/,
  );
  assert.throws(() => parseAnnotations(['k=a', 'k=a']), /--annotation k is given twice/);
});

test('THEN run.ts, which the CLI loads, exports the same parseAnnotations and DeploymentMissing', () => {
  assert.is(run.parseAnnotations, parseAnnotations);
  assert.is(run.DeploymentMissing, DeploymentMissing);
});

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly patch?: PatchType;
}

/** A fake API server answering each request in turn from `answers` (a value, or an error to throw). */
function fakeClient(answers: (unknown | Error)[]): { client: KubeClient; calls: Call[] } {
  const calls: Call[] = [];
  const request = (
    method: string,
    path: string,
    body?: unknown,
    opts: { patch?: PatchType } = {},
  ): Promise<unknown> => {
    calls.push({
      method,
      path,
      ...(body !== undefined ? { body: structuredClone(body) } : {}),
      ...(opts.patch ? { patch: opts.patch } : {}),
    });
    if (answers.length === 0) return Promise.reject(new Error(`unexpected ${method} ${path}`));
    const a = answers.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(structuredClone(a));
  };
  return { client: { request } as unknown as KubeClient, calls };
}

const conflict = () =>
  new ApiError(
    409,
    'Conflict',
    'the object has been modified; please apply your changes to the latest version',
  );

test('GIVEN a Pod template lacking one annotation WHEN restarted THEN one merge patch of that annotation alone, with the resourceVersion read and field manager clusterset', async () => {
  const { client, calls } = fakeClient([deployment('41', { [TIERS]: 'old', [CONFIG]: 'c', other: 'x' }), {}]);
  const r = await restartMemberController(client, 'kube-system', 'antrea-mc-controller', {
    [TIERS]: 'new',
    [CONFIG]: 'c',
  });
  assert.equal(r.changed, { [TIERS]: 'new' });
  assert.equal(calls, [
    { method: 'GET', path: PATH },
    {
      method: 'PATCH',
      path: `${PATH}?fieldManager=clusterset`,
      body: {
        metadata: { resourceVersion: '41' },
        spec: { template: { metadata: { annotations: { [TIERS]: 'new' } } } },
      },
      patch: 'merge',
    },
  ]);
  assert.is(RESTART_FIELD_MANAGER, 'clusterset');
});

test('GIVEN a Pod template that already holds every annotation WHEN restarted THEN nothing is written, and nothing restarts', async () => {
  const { client, calls } = fakeClient([deployment('7', { [TIERS]: 'same' })]);
  const r = await restartMemberController(client, 'kube-system', 'antrea-mc-controller', { [TIERS]: 'same' });
  assert.equal(r.changed, {});
  assert.equal(
    calls.map((c) => c.method),
    ['GET'],
  );
});

test('fails GIVEN no Deployment (404) WHEN restarted THEN DeploymentMissing says Antrea must be installed first, and nothing is written', async () => {
  const { client, calls } = fakeClient([
    new ApiError(404, 'NotFound', 'deployments.apps "antrea-mc-controller" not found'),
  ]);
  try {
    await restartMemberController(client, 'kube-system', 'antrea-mc-controller', { [TIERS]: 'x' });
    assert.unreachable('it resolved');
  } catch (e) {
    assert.instance(e, DeploymentMissing);
    assert.is(
      (e as Error).message,
      "Deployment kube-system/antrea-mc-controller does not exist: Antrea's member controller must be installed first (antrea-multicluster-member.yml)",
    );
  }
  assert.is(calls.length, 1);
});

test('GIVEN a concurrent change (409 on the patch) WHEN restarted THEN it reads again and patches with the new resourceVersion, or not at all once someone else set the values', async () => {
  const retried = fakeClient([
    deployment('5', { [TIERS]: 'old' }),
    conflict(),
    deployment('6', { [TIERS]: 'old' }),
    {},
  ]);
  const r = await restartMemberController(retried.client, 'kube-system', 'antrea-mc-controller', {
    [TIERS]: 'new',
  });
  assert.equal(r.changed, { [TIERS]: 'new' });
  assert.equal(
    retried.calls.map(
      (c) =>
        `${c.method} ${(c.body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion ?? ''}`,
    ),
    ['GET ', 'PATCH 5', 'GET ', 'PATCH 6'],
  );

  const settled = fakeClient([
    deployment('5', { [TIERS]: 'old' }),
    conflict(),
    deployment('6', { [TIERS]: 'new' }),
  ]);
  const s = await restartMemberController(settled.client, 'kube-system', 'antrea-mc-controller', {
    [TIERS]: 'new',
  });
  assert.equal(s.changed, {}, 'the second read finds it set');
  assert.equal(
    settled.calls.map((c) => c.method),
    ['GET', 'PATCH', 'GET'],
  );
});

test('fails GIVEN conflicts that never end WHEN restarted THEN it gives up after 6 tries with the 409; another error is not retried', async () => {
  const answers: (unknown | Error)[] = [];
  for (let i = 0; i < 10; i++) answers.push(deployment(String(i), {}), conflict());
  const endless = fakeClient(answers);
  try {
    await restartMemberController(endless.client, 'kube-system', 'antrea-mc-controller', { [TIERS]: 'x' });
    assert.unreachable('it resolved');
  } catch (e) {
    assert.instance(e, ApiError);
    assert.is((e as ApiError).code, 409);
  }
  assert.is(endless.calls.filter((c) => c.method === 'PATCH').length, 6);

  const forbidden = fakeClient([deployment('1', {}), new ApiError(403, 'Forbidden', 'cannot patch')]);
  try {
    await restartMemberController(forbidden.client, 'kube-system', 'antrea-mc-controller', { [TIERS]: 'x' });
    assert.unreachable('it resolved');
  } catch (e) {
    assert.is((e as ApiError).code, 403);
  }
  assert.is(forbidden.calls.length, 2);
});

// ---------------------------------------------------------------------------------------------------
// After the restart: every ServiceExport reconciled once the restarted controller is connected

const CS = '/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/kube-system/clustersets/prod-set';
const SINCE = '2026-12-07T09:25:10Z';

/** A member ClusterSet whose leader condition Ready is `status` since `at`. */
const memberSet = (status: string, at: string) => ({
  metadata: { name: 'prod-set' },
  spec: { leaders: [{ clusterID: 'hub' }] },
  status: {
    clusterStatuses: [
      {
        clusterID: 'hub',
        conditions: [
          { type: 'Ready', status, lastTransitionTime: at },
          { type: 'IsLeader', status: 'True', lastTransitionTime: at },
        ],
      },
    ],
  },
});

const exportOf = (namespace: string, name: string, since?: string) => ({
  metadata: { name, namespace, ...(since ? { annotations: { 'clusterset/exported-after': since } } : {}) },
});

test("GIVEN the time of clusterset's last write THEN managerTime is its latest Update entry, none for another manager or an Apply", () => {
  const d = {
    metadata: {
      managedFields: [
        { manager: 'kubectl-client-side-apply', operation: 'Update', time: '2026-12-07T09:00:00Z' },
        { manager: 'clusterset', operation: 'Update', time: '2026-12-07T09:25:10Z' },
        { manager: 'clusterset', operation: 'Apply', time: '2026-12-07T09:30:00Z' },
      ],
    },
  };
  assert.is(managerTime(d, 'clusterset'), '2026-12-07T09:25:10Z');
  assert.is(managerTime(d, 'other'), undefined);
  assert.is(managerTime({}, 'clusterset'), undefined);
});

test("GIVEN the member ClusterSet's status THEN connectedSince holds only for the leader Ready True since the restart, to the second: a controller connected before it does not count", () => {
  assert.ok(connectedSince(memberSet('True', '2026-12-07T09:25:14Z'), SINCE));
  assert.ok(connectedSince(memberSet('True', SINCE), '2026-12-07T09:25:10.800Z'), 'the same second');
  assert.not.ok(connectedSince(memberSet('True', '2026-12-07T09:00:00Z'), SINCE), 'the old process');
  assert.not.ok(connectedSince(memberSet('False', '2026-12-07T09:25:14Z'), SINCE), 'disconnected');
  assert.not.ok(connectedSince(memberSet('Unknown', '2026-12-07T09:25:14Z'), SINCE));
  assert.not.ok(connectedSince({ spec: { leaders: [{ clusterID: 'hub' }] } }, SINCE), 'no status yet');
  const other = memberSet('True', '2026-12-07T09:25:14Z');
  other.status.clusterStatuses[0]!.clusterID = 'elsewhere';
  assert.not.ok(connectedSince(other, SINCE), "another leader's status");
});

test('GIVEN ServiceExports THEN exportsToTouch is those not yet annotated with the restart time', () => {
  const a = exportOf('shop', 'a');
  const b = exportOf('shop', 'b', SINCE);
  const c = exportOf('shop', 'c', '2026-01-01T00:00:00Z');
  assert.equal(exportsToTouch([a, b, c], SINCE), [a, c]);
});

test('GIVEN a restart WHEN re-exporting THEN it records waiting, reads the ClusterSet until the restarted controller is connected, annotates each ServiceExport of the export namespaces not yet annotated, and records done', async () => {
  const slept: number[] = [];
  const { client, calls } = fakeClient([
    memberSet('True', '2026-12-07T09:00:00Z'), // the old process's status
    {}, // record waiting
    memberSet('True', '2026-12-07T09:25:31Z'), // the new one's, 30 s later
    { items: [exportOf('shop', 'cart'), exportOf('shop', 'done', SINCE)] },
    { items: [exportOf('web', 'front')] },
    {},
    {},
    {}, // record done
  ]);
  const touched = await reexportAfterRestart(client, {
    namespace: 'kube-system',
    clusterSet: 'prod-set',
    since: SINCE,
    exportNamespaces: ['shop', 'web'],
    job: 'clusterset-restart-abc',
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
  assert.equal(touched, ['shop/cart', 'web/front']);
  assert.equal(slept, [5000]);
  const merge = (annotations: Record<string, string>) => ({ metadata: { annotations } });
  assert.equal(calls, [
    { method: 'GET', path: CS },
    {
      method: 'PATCH',
      path: `${CS}?fieldManager=clusterset`,
      body: merge({
        'clusterset/restart': `clusterset-restart-abc waiting: Antrea's member controller restarted at ${SINCE}; waiting for it to connect to the leader (its ClusterSet's leader Ready since then), to re-export every ServiceExport`,
        'clusterset/restart-state': 'clusterset-restart-abc waiting',
      }),
      patch: 'merge',
    },
    { method: 'GET', path: CS },
    { method: 'GET', path: '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/shop/serviceexports' },
    { method: 'GET', path: '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/web/serviceexports' },
    {
      method: 'PATCH',
      path: '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/shop/serviceexports/cart?fieldManager=clusterset',
      body: merge({ 'clusterset/exported-after': SINCE }),
      patch: 'merge',
    },
    {
      method: 'PATCH',
      path: '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/web/serviceexports/front?fieldManager=clusterset',
      body: merge({ 'clusterset/exported-after': SINCE }),
      patch: 'merge',
    },
    {
      method: 'PATCH',
      path: `${CS}?fieldManager=clusterset`,
      body: merge({
        'clusterset/restart': 'clusterset-restart-abc done',
        'clusterset/restart-state': 'clusterset-restart-abc done',
      }),
      patch: 'merge',
    },
  ]);
});

test("GIVEN Antrea's webhook refusing the ClusterSet while its controller restarts WHEN recording THEN a refused record is no failure, and done is tried again until it lands", async () => {
  const refused = () => new ApiError(500, 'InternalError', 'failed calling webhook "vclusterset.kb.io"');
  const lines: string[] = [];
  const { client, calls } = fakeClient([
    memberSet('True', '2026-12-07T09:25:31Z'),
    { items: [] },
    refused(),
    {},
  ]);
  const touched = await reexportAfterRestart(client, {
    namespace: 'kube-system',
    clusterSet: 'prod-set',
    since: SINCE,
    exportNamespaces: ['shop'],
    job: 'j',
    log: (l) => lines.push(l),
    sleep: () => Promise.resolve(),
  });
  assert.equal(touched, []);
  assert.equal(
    calls.filter((c) => c.method === 'PATCH').map((c) => JSON.stringify(c.body)),
    [
      JSON.stringify({
        metadata: { annotations: { 'clusterset/restart': 'j done', 'clusterset/restart-state': 'j done' } },
      }),
      JSON.stringify({
        metadata: { annotations: { 'clusterset/restart': 'j done', 'clusterset/restart-state': 'j done' } },
      }),
    ],
  );
  assert.match(
    lines.join('\n'),
    'cannot record "j done" on ClusterSet kube-system/prod-set: failed calling webhook',
  );
});

test('GIVEN a member that exports nothing WHEN re-exporting THEN nothing is waited for: it records done at once', async () => {
  const { client, calls } = fakeClient([{}]);
  const touched = await reexportAfterRestart(client, {
    namespace: 'kube-system',
    clusterSet: 'prod-set',
    since: SINCE,
    exportNamespaces: [],
    job: 'j',
    sleep: () => Promise.reject(new Error('it waited')),
  });
  assert.equal(touched, []);
  assert.equal(
    calls.map((c) => c.method),
    ['PATCH'],
  );
});

test('GIVEN names that need escaping WHEN restarted THEN the path encodes them', async () => {
  const { client, calls } = fakeClient([deployment('1', { k: 'v' })]);
  await restartMemberController(client, 'a b', 'c/d', { k: 'v' });
  assert.is(calls[0]!.path, '/apis/apps/v1/namespaces/a%20b/deployments/c%2Fd');
});

test.run();
