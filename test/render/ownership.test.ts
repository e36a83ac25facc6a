/**
 * Every object clusterset renders says it is ours (`app.kubernetes.io/managed-by: clusterset`,
 * `app.kubernetes.io/part-of: <ClusterSet ID>`), in every golden case and the example, bundles and
 * delivery objects alike; the one partial object (fields applied onto Antrea's own Deployment) does
 * not, since the object is Antrea's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import { loadYaml } from '../../lib/yaml';

const root = path.resolve(__dirname, '..', '..');
const cases = fs
  .readdirSync(path.join(root, 'test', 'cases'))
  .map((c) => path.join(root, 'test', 'cases', c, 'clusterset.ts'));

for (const file of [path.join(root, 'clusterset.ts'), ...cases]) {
  test(`GIVEN ${path.relative(root, file)} WHEN compiled THEN every object carries the ownership labels, but Antrea's Deployment`, () => {
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
      if (o.kind === 'Deployment' && o.metadata.name === 'antrea-mc-controller') {
        assert.is(o.metadata.labels, undefined, `${rel}: Antrea's, not ours`);
        continue;
      }
      assert.is(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'clusterset', rel);
      assert.is(o.metadata.labels?.['app.kubernetes.io/part-of'], model.clusterSetId, rel);
    }
    assert.ok(objects > 10);
  });
}

test.run();
