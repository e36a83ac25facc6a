import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  RECONCILER_NAME,
  reconcilerConfig,
  renderReconciler,
} from '../../lib/render/reconciler';
import { validateObject } from '../../lib/validate';
import { minimalModel, only, planOf, renderInto, service, twoNetworkModel } from '../helpers/models';

function renderAll(m = minimalModel()) {
  const p = planOf(m);
  return renderInto((s) => renderReconciler(s, p));
}

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

test('GIVEN the leader WHEN the reconciler is rendered THEN ServiceAccount, Role, RoleBinding and config in the leader namespace', () => {
  const objs = renderAll();
  for (const o of objs) assert.is(o.metadata.namespace, 'antrea-multicluster');
  assert.is(only(objs, 'ServiceAccount').metadata.name, RECONCILER_NAME);
  assert.is(only(objs, 'Role').metadata.name, RECONCILER_NAME);
  const rb = only(objs, 'RoleBinding');
  assert.equal(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECONCILER_NAME });
  assert.equal(rb.subjects, [
    { kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: 'antrea-multicluster' },
  ]);
  assert.is(only(objs, 'ConfigMap').metadata.name, RECONCILER_CONFIG_NAME);
  for (const o of objs) assert.equal(validateObject(o, o.metadata.name), []);
});

test('THEN the Role is least privilege: no write on compiled-import-free kinds, no cluster-wide secrets', () => {
  const rules = only(renderAll(), 'Role').rules as Rule[];
  assert.not.ok(
    rules.some((r) => r.resources.includes('secrets')),
    'no secrets',
  );
  assert.not.ok(
    rules.some((r) => r.verbs.includes('*') || r.resources.includes('*')),
    'no wildcards',
  );
  const cm = rules.find((r) => r.resources.includes('configmaps'))!;
  assert.equal(cm.resourceNames, [RECONCILER_CONFIG_NAME]);
  assert.not.ok(
    rules.some((r) => r.resources.includes('resourceexports') && r.verbs.includes('create')),
    'the reconciler never creates exports',
  );
});

test('THEN the config lists members and Services in canonical order with declared ports', () => {
  const m = twoNetworkModel();
  m.services = [
    service('shop', 'cart', ['west', 'east'], [{ name: 'http', port: 8080 }]),
    service('prod', 'api', ['east'], [{ port: 80, protocol: 'UDP' }]),
  ];
  const cm = only(renderAll(m), 'ConfigMap');
  const text = (cm.data as Record<string, string>)[RECONCILER_CONFIG_KEY]!;
  assert.ok(text.endsWith('\n'));
  const config = JSON.parse(text) as unknown;
  assert.equal(config, reconcilerConfig(planOf(m)));
  assert.equal(config, {
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
  });
});

test.run();
