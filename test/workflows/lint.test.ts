/**
 * The GitHub Actions workflows lint clean: actionlint (test/actionlint/build.sh, built from the Go
 * module proxy at the version test/actionlint/go.mod pins), with shellcheck over every `run:`
 * script, over this repository's .github/workflows and over the workflow `clusterset init` writes;
 * and release.yml releases what the leader bundle names (CONTRIBUTING.md, "Releasing").
 *
 * `npm run lint:workflows`; it needs Go (the first time) and Debian's shellcheck, as `.ci/run`
 * installs them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBuildScript } from '../helpers/go-build';
import { ACTIONLINT_VERSION, WORKFLOW_FILE } from '../../lib/init';
import { DEFAULT_RECONCILER_IMAGE } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';

const root = path.resolve(__dirname, '..', '..');
const workflowsDir = path.join(root, '.github', 'workflows');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  repository?: { url?: string };
};

/** The actionlint binary, built (or found in .cache/actionlint) once per run. */
const actionlintBin = runBuildScript(
  'test/actionlint/build.sh',
  "Cannot lint the workflows: 'go' is not installed (test/actionlint/build.sh builds actionlint once)",
);

function onPath(cmd: string): string | undefined {
  const r = spawnSync('bash', ['-c', 'command -v "$1"', '_', cmd], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}
const shellcheck = onPath('shellcheck');

interface Finding {
  readonly kind: string;
  readonly message: string;
  readonly filepath: string;
  readonly line: number;
}

/** actionlint over `files` (relative to `cwd`, a git repository), shellcheck on; its findings. */
function actionlint(cwd: string, files: readonly string[]): { status: number; findings: Finding[] } {
  assert.ok(shellcheck, 'shellcheck is on PATH (.ci/run installs Debian\'s "shellcheck")');
  const r = spawnSync(
    actionlintBin,
    ['-format', '{{json .}}', '-shellcheck', shellcheck, '-pyflakes=', ...files],
    { cwd, encoding: 'utf8' },
  );
  assert.ok(r.status === 0 || r.status === 1, `actionlint ran (exit ${r.status}): ${r.stderr}`);
  const out = r.stdout.trim();
  return { status: r.status, findings: out === '' ? [] : ((JSON.parse(out) as Finding[] | null) ?? []) };
}

function explain(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.filepath}:${f.line}: [${f.kind}] ${f.message}`).join('\n');
}

function workflowFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
}

const tmpDirs: string[] = [];
test.after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmpDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tmpDirs.push(dir);
  return dir;
}

function gitRepo(prefix: string): string {
  const dir = tmpDir(prefix);
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  return dir;
}

interface Step {
  readonly id?: string;
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly needs?: string | string[];
  readonly uses?: string;
  readonly permissions?: Record<string, string>;
  readonly env?: Record<string, string>;
  readonly steps?: Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly env?: Record<string, string>;
  readonly permissions?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

function workflow(file: string): Workflow {
  return loadYaml(fs.readFileSync(path.join(workflowsDir, file), 'utf8')) as Workflow;
}

function needs(job: Job): string[] {
  return job.needs === undefined ? [] : ([] as string[]).concat(job.needs);
}

test('GIVEN .github/workflows WHEN actionlint runs with shellcheck THEN it finds nothing', () => {
  const files = workflowFiles(workflowsDir);
  assert.equal(files, ['ci.yml', 'release.yml']);
  const r = actionlint(
    root,
    files.map((f) => path.join('.github', 'workflows', f)),
  );
  assert.is(r.findings.length, 0, explain(r.findings));
  assert.is(r.status, 0);
});

test('GIVEN a repository scaffolded by clusterset init WHEN actionlint runs over its workflows THEN it finds nothing', () => {
  const dir = gitRepo('cs-wf-init-');
  const init = spawnSync(
    path.join(root, 'bin', 'clusterset'),
    [
      'init',
      dir,
      '--set-id',
      'fleet',
      '--repo-url',
      'https://git.example.com/team/fleet.git',
      '--from',
      `file:${root}`,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.is(init.status, 0, init.stderr);
  const files = workflowFiles(path.join(dir, '.github', 'workflows')).map((f) =>
    path.join('.github', 'workflows', f),
  );
  assert.ok(files.includes(WORKFLOW_FILE), `init wrote ${WORKFLOW_FILE}`);
  const r = actionlint(dir, files);
  assert.is(r.findings.length, 0, explain(r.findings));
  assert.is(r.status, 0);
});

test('GIVEN the scaffold init writes THEN its workflow lints its workflows with the actionlint this repository pins', () => {
  const mod = fs.readFileSync(path.join(root, 'test', 'actionlint', 'go.mod'), 'utf8');
  const pinned = /^\s*github\.com\/rhysd\/actionlint (v\S+)/m.exec(mod)?.[1];
  assert.ok(pinned, 'test/actionlint/go.mod requires rhysd/actionlint');
  assert.is(ACTIONLINT_VERSION, pinned, 'lib/init.ts ACTIONLINT_VERSION is the pinned actionlint');
  const dir = gitRepo('cs-wf-step-');
  const init = spawnSync(
    path.join(root, 'bin', 'clusterset'),
    ['init', dir, '--set-id', 'fleet', '--from', `file:${root}`],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.is(init.status, 0, init.stderr);
  const wf = loadYaml(fs.readFileSync(path.join(dir, WORKFLOW_FILE), 'utf8')) as {
    jobs: Record<string, { steps: { run?: string; if?: string }[] }>;
  };
  const lint = Object.values(wf.jobs)
    .flatMap((j) => j.steps)
    .filter((s) => s.run === `go run github.com/rhysd/actionlint/cmd/actionlint@${pinned}`);
  assert.is(lint.length, 1, 'one step runs the pinned actionlint');
  assert.is(lint[0]!.if, undefined, 'on pushes and pull requests alike');
});

test('fails: GIVEN a workflow with an unquoted variable in a run: script and a misspelt context WHEN actionlint runs THEN it reports both', () => {
  const dir = gitRepo('cs-wf-bad-');
  fs.mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true });
  const file = path.join('.github', 'workflows', 'bad.yml');
  fs.writeFileSync(
    path.join(dir, file),
    [
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-24.04',
      '    steps:',
      '      - run: rm -rf $TARGET/out',
      '      - run: echo "${{ github.evnt_name }}"',
      '',
    ].join('\n'),
  );
  const r = actionlint(dir, [file]);
  assert.is(r.status, 1);
  const kinds = r.findings.map((f) => `${f.line} ${f.kind}`);
  assert.equal(kinds, ['6 shellcheck', '7 expression'], explain(r.findings));
  assert.match(r.findings[0].message, /SC2086/);
  assert.match(r.findings[1].message, /"evnt_name" is not defined/);
});

test('GIVEN the workflows THEN every action is pinned to a full commit SHA with its version beside it', () => {
  for (const file of workflowFiles(workflowsDir)) {
    const lines = fs.readFileSync(path.join(workflowsDir, file), 'utf8').split('\n');
    const uses = lines.filter((l) => /^\s*(-\s+)?uses:/.test(l) && !/uses:\s+\.\//.test(l));
    assert.ok(uses.length > 0, file);
    for (const l of uses) {
      assert.match(l, /uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/, `${file}: ${l.trim()}`);
    }
  }
});

test('GIVEN ci.yml THEN it runs .ci/run as root with a Go at least every test/*/go.mod asks for', () => {
  const ci = workflow('ci.yml');
  assert.ok('push' in ci.on && 'pull_request' in ci.on && 'workflow_call' in ci.on);
  const steps = ci.jobs.test.steps ?? [];
  assert.ok(steps.some((s) => /sudo env "PATH=\$PATH" .*bash \.ci\/run/.test(s.run ?? '')));
  const go = String(steps.find((s) => s.uses?.startsWith('actions/setup-go@'))?.with?.['go-version']);
  const parse = (v: string) => v.split('.').map(Number);
  const atLeast = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
    }
    return true;
  };
  const testDir = path.join(root, 'test');
  for (const d of fs.readdirSync(testDir)) {
    const mod = path.join(testDir, d, 'go.mod');
    if (!fs.existsSync(mod)) continue;
    const want = /^go (\S+)$/m.exec(fs.readFileSync(mod, 'utf8'))?.[1];
    assert.ok(want, mod);
    assert.ok(atLeast(parse(go), parse(want)), `ci.yml's Go ${go} is older than test/${d}/go.mod's ${want}`);
  }
});

test('GIVEN release.yml WHEN a tag is pushed THEN its version step passes for v<package.json version> and fails for another', () => {
  const rel = workflow('release.yml');
  assert.equal(rel.on, { push: { tags: ['v*'] } });
  const step = rel.jobs.version.steps?.find((s) => s.id === 'version');
  assert.ok(step?.run);
  const tmp = tmpDir('cs-wf-version-');
  const runStep = (tag: string) => {
    const output = path.join(tmp, `${tag}.out`);
    fs.writeFileSync(output, '');
    const r = spawnSync('bash', ['-e', '-c', step.run!], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, GITHUB_REF_NAME: tag, GITHUB_OUTPUT: output },
    });
    return { status: r.status, stdout: r.stdout, output: fs.readFileSync(output, 'utf8') };
  };
  const good = runStep(`v${pkg.version}`);
  assert.is(good.status, 0, good.stdout);
  assert.is(good.output, `version=${pkg.version}\n`);
  for (const tag of [`v${pkg.version}.1`, pkg.version, 'v9.9.9']) {
    const bad = runStep(tag);
    assert.is.not(bad.status, 0, tag);
    assert.match(bad.stdout, new RegExp(`::error::tag ${tag.replace(/\./g, '\\.')} is not v`));
    assert.is(bad.output, '', `${tag}: no version output`);
  }
});

test('GIVEN release.yml THEN it tests, pushes the image the leader bundle names, and only then publishes to npm with provenance', () => {
  const rel = workflow('release.yml');
  assert.equal(rel.permissions, { contents: 'read' });
  const { test: tests, image, npm } = rel.jobs;
  assert.is(tests.uses, './.github/workflows/ci.yml');
  // The image: ghcr.io/clusterset/clusterset:<version>, what DEFAULT_RECONCILER_IMAGE renders.
  assert.is(`${rel.env?.IMAGE}:${pkg.version}`, DEFAULT_RECONCILER_IMAGE);
  assert.equal(needs(image).sort(), ['test', 'version']);
  assert.equal(image.permissions, { contents: 'read', packages: 'write' });
  assert.is(image.env?.VERSION, '${{ needs.version.outputs.version }}');
  const imageRuns = (image.steps ?? []).map((s) => s.run ?? '').join('\n');
  // Built as the README tells a team to: `clusterset image build`, here with docker.
  assert.match(imageRuns, /npm run build:js\n/);
  assert.match(imageRuns, /node bin\/clusterset image build --engine docker --tag "\$IMAGE:\$VERSION" -- /);
  assert.match(imageRuns, /docker push "\$IMAGE:\$VERSION"/);
  const login = image.steps?.find((s) => s.uses?.startsWith('docker/login-action@'));
  assert.equal(login?.with, {
    registry: DEFAULT_RECONCILER_IMAGE.split('/')[0],
    username: '${{ github.actor }}',
    password: '${{ secrets.GITHUB_TOKEN }}',
  });
  // GITHUB_TOKEN pushes only to the namespace of the repository's owner.
  const owner = DEFAULT_RECONCILER_IMAGE.split('/')[1];
  assert.match(pkg.repository?.url ?? '', new RegExp(`github\\.com/${owner}/[\\w.-]+\\.git$`));
  // npm: after the image, so that no published version names an image that is not there.
  assert.equal(needs(npm).sort(), ['image', 'test', 'version']);
  assert.equal(npm.permissions, { contents: 'read', 'id-token': 'write' });
  const publish = npm.steps?.find((s) => s.run?.startsWith('npm publish'));
  assert.is(publish?.run, 'npm publish --provenance --access public');
  assert.equal(publish?.env, { NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
  const setupNode = npm.steps?.find((s) => s.uses?.startsWith('actions/setup-node@'));
  assert.is(setupNode?.with?.['registry-url'], 'https://registry.npmjs.org');
});

test.run();
