/**
 * `clusterset init`, as a platform team uses it: scaffold into an empty git repository, install,
 * and the first synth, type check and CI check pass without any edit.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RECONCILER_IMAGE } from '../../lib/names';
import { MODEL_FILE, WORKFLOW_FILE, mergePackageJson, packageNameFrom, scaffold } from '../../lib/init';
import { installSource, specFromRecord, sshUrl } from '../../lib/install-source';
import { DEFAULT_ANTREA_VERSION } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import { FLEET_SCAFFOLD } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'clusterset');

function run(cmd: string, args: string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function freshRepo(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-init-'));
  assert.is(run('git', ['init', '-q', '-b', 'trunk', dir], dir).status, 0);
  return dir;
}

const repo = freshRepo();
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('GIVEN an empty git repository WHEN init runs THEN it scaffolds every file and renders out/', () => {
  run('git', ['remote', 'add', 'origin', 'https://git.example.com/team/fleet.git'], repo);
  const r = run(bin, ['init', repo, '--set-id', 'fleet', '--from', `file:${root}`], repo);
  assert.is(r.status, 0, r.stderr);
  for (const f of ['package.json', 'tsconfig.json', MODEL_FILE, WORKFLOW_FILE, '.gitignore', 'README.md']) {
    assert.ok(fs.existsSync(path.join(repo, f)), f);
  }
  assert.ok(fs.existsSync(path.join(repo, 'out', '.clusterset-index')));
  assert.ok(fs.readdirSync(path.join(repo, 'out', 'argocd')).length > 0, 'out/argocd is rendered');
  assert.not.ok(fs.existsSync(path.join(repo, 'out', 'flux')), 'one delivery tool: Argo CD, not both');
  const model = fs.readFileSync(path.join(repo, MODEL_FILE), 'utf8');
  // Delivery follows the repository it was scaffolded in: its origin and its current branch.
  assert.match(model, /repoURL: 'https:\/\/git\.example\.com\/team\/fleet\.git'/);
  assert.match(model, /branch: 'trunk'/);
  assert.match(model, /clusterSetId: 'fleet'/);
  // The release the compiler would pick anyway, written out so the choice is visible.
  assert.match(model, new RegExp(`antreaVersion: '${escape(DEFAULT_ANTREA_VERSION)}'`));
});

test('GIVEN the scaffold WHEN installed THEN synth --check passes and the model type-checks', () => {
  const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], repo);
  assert.is(install.status, 0, install.stderr);
  const check = run('npm', ['run', '-s', 'check'], repo);
  assert.is(check.status, 0, check.stderr);
  assert.match(check.stdout, /out\/ is up to date/);
  const typecheck = run('npm', ['run', '-s', 'typecheck'], repo);
  assert.is(typecheck.status, 0, typecheck.stdout + typecheck.stderr);
});

test('GIVEN the scaffold WHEN the model gets a type error THEN typecheck fails on that line', () => {
  const file = path.join(repo, MODEL_FILE);
  const good = fs.readFileSync(file, 'utf8');
  try {
    fs.writeFileSync(file, good.replace("clusterSetId: 'fleet'", 'clusterSetId: 42'));
    const r = run('npm', ['run', '-s', 'typecheck'], repo);
    assert.is.not(r.status, 0);
    assert.match(r.stdout, /clusterset\.ts\(\d+,\d+\): error TS2322/);
  } finally {
    fs.writeFileSync(file, good);
  }
});

test('GIVEN the scaffold WHEN its first commit is diffed against itself THEN nothing changes', () => {
  run('git', ['add', '-A'], repo);
  const c = run(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'],
    repo,
  );
  assert.is(c.status, 0, c.stderr);
  const status = run('git', ['status', '--porcelain'], repo);
  assert.is(status.stdout, '', 'node_modules is ignored and nothing is left uncommitted');
  const d = run(bin, ['diff', MODEL_FILE, '--base', 'HEAD', '--format', 'markdown'], repo);
  assert.is(d.status, 0, d.stderr);
  assert.match(d.stdout, /no change/i);
});

test('GIVEN the CI workflow WHEN parsed THEN it checks out/ and posts the markdown diff on pull requests', () => {
  const wf = loadYaml(fs.readFileSync(path.join(repo, WORKFLOW_FILE), 'utf8')) as {
    on: Record<string, unknown>;
    jobs: Record<
      string,
      { steps: { run?: string; if?: string; uses?: string; with?: Record<string, unknown> }[] }
    >;
  };
  assert.ok('pull_request' in wf.on && 'push' in wf.on);
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
  const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout'));
  assert.is(checkout?.with?.['fetch-depth'], 0, 'diff --base needs the base branch history');
  const runs = steps.map((s) => s.run ?? '');
  assert.ok(runs.some((r) => r.includes(`clusterset synth ${MODEL_FILE} --check --format github`)));
  const typecheck = steps.find((s) => s.run === 'npm run typecheck');
  assert.ok(typecheck, 'CI type-checks the model');
  assert.is(typecheck.if, undefined, 'on pushes and pull requests alike');
  const diff = steps.find((s) => s.run?.includes('clusterset diff'));
  assert.match(diff?.run ?? '', /--base "origin\/\$BASE_REF" --format markdown/);
  assert.is(diff?.if, "github.event_name == 'pull_request'");
  assert.ok(runs.some((r) => r.includes('gh pr comment')));
});

test('GIVEN a scaffolded directory WHEN init runs again THEN it refuses and changes nothing', () => {
  const before = fs.readFileSync(path.join(repo, MODEL_FILE), 'utf8');
  fs.writeFileSync(path.join(repo, MODEL_FILE), `${before}// edited\n`);
  const r = run(bin, ['init', repo], repo);
  assert.is(r.status, 2);
  // package.json is merged, not in the way: its scripts are the scaffold's already.
  assert.match(r.stderr, /already has tsconfig\.json, clusterset\.ts, .*out; nothing was written/);
  assert.match(fs.readFileSync(path.join(repo, MODEL_FILE), 'utf8'), /\/\/ edited\n$/);
});

test('GIVEN an invalid ClusterSet ID WHEN init runs THEN it reports the model path and writes nothing', () => {
  const dir = freshRepo();
  const r = run(bin, ['init', dir, '--set-id', 'Not_Valid', '--from', `file:${root}`], dir);
  assert.is(r.status, 2);
  assert.match(r.stderr, /clusterSetId: .*Not_Valid/);
  assert.equal(fs.readdirSync(dir), ['.git']);
});

test('GIVEN clusterset run from a git checkout WHEN init picks the dependency THEN it names none and says to pack a tarball (a git install has no dist/)', () => {
  const checkout = freshRepo();
  fs.writeFileSync(path.join(checkout, 'package.json'), '{"name": "clusterset", "version": "1.2.3"}');
  fs.mkdirSync(path.join(checkout, 'bin'));
  const target = freshRepo();
  const source = (): ReturnType<typeof installSource> => installSource(target, checkout, target);
  run('git', ['remote', 'add', 'origin', 'https://git.example.com/platform/clusterset.git'], checkout);
  assert.is(source().spec, undefined, 'never a git+ spec');
  assert.match(source().why ?? '', /git checkout .*without dist\/.*npm pack/);
  fs.rmSync(path.join(checkout, '.git'), { recursive: true });
  assert.match(source().why ?? '', /no git checkout/, 'no record, no checkout: no spec, never ^1.2.3');
});

test('GIVEN a copy npm installed from a git URL WHEN init picks the dependency THEN it names none: that copy has no dist/', () => {
  const project = freshRepo();
  const root = path.join(project, 'node_modules', 'clusterset');
  fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(root, 'package.json'), '{"name": "clusterset", "version": "0.1.0"}');
  const gitUrl = `git+ssh://git@github.com/org/clusterset.git#${'b'.repeat(40)}`;
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ devDependencies: { clusterset: 'github:org/clusterset' } }),
  );
  fs.writeFileSync(
    path.join(project, 'package-lock.json'),
    JSON.stringify({ packages: { 'node_modules/clusterset': { resolved: gitUrl, version: '0.1.0' } } }),
  );
  const s = installSource(project, root, project);
  assert.is(s.spec, undefined);
  assert.match(s.why ?? '', new RegExp(`git repository ${escape(gitUrl)}.*without dist/`));
});

test('specFromRecord() reads what npm records for each kind of source', () => {
  const project = '/srv/fleet';
  const from = (r: Parameters<typeof specFromRecord>[0], target = project): string | undefined =>
    specFromRecord(r, project, target)?.spec;
  // `npm install ./vendor/clusterset-0.1.0.tgz` in /srv/fleet, read for /srv/fleet and for /srv/other.
  const tarball = {
    declared: 'file:vendor/clusterset-0.1.0.tgz',
    resolved: 'file:vendor/clusterset-0.1.0.tgz',
  };
  assert.is(from(tarball), 'file:vendor/clusterset-0.1.0.tgz');
  assert.is(from(tarball, '/srv/other'), 'file:../fleet/vendor/clusterset-0.1.0.tgz');
  // `npm install ../clusterset`: a link; npm writes the path without file:.
  assert.is(
    from({ declared: 'file:../clusterset', resolved: '../clusterset', link: true }),
    'file:../clusterset',
  );
  // A git dependency: the commit npm checked out, not the branch or tag asked for.
  const sha = 'a'.repeat(40);
  const gitUrl = `git+ssh://git@github.com/org/clusterset.git#${sha}`;
  assert.is(from({ declared: 'github:org/clusterset#v0.1.0', resolved: gitUrl }), gitUrl);
  // A tarball URL, and the registry (the shape npm writes, as in this repository's own lock).
  const url = 'https://downloads.example.com/clusterset-0.1.0.tgz';
  assert.is(from({ declared: url, resolved: url, version: '0.1.0' }), url);
  const registry = 'https://registry.npmjs.org/clusterset/-/clusterset-0.1.0.tgz';
  assert.is(from({ declared: '~0.1.0', resolved: registry, version: '0.1.0' }), '^0.1.0');
  assert.is(from({ resolved: registry, version: '0.1.0' }), '^0.1.0', 'a global install: no declared spec');
  assert.is(from({ resolved: url, version: '0.1.0' }), url, 'not a registry path: the URL itself');
  const alias = 'npm:@acme/clusterset@^0.1.0';
  const aliased = 'https://npm.acme.example/@acme/clusterset/-/clusterset-0.1.0.tgz';
  assert.is(from({ declared: alias, resolved: aliased, version: '0.1.0' }), alias);
  // Nothing recorded but a range: no evidence of where it came from.
  assert.is(from({ declared: '^0.1.0' }), undefined);
  assert.is(from({}), undefined);
});

test('mergePackageJson() keeps what the user wrote and names what it would replace', () => {
  const o = {
    packageName: 'fleet',
    clusterSetId: 'fleet',
    repoURL: 'https://git.example.com/fleet.git',
    branch: 'main',
    clustersetSpec: 'file:elsewhere.tgz',
  };
  const existing = {
    name: 'platform-fleet',
    version: '3.0.0',
    scripts: { lint: 'eslint .', check: 'make check' },
    dependencies: { clusterset: 'file:vendor/clusterset-0.1.0.tgz', lodash: '^4.0.0' },
    devDependencies: { typescript: '~5.8.0' },
  };
  const m = mergePackageJson(existing, o, false);
  const pkg = JSON.parse(m.content) as typeof existing & { private: boolean; description: string };
  assert.is(m.spec, 'file:vendor/clusterset-0.1.0.tgz');
  assert.is(pkg.dependencies.clusterset, 'file:vendor/clusterset-0.1.0.tgz', 'kept where it was declared');
  assert.is(pkg.dependencies.lodash, '^4.0.0');
  assert.is(pkg.devDependencies.typescript, '~5.8.0');
  assert.is(pkg.name, 'platform-fleet');
  assert.is(pkg.version, '3.0.0');
  assert.is(pkg.private, true, 'added where the file had none');
  assert.is(pkg.scripts.lint, 'eslint .');
  assert.is(pkg.scripts.check, 'clusterset synth clusterset.ts --check');
  assert.equal(m.replaced, ['check']);
  assert.equal(m.kept, [
    'clusterset file:vendor/clusterset-0.1.0.tgz (dependencies)',
    'name',
    'typescript ~5.8.0',
    'scripts lint',
    'dependencies lodash',
    'version',
  ]);
  const overridden = mergePackageJson(existing, o, true);
  assert.is(overridden.spec, 'file:elsewhere.tgz');
  assert.is(
    (JSON.parse(overridden.content) as typeof existing).dependencies.clusterset,
    'file:elsewhere.tgz',
  );
});

test('GIVEN a repository whose origin is an scp-like git@host:path WHEN init runs THEN the model reads it as an ssh:// URL and renders', () => {
  const dir = freshRepo();
  run('git', ['remote', 'add', 'origin', 'git@git.example.com:team/fleet.git'], dir);
  const r = run(bin, ['init', dir, '--set-id', 'fleet', '--from', `file:${root}`], dir);
  assert.is(r.status, 0, r.stderr);
  assert.match(
    fs.readFileSync(path.join(dir, MODEL_FILE), 'utf8'),
    /repoURL: 'ssh:\/\/git@git\.example\.com\/team\/fleet\.git'/,
  );
  assert.ok(fs.existsSync(path.join(dir, 'out', 'clusters')));
});

test('GIVEN the starter model WHEN switched to Flux as its comment says THEN it renders Flux and not Argo CD', () => {
  const files = scaffold({
    packageName: 'fleet',
    clusterSetId: 'fleet',
    repoURL: 'https://git.example.com/team/fleet.git',
    branch: 'main',
    clustersetSpec: 'file:..',
  });
  const model = files.get(MODEL_FILE)!;
  assert.match(model, /For Flux instead: argocd: \{ enabled: false \}, flux: \{\}/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-init-flux-'));
  fs.symlinkSync(path.join(root, 'lib'), path.join(dir, 'lib'));
  const switched = model
    .replace("from 'clusterset'", "from './lib/model'")
    .replace('flux: { enabled: false },', 'argocd: { enabled: false },\n    flux: {},');
  fs.writeFileSync(path.join(dir, MODEL_FILE), switched);
  const r = run(bin, ['synth', MODEL_FILE], dir);
  assert.is(r.status, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'out', 'flux')));
  assert.not.ok(fs.existsSync(path.join(dir, 'out', 'argocd')));
});

// The package as a platform team gets it: `npm pack`, then installed into an empty git repository
// with an ssh origin; the tarball lives in the repository (vendor/) so that a fresh clone has it.
const packed = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-init-pack-'));
const fleet = path.join(packed, 'fleet');
let tarball = '';

function ok(r: { status: number; stdout: string; stderr: string }, what: string): void {
  assert.is(r.status, 0, `${what}: ${r.stdout}${r.stderr}`);
}
const readPackage = (dir: string): { devDependencies: Record<string, string>; [k: string]: unknown } =>
  JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
const npmInstall = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

test("GIVEN a tarball made with npm pack, installed into an empty git repository with an ssh origin, WHEN init runs THEN package.json keeps the tarball spec and the scaffold's own CI passes in a fresh clone", () => {
  const pack = run('npm', ['pack', '--silent', '--pack-destination', packed], root);
  ok(pack, 'npm pack');
  tarball = pack.stdout.trim().split('\n').pop()!;
  ok(run('git', ['init', '-q', '-b', 'main', fleet], packed), 'git init');
  ok(run('git', ['remote', 'add', 'origin', 'git@git.example.com:platform/fleet.git'], fleet), 'git remote');
  fs.mkdirSync(path.join(fleet, 'vendor'));
  fs.renameSync(path.join(packed, tarball), path.join(fleet, 'vendor', tarball));
  ok(run('npm', [...npmInstall, '--save-dev', `./vendor/${tarball}`], fleet), 'npm install the tarball');

  const init = run('npx', ['--no-install', 'clusterset', 'init', '--set-id', 'fleet'], fleet);
  ok(init, 'init');
  const spec = `file:vendor/${tarball}`;
  assert.is(readPackage(fleet).devDependencies.clusterset, spec);
  assert.match(init.stdout, new RegExp(`depends on clusterset ${escape(spec)}`));
  assert.match(
    fs.readFileSync(path.join(fleet, MODEL_FILE), 'utf8'),
    /repoURL: 'ssh:\/\/git@git\.example\.com\/platform\/fleet\.git'/,
  );

  // The next steps init prints (install, commit), then what the workflow runs, in a fresh clone.
  ok(run('npm', npmInstall, fleet), 'npm install');
  ok(run('git', ['add', '-A'], fleet), 'git add');
  ok(
    run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], fleet),
    'commit',
  );
  const clone = path.join(packed, 'clone');
  ok(run('git', ['clone', '-q', fleet, clone], packed), 'git clone');
  const wf = loadYaml(fs.readFileSync(path.join(clone, WORKFLOW_FILE), 'utf8')) as {
    jobs: Record<string, { steps: { run?: string; if?: string }[] }>;
  };
  // Every step that runs on a push (the pull-request steps need GitHub: the diff is tested above).
  const steps = Object.values(wf.jobs)
    .flatMap((j) => j.steps)
    .flatMap((s) => (s.run !== undefined && s.if === undefined ? [s.run] : []));
  assert.ok(steps.includes('npm ci'), 'CI installs from the lock');
  assert.ok(steps.some((s) => s.includes(`clusterset synth ${MODEL_FILE} --check`)));
  for (const step of steps) {
    // As GitHub Actions runs a `run:` step (bash -e -o pipefail); npm from its cache where it can.
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step], {
      cwd: clone,
      encoding: 'utf8',
      env: { ...process.env, npm_config_prefer_offline: 'true' },
    });
    ok({ status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, `CI step ${step}`);
  }
});

test('GIVEN clusterset installed in one repository WHEN it scaffolds another THEN the spec is the same tarball from there, with a note that a fresh clone lacks it', () => {
  assert.ok(tarball, 'packed by the test above');
  const other = freshRepo();
  const init = run(path.join(fleet, 'node_modules', '.bin', 'clusterset'), ['init', other], fleet);
  ok(init, 'init');
  const spec = `file:${path.relative(other, path.join(fleet, 'vendor', tarball))}`;
  assert.is(readPackage(other).devDependencies.clusterset, spec);
  assert.match(
    init.stdout,
    new RegExp(`installed from the tarball ${escape(path.join(fleet, 'vendor', tarball))}`),
  );
  assert.match(init.stdout, /note: .* is outside .*: a fresh clone \(CI\) will not have it/);
});

test('GIVEN the scaffolded repository WHEN init --force runs THEN it keeps the file: spec and the fields the user added, and says so', () => {
  assert.ok(tarball, 'packed by the test above');
  const pkg = readPackage(fleet);
  fs.writeFileSync(
    path.join(fleet, 'package.json'),
    JSON.stringify({
      ...pkg,
      author: 'platform team',
      scripts: { ...(pkg.scripts as object), lint: 'true' },
    }),
  );
  const r = run(bin, ['init', fleet, '--force'], fleet);
  ok(r, 'init --force');
  const after = readPackage(fleet);
  assert.is(after.devDependencies.clusterset, `file:vendor/${tarball}`);
  assert.is(after.author, 'platform team');
  assert.is((after.scripts as Record<string, string>).lint, 'true');
  assert.match(
    r.stdout,
    new RegExp(
      `kept from the existing package.json: clusterset ${escape(`file:vendor/${tarball}`)} \\(devDependencies\\)`,
    ),
  );
  assert.match(r.stdout, /scripts lint/);
  assert.match(r.stdout, /author/);
});

test('fails to scaffold when nothing records where clusterset came from: it names --from and writes nothing', () => {
  assert.ok(tarball, 'packed by the test above');
  const saved = ['package.json', 'package-lock.json', path.join('node_modules', '.package-lock.json')].map(
    (f) => [path.join(fleet, f), fs.readFileSync(path.join(fleet, f), 'utf8')] as const,
  );
  try {
    const pkg = readPackage(fleet);
    delete pkg.devDependencies.clusterset;
    fs.writeFileSync(path.join(fleet, 'package.json'), JSON.stringify(pkg));
    fs.rmSync(path.join(fleet, 'package-lock.json'));
    fs.rmSync(path.join(fleet, 'node_modules', '.package-lock.json'));
    const dir = freshRepo();
    const r = run(path.join(fleet, 'node_modules', '.bin', 'clusterset'), ['init', dir], fleet);
    assert.is(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /cannot tell where this clusterset was installed from: .*records no source/);
    assert.match(r.stderr, /--from SPEC/);
    assert.equal(fs.readdirSync(dir), ['.git']);
  } finally {
    for (const [file, content] of saved) fs.writeFileSync(file, content);
  }
});

test('GIVEN --from a git URL WHEN init runs THEN it is refused with the tarball way, and nothing is written', () => {
  const dir = freshRepo();
  const r = run(
    bin,
    ['init', dir, '--from', 'git+https://git.example.com/platform/clusterset.git#v0.1.0'],
    dir,
  );
  assert.is(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /without dist\//);
  assert.match(r.stderr, /npm pack/);
  assert.equal(fs.readdirSync(dir), ['.git']);
});

test('GIVEN the scaffolded repository WHEN init --force --from runs THEN the spec is replaced where it was declared', () => {
  assert.ok(tarball, 'packed by the test above');
  const spec = 'https://downloads.example.com/clusterset-0.1.0.tgz';
  const r = run(bin, ['init', fleet, '--force', '--from', spec], fleet);
  ok(r, 'init --force --from');
  assert.is(readPackage(fleet).devDependencies.clusterset, spec);
  assert.match(r.stdout, new RegExp(`depends on clusterset ${escape(spec)}: as --from says`));
});

test.after(() => fs.rmSync(packed, { recursive: true, force: true }));

test('sshUrl() rewrites scp-like remotes only', () => {
  assert.is(sshUrl('git@github.com:org/repo.git'), 'ssh://git@github.com/org/repo.git');
  assert.is(sshUrl('deploy@git.internal:/srv/git/fleet.git'), 'ssh://deploy@git.internal/srv/git/fleet.git');
  assert.is(sshUrl('https://github.com/org/repo.git'), 'https://github.com/org/repo.git');
  assert.is(sshUrl('ssh://git@github.com/org/repo.git'), 'ssh://git@github.com/org/repo.git');
});

test("GIVEN the README scaffold() writes WHEN it says how to change clusterset's version THEN it gives a tarball (or a registry version), as docs/installing.md does, never a git URL; and every `npm run` script and `npx clusterset` command it suggests exists", () => {
  const files = scaffold(FLEET_SCAFFOLD);
  const readme = files.get('README.md')!;
  const oneLine = (text: string): string => text.replace(/\s+/g, ' ');
  assert.not.match(oneLine(readme), 'tarball or git URL');
  assert.match(readme, 'npm install --save-dev ./vendor/clusterset-<version>.tgz');
  assert.match(
    oneLine(readme),
    'A git URL does not work: npm would install clusterset without its compiled `dist/`',
  );
  // The docs say the same: a git URL installs no dist/.
  assert.match(
    oneLine(fs.readFileSync(path.join(root, 'docs', 'installing.md'), 'utf8')),
    'A git URL does not work: npm builds a git dependency only by running its `prepare` script',
  );
  const scripts = (JSON.parse(files.get('package.json')!) as { scripts: Record<string, string> }).scripts;
  for (const [, name] of readme.matchAll(/npm run ([a-z:-]+)/g))
    assert.ok(
      scripts[name!] !== undefined,
      `npm run ${name}: the scaffold's package.json has no such script`,
    );
  const commands = new Set([...readme.matchAll(/npx clusterset ([a-z-]+)/g)].map((m) => m[1]!));
  assert.ok(commands.has('check'), 'the README names `npx clusterset check`, what `npm run check` runs');
  for (const c of commands) {
    // A command's own help starts with its usage; an unknown one gets the top-level help.
    const r = run(process.execPath, [bin, c, '--help'], root);
    assert.is(r.status, 0, `${c}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^clusterset ${c}\\b`), `clusterset ${c} is a command`);
  }
});

test('scaffold() is deterministic and package names are valid npm names', () => {
  const o = {
    packageName: 'x',
    clusterSetId: 'x',
    repoURL: 'https://git.example.com/x.git',
    branch: 'main',
    clustersetSpec: '^1.0.0',
  };
  assert.equal([...scaffold(o)], [...scaffold(o)]);
  assert.is(packageNameFrom('My Fleet (prod)'), 'my-fleet-prod');
  assert.is(packageNameFrom('___'), 'gitops');
  assert.is(packageNameFrom('.hidden'), 'hidden');
});

test('GIVEN the starter model THEN it says what reconciler.image is, that the default exists only with a release, and how to build, push and pin one', () => {
  const model = scaffold({
    packageName: 'fleet',
    clusterSetId: 'fleet',
    repoURL: 'https://git.example.com/team/fleet.git',
    branch: 'main',
    clustersetSpec: '^0.1.0',
  }).get('clusterset.ts')!;
  assert.match(model, `Unset, it\n  // is ${DEFAULT_RECONCILER_IMAGE}, which exists only once that release`);
  assert.match(model, /`npx clusterset image build --tag <registry>\/clusterset:[^ ]+ --push`/);
  assert.match(
    model,
    /\/\/ reconciler: \{ image: '<registry>\/clusterset@sha256:<digest>', imagePullSecrets: \['<Secret>'\] \},/,
  );
});

test.run();
