/**
 * `clusterset import --check` (lib/import/check.ts) on sets made as Antrea leaves them (fixtures.ts):
 * on the clean set every bundle object is created or adopted unchanged, but what Antrea's install or
 * antctl made, which is adopted with a change and says who made it, and the check passes; each fault
 * a member would feel fails it, naming the object: an import the committed model no longer renders,
 * an Endpoints address set that changes, a label ID that changes, an export the reconciler refuses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type CheckResult, checkSet, objectChanges, renderCheck } from '../../lib/import/check';
import { importSet } from '../../lib/import/model';
import type { LiveObject } from '../../lib/import/snapshot';
import type { ClusterSetProps } from '../../lib/model';
import type { K8sObject } from '../../lib/render';
import { type Fixture, type Obj, LABEL_HASH, cleanSet, obj, snapshot } from './fixtures';

function check(f: Fixture, edit: (m: ClusterSetProps) => ClusterSetProps = (m) => m): CheckResult {
  const s = snapshot(f);
  // The committed model: the one import wrote for the clean set, as the team edited it.
  const model = edit(importSet(snapshot(cleanSet(wayOf(f)))).model);
  return checkSet(s, model);
}

function wayOf(f: Fixture): 'antctl' | 'kubectl' {
  return f.leader.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'member-east')
    ? 'kubectl'
    : 'antctl';
}

function fails(r: CheckResult, code: string, path: string): void {
  assert.not.ok(r.ok, 'the check fails');
  const hit = r.failures.find((f) => f.code === code && f.path.includes(path));
  assert.ok(hit, `${code} fails the check; got ${r.failures.map((f) => `${f.code} ${f.path}`).join('; ')}`);
  assert.ok(hit!.path.includes(path), `${hit!.path} names ${path}`);
  assert.match(renderCheck(r, 'text'), `[${code}] ${hit!.path}`);
}

for (const way of ['antctl', 'kubectl'] as const)
  test(`GIVEN the clean set made the ${way} way and its imported model WHEN checked THEN every object is created or adopted unchanged (what Antrea or antctl made: adopted with a change, saying so), the imports are adopted unchanged, and the check passes`, () => {
    const r = check(cleanSet(way));
    assert.ok(r.ok, JSON.stringify(r.failures, null, 2));
    assert.equal(r.failures, []);
    const all = r.clusters.flatMap((c) => c.objects.map((o) => ({ ...o, cluster: c.id })));
    assert.ok(all.length > 30, `${all.length} objects`);
    for (const o of all) {
      // A member's ClusterSet gains one annotation, the bundle's restart Job (a metadata change,
      // which Antrea's member controller does not act on): adopted with that change alone.
      if (o.kind === 'ClusterSet' && o.namespace === 'kube-system' && o.owner === undefined) {
        assert.is(o.verdict, 'adopt-changed', `${o.cluster} ${o.kind} ${o.name}`);
        assert.equal(
          o.changes.map((c) => c.path),
          ['metadata.annotations.clusterset/restart-job'],
          `${o.cluster} ${o.kind} ${o.name}`,
        );
      } else if (o.owner === undefined)
        assert.ok(
          o.verdict === 'create' || o.verdict === 'adopt-unchanged',
          `${o.cluster} ${o.kind} ${o.name}: ${o.verdict} ${JSON.stringify(o.changes)}`,
        );
      else assert.is(o.verdict, 'adopt-changed', `${o.kind} ${o.name}`);
    }
    const hub = r.clusters.find((c) => c.id === 'hub')!;
    for (const name of ['shop-cart-service', 'guard-rails-antreaclusternetworkpolicy'])
      assert.is(
        hub.objects.find((o) => o.kind === 'ResourceImport' && o.name === name)?.verdict,
        'adopt-unchanged',
        name,
      );
    // Antrea's leader install made the member Role: adopted, with a change, and it says by whom.
    const role = hub.objects.find((o) => o.kind === 'Role' && o.name === 'antrea-mc-member-cluster-role')!;
    assert.is(role.verdict, 'adopt-changed');
    assert.match(role.owner!, "Antrea's install");
    assert.is(
      hub.objects.find((o) => o.kind === 'ClusterSet')!.verdict,
      'adopt-unchanged',
      'the fixture ClusterSet carries no mark of its maker',
    );
    // The antctl way: the identities carry antctl's annotation, which `antctl mc destroy` deletes by.
    const sa = hub.objects.find((o) => o.kind === 'ServiceAccount' && o.name.includes('east'))!;
    if (way === 'antctl') assert.match(sa.owner ?? '', 'antctl');
    else assert.is(sa.verdict, 'adopt-unchanged');
    // The reconciler's first writes: statuses, no import created, rewritten or deleted.
    assert.ok(r.reconciler.length > 0);
    assert.equal(
      r.reconciler.filter((w) => /Import$/.test(w.op)),
      [],
    );
    assert.match(renderCheck(r, 'text'), 'OK: no import deleted');
    assert.is((JSON.parse(renderCheck(r, 'json')) as { ok: boolean }).ok, true);
  });

test('GIVEN the leader ClusterSet as `antctl mc init` created it (field manager antctl) WHEN checked THEN it is adopted with a change, saying antctl made it', () => {
  const f = cleanSet('kubectl');
  const cs = f.leader.find((o) => o.kind === 'ClusterSet')!;
  cs.metadata.managedFields = [
    { manager: 'antctl', operation: 'Update', apiVersion: 'multicluster.crd.antrea.io/v1alpha2' },
  ];
  const r = check(f);
  assert.ok(r.ok);
  const o = r.clusters.find((c) => c.id === 'hub')!.objects.find((x) => x.kind === 'ClusterSet')!;
  assert.is(o.verdict, 'adopt-changed');
  assert.match(o.owner!, 'antctl mc deploy');
});

test('GIVEN the committed model with delivery added WHEN checked THEN it still passes: the delivery directives are not changes', () => {
  const r = check(cleanSet('antctl'), (m) => ({
    ...m,
    delivery: { repoURL: 'https://git.example.com/set/gitops.git', managementCluster: 'hub' },
  }));
  assert.ok(r.ok, JSON.stringify(r.failures, null, 2));
});

test('GIVEN a committed model that no longer declares Service shop/cart WHEN checked THEN the import it would delete fails the check, named', () => {
  const r = check(cleanSet('antctl'), (m) => ({ ...m, services: [], stretchedPolicies: [] }));
  fails(r, 'import-deleted', 'ResourceImport antrea-multicluster/shop-cart-service');
});

test("GIVEN west's Endpoints export with another address than the live import WHEN checked THEN the Endpoints address set change fails the check, named", () => {
  const f = cleanSet('antctl');
  const e = obj(f.leader, 'ResourceExport', 'west-shop-cart-endpoints') as Obj & {
    spec: { endpoints: { subsets: { addresses: { ip: string }[] }[] } };
  };
  e.spec.endpoints.subsets[0]!.addresses[0]!.ip = '10.102.0.99';
  const r = check(f);
  fails(r, 'endpoints-changed', 'ResourceImport antrea-multicluster/shop-cart-endpoints');
  assert.ok(r.reconciler.some((w) => w.op === 'replaceImport' && w.detail.includes('10.102.0.99')));
});

test('GIVEN a label identity import holding an ID the reconciler cannot re-adopt WHEN checked THEN the label ID change fails the check, named', () => {
  const f = cleanSet('antctl');
  (obj(f.leader, 'ResourceImport', LABEL_HASH).spec as { labelIdentity: { id: number } }).labelIdentity.id =
    0;
  const r = check(f);
  fails(r, 'label-id-changed', `ResourceImport antrea-multicluster/${LABEL_HASH}`);
});

test("GIVEN west's Service export with other ports than the model's WHEN checked THEN the export the reconciler would refuse fails the check, named", () => {
  const f = cleanSet('antctl');
  (
    obj(f.leader, 'ResourceExport', 'west-shop-cart-service').spec as {
      service: { serviceSpec: { ports: unknown[] } };
    }
  ).service.serviceSpec.ports = [{ name: 'http', port: 9090, protocol: 'TCP' }];
  const r = check(f);
  fails(r, 'export-refused', 'ResourceExport antrea-multicluster/west-shop-cart-service');
  // The ACNP export is only marked ignored (its policy is compiled): no failure of its own.
  assert.not.ok(r.failures.some((x) => x.path.includes('guard-rails-for-test-set')));
});

test('GIVEN an object whose live copy has server defaults and other managers’ fields WHEN compared THEN only rendered fields count, and clusterset’s bookkeeping labels are no change', () => {
  const rendered = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'x',
      namespace: 'ns',
      labels: { 'app.kubernetes.io/managed-by': 'clusterset', team: 'net' },
      annotations: { 'argocd.argoproj.io/sync-wave': '-1' },
    },
    data: { a: '1' },
  } as unknown as K8sObject;
  const live = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'ns', uid: 'u', labels: { team: 'net', other: 'y' } },
    data: { a: '1', b: '2' },
  } as LiveObject;
  assert.equal(objectChanges(rendered, live), []);
  const changed = { ...live, data: { a: '2' } } as LiveObject;
  assert.equal(
    objectChanges(rendered, changed).map((d) => d.path),
    ['data.a'],
  );
  const unlabelled = { ...live, metadata: { ...live.metadata, labels: {} } } as LiveObject;
  assert.equal(
    objectChanges(rendered, unlabelled).map((d) => d.path),
    ['metadata.labels.team'],
  );
});

test('GIVEN a label every member withdrew while its import is still there WHEN checked THEN the check passes and says the import goes (Antrea deletes it too)', () => {
  const f = cleanSet('antctl');
  f.leader = f.leader.filter(
    (o) => !(o.kind === 'ResourceExport' && (o.spec as { kind?: string }).kind === 'LabelIdentity'),
  );
  const r = check(f);
  assert.ok(r.ok, JSON.stringify(r.failures, null, 2));
  assert.ok(
    r.findings.some(
      (x) => x.code === 'label-withdrawn' && x.path === `ResourceImport antrea-multicluster/${LABEL_HASH}`,
    ),
  );
});

test('GIVEN a label whose exports the reconciler refuses (not named <id>-<hash16>) WHEN checked THEN the import it would delete fails the check: the exports still carry the label', () => {
  const f = cleanSet('antctl');
  for (const o of f.leader)
    if (o.kind === 'ResourceExport' && (o.spec as { kind?: string }).kind === 'LabelIdentity')
      (o.metadata as { name: string }).name = `${(o.metadata as { name: string }).name}-renamed`;
  const r = check(f);
  fails(r, 'dynamic-import-deleted', `ResourceImport antrea-multicluster/${LABEL_HASH}`);
});

test.run();
