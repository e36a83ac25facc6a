/**
 * `clusterset explain` as a user runs it: the example in each format, an unknown --cluster, and a
 * broken model (the same diagnostics as synth, nothing on stdout).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources, type Ran } from '../helpers/cli';

const root = path.resolve(__dirname, '..', '..');
const run = (args: string[], cwd = root): Ran => runSources(args, { cwd });

test('GIVEN the example WHEN `explain` runs THEN it prints the summary, every cluster and the tables', () => {
  const r = run(['explain', 'clusterset.ts']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ClusterSet prod-set: leader hub, 4 members of 5 clusters/);
  for (const id of ['central', 'east', 'edge', 'hub', 'west'])
    assert.match(r.stdout, new RegExp(`^cluster ${id} \\(`, 'm'));
  assert.match(r.stdout, /^reachability of shop\/cart \(http 8080\/TCP\)/m);
});

test('GIVEN --cluster east --format json WHEN explain runs THEN the JSON is about east only', () => {
  const r = run(['explain', '--cluster', 'east', '--format', 'json']);
  assert.is(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { cluster: string; clusters: { id: string }[] };
  assert.is(j.cluster, 'east');
  assert.equal(
    j.clusters.map((c) => c.id),
    ['east'],
  );
});

test('GIVEN --format mermaid WHEN explain runs THEN stdout is a flowchart', () => {
  const r = run(['explain', '--format', 'mermaid']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^flowchart LR\n/);
});

test('fails GIVEN an unknown --cluster, listing the valid IDs', () => {
  const r = run(['explain', '--cluster', 'nowhere']);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.match(
    r.stderr,
    /cluster "nowhere" is not in the model; the clusters are: central, east, edge, hub, west/,
  );
});

test('fails GIVEN a broken model, printing every diagnostic with its model path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-explain-'));
  fs.symlinkSync(path.join(root, 'lib'), path.join(dir, 'lib'));
  const broken = fs
    .readFileSync(path.join(root, 'clusterset.ts'), 'utf8')
    .replace("id: 'east',", "id: 'East_1',")
    .replace("tier: 'application',", "tier: 'no-such-tier',");
  fs.writeFileSync(path.join(dir, 'broken.ts'), broken);
  const r = run(['explain', 'broken.ts'], dir);
  assert.is(r.status, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /problems? in broken\.ts; nothing to explain/);
  assert.match(r.stderr, /clusters\[1\]\.id/);
  assert.match(r.stderr, /stretchedPolicies\[0\]\.tier/);
});

test.run();
