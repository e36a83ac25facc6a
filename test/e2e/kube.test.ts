// End-to-end: real kube-apiserver + kube-controller-manager + etcd (test/kube), no mocks.
//
// Clusters are started inside the first test, not in a before() hook: uvu 0.5.6 swallows errors
// thrown by before() hooks (its runner returns from a finally block) and would exit 0. Every other
// test awaits the same promise, so a failed start fails every test loudly.

import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  AdmissionregistrationV1Api,
  ApiException,
  AuthenticationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll, tokenKubeConfig } from '../kube/cluster';
import { eventually } from '../kube/wait';
import {
  FIELD_MANAGER,
  applyBundle,
  loadBundle,
  notStoredAsApplied,
  readBack,
  syncOrder,
} from '../parties/argocd-apply';

const FIXTURE = path.join(__dirname, 'fixtures', 'bundle-basic');

let started: Promise<Map<string, Cluster>> | undefined;
function clusters(): Promise<Map<string, Cluster>> {
  started ??= startClusters(['alpha', 'beta']);
  return started;
}
async function cluster(name: string): Promise<Cluster> {
  const c = (await clusters()).get(name);
  if (!c) throw new Error(`no cluster ${name}`);
  return c;
}

async function httpCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    if (e instanceof ApiException) return e.code;
    throw e;
  }
}

/** Status.message of a refused request (the client gives the response body as a JSON string). */
function statusMessage(e: ApiException<unknown>): string {
  const body = typeof e.body === 'string' ? (JSON.parse(e.body) as unknown) : e.body;
  return String((body as { message?: string }).message);
}

async function apiError(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiException) return e as ApiException<string>;
    throw e;
  }
  throw new Error('expected the request to be refused, but it succeeded');
}

// ---------------------------------------------------------------------------------------------------

const ControlPlane = suite('control plane');

ControlPlane(
  'GIVEN two cluster names WHEN started THEN each serves /readyz on its own port with its own CA',
  async () => {
    const all = await clusters();
    assert.equal([...all.keys()], ['alpha', 'beta']);
    const [a, b] = [...all.values()];
    assert.is.not(a.server, b.server);
    assert.is.not(a.caPem, b.caPem);
    for (const c of [a, b]) {
      assert.match(c.server, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ready = await request(c.admin, 'GET', '/readyz');
      assert.is(ready.status, 200);
      assert.is(ready.body, 'ok');
      const version = await request(c.admin, 'GET', '/version');
      assert.is((version.json as { gitVersion: string }).gitVersion, c.version);
      const sa = await c.kc
        .makeApiClient(CoreV1Api)
        .readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
      assert.is(sa.metadata?.name, 'default');
    }
    // A client holding alpha's admin certificate is not trusted by beta (separate CAs).
    const cross = await request(
      { ...b.admin, cert: a.admin.cert, key: a.admin.key },
      'GET',
      '/api/v1/namespaces',
    );
    assert.is(cross.status, 401);
  },
);

ControlPlane(
  'GIVEN an object created in alpha WHEN beta is read THEN it is not there (separate etcd)',
  async () => {
    const a = await cluster('alpha');
    const b = await cluster('beta');
    await a.kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'only-in-alpha' } } });
    assert.is(await httpCode(b.kc.makeApiClient(CoreV1Api).readNamespace({ name: 'only-in-alpha' })), 404);
    assert.is(await httpCode(a.kc.makeApiClient(CoreV1Api).readNamespace({ name: 'only-in-alpha' })), 200);
  },
);

ControlPlane(
  'GIVEN a ServiceAccount and an empty service-account-token Secret WHEN the controller manager runs THEN it fills token and ca.crt, and the token authenticates as the ServiceAccount',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'tokens' } } });
    await core.createNamespacedServiceAccount({
      namespace: 'tokens',
      body: {
        metadata: { name: 'member-east', annotations: { 'multicluster.antrea.io/cluster-id': 'east' } },
      },
    });
    await core.createNamespacedSecret({
      namespace: 'tokens',
      body: {
        metadata: {
          name: 'member-east-token',
          annotations: { 'kubernetes.io/service-account.name': 'member-east' },
        },
        type: 'kubernetes.io/service-account-token',
      },
    });
    const secret = await eventually('token Secret filled', async () => {
      const s = await core.readNamespacedSecret({ name: 'member-east-token', namespace: 'tokens' });
      return s.data?.token && s.data['ca.crt'] ? s : undefined;
    });
    const caCrt = Buffer.from(secret.data!['ca.crt'], 'base64').toString('utf8');
    assert.is(caCrt.trim(), c.caPem.trim(), 'ca.crt is the cluster CA (--root-ca-file)');
    assert.is(Buffer.from(secret.data!.namespace, 'base64').toString(), 'tokens');
    const token = Buffer.from(secret.data!.token, 'base64').toString('utf8');
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');

    const review = await tokenKubeConfig(c, token)
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
    assert.is(review.status?.userInfo?.username, 'system:serviceaccount:tokens:member-east');
    assert.ok(review.status?.userInfo?.groups?.includes('system:serviceaccounts:tokens'));
  },
);

ControlPlane(
  'GIVEN the real ServiceAccount token WHEN it asks for what RBAC does not grant THEN the server answers 403, and once a RoleBinding grants it THEN the same request succeeds',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    const s = await core.readNamespacedSecret({ name: 'member-east-token', namespace: 'tokens' });
    const token = Buffer.from(s.data!.token, 'base64').toString('utf8');
    const asSA = tokenKubeConfig(c, token).makeApiClient(CoreV1Api);

    const denied = await apiError(asSA.listNamespacedSecret({ namespace: 'tokens' }));
    assert.is(denied.code, 403);
    assert.match(
      statusMessage(denied),
      /system:serviceaccount:tokens:member-east.*cannot list resource "secrets"/,
    );
    assert.is(await httpCode(asSA.listNamespacedConfigMap({ namespace: 'tokens' })), 403);
    assert.is(await httpCode(asSA.listNamespace()), 403);

    const rbac = c.kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: 'tokens',
      body: {
        metadata: { name: 'read-configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: 'tokens',
      body: {
        metadata: { name: 'member-east-read-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
        subjects: [{ kind: 'ServiceAccount', name: 'member-east', namespace: 'tokens' }],
      },
    });
    await eventually('RoleBinding effective', async () =>
      (await httpCode(asSA.listNamespacedConfigMap({ namespace: 'tokens' }))) === 200 ? true : undefined,
    );
    // Still nothing else: not Secrets, not another namespace.
    assert.is(await httpCode(asSA.listNamespacedSecret({ namespace: 'tokens' })), 403);
    assert.is(await httpCode(asSA.listNamespacedConfigMap({ namespace: 'default' })), 403);
  },
);

ControlPlane(
  'GIVEN a selector-less Service with a hand-written Endpoints WHEN the mirroring controller runs THEN a mirrored EndpointSlice carries the address',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'mirror' } } });
    await core.createNamespacedService({
      namespace: 'mirror',
      body: { metadata: { name: 'remote' }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
    });
    await core.createNamespacedEndpoints({
      namespace: 'mirror',
      body: {
        metadata: { name: 'remote' },
        subsets: [
          { addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
        ],
      },
    });
    const disc = c.kc.makeApiClient(DiscoveryV1Api);
    const slice = await eventually('mirrored EndpointSlice', async () => {
      const list = await disc.listNamespacedEndpointSlice({
        namespace: 'mirror',
        labelSelector: 'kubernetes.io/service-name=remote',
      });
      return list.items.find((s) => s.endpoints.length > 0);
    });
    assert.is(
      slice.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'],
      'endpointslicemirroring-controller.k8s.io',
    );
    assert.is(slice.addressType, 'IPv4');
    assert.equal(slice.endpoints[0].addresses, ['192.0.2.10']);
    assert.is(slice.ports?.[0].port, 8080);
  },
);

ControlPlane(
  'GIVEN a ValidatingAdmissionPolicy and its binding WHEN a request violates it THEN the server denies it with the policy message, and a compliant request passes',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    const adm = c.kc.makeApiClient(AdmissionregistrationV1Api);
    await core.createNamespace({ body: { metadata: { name: 'guarded', labels: { guarded: 'true' } } } });
    await adm.createValidatingAdmissionPolicy({
      body: {
        metadata: { name: 'configmaps-need-owner' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['CREATE', 'UPDATE'],
                resources: ['configmaps'],
              },
            ],
          },
          validations: [
            {
              expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
              message: 'configmaps in guarded namespaces need an owner label',
              reason: 'Forbidden',
            },
          ],
        },
      },
    });
    await adm.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: 'configmaps-need-owner' },
        spec: {
          policyName: 'configmaps-need-owner',
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { guarded: 'true' } } },
        },
      },
    });
    // The policy takes effect once the API server's admission informers have seen it.
    let n = 0;
    const denied = await eventually('policy enforced', async () => {
      const name = `no-owner-${n++}`;
      try {
        await core.createNamespacedConfigMap({ namespace: 'guarded', body: { metadata: { name } } });
        return undefined;
      } catch (e) {
        if (e instanceof ApiException) return e as ApiException<string>;
        throw e;
      }
    });
    assert.is(denied.code, 403);
    assert.match(statusMessage(denied), /ValidatingAdmissionPolicy 'configmaps-need-owner'.* denied request/);
    assert.match(statusMessage(denied), /configmaps in guarded namespaces need an owner label/);
    await core.createNamespacedConfigMap({
      namespace: 'guarded',
      body: { metadata: { name: 'with-owner', labels: { owner: 'team-a' } } },
    });
    // Outside the bound namespaces the policy does not apply.
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'no-owner-elsewhere' } },
    });
  },
);

ControlPlane(
  'GIVEN an owner and a dependent WHEN the owner is deleted THEN the garbage collector deletes the dependent',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'gc-owner' } },
    });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name: 'gc-dependent',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-owner', uid: owner.metadata!.uid! },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({
      name: 'gc-owner',
      namespace: 'default',
      propagationPolicy: 'Background',
    });
    await eventually('dependent collected', async () =>
      (await httpCode(core.readNamespacedConfigMap({ name: 'gc-dependent', namespace: 'default' }))) === 404
        ? true
        : undefined,
    );
  },
);

ControlPlane(
  'GIVEN a namespace holding objects WHEN it is deleted THEN the namespace controller empties it and deletion completes',
  async () => {
    const c = await cluster('alpha');
    const core = c.kc.makeApiClient(CoreV1Api);
    const before = await core.readNamespace({ name: 'tokens' });
    assert.ok(before.spec?.finalizers?.includes('kubernetes'));
    await core.deleteNamespace({ name: 'tokens' });
    await eventually(
      'namespace tokens gone',
      async () => ((await httpCode(core.readNamespace({ name: 'tokens' }))) === 404 ? true : undefined),
      90_000,
    );
  },
);

ControlPlane.run();

// ---------------------------------------------------------------------------------------------------

const Apply = suite('applyBundle');

Apply(
  'GIVEN the fixture bundle WHEN ordered like Argo CD THEN waves come first, then CRDs, Namespaces, Argo kinds, other kinds',
  () => {
    const order = syncOrder(loadBundle(FIXTURE)).map((b) => `${b.wave} ${b.obj.kind}/${b.obj.metadata.name}`);
    assert.equal(order, [
      '0 CustomResourceDefinition/clustersets.multicluster.crd.antrea.io',
      '0 Namespace/antrea-multicluster',
      '0 ServiceAccount/member-east',
      '0 ConfigMap/settings',
      '0 ClusterSet/broken',
      '1 ClusterSet/test-clusterset',
    ]);
  },
);

Apply(
  'GIVEN a bundle with a CRD, a namespace, instances and one invalid object WHEN applied THEN only the invalid object is rejected, with the server message, and the rest is stored as applied',
  async () => {
    const c = await cluster('beta');
    const result = await applyBundle(c, FIXTURE);

    assert.is(result.rejected.length, 1, JSON.stringify(result.rejected, null, 2));
    const [r] = result.rejected;
    assert.is(r.kind, 'ClusterSet');
    assert.is(r.name, 'broken');
    assert.is(r.namespace, 'antrea-multicluster');
    assert.is(r.file, path.join('antrea-multicluster', 'ClusterSet.broken.yaml'));
    assert.is(r.status, 422);
    assert.is(r.reason, 'Invalid');
    assert.match(r.message, /ClusterSet\.multicluster\.crd\.antrea\.io "broken" is invalid/);
    assert.match(r.message, /spec\.clusterID: Required value/);
    assert.match(r.message, /spec\.leaders: Too many: 2: must have at most 1 item/);

    assert.is(result.applied.length, 5);
    assert.not.ok(
      result.order.some((b) => b.file === 'kustomization.yaml'),
      'kustomization.yaml is not applied',
    );
    for (const a of result.applied) {
      const stored = await readBack(c, a.obj);
      assert.ok(stored, `${a.file} stored`);
      assert.equal(notStoredAsApplied(a.obj, stored), [], `${a.file} stored as applied`);
      const managers = (stored!.metadata.managedFields as { manager: string; operation: string }[]).map(
        (m) => `${m.manager}/${m.operation}`,
      );
      assert.ok(managers.includes(`${FIELD_MANAGER}/Apply`), `${a.file}: managed by ${managers.join(',')}`);
    }
    const cs = await readBack(c, result.applied.find((a) => a.obj.kind === 'ClusterSet')!.obj);
    assert.equal((cs!.spec as { leaders: unknown }).leaders, [{ clusterID: 'leader' }]);
    assert.is(
      await readBack(c, {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
        kind: 'ClusterSet',
        metadata: { name: 'broken', namespace: 'antrea-multicluster' },
      }),
      undefined,
    );
  },
);

Apply(
  'GIVEN an applied bundle WHEN applied again THEN nothing changes (server-side apply is idempotent)',
  async () => {
    const c = await cluster('beta');
    const objs = loadBundle(FIXTURE).filter((b) => b.obj.metadata.name !== 'broken');
    const before = new Map<string, string | undefined>();
    for (const b of objs)
      before.set(b.file, (await readBack(c, b.obj))?.metadata.resourceVersion as string | undefined);
    const again = await applyBundle(c, FIXTURE);
    assert.equal(
      again.rejected.map((r) => r.name),
      ['broken'],
    );
    for (const b of objs) {
      assert.is(
        (await readBack(c, b.obj))?.metadata.resourceVersion,
        before.get(b.file),
        `${b.file} unchanged`,
      );
    }
  },
);

Apply.after(async () => {
  await stopAll();
});

Apply.run();
