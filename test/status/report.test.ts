/**
 * The status report from live state built in memory (live-state.ts): a healthy set matches with no
 * problem; each scenario breaks one thing and the report names it; goldens of the text and markdown
 * forms for a set with one of each; the JSON form is the report itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import clusterSet from '../../clusterset';
import { kindKey, SERVICE_EXPORTS_ALL, type Obj } from '../../lib/status/live';
import { statusReport } from '../../lib/status/report';
import type { StatusReport } from '../../lib/status/report/types';
import { formatStatus } from '../../lib/status/format';
import { collectionsFor } from '../../lib/status/live';
import { RESOURCES, resourceOf } from '../../lib/status/resources';
import { CRD_DIR, loadCrd } from '../../lib/crds';
import { statusRules } from '../../lib/status/rbac';
import { caseNames, caseOut, matchGolden } from '../helpers/golden';
import { loadYaml } from '../../lib/yaml';
import { compile } from '../../lib/compile';
import { plan as makePlan } from '../../lib/plan';
import { bundlesFromFiles } from '../../lib/status/live';
import { clusterIp, liveSet, NOW, readsOf, type LiveSet } from './live-state';

const GOLDEN = path.join(__dirname, 'golden');

function report(s: LiveSet): StatusReport {
  return statusReport({ plan: s.plan, bundles: s.bundles, reads: readsOf(s), nowMs: NOW });
}

const named = (list: Obj[] | undefined, name: string): Obj => {
  const o = list?.find((x) => (x.metadata as Obj).name === name);
  if (!o) throw new Error(`no ${name}`);
  return o;
};

/** Breaks one of each: a drifted object, a refused export, a missing Tier, a member down. */
function broken(): LiveSet {
  const s = liveSet(clusterSet);
  const { plan } = s;
  // east: the member controller Deployment's annotation edited by hand.
  const east = s.lists.get('east')!;
  const cs = named(east.get(kindKey('ClusterSet', plan.memberNamespace)), plan.clusterSetId);
  (cs.spec as Obj).namespace = 'elsewhere';
  (cs.metadata as Obj).managedFields = [
    { manager: 'argocd-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:leaders': {} } } },
    { manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:spec': { 'f:namespace': {} } } },
  ];
  // west's export of shop/cart refused for a port mismatch (what the reconciler writes).
  const res = s.lists.get(plan.leader.id)!.get(kindKey('ResourceExport', plan.leaderNamespace))!;
  const re = named(res, 'west-shop-cart-service');
  re.status = {
    conditions: [
      {
        type: 'Failure',
        status: 'False',
        reason: 'ConvergeFailure',
        message:
          "ResourceExport can't be converged to ResourceImport: ports [{http 8080 TCP}] don't match the model's [{http 80 TCP}]",
      },
    ],
  };
  // The refused exporter's endpoints are not merged: the import and the members' Endpoints hold east's.
  const ris = s.lists.get(plan.leader.id)!.get(kindKey('ResourceImport', plan.leaderNamespace))!;
  const ri = named(ris, 'shop-cart-endpoints');
  const westIp = clusterIp('west', 'shop', 'cart');
  const only = (subsets: Obj[]) => subsets.filter((x) => (x.addresses as Obj[])[0]!.ip !== westIp);
  ((ri.spec as Obj).endpoints as Obj).subsets = only(((ri.spec as Obj).endpoints as Obj).subsets as Obj[]);
  for (const m of plan.members) {
    const l = s.lists.get(m.id)!.get(kindKey('Endpoints', 'shop'))!;
    const eps = named(l, 'antrea-mc-cart');
    eps.subsets = only(eps.subsets as Obj[]);
  }
  // central has no Tier clusterset-baseline: Antrea posts its Event and imports no policy.
  const central = s.lists.get('central')!;
  central.set(
    kindKey('Tier'),
    central.get(kindKey('Tier'))!.filter((t) => (t.metadata as Obj).name !== 'clusterset-baseline'),
  );
  central.set(
    kindKey('ClusterNetworkPolicy'),
    central
      .get(kindKey('ClusterNetworkPolicy'))!
      .filter((p) => (p.metadata as Obj).name !== 'antrea-mc-deny-cross-ns-payments'),
  );
  s.lists
    .get(plan.leader.id)!
    .get(kindKey('Event', plan.leaderNamespace, 'reason=ACNPImportFailed'))!
    .push({
      metadata: {
        name: 'deny-cross-ns-payments-antreaclusternetworkpolicy.18a0c2f1e3b4d5c6',
        namespace: plan.leaderNamespace,
      },
      involvedObject: { kind: 'ResourceImport', name: 'deny-cross-ns-payments-antreaclusternetworkpolicy' },
      reason: 'ACNPImportFailed',
      message: 'ACNP Tier clusterset-baseline does not exist in importing cluster central',
    });
  // edge is down.
  s.unreachable.set('edge', 'connect ECONNREFUSED 10.0.0.9:6443');
  return s;
}

test('a healthy set matches the model: no problem, every object as rendered', () => {
  const r = report(liveSet(clusterSet));
  assert.equal(r.problems, []);
  assert.ok(r.ok);
  for (const c of r.clusters) {
    assert.ok(c.reachable, c.id);
    assert.equal(c.delivered.objects, [], c.id);
    assert.is(c.delivered.ok + c.delivered.unread, c.delivered.total, c.id);
  }
  for (const s of r.services) {
    assert.ok(s.reachable, `${s.namespace}/${s.name}`);
    for (const i of s.importers) assert.equal(i.from, [...s.exporters.map((e) => e.cluster)].sort());
  }
});

test('each break is reported once, with what it concerns', () => {
  const r = report(broken());
  assert.not.ok(r.ok);
  const has = (re: RegExp) =>
    assert.ok(
      r.problems.some((p) => re.test(p)),
      `${re} in:\n${r.problems.join('\n')}`,
    );
  has(
    /^east: ClusterSet kube-system\/prod-set drifted: spec\.namespace is "elsewhere", the bundle has "antrea-multicluster" \(changed by kubectl-edit\)$/,
  );
  has(/^shop\/cart: west's export is refused: ConvergeFailure: .*don't match/);
  has(/^central: Tier clusterset-baseline is missing$/);
  has(/^policy deny-cross-ns-payments: central has no Tier clusterset-baseline$/);
  has(
    /^policy deny-cross-ns-payments: central does not hold ClusterNetworkPolicy antrea-mc-deny-cross-ns-payments$/,
  );
  has(
    /^policy deny-cross-ns-payments: central: Antrea could not import it: ACNP Tier clusterset-baseline does not exist in importing cluster central$/,
  );
  assert.not.ok(
    r.problems.some((p) => p.startsWith('policy allow-dns')),
    'allow-dns is in a built-in Tier',
  );
  has(/^edge: cannot be reached: connect ECONNREFUSED/);
  // An unreachable member blocks nothing else: the others are still read and compared.
  assert.ok(r.clusters.find((c) => c.id === 'west')!.reachable);
  // Endpoints now come from east only: members still reach shop/cart, through east, as expected.
  const cart = r.services.find((x) => x.name === 'cart')!;
  assert.ok(cart.reachable);
  assert.equal(cart.importers.find((i) => i.cluster === 'west')!.from, ['east']);
  assert.not.ok(r.problems.some((p) => /reaches it through/.test(p)));
});

test('a missing object, an object owned by someone else, and a Service no member can reach', () => {
  const s = liveSet(clusterSet);
  const { plan } = s;
  const west = s.lists.get('west')!;
  const key = kindKey('ServiceExport', 'shop');
  const central = s.lists.get('central')!;
  central.set(
    key,
    central.get(key)!.filter((o) => (o.metadata as Obj).name !== 'catalog'),
  );
  const tiers = west.get(kindKey('Tier'))!;
  (named(tiers, 'clusterset-baseline').metadata as Obj).managedFields = [
    { manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: {} },
  ];
  for (const m of plan.members) {
    const k = kindKey('Endpoints', 'platform');
    const l = s.lists.get(m.id)!;
    l.set(
      k,
      l.get(k)!.filter((o) => (o.metadata as Obj).name !== 'antrea-mc-dns-cache'),
    );
  }
  const r = report(s);
  const has = (re: RegExp) =>
    assert.ok(
      r.problems.some((p) => re.test(p)),
      `${re} in:\n${r.problems.join('\n')}`,
    );
  has(/^central: ServiceExport shop\/catalog is missing$/);
  has(/^shop\/catalog: central has no ServiceExport$/);
  has(
    /^west: Tier clusterset-baseline was applied by kubectl-client-side-apply, not by Argo CD or Flux, which the model delivers it with: check that Application argocd\/prod-set-west or Kustomization flux-system\/prod-set-west exists and syncs$/,
  );
  has(/^platform\/dns-cache: no member can reach it/);
  assert.not.ok(r.services.find((x) => x.name === 'dns-cache')!.reachable);
});

test('a stale announce and a reconciler whose Lease expired', () => {
  const s = liveSet(clusterSet);
  const { plan } = s;
  const leader = s.lists.get(plan.leader.id)!;
  const a = named(
    leader.get(kindKey('MemberClusterAnnounce', plan.leaderNamespace)),
    'member-announce-from-west',
  );
  (a.metadata as Obj).annotations = { 'touch-ts': new Date(NOW - 600_000).toISOString() };
  const lease = named(leader.get(kindKey('Lease', plan.leaderNamespace)), 'clusterset-reconciler');
  (lease.spec as Obj).renewTime = new Date(NOW - 60_000).toISOString();
  const r = report(s);
  const has = (re: RegExp) =>
    assert.ok(
      r.problems.some((p) => re.test(p)),
      `${re} in:\n${r.problems.join('\n')}`,
    );
  has(/^west: last announced itself 600 s ago/);
  has(/^hub: the reconciler's Lease \(holder .*\) was last renewed 60 s ago, over its 15 s$/);
});

test("in warm standby (waitForAntreaLeader) no Lease holder while Antrea's leader Deployment has replicas is no problem; once it has none it is", () => {
  const s = liveSet({ ...clusterSet, reconciler: { ...clusterSet.reconciler, waitForAntreaLeader: true } });
  const { plan } = s;
  const leader = s.lists.get(plan.leader.id)!;
  const leases = leader.get(kindKey('Lease', plan.leaderNamespace))!;
  leases.splice(0, leases.length);
  const deployments = leader.get(kindKey('Deployment', plan.leaderNamespace))!;
  const antrea: Obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'antrea-mc-controller', namespace: plan.leaderNamespace },
    spec: { replicas: 1 },
    status: { replicas: 1 },
  };
  deployments.push(antrea);
  const standby = report(s);
  assert.equal(standby.problems, []);
  const hub = standby.clusters.find((c) => c.id === plan.leader.id)!;
  assert.equal(hub.reconciler!.waitingForAntreaLeader, [
    `Deployment ${plan.leaderNamespace}/antrea-mc-controller has replicas (spec.replicas 1, status.replicas 1)`,
  ]);
  assert.match(
    formatStatus(standby, 'text'),
    /standby \(reconciler\.waitForAntreaLeader\): no holder of the Lease while Antrea's leader runs: Deployment/,
  );
  // Scaled to zero: status.replicas reads 0 at once, but its Pod's process runs on until the kubelet
  // reports it stopped (issue 39): still waiting, the Pod named.
  antrea.spec = { replicas: 0 };
  antrea.status = {};
  const pod: Obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'antrea-mc-controller-6d9f-x7k2p',
      namespace: plan.leaderNamespace,
      deletionTimestamp: '2026-12-04T11:59:58Z',
      deletionGracePeriodSeconds: 10,
    },
    spec: { nodeName: 'hub-node-0', serviceAccountName: 'antrea-mc-controller' },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'antrea-mc-controller', state: { running: { startedAt: 'x' } } }],
    },
  };
  const pods = kindKey('Pod', plan.leaderNamespace, 'spec.serviceAccountName=antrea-mc-controller');
  leader.set(pods, [pod]);
  const terminating = report(s);
  assert.equal(terminating.problems, []);
  assert.match(
    terminating.clusters.find((c) => c.id === plan.leader.id)!.reconciler!.waitingForAntreaLeader!.join('\n'),
    /^Pod antrea-multicluster\/antrea-mc-controller-6d9f-x7k2p \(ServiceAccount antrea-mc-controller\) may still run: Running, container antrea-mc-controller running, being deleted since 2026-12-04T11:59:58Z/,
  );
  // Its container reported stopped (a finalizer may still hold the object): the reconciler should lead now.
  pod.status = {
    phase: 'Failed',
    containerStatuses: [{ name: 'antrea-mc-controller', state: { terminated: { exitCode: 0 } } }],
  };
  const after = report(s);
  assert.ok(
    after.problems.some((p) =>
      /^hub: the reconciler holds no Lease .*: is it running\? \(with reconciler\.waitForAntreaLeader it also waits while Antrea's leader webhook configurations exist\)$/.test(
        p,
      ),
    ),
    after.problems.join('\n'),
  );
  // Without the flag, Antrea's Deployment changes nothing: no holder is a problem.
  const plain = liveSet(clusterSet);
  const pl = plain.lists.get(plan.leader.id)!;
  pl.get(kindKey('Lease', plan.leaderNamespace))!.splice(0);
  pl.get(kindKey('Deployment', plan.leaderNamespace))!.push({ ...antrea, spec: { replicas: 1 } });
  assert.ok(report(plain).problems.some((p) => /holds no Lease .*: is it running\?$/.test(p)));
});

test("a member's restart Job that cannot start (its image cannot be pulled) is a problem naming what its Pod waits for and the fix; one whose run recorded that it cannot go on names the cause", () => {
  const s = liveSet(clusterSet);
  const { plan } = s;
  const east = s.lists.get('east')!;
  const job = east.get(kindKey('Job', plan.memberNamespace))![0]!;
  const name = String((job.metadata as Obj).name);
  job.status = { active: 1 };
  // The record of the Job before it (an older bundle's) counts for nothing.
  const cs = named(east.get(kindKey('ClusterSet', plan.memberNamespace)), plan.clusterSetId);
  const record = (text: string) => {
    (cs.metadata as Obj).annotations = {
      ...((cs.metadata as Obj).annotations as Obj),
      'clusterset/restart': text,
    };
  };
  record('clusterset-restart-0000000000 failed: old');
  east.set(kindKey('Pod', plan.memberNamespace, 'spec.serviceAccountName=clusterset-restart'), [
    {
      metadata: { name: `${name}-abcde`, namespace: plan.memberNamespace, labels: { 'job-name': name } },
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'restart',
            state: {
              waiting: {
                reason: 'ImagePullBackOff',
                message: 'Back-off pulling image "ghcr.io/clusterset/clusterset:0.1.0"',
              },
            },
          },
        ],
      },
    },
  ]);
  const r = report(s);
  assert.equal(r.clusters.find((c) => c.id === 'east')!.restart, {
    job: name,
    state: 'cannot start',
    detail: `its Pod ${name}-abcde waits, ImagePullBackOff: Back-off pulling image "ghcr.io/clusterset/clusterset:0.1.0"`,
  });
  assert.equal(r.problems, [
    `east: the restart Job kube-system/${name} cannot start: its Pod ${name}-abcde waits, ImagePullBackOff: Back-off pulling image "ghcr.io/clusterset/clusterset:0.1.0": the member's nodes must be able to pull reconciler.image (build and push it with \`npx clusterset image build --push\`); the kubelet tries again by itself`,
  ]);
  assert.match(formatStatus(r, 'text'), `  restart       Job ${name}: cannot start: its Pod`);
  // Its run got as far as to record why it cannot go on.
  record(
    `${name} failed: Deployment kube-system/antrea-mc-controller does not exist: Antrea's member controller must be installed first (antrea-multicluster-member.yml)`,
  );
  const f = report(s);
  assert.equal(f.clusters.find((c) => c.id === 'east')!.restart!.state, 'failed');
  assert.equal(f.problems, [
    `east: the restart Job kube-system/${name} cannot go on: Deployment kube-system/antrea-mc-controller does not exist: Antrea's member controller must be installed first (antrea-multicluster-member.yml). It runs again by itself (the kubelet restarts it with its back-off) and goes on once that is fixed`,
  ]);
  // Waiting for the restarted controller to connect: said, not a problem.
  record(`${name} waiting: for the leader`);
  east.set(kindKey('Pod', plan.memberNamespace, 'spec.serviceAccountName=clusterset-restart'), []);
  const w = report(s);
  assert.equal(w.problems, []);
  assert.equal(w.clusters.find((c) => c.id === 'east')!.restart, {
    job: name,
    state: 'waiting',
    detail: 'for the leader',
  });
});

test("a member's export left in the leader after its ServiceExport went (the withdrawal Antrea's member lost) is a problem that says what happened and how to withdraw it", () => {
  const s = liveSet(clusterSet);
  const { plan } = s;
  const east = s.lists.get('east')!;
  const all = east.get(SERVICE_EXPORTS_ALL)!;
  const gone = all.find((o) => (o.metadata as Obj).name === 'cart')!;
  all.splice(all.indexOf(gone), 1);
  const ns = String((gone.metadata as Obj).namespace);
  const r = report(s);
  const hit = r.problems.filter((p) => p.includes('is still in the leader'));
  assert.equal(hit.length, 1, r.problems.join('\n'));
  assert.match(
    hit[0]!,
    `${ns}/cart: east has no ServiceExport ${ns}/cart, yet its export east-${ns}-cart-service is still in the leader`,
  );
  assert.match(
    hit[0]!,
    `\`kubectl --context <${plan.leader.id}> -n ${plan.leaderNamespace} delete resourceexport east-${ns}-cart-service east-${ns}-cart-endpoints\``,
  );
  // One being withdrawn (its deletion waits on the reconciler's finalizer) is no leftover.
  const res = s.lists.get(plan.leader.id)!.get(kindKey('ResourceExport', plan.leaderNamespace))!;
  (named(res, `east-${ns}-cart-service`).metadata as Obj).deletionTimestamp = '2026-12-04T11:59:59Z';
  assert.not.ok(report(s).problems.some((p) => p.includes('is still in the leader')));
});

test('uninstalling: members still joined are reported leaving, with what is left of each; once all of it is gone the set is ok', () => {
  const live = liveSet(clusterSet);
  const model = { ...clusterSet, uninstall: true };
  const plan = makePlan(model);
  const s: LiveSet = { ...live, plan, bundles: bundlesFromFiles(compile(model).files, plan) };
  const r = report(s);
  assert.is(r.uninstalling, true);
  assert.not.ok(r.ok);
  assert.equal(r.services, []);
  const east = r.clusters.find((c) => c.id === 'east')!;
  assert.is(east.leaving?.clusterSet, 1);
  assert.is(east.leaving?.announce, 1);
  assert.ok((east.leaving?.exports ?? 0) > 0 && (east.leaving?.imported ?? 0) > 0);
  assert.ok(
    r.problems.includes(
      "east: has not left the leader: MemberClusterAnnounce member-announce-from-east is still there (Antrea's member deletes it once its ClusterSet is gone)",
    ),
    r.problems.join('\n'),
  );
  assert.match(
    formatStatus(r, 'text'),
    /^ClusterSet prod-set \(leader hub\) at \S+: uninstalling, \d+ problems\n/,
  );
  // Every member gone from the leader and empty of imports: nothing is left.
  const leader = s.lists.get(plan.leader.id)!;
  leader.set(kindKey('MemberClusterAnnounce', plan.leaderNamespace), []);
  leader.set(kindKey('ResourceExport', plan.leaderNamespace), []);
  for (const m of plan.members) {
    const own = s.lists.get(m.id)!;
    for (const key of [
      kindKey('ClusterSet', plan.memberNamespace),
      kindKey('ClusterInfoImport', plan.memberNamespace),
      kindKey('LabelIdentity'),
      kindKey('ClusterNetworkPolicy'),
      ...plan.serviceNamespaces.map((ns) => kindKey('ServiceImport', ns)),
    ])
      own.set(key, []);
  }
  const done = report(s);
  assert.equal(done.problems, []);
  assert.ok(done.ok);
  assert.equal(done.clusters.find((c) => c.id === 'east')!.leaving, {
    clusterSet: 0,
    announce: 0,
    exports: 0,
    imported: 0,
  });
  assert.match(
    formatStatus(done, 'text'),
    /: uninstalling: every member has left\n[\s\S]*membership {4}left/,
  );
});

test('goldens: text and markdown of a set with one break of each kind; json is the report', () => {
  const r = report(broken());
  const files = new Map([
    ['broken.txt', formatStatus(r, 'text')],
    ['broken.md', formatStatus(r, 'markdown')],
    ['healthy.txt', formatStatus(report(liveSet(clusterSet)), 'text')],
  ]);
  const problems = matchGolden(files, GOLDEN);
  assert.equal(problems, [], problems.join('\n'));
  assert.equal(JSON.parse(formatStatus(r, 'json')), JSON.parse(JSON.stringify(r)));
});

test('every kind a bundle renders is in the resource table, and the status role covers every collection', () => {
  const s = liveSet(clusterSet);
  const allowed = new Set(statusRules().flatMap((r) => r.resources.map((x) => `${r.apiGroups[0]}/${x}`)));
  for (const [id, objs] of s.bundles) {
    for (const o of objs) assert.ok(resourceOf(o.apiVersion, o.kind), `${o.apiVersion} ${o.kind}`);
    for (const key of collectionsFor(s.plan, id, objs)) {
      const parts = key.split('?')[0]!.split('/');
      // /api/v1/[namespaces/<ns>/]<plural> or /apis/<group>/<version>/[namespaces/<ns>/]<plural>
      const group = parts[1] === 'api' ? '' : parts[2]!;
      const plural = parts[parts.length - 1]!;
      assert.ok(allowed.has(`${group}/${plural}`), `${key} not readable by the status role`);
    }
  }
  assert.not.ok(
    [...allowed].some((x) => x === '/secrets'),
    'the status role never reads Secrets',
  );
  // Every kind any example renders into a cluster bundle, too.
  for (const c of caseNames()) {
    const dir = path.join(caseOut(c), 'clusters');
    if (!fs.existsSync(dir)) continue;
    for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!rel.endsWith('.yaml') || rel.endsWith('kustomization.yaml')) continue;
      const o = loadYaml(fs.readFileSync(path.join(dir, rel), 'utf8')) as {
        apiVersion: string;
        kind: string;
      };
      assert.ok(resourceOf(o.apiVersion, o.kind), `${c}/${rel}: ${o.apiVersion} ${o.kind}`);
    }
  }
});

test('the table agrees with the vendored CRDs: plural, scope and a served version of every custom kind', () => {
  const crds = fs
    .readdirSync(CRD_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => loadCrd(f));
  for (const r of RESOURCES) {
    const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
    const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === r.kind);
    if (!crd) {
      // Built into Kubernetes: no CRD to check against.
      assert.not.ok(
        group!.includes('.') && !group!.endsWith('k8s.io'),
        `${r.apiVersion} ${r.kind}: no vendored CRD`,
      );
      continue;
    }
    assert.is(r.plural, crd.spec.names.plural, r.kind);
    assert.is(r.namespaced, crd.spec.scope === 'Namespaced', r.kind);
    assert.ok(
      crd.spec.versions.some((v) => v.name === version && v.served),
      `${r.apiVersion} ${r.kind} served`,
    );
  }
});

test.run();
