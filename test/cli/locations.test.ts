/**
 * Diagnostics of a `.ts`/`.js` model give `file:line:column` of the value (lib/source-locations.ts):
 * the locator on the ways a model is written, and the CLI's text, GitHub and JSON reports.
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

test('GIVEN a .json model WHEN located THEN nothing is (paths only)', () => {
  const file = path.join(dir, 'm.json');
  fs.writeFileSync(file, '{"clusterSetId": "x"}');
  assert.equal(located(file, ['clusterSetId']), {});
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

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();
