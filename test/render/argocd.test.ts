import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { deliveryOf } from '../helpers/delivery';
import { ARGOCD_CM, ARGOCD_CONFIG_FOLDER, PATCH_FOLDERS } from '../../lib/render/delivery';
import { argocdHealthData } from '../../lib/render/health';
import type { K8sObject } from '../../lib/render';
import { validateDelivery, validateObject } from '../../lib/validate';
import { dualRoleModel, minimalModel, only, type ModelDraft } from '../helpers/models';
import { RECONCILER_FIELD_MANAGER } from '../../lib/names';

const REPO = 'https://git.example.com/platform/gitops.git';

/** GIVEN a model with delivery from the leader `hub`, plus `extra` delivery settings. */
function withDelivery(m: ModelDraft, extra: Partial<NonNullable<ModelDraft['delivery']>> = {}): ModelDraft {
  m.delivery = { repoURL: REPO, managementCluster: 'hub', ...extra };
  return m;
}

function folders(m: ModelDraft) {
  return deliveryOf(m);
}

function apps(m: ModelDraft): K8sObject[] {
  return folders(m).get('argocd/apps') ?? [];
}

type AppSpec = {
  project: string;
  source: { repoURL: string; targetRevision: string; path: string };
  destination: { server?: string; name?: string; namespace?: string };
  syncPolicy: {
    automated: { prune: boolean; selfHeal: boolean };
    syncOptions?: string[];
    retry?: { limit: number; backoff: { duration: string; factor: number; maxDuration: string } };
  };
  ignoreDifferences?: {
    group?: string;
    kind: string;
    name?: string;
    namespace?: string;
    jsonPointers?: string[];
    managedFieldsManagers?: string[];
  }[];
};
const spec = (o: K8sObject) => o.spec as AppSpec;
const wave = (o: K8sObject) => o.metadata.annotations?.['argocd.argoproj.io/sync-wave'];

test('GIVEN a model without delivery WHEN rendered THEN no Argo CD or Flux object and no argocd/ or flux/ file', () => {
  assert.equal(folders(minimalModel()).size, 0);
  const r = compile(minimalModel());
  assert.equal(r.diagnostics, []);
  assert.equal(
    [...r.files.keys()].filter((f) => !f.startsWith('clusters/') && f !== '.clusterset-index'),
    [],
  );
});

test('GIVEN delivery WHEN rendered THEN a root Application whose source is the folder of the per-cluster Applications', () => {
  const root = only(folders(withDelivery(minimalModel())).get('argocd') ?? [], 'Application');
  assert.equal(root.metadata, {
    name: 'test-set',
    namespace: 'argocd',
    labels: { 'app.kubernetes.io/managed-by': 'clusterset', 'app.kubernetes.io/part-of': 'test-set' },
  });
  assert.equal(spec(root).source, { repoURL: REPO, targetRevision: 'main', path: 'out/argocd/apps' });
  assert.equal(spec(root).destination, { server: 'https://kubernetes.default.svc', namespace: 'argocd' });
  assert.equal(spec(root).syncPolicy.automated, { prune: true, selfHeal: true });
  assert.is(root.metadata.annotations, undefined, 'no finalizer, no wave: applied once by hand');
});

test('GIVEN delivery WHEN rendered THEN one Application per cluster, each syncing <path>/clusters/<id> with server-side apply, and pruning in its waves, not last', () => {
  const objs = apps(withDelivery(minimalModel(), { path: './deploy/out/', branch: 'release' }));
  assert.equal(objs.map((o) => o.metadata.name).sort(), ['test-set-east', 'test-set-hub', 'test-set-west']);
  for (const id of ['hub', 'east', 'west']) {
    const s = spec(only(objs, 'Application', `test-set-${id}`));
    assert.equal(s.source, { repoURL: REPO, targetRevision: 'release', path: `deploy/out/clusters/${id}` });
    assert.is(s.project, 'test-set', 'the rendered AppProject, named the ClusterSet ID');
    assert.equal(s.syncPolicy.automated, { prune: true, selfHeal: true });
    // No PruneLast: it would prune only once everything else is Healthy (issue 39: a withdrawn
    // Service stayed exported while the member's restart Job could not run).
    assert.equal(s.syncPolicy.syncOptions, ['ServerSideApply=true']);
  }
});

test("GIVEN prune on WHEN rendered THEN every per-cluster Application, the leader's too, deletes what it applied when it is deleted (background cascade), and the root does not", () => {
  const m = withDelivery(minimalModel());
  for (const o of apps(m))
    assert.equal(
      (o.metadata as { finalizers?: string[] }).finalizers,
      ['resources-finalizer.argocd.argoproj.io/background'],
      o.metadata.name,
    );
  const root = only(folders(m).get('argocd') ?? [], 'Application');
  assert.is((root.metadata as { finalizers?: string[] }).finalizers, undefined);
});

test('GIVEN delivery WHEN rendered THEN every cluster Application retries a failed sync without end, backing off to every 3 minutes', () => {
  // Argo CD never re-attempts a failed automated sync of the same commit without a retry policy: a
  // ServiceExport whose Namespace the application team has not created yet would stay failed.
  for (const o of apps(withDelivery(minimalModel()))) {
    assert.equal(spec(o).syncPolicy.retry, {
      limit: -1,
      backoff: { duration: '5s', factor: 2, maxDuration: '3m' },
    });
  }
  const root = only(folders(withDelivery(minimalModel())).get('argocd') ?? [], 'Application');
  assert.is(spec(root).syncPolicy.retry, undefined, 'the root Application only holds Applications');
});

test('GIVEN the management cluster hub WHEN rendered THEN hub is in-cluster and the others by API server URL', () => {
  const objs = apps(withDelivery(minimalModel()));
  assert.equal(spec(only(objs, 'Application', 'test-set-hub')).destination, {
    server: 'https://kubernetes.default.svc',
  });
  assert.equal(spec(only(objs, 'Application', 'test-set-east')).destination, {
    server: 'https://east.example.com:6443',
  });
});

test('GIVEN destinationBy name and management cluster east WHEN rendered THEN east is in-cluster and hub and west are named by ID', () => {
  const m = withDelivery(minimalModel(), {
    managementCluster: 'east',
    argocd: { destinationBy: 'name', namespace: 'gitops', project: 'platform' },
  });
  m.admission = { deliveryUsers: ['system:serviceaccount:kube-system:argocd-manager'] };
  const objs = apps(m);
  assert.equal(spec(only(objs, 'Application', 'test-set-east')).destination, {
    server: 'https://kubernetes.default.svc',
  });
  assert.equal(spec(only(objs, 'Application', 'test-set-hub')).destination, { name: 'hub' });
  assert.equal(spec(only(objs, 'Application', 'test-set-west')).destination, { name: 'west' });
  for (const o of objs) {
    assert.is(o.metadata.namespace, 'gitops');
    assert.is(spec(o).project, 'platform');
  }
});

test('GIVEN prune and selfHeal turned off WHEN rendered THEN automated sync does neither and no Application carries the resources finalizer', () => {
  const objs = apps(withDelivery(minimalModel(), { argocd: { prune: false, selfHeal: false } }));
  for (const o of objs) {
    assert.equal(spec(o).syncPolicy.automated, { prune: false, selfHeal: false });
    assert.equal(spec(o).syncPolicy.syncOptions, ['ServerSideApply=true']);
    assert.is((o.metadata as { finalizers?: string[] }).finalizers, undefined, 'deleting it deletes nothing');
  }
});

test('GIVEN a leader and members WHEN rendered THEN the leader Application is in wave 0 and every member in wave 1', () => {
  const objs = apps(withDelivery(minimalModel()));
  assert.is(wave(only(objs, 'Application', 'test-set-hub')), '0');
  assert.is(wave(only(objs, 'Application', 'test-set-east')), '1');
  assert.is(wave(only(objs, 'Application', 'test-set-west')), '1');
});

test('GIVEN the leader WHEN rendered THEN it ignores ResourceImport status and reconciler fields, token Secret data, ClusterSet status, and nothing of a Lease (none is rendered)', () => {
  const ids = spec(only(apps(withDelivery(minimalModel())), 'Application', 'test-set-hub')).ignoreDifferences;
  assert.equal(ids, [
    { group: 'multicluster.crd.antrea.io', kind: 'ClusterSet', jsonPointers: ['/status'] },
    {
      group: 'multicluster.crd.antrea.io',
      kind: 'ResourceImport',
      jsonPointers: ['/status'],
      managedFieldsManagers: [RECONCILER_FIELD_MANAGER],
    },
    {
      kind: 'Secret',
      namespace: 'antrea-multicluster',
      name: 'member-east',
      jsonPointers: ['/data', '/metadata/annotations/kubernetes.io~1service-account.uid'],
    },
    {
      kind: 'Secret',
      namespace: 'antrea-multicluster',
      name: 'member-west',
      jsonPointers: ['/data', '/metadata/annotations/kubernetes.io~1service-account.uid'],
    },
  ]);
  assert.is(RECONCILER_FIELD_MANAGER, 'clusterset-reconciler');
});

test('GIVEN a member WHEN rendered THEN it ignores only ClusterSet and ServiceExport status, and the annotations the restart Job writes on them', () => {
  const ids = spec(
    only(apps(withDelivery(minimalModel())), 'Application', 'test-set-east'),
  ).ignoreDifferences;
  assert.equal(ids, [
    { group: 'multicluster.crd.antrea.io', kind: 'ClusterSet', jsonPointers: ['/status'] },
    {
      group: 'multicluster.x-k8s.io',
      kind: 'ServiceExport',
      jsonPointers: ['/status', '/metadata/annotations/clusterset~1exported-after'],
    },
    {
      group: 'multicluster.crd.antrea.io',
      kind: 'ClusterSet',
      namespace: 'kube-system',
      jsonPointers: [
        '/metadata/annotations/clusterset~1restart',
        '/metadata/annotations/clusterset~1restart-state',
      ],
    },
  ]);
});

test('GIVEN a dual-role leader WHEN rendered THEN one Application in wave 0 ignoring both leader and member fields, its own token included', () => {
  const objs = apps(withDelivery(dualRoleModel()));
  assert.is(objs.length, 3);
  const hub = only(objs, 'Application', 'test-set-hub');
  assert.is(wave(hub), '0');
  const kinds = (spec(hub).ignoreDifferences ?? []).map((d) => `${d.kind}/${d.name ?? ''}`);
  assert.equal(kinds, [
    'ClusterSet/',
    'ResourceImport/',
    'Secret/member-east',
    'Secret/member-hub',
    'Secret/member-west',
    'ServiceExport/',
    'ClusterSet/',
  ]);
});

test('GIVEN a member whose token Secret in the leader is named otherwise WHEN rendered THEN the leader ignores the data of that Secret, by its name', () => {
  const m = withDelivery(minimalModel());
  m.clusters[1]!.memberIdentity = { serviceAccount: 'east-token' };
  m.clusters[2]!.memberIdentity = { serviceAccount: 'member-west', tokenSecret: 'member-west-token' };
  const ids = spec(only(apps(m), 'Application', 'test-set-hub')).ignoreDifferences ?? [];
  assert.equal(
    ids.filter((d) => d.kind === 'Secret').map((d) => d.name),
    ['east-token', 'member-west-token'],
  );
});

test('GIVEN Argo CD turned off WHEN rendered THEN no argocd folder, Flux still there', () => {
  const f = folders(withDelivery(minimalModel(), { argocd: { enabled: false } }));
  assert.equal([...f.keys()], ['flux']);
});

test("GIVEN Argo CD WHEN rendered THEN argocd/config holds a partial argocd-cm in Argo CD's namespace with the health checks of Antrea's kinds, and no ownership labels (Argo CD's install owns that ConfigMap)", () => {
  const f = folders(withDelivery(minimalModel(), { argocd: { namespace: 'gitops' } }));
  assert.equal([...f.keys()], ['argocd', 'argocd/apps', 'argocd/config', 'flux']);
  const objs = f.get(ARGOCD_CONFIG_FOLDER) ?? [];
  assert.is(objs.length, 1);
  const cm = only(objs, 'ConfigMap', ARGOCD_CM);
  assert.equal(cm.metadata, { name: 'argocd-cm', namespace: 'gitops' });
  assert.equal(cm.data, argocdHealthData());
  assert.equal(Object.keys(cm.data as object), [
    'resource.customizations.health.multicluster.crd.antrea.io_ClusterSet',
    'resource.customizations.health.multicluster.crd.antrea.io_ResourceImport',
    'resource.customizations.health.multicluster.x-k8s.io_ServiceExport',
  ]);
  assert.equal(validateObject(cm, 'argocd-cm'), []);
  assert.ok(PATCH_FOLDERS.has(ARGOCD_CONFIG_FOLDER));
  // Flux alone: no Argo CD settings.
  assert.is(
    folders(withDelivery(minimalModel(), { argocd: { enabled: false } })).get('argocd/config'),
    undefined,
  );
});

test('GIVEN Argo CD WHEN compiled THEN argocd/config has no kustomization.yaml (no `kubectl apply -k` applies the partial ConfigMap whole) and is in the index', () => {
  const r = compile(withDelivery(minimalModel()));
  assert.equal(r.diagnostics, []);
  const config = [...r.files.keys()].filter((f) => f.startsWith('argocd/config/'));
  assert.equal(config, ['argocd/config/ConfigMap.argocd-cm.yaml']);
  assert.match(r.files.get('.clusterset-index') ?? '', /^argocd\/config\/ConfigMap\.argocd-cm\.yaml$/m);
  // The other delivery folders keep theirs, and none lists the ConfigMap.
  for (const folder of ['argocd', 'argocd/apps', 'flux']) {
    const k = r.files.get(`${folder}/kustomization.yaml`);
    assert.ok(k, folder);
    assert.not.match(k!, 'argocd-cm');
  }
});

test('GIVEN every rendered Application WHEN validated against the Argo CD CRD THEN none is refused', () => {
  for (const [folder, objs] of folders(withDelivery(dualRoleModel()))) {
    for (const o of objs)
      assert.equal(validateObject(o, `${folder}/${o.metadata.name}`), [], o.metadata.name);
  }
});

test('fails validation GIVEN an Application with an unknown field, a wrong type or no destination THEN the CRD validator refuses each', () => {
  const app = only(apps(withDelivery(minimalModel())), 'Application', 'test-set-east');
  const broken = (f: (s: Record<string, unknown>) => void): K8sObject => {
    const copy = JSON.parse(JSON.stringify(app)) as K8sObject;
    f(copy.spec as Record<string, unknown>);
    return copy;
  };
  const rules = (o: K8sObject) => validateObject(o, 'x').map((d) => `${d.rule} ${d.path}`);
  assert.equal(rules(broken((s) => void (s.syncPolicy = { automated: { prune: 'yes' } }))), [
    'output-schema x#/spec/syncPolicy/automated/prune',
  ]);
  assert.equal(rules(broken((s) => void (s.sourceRepo = REPO))), ['output-schema x#/spec']);
  assert.equal(rules(broken((s) => void delete s.destination)), ['output-schema x#/spec']);
  const withStatus = { ...app, status: { sync: { status: 'Synced' } } };
  assert.equal(rules(withStatus), ['output-schema x'], 'rendered objects never carry status');
});

test('fails validation GIVEN the folders compile() rendered WHEN one Application is broken THEN validateDelivery names its file', () => {
  const r = compile(withDelivery(minimalModel()));
  assert.equal(r.diagnostics, []);
  const delivery = new Map(r.delivery);
  assert.equal(validateDelivery(delivery), [], 'what compile() rendered is valid');
  const [first, ...rest] = delivery.get('argocd/apps') ?? [];
  const broken = { ...first!, spec: { ...(first!.spec as object), project: 7 } };
  delivery.set('argocd/apps', [broken, ...rest]);
  assert.equal(
    validateDelivery(delivery).map((d) => d.path),
    ['argocd/apps/Application.test-set-east#/spec/project'],
  );
});

test.run();
