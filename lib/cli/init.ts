/**
 * `clusterset init [dir]`: scaffolds a gitops repository (lib/init.ts) and renders its out/ once, so
 * the first commit already passes its own CI check. Refuses to overwrite anything unless --force,
 * and then writes nothing at all.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandModule } from 'yargs';
import type * as Compile from '../compile';
import { formatDiagnostic } from '../diagnostics';
import { MODEL_FILE, mergePackageJson, packageNameFrom, scaffold } from '../init';
import {
  declaredSpec,
  git,
  GIT_INSTALL_WHY,
  installSource,
  isGitSpec,
  PACK_INSTEAD,
  sshUrl,
} from '../install-source';
import { loadModel } from '../load';
import { EXIT_MODEL } from './model';
import { writeOut } from '../fs/write';

interface InitArgs {
  dir: string;
  'set-id': string;
  'repo-url'?: string;
  branch?: string;
  from?: string;
  force: boolean;
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
        describe:
          'how package.json names the clusterset dependency (file:…tgz, a tarball URL, a registry range; not a git URL, which installs no dist/); default: what this clusterset was installed from',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'overwrite files that exist (package.json is merged: its clusterset spec and other fields stay)',
      }) as never,
  handler: (a) => {
    const dir = path.resolve(a.dir);
    const origin = git(dir, ['remote', 'get-url', 'origin']);
    // Argo CD and Flux need an ssh:// URL where git remotes often say user@host:path.
    const given = a['repo-url'] ?? origin;
    const repoURL =
      given !== undefined ? sshUrl(given) : `https://git.example.com/platform/${path.basename(dir)}.git`;
    const pkgFile = path.join(dir, 'package.json');
    let existingPkg: Record<string, unknown> | undefined;
    if (fs.existsSync(pkgFile)) {
      try {
        existingPkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as Record<string, unknown>;
      } catch (e) {
        process.stderr.write(
          `clusterset: ${pkgFile} is not JSON (${(e as Error).message}); nothing was written\n`,
        );
        process.exitCode = EXIT_MODEL;
        return;
      }
    }
    // The spec: --from; else the one package.json already declares; else how this copy was installed.
    const declared = declaredSpec(existingPkg);
    const source =
      a.from !== undefined
        ? { spec: a.from, how: 'as --from says', notes: [] }
        : declared !== undefined
          ? { spec: declared.spec, how: 'the spec package.json declares, kept', notes: [] }
          : installSource(dir);
    if (a.from !== undefined && isGitSpec(a.from)) {
      process.stderr.write(
        `clusterset: --from ${a.from}: ${GIT_INSTALL_WHY}; nothing was written.\nInstead, ${PACK_INSTEAD}.\n`,
      );
      process.exitCode = EXIT_MODEL;
      return;
    }
    if (source.spec === undefined) {
      process.stderr.write(
        [
          `clusterset: cannot tell where this clusterset was installed from: ${source.why}; nothing was written.`,
          'Say what the repository should install it from with --from SPEC: a tarball in the repository',
          `(${PACK_INSTEAD}), a tarball URL CI can reach,`,
          'or, once clusterset is on your npm registry, a range (--from ^<version>).',
          '',
        ].join('\n'),
      );
      process.exitCode = EXIT_MODEL;
      return;
    }
    const options = {
      packageName: packageNameFrom(path.basename(dir)),
      clusterSetId: a['set-id'],
      repoURL,
      branch: a.branch ?? git(dir, ['symbolic-ref', '--short', 'HEAD']) ?? 'main',
      clustersetSpec: source.spec,
    };
    const files = new Map(scaffold(options));
    const merge = existingPkg && mergePackageJson(existingPkg, options, a.from !== undefined);
    if (merge) files.set('package.json', merge.content);
    // An existing package.json is merged, so it is in the way only where the merge would replace a script.
    const existing = [...files.keys(), 'out'].filter(
      (f) => fs.existsSync(path.join(dir, f)) && (f !== 'package.json' || (merge?.replaced.length ?? 0) > 0),
    );
    if (existing.length > 0 && !a.force) {
      const what = existing.map((f) =>
        f === 'package.json' ? `package.json (scripts ${merge?.replaced.join(', ')})` : f,
      );
      process.stderr.write(
        `clusterset: ${dir} already has ${what.join(', ')}; nothing was written (use --force to overwrite)\n`,
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
      ...[...files.keys(), 'out/'].map(
        (f) => `  ${f}${f === 'package.json' && merge ? ' (merged into the existing one)' : ''}`,
      ),
      `package.json depends on clusterset ${merge?.spec ?? source.spec}: ${source.how}`,
    ];
    if (merge && merge.kept.length > 0)
      lines.push(`kept from the existing package.json: ${merge.kept.join('; ')}`);
    if (merge && merge.replaced.length > 0)
      lines.push(`replaced its scripts ${merge.replaced.join(', ')} (--force)`);
    lines.push(...source.notes.map((n) => `note: ${n}`));
    lines.push(
      '',
      'Next:',
      '  npm install',
      `  edit ${MODEL_FILE} (your clusters), then npm run synth and commit`,
    );
    if (!a['repo-url'] && !origin) {
      lines.push(`  set delivery.repoURL in ${MODEL_FILE}: no origin remote, so it is ${repoURL}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
