import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INDEX_FILE, compareObjects, emit } from '../lib/emit';
import type { Bundles, K8sObject } from '../lib/render';
import { loadYaml } from '../lib/yaml';

const obj = (apiVersion: string, kind: string, name: string, namespace?: string): K8sObject => ({
  apiVersion,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

test('GIVEN objects of one bundle WHEN emitted THEN one file per object at an identity path, CRDs and Namespaces first', () => {
  const bundles: Bundles = new Map([
    [
      'east',
      [
        obj('v1', 'ConfigMap', 'b', 'kube-system'),
        obj('v1', 'Namespace', 'shop'),
        obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'x.io'),
      ],
    ],
  ]);
  const { files, diagnostics } = emit(bundles);
  assert.equal(diagnostics, []);
  assert.equal(
    [...files.keys()],
    [
      'clusters/east/_cluster/CustomResourceDefinition.x.io.yaml',
      'clusters/east/_cluster/Namespace.shop.yaml',
      'clusters/east/kube-system/ConfigMap.b.yaml',
      'clusters/east/kustomization.yaml',
      INDEX_FILE,
    ],
  );
  const k = loadYaml(files.get('clusters/east/kustomization.yaml') ?? '') as { resources: string[] };
  assert.equal(k.resources, [
    '_cluster/CustomResourceDefinition.x.io.yaml',
    '_cluster/Namespace.shop.yaml',
    'kube-system/ConfigMap.b.yaml',
  ]);
  assert.ok((files.get(INDEX_FILE) ?? '').includes('clusters/east/kube-system/ConfigMap.b.yaml\n'));
});

test('GIVEN two kinds of one name in different groups WHEN emitted THEN both file names carry the group', () => {
  const { files, diagnostics } = emit(
    new Map([['c', [obj('a.io/v1', 'Policy', 'p'), obj('b.io/v1', 'Policy', 'p')]]]),
  );
  assert.equal(diagnostics, []);
  assert.ok(files.has('clusters/c/_cluster/Policy.a.io.p.yaml'));
  assert.ok(files.has('clusters/c/_cluster/Policy.b.io.p.yaml'));
});

test('fails with output-path-collision GIVEN two objects that map to one path', () => {
  const { diagnostics } = emit(
    new Map([['c', [obj('v1', 'ConfigMap', 'a', 'ns'), obj('v1', 'ConfigMap', 'a', 'ns')]]]),
  );
  assert.equal(
    diagnostics.map((d) => d.rule),
    ['output-path-collision'],
  );
  assert.match(diagnostics[0]?.path ?? '', 'clusters/c/ns/ConfigMap.a.yaml');
});

test('fails with output-metadata-strings GIVEN a non-string annotation value', () => {
  const o = obj('v1', 'ConfigMap', 'a', 'ns');
  (o.metadata as { annotations: unknown }).annotations = { n: 1 };
  assert.equal(
    emit(new Map([['c', [o]]])).diagnostics.map((d) => d.rule),
    ['output-metadata-strings'],
  );
});

test('GIVEN delivery folders WHEN emitted THEN their objects land outside the bundles, each folder with a kustomization.yaml, all indexed', () => {
  const app = (name: string) => obj('argoproj.io/v1alpha1', 'Application', name, 'argocd');
  const { files, diagnostics } = emit(
    new Map([['east', [obj('v1', 'Namespace', 'shop')]]]),
    new Map([
      ['flux', [obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 's', 'flux-system')]],
      ['argocd/apps', [app('s-west'), app('s-east')]],
      ['argocd', [app('s')]],
    ]),
  );
  assert.equal(diagnostics, []);
  assert.equal(
    [...files.keys()],
    [
      'clusters/east/_cluster/Namespace.shop.yaml',
      'clusters/east/kustomization.yaml',
      'argocd/Application.s.yaml',
      'argocd/kustomization.yaml',
      'argocd/apps/Application.s-east.yaml',
      'argocd/apps/Application.s-west.yaml',
      'argocd/apps/kustomization.yaml',
      'flux/Kustomization.s.yaml',
      'flux/kustomization.yaml',
      INDEX_FILE,
    ],
  );
  const k = loadYaml(files.get('argocd/apps/kustomization.yaml') ?? '') as { resources: string[] };
  assert.equal(k.resources, ['Application.s-east.yaml', 'Application.s-west.yaml']);
  const root = loadYaml(files.get('argocd/kustomization.yaml') ?? '') as { resources: string[] };
  assert.equal(root.resources, ['Application.s.yaml'], 'the root folder lists only its own files');
  for (const f of files.keys())
    if (f !== INDEX_FILE) assert.ok((files.get(INDEX_FILE) ?? '').includes(`${f}\n`), f);
});

test('fails with output-path-collision GIVEN two delivery objects of one kind and name in one folder', () => {
  const o = obj('argoproj.io/v1alpha1', 'Application', 'a', 'argocd');
  const { diagnostics } = emit(new Map(), new Map([['argocd/apps', [o, { ...o }]]]));
  assert.equal(
    diagnostics.map((d) => `${d.rule} ${d.path}`),
    ['output-path-collision argocd/apps/Application.a.yaml'],
  );
});

test('GIVEN objects in any order WHEN compared THEN the order is total and stable', () => {
  const xs = [
    obj('v1', 'Secret', 'a', 'z'),
    obj('v1', 'Secret', 'a', 'a'),
    obj('v1', 'Namespace', 'n'),
    obj('x/v1', 'Secret', 'a', 'a'),
  ];
  const once = [...xs].sort(compareObjects);
  const twice = [...xs].reverse().sort(compareObjects);
  assert.equal(once, twice);
  assert.equal(once[0]?.kind, 'Namespace');
});

test.run();
