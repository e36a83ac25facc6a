import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyMemberToken, describeCopy, scrub, TokenError } from '../lib/token';
import { minimalModel, planOf } from './helpers/models';

test('GIVEN a message holding a token raw and base64-encoded WHEN scrubbed THEN neither form is left', () => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.payload.signature';
  const b64 = Buffer.from(token).toString('base64');
  const out = scrub(`bad token ${token} in body {"data":{"token":"${b64}"}}`, [token]);
  assert.not.ok(out.includes(token) || out.includes(b64), out);
  assert.is(out, 'bad token [redacted] in body {"data":{"token":"[redacted]"}}');
});

test('fails GIVEN a cluster ID that is not a member WHEN copying THEN it names the members and touches no cluster', async () => {
  const e = await copyMemberToken({
    plan: planOf(minimalModel()),
    member: 'south',
    leader: { kubeconfig: '/nonexistent' },
    memberCluster: { kubeconfig: '/nonexistent' },
  }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, TokenError);
  assert.match(
    (e as Error).message,
    /"south" is not a member of ClusterSet test-set \(members: east, west\)/,
  );
});

test('fails GIVEN a kubeconfig without the requested context THEN the error lists the contexts it has', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-unit-'));
  try {
    const file = path.join(dir, 'kubeconfig');
    fs.writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'hub', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'hub', context: { cluster: 'hub', user: 'u' } }],
        'current-context': 'hub',
      }),
    );
    const e = await copyMemberToken({
      plan: planOf(minimalModel()),
      member: 'east',
      leader: { kubeconfig: file, context: 'hubb' },
      memberCluster: { kubeconfig: file },
    }).then(
      () => undefined,
      (x: unknown) => x,
    );
    assert.instance(e, TokenError);
    assert.match(
      (e as Error).message,
      /no context "hubb" in the leader kubeconfig .* \(it has: hub\); pass --leader-context/,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN a copy result WHEN described THEN one line with names and byte counts', () => {
  assert.is(
    describeCopy({
      member: 'east',
      leaderContext: 'hub',
      leaderServer: 'https://hub:6443',
      leaderSecret: 'antrea-multicluster/member-east',
      memberContext: 'east',
      memberServer: 'https://east:6443',
      memberSecret: 'kube-system/antrea-mc-leader-token',
      bytes: { 'ca.crt': 1066, token: 950 },
      outcome: 'created',
      removedKeys: [],
    }),
    'member east: Secret kube-system/antrea-mc-leader-token created on east (https://east:6443) from antrea-multicluster/member-east on hub (https://hub:6443): ca.crt 1066 bytes, token 950 bytes',
  );
});

test.run();
