// End-to-end: the token Secret of a member, on real control planes (test/kube), no mocks.
//
// A leader and a member API server. The leader bundle of golden case `external-secrets` is applied;
// the leader's kube-controller-manager fills each member's token Secret. Then:
//  - `clusterset token` (as a function, and once as the CLI child process) copies it into the member,
//    with exactly ca.crt and token, idempotently, and never prints it;
//  - with no context flags, the contexts named as the cluster IDs (`hub`, `east`); two that reach
//    one API server are refused (exit 2) and nothing is written to the leader;
//  - its failures (unknown member, unknown context, Secret missing or not filled, permission denied)
//    are clear and carry no token;
//  - the External Secrets reader identities the bundle grants can get their own member's token
//    Secret only (SubjectAccessReview on the real leader's RBAC).
//
// Clusters start inside the first test, not in before(): uvu swallows before() errors.

import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli as runCli } from '../helpers/cli';
import { compile } from '../../lib/compile';
import type { ClusterSetProps } from '../../lib/model';
import { memberIdentityName } from '../../lib/names';
import { storeUsername, type Plan } from '../../lib/plan';
import { copyMemberToken, TokenError } from '../../lib/token';
import { applyBundle } from '../parties/argocd-apply';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll, tokenKubeConfig } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { loadCase } from '../helpers/golden';

const ROOT = path.resolve(__dirname, '..', '..');
const CASE = 'external-secrets';

interface Ctx {
  leader: Cluster;
  member: Cluster;
  /** The case's model without External Secrets: the names of the manual mode. */
  plan: Plan;
  /** The case's own plan, External Secrets included. */
  esoPlan: Plan;
  /** The same model as a file, for the CLI. */
  modelFile: string;
  tmp: string;
  /** member ID → its token Secret's data on the leader (base64, as stored). */
  leaderData: Map<string, Record<string, string>>;
}

function planOf(model: ClusterSetProps): Plan {
  const r = compile(model);
  if (!r.plan || r.diagnostics.length > 0)
    throw new Error(`model does not compile: ${JSON.stringify(r.diagnostics)}`);
  return r.plan;
}

let started: Promise<Ctx> | undefined;
function context(): Promise<Ctx> {
  started ??= (async () => {
    const clusters = await startClusters(['tok-hub', 'tok-east']);
    const leader = clusters.get('tok-hub') as Cluster;
    const member = clusters.get('tok-east') as Cluster;
    const applied = await applyBundle(leader, path.join(ROOT, 'examples', CASE, 'out', 'clusters', 'hub'));
    if (applied.rejected.length > 0)
      throw new Error(`leader bundle rejected: ${JSON.stringify(applied.rejected)}`);
    const model = loadCase(CASE);
    const esoPlan = planOf(model);
    const manual: ClusterSetProps = { ...model, secrets: {} };
    const plan = planOf(manual);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-'));
    const modelFile = path.join(tmp, 'clusterset.json');
    fs.writeFileSync(modelFile, JSON.stringify(manual));
    const leaderData = new Map<string, Record<string, string>>();
    for (const m of plan.members) {
      const name = memberIdentityName(m.id);
      const data = await eventually(`the controller manager fills ${name}`, async () => {
        const r = await request(
          leader.admin,
          'GET',
          `/api/v1/namespaces/${plan.leaderNamespace}/secrets/${name}`,
        );
        const d = (r.json as { data?: Record<string, string> } | undefined)?.data;
        return d?.token && d['ca.crt'] ? d : undefined;
      });
      leaderData.set(m.id, data);
    }
    return { leader, member, plan, esoPlan, modelFile, tmp, leaderData };
  })();
  return started;
}

/** The member token of `id` in every form it could leak in: raw, and base64 as stored. */
function tokenForms(c: Ctx, id = 'east'): string[] {
  const b64 = c.leaderData.get(id)?.token ?? '';
  return [b64, Buffer.from(b64, 'base64').toString('utf8')];
}

function assertNoToken(c: Ctx, text: string, what: string): void {
  for (const id of c.leaderData.keys()) {
    for (const form of tokenForms(c, id))
      assert.not.ok(text.includes(form), `${what} contains the ${id} token`);
  }
}

async function memberSecret(c: Ctx): Promise<{ type?: string; data?: Record<string, string> } | undefined> {
  const r = await request(
    c.member.admin,
    'GET',
    `/api/v1/namespaces/${c.plan.memberNamespace}/secrets/${c.plan.memberTokenSecretName}`,
  );
  return r.status === 200 ? (r.json as { type?: string; data?: Record<string, string> }) : undefined;
}

function copy(c: Ctx, extra: Partial<Parameters<typeof copyMemberToken>[0]> = {}) {
  return copyMemberToken({
    plan: c.plan,
    member: 'east',
    leader: { kubeconfig: c.leader.kubeconfigPath, context: c.leader.name },
    memberCluster: { kubeconfig: c.member.kubeconfigPath, context: c.member.name },
    waitMs: 5_000,
    ...extra,
  });
}

/** Runs the CLI as a child process, never with a kubeconfig of the machine's; its exit code and both streams. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, { env: { ...process.env, KUBECONFIG: '/nonexistent' }, timeout: 120_000 });
}

async function fails(p: Promise<unknown>): Promise<TokenError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, TokenError);
    return e as TokenError;
  }
  throw new assert.Assertion({
    message: 'expected a TokenError',
    operator: 'rejects',
    expects: 'rejection',
    actual: 'resolved',
  });
}

const token = suite('clusterset token on real API servers');

token(
  'GIVEN a filled leader token Secret WHEN copied THEN the member Secret is Opaque with exactly ca.crt and token, equal to the leader',
  async () => {
    const c = await context();
    const r = await copy(c);
    assert.is(r.outcome, 'created');
    assert.is(r.memberSecret, `${c.plan.memberNamespace}/${c.plan.memberTokenSecretName}`);
    assert.is(r.leaderSecret, `${c.plan.leaderNamespace}/member-east`);
    const s = await memberSecret(c);
    assert.is(s?.type, 'Opaque');
    assert.equal(Object.keys(s?.data ?? {}).sort(), ['ca.crt', 'token']);
    const leader = c.leaderData.get('east') ?? {};
    assert.is(s?.data?.token, leader.token);
    assert.is(s?.data?.['ca.crt'], leader['ca.crt']);
    assert.is(r.bytes.token, Buffer.from(leader.token ?? '', 'base64').length);
    assertNoToken(c, JSON.stringify(r), 'the result');
  },
);

token('GIVEN the Secret was copied WHEN copied again THEN nothing changes (idempotent)', async () => {
  const c = await context();
  const before = await request(
    c.member.admin,
    'GET',
    `/api/v1/namespaces/kube-system/secrets/${c.plan.memberTokenSecretName}`,
  );
  const r = await copy(c);
  assert.is(r.outcome, 'unchanged');
  const after = await request(
    c.member.admin,
    'GET',
    `/api/v1/namespaces/kube-system/secrets/${c.plan.memberTokenSecretName}`,
  );
  const rv = (x: typeof before) =>
    (x.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  assert.is(rv(after), rv(before), 'a no-op apply does not write');
});

token(
  'GIVEN a member Secret with a stale extra key (the documented manual copy adds "namespace") WHEN copied THEN only ca.crt and token remain',
  async () => {
    const c = await context();
    const r0 = await request(
      c.member.admin,
      'PATCH',
      `/api/v1/namespaces/kube-system/secrets/${c.plan.memberTokenSecretName}?fieldManager=kubectl`,
      { data: { namespace: Buffer.from('antrea-multicluster').toString('base64') } },
      'application/merge-patch+json',
    );
    assert.is(r0.status, 200, r0.body);
    const r = await copy(c);
    assert.is(r.outcome, 'updated');
    assert.equal(r.removedKeys, ['namespace']);
    assert.equal(Object.keys((await memberSecret(c))?.data ?? {}).sort(), ['ca.crt', 'token']);
  },
);

token(
  'GIVEN the CLI WHEN run as a child process, twice THEN it says what it did and neither stream holds the token',
  async () => {
    const c = await context();
    for (let i = 0; i < 2; i++) {
      const r = await cli([
        'token',
        'east',
        '--model',
        c.modelFile,
        '--leader-kubeconfig',
        c.leader.kubeconfigPath,
        '--leader-context',
        c.leader.name,
        '--member-kubeconfig',
        c.member.kubeconfigPath,
        '--member-context',
        c.member.name,
      ]);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /member east: Secret kube-system\/antrea-mc-leader-token unchanged on tok-east/);
      assert.match(r.stdout, /token \d+ bytes/);
      assertNoToken(c, r.stdout + r.stderr, 'CLI output');
    }
    assert.equal(Object.keys((await memberSecret(c))?.data ?? {}).sort(), ['ca.crt', 'token']);
  },
);

/**
 * A kubeconfig file whose contexts are named as the model's cluster IDs: `hub` for the leader, and
 * `east` for `east` (the member by default; the leader itself to play the day-two trap).
 */
function idsKubeconfig(c: Ctx, name: string, east: Cluster = c.member): string {
  const entries = [
    ['hub', c.leader],
    ['east', east],
  ] as const;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: entries.map(([id, cl]) => ({ ...cl.kc.getCurrentCluster()!, name: id })),
    users: entries.map(([id, cl]) => ({ ...cl.kc.getCurrentUser()!, name: id })),
    contexts: entries.map(([id]) => ({ name: id, cluster: id, user: id })),
    currentContext: 'hub',
  });
  const file = path.join(c.tmp, name);
  fs.writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
  return file;
}

token(
  'GIVEN a kubeconfig with contexts named as the cluster IDs WHEN the CLI runs without context flags THEN it copies from the leader into the member',
  async () => {
    const c = await context();
    const file = idsKubeconfig(c, 'ids.kubeconfig');
    const r = await cli([
      'token',
      'east',
      '--model',
      c.modelFile,
      '--leader-kubeconfig',
      file,
      '--member-kubeconfig',
      file,
    ]);
    assert.is(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^member east: Secret kube-system\/antrea-mc-leader-token unchanged on east \(https:\/\/127\.0\.0\.1:\d+\) from antrea-multicluster\/member-east on hub \(/,
    );
    assertNoToken(c, r.stdout + r.stderr, 'CLI output');
  },
);

token(
  'fails GIVEN no context flags and a kubeconfig whose member context reaches the leader WHEN the CLI runs THEN exit 2 before any call, and the leader holds no copy',
  async () => {
    const c = await context();
    // The day-two trap: the context `east` reaches the leader's API server.
    const file = idsKubeconfig(c, 'trap.kubeconfig', c.leader);
    const r = await cli([
      'token',
      'east',
      '--model',
      c.modelFile,
      '--leader-kubeconfig',
      file,
      '--member-kubeconfig',
      file,
    ]);
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stdout, '');
    assert.match(
      r.stderr,
      /^clusterset token: the member context east and the leader context hub reach the same API server \(https:\/\/127\.0\.0\.1:\d+\): the token would be copied into the leader hub, not into east/,
    );
    const onLeader = await request(
      c.leader.admin,
      'GET',
      `/api/v1/namespaces/${c.plan.memberNamespace}/secrets/${c.plan.memberTokenSecretName}`,
    );
    assert.is(onLeader.status, 404, 'nothing was copied into the leader');
  },
);

token('fails clearly GIVEN the CLI WHEN the member context does not exist', async () => {
  const c = await context();
  const r = await cli([
    'token',
    'east',
    '--model',
    c.modelFile,
    '--leader-kubeconfig',
    c.leader.kubeconfigPath,
    '--leader-context',
    c.leader.name,
    '--member-kubeconfig',
    c.member.kubeconfigPath,
    '--member-context',
    'tok-south',
  ]);
  assert.is(r.code, 2, 'a usage error');
  assert.match(r.stderr, /no context "tok-south" in the member kubeconfig .* \(it has: tok-east\)/);
  assert.is(r.stdout, '');
  assertNoToken(c, r.stdout + r.stderr, 'CLI output');
});

token('fails GIVEN a cluster that is not a member WHEN copied THEN the error lists the members', async () => {
  const c = await context();
  const e = await fails(copy(c, { member: 'hub' }));
  assert.match(e.message, /"hub" is not a member of ClusterSet eso-set \(members: east, west\)/);
});

token(
  'fails GIVEN the model uses External Secrets THEN the copy refuses to fight the ExternalSecret',
  async () => {
    const c = await context();
    const e = await fails(copy(c, { plan: c.esoPlan }));
    assert.match(e.message, /External Secrets/);
  },
);

token(
  'fails GIVEN a member whose Secret the leader bundle does not have WHEN copied THEN it says to apply the leader bundle',
  async () => {
    const c = await context();
    const model = loadCase(CASE);
    const south: ClusterSetProps = {
      ...model,
      secrets: {},
      members: [...model.members, 'south'],
      clusters: [
        ...model.clusters,
        { id: 'south', apiServer: 'https://south.example.com:6443', serviceCIDR: '10.103.0.0/16' },
      ],
    };
    const e = await fails(copy(c, { plan: planOf(south), member: 'south' }));
    assert.match(
      e.message,
      /Secret antrea-multicluster\/member-south does not exist on the leader .*apply the leader bundle first/,
    );
  },
);

token(
  "GIVEN a member whose leader Secret the leader's bundle creates only during the wait (the checklist runs token right after the bootstrap) WHEN copied THEN it waits for the Secret and its token, and copies",
  async () => {
    const c = await context();
    const model = loadCase(CASE);
    const late: ClusterSetProps = {
      ...model,
      secrets: {},
      members: [...model.members, 'late'],
      clusters: [
        ...model.clusters,
        { id: 'late', apiServer: 'https://late.example.com:6443', serviceCIDR: '10.105.0.0/16' },
      ],
    };
    const plan = planOf(late);
    const name = memberIdentityName('late');
    const ns = plan.leaderNamespace;
    // The leader's bundle syncing a second after the copy starts: its ServiceAccount, then its token
    // Secret, which the real token controller fills.
    const sync = (async () => {
      await new Promise((r) => setTimeout(r, 1_000));
      for (const [p, body] of [
        [
          `/api/v1/namespaces/${ns}/serviceaccounts`,
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
        ],
        [
          `/api/v1/namespaces/${ns}/secrets`,
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name, annotations: { 'kubernetes.io/service-account.name': name } },
            type: 'kubernetes.io/service-account-token',
          },
        ],
      ] as const) {
        const r = await request(c.leader.admin, 'POST', p, body);
        assert.is(r.status, 201, r.body);
      }
    })();
    const t0 = Date.now();
    const result = await copy(c, { plan, member: 'late', waitMs: 60_000, pollMs: 200 });
    await sync;
    assert.ok(Date.now() - t0 >= 1_000, 'it waited for the Secret');
    assert.ok(result, 'copied');
    const filled = (await request(c.leader.admin, 'GET', `/api/v1/namespaces/${ns}/secrets/${name}`))
      .json as { data?: Record<string, string> };
    assert.is((await memberSecret(c))?.data?.token, filled.data?.token, "the member holds late's token");
    // east's token back in the member, for the tests that follow.
    await copy(c);
    assert.is((await memberSecret(c))?.data?.token, c.leaderData.get('east')?.token);
  },
);

token(
  'fails GIVEN a leader Secret the token controller has not filled WHEN the wait runs out THEN it says so',
  async () => {
    const c = await context();
    // An Opaque Secret is never filled: it stands for a leader whose controller manager is not running.
    const r0 = await request(c.leader.admin, 'POST', '/api/v1/namespaces/antrea-multicluster/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member-north' },
      type: 'Opaque',
    });
    assert.is(r0.status, 201, r0.body);
    const model = loadCase(CASE);
    const north: ClusterSetProps = {
      ...model,
      secrets: {},
      members: [...model.members, 'north'],
      clusters: [
        ...model.clusters,
        { id: 'north', apiServer: 'https://north.example.com:6443', serviceCIDR: '10.104.0.0/16' },
      ],
    };
    const t0 = Date.now();
    const e = await fails(copy(c, { plan: planOf(north), member: 'north', waitMs: 1_500, pollMs: 200 }));
    assert.ok(Date.now() - t0 >= 1_500, 'it waited');
    assert.match(
      e.message,
      /has no ca\.crt or token after 2 s: the leader's token controller \(kube-controller-manager\) has not filled it/,
    );
  },
);

token(
  'fails GIVEN a leader kubeconfig without permission WHEN copied THEN "permission denied", and the credential is not in the message',
  async () => {
    const c = await context();
    // The east member's own token: a real leader identity that may not read Secrets.
    const kc = tokenKubeConfig(
      c.leader,
      Buffer.from(c.leaderData.get('east')?.token ?? '', 'base64').toString('utf8'),
    );
    const file = path.join(c.tmp, 'member-east.kubeconfig');
    fs.writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
    const e = await fails(copy(c, { leader: { kubeconfig: file, context: 'token' } }));
    assert.match(
      e.message,
      /permission denied on the leader \(context token, https:\/\/127\.0\.0\.1:\d+\) while reading Secret antrea-multicluster\/member-east/,
    );
    assert.match(e.message, /system:serviceaccount:antrea-multicluster:member-east/);
    assertNoToken(c, e.message + (e.stack ?? ''), 'the error');
  },
);

token(
  'GIVEN the External Secrets reader Roles WHEN the real leader is asked (SubjectAccessReview) THEN each store user gets its own token Secret only',
  async () => {
    const c = await context();
    const ns = c.esoPlan.leaderNamespace;
    const can = async (user: string, verb: string, name?: string): Promise<boolean> => {
      const r = await request(c.leader.admin, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user,
          groups: ['system:authenticated'],
          resourceAttributes: { namespace: ns, verb, resource: 'secrets', ...(name ? { name } : {}) },
        },
      });
      assert.is(r.status, 201, r.body);
      return (r.json as { status: { allowed: boolean } }).status.allowed;
    };
    const [east, west] = ['east', 'west'].map((id) => {
      const m = c.esoPlan.members.find((x) => x.id === id);
      if (!m) throw new Error(id);
      return storeUsername(c.esoPlan, m);
    }) as [string, string];
    assert.is(east, 'oidc:east:system:serviceaccount:kube-system:antrea-mc-token-reader');
    assert.ok(await can(east, 'get', 'member-east'), 'east reads its own token Secret');
    assert.ok(await can(west, 'get', 'member-west'), 'west reads its own token Secret');
    assert.not.ok(await can(east, 'get', 'member-west'), "east cannot read west's");
    assert.not.ok(await can(west, 'get', 'member-east'), "west cannot read east's");
    assert.not.ok(await can(east, 'list'), 'east cannot list Secrets');
    assert.not.ok(await can(east, 'watch', 'member-east'), 'east cannot watch');
    assert.not.ok(await can(east, 'update', 'member-east'), 'east cannot update');
    assert.not.ok(await can(east, 'get', 'clusterset-reconciler'), 'east cannot read another Secret');
  },
);

/** A SelfSubjectRulesReview in `namespace` as `user`, through admin impersonation: what the store sees. */
function rulesAs(
  c: Ctx,
  user: string,
  namespace: string,
): Promise<{ resources?: string[]; verbs: string[]; resourceNames?: string[]; apiGroups?: string[] }[]> {
  const body = JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    spec: { namespace },
  });
  const { admin } = c.leader;
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', admin.server),
      {
        method: 'POST',
        ca: admin.ca,
        cert: admin.cert,
        key: admin.key,
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Impersonate-User': user,
          'Impersonate-Group': 'system:authenticated',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (x: Buffer) => chunks.push(x));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 201) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          resolve((JSON.parse(text) as { status: { resourceRules: never[] } }).status.resourceRules);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

token(
  "GIVEN a member's store user WHEN External Secrets validates its store (SelfSubjectRulesReview in the leader namespace) THEN the one rule it needs is there, limited to that member's Secret",
  async () => {
    const c = await context();
    const east = storeUsername(
      c.esoPlan,
      c.esoPlan.members.find((m) => m.id === 'east') as Plan['members'][number],
    );
    const rules = await rulesAs(c, east, c.esoPlan.leaderNamespace);
    // External Secrets' Kubernetes provider marks a store Ready when a rule grants get on secrets.
    const secretRules = rules.filter((r) => r.resources?.includes('secrets'));
    assert.equal(secretRules, [
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['member-east'] },
    ]);
  },
);

token(
  'GIVEN a member whose identity exists under other names (antctl mc create membertoken) WHEN its token is copied THEN it is read from that Secret and written to the member Secret its ClusterSet names',
  async () => {
    const c = await context();
    // The leader bundle of the same set with east's identity named the antctl way: its
    // ServiceAccount, RoleBinding and token Secret all `east-membertoken`, and a member Secret of its own.
    const model = loadCase(CASE);
    const custom: ClusterSetProps = {
      ...model,
      secrets: {},
      clusters: model.clusters.map((x) =>
        x.id === 'east'
          ? {
              ...x,
              memberIdentity: { serviceAccount: 'east-membertoken', memberTokenSecret: 'antrea-east-token' },
            }
          : x,
      ),
    };
    const r = compile(custom);
    if (!r.plan || r.diagnostics.length > 0) throw new Error(JSON.stringify(r.diagnostics));
    const dir = path.join(c.tmp, 'custom');
    for (const [file, text] of r.files) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    const applied = await applyBundle(c.leader, path.join(dir, 'clusters', 'hub'));
    assert.equal(applied.rejected, []);
    const ns = r.plan.leaderNamespace;
    const custom64 = await eventually('the controller manager fills east-membertoken', async () => {
      const g = await request(c.leader.admin, 'GET', `/api/v1/namespaces/${ns}/secrets/east-membertoken`);
      const d = (g.json as { data?: Record<string, string> } | undefined)?.data;
      return d?.token && d['ca.crt'] ? d : undefined;
    });
    assert.is.not(custom64.token, c.leaderData.get('east')?.token, 'a token of its own ServiceAccount');
    const before = await memberSecret(c);
    const out = await copyMemberToken({
      plan: r.plan,
      member: 'east',
      leader: { kubeconfig: c.leader.kubeconfigPath, context: c.leader.name },
      memberCluster: { kubeconfig: c.member.kubeconfigPath, context: c.member.name },
      waitMs: 5_000,
    });
    assert.is(out.leaderSecret, `${ns}/east-membertoken`);
    assert.is(out.memberSecret, `${r.plan.memberNamespace}/antrea-east-token`);
    const g = await request(
      c.member.admin,
      'GET',
      `/api/v1/namespaces/${r.plan.memberNamespace}/secrets/antrea-east-token`,
    );
    assert.is(g.status, 200);
    assert.is((g.json as { data?: Record<string, string> }).data?.token, custom64.token);
    assert.equal(await memberSecret(c), before, 'the Secret of the default names is not touched');
    assertNoToken(c, JSON.stringify(out), 'the result');
  },
);

token('cleanup', async () => {
  const c = await context().catch(() => undefined);
  await stopAll();
  if (c) fs.rmSync(c.tmp, { recursive: true, force: true });
});

token.run();
