/**
 * Where the running clusterset was installed from, as a dependency spec another repository can
 * install it from: what `clusterset init` writes into the scaffold's package.json when `--from`
 * does not say. Never a guess: the spec comes from what npm recorded when it installed this copy,
 * or from the git checkout it runs from; when neither says, there is no spec and init refuses.
 *
 * The rule, in order:
 *
 * 1. The project that installed this copy: the first directory D, among the ancestors of this
 *    package, of the target directory and of the working directory, whose `node_modules/clusterset`
 *    is this package (same real path: a copy, npx's cache, a global install, or a `file:` link to a
 *    checkout). npm's record of it is the lock entry `packages["node_modules/clusterset"]` in D's
 *    `npm-shrinkwrap.json`, `package-lock.json` or `node_modules/.package-lock.json` (`resolved`,
 *    `link`, `version`), with the spec D's package.json declares; npm 6 wrote `_resolved` into the
 *    installed package.json instead. What `resolved` says:
 *    - `link: true` (a `file:` directory) or `file:…` (a tarball or directory): `file:` and the same
 *      path, relative to the target directory (npm records it relative to D);
 *    - `git+ssh:`, `git+https:`, `git:` …: no spec (GIT_INSTALL_WHY): such a copy has no dist/;
 *    - an http(s) URL: a tarball URL when D declared a URL, else the registry (`^<version>`, or the
 *      `npm:` alias D declared). Without a declared spec, only a registry's tarball path
 *      (`…/clusterset/-/clusterset-<version>.tgz`) counts as the registry.
 *    Without a `resolved`, a declared `file:`, git or URL spec is itself the source.
 * 2. A git checkout (clusterset run from its sources): no spec either, for the same reason; the
 *    reason says to pack a tarball there.
 * 3. Otherwise: no spec, and why.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PACKAGE_NAME = 'clusterset';

/**
 * Why a git URL is no source to install clusterset from: npm builds a git dependency only by running
 * its `prepare` script, and clusterset has none (it builds dist/ in `prepack`, so that an installed
 * package runs no install script), so the copy npm installs has no dist/ and does not run.
 */
export const GIT_INSTALL_WHY =
  'a git URL installs clusterset without dist/ (npm builds a git dependency only through a `prepare` script, which clusterset has not), so it would not run';

/** What to do instead of a git URL: pack a tarball in a checkout and install it from the repository. */
export const PACK_INSTEAD =
  'run `npm pack` in a clusterset checkout, commit the tarball (e.g. vendor/clusterset-<version>.tgz) and pass --from file:vendor/clusterset-<version>.tgz';

/** Whether a dependency spec is a git URL (git+ssh:, git+https:, git://, github:, …). */
export function isGitSpec(spec: string): boolean {
  return isGit(spec);
}

/** A spec and how it was found; or, when nothing says, why not. */
export type InstallSource =
  | {
      readonly spec: string;
      readonly how: string;
      readonly notes: readonly string[];
      readonly why?: undefined;
    }
  | { readonly spec?: undefined; readonly why: string };

/** What npm recorded about one installed copy (lock entry, declared spec). */
export interface InstallRecord {
  /** The spec the installing project's package.json declares for clusterset. */
  readonly declared?: string;
  /** The lock entry's `resolved` (or npm 6's `_resolved`). */
  readonly resolved?: string;
  /** The lock entry is a link to a directory (`npm install ../clusterset`). */
  readonly link?: boolean;
  /** The installed version. */
  readonly version?: string;
}

type Json = Record<string, unknown>;

function readJson(file: string): Json | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

function realpath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The dependency fields of package.json where a project may declare clusterset. */
export const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/** The spec package.json `pkg` declares for `name`, and in which field; undefined when none. */
export function declaredSpec(
  pkg: Json | undefined,
  name = PACKAGE_NAME,
): { field: (typeof DEPENDENCY_FIELDS)[number]; spec: string } | undefined {
  for (const field of DEPENDENCY_FIELDS) {
    const deps = pkg?.[field];
    const spec = typeof deps === 'object' && deps !== null ? str((deps as Json)[name]) : undefined;
    if (spec !== undefined) return { field, spec };
  }
  return undefined;
}

/** The output of a git command in dir, or undefined when dir is no repository or git fails. */
export function git(dir: string, args: string[]): string | undefined {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
}

/** `user@host:path` (git's scp-like syntax) as `ssh://user@host/path`; any other URL as it is. */
export function sshUrl(url: string): string {
  const m = /^([\w.+-]+@[^:/\s]+):(?!\/\/)(.+)$/.exec(url);
  return m ? `ssh://${m[1]}/${m[2]!.replace(/^\/+/, '')}` : url;
}

/** The root of the running package: the nearest ancestor with clusterset's package.json and bin/. */
export function packageRoot(from = __dirname): string {
  for (let d = from; ; d = path.dirname(d)) {
    if (
      str(readJson(path.join(d, 'package.json'))?.name) === PACKAGE_NAME &&
      fs.existsSync(path.join(d, 'bin'))
    )
      return d;
    if (path.dirname(d) === d) throw new Error(`no ${PACKAGE_NAME} package.json above ${from}`);
  }
}

const ancestors = (dir: string): string[] => {
  const out: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
};

/** The project whose node_modules/clusterset is the package at `root`, among `starts`' ancestors. */
export function installingProject(root: string, starts: readonly string[]): string | undefined {
  const real = realpath(root);
  const seen = new Set<string>();
  for (const start of starts) {
    for (const d of ancestors(start)) {
      if (seen.has(d)) continue;
      seen.add(d);
      if (path.basename(d) === 'node_modules') continue;
      if (realpath(path.join(d, 'node_modules', PACKAGE_NAME)) === real) return d;
    }
  }
  return undefined;
}

const LOCKS = ['npm-shrinkwrap.json', 'package-lock.json', path.join('node_modules', '.package-lock.json')];

/** What npm recorded in `project` about its node_modules/clusterset, and the lock that said it. */
export function installRecord(project: string, root: string): { record: InstallRecord; source: string } {
  const declared = declaredSpec(readJson(path.join(project, 'package.json')))?.spec;
  for (const lock of LOCKS) {
    const packages = readJson(path.join(project, lock))?.packages as Json | undefined;
    const entry = packages?.[`node_modules/${PACKAGE_NAME}`] as Json | undefined;
    if (entry === undefined) continue;
    const record = {
      declared: declared ?? declaredSpec(packages?.[''] as Json | undefined)?.spec,
      resolved: str(entry.resolved),
      link: entry.link === true,
      version: str(entry.version),
    };
    return { record, source: path.join(project, lock) };
  }
  const installed = readJson(path.join(root, 'package.json'));
  return {
    record: { declared, resolved: str(installed?._resolved), version: str(installed?.version) },
    source: path.join(project, 'package.json'),
  };
}

const isUrl = (s: string): boolean => /^https?:\/\//.test(s);
const isGit = (s: string): boolean =>
  /^(git(\+[a-z]+)?:\/\/|git\+[a-z]+:|github:|gitlab:|bitbucket:)/.test(s);

/** A path as `file:` spec relative to `target` (npm's own spelling, forward slashes). */
function fileSpec(abs: string, target: string): string {
  const rel = path.relative(target, abs).split(path.sep).join('/');
  return `file:${rel === '' ? '.' : rel}`;
}

/**
 * The spec `target` should depend on for a copy installed into `project` as `record` says, and
 * what kind of source it is; undefined when the record does not say.
 */
export function specFromRecord(
  record: InstallRecord,
  project: string,
  target: string,
): { spec: string; kind: string; path?: string } | undefined {
  const { declared, resolved, version } = record;
  const local = (p: string): { spec: string; kind: string; path: string } => {
    const abs = path.resolve(project, p);
    const kind = /\.(tgz|tar\.gz|tar)$/.test(abs) ? 'the tarball' : 'the directory';
    return { spec: fileSpec(abs, target), kind, path: abs };
  };
  if (resolved !== undefined) {
    if (record.link === true) return local(resolved.replace(/^file:/, ''));
    if (resolved.startsWith('file:')) return local(resolved.slice('file:'.length));
    if (isGit(resolved)) return { spec: resolved, kind: 'the git repository' };
    if (isUrl(resolved)) {
      if (declared !== undefined && isUrl(declared)) return { spec: resolved, kind: 'the tarball URL' };
      if (declared?.startsWith('npm:')) return { spec: declared, kind: 'the npm registry' };
      const registryPath = version !== undefined && resolved.endsWith(`/-/${PACKAGE_NAME}-${version}.tgz`);
      if (version !== undefined && (declared !== undefined || registryPath))
        return { spec: `^${version}`, kind: 'the npm registry' };
      return { spec: resolved, kind: 'the tarball URL' };
    }
    return undefined;
  }
  if (declared === undefined) return undefined;
  if (declared.startsWith('file:')) return local(declared.slice('file:'.length));
  if (isGit(declared)) return { spec: declared, kind: 'the git repository' };
  if (isUrl(declared)) return { spec: declared, kind: 'the tarball URL' };
  return undefined;
}

/** The note for a local path a fresh clone of `target` would not have. */
function outsideNote(abs: string, target: string, spec: string): string | undefined {
  const rel = path.relative(target, abs);
  if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return undefined;
  return `${spec} is outside ${target}: a fresh clone (CI) will not have it; commit the tarball into the repository (e.g. vendor/) and install it from there, or pass --from with a URL CI can reach`;
}

/** Where the package at `root` came from, as a spec for a repository at `target` (rule above). */
export function installSource(target: string, root = packageRoot(), cwd = process.cwd()): InstallSource {
  const project = installingProject(root, [root, target, cwd]);
  if (project !== undefined) {
    const { record, source } = installRecord(project, root);
    const found = specFromRecord(record, project, target);
    if (found !== undefined && isGit(found.spec)) {
      return {
        why: `npm installed it from the git repository ${found.spec} (${source}), but ${GIT_INSTALL_WHY}`,
      };
    }
    if (found !== undefined) {
      const where = found.path === undefined ? '' : ` ${found.path}`;
      const note = found.path === undefined ? undefined : outsideNote(found.path, target, found.spec);
      return {
        spec: found.spec,
        how: `installed from ${found.kind}${where} (${source})`,
        notes: note ? [note] : [],
      };
    }
    return {
      why: `${source} records no source npm installed it from (resolved ${record.resolved ?? 'missing'}, declared ${record.declared ?? 'nothing'})`,
    };
  }
  if (!fs.existsSync(path.join(root, '.git'))) {
    return {
      why: `no project here installed it (no node_modules/${PACKAGE_NAME} is ${root}) and it is no git checkout`,
    };
  }
  return {
    why: `it runs from the git checkout ${root}, and ${GIT_INSTALL_WHY}: run \`npm pack\` in ${root}`,
  };
}
