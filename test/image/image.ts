// The reconciler image for the end-to-end tests: built by test/image/build.sh with the packed
// package's `clusterset image build` (base images made offline, podman's layer cache), saved as an archive that
// containerd's `ctr -n k8s.io images import` takes, and podman itself as test/image/podman.sh runs
// it (state under .cache/podman).

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const PODMAN_SH = path.join(__dirname, 'podman.sh');
const BUILD_SH = path.join(__dirname, 'build.sh');

export interface BuiltImage {
  /** `ghcr.io/clusterset/clusterset:<package version>` (or $IMAGE_TAG). */
  readonly tag: string;
  /** The image ID: the digest of its config, `sha256:` left off (also containerd's config digest). */
  readonly id: string;
  /** Bytes, as `podman image inspect` reports Size (uncompressed layers). */
  readonly size: number;
  /** Wall-clock milliseconds of build.sh in this process (a cached build is a no-op). */
  readonly buildMs: number;
}

export interface Output {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; the result carries the exit code (or signal) and both outputs. */
export function run(
  cmd: string,
  args: readonly string[],
  echo = false,
  env?: Readonly<Record<string, string>>,
): Promise<Output> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => {
      err.push(b);
      if (echo) process.stderr.write(b);
    });
    child.once('error', reject);
    child.once('close', (code, sig) =>
      resolve({
        code: code ?? sig ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

function failed(what: string, r: Output): Error {
  const tail = r.stderr.trim().split('\n').slice(-40).join('\n');
  return new Error(`${what} exited with ${r.code}:\n${tail}`);
}

/** The arguments that run podman.sh (for spawning podman directly, e.g. an attached `run`). */
export function podmanCommand(args: readonly string[]): [string, string[]] {
  return ['bash', [PODMAN_SH, ...args]];
}

/** podman with the repository's configuration; resolves with the output whatever the exit code. */
export function podmanRun(args: readonly string[]): Promise<Output> {
  return run(...podmanCommand(args));
}

/** podman with the repository's configuration; resolves with stdout, rejects on a non-zero exit. */
export async function podman(args: readonly string[]): Promise<string> {
  const r = await podmanRun(args);
  if (r.code !== 0) throw failed(`podman ${args.join(' ')}`, r);
  return r.stdout;
}

/** The label on test containers: the PID of the test process that started them. */
export const TEST_PID_LABEL = 'clusterset.test.pid';

/** Removes the test containers whose test process is gone (killed before it could clean up). */
export function reapTestContainers(): void {
  const r = spawnSync(
    'bash',
    [
      PODMAN_SH,
      'ps',
      '--all',
      '--filter',
      `label=${TEST_PID_LABEL}`,
      '--format',
      `{{.Names}} {{index .Labels "${TEST_PID_LABEL}"}}`,
    ],
    { encoding: 'utf8' },
  );
  const dead = (r.stdout ?? '')
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter(([name, pid]) => name && pid && !fs.existsSync(`/proc/${Number(pid)}`))
    .map(([name]) => name!);
  removeContainersSync(dead);
}

/** Synchronous `podman rm -f` of containers, for exit handlers. */
export function removeContainersSync(names: readonly string[]): void {
  if (names.length > 0)
    spawnSync('bash', [PODMAN_SH, 'rm', '--force', '--time', '0', ...names], { stdio: 'ignore' });
}

let built: Promise<BuiltImage> | undefined;

/**
 * Builds the image (once per process; build.sh makes the base images if missing and reuses
 * podman's layer cache) and returns its tag, ID and size. Build logs go to stderr with
 * IMAGE_BUILD_LOGS=1; on failure the error carries their end.
 */
export function buildImage(): Promise<BuiltImage> {
  built ??= (async () => {
    const t0 = Date.now();
    const r = await run('bash', [BUILD_SH], process.env.IMAGE_BUILD_LOGS === '1');
    if (r.code !== 0) throw failed('test/image/build.sh', r);
    const last = r.stdout.trim().split('\n').pop() ?? '';
    const [tag, id] = last.split(' ');
    if (!tag || !id || !/^[0-9a-f]{64}$/.test(id)) throw new Error(`test/image/build.sh printed ${last}`);
    const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', id])).trim());
    return { tag, id, size, buildMs: Date.now() - t0 };
  })();
  return built;
}

/**
 * build.sh with `--push` to `tag` (a registry on loopback, which `registriesConf` lets podman reach
 * over plain http): resolves with the last stdout line, `<tag> <image ID> <repository>@<digest>`,
 * and stderr.
 */
export async function buildAndPush(tag: string, registriesConf: string): Promise<Output> {
  const r = await run('bash', [BUILD_SH], process.env.IMAGE_BUILD_LOGS === '1', {
    IMAGE_TAG: tag,
    IMAGE_PUSH: '1',
    CONTAINERS_REGISTRIES_CONF: registriesConf,
  });
  if (r.code !== 0) throw failed('test/image/build.sh (--push)', r);
  return r;
}

/**
 * Saves the image as a docker-archive tarball: `ctr -n k8s.io images import <file>` stores it under
 * its tag, with the image ID as config digest. By default the archive is cached as
 * .cache/image/archives/<ID>.tar (the only one kept there). Resolves with the file.
 */
export async function saveImage(image: BuiltImage, file?: string): Promise<string> {
  const out = file ?? path.join(ROOT, '.cache', 'image', 'archives', `${image.id}.tar`);
  if (!file && fs.existsSync(out)) return out;
  const now = (await podman(['image', 'inspect', '--format', '{{.Id}}', image.tag])).trim();
  if (now !== image.id) throw new Error(`${image.tag} is ${now} now, not the image ${image.id}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  // The tag names the image in the archive's manifest (RepoTags), which is what ctr names it by.
  await podman(['save', '--quiet', '--format', 'docker-archive', '--output', tmp, image.tag]);
  fs.renameSync(tmp, out);
  // Archives of earlier builds are of no use any more (each is the whole image).
  if (!file)
    for (const old of fs.readdirSync(path.dirname(out)))
      if (old.endsWith('.tar') && old !== path.basename(out)) fs.rmSync(path.join(path.dirname(out), old));
  return out;
}
