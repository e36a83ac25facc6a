/**
 * Who applied an object, in `status`: information (shown and counted per field manager), and a
 * problem only when the model's `delivery` names the tools that must have applied it and none of
 * them did. Proves the day-two trap is gone: a set applied with `kubectl apply --server-side` and a
 * model without `delivery` matches (exit 0) and says "N of N objects match; applied by kubectl",
 * never "0 of N"; a kubectl co-owner left by a bootstrap, or a stale manager of a tool the model
 * switched away from, is no problem; an object only the other tool applied is one, with where to look.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import clusterSet from '../../clusterset';
import type { ClusterSetProps } from '../../lib/model';
import { formatStatus } from '../../lib/status/format';
import { bundleKey, isUnread, type BundleObject, type Obj } from '../../lib/status/live';
import { statusReport } from '../../lib/status/report';
import type { StatusReport } from '../../lib/status/report/types';
import { liveSet, NOW, readsOf, type LiveSet } from './live-state';

function report(s: LiveSet): StatusReport {
  return statusReport({ plan: s.plan, bundles: s.bundles, reads: readsOf(s), nowMs: NOW });
}

/** The example model without `delivery`: the bundles reach the clusters some other way. */
function withoutDelivery(): ClusterSetProps {
  const m: Record<string, unknown> = { ...clusterSet };
  delete m.delivery;
  return m as unknown as ClusterSetProps;
}

/** The example model delivered by Argo CD alone. */
function argoOnly(): ClusterSetProps {
  return { ...clusterSet, delivery: { ...clusterSet.delivery!, flux: { enabled: false } } };
}

/** The fieldsV1 a server-side apply of `o` records: every rendered field, name and namespace aside. */
function fieldsOf(o: unknown, top = true): Obj {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return {};
  const out: Obj = {};
  for (const [k, v] of Object.entries(o as Obj)) {
    if (top && (k === 'apiVersion' || k === 'kind')) continue;
    if (top && k === 'metadata') {
      const rest = Object.fromEntries(
        Object.entries(v as Obj).filter(([key]) => key !== 'name' && key !== 'namespace'),
      );
      if (Object.keys(rest).length > 0) out['f:metadata'] = fieldsOf(rest, false);
      continue;
    }
    out[`f:${k}`] = fieldsOf(v, false);
  }
  return out;
}

/** The live object of a bundle object (it must be there). */
function liveOf(s: LiveSet, cluster: string, o: BundleObject): Obj {
  const live = s.lists
    .get(cluster)!
    .get(bundleKey(o)!)!
    .find((x) => (x.metadata as Obj).name === o.name);
  if (!live) throw new Error(`${cluster}: no live ${o.kind} ${o.name}`);
  return live;
}

/** Every read bundle object of every cluster, live, with the managedFields `entries(o)` gives it. */
function applyAll(s: LiveSet, entries: (o: BundleObject, cluster: string) => Obj[]): void {
  for (const [id, objs] of s.bundles)
    for (const o of objs) {
      if (isUnread(o)) continue;
      (liveOf(s, id, o).metadata as Obj).managedFields = entries(o, id);
    }
}

const apply = (manager: string, o: BundleObject): Obj => ({
  manager,
  operation: 'Apply',
  fieldsType: 'FieldsV1',
  fieldsV1: fieldsOf(o.object),
});

const find = (s: LiveSet, cluster: string, kind: string, name: string): BundleObject => {
  const o = s.bundles.get(cluster)!.find((x) => x.kind === kind && x.name === name);
  if (!o) throw new Error(`${cluster}: no ${kind} ${name} in the bundle`);
  return o;
};

test('GIVEN a model without delivery and every object applied with kubectl apply --server-side WHEN status reports THEN it matches (exit 0) and says who applied what', () => {
  const s = liveSet(withoutDelivery());
  applyAll(s, (o) => [
    apply('kubectl', o),
    // The Deployment controller writes its revision annotation: a manager of the object, not its applier.
    ...(o.kind === 'Deployment'
      ? [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } } },
          },
        ]
      : []),
  ]);
  const r = report(s);
  assert.equal(r.problems, []);
  assert.ok(r.ok);
  assert.is(r.deliveryManagers, undefined);
  for (const c of r.clusters) {
    const d = c.delivered;
    const compared = d.total - d.unread;
    assert.ok(compared > 0, c.id);
    assert.is(d.matching, compared, c.id);
    assert.is(d.ok, compared, c.id);
    assert.equal(d.objects, [], c.id);
    assert.equal(d.appliedBy, [{ manager: 'kubectl', objects: compared }], c.id);
  }
  const text = formatStatus(r, 'text');
  assert.match(text, /^ClusterSet prod-set \(leader hub\) at \S+: matches the model\n/);
  assert.match(
    text,
    /\nhub \(leader\)\n {2}bundle {8}33 of 33 objects match; applied by kubectl \(33\); 4 objects not read \(Secrets are never read\)\n/,
  );
  assert.not.match(text, / 0 of /);
  assert.not.match(text, /Argo CD|Flux/);
});

test('fails GIVEN a model without delivery and a field edited by hand WHEN status reports THEN the drift is a problem, naming who changed it, and the editor is not counted as an applier', () => {
  const s = liveSet(withoutDelivery());
  applyAll(s, (o) => [apply('kubectl', o)]);
  const tier = find(s, 'west', 'Tier', 'clusterset-baseline');
  const live = liveOf(s, 'west', tier);
  (live.spec as Obj).priority = 7;
  const fields = (live.metadata as Obj).managedFields as Obj[];
  delete ((fields[0]!.fieldsV1 as Obj)['f:spec'] as Obj)['f:priority'];
  fields.push({ manager: 'kubectl-edit', operation: 'Update', fieldsV1: { 'f:spec': { 'f:priority': {} } } });
  const r = report(s);
  assert.not.ok(r.ok);
  assert.equal(r.problems, [
    `west: Tier clusterset-baseline drifted: spec.priority is 7, the bundle has ${JSON.stringify((tier.object.spec as Obj).priority)} (changed by kubectl-edit)`,
  ]);
  const west = r.clusters.find((c) => c.id === 'west')!.delivered;
  assert.is(west.matching, west.total - west.unread - 1);
  assert.equal(west.appliedBy, [{ manager: 'kubectl', objects: west.total - west.unread }]);
  assert.equal(
    west.objects.map((o) => [o.kind, o.name, o.state]),
    [['Tier', 'clusterset-baseline', 'drifted']],
  );
  assert.match(formatStatus(r, 'text'), /\n {16}Tier clusterset-baseline: drifted in spec\.priority\n/);
});

test('GIVEN a model delivered by Argo CD WHEN objects are also held by kubectl (a bootstrap) or by a Flux the model no longer names THEN no problem; WHEN only Flux applied one THEN that one is a problem naming the Application to check', () => {
  const s = liveSet(argoOnly());
  applyAll(s, (o) => [apply('argocd-controller', o)]);
  // The leader bootstrapped with kubectl before Argo CD took it over: both hold the fields.
  for (const o of s.bundles.get('hub')!)
    if (!isUnread(o))
      ((liveOf(s, 'hub', o).metadata as Obj).managedFields as Obj[]).push(apply('kubectl', o));
  // east was delivered by Flux before the switch to Argo CD: Flux's entries stay behind.
  for (const o of s.bundles.get('east')!)
    if (!isUnread(o))
      ((liveOf(s, 'east', o).metadata as Obj).managedFields as Obj[]).push(apply('kustomize-controller', o));
  // west's Tier: applied by Flux alone, so Argo CD does not deliver it.
  const tier = find(s, 'west', 'Tier', 'clusterset-baseline');
  (liveOf(s, 'west', tier).metadata as Obj).managedFields = [apply('kustomize-controller', tier)];
  const r = report(s);
  assert.equal(r.deliveryManagers, ['argocd-controller']);
  assert.equal(r.problems, [
    'west: Tier clusterset-baseline was applied by kustomize-controller, not by Argo CD, which the model delivers it with: check that Application argocd/prod-set-west exists and syncs',
  ]);
  const hub = r.clusters.find((c) => c.id === 'hub')!.delivered;
  assert.equal(hub.appliedBy, [
    { manager: 'argocd-controller', objects: 33 },
    { manager: 'kubectl', objects: 33 },
  ]);
  assert.is(hub.ok, 33);
  const west = r.clusters.find((c) => c.id === 'west')!.delivered;
  assert.is(west.matching, west.total - west.unread, 'the Tier matches');
  assert.is(west.ok, west.matching - 1, 'but is not as it should be');
  const text = formatStatus(r, 'text');
  assert.match(
    text,
    /\nwest \(member\)\n {2}bundle {8}18 of 18 objects match; applied by Argo CD \(17\), Flux \(1\)\n {16}Tier clusterset-baseline: matches; not applied by Argo CD \(applied by kustomize-controller\)\n/,
  );
  assert.match(
    text,
    /\nhub \(leader\)\n {2}bundle {8}33 of 33 objects match; applied by Argo CD \(33\), kubectl \(33\);/,
  );
});

test('fails GIVEN the example model (Argo CD or Flux) WHEN an object was applied with kubectl only THEN it is a problem naming both places to look; JSON says which managers count', () => {
  const s = liveSet(clusterSet);
  const cs = find(s, 'east', 'ClusterSet', 'prod-set');
  (liveOf(s, 'east', cs).metadata as Obj).managedFields = [apply('kubectl', cs)];
  const r = report(s);
  assert.equal(r.deliveryManagers, ['argocd-controller', 'kustomize-controller']);
  assert.equal(r.problems, [
    'east: ClusterSet kube-system/prod-set was applied by kubectl, not by Argo CD or Flux, which the model delivers it with: check that Application argocd/prod-set-east or Kustomization flux-system/prod-set-east exists and syncs',
  ]);
  const json = JSON.parse(formatStatus(r, 'json')) as StatusReport;
  const east = json.clusters.find((c) => c.id === 'east')!.delivered;
  assert.equal(
    east.objects.map((o) => [o.kind, o.otherOwners, o.appliedBy]),
    [['ClusterSet', ['kubectl'], ['kubectl']]],
  );
  assert.match(
    formatStatus(r, 'markdown'),
    /\*\*Objects with a problem\*\*\n\n- `east`: ClusterSet kube-system\/prod-set: matches; not applied by Argo CD or Flux \(applied by kubectl\)\n/,
  );
});

test('GIVEN an object whose managedFields name no field (as a fake cluster may record) WHEN status reports THEN every manager listed counts as its applier', () => {
  const s = liveSet(withoutDelivery());
  const r = report(s);
  assert.ok(r.ok, r.problems.join('\n'));
  const central = r.clusters.find((c) => c.id === 'central')!.delivered;
  assert.equal(central.appliedBy, [{ manager: 'argocd-controller', objects: 20 }]);
});

test.run();
