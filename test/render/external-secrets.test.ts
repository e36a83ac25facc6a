import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render } from '../../lib/render';
import {
  renderMemberExternalSecret,
  renderTokenReaderAccess,
  WAVE_TOKEN,
} from '../../lib/render/external-secrets';
import { validateObject } from '../../lib/validate';
import { dumpYaml } from '../../lib/yaml';
import {
  dualRoleModel,
  memberOf,
  minimalModel,
  only,
  planOf,
  renderInto,
  type ModelDraft,
} from '../helpers/models';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBleaderca\n-----END CERTIFICATE-----\n';
const USER = 'oidc:{cluster}:system:serviceaccount:kube-system:antrea-mc-token-reader';

/** GIVEN `minimalModel` (or another) with External Secrets: ServiceAccount auth and a CA PEM. */
function esoModel(m: ModelDraft = minimalModel()): ModelDraft {
  m.secrets = {
    externalSecrets: {
      leaderCA: { pem: CA_PEM },
      auth: { serviceAccount: { name: 'antrea-mc-token-reader', audiences: ['hub'] } },
      leaderUsername: USER,
    },
  };
  return m;
}

function member(m: ModelDraft, id = 'east') {
  const p = planOf(m);
  return renderInto((s) => renderMemberExternalSecret(s, p, memberOf(p, id)));
}

test('GIVEN External Secrets WHEN a member renders THEN an ExternalSecret writes the ClusterSet token Secret with exactly ca.crt and token from member-<id>', () => {
  const es = only(member(esoModel()), 'ExternalSecret');
  assert.equal(es, {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: {
      name: 'antrea-mc-leader-token',
      namespace: 'kube-system',
      annotations: { 'argocd.argoproj.io/sync-wave': WAVE_TOKEN },
    },
    spec: {
      refreshInterval: '1h',
      secretStoreRef: { kind: 'SecretStore', name: 'antrea-mc-leader' },
      target: { name: 'antrea-mc-leader-token', creationPolicy: 'Owner', deletionPolicy: 'Retain' },
      data: [
        { secretKey: 'ca.crt', remoteRef: { key: 'member-east', property: 'ca.crt' } },
        { secretKey: 'token', remoteRef: { key: 'member-east', property: 'token' } },
      ],
    },
  });
});

test('THEN a namespaced SecretStore reads the leader namespace of the leader API server, with the CA inline and ServiceAccount auth', () => {
  const store = only(member(esoModel()), 'SecretStore');
  assert.is(store.apiVersion, 'external-secrets.io/v1');
  assert.equal(store.metadata, {
    name: 'antrea-mc-leader',
    namespace: 'kube-system',
    annotations: { 'argocd.argoproj.io/sync-wave': WAVE_TOKEN },
  });
  assert.equal(store.spec, {
    provider: {
      kubernetes: {
        remoteNamespace: 'antrea-multicluster',
        server: {
          url: 'https://hub.example.com:6443',
          caBundle: Buffer.from(CA_PEM).toString('base64'),
        },
        auth: { serviceAccount: { name: 'antrea-mc-token-reader', audiences: ['hub'] } },
      },
    },
  });
  const sa = only(member(esoModel()), 'ServiceAccount');
  assert.equal(sa.metadata, {
    name: 'antrea-mc-token-reader',
    namespace: 'kube-system',
    annotations: { 'argocd.argoproj.io/sync-wave': WAVE_TOKEN },
  });
});

test('GIVEN a CA ConfigMap and a bootstrap token Secret WHEN a member renders THEN the store refers to both and no ServiceAccount is rendered', () => {
  const m = esoModel();
  m.memberNamespace = 'antrea-mc';
  m.secrets!.memberTokenSecretName = 'leader-token';
  m.secrets!.externalSecrets = {
    storeName: 'hub-leader',
    leaderCA: { configMap: { name: 'hub-ca' } },
    auth: { tokenSecret: { name: 'hub-reader' } },
    leaderUsername: USER,
    refreshInterval: '15m',
  };
  const objs = member(m, 'west');
  assert.equal(objs.map((o) => o.kind).sort(), ['ExternalSecret', 'SecretStore']);
  const store = only(objs, 'SecretStore');
  assert.equal(store.spec, {
    provider: {
      kubernetes: {
        remoteNamespace: 'antrea-multicluster',
        server: {
          url: 'https://hub.example.com:6443',
          caProvider: { type: 'ConfigMap', name: 'hub-ca', key: 'ca.crt' },
        },
        auth: { token: { bearerToken: { name: 'hub-reader', key: 'token' } } },
      },
    },
  });
  const es = only(objs, 'ExternalSecret');
  assert.is(es.metadata.namespace, 'antrea-mc');
  assert.equal((es.spec as { secretStoreRef: unknown }).secretStoreRef, {
    kind: 'SecretStore',
    name: 'hub-leader',
  });
  assert.is((es.spec as { refreshInterval: string }).refreshInterval, '15m');
  assert.is((es.spec as { target: { name: string } }).target.name, 'leader-token');
  assert.match(JSON.stringify(es.spec), /"key":"member-west"/);
});

test('GIVEN External Secrets WHEN the leader renders a member THEN a Role gets exactly that member token Secret and is bound to exactly its store user', () => {
  const p = planOf(esoModel());
  const objs = renderInto((s) => renderTokenReaderAccess(s, p, memberOf(p, 'east')));
  const role = only(objs, 'Role');
  assert.equal(role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'member-east-token-reader', namespace: 'antrea-multicluster' },
    rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['member-east'], verbs: ['get'] }],
  });
  const rb = only(objs, 'RoleBinding');
  assert.equal(rb.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Role',
    name: 'member-east-token-reader',
  });
  assert.equal(rb.subjects, [
    {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'User',
      name: 'oidc:east:system:serviceaccount:kube-system:antrea-mc-token-reader',
    },
  ]);
});

test("GIVEN memberIdentity names for west WHEN External Secrets renders THEN west's ExternalSecret writes its own Secret from its own leader Secret, the leader lets its store read exactly that one, and east keeps the defaults", () => {
  const m = esoModel();
  m.clusters[2]!.memberIdentity = {
    serviceAccount: 'member-west',
    tokenSecret: 'member-west-token',
    memberTokenSecret: 'west-leader-token',
  };
  const es = only(member(m, 'west'), 'ExternalSecret');
  assert.is(es.metadata.name, 'west-leader-token');
  const spec = es.spec as { target: { name: string }; data: { remoteRef: { key: string } }[] };
  assert.is(spec.target.name, 'west-leader-token');
  assert.equal(
    spec.data.map((d) => d.remoteRef.key),
    ['member-west-token', 'member-west-token'],
  );
  const p = planOf(m);
  const role = only(
    renderInto((s) => renderTokenReaderAccess(s, p, memberOf(p, 'west'))),
    'Role',
  );
  // The reader keeps its name after the cluster ID: it is clusterset's own object.
  assert.is(role.metadata.name, 'member-west-token-reader');
  assert.equal((role.rules as { resourceNames: string[] }[])[0]!.resourceNames, ['member-west-token']);
  const east = only(member(m, 'east'), 'ExternalSecret');
  assert.is(east.metadata.name, 'antrea-mc-leader-token');
  assert.match(JSON.stringify(east.spec), /"key":"member-east"/);
});

test('GIVEN a leader that is also a member with ServiceAccount auth THEN its reader is its own ServiceAccount, not the template', () => {
  const p = planOf(esoModel(dualRoleModel()));
  const rb = only(
    renderInto((s) => renderTokenReaderAccess(s, p, memberOf(p, 'hub'))),
    'RoleBinding',
  );
  assert.equal(
    (rb.subjects as { name: string }[]).map((s) => s.name),
    ['system:serviceaccount:kube-system:antrea-mc-token-reader'],
  );
});

test('GIVEN External Secrets WHEN the whole ClusterSet renders THEN every object validates against its CRD, and the leader has one reader per member', () => {
  const bundles = render(planOf(esoModel(dualRoleModel())));
  for (const [cluster, objs] of bundles) {
    for (const o of objs) assert.equal(validateObject(o, `${cluster}/${o.kind}/${o.metadata.name}`), []);
  }
  const hub = bundles.get('hub') ?? [];
  assert.equal(
    hub
      .filter((o) => o.kind === 'Role' && o.metadata.name.endsWith('-token-reader'))
      .map((o) => o.metadata.name)
      .sort(),
    ['member-east-token-reader', 'member-hub-token-reader', 'member-west-token-reader'],
  );
  for (const id of ['east', 'west', 'hub']) {
    const objs = bundles.get(id) ?? [];
    assert.is(objs.filter((o) => o.kind === 'ExternalSecret').length, 1, id);
    assert.is(objs.filter((o) => o.kind === 'SecretStore').length, 1, id);
  }
});

test('GIVEN no External Secrets WHEN the ClusterSet renders THEN no store, ExternalSecret or reader Role exists', () => {
  const bundles = render(planOf(minimalModel()));
  const kinds = [...bundles.values()].flat().map((o) => `${o.kind}/${o.metadata.name}`);
  assert.equal(
    kinds.filter((k) => /^(SecretStore|ExternalSecret)\/|-token-reader$/.test(k)),
    [],
  );
});

test('GIVEN External Secrets WHEN everything renders THEN no object carries Secret data', () => {
  const bundles = render(planOf(esoModel(dualRoleModel())));
  for (const o of [...bundles.values()].flat()) {
    if (o.kind === 'Secret') assert.ok(!('data' in o) && !('stringData' in o), o.metadata.name);
    assert.not.match(dumpYaml(o), /BEGIN PRIVATE KEY|stringData/);
  }
});

test('fails validation GIVEN a SecretStore with a provider other than Kubernetes (the pruned schema refuses it)', () => {
  const store = only(member(esoModel()), 'SecretStore');
  const bad = { ...store, spec: { provider: { vault: { server: 'https://vault' } } } };
  const ds = validateObject(bad, 'east/SecretStore');
  assert.ok(
    ds.some((d) => d.rule === 'output-schema' && /vault/.test(d.message)),
    JSON.stringify(ds),
  );
});

test.run();
