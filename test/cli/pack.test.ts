/**
 * The package as a platform team installs it: `npm pack` (whose `prepack` builds dist/), then
 * install the tarball into an empty project (dependencies from the npm registry, no dev dependency)
 * and run `npx clusterset` there on a JSON model and on a TypeScript one. The package ships
 * compiled JavaScript (dist/), not sources, and has no install script: its package.json has none
 * of the scripts npm runs or reviews on install, and npm installs it without an install-scripts
 * warning. The installed package prints its version and assembles the reconciler image's build
 * context from its own files (`image build --dry-run`: no registry is reachable here).
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
    'package/dist/package-lock.json',
    'package/image/Containerfile',
    'package/package.json',
    'package/README.md',
    'package/LICENSE',
  ]) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  // No install script: npm runs preinstall, install and postinstall on every install, prepare on
  // a non-registry one (a tarball, a git URL, a link) and reviews them all (npm 11's allowScripts);
  // a binding.gyp would be an implicit `node-gyp rebuild`.
  const packed = JSON.parse(
    execFileSync('tar', ['xzfO', tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as {
    scripts?: Record<string, string>;
  };
  const scripts = Object.keys(packed.scripts ?? {});
  for (const s of ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'])
    assert.not.ok(scripts.includes(s), `the packed package.json has no ${s} script`);
  assert.ok(scripts.includes('prepack'), 'dist/ is built when packing, as prepack');
  assert.not.ok(
    files.some((f) => f.endsWith('binding.gyp')),
    'no binding.gyp',
  );
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
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=warn', tarball], {
    cwd: project,
    encoding: 'utf8',
  });
  assert.is(install.status, 0, install.stderr);
  // npm 11 lists each package whose install scripts it has not been told to allow: clusterset is
  // not one (esbuild, which tsx depends on, has a postinstall of its own).
  const flagged = [...install.stderr.matchAll(/^npm warn install-scripts +(\S+)@\S+ \(/gm)].map((m) => m[1]);
  assert.not.ok(flagged.includes('clusterset'), install.stderr);
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

  // A YAML model with the modeline docs/model.md documents: the schema is where it points, and is the
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

test('GIVEN the installed package WHEN `clusterset version` and `clusterset image build --dry-run` run THEN its version, and a build context made of its own files with the command lines', () => {
  assert.ok(fs.existsSync(project), 'installed by the test above');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const v = npx('version', '--format', 'json');
  assert.is(v.status, 0, v.stderr);
  assert.is((JSON.parse(v.stdout) as { clusterset: string }).clusterset, pkg.version);

  const installed = fs.realpathSync(path.join(project, 'node_modules', 'clusterset'));
  const ctx = path.join(work, 'image-context');
  const tag = `registry.example.com/platform/clusterset:${pkg.version}`;
  const r = npx(
    'image',
    'build',
    '--dry-run',
    '--engine',
    'podman',
    '--context',
    ctx,
    '--tag',
    tag,
    '--push',
  );
  assert.is(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.is(lines[0], `build context: ${ctx} (from ${installed})`);
  assert.equal(lines.slice(1, 4), ['  Containerfile', '  package-lock.json', '  package.json']);
  assert.match(lines[4]!, /^ {2}dist\/ \(\d+ files\)$/);
  assert.is(lines[5], 'would run:');
  assert.match(
    lines[6]!,
    new RegExp(
      `^ {2}podman build --file ${ctx}/Containerfile --build-arg BASE=\\S+ --build-arg RUNTIME=\\S+ .*--tag ${tag} ${ctx}$`,
    ),
  );
  // podman hands back the pushed digest in a file, which the command then prints to pin.
  assert.is(lines[7], `  podman push --digestfile '<digest file>' ${tag}`);
  // The context is the installed package's own: its Containerfile, package.json, packed lock, dist/.
  const same = (a: string, b: string) =>
    assert.ok(fs.readFileSync(a).equals(fs.readFileSync(b)), `${b} is ${a}`);
  same(path.join(installed, 'image', 'Containerfile'), path.join(ctx, 'Containerfile'));
  same(path.join(installed, 'package.json'), path.join(ctx, 'package.json'));
  same(path.join(installed, 'dist', 'package-lock.json'), path.join(ctx, 'package-lock.json'));
  same(
    path.join(installed, 'dist', 'lib', 'cli', 'main.js'),
    path.join(ctx, 'dist', 'lib', 'cli', 'main.js'),
  );
  assert.not.ok(fs.existsSync(path.join(ctx, 'dist', 'lib', 'index.d.ts')), 'no declarations in the image');
  // The lock fits the package.json it ships with: npm ci in the image's build stage accepts it.
  const lock = JSON.parse(fs.readFileSync(path.join(ctx, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
  };
  const manifest = JSON.parse(fs.readFileSync(path.join(ctx, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
  };
  assert.is(lock.packages['']?.version, manifest.version);
  assert.equal(lock.packages['']?.dependencies, manifest.dependencies);
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
