/**
 * `clusterset init [dir]`: scaffolds a gitops repository (lib/init.ts) and renders its out/ once, so
 * the first commit already passes its own CI check. Refuses to overwrite anything unless --force,
 * and then writes nothing at all.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandModule } from 'yargs';
import type * as Compile from '../compile';
import { formatDiagnostic } from '../diagnostics';
import { MODEL_FILE, packageNameFrom, scaffold } from '../init';
import { loadModel } from '../load';
import { EXIT_MODEL } from './model';
import { writeOut } from './write';

interface InitArgs {
  dir: string;
  'set-id': string;
  'repo-url'?: string;
  branch?: string;
  from?: string;
  force: boolean;
}

/** The output of a git command in dir, or undefined when dir is no repository or git fails. */
function git(dir: string, args: string[]): string | undefined {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
}

/** `user@host:path` (git's scp-like syntax) as `ssh://user@host/path`; any other URL as it is. */
export function sshUrl(url: string): string {
  const m = /^([\w.+-]+@[^:/\s]+):(?!\/\/)(.+)$/.exec(url);
  return m ? `ssh://${m[1]}/${m[2]!.replace(/^\/+/, '')}` : url;
}

/**
 * How the scaffold depends on clusterset when `--from` does not say: the way this copy was obtained.
 * A git checkout with an https or ssh origin gives `git+<origin>#<commit>` (exactly this code); an
 * installed package gives `^<version>`. A checkout without a shareable origin also gives the version
 * range, with a note, since a local path would only work on this machine.
 */
export function ownSpec(root = path.join(__dirname, '..', '..')): { spec: string; note?: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const range = `^${pkg.version}`;
  if (!fs.existsSync(path.join(root, '.git'))) return { spec: range };
  const origin = git(root, ['remote', 'get-url', 'origin']);
  const commit = git(root, ['rev-parse', 'HEAD']);
  const url = origin === undefined ? undefined : sshUrl(origin);
  if (url && commit && /^(https:\/\/|ssh:\/\/)/.test(url)) return { spec: `git+${url}#${commit}` };
  return {
    spec: range,
    note: `clusterset runs from a checkout without an https or ssh origin; package.json asks for ${range}: pass --from to say where to install it from`,
  };
}

export const initCommand: CommandModule<object, InitArgs> = {
  command: 'init [dir]',
  describe: 'scaffold a gitops repository: model, scripts, CI workflow, and its first out/',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', default: '.', describe: 'directory of the new repository' })
      .option('set-id', { type: 'string', default: 'my-set', describe: 'ClusterSet ID of the starter model' })
      .option('repo-url', {
        type: 'string',
        describe: 'git URL Argo CD and Flux read (default: the repository’s origin remote)',
      })
      .option('branch', {
        type: 'string',
        describe: 'branch they follow (default: the current branch, or main)',
      })
      .option('from', {
        type: 'string',
        describe: 'how package.json names the clusterset dependency (a version range, file:…, git+https:…)',
      })
      .option('force', { type: 'boolean', default: false, describe: 'overwrite files that exist' }) as never,
  handler: (a) => {
    const dir = path.resolve(a.dir);
    const origin = git(dir, ['remote', 'get-url', 'origin']);
    // Argo CD and Flux need an ssh:// URL where git remotes often say user@host:path.
    const given = a['repo-url'] ?? origin;
    const repoURL =
      given !== undefined ? sshUrl(given) : `https://git.example.com/platform/${path.basename(dir)}.git`;
    const own = a.from === undefined ? ownSpec() : { spec: a.from };
    const files = scaffold({
      packageName: packageNameFrom(path.basename(dir)),
      clusterSetId: a['set-id'],
      repoURL,
      branch: a.branch ?? git(dir, ['symbolic-ref', '--short', 'HEAD']) ?? 'main',
      clustersetSpec: a.from ?? own.spec,
    });
    const existing = [...files.keys(), 'out'].filter((f) => fs.existsSync(path.join(dir, f)));
    if (existing.length > 0 && !a.force) {
      process.stderr.write(
        `clusterset: ${dir} already has ${existing.join(', ')}; nothing was written (use --force to overwrite)\n`,
      );
      process.exitCode = EXIT_MODEL;
      return;
    }
    // Compile the starter before writing anything, so a bad --set-id costs nothing.
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-init-'));
    let result;
    try {
      fs.writeFileSync(path.join(scratch, MODEL_FILE), files.get(MODEL_FILE) ?? '');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { compile } = require('../compile') as typeof Compile;
      result = compile(loadModel(path.join(scratch, MODEL_FILE)));
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    if (result.diagnostics.length > 0) {
      process.stderr.write(
        `clusterset: the starter model does not compile with these options; nothing was written:\n`,
      );
      for (const d of result.diagnostics) process.stderr.write(`  ${formatDiagnostic(d)}\n`);
      process.exitCode = EXIT_MODEL;
      return;
    }
    for (const [rel, content] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), content);
    }
    writeOut(path.join(dir, 'out'), result.files);
    const lines = [
      `Scaffolded ${dir}:`,
      ...[...files.keys(), 'out/'].map((f) => `  ${f}`),
      `package.json depends on clusterset ${own.spec}`,
      '',
      'Next:',
      '  npm install',
      `  edit ${MODEL_FILE} (your clusters), then npm run synth and commit`,
    ];
    if (!a['repo-url'] && !origin) {
      lines.push(`  set delivery.repoURL in ${MODEL_FILE}: no origin remote, so it is ${repoURL}`);
    }
    if (own.note) lines.push(`  ${own.note}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
