/**
 * The imported model as files: the TypeScript and the YAML `emitModel` writes load back through
 * lib/load.ts to the very model, with each comment above the value it is about; and the same
 * snapshot read in another order (objects shuffled, members listed otherwise) gives the same bytes,
 * model, comments and report alike.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emitModel } from '../../lib/import/emit';
import { importSet } from '../../lib/import/model';
import { renderReport } from '../../lib/import/report';
import type { LiveSnapshot } from '../../lib/import/snapshot';
import { loadModel } from '../../lib/load';
import { cleanSet, shuffled, snapshot } from './fixtures';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-import-emit-'));

for (const way of ['antctl', 'kubectl'] as const) {
  for (const format of ['ts', 'yaml'] as const) {
    test(`GIVEN the ${way} set imported WHEN written as ${format} THEN it loads back to the same model`, () => {
      const i = importSet(snapshot(cleanSet(way)));
      const file = path.join(dir, `${way}.${format === 'ts' ? 'ts' : 'yaml'}`);
      fs.writeFileSync(file, emitModel(i, format));
      assert.equal(loadModel(file), JSON.parse(JSON.stringify(i.model)));
    });
  }
}

test('GIVEN the imported model WHEN written THEN each comment sits right above the value its path names, in both formats', () => {
  const i = importSet(snapshot(cleanSet('antctl')));
  const east = i.model.clusters.findIndex((c) => c.id === 'east');
  const comment = i.comments.get(`clusters[${east}].apiServer`)![0]!;
  const yaml = emitModel(i, 'yaml').split('\n');
  const at = yaml.indexOf(`    # ${comment}`);
  assert.ok(at >= 0, 'the comment is in the YAML');
  assert.is(yaml[at + 1], '    apiServer: https://east.example.com:6443');
  const ts = emitModel(i, 'ts').split('\n');
  const tsAt = ts.indexOf(`      // ${comment}`);
  assert.ok(tsAt >= 0, 'the comment is in the TypeScript');
  assert.is(ts[tsAt + 1], "      apiServer: 'https://east.example.com:6443',");
  assert.match(emitModel(i, 'ts'), "import type { ClusterSetProps } from 'clusterset';");
});

function reordered(s: LiveSnapshot, seed: number): LiveSnapshot {
  return {
    readAt: s.readAt,
    leader: { ...s.leader, objects: shuffled(s.leader.objects, seed) },
    members: Object.fromEntries(
      shuffled(Object.entries(s.members), seed + 1).map(([id, c]) => [
        id,
        { ...c, objects: shuffled(c.objects, seed + 2) },
      ]),
    ),
  };
}

test('GIVEN the same snapshot with its objects shuffled WHEN imported THEN the model files and the report are the same bytes', () => {
  const f = cleanSet('kubectl');
  // A few findings too, so that their order is tested as well.
  const cm = f.leader.find((o) => o.kind === 'ConfigMap')! as unknown as { data: Record<string, string> };
  cm.data['controller_manager_config.yaml'] = cm.data['controller_manager_config.yaml']!.replace(
    'true',
    'false',
  );
  const base = snapshot(f);
  const first = importSet(base);
  const bytes = (i: ReturnType<typeof importSet>) =>
    [emitModel(i, 'ts'), emitModel(i, 'yaml'), renderReport(i, 'text'), renderReport(i, 'json')].join(
      '\n---\n',
    );
  const expected = bytes(first);
  assert.ok(first.findings.length > 1);
  for (const seed of [1, 7, 42]) {
    const again = importSet(reordered(base, seed));
    assert.is(bytes(again), expected, `seed ${seed}`);
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();
