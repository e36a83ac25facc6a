/**
 * `clusterset status` as a user calls it, without a cluster: usage errors exit 2 before anything is
 * read, a kubeconfig that is empty or holds no context among them (one line naming the file and the
 * fix, no stack trace); clusters that refuse connections or have no context are reported one by one
 * (exit 1), every cluster still in the report; `explain --status-rbac` prints the read-only identity.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin, type Ran } from '../helpers/cli';
import { writeKubeconfig } from '../helpers/kubeconfig';
import type { StatusReport } from '../../lib/status/report/types';
import { loadYaml } from '../../lib/yaml';

const run = (args: string[], env: NodeJS.ProcessEnv = process.env): Ran => runBin(args, { env });

/** A kubeconfig whose contexts `hub` and `east` point at a closed port; no other context. */
function kubeconfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-status-cli-'));
  const ids = ['hub', 'east'];
  return writeKubeconfig(path.join(dir, 'kubeconfig'), {
    clusters: ids.map((id) => ({
      name: id,
      cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true },
    })),
    users: [{ name: 'u', user: { token: 'not-a-token' } }],
    contexts: ids.map((id) => ({ name: id, context: { cluster: id, user: 'u' } })),
    'current-context': 'hub',
  });
}

test('fails GIVEN --context-for naming no cluster of the model WHEN run THEN exit 2 naming the clusters', () => {
  const r = run(['status', 'clusterset.ts', '--kubeconfig', kubeconfig(), '--context-for', 'nowhere=ctx']);
  assert.is(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    /--context-for "nowhere=ctx": the model has no cluster "nowhere" \(it has: central, east, edge, hub, west\)/,
  );
  assert.is(r.stdout, '');
});

test('fails GIVEN --context-for without = or a bad --timeout WHEN run THEN exit 2', () => {
  const a = run(['status', 'clusterset.ts', '--kubeconfig', kubeconfig(), '--context-for', 'east']);
  assert.is(a.status, 2);
  assert.match(a.stderr, /write CLUSTER=CONTEXT/);
  const b = run(['status', 'clusterset.ts', '--kubeconfig', kubeconfig(), '--timeout', '0']);
  assert.is(b.status, 2);
  assert.match(b.stderr, /--timeout must be a positive number/);
});

test('fails GIVEN an out/ with no bundle WHEN run THEN exit 2 saying to synth first', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-status-out-'));
  const r = run(['status', 'clusterset.ts', '--out', empty, '--kubeconfig', kubeconfig()]);
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /holds no cluster bundle: run `clusterset synth` first/);
});

test('fails GIVEN a kubeconfig that is empty, {} or without contexts WHEN run THEN exit 2 with one line naming the file and the fix, no JavaScript error', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-status-kc-'));
  const files: [string, string, RegExp][] = [
    ['empty', '', /the kubeconfig \S+\/empty is empty; /],
    ['comments', '# nothing yet\n', /the kubeconfig \S+\/comments is empty; /],
    ['braces', '{}\n', /the kubeconfig \S+\/braces (\(\$KUBECONFIG\) )?has no contexts; /],
    [
      'no-contexts',
      'apiVersion: v1\nkind: Config\nclusters:\n- name: hub\n  cluster: {server: https://127.0.0.1:1}\ncontexts: []\n',
      /the kubeconfig \S+\/no-contexts has no contexts; /,
    ],
  ];
  const fix =
    /; pass --kubeconfig \(or set \$KUBECONFIG to\) a kubeconfig with a context per cluster, named as its ID \(central, east, edge, hub, west\) or mapped with --context-for CLUSTER=CONTEXT\n$/;
  for (const [name, text, what] of files) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const runs = [run(['status', 'clusterset.ts', '--kubeconfig', file])];
    // `{}` through $KUBECONFIG too, as a plain `clusterset status` reads it.
    if (name === 'braces') runs.push(run(['status', 'clusterset.ts'], { ...process.env, KUBECONFIG: file }));
    for (const r of runs) {
      assert.is(r.status, 2, `${name}: ${r.stderr}`);
      assert.is(r.stdout, '', name);
      assert.match(r.stderr, /^clusterset: status: /, name);
      assert.match(r.stderr, what, name);
      assert.match(r.stderr, fix, name);
      assert.is(r.stderr.split('\n').length, 2, `${name}: one line: ${r.stderr}`);
      assert.not.match(r.stderr, /TypeError|Cannot read properties|\n\s+at /, name);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('GIVEN clusters refusing connections and clusters without a context WHEN run THEN each is reported, exit 1', () => {
  const r = run([
    'status',
    'clusterset.ts',
    '--kubeconfig',
    kubeconfig(),
    '--format',
    'json',
    '--timeout',
    '5',
  ]);
  assert.is(r.status, 1, r.stderr);
  const report = JSON.parse(r.stdout) as StatusReport;
  assert.not.ok(report.ok);
  assert.equal(
    report.clusters.map((c) => [c.id, c.reachable]),
    [
      ['hub', false],
      ['central', false],
      ['east', false],
      ['edge', false],
      ['west', false],
    ],
  );
  const east = report.clusters.find((c) => c.id === 'east')!;
  assert.match(east.error!, /ECONNREFUSED/);
  const west = report.clusters.find((c) => c.id === 'west')!;
  assert.match(west.error!, /no context "west" in the kubeconfig: name one with --context-for west=CONTEXT/);
  assert.ok(report.problems.includes(`west: cannot be reached: ${west.error}`));
});

test('GIVEN explain --status-rbac WHEN run THEN a ServiceAccount, a ClusterRole that only reads and never Secrets, and its binding', () => {
  const r = run(['explain', '--status-rbac', '--namespace', 'ops']);
  assert.is(r.status, 0, r.stderr);
  const docs = r.stdout.split(/^---$/m).map((d) => loadYaml(d) as Record<string, unknown>);
  assert.equal(
    docs.map((d) => d.kind),
    ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'],
  );
  const rules = docs[1]!.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  for (const rule of rules) assert.equal(rule.verbs, ['get', 'list', 'watch']);
  assert.not.ok(rules.some((x) => x.resources.includes('secrets')));
  assert.equal((docs[2]!.subjects as unknown[])[0], {
    kind: 'ServiceAccount',
    name: 'clusterset-status',
    namespace: 'ops',
  });
});

test.run();
