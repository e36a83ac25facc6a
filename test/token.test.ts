/**
 * `clusterset token` without a cluster: the token never reaches a message; which clusters the two
 * sides are (the context named as each cluster's ID, never the current one); and every refusal
 * before a cluster is called, each a usage error (exit 2 from the CLI): a cluster ID that is no
 * member ("did you mean"), a context that is not there, two contexts that reach one API server
 * while the member is not the leader (the day-two trap: the leader's token copied into the leader).
 */
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin, type Ran } from './helpers/cli';
import { writeKubeconfig } from './helpers/kubeconfig';
import { normaliseServer } from '../lib/kubeconfig';
import { copyMemberToken, describeCopy, scrub, TokenError, type CopyTokenOptions } from '../lib/token';
import { dualRoleModel, minimalModel, planOf } from './helpers/models';

/** A kubeconfig file with one context per entry, each on its own cluster at `server`. */
function kubeconfig(contexts: Record<string, string>, current?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-unit-'));
  const names = Object.keys(contexts);
  return writeKubeconfig(path.join(dir, 'kubeconfig'), {
    // The client speaks plain HTTP (to fakeApi) only with TLS verification off.
    clusters: names.map((n) => ({
      name: `c-${n}`,
      cluster: {
        server: contexts[n],
        ...(contexts[n]!.startsWith('http:') ? { 'insecure-skip-tls-verify': true } : {}),
      },
    })),
    users: [{ name: 'u', user: { token: 'not-a-token' } }],
    contexts: names.map((n) => ({ name: n, context: { cluster: `c-${n}`, user: 'u' } })),
    ...(current ? { 'current-context': current } : {}),
  });
}

/** The copy's rejection (it must reject). */
async function refusal(opts: CopyTokenOptions): Promise<TokenError> {
  const e = await copyMemberToken({ waitMs: 0, ...opts }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, TokenError);
  return e as TokenError;
}

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
    /"south" is not a member of ClusterSet test-set \(members: east, west\)$/,
  );
  assert.ok((e as TokenError).usage, 'a usage error');
});

test('fails GIVEN a mistyped member ID WHEN copying THEN a usage error says "did you mean" the nearest member', async () => {
  const e = await refusal({
    plan: planOf(minimalModel()),
    member: 'esat',
    leader: { kubeconfig: '/nonexistent' },
    memberCluster: { kubeconfig: '/nonexistent' },
  });
  assert.is(
    e.message,
    '"esat" is not a member of ClusterSet test-set (members: east, west); did you mean "east"?',
  );
  assert.ok(e.usage);
});

test('fails GIVEN no context flags and a kubeconfig whose contexts hub and east reach one API server WHEN copying east THEN refused before any call: the token would go into the leader', async () => {
  // The same server spelled two ways: the contexts are found by cluster ID, the servers compared normalised.
  const file = kubeconfig({ hub: 'https://127.0.0.1:1', east: 'https://LOCALHOST:1/' }, 'hub');
  const e = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: file },
    memberCluster: { kubeconfig: file },
  });
  assert.ok(e.usage);
  assert.is(
    e.message,
    'the member context east and the leader context hub reach the same API server (https://LOCALHOST:1 and https://127.0.0.1:1): ' +
      "the token would be copied into the leader hub, not into east; pass --member-context naming east's context " +
      '(and --member-kubeconfig if it is in another file)',
  );
});

test('fails GIVEN a model whose leader and member name one API server (spelled differently) WHEN copying THEN refused before any kubeconfig is read: one cluster under two IDs', async () => {
  const m = minimalModel();
  m.clusters[1]!.apiServer = 'HTTPS://Hub.Example.com:6443/';
  const e = await refusal({
    plan: planOf(m),
    member: 'east',
    leader: { kubeconfig: '/nonexistent' },
    memberCluster: { kubeconfig: '/nonexistent' },
  });
  assert.ok(e.usage);
  assert.is(
    e.message,
    'the model gives the leader hub and the member east one API server ' +
      '(https://hub.example.com:6443 and HTTPS://Hub.Example.com:6443/): one cluster under two IDs, so the token ' +
      'would be copied into the leader; give east its own API server URL (apiServer) in the model',
  );
});

test("fails GIVEN contexts on two servers, the member's being the model's apiServer of the leader (or the leader's the member's) WHEN copying THEN refused before any call, naming the context, the URL and the flag", async () => {
  // The member context reaches hub's apiServer (https, default-port spelling aside), the leader context some proxy.
  const member = kubeconfig({ hub: 'https://127.0.0.1:1', east: 'https://HUB.example.com:6443/' });
  const m = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: member },
    memberCluster: { kubeconfig: member },
  });
  assert.ok(m.usage);
  assert.is(
    m.message,
    'the member context east reaches https://HUB.example.com:6443, the API server the model gives the leader hub ' +
      '(https://hub.example.com:6443): the token would be copied into the leader, not into east; pass ' +
      "--member-context naming east's context (and --member-kubeconfig if it is in another file)",
  );
  const leader = kubeconfig({ hub: 'https://east.example.com:6443', east: 'https://127.0.0.1:2' });
  const l = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: leader },
    memberCluster: { kubeconfig: leader },
  });
  assert.ok(l.usage);
  assert.match(
    l.message,
    /^the leader context hub reaches https:\/\/east\.example\.com:6443, the API server the model gives the member east .*; pass --leader-context naming hub's context/,
  );
  // The default port is the same server: https://hub.example.com and :443.
  const m443 = minimalModel();
  m443.clusters[0]!.apiServer = 'https://hub.example.com';
  const port = await refusal({
    plan: planOf(m443),
    member: 'east',
    leader: { kubeconfig: member },
    memberCluster: { kubeconfig: kubeconfig({ east: 'https://hub.example.com:443' }) },
  });
  assert.match(
    port.message,
    /^the member context east reaches https:\/\/hub\.example\.com:443, the API server the model gives the leader hub/,
  );
});

test('fails GIVEN the member context is the current one WHEN copying with no context flags THEN the leader is still the context named hub, not the current one', async () => {
  const file = kubeconfig({ hub: 'https://127.0.0.1:1', east: 'https://127.0.0.1:2' }, 'east');
  const e = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: file },
    memberCluster: { kubeconfig: file },
  });
  // Nothing listens there: the leader side was called, through its own context.
  assert.not.ok(e.usage);
  assert.match(
    e.message,
    /^cannot reach the leader \(context hub, https:\/\/127\.0\.0\.1:1\) while reading Secret/,
  );
});

test('GIVEN a leader that is also a member WHEN copying its own token THEN one API server for both sides is not refused', async () => {
  const file = kubeconfig({ hub: 'https://127.0.0.1:1' }, 'hub');
  const e = await refusal({
    plan: planOf(dualRoleModel()),
    member: 'hub',
    leader: { kubeconfig: file },
    memberCluster: { kubeconfig: file },
  });
  assert.not.ok(e.usage);
  assert.match(e.message, /^cannot reach the leader \(context hub, https:\/\/127\.0\.0\.1:1\)/);
});

test('fails GIVEN a kubeconfig without a context named as the cluster ID WHEN copying with no context flags THEN a usage error says which context it looked for and how to name another', async () => {
  const file = kubeconfig({ 'kind-hub': 'https://127.0.0.1:1', 'kind-east': 'https://127.0.0.1:2' });
  const e = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: file },
    memberCluster: { kubeconfig: file },
  });
  assert.ok(e.usage);
  assert.is(
    e.message,
    `no context "hub" in the leader kubeconfig ${file} (it has: kind-hub, kind-east); ` +
      "pass --leader-context (by default the context named as the leader's cluster ID, hub)",
  );
});

test('fails GIVEN an empty kubeconfig WHEN copying THEN a usage error names the file, not a JavaScript error', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-unit-'));
  const file = path.join(dir, 'kubeconfig');
  fs.writeFileSync(file, '');
  const e = await refusal({
    plan: planOf(minimalModel()),
    member: 'east',
    leader: { kubeconfig: file },
    memberCluster: { kubeconfig: file },
  });
  assert.ok(e.usage);
  assert.is(
    e.message,
    `leader: the kubeconfig ${file} is empty; pass --leader-kubeconfig FILE with a context for hub`,
  );
});

test('GIVEN API server URLs spelled differently WHEN normalised THEN one server is one string and two servers stay two', () => {
  const same = [
    ['https://Hub.Example.com:443/', 'https://hub.example.com'],
    ['https://hub.example.com.:6443', 'https://hub.example.com:6443//'],
    ['https://localhost:6443', 'https://127.0.0.1:6443'],
    ['https://[::1]:6443', 'https://127.0.0.1:6443'],
    ['hub.example.com:6443', 'https://hub.example.com:6443'],
  ];
  for (const [a, b] of same) assert.is(normaliseServer(a!), normaliseServer(b!), `${a} = ${b}`);
  const different = [
    ['https://127.0.0.1:6443', 'https://127.0.0.1:6444'],
    ['https://rancher.example.com/k8s/clusters/c-1', 'https://rancher.example.com/k8s/clusters/c-2'],
    ['http://hub.example.com', 'https://hub.example.com'],
    ['https://hub.example.com', 'https://east.example.com'],
  ];
  for (const [a, b] of different) assert.is.not(normaliseServer(a!), normaliseServer(b!), `${a} != ${b}`);
});

/** The CLI as a user runs it, on the example model (no External Secrets). */
function cli(args: string[]): Ran {
  return runBin(['token', ...args], { env: { ...process.env, KUBECONFIG: '/nonexistent' } });
}

test('fails GIVEN the CLI WHEN the member is mistyped, or both contexts reach one server THEN exit 2 with one line, and nothing on stdout', () => {
  const typo = cli(['esat']);
  assert.is(typo.status, 2, typo.stderr);
  assert.is(typo.stdout, '');
  assert.is(
    typo.stderr,
    'clusterset token: "esat" is not a member of ClusterSet prod-set (members: central, east, edge, west); did you mean "east"?\n',
  );
  const file = kubeconfig({ hub: 'https://127.0.0.1:1', east: 'https://127.0.0.1:1' });
  const same = cli(['east', '--leader-kubeconfig', file, '--member-kubeconfig', file]);
  assert.is(same.status, 2, same.stderr);
  assert.is(same.stdout, '');
  assert.match(
    same.stderr,
    /^clusterset token: the member context east and the leader context hub reach the same API server \(https:\/\/127\.0\.0\.1:1\)/,
  );
});

test('fails GIVEN a kubeconfig without the requested context THEN the error lists the contexts it has', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-unit-'));
  try {
    const file = writeKubeconfig(path.join(dir, 'kubeconfig'), {
      clusters: [{ name: 'hub', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'hub', context: { cluster: 'hub', user: 'u' } }],
      'current-context': 'hub',
    });
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
      /no context "hubb" in the leader kubeconfig .* \(it has: hub\); did you mean "hub"\? If not, pass --leader-context naming one of them$/,
    );
    assert.ok((e as TokenError).usage);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A stand-in API server: answers `routes` by method and path, 404 otherwise, and records each request. */
async function fakeApi(
  routes: Record<string, (body: string) => unknown>,
): Promise<{ url: string; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const key = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      seen.push(key);
      const route = routes[key];
      res.setHeader('Content-Type', 'application/json');
      if (!route) {
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', code: 404, message: 'not found' }));
        return;
      }
      res.end(JSON.stringify(route(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => server.close() };
}

test("GIVEN west's memberIdentity (token Secret member-west-token in the leader, west-leader-token in west) WHEN copying west's token THEN it reads the one and writes the other, never a default name", async () => {
  const m = minimalModel();
  m.clusters[2]!.memberIdentity = {
    serviceAccount: 'member-west',
    tokenSecret: 'member-west-token',
    memberTokenSecret: 'west-leader-token',
  };
  const b64 = (x: string) => Buffer.from(x).toString('base64');
  const leader = await fakeApi({
    'GET /api/v1/namespaces/antrea-multicluster/secrets/member-west-token': () => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member-west-token', namespace: 'antrea-multicluster' },
      type: 'kubernetes.io/service-account-token',
      data: {
        'ca.crt': b64('CA'),
        token: b64('a-token-of-some-length'),
        namespace: b64('antrea-multicluster'),
      },
    }),
  });
  const member = await fakeApi({
    'PATCH /api/v1/namespaces/kube-system/secrets/west-leader-token': (body) => body && JSON.parse(body),
  });
  try {
    const file = kubeconfig({ hub: leader.url, west: member.url });
    const r = await copyMemberToken({
      plan: planOf(m),
      member: 'west',
      leader: { kubeconfig: file },
      memberCluster: { kubeconfig: file },
      waitMs: 0,
    });
    assert.is(r.leaderSecret, 'antrea-multicluster/member-west-token');
    assert.is(r.memberSecret, 'kube-system/west-leader-token');
    assert.is(r.outcome, 'created');
    assert.equal(leader.seen, ['GET /api/v1/namespaces/antrea-multicluster/secrets/member-west-token']);
    assert.equal(member.seen, [
      'GET /api/v1/namespaces/kube-system/secrets/west-leader-token',
      'PATCH /api/v1/namespaces/kube-system/secrets/west-leader-token',
    ]);
  } finally {
    leader.close();
    member.close();
  }
});

test("fails GIVEN External Secrets and west's own member token Secret WHEN copying west's token THEN the refusal names west's Secret, which its ExternalSecret owns", async () => {
  const m = minimalModel();
  m.clusters[2]!.memberIdentity = { memberTokenSecret: 'west-leader-token' };
  m.secrets = {
    externalSecrets: {
      leaderCA: { pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
      auth: { serviceAccount: { name: 'antrea-mc-token-reader' } },
      leaderUsername: 'oidc:{cluster}:reader',
    },
  };
  const e = await refusal({
    plan: planOf(m),
    member: 'west',
    leader: { kubeconfig: '/nonexistent' },
    memberCluster: { kubeconfig: '/nonexistent' },
  });
  assert.ok(e.usage);
  assert.match(e.message, 'the ExternalSecret kube-system/west-leader-token owns it');
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
