// End-to-end: `clusterset import` (issue 33) on a ClusterSet that Antrea's own leader ran, played on
// real control planes (antrea-set.ts): once with the member identities made the `antctl` way, once
// the user guide's `kubectl` way. The importer reads with the read-only identity `--print-rbac`
// prints, bound in every cluster, and each API server keeps an audit log of that identity's requests
// (level RequestResponse), so that what it asked and what it was given is on record:
//
// - what it read (lib/import/read.ts, called directly): the kinds import needs, Secrets as metadata
//   only (the audit log shows every secrets request is a list answered with a
//   PartialObjectMetadataList; no token appears in the snapshot, not even through the last-applied
//   annotation of a Secret applied with kubectl);
// - the CLI: exit status as documented, the model written validates with `clusterset validate` and
//   names the identities as they are, the report lists the findings;
// - it wrote nothing: every object's resourceVersion is the same before and after, in every cluster,
//   and the audit log holds no verb but get and list;
// - a forbidden read and an unreachable cluster are errors naming the context (and the permission).
//
// Clusters start inside the first test of each suite, not in before(): uvu swallows before() errors.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadKubeconfig } from '../../lib/kubeconfig';
import {
  IMPORT_IDENTITY,
  IMPORT_USER_AGENT,
  importRbac,
  importRules,
  METADATA_LIST_ACCEPT,
  TABLE_ACCEPT,
  readerFor,
  readLeader,
  readLiveSet,
  readMember,
} from '../../lib/import/read';
import type { LiveSnapshot } from '../../lib/import/snapshot';
import { loadModelFile } from '../../lib/load';
import type { ClusterSetProps } from '../../lib/model';
import { DEFAULT_MEMBER_TOKEN_SECRET, memberIdentityName, serviceImportName } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import type { Cluster } from '../kube/cluster';
import { request, stopAll } from '../kube/cluster';
import { sleep } from '../kube/wait';
import { setUpAntreaSet, type AntreaSet } from './antrea-set';
import { cli } from '../helpers/cli';
import { contextsKubeconfig, createRbac, tokenFor } from './fixture';

const IMPORT_USER = `system:serviceaccount:default:${IMPORT_IDENTITY}`;

const AUDIT_POLICY = [
  'apiVersion: audit.k8s.io/v1',
  'kind: Policy',
  'omitStages: [RequestReceived]',
  'rules:',
  '  - level: RequestResponse',
  `    users: ["${IMPORT_USER}", "system:serviceaccount:default:import-no-secrets"]`,
  '  - level: None',
  '',
].join('\n');

interface Ctx {
  set: AntreaSet;
  dir: string;
  /** Contexts named as the cluster IDs, each the import identity. */
  kubeconfig: string;
}

type Versions = Map<string, string>;

/** Every object of every listable kind (Leases and Events aside: the control plane's own churn). */
async function versions(c: Cluster): Promise<Versions> {
  const out: Versions = new Map();
  const gvs: string[] = ['/api/v1'];
  const groups = (await request(c.admin, 'GET', '/apis')).json as {
    groups: { preferredVersion: { groupVersion: string } }[];
  };
  for (const g of groups.groups) gvs.push(`/apis/${g.preferredVersion.groupVersion}`);
  for (const gv of gvs) {
    const rl = (await request(c.admin, 'GET', gv)).json as {
      resources: { name: string; verbs: string[] }[];
    };
    for (const r of rl.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      if (r.name === 'leases' || r.name === 'events') continue;
      const res = await request(c.admin, 'GET', `${gv}/${r.name}`);
      if (res.status !== 200) continue;
      for (const item of (res.json as { items: { metadata: Record<string, string> }[] }).items)
        out.set(
          `${gv}/${r.name} ${item.metadata.namespace ?? ''}/${item.metadata.name}`,
          item.metadata.resourceVersion!,
        );
    }
  }
  return out;
}

async function allVersions(set: AntreaSet): Promise<Map<string, Versions>> {
  const out = new Map<string, Versions>();
  for (const [id, c] of set.clusters) out.set(id, await versions(c));
  return out;
}

function changed(a: Map<string, Versions>, b: Map<string, Versions>): string[] {
  const diffs: string[] = [];
  for (const [id, va] of a) {
    const vb = b.get(id)!;
    for (const [k, v] of va) if (vb.get(k) !== v) diffs.push(`${id}: ${k} ${v} -> ${vb.get(k) ?? 'gone'}`);
    for (const k of vb.keys()) if (!va.has(k)) diffs.push(`${id}: ${k} new`);
  }
  return diffs;
}

/** The versions once nothing moves for 3 s (a fresh control plane's controllers settle first). */
async function settledVersions(set: AntreaSet): Promise<Map<string, Versions>> {
  let last = await allVersions(set);
  for (let i = 0; i < 20; i++) {
    await sleep(3000);
    const next = await allVersions(set);
    if (changed(last, next).length === 0) return next;
    last = next;
  }
  throw new Error(`the clusters never settled: ${changed(last, await allVersions(set)).join('\n')}`);
}

interface AuditEvent {
  verb: string;
  requestURI: string;
  userAgent: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  responseObject?: { kind?: string };
}

function auditOf(ctx: Ctx, id: string, user = IMPORT_USER): AuditEvent[] {
  const file = path.join(ctx.dir, id, 'audit.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.user.username === user);
}

async function setUp(way: 'antctl' | 'kubectl'): Promise<Ctx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-import-${way}-`));
  const policy = path.join(dir, 'audit-policy.yaml');
  fs.writeFileSync(policy, AUDIT_POLICY);
  const set = await setUpAntreaSet({
    prefix: `imp-${way}`,
    identities: way,
    dir,
    apiserverArgs: (_id, d) => [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${path.join(d, 'audit.log')}`,
      '--audit-log-format=json',
    ],
  });
  const tokens = new Map<string, string>();
  for (const [id, c] of set.clusters) {
    await createRbac(c, importRbac('default'));
    tokens.set(id, await tokenFor(c, 'default', IMPORT_IDENTITY));
  }
  const kubeconfig = path.join(dir, 'import.kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    contextsKubeconfig(
      set.clusters,
      (id) => ({ name: `import-${id}`, user: { token: tokens.get(id)! } }),
      set.leaderId,
    ),
  );
  return { set, dir, kubeconfig };
}

async function loadModelOf(file: string): Promise<ClusterSetProps> {
  return (await loadModelFile(file)) as ClusterSetProps;
}

function memberContexts(set: AntreaSet): Map<string, string> {
  return new Map(set.memberIds.map((id) => [id, id]));
}

function defineSuite(way: 'antctl' | 'kubectl'): void {
  const s = suite(`import (${way} way)`);
  let started: Promise<Ctx> | undefined;
  const context = () => (started ??= setUp(way));
  let snapshot: LiveSnapshot;

  s.after(async () => {
    await stopAll();
  });

  s(
    'GIVEN a set Antrea ran WHEN read THEN the snapshot holds what import needs, Secrets as metadata only',
    async () => {
      const ctx = await context();
      const { set } = ctx;
      const kc = loadKubeconfig(ctx.kubeconfig).kc;
      snapshot = await readLiveSet({
        kubeconfig: kc,
        leaderContext: set.leaderId,
        members: memberContexts(set),
      });
      const kinds = (objs: readonly { kind: string }[]) => new Set(objs.map((o) => o.kind));
      const lk = kinds(snapshot.leader.objects);
      for (const k of [
        'ClusterSet',
        'MemberClusterAnnounce',
        'ResourceExport',
        'ResourceImport',
        'ServiceAccount',
        'RoleBinding',
        'Role',
        'Secret',
        'Deployment',
        'ConfigMap',
        'Service',
        'ValidatingWebhookConfiguration',
        'MutatingWebhookConfiguration',
      ])
        assert.ok(lk.has(k), `leader: ${k} read`);
      for (const id of set.memberIds) {
        const mk = kinds(snapshot.members[id]!.objects);
        for (const k of [
          'ClusterSet',
          'ConfigMap',
          'Deployment',
          'Secret',
          'Gateway',
          'ClusterInfoImport',
          'LabelIdentity',
          'ServiceExport',
          'ServiceImport',
          'Service',
          'Endpoints',
          'ClusterNetworkPolicy',
          'Tier',
          'ValidatingWebhookConfiguration',
        ])
          assert.ok(mk.has(k), `${id}: ${k} read`);
        const svcs = snapshot.members[id]!.objects.filter((o) => o.kind === 'Service').map(
          (o) => o.metadata.name,
        );
        assert.ok(svcs.includes('antrea-mc-cart'), `${id}: imported Service read (${svcs.join(', ')})`);
      }
      // The ClusterClaim and ClusterProperty CRDs are not installed: none, not a failure.
      assert.not.ok(snapshot.leader.objects.some((o) => o.kind === 'ClusterProperty'));
      // Secrets: metadata only; kind and apiVersion given back; no data, not even through kubectl's
      // last-applied annotation.
      const secrets = [snapshot.leader, ...Object.values(snapshot.members)].flatMap((c) =>
        c.objects.filter((o) => o.kind === 'Secret'),
      );
      assert.ok(secrets.length >= set.memberIds.length * 2, `${secrets.length} Secrets read`);
      for (const sec of secrets) {
        assert.is(sec.apiVersion, 'v1');
        assert.is(sec.data, undefined, `${sec.metadata.name}: no data`);
        assert.is(sec.stringData, undefined);
      }
      const text = JSON.stringify(snapshot);
      for (const [id, token] of set.tokens)
        assert.not.ok(text.includes(token), `${id}'s token in the snapshot`);
      for (const [id, token] of set.tokens)
        assert.not.ok(
          text.includes(Buffer.from(token).toString('base64')),
          `${id}'s token (base64) in the snapshot`,
        );
      for (const id of set.memberIds) {
        const name = set.identities.get(id)!.memberTokenSecret;
        assert.ok(
          snapshot.members[id]!.objects.some((o) => o.kind === 'Secret' && o.metadata.name === name),
          `${id}: its token Secret ${name} listed`,
        );
      }
    },
  );

  s(
    'WHEN read THEN every Secrets request asked for metadata only, and the API server answered so (audit log)',
    async () => {
      const ctx = await context();
      const kc = loadKubeconfig(ctx.kubeconfig).kc;
      // The reader's own record of its requests.
      const leader = readerFor(kc, ctx.set.leaderId, 30_000);
      await readLeader(leader);
      const m = readerFor(kc, ctx.set.memberIds[0]!, 30_000);
      await readMember(m, ctx.set.memberIds[0]!);
      leader.close();
      m.close();
      for (const r of [...leader.requests, ...m.requests]) assert.ok(r.startsWith('GET '), r);
      // The leader: its ServiceAccount token Secrets, as metadata; a member: a Table of names, no objects.
      const ls = leader.requests.filter((r) => r.includes('/secrets'));
      assert.ok(ls.length > 0, "the leader's Secrets were listed");
      for (const r of ls) {
        assert.ok(r.endsWith(METADATA_LIST_ACCEPT), r);
        assert.ok(r.includes('fieldSelector=type%3Dkubernetes.io%2Fservice-account-token'), r);
      }
      const ms = m.requests.filter((r) => r.includes('/secrets'));
      assert.ok(ms.length > 0, "the member's Secrets were listed");
      for (const r of ms) {
        assert.ok(r.endsWith(TABLE_ACCEPT), r);
        assert.ok(r.includes('includeObject=None'), r);
      }
      // The API servers' record.
      for (const id of ctx.set.clusters.keys()) {
        const events = auditOf(ctx, id);
        assert.ok(events.length > 0, `${id}: audit events of the import identity`);
        for (const e of events) {
          assert.ok(['get', 'list'].includes(e.verb), `${id}: ${e.verb} ${e.requestURI}`);
          assert.is(e.userAgent, IMPORT_USER_AGENT, e.requestURI);
          if (e.objectRef?.resource === 'secrets' && e.responseStatus?.code === 200) {
            assert.is(e.verb, 'list', e.requestURI);
            assert.ok(
              ['PartialObjectMetadataList', 'Table'].includes(e.responseObject?.kind ?? ''),
              `${e.requestURI}: ${e.responseObject?.kind}`,
            );
          }
        }
        const text = fs.readFileSync(path.join(ctx.dir, id, 'audit.log'), 'utf8');
        for (const [mid, token] of ctx.set.tokens)
          assert.not.ok(
            text.includes(Buffer.from(token).toString('base64')),
            `${id}: ${mid}'s token answered to import`,
          );
      }
    },
  );

  s(
    'WHEN the import identity may not list Secrets THEN the read fails naming the context and the permission',
    async () => {
      const ctx = await context();
      const c = ctx.set.leader;
      const name = 'import-no-secrets';
      const rules = importRules().filter((r) => !r.resources.includes('secrets'));
      await createRbac(c, [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'default' } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
          subjects: [{ kind: 'ServiceAccount', name, namespace: 'default' }],
        },
      ]);
      const token = await tokenFor(c, 'default', name);
      const file = path.join(ctx.dir, 'no-secrets.kubeconfig');
      fs.writeFileSync(
        file,
        contextsKubeconfig(new Map([['hub-ro', c]]), () => ({ name: 'ro', user: { token } }), 'hub-ro'),
      );
      const kc = loadKubeconfig(file).kc;
      const e = await readLiveSet({ kubeconfig: kc, leaderContext: 'hub-ro', members: new Map() }).catch(
        (x: Error) => x,
      );
      assert.instance(e, Error);
      const msg = (e as Error).message;
      assert.match(msg, /context "hub-ro"/);
      assert.match(msg, /forbidden to list secrets in namespace antrea-multicluster/);
      assert.match(msg, /--print-rbac/);
    },
  );

  s('WHEN a member does not answer THEN the read fails naming its context and server', async () => {
    const ctx = await context();
    const cfg = JSON.parse(fs.readFileSync(ctx.kubeconfig, 'utf8')) as {
      clusters: { name: string; cluster: { server: string } }[];
    };
    cfg.clusters.find((x) => x.name === ctx.set.memberIds[0])!.cluster.server = 'https://127.0.0.1:1';
    const file = path.join(ctx.dir, 'down.kubeconfig');
    fs.writeFileSync(file, JSON.stringify(cfg));
    const kc = loadKubeconfig(file).kc;
    const e = await readLiveSet({
      kubeconfig: kc,
      leaderContext: ctx.set.leaderId,
      members: memberContexts(ctx.set),
      timeoutMs: 5000,
    }).catch((x: Error) => x);
    assert.instance(e, Error);
    assert.match(
      (e as Error).message,
      new RegExp(`context "${ctx.set.memberIds[0]}" \\(https://127.0.0.1:1\\) cannot be reached`),
    );
  });

  s(
    'WHEN clusterset import runs THEN it writes the model and the report, exits as documented, and writes nothing to any cluster',
    async () => {
      const ctx = await context();
      const { set } = ctx;
      const format = way === 'antctl' ? 'yaml' : 'ts';
      const out = path.join(ctx.dir, `clusterset.${format}`);
      const report = path.join(ctx.dir, 'report.json');
      const before = await settledVersions(set);
      const auditBefore = new Map([...set.clusters.keys()].map((id) => [id, auditOf(ctx, id).length]));
      const args = [
        'import',
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        set.leaderId,
        ...set.memberIds.flatMap((id) => ['--member', `${id}=${id}`]),
        '--format',
        format,
        '--out',
        out,
        '--report',
        report,
        '--report-format',
        'json',
      ];
      const r = await cli(args);
      const rep = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        ready: boolean;
        counts: Record<string, number>;
        findings: { class: string; code: string; message: string; path?: string }[];
      };
      // Exit 0 without a blocker, 1 with one; the model is written either way.
      assert.is(r.code, rep.ready ? 0 : 1, `exit ${r.code}\n${r.stderr}\n${JSON.stringify(rep, null, 2)}`);
      assert.ok(fs.existsSync(out));
      // Nothing written: every object as it was, in every cluster; the import identity only got and listed.
      const after = await allVersions(set);
      assert.equal(changed(before, after), [], 'objects changed while import ran');
      for (const id of set.clusters.keys()) {
        const events = auditOf(ctx, id).slice(auditBefore.get(id));
        assert.ok(events.length > 0, `${id}: import's requests are in the audit log`);
        for (const e of events)
          assert.ok(['get', 'list'].includes(e.verb), `${id}: ${e.verb} ${e.requestURI}`);
      }
      // No token anywhere in what it wrote.
      const written = fs.readFileSync(out, 'utf8') + fs.readFileSync(report, 'utf8') + r.stdout + r.stderr;
      for (const [id, token] of set.tokens) {
        assert.not.ok(written.includes(token), `${id}'s token written`);
        assert.not.ok(
          written.includes(Buffer.from(token).toString('base64')),
          `${id}'s token (base64) written`,
        );
      }
      // The model validates and names the identities as they are.
      const v = await cli(['validate', out]);
      assert.is(v.code, 0, `validate ${out}: exit ${v.code}\n${v.stdout}\n${v.stderr}`);
      const model = await loadModelOf(out);
      assert.is(model.clusterSetId, set.clusterSetId);
      assert.is(model.leader, set.leaderId);
      // The leader is no member: its Service CIDR comes from its ServiceCIDR `kubernetes`, which the
      // test API servers serve from --service-cluster-ip-range (test/kube/cluster.ts).
      assert.is(model.clusters.find((x) => x.id === set.leaderId)?.serviceCIDR, '10.96.0.0/16');
      assert.equal([...model.members].sort(), [...set.memberIds].sort());
      for (const id of set.memberIds) {
        const c = model.clusters.find((x) => x.id === id)!;
        const want = set.identities.get(id)!;
        const sa = c.memberIdentity?.serviceAccount ?? memberIdentityName(id);
        assert.equal(
          {
            serviceAccount: sa,
            roleBinding: c.memberIdentity?.roleBinding ?? sa,
            tokenSecret: c.memberIdentity?.tokenSecret ?? sa,
            memberTokenSecret:
              c.memberIdentity?.memberTokenSecret ??
              model.secrets?.memberTokenSecretName ??
              DEFAULT_MEMBER_TOKEN_SECRET,
          },
          want,
          `${id}'s identity`,
        );
      }
      for (const e of set.exports) {
        const svc = model.services?.find((x) => x.namespace === e.namespace && x.name === e.name);
        assert.ok(svc, `Service ${e.namespace}/${e.name} in the model`);
      }
      // The report: nothing here is a blocker the set does not have. Antrea's leader still has its
      // webhooks registered and its Deployment in place: the report names them.
      const codes = rep.findings.map((f) => `${f.class}:${f.code}`);
      process.stdout.write(`\n  import report (${way}): ${codes.join(', ')}\n`);
      assert.is(
        rep.counts.blocker,
        0,
        `blockers: ${JSON.stringify(
          rep.findings.filter((f) => f.class === 'blocker'),
          null,
          2,
        )}`,
      );
    },
  );

  s(
    "GIVEN the played set THEN Antrea's leader webhooks fail closed: a member's announce refresh is refused",
    async () => {
      const ctx = await context();
      const { set } = ctx;
      const id = set.memberIds[0]!;
      const auth = { server: set.leader.server, ca: set.leader.caPem, token: set.tokens.get(id)! };
      const p = `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${set.leaderNs}/memberclusterannounces/member-announce-from-${id}`;
      const cur = await request(auth, 'GET', p);
      assert.is(cur.status, 200, cur.body);
      const obj = cur.json as { metadata: { annotations?: Record<string, string> } };
      obj.metadata.annotations = {
        ...(obj.metadata.annotations ?? {}),
        'touch-ts': new Date().toISOString(),
      };
      const r = await request(auth, 'PUT', p, obj);
      assert.is(r.status, 500, r.body);
      assert.match(
        String((r.json as { message?: string }).message),
        /failed calling webhook "vmemberclusterannounce\.kb\.io"/,
      );
    },
  );

  s(
    'WHEN --print-rbac THEN it prints the identity the tests bind: get and list only, Secrets list only, and says RBAC cannot limit to metadata',
    async () => {
      const r = await cli(['import', '--print-rbac', '--namespace', 'ops']);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /RBAC cannot restrict a grant to metadata/);
      const docs = r.stdout.split(/^---$/m).map((d) => loadYaml(d) as Record<string, unknown>);
      assert.equal(docs, importRbac('ops'));
      const role = docs.find((d) => d.kind === 'ClusterRole') as {
        rules: { resources: string[]; verbs: string[] }[];
      };
      for (const rule of role.rules) {
        assert.ok(
          rule.verbs.every((v) => v === 'get' || v === 'list'),
          JSON.stringify(rule),
        );
        if (rule.resources.includes('secrets')) assert.equal(rule.verbs, ['list']);
      }
    },
  );

  s(
    'WHEN --out names a file that exists THEN import refuses (exit 2) before reading, unless --force',
    async () => {
      const ctx = await context();
      const out = path.join(ctx.dir, 'exists.yaml');
      fs.writeFileSync(out, 'keep me\n');
      const base = [
        'import',
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        ctx.set.leaderId,
        '--format',
        'yaml',
        '--out',
        out,
      ];
      const r = await cli(base);
      assert.is(r.code, 2, r.stderr);
      assert.match(r.stderr, /exists; nothing was read: pass --force/);
      assert.is(fs.readFileSync(out, 'utf8'), 'keep me\n');
      const f = await cli([...base, '--force', '--report', path.join(ctx.dir, 'r2.txt')]);
      assert.ok(f.code === 0 || f.code === 1, `exit ${f.code}: ${f.stderr}`);
      assert.is.not(fs.readFileSync(out, 'utf8'), 'keep me\n');
    },
  );

  s(
    'WHEN a context is mistyped, or a member is not ID=CONTEXT THEN exit 2 before any cluster is called',
    async () => {
      const ctx = await context();
      const r = await cli([
        'import',
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        `${ctx.set.leaderId}x`,
      ]);
      assert.is(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`no context "${ctx.set.leaderId}x".*did you mean "${ctx.set.leaderId}"`),
      );
      const m = await cli([
        'import',
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        ctx.set.leaderId,
        '--member',
        'east',
      ]);
      assert.is(m.code, 2, m.stderr);
      assert.match(m.stderr, /--member "east": write ID=CONTEXT/);
    },
  );

  s(
    'WHEN a member cannot be reached THEN the CLI exits 1 naming its context, and writes nothing',
    async () => {
      const ctx = await context();
      const cfg = JSON.parse(fs.readFileSync(ctx.kubeconfig, 'utf8')) as {
        clusters: { name: string; cluster: { server: string } }[];
      };
      const id = ctx.set.memberIds[1]!;
      cfg.clusters.find((x) => x.name === id)!.cluster.server = 'https://127.0.0.1:1';
      const file = path.join(ctx.dir, 'down-cli.kubeconfig');
      fs.writeFileSync(file, JSON.stringify(cfg));
      const out = path.join(ctx.dir, 'not-written.yaml');
      const r = await cli([
        'import',
        '--kubeconfig',
        file,
        '--leader-context',
        ctx.set.leaderId,
        ...ctx.set.memberIds.flatMap((m) => ['--member', `${m}=${m}`]),
        '--out',
        out,
        '--timeout',
        '5',
      ]);
      assert.is(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`context "${id}" \\(https://127.0.0.1:1\\) cannot be reached`));
      assert.not.ok(fs.existsSync(out));
    },
  );

  s(
    'WHEN import --check runs on the imported model, with --snapshot THEN it exits 0, every import is adopted unchanged, and nothing is written to any cluster; --verify then exits 0',
    async () => {
      const ctx = await context();
      const { set } = ctx;
      const format = way === 'antctl' ? 'yaml' : 'ts';
      const model = path.join(ctx.dir, `clusterset.${format}`);
      assert.ok(fs.existsSync(model), 'the model the import test wrote');
      const snap = path.join(ctx.dir, 'before.json');
      const report = path.join(ctx.dir, 'check.json');
      const conn = [
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        set.leaderId,
        ...set.memberIds.flatMap((id) => ['--member', `${id}=${id}`]),
      ];
      const before = await settledVersions(set);
      const r = await cli([
        'import',
        '--check',
        '--model',
        model,
        ...conn,
        '--snapshot',
        snap,
        '--report',
        report,
        '--report-format',
        'json',
        '--force',
      ]);
      const rep = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        ok: boolean;
        failures: unknown[];
        clusters: { id: string; objects: { kind: string; name: string; verdict: string }[] }[];
        reconciler: { op: string; object: string }[];
      };
      assert.is(r.code, 0, `exit ${r.code}\n${r.stderr}\n${JSON.stringify(rep.failures, null, 2)}`);
      assert.ok(rep.ok);
      const imports = rep.clusters
        .find((c) => c.id === set.leaderId)!
        .objects.filter((o) => o.kind === 'ResourceImport');
      assert.ok(imports.length >= set.exports.length, `${imports.length} compiled imports`);
      for (const o of imports) assert.is(o.verdict, 'adopt-unchanged', o.name);
      // What `antctl mc init` made (the leader ClusterSet) is taken over: adopted with a change, listed.
      const cs = rep.clusters
        .find((c) => c.id === set.leaderId)!
        .objects.find((o) => o.kind === 'ClusterSet' && o.name === set.clusterSetId);
      assert.is(cs?.verdict, 'adopt-changed', 'the leader ClusterSet');
      assert.not.ok(
        rep.reconciler.some((w) => w.op === 'deleteImport'),
        'the reconciler deletes no import',
      );
      assert.equal(changed(before, await allVersions(set)), [], 'objects changed while --check ran');
      // The record: every import, each member's imported Services with their ClusterIP; no token.
      const text = fs.readFileSync(snap, 'utf8');
      const rec = JSON.parse(text) as {
        leader: { objects: { kind: string; name: string }[] };
        members: Record<string, { objects: { kind: string; clusterIP?: string }[] }>;
      };
      assert.ok(rec.leader.objects.length > 0);
      for (const id of set.memberIds)
        assert.ok(
          rec.members[id]!.objects.some((o) => o.kind === 'Service' && o.clusterIP),
          `${id}: an imported Service and its ClusterIP recorded`,
        );
      for (const [id, token] of set.tokens) assert.not.ok(text.includes(token), `${id}'s token recorded`);
      const v = await cli(['import', '--verify', '--snapshot', snap, ...conn]);
      assert.is(v.code, 0, `exit ${v.code}\n${v.stdout}\n${v.stderr}`);
      assert.match(v.stdout, /OK: every recorded import/);
    },
  );

  s(
    'GIVEN the record WHEN one ResourceImport is deleted and re-applied, as a naive cut-over with kubectl would THEN --verify exits 1 naming it (negative control)',
    async () => {
      const ctx = await context();
      const { set } = ctx;
      const snap = path.join(ctx.dir, 'before.json');
      const e = set.exports[0]!;
      const name = serviceImportName(e.namespace, e.name);
      const p = `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${set.leaderNs}/resourceimports`;
      const cur = await request(set.leader.admin, 'GET', `${p}/${name}`);
      assert.is(cur.status, 200, cur.body);
      const old = cur.json as { metadata: { uid: string }; spec: unknown };
      const applied = {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
        kind: 'ResourceImport',
        metadata: { name, namespace: set.leaderNs },
        spec: old.spec,
      };
      // `kubectl delete`, then `kubectl apply` of the same object: a create, with kubectl's record.
      const del = await request(set.leader.admin, 'DELETE', `${p}/${name}`);
      assert.is(del.status, 200, del.body);
      const created = await request(set.leader.admin, 'POST', p, {
        ...applied,
        metadata: {
          ...applied.metadata,
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) },
        },
      });
      assert.is(created.status, 201, created.body);
      assert.is.not((created.json as { metadata: { uid: string } }).metadata.uid, old.metadata.uid);
      const v = await cli([
        'import',
        '--verify',
        '--snapshot',
        snap,
        '--kubeconfig',
        ctx.kubeconfig,
        '--leader-context',
        set.leaderId,
        ...set.memberIds.flatMap((id) => ['--member', `${id}=${id}`]),
      ]);
      assert.is(v.code, 1, `exit ${v.code}\n${v.stdout}\n${v.stderr}`);
      assert.match(v.stdout, `leader: ResourceImport ${set.leaderNs}/${name} metadata.uid`);
      assert.match(v.stdout, /deleted and re-created/);
    },
  );

  s.run();
}

defineSuite('antctl');
defineSuite('kubectl');
