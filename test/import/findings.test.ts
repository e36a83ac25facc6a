/**
 * Each finding of the import report, on a snapshot that has the fault, and its absence on the clean
 * one (fixtures.ts): blockers (Antrea too old, a shared or missing member identity, a dash-prefix
 * pair, an import the bundle would not render, a policy the model cannot say), changes (a stale or
 * unknown announce, a leader that ran with stretched policy off, an orphan dynamic import, an import
 * spec the bundle renders otherwise) and notes (a failed export, an orphan compiled import, the
 * Endpoints subsets order of §i).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importSet } from '../../lib/import/model';
import type { Finding } from '../../lib/import/findings';
import { renderReport } from '../../lib/import/report';
import {
  type Fixture,
  type Obj,
  cleanSet,
  guardRails,
  identity,
  obj,
  resourceImport,
  snapshot,
  subsets,
} from './fixtures';

function findings(f: Fixture): Finding[] {
  return [...importSet(snapshot(f)).findings];
}

const clean = findings(cleanSet('antctl'));

/** THEN the finding `code` of `cls` fires on the fault and not on the clean set. */
function fires(f: Fixture, cls: Finding['class'], code: string): Finding {
  const got = findings(f);
  const hit = got.find((x) => x.code === code);
  assert.ok(hit, `${code} fires; got ${got.map((x) => `${x.class} ${x.code}`).join(', ')}`);
  assert.is(hit!.class, cls, code);
  assert.not.ok(
    clean.some((x) => x.code === code),
    `${code} does not fire on the clean set`,
  );
  return hit!;
}

test('GIVEN the clean set THEN it has no blocker and no change', () => {
  assert.equal(
    clean.filter((f) => f.class !== 'info').map((f) => f.code),
    [],
  );
});

test('GIVEN Antrea 2.6 in a member WHEN imported THEN antrea-too-old blocks', () => {
  const f = cleanSet('antctl');
  (
    obj(f.members.east!, 'Deployment', 'antrea-mc-controller').spec as {
      template: { spec: { containers: { image: string }[] } };
    }
  ).template.spec.containers[0]!.image = 'antrea/antrea-mc-controller:v2.6.1';
  const hit = fires(f, 'blocker', 'antrea-too-old');
  assert.match(hit.message, '2.6.1');
});

test('GIVEN the pre-2.7 shared antrea-mc-member-access-sa bound to the member Role WHEN imported THEN shared-member-identity blocks, with the upgrade guide as the fix', () => {
  const f = cleanSet('antctl');
  f.leader.push(
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'antrea-mc-member-access-sa', namespace: 'antrea-multicluster' },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'antrea-mc-member-access-rolebinding', namespace: 'antrea-multicluster' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-member-cluster-role' },
      subjects: [
        { kind: 'ServiceAccount', name: 'antrea-mc-member-access-sa', namespace: 'antrea-multicluster' },
      ],
    },
  );
  const hit = fires(f, 'blocker', 'shared-member-identity');
  assert.match(hit.fix!, 'upgrade');
});

test('GIVEN a member with no ServiceAccount annotated with its ID WHEN imported THEN member-identity-missing blocks', () => {
  const f = cleanSet('kubectl');
  f.leader = f.leader.filter((o) => !(o.kind === 'ServiceAccount' && o.metadata.name === 'member-west'));
  fires(f, 'blocker', 'member-identity-missing');
});

test('GIVEN two ServiceAccounts annotated with one cluster ID WHEN imported THEN member-identity-ambiguous blocks', () => {
  const f = cleanSet('kubectl');
  f.leader.push(...identity('east', 'antctl'));
  fires(f, 'blocker', 'member-identity-ambiguous');
});

test('GIVEN an identity and an announce for east-1 beside east WHEN imported THEN dash-prefix-pair blocks (and east-1, not read, blocks too)', () => {
  const f = cleanSet('antctl');
  f.leader.push(...identity('east-1', 'antctl'), {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'MemberClusterAnnounce',
    metadata: {
      name: 'member-announce-from-east-1',
      namespace: 'antrea-multicluster',
      annotations: { 'touch-ts': '2026-09-01T11:59:59Z' },
    },
    clusterID: 'east-1',
    clusterSetID: 'test-set',
    leaderClusterID: 'hub',
  });
  const hit = fires(f, 'blocker', 'dash-prefix-pair');
  assert.match(hit.message, 'east and east-1');
  fires(f, 'blocker', 'member-not-read');
});

test('GIVEN an import of a kind the bundle does not render WHEN imported THEN import-deleted blocks', () => {
  const f = cleanSet('antctl');
  f.leader.push(
    resourceImport('ns-vm-externalentity', {
      name: 'vm',
      namespace: 'ns',
      kind: 'ExternalEntity',
      externalentity: {},
    }),
  );
  const hit = fires(f, 'blocker', 'import-deleted');
  assert.is(hit.path, 'ResourceImport antrea-multicluster/ns-vm-externalentity');
});

test('GIVEN a replicated policy with an ingress fqdn peer WHEN imported THEN policy-not-expressible blocks, naming the field path', () => {
  const f = cleanSet('antctl');
  const spec = guardRails() as { ingress: { from: unknown[] }[] };
  spec.ingress[0]!.from.push({ fqdn: 'db.example.com' });
  (
    obj(f.leader, 'ResourceImport', 'guard-rails-antreaclusternetworkpolicy').spec as Record<string, unknown>
  ).clusternetworkpolicy = spec;
  const hit = fires(f, 'blocker', 'policy-not-expressible');
  assert.is(
    hit.path,
    'ResourceImport antrea-multicluster/guard-rails-antreaclusternetworkpolicy spec.clusternetworkpolicy.ingress[0].from[1].fqdn',
  );
  // And the decisive comparison names the same field as a change.
  const changed = findings(f)
    .filter((x) => x.code === 'import-changed')
    .map((x) => x.path);
  assert.ok(
    changed.some((p) => p!.endsWith('spec.clusternetworkpolicy.ingress[0].from[1].fqdn')),
    changed.join('\n'),
  );
});

test('GIVEN a replicated policy whose port has no protocol WHEN imported THEN the compiled import adds TCP: an import-changed change naming the field', () => {
  const f = cleanSet('antctl');
  const spec = guardRails() as { ingress: { ports: { protocol?: string }[] }[] };
  delete spec.ingress[0]!.ports[0]!.protocol;
  (
    obj(f.leader, 'ResourceImport', 'guard-rails-antreaclusternetworkpolicy').spec as Record<string, unknown>
  ).clusternetworkpolicy = spec;
  const hit = fires(f, 'change', 'import-changed');
  assert.is(
    hit.path,
    'ResourceImport antrea-multicluster/guard-rails-antreaclusternetworkpolicy spec.clusternetworkpolicy.ingress[0].ports[0].protocol',
  );
  assert.not.ok(
    findings(f).some((x) => x.code === 'policy-not-expressible'),
    'the same policy, said outright',
  );
});

test("GIVEN west's export refused for other ports (ConvergeFailure) while its endpoints are merged WHEN imported THEN export-failed notes it, west leaves exportedFrom, and the endpoints change", () => {
  const f = cleanSet('antctl');
  const se = obj(f.leader, 'ResourceExport', 'west-shop-cart-service') as Obj & {
    spec: { service: { serviceSpec: { ports: unknown[] } } };
  };
  se.spec.service.serviceSpec.ports = [{ name: 'http', port: 9090, protocol: 'TCP', targetPort: 9090 }];
  se.status = {
    conditions: [
      {
        type: 'Failure',
        status: 'False',
        reason: 'ConvergeFailure',
        message: "ResourceExport can't be converged to ResourceImport",
      },
    ],
  };
  const hit = fires(f, 'info', 'export-failed');
  assert.is(hit.path, 'ResourceExport antrea-multicluster/west-shop-cart-service');
  assert.equal(importSet(snapshot(f)).model.services![0]!.exportedFrom, ['east']);
  const ep = fires(f, 'change', 'endpoints-changed');
  assert.match(ep.message, '10.102.0.10');
});

test('GIVEN an announce from an ID with no identity WHEN imported THEN announce-unknown is a change (the reconciler retires it at once)', () => {
  const f = cleanSet('antctl');
  f.leader.push({
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'MemberClusterAnnounce',
    metadata: {
      name: 'member-announce-from-south',
      namespace: 'antrea-multicluster',
      annotations: { 'touch-ts': '2026-09-01T11:59:59Z' },
    },
    clusterID: 'south',
    clusterSetID: 'test-set',
    leaderClusterID: 'hub',
  });
  fires(f, 'change', 'announce-unknown');
});

test('GIVEN an announce last refreshed two days before the read WHEN imported THEN announce-stale is a change', () => {
  const f = cleanSet('antctl');
  (
    obj(f.leader, 'MemberClusterAnnounce', 'member-announce-from-west').metadata.annotations as Record<
      string,
      string
    >
  )['touch-ts'] = '2026-08-30T12:00:00Z';
  const hit = fires(f, 'change', 'announce-stale');
  assert.match(hit.message, '48 h');
});

test('GIVEN a leader that ran with stretched policy off (no LabelIdentity imports) while east exports a label WHEN imported THEN leader-stretched-off is a change', () => {
  const f = cleanSet('antctl');
  const cm = obj(f.leader, 'ConfigMap', 'antrea-mc-controller-config') as Obj & {
    data: Record<string, string>;
  };
  cm.data['controller_manager_config.yaml'] = cm.data['controller_manager_config.yaml']!.replace(
    'enableStretchedNetworkPolicy: true',
    'enableStretchedNetworkPolicy: false',
  );
  f.leader = f.leader.filter(
    (o) => !(o.kind === 'ResourceImport' && (o.spec as { kind: string }).kind === 'LabelIdentity'),
  );
  const hit = fires(f, 'change', 'leader-stretched-off');
  assert.match(hit.message, '1 new LabelIdentity import');
});

test('GIVEN orphan imports (a ServiceImport and an Endpoints import no export backs) WHEN imported THEN the model cannot keep the compiled one (orphan-import says why, import-deleted blocks) and the dynamic one goes (a change)', () => {
  const f = cleanSet('antctl');
  f.leader.push(
    resourceImport('shop-old-service', {
      name: 'old',
      namespace: 'shop',
      kind: 'ServiceImport',
      serviceImport: { spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }], type: 'ClusterSetIP' } },
    }),
    resourceImport('shop-old-endpoints', {
      name: 'old',
      namespace: 'shop',
      kind: 'Endpoints',
      endpoints: { subsets: subsets('10.101.0.99') },
    }),
  );
  fires(f, 'info', 'orphan-import');
  fires(f, 'change', 'dynamic-import-deleted');
  const deleted = fires(f, 'blocker', 'import-deleted');
  assert.is(deleted.path, 'ResourceImport antrea-multicluster/shop-old-service');
  const i = importSet(snapshot(f));
  assert.not.ok(i.model.services!.some((s) => s.name === 'old'));
  assert.not.ok(
    i.findings.some((x) => x.code === 'model-invalid'),
    'the model still checks clean',
  );
});

test('GIVEN an Endpoints import whose subsets are in informer order (west before east) WHEN imported THEN endpoints-order is a note, not a change: same addresses (§i)', () => {
  const f = cleanSet('antctl');
  (obj(f.leader, 'ResourceImport', 'shop-cart-endpoints').spec as Record<string, unknown>).endpoints = {
    subsets: subsets('10.102.0.10', '10.101.0.10'),
  };
  const hit = fires(f, 'info', 'endpoints-order');
  assert.match(hit.message, 'same addresses');
  assert.not.ok(
    findings(f).some((x) => x.class === 'change'),
    'no change',
  );
});

test('GIVEN a finding WHEN the report is rendered THEN text lists it under its class with its fix, and JSON says the set is not ready', () => {
  const f = cleanSet('antctl');
  f.leader.push(
    resourceImport('ns-vm-externalentity', {
      name: 'vm',
      namespace: 'ns',
      kind: 'ExternalEntity',
      externalentity: {},
    }),
  );
  const i = importSet(snapshot(f));
  const text = renderReport(i, 'text');
  assert.match(text, 'Blockers');
  assert.match(text, '[import-deleted] ResourceImport antrea-multicluster/ns-vm-externalentity');
  const json = JSON.parse(renderReport(i, 'json')) as { ready: boolean; counts: { blocker: number } };
  assert.is(json.ready, false);
  assert.ok(json.counts.blocker >= 1);
  assert.is(
    (JSON.parse(renderReport(importSet(snapshot(cleanSet('antctl'))), 'json')) as { ready: boolean }).ready,
    true,
  );
});

test('GIVEN the contexts the import read through WHEN nothing blocks THEN the report ends with the runbook, each step with its check on those contexts; WHEN a blocker remains THEN no runbook', () => {
  const contexts = {
    leader: 'ctx-hub',
    members: { east: 'ctx-east', west: 'ctx-west' },
    modelFile: 'fleet.yaml',
  };
  const text = renderReport(importSet(snapshot(cleanSet('antctl'))), 'text', contexts);
  const at = (s: string) => {
    const i = text.indexOf(s);
    assert.ok(i >= 0, `the report says ${s}`);
    return i;
  };
  const targets = '--leader-context ctx-hub --member east=ctx-east --member west=ctx-west';
  const steps = [
    `clusterset import --check --model fleet.yaml ${targets} --snapshot before.json`,
    'kubectl --context ctx-east -n kube-system wait --for=condition=complete job -l app.kubernetes.io/name=clusterset-restart --timeout=5m',
    'kubectl --context ctx-west -n kube-system wait --for=condition=complete job -l app.kubernetes.io/name=clusterset-restart --timeout=5m',
    'kubectl --context ctx-hub -n antrea-multicluster get lease clusterset-reconciler',
    'kubectl --context ctx-hub delete validatingwebhookconfiguration antrea-multicluster-antrea-mc-validating-webhook-configuration',
    'kubectl --context ctx-hub -n antrea-multicluster scale deployment antrea-mc-controller --replicas=0',
    'NEVER its CRDs',
  ];
  const where = steps.map(at);
  assert.equal(
    where,
    [...where].sort((a, b) => a - b),
    "in the runbook's order",
  );
  at(`clusterset import --verify --snapshot before.json ${targets}`);
  const json = JSON.parse(renderReport(importSet(snapshot(cleanSet('antctl'))), 'json', contexts)) as {
    runbook?: string[];
  };
  assert.ok(json.runbook?.some((l) => l.includes('--replicas=0')));
  const blocked = cleanSet('antctl');
  blocked.leader.push(
    resourceImport('ns-vm-externalentity', {
      name: 'vm',
      namespace: 'ns',
      kind: 'ExternalEntity',
      externalentity: {},
    }),
  );
  assert.not.match(renderReport(importSet(snapshot(blocked)), 'text', contexts), 'Cut-over runbook');
});

test.run();
