/**
 * `clusterset image build`: the reconciler image, built with podman or docker from this package's
 * own files, so that a team builds (and pushes) the image its leader bundle names from the package
 * it installed, without the sources. Light: main.ts registers it without commands.ts, and it loads
 * none of the compiler's modules.
 *
 * The build context is assembled in a fresh directory from the package root (node_modules/clusterset
 * when installed, the repository in a checkout):
 *
 *   Containerfile       image/Containerfile
 *   package.json        the package's
 *   package-lock.json   the lock: the checkout's, or dist/package-lock.json, which build:js copies
 *                       there because `npm pack` never packs a root package-lock.json
 *   dist/               the compiled package, without declarations, build info or that lock copy
 *
 * then `<engine> build --file <context>/Containerfile --build-arg BASE=<base> --build-arg
 * RUNTIME=<runtime> --label … --tag <tag> [what follows --] <context>`, and with `--push`, `<engine>
 * push <tag>` (podman with `--digestfile`; docker's digest is read back from the image's RepoDigests).
 * The engine's output goes to stderr; the last line on stdout is `<tag> <image ID>`, and with
 * `--push` a third field, `<repository>@sha256:<digest>`: the reference to pin in `reconciler.image`,
 * since a tag can move under a running set (stderr says so too).
 * `--dry-run` assembles the context, keeps it, and prints it and the command lines instead.
 *
 * Exit statuses: 0 when the image is built (and pushed), or with `--dry-run` the context written;
 * 1 when the engine fails, none is on PATH, or the package lacks what the context is made of (a
 * checkout without `dist/`); 2 for a usage problem (a `--tag` with a digest or not a valid
 * reference, a `--context` that is not empty).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { version as packageVersion, license as packageLicense } from '../../package.json';
import { isImageReference } from '../check/reconciler';
import { packageRoot } from '../install-source';
import { DEFAULT_RECONCILER_IMAGE, imageRepository } from '../names';

export const IMAGE_COMMAND = 'image';

/** The build stage's image: Node and npm install the production dependencies there. */
export const DEFAULT_IMAGE_BASE = 'docker.io/library/node:20-bookworm-slim';
/** The runtime stage's image: Node at /nodejs/bin/node, no shell, no npm, user 65532. */
export const DEFAULT_IMAGE_RUNTIME = 'gcr.io/distroless/nodejs20-debian12:nonroot';
/** The engines looked for on PATH, in this order, when `--engine` names none. */
export const IMAGE_ENGINES = ['podman', 'docker'] as const;
/** The Containerfile in the package, relative to its root. */
export const CONTAINERFILE = path.join('image', 'Containerfile');

/** A failure the user can act on: one line, exit 1 (2 for a usage error). */
export class ImageBuildError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'ImageBuildError';
  }
}

export interface ImageBuildOptions {
  readonly tag: string;
  readonly base: string;
  readonly runtime: string;
  /** The engine's command: a name on PATH or a path. */
  readonly engine: string;
  readonly push: boolean;
  /** Arguments for `<engine> build`, before the context directory (what follows `--`). */
  readonly extra: readonly string[];
}

/** The build context's files, relative to it, sorted; dist/ counted rather than listed. */
export interface BuildContext {
  readonly dir: string;
  readonly files: readonly string[];
  readonly distFiles: number;
}

/** The package root's files the context is made of, or why they cannot be found. */
export function contextSources(root: string): { containerfile: string; lock: string; dist: string } {
  const containerfile = path.join(root, CONTAINERFILE);
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(containerfile))
    throw new ImageBuildError(`${containerfile} is missing: this copy of clusterset ships no Containerfile`);
  if (!fs.existsSync(path.join(dist, 'lib', 'cli', 'main.js')))
    throw new ImageBuildError(
      `${dist}/lib/cli/main.js is missing: the image runs the compiled package; in a checkout, run \`npm run build:js\` first`,
    );
  const lock = [path.join(root, 'package-lock.json'), path.join(dist, 'package-lock.json')].find((f) =>
    fs.existsSync(f),
  );
  if (!lock)
    throw new ImageBuildError(
      `neither ${root}/package-lock.json nor ${dist}/package-lock.json exists: the image installs the dependencies the lock pins`,
    );
  return { containerfile, lock, dist };
}

/** What of dist/ goes into the image: not declarations, build info or the lock copy. */
function inImage(rel: string): boolean {
  return !rel.endsWith('.d.ts') && !rel.endsWith('.tsbuildinfo') && rel !== 'package-lock.json';
}

/** Copies a file with its modification time, which an engine's layer cache may key on. */
function copyFile(from: string, to: string): void {
  fs.copyFileSync(from, to);
  const st = fs.statSync(from);
  fs.utimesSync(to, st.atime, st.mtime);
}

/**
 * Writes the build context into `dir` (created; it must be empty if it exists). Files keep their
 * modification times, so that an unchanged package hits the engine's layer cache.
 */
export function assembleContext(root: string, dir: string): BuildContext {
  const src = contextSources(root);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0)
    throw new ImageBuildError(`${dir} is not empty: give --context a new or empty directory`, 2);
  fs.mkdirSync(dir, { recursive: true });
  copyFile(src.containerfile, path.join(dir, 'Containerfile'));
  copyFile(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  copyFile(src.lock, path.join(dir, 'package-lock.json'));
  let distFiles = 0;
  fs.cpSync(src.dist, path.join(dir, 'dist'), {
    recursive: true,
    preserveTimestamps: true,
    filter: (from) => {
      const rel = path.relative(src.dist, from);
      if (rel === '' || fs.statSync(from).isDirectory()) return true;
      if (!inImage(rel)) return false;
      distFiles++;
      return true;
    },
  });
  return { dir, files: ['Containerfile', 'package-lock.json', 'package.json'], distFiles };
}

/** The labels every image gets: what it is, its version and licence. */
export function imageLabels(): string[] {
  return [
    'org.opencontainers.image.title=clusterset',
    `org.opencontainers.image.version=${packageVersion}`,
    `org.opencontainers.image.licenses=${packageLicense}`,
  ];
}

/**
 * `<engine> build …` and, with --push, `<engine> push <tag>`, as argument lists; podman (`podman`
 * true) writes the pushed manifest's digest to `digestFile`.
 */
export function buildCommands(
  o: ImageBuildOptions,
  dir: string,
  digestFile?: { readonly podman: boolean; readonly file: string },
): string[][] {
  const build = [
    o.engine,
    'build',
    '--file',
    path.join(dir, 'Containerfile'),
    '--build-arg',
    `BASE=${o.base}`,
    '--build-arg',
    `RUNTIME=${o.runtime}`,
    ...imageLabels().flatMap((l) => ['--label', l]),
    '--tag',
    o.tag,
    ...o.extra,
    dir,
  ];
  const push = digestFile?.podman
    ? [o.engine, 'push', '--digestfile', digestFile.file, o.tag]
    : [o.engine, 'push', o.tag];
  return o.push ? [build, push] : [build];
}

/** Whether `engine` is podman (or a wrapper of it): `--version` says `podman version …`. */
function isPodman(engine: string): boolean {
  const r = spawnSync(engine, ['--version'], { encoding: 'utf8' });
  return r.status === 0 && /^podman\b/i.test(r.stdout.trim());
}

/** The repository `clusterset image build` pushes a tag to (names.ts). */
export const repositoryOf = imageRepository;

/**
 * The digest the registry gave the pushed image: podman's digest file, or, for docker, the entry of
 * the image's RepoDigests for the tag's repository.
 */
function pushedDigest(engine: string, tag: string, digestFile: string): string {
  let digest = '';
  if (fs.existsSync(digestFile)) digest = fs.readFileSync(digestFile, 'utf8').trim();
  else {
    const r = spawnSync(engine, ['image', 'inspect', '--format', '{{json .RepoDigests}}', tag], {
      encoding: 'utf8',
    });
    const repo = repositoryOf(tag);
    const entries = r.status === 0 ? (JSON.parse(r.stdout.trim() || '[]') as string[] | null) : [];
    digest = (entries ?? []).find((d) => d.startsWith(`${repo}@`))?.slice(repo.length + 1) ?? '';
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(digest))
    throw new ImageBuildError(
      `${engine} push ${tag} gave no digest to pin${digest ? ` (read ${JSON.stringify(digest)})` : ''}: the image is pushed; read its digest from the registry and pin <repository>@sha256:<digest> in reconciler.image`,
    );
  return digest;
}

/** One argument as a POSIX shell reads it back. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The first of `names` that is an executable file on PATH. */
export function onPath(names: readonly string[], pathVar = process.env.PATH ?? ''): string | undefined {
  const dirs = pathVar.split(path.delimiter).filter(Boolean);
  for (const name of names)
    for (const d of dirs) {
      try {
        fs.accessSync(path.join(d, name), fs.constants.X_OK);
        return name;
      } catch {
        // not here
      }
    }
  return undefined;
}

/** A tag `--tag` can take: a valid reference without a digest (the engine cannot tag by digest). */
export function checkTag(tag: string): void {
  if (tag.includes('@'))
    throw new ImageBuildError(
      `--tag ${tag} holds a digest: give <registry>/<path>:<tag>; the registry gives the digest when the image is pushed`,
      2,
    );
  if (!isImageReference(tag))
    throw new ImageBuildError(
      `--tag ${tag} is not a valid image reference: [registry[:port]/]lowercase/path[:tag], e.g. registry.example.com/platform/clusterset:${packageVersion}`,
      2,
    );
}

function run(argv: readonly string[]): void {
  process.stderr.write(`clusterset: image build: ${argv.map(shellQuote).join(' ')}\n`);
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', process.stderr, process.stderr] });
  if (r.error) throw new ImageBuildError(`${argv[0]} ${argv[1]}: ${r.error.message}`);
  if (r.status !== 0)
    throw new ImageBuildError(
      `${argv[0]} ${argv[1]} exited with ${r.status ?? r.signal}; its output is above`,
    );
}

function imageId(engine: string, tag: string): string {
  const r = spawnSync(engine, ['image', 'inspect', '--format', '{{.Id}}', tag], { encoding: 'utf8' });
  if (r.status !== 0) throw new ImageBuildError(`${engine} image inspect ${tag}: ${r.stderr.trim()}`);
  return r.stdout.trim().replace(/^sha256:/, '');
}

interface BuildArgs {
  tag: string;
  base: string;
  runtime: string;
  engine?: string;
  push: boolean;
  'dry-run': boolean;
  context?: string;
}

/** `image build`, given what followed `--` on the command line. */
export function imageBuild(a: BuildArgs, extra: readonly string[]): void {
  checkTag(a.tag);
  const found = a.engine ?? onPath(IMAGE_ENGINES);
  if (found === undefined && !a['dry-run'])
    throw new ImageBuildError(
      `neither ${IMAGE_ENGINES.join(' nor ')} is on PATH: install one, or name the engine with --engine`,
    );
  const o: ImageBuildOptions = {
    tag: a.tag,
    base: a.base,
    runtime: a.runtime,
    engine: found ?? IMAGE_ENGINES[0],
    push: a.push,
    extra,
  };
  const root = packageRoot();
  const keep = a['dry-run'] || a.context !== undefined;
  const dir =
    a.context !== undefined
      ? path.resolve(a.context)
      : fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-image-'));
  // Where podman writes the pushed digest: outside the build context.
  const digestFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-digest-')), 'digest');
  try {
    const ctx = assembleContext(root, dir);
    const commands = buildCommands(o, dir, {
      podman: isPodman(o.engine),
      file: a['dry-run'] ? '<digest file>' : digestFile,
    });
    if (a['dry-run']) {
      const lines = [
        `build context: ${dir} (from ${root})`,
        ...ctx.files.map((f) => `  ${f}`),
        `  dist/ (${ctx.distFiles} files)`,
        'would run:',
        ...commands.map((c) => `  ${c.map(shellQuote).join(' ')}`),
        '',
      ];
      process.stdout.write(lines.join('\n'));
      return;
    }
    run(commands[0]!);
    const id = imageId(o.engine, o.tag);
    if (!commands[1]) {
      process.stdout.write(`${o.tag} ${id}\n`);
      return;
    }
    run(commands[1]);
    const pinned = `${repositoryOf(o.tag)}@${pushedDigest(o.engine, o.tag, digestFile)}`;
    process.stderr.write(
      `clusterset: image build: pushed; pin this digest in the model, so that a tag moved in the registry never changes what runs: reconciler: { image: '${pinned}' }\n`,
    );
    process.stdout.write(`${o.tag} ${id} ${pinned}\n`);
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.dirname(digestFile), { recursive: true, force: true });
  }
}

/** `clusterset image build`, with `extra` (what followed `--`) passed to the engine's build. */
export function imageCommand(extra: readonly string[] = []): CommandModule {
  return {
    command: IMAGE_COMMAND,
    describe: 'build (and push) the reconciler image from this package, with podman or docker',
    builder: (y: Argv) =>
      y
        .command({
          command: 'build',
          describe: 'build the reconciler image from this package; --push pushes it',
          builder: (b: Argv) =>
            b
              .usage('$0 image build [options] [-- <engine build options>]')
              .option('tag', {
                type: 'string',
                default: DEFAULT_RECONCILER_IMAGE,
                describe: 'the image reference to build and push: what reconciler.image names',
              })
              .option('base', {
                type: 'string',
                default: DEFAULT_IMAGE_BASE,
                describe: 'image of the build stage: Node 20.19+ and npm install the dependencies',
              })
              .option('runtime', {
                type: 'string',
                default: DEFAULT_IMAGE_RUNTIME,
                describe: 'image of the runtime stage: distroless layout, node at /nodejs/bin/node',
              })
              .option('engine', {
                type: 'string',
                describe: `the engine: a command or path (default: ${IMAGE_ENGINES.join(', then ')}, the first on PATH)`,
              })
              .option('push', { type: 'boolean', default: false, describe: 'push the image once built' })
              .option('dry-run', {
                type: 'boolean',
                default: false,
                describe: 'assemble the build context and print it and the commands; build nothing',
              })
              .option('context', {
                type: 'string',
                describe: 'write the build context here and keep it (default: a temporary directory)',
              })
              .example(
                `$0 image build --tag registry.example.com/platform/clusterset:${packageVersion} --push`,
                'build and push the image reconciler.image names',
              )
              .example('$0 image build --dry-run', 'print the build context and the command line')
              .example('$0 image build -- --network=host', 'pass options to `podman build`'),
          handler: (a) => imageBuild(a as unknown as BuildArgs, extra),
        })
        .demandCommand(1, 'name the action: build'),
    handler: () => undefined,
  };
}
