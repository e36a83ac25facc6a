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
import { ownSpec, sshUrl } from '../../lib/cli/init';
import { MODEL_FILE, WORKFLOW_FILE, packageNameFrom, scaffold } from '../../lib/init';
import { loadYaml } from '../../lib/yaml';

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
  assert.match(r.stderr, /already has package\.json, tsconfig\.json, clusterset\.ts/);
  assert.match(fs.readFileSync(path.join(repo, MODEL_FILE), 'utf8'), /\/\/ edited\n$/);
});

test('GIVEN an invalid ClusterSet ID WHEN init runs THEN it reports the model path and writes nothing', () => {
  const dir = freshRepo();
  const r = run(bin, ['init', dir, '--set-id', 'Not_Valid'], dir);
  assert.is(r.status, 2);
  assert.match(r.stderr, /clusterSetId: .*Not_Valid/);
  assert.equal(fs.readdirSync(dir), ['.git']);
});

test('GIVEN clusterset from a git checkout WHEN init picks the dependency THEN it pins the origin and commit', () => {
  const dir = freshRepo();
  fs.writeFileSync(path.join(dir, 'package.json'), '{"version": "1.2.3"}');
  assert.equal(ownSpec(dir).spec, '^1.2.3');
  assert.match(ownSpec(dir).note ?? '', /pass --from/);
  run(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'x'],
    dir,
  );
  const sha = run('git', ['rev-parse', 'HEAD'], dir).stdout.trim();
  run('git', ['remote', 'add', 'origin', 'git@git.example.com:platform/clusterset.git'], dir);
  assert.equal(ownSpec(dir), { spec: `git+ssh://git@git.example.com/platform/clusterset.git#${sha}` });
  run('git', ['remote', 'set-url', 'origin', 'https://git.example.com/platform/clusterset.git'], dir);
  assert.equal(ownSpec(dir), { spec: `git+https://git.example.com/platform/clusterset.git#${sha}` });
  fs.rmSync(path.join(dir, '.git'), { recursive: true });
  assert.equal(ownSpec(dir), { spec: '^1.2.3' }, 'an installed package asks for its version');
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

test('sshUrl() rewrites scp-like remotes only', () => {
  assert.is(sshUrl('git@github.com:org/repo.git'), 'ssh://git@github.com/org/repo.git');
  assert.is(sshUrl('deploy@git.internal:/srv/git/fleet.git'), 'ssh://deploy@git.internal/srv/git/fleet.git');
  assert.is(sshUrl('https://github.com/org/repo.git'), 'https://github.com/org/repo.git');
  assert.is(sshUrl('ssh://git@github.com/org/repo.git'), 'ssh://git@github.com/org/repo.git');
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

test.run();
