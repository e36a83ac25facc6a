/**
 * Every object clusterset renders says it is ours (`app.kubernetes.io/managed-by: clusterset`,
 * `app.kubernetes.io/part-of: <ClusterSet ID>`), in every example under examples/ and the
 * repository's clusterset.ts, bundles and delivery objects alike; the one partial object (Argo CD's
 * `argocd-cm`, the health checks merged into Argo CD's own settings) does not, since the object is
 * Argo CD's; nothing of Antrea's member controller Deployment is rendered. `sharedWith` names
 * exactly the objects another owner has too.
 */
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import { ARGOCD_CONFIG_FOLDER } from '../../lib/render/delivery';
import { sharedWith } from '../../lib/render/util';
import { loadYaml } from '../../lib/yaml';
import { EXAMPLES_DIR, caseNames } from '../helpers/golden';

const root = path.resolve(__dirname, '..', '..');
const cases = caseNames().map((c) => path.join(EXAMPLES_DIR, c, 'clusterset.ts'));

for (const file of [path.join(root, 'clusterset.ts'), ...cases]) {
  test(`GIVEN ${path.relative(root, file)} WHEN compiled THEN every object carries the ownership labels, but Argo CD's partial argocd-cm`, () => {
    const model = loadModel(file) as { clusterSetId: string };
    const r = compile(model);
    assert.equal(r.diagnostics, []);
    let objects = 0;
    for (const [rel, text] of r.files) {
      if (!rel.endsWith('.yaml') || rel.endsWith('kustomization.yaml')) continue;
      const o = loadYaml(text) as {
        kind: string;
        metadata: { name: string; labels?: Record<string, string> };
      };
      objects++;
      if (rel.startsWith(`${ARGOCD_CONFIG_FOLDER}/`)) {
        assert.is(o.metadata.labels, undefined, `${rel}: Argo CD's, not ours`);
        continue;
      }
      assert.not.ok(
        o.kind === 'Deployment' && o.metadata.name === 'antrea-mc-controller',
        `${rel}: Antrea's Deployment is never rendered`,
      );
      assert.is(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'clusterset', rel);
      assert.is(o.metadata.labels?.['app.kubernetes.io/part-of'], model.clusterSetId, rel);
    }
    assert.ok(objects > 10);
  });
}

for (const file of [path.join(root, 'clusterset.ts'), ...cases]) {
  test(`GIVEN ${path.relative(root, file)} WHEN compiled THEN sharedWith names Antrea's member controller ConfigMap and the Namespaces of member bundles, nothing else`, () => {
    const r = compile(loadModel(file));
    const leaderNamespace = r.plan!.leaderNamespace;
    const members = new Set(r.plan!.members.map((m) => m.id));
    const shared: string[] = [];
    const expected: string[] = [];
    for (const [rel, text] of r.files) {
      if (!rel.endsWith('.yaml') || rel.endsWith('kustomization.yaml')) continue;
      const o = loadYaml(text) as { kind: string; metadata: { name: string; namespace?: string } };
      const cluster = /^clusters\/([^/]+)\//.exec(rel)?.[1];
      const id = `${cluster ?? rel} ${o.kind} ${o.metadata.name}`;
      if (sharedWith(o) !== undefined) shared.push(id);
      const member = cluster !== undefined && members.has(cluster);
      if (
        member &&
        ((o.kind === 'ConfigMap' && o.metadata.name === 'antrea-mc-controller-config') ||
          (o.kind === 'Namespace' && o.metadata.name !== leaderNamespace))
      )
        expected.push(id);
    }
    assert.equal(shared, expected);
    // The ConfigMap and the exported Services' Namespaces only where the model takes them over.
    const { takeOver } = r.plan!;
    assert.is(
      shared.some((x) => x.includes(' ConfigMap ')),
      takeOver.memberControllerConfig,
      'the ConfigMap',
    );
    if (takeOver.serviceNamespaces)
      assert.ok(
        shared.some((x) => x.includes(' Namespace ')),
        'exported Services have Namespaces',
      );
  });
}

test('GIVEN objects by kind and name THEN sharedWith names only the member ConfigMap and never-pruned Namespaces', () => {
  assert.match(
    sharedWith({ kind: 'ConfigMap', metadata: { name: 'antrea-mc-controller-config' } })!,
    /^Antrea's member install/,
  );
  assert.is(sharedWith({ kind: 'Deployment', metadata: { name: 'antrea-mc-controller' } }), undefined);
  assert.is(
    sharedWith({ kind: 'Namespace', metadata: { name: 'antrea-multicluster', annotations: {} } }),
    undefined,
  );
  assert.match(
    sharedWith({
      kind: 'Namespace',
      metadata: { name: 'shop', annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } },
    })!,
    /teams/,
  );
});

test.run();
