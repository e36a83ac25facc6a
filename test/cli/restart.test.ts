/**
 * `clusterset restart-member-controller` (what each member's restart Job runs) as a user calls it,
 * without a cluster: usage problems exit 2 before anything is read, an unreachable API server
 * exits 1 with one line, `--help` lists the command and its flags.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin, type Ran } from '../helpers/cli';
import { writeKubeconfig } from '../helpers/kubeconfig';

const root = path.resolve(__dirname, '..', '..');
const CMD = 'restart-member-controller';
const SUM = 'clusterset/tiers-checksum=' + 'a'.repeat(64);

function run(args: string[], env: NodeJS.ProcessEnv = {}): Ran {
  const base = { ...process.env };
  // Never the in-cluster credentials of a CI Pod, never the developer's kubeconfig.
  delete base.KUBERNETES_SERVICE_HOST;
  return runBin(args, {
    env: { ...base, KUBECONFIG: path.join(os.tmpdir(), 'clusterset-no-such-kubeconfig'), ...env },
    timeout: 60_000,
  });
}

/** A kubeconfig whose one context points at a closed port. */
function kubeconfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-restart-cli-'));
  return writeKubeconfig(path.join(dir, 'kubeconfig'), {
    clusters: [
      { name: 'east', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } },
    ],
    users: [{ name: 'u', user: { token: 'not-a-token' } }],
    contexts: [{ name: 'east', context: { cluster: 'east', user: 'u' } }],
    'current-context': 'east',
  });
}

test('fails GIVEN no --annotation WHEN run THEN the command help and the missing flag, exit 2, nothing read', () => {
  const r = run([CMD, '--kubeconfig', kubeconfig(), '--namespace', 'kube-system']);
  assert.is(r.status, 2, r.stderr);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^clusterset restart-member-controller\n/);
  assert.match(r.stderr, /\nMissing required argument: annotation\n$/);
});

test('fails GIVEN no --namespace WHEN run THEN exit 2 naming it', () => {
  const r = run([CMD, '--kubeconfig', kubeconfig(), '--annotation', SUM]);
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /Missing required argument: namespace/);
});

test('fails GIVEN a malformed or repeated --annotation WHEN run THEN one line naming it, exit 2, before any request', () => {
  for (const [flags, message] of [
    [['no-equals-sign'], '--annotation "no-equals-sign": expected KEY=VALUE with a valid annotation key'],
    [['Bad Key=1'], '--annotation "Bad Key=1": expected KEY=VALUE with a valid annotation key'],
    [[SUM, SUM], '--annotation clusterset/tiers-checksum is given twice'],
  ] as const) {
    const r = run([
      CMD,
      '--kubeconfig',
      kubeconfig(),
      '--namespace',
      'kube-system',
      ...flags.flatMap((f) => ['--annotation', f]),
    ]);
    assert.is(r.status, 2, r.stderr);
    assert.is(r.stdout, '');
    assert.is(r.stderr, `clusterset restart-member-controller: ${message}\n`);
  }
});

test('fails GIVEN a kubeconfig that cannot be read, or a context it lacks WHEN run THEN one line, exit 2', () => {
  const missing = run([
    CMD,
    '--kubeconfig',
    '/nonexistent/kubeconfig',
    '--namespace',
    'kube-system',
    '--annotation',
    SUM,
  ]);
  assert.is(missing.status, 2, missing.stderr);
  assert.match(
    missing.stderr,
    /^clusterset restart-member-controller: cannot read the kubeconfig \/nonexistent\/kubeconfig: .*\n$/,
  );
  assert.is(missing.stderr.split('\n').length, 2, 'one line');
  const context = run([
    CMD,
    '--kubeconfig',
    kubeconfig(),
    '--context',
    'west',
    '--namespace',
    'kube-system',
    '--annotation',
    SUM,
  ]);
  assert.is(context.status, 2, context.stderr);
  assert.is(
    context.stderr,
    'clusterset restart-member-controller: no context "west" in the kubeconfig (it has: east)\n',
  );
});

test('fails GIVEN a kubeconfig naming an unreachable API server WHEN run THEN exit 1 with one line naming the Deployment, nothing on stdout', () => {
  const r = run([CMD, '--kubeconfig', kubeconfig(), '--namespace', 'kube-system', '--annotation', SUM]);
  assert.is(r.status, 1, r.stderr);
  assert.is(r.stdout, '');
  assert.match(
    r.stderr,
    /^clusterset restart-member-controller: Deployment kube-system\/antrea-mc-controller: .+\n$/,
  );
  assert.is(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
  assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  // --deployment names another Deployment.
  const other = run([
    CMD,
    '--kubeconfig',
    kubeconfig(),
    '--namespace',
    'antrea-mc',
    '--deployment',
    'mc-controller',
    '--annotation',
    SUM,
  ]);
  assert.is(other.status, 1, other.stderr);
  assert.match(other.stderr, /^clusterset restart-member-controller: Deployment antrea-mc\/mc-controller: /);
});

test("GIVEN the command WHEN run THEN it loads the in-cluster runtime alone: none of the compiler's modules (cdk8s, the generated bindings, ajv, the renderers; js-yaml is client-node's)", () => {
  // In a fresh process: what the member's restart Job loads, the whole command run (it stops at a
  // malformed annotation, after the runtime is loaded).
  const script = [
    "const { run } = require('./lib/cli/main');",
    "process.on('exit', () => process.stdout.write(JSON.stringify(Object.keys(require.cache))));",
    "void run(['restart-member-controller', '--namespace', 'kube-system', '--annotation', 'bad']);",
  ].join('\n');
  const r = spawnSync(process.execPath, ['-r', 'tsx', '-e', script], { cwd: root, encoding: 'utf8' });
  assert.match(r.stderr, /expected KEY=VALUE/);
  const loaded = (JSON.parse(r.stdout) as string[]).map((f) => path.relative(root, f));
  assert.ok(loaded.includes(path.join('lib', 'reconciler', 'restart.ts')), 'not vacuous: the runtime ran');
  const compiler = loaded.filter(
    (f) =>
      /^node_modules\/(cdk8s|cdk8s-plus-33|constructs|ajv|ajv-formats)\//.test(f) ||
      f.startsWith('generated/') ||
      f === path.join('lib', 'cli', 'commands.ts') ||
      f === path.join('lib', 'compile.ts') ||
      (f.startsWith(path.join('lib', 'render') + path.sep) && f !== path.join('lib', 'render', 'util.ts')),
  );
  assert.equal(compiler, []);
});

test('GIVEN --help WHEN run THEN the command is listed; its own --help lists its flags', () => {
  const all = run(['--help']);
  assert.is(all.status, 0, all.stderr);
  assert.match(all.stdout, /^ {2}clusterset restart-member-controller\b/m);
  const own = run([CMD, '--help']);
  assert.is(own.status, 0, own.stderr);
  for (const flag of ['--kubeconfig', '--context', '--namespace', '--deployment', '--annotation'])
    assert.match(own.stdout, new RegExp(`^ {2}${flag}\\b`, 'm'), flag);
  assert.match(own.stdout, /\[default: "antrea-mc-controller"\]/);
});

test.run();
