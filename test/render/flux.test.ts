import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliveryOf } from '../helpers/delivery';
import { render, type K8sObject } from '../../lib/render';
import { LEADER_APPLIED } from '../../lib/render/flux';
import { fluxHealthCheckExprs } from '../../lib/render/health';
import { validateObject } from '../../lib/validate';
import {
  dualRoleModel,
  minimalModel,
  only,
  planOf,
  policiesModel,
  service,
  type ModelDraft,
} from '../helpers/models';

const REPO = 'https://git.example.com/platform/gitops.git';

/** GIVEN a model with delivery from the leader `hub`, plus `extra` delivery settings. */
function withDelivery(m: ModelDraft, extra: Partial<NonNullable<ModelDraft['delivery']>> = {}): ModelDraft {
  m.delivery = { repoURL: REPO, managementCluster: 'hub', ...extra };
  return m;
}

function flux(m: ModelDraft): K8sObject[] {
  return deliveryOf(m).get('flux') ?? [];
}

type KsSpec = {
  interval: string;
  path: string;
  prune: boolean;
  deletionPolicy?: string;
  sourceRef: { kind: string; name: string };
  wait?: boolean;
  kubeConfig?: { secretRef: { name: string; key: string } };
  dependsOn?: { name: string; readyExpr?: string }[];
  patches?: { patch: string; target: Record<string, string> }[];
  healthCheckExprs?: { apiVersion: string; kind: string; current: string; failed?: string }[];
};
const ks = (objs: K8sObject[], name: string) => only(objs, 'Kustomization', name).spec as KsSpec;

test('GIVEN delivery WHEN rendered THEN a GitRepository named after the ClusterSet on the branch, in flux-system', () => {
  const repo = only(flux(withDelivery(minimalModel(), { branch: 'release' })), 'GitRepository');
  assert.equal(repo.metadata, {
    name: 'test-set',
    namespace: 'flux-system',
    labels: { 'app.kubernetes.io/managed-by': 'clusterset', 'app.kubernetes.io/part-of': 'test-set' },
  });
  assert.equal(repo.spec, { interval: '5m', ref: { branch: 'release' }, url: REPO });
});

test('GIVEN a git Secret, a namespace and an interval WHEN rendered THEN the GitRepository references the Secret, never its value', () => {
  const objs = flux(
    withDelivery(minimalModel(), {
      flux: { gitSecretName: 'gitops-auth', namespace: 'gitops', interval: '1h' },
    }),
  );
  const repo = only(objs, 'GitRepository');
  assert.equal(repo.spec, {
    interval: '1h',
    ref: { branch: 'main' },
    secretRef: { name: 'gitops-auth' },
    url: REPO,
  });
  for (const o of objs) assert.is(o.metadata.namespace, 'gitops');
});

test("GIVEN delivery WHEN rendered THEN a root Kustomization keeps <path>/flux itself in sync in the management cluster, and orphans the clusters' Kustomizations when deleted", () => {
  const root = ks(flux(withDelivery(minimalModel(), { path: 'deploy/out' })), 'test-set');
  assert.equal(root, {
    interval: '5m',
    path: './deploy/out/flux',
    prune: true,
    deletionPolicy: 'Orphan',
    sourceRef: { kind: 'GitRepository', name: 'test-set' },
  });
  for (const o of flux(withDelivery(minimalModel())))
    if (o.kind === 'Kustomization' && o.metadata.name !== 'test-set')
      assert.is((o.spec as KsSpec).deletionPolicy, undefined, 'a cluster Kustomization mirrors prune');
});

test('GIVEN delivery WHEN rendered THEN one Kustomization per cluster with path ./<path>/clusters/<id>, prune, sourceRef and wait', () => {
  const objs = flux(withDelivery(minimalModel()));
  assert.equal(
    objs
      .filter((o) => o.kind === 'Kustomization')
      .map((o) => o.metadata.name)
      .sort(),
    ['test-set', 'test-set-east', 'test-set-hub', 'test-set-west'],
  );
  for (const id of ['hub', 'east', 'west']) {
    const s = ks(objs, `test-set-${id}`);
    assert.is(s.path, `./out/clusters/${id}`);
    assert.is(s.prune, true);
    assert.is(s.wait, true, 'wait, so that dependsOn waits for objects to be ready');
    assert.equal(s.sourceRef, { kind: 'GitRepository', name: 'test-set' });
  }
});

test('GIVEN management cluster hub WHEN rendered THEN only the remote clusters have a kubeConfig Secret reference, default name and key', () => {
  const objs = flux(withDelivery(minimalModel()));
  assert.is(ks(objs, 'test-set-hub').kubeConfig, undefined);
  assert.is(ks(objs, 'test-set').kubeConfig, undefined);
  assert.equal(ks(objs, 'test-set-east').kubeConfig, {
    secretRef: { name: 'east-kubeconfig', key: 'value' },
  });
  assert.equal(ks(objs, 'test-set-west').kubeConfig, {
    secretRef: { name: 'west-kubeconfig', key: 'value' },
  });
});

test('GIVEN management cluster east and custom Secret names WHEN rendered THEN east has no kubeConfig and hub and west use the model names', () => {
  const m = withDelivery(minimalModel(), {
    managementCluster: 'east',
    flux: { kubeConfigSecrets: { hub: 'hub-admin' }, kubeConfigKey: 'config' },
  });
  m.admission = { deliveryUsers: ['system:serviceaccount:kube-system:flux'] };
  const objs = flux(m);
  assert.is(ks(objs, 'test-set-east').kubeConfig, undefined);
  assert.equal(ks(objs, 'test-set-hub').kubeConfig, { secretRef: { name: 'hub-admin', key: 'config' } });
  assert.equal(ks(objs, 'test-set-west').kubeConfig, {
    secretRef: { name: 'west-kubeconfig', key: 'config' },
  });
});

test("GIVEN members without custom Tiers WHEN rendered THEN no Kustomization has a patch: nothing of the bundle is left out, Antrea's member controller Deployment is not in it", () => {
  const m = withDelivery(minimalModel());
  m.memberNamespace = 'antrea-mc';
  const objs = flux(m);
  for (const id of ['hub', 'east', 'west']) assert.is(ks(objs, `test-set-${id}`).patches, undefined, id);
  for (const id of ['hub', 'east', 'west'])
    assert.is(
      ks(flux(withDelivery(dualRoleModel())), `test-set-${id}`).patches,
      undefined,
      `dual-role ${id}`,
    );
  assert.not.match(JSON.stringify(objs), 'antrea-mc-controller');
});

test('GIVEN members with custom Tiers WHEN rendered THEN the only patch deletes the Tiers from the bundle Kustomization', () => {
  const objs = flux(withDelivery(policiesModel()));
  for (const id of ['east', 'west'])
    assert.equal(ks(objs, `test-set-${id}`).patches, [
      {
        patch: '$patch: delete\napiVersion: crd.antrea.io/v1beta1\nkind: Tier\nmetadata:\n  name: any\n',
        target: { group: 'crd.antrea.io', version: 'v1beta1', kind: 'Tier' },
      },
    ]);
  assert.is(ks(objs, 'test-set-hub').patches, undefined, 'the leader holds no Tier');
});

test("GIVEN a leader and members WHEN rendered THEN every member depends on the leader's bundle being applied (readyExpr), and the leader on nothing", () => {
  const objs = flux(withDelivery(minimalModel()));
  assert.is(ks(objs, 'test-set-hub').dependsOn, undefined);
  assert.equal(ks(objs, 'test-set-east').dependsOn, [{ name: 'test-set-hub', readyExpr: LEADER_APPLIED }]);
  assert.equal(ks(objs, 'test-set-west').dependsOn, [{ name: 'test-set-hub', readyExpr: LEADER_APPLIED }]);
  // With Tiers, the bundle's Kustomization also waits for its Tiers' one, in Flux's default way
  // (Ready at the same revision): no readyExpr there.
  const tiers = flux(withDelivery(policiesModel()));
  assert.equal(ks(tiers, 'test-set-east').dependsOn, [
    { name: 'test-set-hub', readyExpr: LEADER_APPLIED },
    { name: 'test-set-east.tiers' },
  ]);
  assert.is(ks(tiers, 'test-set-east.tiers').dependsOn, undefined);
});

test("THEN the leader's readiness for its members is: Ready with its status current, or failed its health checks alone (whatever its observedGeneration)", () => {
  // CEL over `dep` (the leader's Kustomization); no CEL evaluator here, so the expression is pinned
  // (test/e2e runs it in Flux).
  assert.is(
    LEADER_APPLIED,
    "dep.status.conditions.exists(c, c.type == 'Ready' && ((c.status == 'True' && dep.metadata.generation == dep.status.observedGeneration) || c.reason == 'HealthCheckFailed'))",
  );
  // Not a revision check, not `self`: Flux gives the expression the two Kustomizations only.
  assert.not.match(LEADER_APPLIED, 'self');
  assert.not.match(LEADER_APPLIED, 'Revision');
  // Ready False counts only for HealthCheckFailed (Flux's reason when the objects were applied but
  // are not healthy), never for a failed build or apply.
  assert.not.match(LEADER_APPLIED, "'False'");
});

test('GIVEN a leader and members WHEN rendered THEN each Kustomization checks the health of the Antrea kinds its bundle holds, and only those', () => {
  const m = withDelivery(policiesModel());
  const objs = flux(m);
  const bundles = render(planOf(m));
  const kinds = (name: string) =>
    (ks(objs, name).healthCheckExprs ?? []).map((h) => `${h.apiVersion} ${h.kind}`);
  assert.equal(kinds('test-set-hub'), [
    'multicluster.crd.antrea.io/v1alpha2 ClusterSet',
    'multicluster.crd.antrea.io/v1alpha1 ResourceImport',
  ]);
  for (const id of ['east', 'west']) {
    assert.equal(kinds(`test-set-${id}`), [
      'multicluster.crd.antrea.io/v1alpha2 ClusterSet',
      'multicluster.x-k8s.io/v1alpha1 ServiceExport',
    ]);
    // The Tiers' Kustomization holds Tiers alone, which need no check of ours.
    assert.is(ks(objs, `test-set-${id}.tiers`).healthCheckExprs, undefined);
    assert.equal(ks(objs, `test-set-${id}`).healthCheckExprs, fluxHealthCheckExprs(bundles.get(id)!));
  }
  // A dual-role leader that exports a Service holds all three kinds.
  const dual = withDelivery(dualRoleModel());
  dual.services = [service('shop', 'cart', ['hub', 'east'])];
  assert.equal(
    (ks(flux(dual), 'test-set-hub').healthCheckExprs ?? []).map((h) => h.kind),
    ['ClusterSet', 'ResourceImport', 'ServiceExport'],
  );
  // A member exporting nothing has no ServiceExport, so no check for it.
  const quiet = withDelivery(minimalModel());
  quiet.services = [service('shop', 'cart', ['east'])];
  assert.equal(
    (ks(flux(quiet), 'test-set-west').healthCheckExprs ?? []).map((h) => h.kind),
    ['ClusterSet'],
  );
});
test('GIVEN a dual-role leader WHEN rendered THEN its single Kustomization depends on nothing', () => {
  const objs = flux(withDelivery(dualRoleModel()));
  assert.is(objs.filter((o) => o.kind === 'Kustomization').length, 4);
  assert.is(ks(objs, 'test-set-hub').dependsOn, undefined);
});

test('GIVEN prune off WHEN rendered THEN no Kustomization prunes', () => {
  for (const o of flux(withDelivery(minimalModel(), { flux: { prune: false } }))) {
    if (o.kind === 'Kustomization') assert.is((o.spec as KsSpec).prune, false);
  }
});

test('GIVEN Flux turned off WHEN rendered THEN no flux folder', () => {
  assert.equal(
    [...deliveryOf(withDelivery(minimalModel(), { flux: { enabled: false } })).keys()],
    ['argocd', 'argocd/apps', 'argocd/config'],
  );
});

test('GIVEN every Flux object WHEN validated against the Flux CRDs THEN none is refused', () => {
  for (const o of flux(withDelivery(minimalModel(), { flux: { gitSecretName: 'auth' } })))
    assert.equal(validateObject(o, o.metadata.name), [], o.metadata.name);
});

test('fails validation GIVEN a Kustomization without prune, or a GitRepository with an scp-like URL THEN the CRD validators refuse them', () => {
  const objs = flux(withDelivery(minimalModel()));
  const k = only(objs, 'Kustomization', 'test-set-east');
  const noPrune: Partial<KsSpec> = { ...(k.spec as KsSpec) };
  delete noPrune.prune;
  assert.equal(
    validateObject({ ...k, spec: noPrune }, 'k').map((d) => d.rule),
    ['output-schema'],
  );
  const repo = only(objs, 'GitRepository');
  const scp = { ...repo, spec: { ...(repo.spec as object), url: 'git@git.example.com:gitops.git' } };
  assert.equal(
    validateObject(scp, 'g').map((d) => `${d.rule} ${d.path}`),
    ['output-schema g#/spec/url'],
  );
});

test.run();
