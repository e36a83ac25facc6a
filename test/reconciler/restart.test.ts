/**
 * `clusterset restart-member-controller` (lib/reconciler/restart.ts), what each member's restart Job
 * runs: the annotations it holds Antrea's Deployment to, parsed from its flags, and the patch it makes
 * against a fake API server (only what differs, with the resourceVersion read, again on a conflict).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, type KubeClient, type PatchType } from '../../lib/reconciler/kube';
import {
  DeploymentMissing,
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

test('GIVEN names that need escaping WHEN restarted THEN the path encodes them', async () => {
  const { client, calls } = fakeClient([deployment('1', { k: 'v' })]);
  await restartMemberController(client, 'a b', 'c/d', { k: 'v' });
  assert.is(calls[0]!.path, '/apis/apps/v1/namespaces/a%20b/deployments/c%2Fd');
});

test.run();
