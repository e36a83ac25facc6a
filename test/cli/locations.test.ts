/**
 * Diagnostics give `file:line:column` of the value (lib/source-locations.ts), in `.ts`/`.js` models
 * and in `.json`/`.yaml` ones, and of the object that lacks a field left out: the locator on the ways
 * a model is written, and the CLI's text, GitHub and JSON reports.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { locateModelPaths, parseModelPath } from '../../lib/source-locations';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-locations-'));
const model = JSON.stringify(path.join(root, 'lib', 'model'));

/** Writes `name` and returns where (1-based line:column) each `/*@label*\/` marker's next token is. */
function source(name: string, text: string): { file: string; at: Record<string, string> } {
  const at: Record<string, string> = {};
  const lines = text.split('\n');
  const clean = lines.map((l, i) =>
    l.replace(/\/\*@(\w+)\*\/ ?/g, (_: string, label: string, offset: number) => {
      const before = l.slice(0, offset).replace(/\/\*@\w+\*\/ ?/g, '');
      at[label] = `${i + 1}:${before.length + 1}`;
      return '';
    }),
  );
  const file = path.join(dir, name);
  fs.writeFileSync(file, clean.join('\n'));
  return { file, at };
}

function located(file: string, paths: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, l] of locateModelPaths(file, paths)) out[p] = `${l.line}:${l.column}`;
  return out;
}

test('GIVEN model paths as the checks write them WHEN parsed THEN keys, indexes and quoted keys come back', () => {
  assert.equal(parseModelPath('clusters[1].serviceCIDR'), ['clusters', 1, 'serviceCIDR']);
  assert.equal(parseModelPath('services[0].labels["app.kubernetes.io/name"]'), [
    'services',
    0,
    'labels',
    'app.kubernetes.io/name',
  ]);
  assert.equal(parseModelPath(''), []);
});

test('GIVEN a .ts model with a typed const, spreads, shorthand properties and a computed list WHEN located THEN each value, or the nearest written one above it, is found', () => {
  const { file, at } = source(
    'model.ts',
    `import type { ClusterSetProps } from ${model};
const base = { apiServer: 'https://x:6443', serviceCIDR: /*@base*/'10.96.0.0/16' };
const podCIDRs = /*@pods*/['10.244.0.0/16'];
const extra = [{ id: 'c', ...base }];
const clusterSet: ClusterSetProps = {
  clusterSetId: /*@id*/'prod-set',
  leader: 'a',
  members: ['a', 'b'],
  clusters: [
    { id: /*@a*/'a', ...base, serviceCIDR: /*@aSvc*/'10.97.0.0/16' },
    { ...base, id: 'b', podCIDRs },
    ...extra,
  ],
  services: /*@services*/['x', 'y'].map((name) => ({ namespace: 'n', name, ports: [], exportedFrom: ['a'] })),
};
export default clusterSet;
`,
  );
  assert.equal(
    located(file, [
      'clusterSetId',
      'clusters[0].id',
      'clusters[0].serviceCIDR',
      'clusters[1].serviceCIDR',
      'clusters[1].podCIDRs[0]',
      'clusters[2].serviceCIDR',
      'services[1].name',
    ]),
    {
      clusterSetId: at.id,
      'clusters[0].id': at.a,
      'clusters[0].serviceCIDR': at.aSvc,
      'clusters[1].serviceCIDR': at.base,
      'clusters[1].podCIDRs[0]': `${at.pods!.split(':')[0]}:${Number(at.pods!.split(':')[1]) + 1}`,
      'clusters[2].serviceCIDR': at.base,
      'services[1].name': at.services,
    },
  );
});

test('GIVEN a .js model exported through module.exports and one exported as an async function WHEN located THEN both are followed', () => {
  const js = source('model.js', `module.exports = {\n  clusterSetId: /*@id*/'x',\n};\n`);
  assert.equal(located(js.file, ['clusterSetId']), { clusterSetId: js.at.id });
  const fn = source(
    'fn.ts',
    `export default async function () {\n  const x = 1;\n  return { clusterSetId: /*@id*/'x', members: [x] };\n}\n`,
  );
  assert.equal(located(fn.file, ['clusterSetId']), { clusterSetId: fn.at.id });
});

test('GIVEN a .yaml model in block and flow style, with comments WHEN located THEN each value is found, and a path that is not written is located at the object that lacks it', () => {
  const { file, at } = source(
    'model.yaml',
    `# the set
clusterSetId: /*@id*/prod-set   # its ID
clusters:
  /*@c0*/- id: /*@a*/a
    serviceCIDR: /*@aSvc*/"10.96.0.0/16"
  - /*@c1*/{id: b, podCIDRs: [x, /*@pod*/y]}
members:
- a
- /*@m1*/b
`,
  );
  assert.equal(
    located(file, [
      'clusterSetId',
      'clusters[0].id',
      'clusters[0].serviceCIDR',
      'clusters[1].podCIDRs[1]',
      'members[1]',
      'clusters[0].apiServer',
      'clusters[1].apiServer',
      'leader',
    ]),
    {
      clusterSetId: at.id,
      'clusters[0].id': at.a,
      'clusters[0].serviceCIDR': at.aSvc,
      'clusters[1].podCIDRs[1]': at.pod,
      'members[1]': at.m1,
      // Left out: the object that lacks it (a block mapping at its first key, a flow one at "{").
      'clusters[0].apiServer': `${at.c0!.split(':')[0]}:${Number(at.c0!.split(':')[1]) + 2}`,
      'clusters[1].apiServer': at.c1,
      leader: '2:1',
    },
  );
});

test('GIVEN a .json model, indented with tabs, with a key written twice WHEN located THEN values are found as JSON.parse reads them (the last key wins)', () => {
  const file = path.join(dir, 'm.json');
  fs.writeFileSync(
    file,
    '{\n\t"clusterSetId": "x",\n\t"clusters": [\n\t\t{"id": "a"},\n\t\t{"id": "b", "serviceCIDR": "q"}\n\t],\n\t"clusterSetId": "y"\n}\n',
  );
  assert.equal(
    located(file, ['clusterSetId', 'clusters[1].serviceCIDR', 'clusters[0].apiServer', 'leader']),
    {
      clusterSetId: '7:18',
      'clusters[1].serviceCIDR': '5:30',
      'clusters[0].apiServer': '4:3',
      leader: '1:1',
    },
  );
});

test('GIVEN a data model that does not parse WHEN located THEN nothing is, and nothing throws', () => {
  const file = path.join(dir, 'broken.yaml');
  fs.writeFileSync(file, 'a: [1, 2\n');
  assert.equal(located(file, ['a[0]']), {});
});

test('GIVEN a .ts model exported as `export default clusterSet` WHEN a required field is left out THEN it is located at the object that lacks it, not at `export default`', () => {
  const { file, at } = source(
    'missing.ts',
    `const clusterSet = /*@root*/{
  clusterSetId: 'x',
  clusters: [/*@c0*/{ id: 'a' }, { id: 'b', ...extra }],
};
const extra = { serviceCIDR: '10.0.0.0/16' };
export default clusterSet;
`,
  );
  assert.equal(located(file, ['leader', 'clusters[0].apiServer', 'admission.deliveryUsers']), {
    leader: at.root,
    'clusters[0].apiServer': at.c0,
    'admission.deliveryUsers': at.root,
  });
});

test('GIVEN a .ts model with a bad CIDR and a bad cluster ID WHEN validated in each format THEN text, GitHub annotations and JSON give file:line:column of each value', () => {
  const example = fs.readFileSync(path.join(root, 'clusterset.ts'), 'utf8');
  const text = example
    .replace("'./lib/model'", model)
    .replace("serviceCIDR: '10.101.0.0/16'", "serviceCIDR: '10.101.0.0/33'");
  assert.is.not(text, example);
  fs.writeFileSync(path.join(dir, 'clusterset.ts'), text);
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes("'10.101.0.0/33'"));
  const column = lines[line]!.indexOf("'10.101.0.0/33'") + 1;
  const where = `clusterset.ts:${line + 1}:${column}`;
  const run = (...extra: string[]) =>
    spawnSync(process.execPath, [bin, 'validate', 'clusterset.ts', ...extra], { cwd: dir, encoding: 'utf8' });

  const t = run();
  assert.is(t.status, 2, t.stderr);
  assert.ok(t.stderr.includes(`  ${where}: clusters[1].serviceCIDR: "10.101.0.0/33"`), t.stderr);

  const g = run('--format', 'github');
  assert.ok(
    g.stdout.includes(`::error file=clusterset.ts,line=${line + 1},col=${column},title=ipv4-format::`),
    g.stdout,
  );

  const j = run('--format', 'json');
  const d = (JSON.parse(j.stdout) as { diagnostics: { path: string; location?: unknown }[] }).diagnostics;
  assert.equal(d.find((x) => x.path === 'clusters[1].serviceCIDR')?.location, {
    file: 'clusterset.ts',
    line: line + 1,
    column,
  });
});

test('GIVEN a .yaml model with a bad CIDR and a cluster without apiServer WHEN validated in each format THEN text, GitHub annotations and JSON give file:line:column', () => {
  const { at } = source(
    'bad.yaml',
    `clusterSetId: test-set
leader: hub
members: [east]
clusters:
  - /*@hub*/id: hub
    serviceCIDR: 10.100.0.0/16
  - id: east
    apiServer: https://east.example.com:6443
    serviceCIDR: /*@cidr*/10.101.0.0/33
`,
  );
  const run = (...extra: string[]) =>
    spawnSync(process.execPath, [bin, 'validate', 'bad.yaml', ...extra], { cwd: dir, encoding: 'utf8' });
  const t = run();
  assert.is(t.status, 2, t.stderr);
  assert.ok(t.stderr.includes(`  bad.yaml:${at.cidr}: clusters[1].serviceCIDR: "10.101.0.0/33"`), t.stderr);
  assert.ok(
    t.stderr.includes(`  bad.yaml:${at.hub}: clusters[0].apiServer: "apiServer" is required`),
    t.stderr,
  );
  const [line, col] = at.cidr!.split(':');
  const g = run('--format', 'github');
  assert.ok(g.stdout.includes(`::error file=bad.yaml,line=${line},col=${col},title=ipv4-format::`), g.stdout);
  const j = run('--format', 'json');
  const d = (JSON.parse(j.stdout) as { diagnostics: { path: string; location?: unknown }[] }).diagnostics;
  assert.equal(d.find((x) => x.path === 'clusters[1].serviceCIDR')?.location, {
    file: 'bad.yaml',
    line: Number(line),
    column: Number(col),
  });
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();
