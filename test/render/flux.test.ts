import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliveryOf } from '../helpers/delivery';
import type { K8sObject } from '../../lib/render';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, minimalModel, only, type ModelDraft } from '../helpers/models';

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
  dependsOn?: { name: string }[];
  patches?: { patch: string; target: Record<string, string> }[];
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

test("GIVEN members WHEN rendered THEN each member's Kustomization deletes exactly the partial Deployment of Antrea's member controller, in the member namespace, and a leader that is no member has no patch", () => {
  const m = withDelivery(minimalModel());
  m.memberNamespace = 'antrea-mc';
  const objs = flux(m);
  for (const id of ['east', 'west'])
    assert.equal(ks(objs, `test-set-${id}`).patches, [
      {
        patch:
          '$patch: delete\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: antrea-mc-controller\n  namespace: antrea-mc\n',
        target: {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          name: 'antrea-mc-controller',
          namespace: 'antrea-mc',
        },
      },
    ]);
  assert.is(ks(objs, 'test-set-hub').patches, undefined);
  // A dual-role leader is a member: its Kustomization has the patch, which spares its reconciler.
  const dual = ks(flux(withDelivery(dualRoleModel())), 'test-set-hub').patches ?? [];
  assert.equal(
    dual.map((p) => p.target.name),
    ['antrea-mc-controller'],
  );
});

test('GIVEN a leader and members WHEN rendered THEN every member depends on the leader and the leader on nothing', () => {
  const objs = flux(withDelivery(minimalModel()));
  assert.is(ks(objs, 'test-set-hub').dependsOn, undefined);
  assert.equal(ks(objs, 'test-set-east').dependsOn, [{ name: 'test-set-hub' }]);
  assert.equal(ks(objs, 'test-set-west').dependsOn, [{ name: 'test-set-hub' }]);
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
    ['argocd', 'argocd/apps'],
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
