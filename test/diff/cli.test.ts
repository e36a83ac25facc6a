/**
 * `clusterset diff` and `synth --check` as a user runs them, on real files: a temporary git
 * repository whose project sits in a subfolder (so out/ is not at the repository top), with the
 * example synthesized and committed, then the model edited.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources, type Ran } from '../helpers/cli';

const root = path.resolve(__dirname, '..', '..');
const run = (args: string[], cwd: string): Ran => runSources(args, { cwd });

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-diff-'));
const project = path.join(repo, 'project');
fs.mkdirSync(project);
fs.copyFileSync(path.join(root, 'clusterset.ts'), path.join(project, 'clusterset.ts'));
fs.symlinkSync(path.join(root, 'lib'), path.join(project, 'lib'));
const CART_PORT = "ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],";
const example = fs.readFileSync(path.join(project, 'clusterset.ts'), 'utf8');
assert.ok(example.includes(CART_PORT), 'the example declares shop/cart on port 8080');
fs.writeFileSync(
  path.join(project, 'changed.ts'),
  example.replace(CART_PORT, "ports: [{ name: 'http', port: 9090, protocol: 'TCP' }],"),
);
const PORT_LINE =
  'Service shop/cart changes in all 4 members (central, east, edge, west): port http 8080/TCP → 9090/TCP';

test('GIVEN the example synthesized and committed in a subfolder of a git repository', () => {
  const r = run(['synth'], project);
  assert.is(r.status, 0, r.stderr);
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  assert.is(run(['diff', '--exit-code'], project).status, 0);
});

test('WHEN diff --base HEAD runs on an edited model THEN the markdown names the port change and the one touched cluster', () => {
  // A hand edit on disk must not matter: --base reads out/ from git.
  fs.appendFileSync(path.join(project, 'out', 'clusters', 'east', 'kustomization.yaml'), '# hand edit\n');
  const r = run(['diff', 'changed.ts', '--base', 'HEAD', '--format', 'markdown'], project);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /comparing with the \d+ files listed in \.clusterset-index of out\/ at HEAD/);
  assert.match(r.stdout, /^### clusterset diff: 1 of 5 clusters touched\n/);
  assert.ok(r.stdout.includes(`- ${PORT_LINE}`), r.stdout);
  assert.match(r.stdout, /`spec\.serviceImport\.spec\.ports\[http\]\.port: 8080 → 9090`/);
  assert.not.match(r.stdout, /clusters\/east/);
});

test('WHEN diff --exit-code runs against out/ on disk THEN it exits 1 and shows the hand edit too', () => {
  const r = run(['diff', 'changed.ts', '--exit-code'], project);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stdout, /this change touches 2 of 5 clusters \(east, hub\)/);
  assert.match(
    r.stdout,
    /clusters\/east: 1 other file\n {2}~ clusters\/east\/kustomization\.yaml \(formatting or comments only\)/,
  );
  assert.match(r.stdout, /- clusters\/east\/kustomization\.yaml differs from what synth writes/);
  const json = run(['diff', 'changed.ts', '--base', 'HEAD', '--format', 'json'], project);
  const doc = JSON.parse(json.stdout) as { version: number; touched: string[]; impact: { text: string }[] };
  assert.is(doc.version, 1);
  assert.equal(doc.touched, ['hub']);
  assert.ok(doc.impact.some((i) => i.text === PORT_LINE));
  git(repo, 'checkout', '-q', '--', '.');
});

test('fails with exit 2 GIVEN a revision that does not exist, or a broken model (with its diagnostics)', () => {
  const r = run(['diff', '--base', 'no-such-ref'], project);
  assert.is(r.status, 2);
  assert.match(r.stderr, /"no-such-ref" is not a commit/);
  fs.writeFileSync(path.join(project, 'broken.ts'), example.replace("id: 'east',", "id: 'East_1',"));
  const b = run(['diff', 'broken.ts'], project);
  assert.is(b.status, 2);
  assert.match(b.stderr, /clusters\[1\]\.id: .*\[cluster-id-format\]/);
  assert.is(b.stdout, '');
});

test('GIVEN out/ without an index THEN diff compares every file under it and says so', () => {
  const copy = path.join(project, 'copy');
  fs.cpSync(path.join(project, 'out'), copy, { recursive: true });
  fs.rmSync(path.join(copy, '.clusterset-index'));
  const r = run(['diff', '--out', 'copy'], project);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /copy\/ has no \.clusterset-index: comparing with all \d+ files under it/);
  // The index is missing on one side only; no object differs.
  assert.match(r.stdout, /this change touches no cluster bundle/);
  assert.match(r.stdout, /- nothing in terms of the ClusterSet: only bookkeeping files differ/);
  assert.match(r.stdout, /\n {2}\+ \.clusterset-index\n/);
});

test('fails GIVEN synth --check on a stale out/, printing the impact summary before the stale files', () => {
  const r = run(['synth', 'changed.ts', '--check'], project);
  assert.is(r.status, 1);
  const summary = r.stderr.indexOf(`  - ${PORT_LINE}`);
  const files = r.stderr.indexOf('  changed: clusters/hub/');
  assert.ok(summary > 0, r.stderr);
  assert.ok(files > summary, 'the summary comes before the list of stale files');
  assert.match(r.stderr, /Impact \(this change touches 1 of 5 clusters \(hub\)\):/);
});

test.run();
