/**
 * diffTrees: objects matched by identity, field paths with list items named by their identity key,
 * unchanged bytes never parsed, Secret values never shown.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { diffObjects, diffTrees, fieldLine } from '../../lib/diff';
import { dumpYaml } from '../../lib/yaml';

const svc = (port: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
  kind: 'ResourceImport',
  metadata: { name: 'shop-cart-service', namespace: 'antrea-multicluster' },
  spec: {
    kind: 'ServiceImport',
    name: 'cart',
    namespace: 'shop',
    serviceImport: {
      spec: {
        ports: [
          { name: 'http', port, protocol: 'TCP' },
          { name: 'grpc', port: 9090, protocol: 'TCP' },
        ],
        type: 'ClusterSetIP',
      },
    },
    ...extra,
  },
});

test('GIVEN a changed port WHEN diffed THEN the field path names the port by its name', () => {
  const fields = diffObjects(svc(80), svc(8080));
  assert.equal(fields, [
    { path: 'spec.serviceImport.spec.ports[http].port', op: 'changed', before: 80, after: 8080 },
  ]);
  assert.is(fieldLine(fields[0]!), 'spec.serviceImport.spec.ports[http].port: 80 → 8080');
});

test('GIVEN list items without an identity key THEN they are matched by index', () => {
  const a = { rules: [{ verbs: ['get'] }, { verbs: ['list'] }] };
  const b = { rules: [{ verbs: ['get'] }, { verbs: ['watch'] }] };
  assert.equal(diffObjects(a, b), [
    { path: 'rules[1].verbs', op: 'removed', before: 'list' },
    { path: 'rules[1].verbs', op: 'added', after: 'watch' },
  ]);
});

test('GIVEN an item inserted into a list without identity keys THEN only the new item is reported', () => {
  const a = {
    ignoreDifferences: [
      { kind: 'A', jsonPointers: ['/x'] },
      { kind: 'B', jsonPointers: ['/y'] },
    ],
  };
  const b = {
    ignoreDifferences: [
      { kind: 'A', jsonPointers: ['/x'] },
      { kind: 'C', jsonPointers: ['/z'] },
      { kind: 'B', jsonPointers: ['/y'] },
    ],
  };
  assert.equal(diffObjects(a, b), [
    { path: 'ignoreDifferences[1]', op: 'added', after: { kind: 'C', jsonPointers: ['/z'] } },
  ]);
});

test('GIVEN named items in another order THEN the change is a reorder, not an add and a remove', () => {
  const a = {
    ingress: [
      { name: 'a', action: 'Allow' },
      { name: 'b', action: 'Drop' },
    ],
  };
  const b = {
    ingress: [
      { name: 'b', action: 'Drop' },
      { name: 'a', action: 'Allow' },
    ],
  };
  assert.equal(diffObjects(a, b), [
    { path: 'ingress', op: 'reordered', before: ['a', 'b'], after: ['b', 'a'] },
  ]);
});

test('GIVEN keys that are not plain words THEN the path quotes them', () => {
  const fields = diffObjects(
    { metadata: { annotations: { 'argocd.argoproj.io/sync-wave': '-1' } } },
    { metadata: { annotations: { 'argocd.argoproj.io/sync-wave': '-2' } } },
  );
  assert.is(fields[0]!.path, 'metadata.annotations["argocd.argoproj.io/sync-wave"]');
});

test('GIVEN a ConfigMap holding YAML THEN the diff goes into the embedded document', () => {
  const cm = (t: string) => ({ data: { 'c.yaml': `endpointIPType: ${t}\nserviceCIDR: 10.0.0.0/16\n` } });
  assert.equal(diffObjects(cm('ClusterIP'), cm('PodIP')), [
    { path: 'data["c.yaml"].endpointIPType', op: 'changed', before: 'ClusterIP', after: 'PodIP' },
  ]);
});

test('GIVEN an object moved to another path THEN it is neither added nor removed', () => {
  const before = new Map([
    ['clusters/hub/antrea-multicluster/ResourceImport.shop-cart-service.yaml', dumpYaml(svc(80))],
  ]);
  const after = new Map([
    [
      'clusters/hub/antrea-multicluster/ResourceImport.multicluster.shop-cart-service.yaml',
      dumpYaml(svc(80)),
    ],
  ]);
  const d = diffTrees(before, after);
  assert.equal(d.bundles, []);
});

test('GIVEN identical bytes at the same path THEN they are never parsed', () => {
  const same = new Map<string, string>();
  for (let i = 0; i < 100; i++) same.set(`clusters/c${i}/_cluster/Namespace.x.yaml`, 'not: [valid yaml');
  const before = new Map([...same, ['clusters/c0/x/ResourceImport.a.yaml', dumpYaml(svc(80))]]);
  const after = new Map([...same, ['clusters/c0/x/ResourceImport.a.yaml', dumpYaml(svc(81))]]);
  const d = diffTrees(before, after);
  assert.is(d.stats.parsed, 2);
  assert.is(d.bundles.length, 1);
  assert.is(d.bundles[0]!.objects[0]!.change, 'changed');
});

test('GIVEN a hand-edited Secret with data THEN the diff never shows the value', () => {
  const secret = (data?: Record<string, string>) =>
    dumpYaml({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'member-east', namespace: 'ns' },
      ...(data ? { data } : {}),
    });
  const d = diffTrees(
    new Map([['clusters/hub/ns/Secret.member-east.yaml', secret()]]),
    new Map([
      [
        'clusters/hub/ns/Secret.member-east.yaml',
        secret({ token: 'ZXlKaGJHY2lPaUpTVXpJMU5pSXNJbXRwWkNJNkluUmxjM1Fp' }),
      ],
    ]),
  );
  const text = JSON.stringify(d.bundles[0]!.objects[0]!.fields);
  assert.not.match(text, 'ZXlK');
  assert.match(text, 'redacted');
});

test('GIVEN bundles, delivery folders and root files THEN each lands in its own bundle, clusters first', () => {
  const ns = (n: string) => dumpYaml({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  const d = diffTrees(
    new Map([['.clusterset-index', '# x\na\n']]),
    new Map([
      [
        'argocd/Application.east.yaml',
        dumpYaml({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'east' } }),
      ],
      ['clusters/east/_cluster/Namespace.shop.yaml', ns('shop')],
      ['.clusterset-index', '# x\na\nb\n'],
    ]),
  );
  assert.equal(
    d.bundles.map((b) => [b.bundle, b.type, b.presence]),
    [
      ['clusters/east', 'cluster', 'added'],
      ['argocd', 'delivery', 'both'],
      ['', 'root', 'both'],
    ],
  );
  assert.equal(d.bundles[2]!.files[0]!.fields, [{ path: '', op: 'added', after: 'b' }]);
});

test.run();
