/**
 * `clusterset image build` without an engine to run (no registry is reachable here): the build
 * context it assembles from a package root (the Containerfile, package.json, the lock, dist/ without
 * declarations), the engine command lines it would run, the Containerfile agreeing with the
 * command's defaults and with what the Deployment expects of the image, and its usage errors (a tag
 * with a digest or an invalid reference, exit 2; no engine on PATH, exit 1). The same command from
 * an installed package is run by pack.test.ts; test/image/build.sh builds a real image with it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources } from '../helpers/cli';
import {
  DEFAULT_IMAGE_BASE,
  DEFAULT_IMAGE_RUNTIME,
  ImageBuildError,
  assembleContext,
  buildCommands,
  repositoryOf,
  contextSources,
  onPath,
  shellQuote,
} from '../../lib/cli/image';
import { RECONCILER_UID } from '../../lib/render/reconciler';
import pkg from '../../package.json';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'lib', 'cli', 'main.ts');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-image-'));

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A package root as npm installs one: no root lock, dist/ with the lock copy and declarations. */
function installedRoot(name: string): string {
  const r = path.join(work, name);
  fs.mkdirSync(path.join(r, 'image'), { recursive: true });
  fs.copyFileSync(path.join(root, 'image', 'Containerfile'), path.join(r, 'image', 'Containerfile'));
  write(path.join(r, 'package.json'), JSON.stringify({ name: 'clusterset', version: pkg.version }));
  write(path.join(r, 'dist', 'lib', 'cli', 'main.js'), '// main\n');
  write(path.join(r, 'dist', 'lib', 'cli', 'main.d.ts'), 'export {};\n');
  write(path.join(r, 'dist', 'package.json'), '{}\n');
  write(path.join(r, 'dist', 'crds', 'x.yaml'), 'kind: CustomResourceDefinition\n');
  write(path.join(r, 'dist', 'tsconfig.build.tsbuildinfo'), '{}\n');
  write(path.join(r, 'dist', 'package-lock.json'), '{"lockfileVersion":3}\n');
  return r;
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

test('GIVEN an installed package root WHEN the context is assembled THEN it holds the Containerfile, package.json, the lock from dist/ and dist/ without declarations, build info or the lock copy', () => {
  const r = installedRoot('installed');
  const dir = path.join(work, 'ctx-installed');
  const ctx = assembleContext(r, dir);
  assert.equal(files(dir), [
    'Containerfile',
    'dist/crds/x.yaml',
    'dist/lib/cli/main.js',
    'dist/package.json',
    'package-lock.json',
    'package.json',
  ]);
  assert.is(ctx.distFiles, 3);
  assert.is(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'), '{"lockfileVersion":3}\n');
  assert.is(
    fs.readFileSync(path.join(dir, 'Containerfile'), 'utf8'),
    fs.readFileSync(path.join(root, 'image', 'Containerfile'), 'utf8'),
  );
});

test("GIVEN a checkout (a root package-lock.json) WHEN the context is assembled THEN the checkout's lock is the one used", () => {
  const r = installedRoot('checkout');
  write(path.join(r, 'package-lock.json'), '{"root":true}\n');
  assert.is(contextSources(r).lock, path.join(r, 'package-lock.json'));
});

test('fails GIVEN a root without dist/ (a checkout never built) WHEN the context is assembled THEN it says to run build:js, and writes nothing', () => {
  const r = installedRoot('unbuilt');
  fs.rmSync(path.join(r, 'dist'), { recursive: true });
  const dir = path.join(work, 'ctx-unbuilt');
  assert.throws(
    () => assembleContext(r, dir),
    (e: Error) => e instanceof ImageBuildError && /npm run build:js/.test(e.message),
  );
  assert.not.ok(fs.existsSync(dir));
});

test('fails GIVEN --context naming a directory with files WHEN assembled THEN a usage error (exit 2) and nothing is overwritten', () => {
  const r = installedRoot('busy');
  const dir = path.join(work, 'ctx-busy');
  write(path.join(dir, 'keep'), 'mine\n');
  assert.throws(
    () => assembleContext(r, dir),
    (e: Error) => e instanceof ImageBuildError && e.exitCode === 2 && /not empty/.test(e.message),
  );
  assert.equal(files(dir), ['keep']);
});

test('GIVEN options WHEN the commands are built THEN `<engine> build` with the Containerfile, both bases, the labels, the tag, the extra options, the context; and with --push `<engine> push <tag>`', () => {
  const o = {
    tag: 'registry.example.com/platform/clusterset:0.1.0',
    base: 'mirror.example.com/node:20-bookworm-slim',
    runtime: 'mirror.example.com/distroless/nodejs20-debian12:nonroot',
    engine: 'docker',
    push: true,
    extra: ['--network=host', '--label', 'org.opencontainers.image.revision=abc'],
  };
  assert.equal(buildCommands(o, '/ctx'), [
    [
      'docker',
      'build',
      '--file',
      '/ctx/Containerfile',
      '--build-arg',
      `BASE=${o.base}`,
      '--build-arg',
      `RUNTIME=${o.runtime}`,
      '--label',
      'org.opencontainers.image.title=clusterset',
      '--label',
      `org.opencontainers.image.version=${pkg.version}`,
      '--label',
      `org.opencontainers.image.licenses=${pkg.license}`,
      '--tag',
      o.tag,
      '--network=host',
      '--label',
      'org.opencontainers.image.revision=abc',
      '/ctx',
    ],
    ['docker', 'push', o.tag],
  ]);
  assert.is(buildCommands({ ...o, push: false }, '/ctx').length, 1);
  // podman writes the pushed digest to a file, which the command then prints to pin.
  assert.equal(buildCommands({ ...o, engine: 'podman' }, '/ctx', { podman: true, file: '/tmp/d' })[1], [
    'podman',
    'push',
    '--digestfile',
    '/tmp/d',
    o.tag,
  ]);
  assert.equal(repositoryOf(o.tag), 'registry.example.com/platform/clusterset');
  assert.equal(repositoryOf('127.0.0.1:5000/clusterset:1'), '127.0.0.1:5000/clusterset');
  assert.is(shellQuote('a b'), "'a b'");
  assert.is(shellQuote("it's"), `'it'\\''s'`);
  assert.is(shellQuote('BASE=docker.io/library/node:20'), 'BASE=docker.io/library/node:20');
});

test("GIVEN the Containerfile THEN its base defaults are the command's, it copies exactly the context's files, and runs dist/lib/cli/main.js reconcile as the Deployment's user", () => {
  const c = fs.readFileSync(path.join(root, 'image', 'Containerfile'), 'utf8');
  assert.equal(
    [...c.matchAll(/^ARG (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]),
    [
      ['BASE', DEFAULT_IMAGE_BASE],
      ['RUNTIME', DEFAULT_IMAGE_RUNTIME],
    ],
  );
  const copied = [...c.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
  assert.equal([...new Set(copied)].sort(), ['dist', 'package-lock.json', 'package.json']);
  assert.match(c, /^RUN npm ci --omit=dev --ignore-scripts /m);
  assert.match(c, new RegExp(`^USER ${RECONCILER_UID}:${RECONCILER_UID}$`, 'm'));
  assert.match(c, /^ENTRYPOINT \["\/nodejs\/bin\/node", "dist\/lib\/cli\/main\.js"\]$/m);
  assert.match(c, /^CMD \["reconcile"\]$/m);
});

test('fails GIVEN a tag with a digest, or an invalid one WHEN image build runs THEN a one-line usage error, exit 2', () => {
  for (const [tag, why] of [
    [`registry.example.com/clusterset@sha256:${'a'.repeat(64)}`, /holds a digest/],
    ['Registry.example.com/Clusterset:0.1.0', /is not a valid image reference/],
  ] as const) {
    const r = runSources(['image', 'build', '--tag', tag, '--dry-run']);
    assert.is(r.status, 2, r.stderr);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /^clusterset: image build: --tag /);
    assert.match(r.stderr, why);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('fails GIVEN neither podman nor docker on PATH WHEN image build runs (not a dry run) THEN it says so and builds nothing, exit 1', () => {
  const empty = path.join(work, 'empty-path');
  fs.mkdirSync(empty);
  assert.is(onPath(['podman', 'docker'], empty), undefined);
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), cli, 'image', 'build'],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PATH: empty },
    },
  );
  assert.is(r.status, 1, r.stderr);
  assert.is(
    r.stderr,
    'clusterset: image build: neither podman nor docker is on PATH: install one, or name the engine with --engine\n',
  );
});

test.after(() => fs.rmSync(work, { recursive: true, force: true }));

test.run();
