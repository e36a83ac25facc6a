import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import {
  DEFAULT_RECONCILER_IMAGE,
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  RECONCILER_NAME,
} from '../../lib/names';
import { render, type K8sObject } from '../../lib/render';
import {
  CONFIG_CHECKSUM_ANNOTATION,
  reconcilerConfig,
  reconcilerNodeOptions,
  renderReconciler,
} from '../../lib/render/reconciler';
import {
  DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS,
  parseReconcilerConfigText,
  type ReconcilerConfig,
} from '../../lib/reconciler-config';
import { validateObject } from '../../lib/validate';
import pkg from '../../package.json';
import {
  dualRoleModel,
  minimalModel,
  only,
  planOf,
  renderInto,
  service,
  twoNetworkModel,
  type ModelDraft,
} from '../helpers/models';

function renderAll(m: ModelDraft = minimalModel()): K8sObject[] {
  const p = planOf(m);
  return renderInto((s) => renderReconciler(s, p));
}

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

interface Container {
  name: string;
  image: string;
  args: string[];
  env: unknown[];
  ports: unknown[];
  livenessProbe: unknown;
  readinessProbe: unknown;
  resources: unknown;
  securityContext: unknown;
  volumeMounts: unknown[];
}

interface PodSpec {
  serviceAccountName: string;
  imagePullSecrets?: { name: string }[];
  automountServiceAccountToken: boolean;
  securityContext: unknown;
  containers: Container[];
  volumes: unknown[];
}

interface DeploymentSpec {
  replicas: number;
  selector: unknown;
  template: {
    metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    spec: PodSpec;
  };
}

const deployment = (objs: K8sObject[]) => only(objs, 'Deployment').spec as DeploymentSpec;
const configText = (objs: K8sObject[]) =>
  (only(objs, 'ConfigMap').data as Record<string, string>)[RECONCILER_CONFIG_KEY]!;

test('GIVEN the leader WHEN the reconciler is rendered THEN ServiceAccount, Role, RoleBinding, config, Deployment and its disruption budget in the leader namespace, and no Lease (the reconciler creates it)', () => {
  const objs = renderAll();
  assert.equal(objs.map((o) => `${o.apiVersion} ${o.kind}/${o.metadata.name}`).sort(), [
    'apps/v1 Deployment/clusterset-reconciler',
    'policy/v1 PodDisruptionBudget/clusterset-reconciler',
    'rbac.authorization.k8s.io/v1 Role/clusterset-reconciler',
    'rbac.authorization.k8s.io/v1 RoleBinding/clusterset-reconciler',
    'v1 ConfigMap/clusterset-reconciler-config',
    'v1 ServiceAccount/clusterset-reconciler',
  ]);
  for (const o of objs) assert.is(o.metadata.namespace, 'antrea-multicluster');
  const rb = only(objs, 'RoleBinding');
  assert.equal(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECONCILER_NAME });
  assert.equal(rb.subjects, [
    { kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: 'antrea-multicluster' },
  ]);
  assert.is(only(objs, 'ConfigMap').metadata.name, RECONCILER_CONFIG_NAME);
  for (const o of objs) assert.equal(validateObject(o, o.metadata.name), []);
});

test('THEN the Role grants exactly the verbs the reconciler uses, and nothing more', () => {
  const mc = 'multicluster.crd.antrea.io';
  assert.equal(only(renderAll(), 'Role').rules as Rule[], [
    { apiGroups: [mc], resources: ['resourceexports'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
    { apiGroups: [mc], resources: ['resourceexports/status'], verbs: ['patch'] },
    {
      apiGroups: [mc],
      resources: ['memberclusterannounces'],
      verbs: ['get', 'list', 'watch', 'patch', 'delete'],
    },
    {
      apiGroups: [mc],
      resources: ['resourceimports'],
      verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    },
    // The compiled ServiceImport imports' status (lib/reconciler/desired/service.ts importStatusAction).
    { apiGroups: [mc], resources: ['resourceimports/status'], verbs: ['patch'] },
    { apiGroups: [mc], resources: ['clustersets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [mc], resources: ['clustersets/status'], verbs: ['patch'] },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      resourceNames: [RECONCILER_NAME],
      verbs: ['get', 'update'],
    },
    // It creates its Lease: RBAC cannot name the object of a create (admission holds the name).
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  ]);
});

test('THEN the Role has no ConfigMaps, Events, Secrets, finalizers subresources, wildcards, or update but on its Lease', () => {
  const rules = only(renderAll(), 'Role').rules as Rule[];
  const resources = rules.flatMap((r) => r.resources);
  for (const r of ['configmaps', 'events', 'secrets']) assert.not.ok(resources.includes(r), r);
  assert.not.ok(
    resources.some((r) => r.endsWith('/finalizers')),
    'no */finalizers',
  );
  assert.not.ok(
    rules.some((r) => r.verbs.includes('*') || r.resources.includes('*')),
    'no wildcards',
  );
  assert.equal(
    rules.filter((r) => r.verbs.includes('update')).flatMap((r) => r.resources),
    ['leases'],
  );
  assert.not.ok(
    rules.some(
      (r) =>
        (r.resources.includes('resourceexports') || r.resources.includes('memberclusterannounces')) &&
        r.verbs.includes('create'),
    ),
    'the reconciler never creates exports or announces',
  );
});

test('THEN the only create on Leases is unnamed (RBAC cannot name it), get and update stay on its own Lease, and no other verb touches Leases', () => {
  const leases = (only(renderAll(), 'Role').rules as Rule[]).filter((r) => r.resources.includes('leases'));
  assert.equal(
    leases.filter((r) => r.resourceNames === undefined).flatMap((r) => r.verbs),
    ['create'],
    'what is not restricted by name is create alone',
  );
  assert.equal(
    leases.filter((r) => r.resourceNames !== undefined).map((r) => [r.resourceNames, r.verbs]),
    [[[RECONCILER_NAME], ['get', 'update']]],
  );
  for (const verb of ['delete', 'patch', 'list', 'watch', 'deletecollection'])
    assert.not.ok(
      leases.some((r) => r.verbs.includes(verb)),
      verb,
    );
});

test('THEN no Lease is rendered: Argo CD 3 never applies one, the reconciler creates its own', () => {
  for (const m of [minimalModel(), dualRoleModel()])
    for (const bundle of render(planOf(m)).values())
      assert.not.ok(
        bundle.some((o) => o.kind === 'Lease'),
        'no bundle holds a Lease',
      );
});

test('THEN the Deployment runs the reconciler with the mounted config, its Pod name, health probes and metrics port', () => {
  const d = deployment(renderAll());
  assert.is(d.replicas, 2);
  assert.equal(d.selector, { matchLabels: { 'app.kubernetes.io/name': RECONCILER_NAME } });
  assert.equal(d.template.metadata.labels, { 'app.kubernetes.io/name': RECONCILER_NAME });
  const pod = d.template.spec;
  assert.is(pod.serviceAccountName, RECONCILER_NAME);
  assert.is(pod.automountServiceAccountToken, true);
  assert.is(pod.containers.length, 1);
  const c = pod.containers[0]!;
  assert.is(c.name, 'reconciler');
  assert.is(c.image, DEFAULT_RECONCILER_IMAGE);
  assert.equal(c.args, [
    'reconcile',
    '--namespace',
    'antrea-multicluster',
    '--config',
    '/etc/clusterset/config.json',
    '--listen',
    '0.0.0.0:8080',
  ]);
  assert.equal(c.env, [
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: 'NODE_OPTIONS', value: '--max-semi-space-size=2 --max-old-space-size=192' },
  ]);
  assert.equal(c.ports, [{ name: 'http-metrics', containerPort: 8080, protocol: 'TCP' }]);
  assert.equal(c.livenessProbe, {
    httpGet: { path: '/healthz', port: 8080 },
    periodSeconds: 10,
    failureThreshold: 3,
  });
  assert.equal(c.readinessProbe, { httpGet: { path: '/readyz', port: 8080 }, periodSeconds: 5 });
  assert.equal(c.resources, { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } });
  assert.equal(c.volumeMounts, [
    { name: 'config', mountPath: '/etc/clusterset', readOnly: true },
    { name: 'tmp', mountPath: '/tmp' },
  ]);
  assert.equal(pod.volumes, [
    { name: 'config', configMap: { name: RECONCILER_CONFIG_NAME } },
    { name: 'tmp', emptyDir: {} },
  ]);
});

test('THEN the Pods run as non-root 65532 with RuntimeDefault seccomp, no privilege escalation, a read-only root and no capabilities', () => {
  const pod = deployment(renderAll()).template.spec;
  assert.equal(pod.securityContext, {
    runAsNonRoot: true,
    runAsUser: 65532,
    runAsGroup: 65532,
    seccompProfile: { type: 'RuntimeDefault' },
  });
  assert.equal(pod.containers[0]!.securityContext, {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    privileged: false,
    capabilities: { drop: ['ALL'] },
  });
});

const SPREAD = {
  podAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      {
        weight: 100,
        podAffinityTerm: {
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': RECONCILER_NAME } },
          topologyKey: 'kubernetes.io/hostname',
        },
      },
    ],
  },
};

test('GIVEN two replicas (the default) THEN a PodDisruptionBudget lets one go at a time, never blocks a drain on an unready one, and the Pods prefer distinct nodes', () => {
  const objs = renderAll();
  const pdb = only(objs, 'PodDisruptionBudget');
  assert.equal(pdb.spec, {
    maxUnavailable: 1,
    selector: { matchLabels: { 'app.kubernetes.io/name': RECONCILER_NAME } },
    unhealthyPodEvictionPolicy: 'AlwaysAllow',
  });
  assert.equal(pdb.metadata.labels, { 'app.kubernetes.io/name': RECONCILER_NAME });
  const pod = deployment(objs).template.spec as PodSpec & { affinity?: unknown };
  assert.equal(pod.affinity, SPREAD, 'preferred, not required: two replicas still run on a one-node leader');
  const three = minimalModel();
  three.reconciler = { replicas: 3 };
  const objs3 = renderAll(three);
  assert.equal(only(objs3, 'PodDisruptionBudget').spec, pdb.spec);
  assert.equal((deployment(objs3).template.spec as PodSpec & { affinity?: unknown }).affinity, SPREAD);
});

test('GIVEN one replica THEN no disruption budget (it would allow all or block every drain) and no anti-affinity', () => {
  const m = minimalModel();
  m.reconciler = { replicas: 1 };
  const objs = renderAll(m);
  assert.not.ok(objs.some((o) => o.kind === 'PodDisruptionBudget'));
  assert.not.ok('affinity' in deployment(objs).template.spec);
});

test("GIVEN a memory limit THEN V8's old generation is the limit less 64 MiB, at least half of it, in any unit; without one V8 sizes it", () => {
  const old = (q: string | undefined) => /--max-old-space-size=(\d+)/.exec(reconcilerNodeOptions(q))?.[1];
  assert.is(old('256Mi'), '192');
  assert.is(old('1Gi'), '960');
  assert.is(old('128Mi'), '64');
  assert.is(old('96Mi'), '48', 'half of a small limit');
  assert.is(old('500M'), String(Math.floor(500e6 / 2 ** 20) - 64), 'decimal units');
  assert.is(old(String(300 * 2 ** 20)), '236', 'bytes');
  assert.is(reconcilerNodeOptions(undefined), '--max-semi-space-size=2');
});

test('THEN the default image is ghcr.io/clusterset/clusterset at the package version', () => {
  assert.is(DEFAULT_RECONCILER_IMAGE, `ghcr.io/clusterset/clusterset:${pkg.version}`);
});

test('GIVEN reconciler settings in the model THEN image, replicas and resources follow them, unset values keep their defaults', () => {
  const m = minimalModel();
  m.reconciler = {
    image: 'registry.example.com/platform/clusterset:1.2.3',
    replicas: 3,
    resources: { requests: { memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
  };
  const d = deployment(renderAll(m));
  assert.is(d.replicas, 3);
  const c = d.template.spec.containers[0]!;
  assert.is(c.image, 'registry.example.com/platform/clusterset:1.2.3');
  assert.equal(c.resources, {
    requests: { cpu: '100m', memory: '128Mi' },
    limits: { cpu: '1', memory: '512Mi' },
  });
  assert.equal(
    c.env[1],
    { name: 'NODE_OPTIONS', value: '--max-semi-space-size=2 --max-old-space-size=448' },
    "V8's heap follows the memory limit",
  );
});

test('GIVEN reconciler.imagePullSecrets WHEN rendered THEN the Pods pull the image with those Secrets, sorted', () => {
  const m = minimalModel();
  m.reconciler = {
    image: 'registry.example.com/platform/clusterset:1.2.3',
    imagePullSecrets: ['zeta', 'alpha'],
  };
  const objs = renderAll(m);
  assert.equal(deployment(objs).template.spec.imagePullSecrets, [{ name: 'alpha' }, { name: 'zeta' }]);
});

test('GIVEN no imagePullSecrets (the default) WHEN rendered THEN the Pod spec has no imagePullSecrets key at all, so the Deployment renders as before', () => {
  const spec = deployment(renderAll()).template.spec;
  assert.not.ok('imagePullSecrets' in spec);
  const empty = minimalModel();
  empty.reconciler = { imagePullSecrets: [] };
  assert.equal(renderAll(empty), renderAll(), 'an empty list renders what no list renders');
});

test('THEN the Pod template carries the SHA-256 of config.json, so a config change rolls the Pods', () => {
  const objs = renderAll();
  const sum = deployment(objs).template.metadata.annotations[CONFIG_CHECKSUM_ANNOTATION];
  assert.is(sum, createHash('sha256').update(configText(objs), 'utf8').digest('hex'));
  assert.match(sum!, /^[0-9a-f]{64}$/);
});

test('GIVEN a model change WHEN it changes the config THEN the checksum changes, and WHEN it does not THEN the checksum stays', () => {
  const sum = (m: ModelDraft) =>
    deployment(renderAll(m)).template.metadata.annotations[CONFIG_CHECKSUM_ANNOTATION];
  const base = sum(minimalModel());
  assert.is(sum(minimalModel()), base, 'the same model, the same checksum');

  const port = minimalModel();
  port.services![0]!.ports[0]!.port = 9090;
  assert.is.not(sum(port), base, 'a port');
  const retire = minimalModel();
  retire.reconciler = { retireMembersAfter: '1h' };
  assert.is.not(sum(retire), base, 'the retirement age');

  const deploymentOnly = minimalModel();
  deploymentOnly.reconciler = { image: 'registry.example.com/clusterset:2.0.0', replicas: 1 };
  assert.is(sum(deploymentOnly), base, 'image and replicas are not in the config');
  const reordered = minimalModel();
  reordered.clusters.reverse();
  reordered.members.reverse();
  assert.is(sum(reordered), base, 'the order the model lists things in');
});

test('THEN the config lists members and Services in canonical order with declared ports, and parses as a ReconcilerConfig', () => {
  const m = twoNetworkModel();
  m.services = [
    service('shop', 'cart', ['west', 'east'], [{ name: 'http', port: 8080 }]),
    service('prod', 'api', ['east'], [{ port: 80, protocol: 'UDP' }]),
  ];
  const text = configText(renderAll(m));
  assert.ok(text.endsWith('\n'));
  const config = JSON.parse(text) as unknown;
  assert.equal(config, reconcilerConfig(planOf(m)));
  const expected: ReconcilerConfig = {
    clusterSetId: 'test-set',
    leaderNamespace: 'antrea-multicluster',
    leader: 'hub',
    members: [
      { id: 'east', network: 'dc1', endpointIPType: 'ClusterIP' },
      { id: 'west', network: 'dc2', endpointIPType: 'ClusterIP' },
    ],
    services: [
      {
        namespace: 'prod',
        name: 'api',
        ports: [{ name: '', port: 80, protocol: 'UDP' }],
        exportedFrom: ['east'],
      },
      {
        namespace: 'shop',
        name: 'cart',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        exportedFrom: ['east', 'west'],
      },
    ],
    retireMembersAfterSeconds: DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS,
  };
  assert.equal(config, expected);
  assert.equal(Object.keys(config as object), Object.keys(expected), 'canonical key order');
  assert.equal(parseReconcilerConfigText(text, RECONCILER_CONFIG_NAME), expected);
});

test('GIVEN retireMembersAfter WHEN rendered THEN the config holds it in seconds', () => {
  for (const [after, seconds] of [
    ['24h', 86400],
    ['90m', 5400],
    ['1h30m', 5400],
    ['30s', 30],
    ['1.5h', 5400],
  ] as const) {
    const m = minimalModel();
    m.reconciler = { retireMembersAfter: after };
    assert.is(reconcilerConfig(planOf(m)).retireMembersAfterSeconds, seconds, after);
  }
});

test.run();
