/**
 * The package as a platform team installs it: `npm pack`, then install the tarball into an empty
 * project (dependencies from the npm registry, no dev dependency) and run `npx clusterset` there on
 * a JSON model and on a TypeScript one. The package ships compiled JavaScript (dist/), not sources.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { minimalModel } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-pack-'));
const project = path.join(work, 'gitops');
let tarball = '';

function npx(...args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('npx', ['--no-install', 'clusterset', ...args], { cwd: project, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test('GIVEN the repository WHEN packed THEN the tarball holds the compiled CLI and what it reads, and no sources or tests', () => {
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  tarball = path.join(work, out.trim().split('\n').pop()!);
  const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of [
    'package/bin/clusterset',
    'package/dist/lib/cli/main.js',
    'package/dist/lib/index.d.ts',
    'package/dist/generated/validators.js',
    'package/dist/generated/model.schema.json',
    'package/dist/crds/crd.antrea.io_tiers.yaml',
    'package/package.json',
    'package/README.md',
    'package/LICENSE',
  ]) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  const license = execFileSync('tar', ['xzfO', tarball, 'package/LICENSE'], { encoding: 'utf8' });
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS[\s\S]*APPENDIX/);
  assert.match(license, /Copyright 2026 The clusterset authors/);
  for (const prefix of [
    'package/lib/',
    'package/test/',
    'package/out/',
    'package/bench/',
    'package/.cache/',
  ]) {
    assert.equal(
      files.filter((f) => f.startsWith(prefix)),
      [],
      `nothing under ${prefix}`,
    );
  }
});

test('GIVEN an empty project WHEN the tarball is installed THEN npx clusterset synth renders a JSON and a TypeScript model, with no dev dependency', () => {
  assert.ok(tarball, 'packed by the test above');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'gitops', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const installed = path.join(project, 'node_modules', 'clusterset');
  assert.not.ok(fs.existsSync(path.join(installed, 'lib')), 'no sources: the compiled CLI runs');
  for (const dev of ['typescript', 'uvu', 'eslint', 'cdk8s-cli', 'prettier']) {
    assert.not.ok(fs.existsSync(path.join(project, 'node_modules', dev)), `${dev} is not installed`);
  }

  const help = npx('--help');
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /clusterset synth/);

  fs.writeFileSync(path.join(project, 'model.json'), JSON.stringify(minimalModel()));
  const json = npx('synth', 'model.json', '--out', 'out-json');
  assert.is(json.status, 0, json.stderr);
  assert.ok(fs.existsSync(path.join(project, 'out-json', 'clusters', 'east', 'kustomization.yaml')));

  fs.writeFileSync(
    path.join(project, 'clusterset.ts'),
    [
      "import type { ClusterSetProps } from 'clusterset';",
      `const model: ClusterSetProps = ${JSON.stringify(minimalModel())};`,
      'export default model;',
      '',
    ].join('\n'),
  );
  const ts = npx('synth', 'clusterset.ts');
  assert.is(ts.status, 0, ts.stderr);
  const a = fs.readFileSync(path.join(project, 'out', 'clusters', 'east', 'kustomization.yaml'), 'utf8');
  const b = fs.readFileSync(path.join(project, 'out-json', 'clusters', 'east', 'kustomization.yaml'), 'utf8');
  assert.is(a, b, 'the same model renders the same bytes from JSON and TypeScript');
  assert.ok(fs.existsSync(path.join(installed, 'dist', 'lib', 'index.d.ts')), 'the model type resolves');

  // A YAML model with the modeline the README documents: the schema is where it points, and is the
  // schema synth checks with (a field it does not allow is refused).
  const modeline =
    '# yaml-language-server: $schema=./node_modules/clusterset/dist/generated/model.schema.json';
  const schemaPath = path.join(project, modeline.split('$schema=')[1]!);
  const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as { properties?: Record<string, unknown> };
  assert.ok(schema.properties?.clusterSetId, 'the model schema');
  fs.writeFileSync(path.join(project, 'clusterset.yaml'), `${modeline}\n${JSON.stringify(minimalModel())}\n`);
  const yaml = npx('synth', 'clusterset.yaml', '--out', 'out-yaml');
  assert.is(yaml.status, 0, yaml.stderr);
  fs.writeFileSync(
    path.join(project, 'bad.yaml'),
    `${modeline}\n${JSON.stringify({ ...minimalModel(), colour: 'blue' })}\n`,
  );
  const bad = npx('validate', 'bad.yaml');
  assert.is(bad.status, 2);
  assert.match(bad.stdout + bad.stderr, /colour/);
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
