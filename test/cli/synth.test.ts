/**
 * The CLI end to end, as a user runs it: synth, synth --check, validate, on real files in a
 * temporary directory.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources, type Ran } from '../helpers/cli';
import { loadYaml } from '../../lib/yaml';

const root = path.resolve(__dirname, '..', '..');
const run = (args: string[], cwd: string): Ran => runSources(args, { cwd });

function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

function workdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-cli-'));
  fs.copyFileSync(path.join(root, 'clusterset.ts'), path.join(dir, 'clusterset.ts'));
  // The example imports its types from ./lib/model; give the copy the same path.
  fs.symlinkSync(path.join(root, 'lib'), path.join(dir, 'lib'));
  return dir;
}

const dir = workdir();

test('GIVEN the example WHEN synth runs THEN out/ holds every bundle and a no-op re-synth writes nothing', () => {
  const first = run(['synth', 'clusterset.ts'], dir);
  assert.is(first.status, 0, first.stderr);
  assert.match(
    first.stdout,
    /5 clusters, \d+ objects \(\+\d+ delivery objects\): \d+ files written, 0 unchanged, 0 pruned/,
  );
  const second = run(['synth', 'clusterset.ts'], dir);
  assert.is(second.status, 0, second.stderr);
  assert.match(second.stdout, /out\/ is up to date: .* nothing compiled or written \(\d+ files/);
  const forced = run(['synth', 'clusterset.ts', '--force'], dir);
  assert.is(forced.status, 0, forced.stderr);
  assert.match(forced.stdout, / 0 files written, \d+ unchanged, 0 pruned/);
  assert.is(run(['synth', '--check'], dir).status, 0);
});

test('GIVEN out/ WHEN kubectl kustomize builds each cluster THEN it succeeds', () => {
  for (const c of fs.readdirSync(path.join(dir, 'out', 'clusters'))) {
    execFileSync('kubectl', ['kustomize', path.join(dir, 'out', 'clusters', c)], { encoding: 'utf8' });
  }
});

test('GIVEN out/ WHEN every file is scanned THEN no Secret carries data, stringData or a token', () => {
  const files = snapshot(path.join(dir, 'out'));
  let secrets = 0;
  for (const [rel, text] of files) {
    if (!rel.endsWith('.yaml')) continue;
    const o = loadYaml(text) as { kind?: string; data?: unknown; stringData?: unknown };
    if (o.kind === 'Secret') {
      secrets++;
      assert.is(o.data, undefined, `${rel} has data`);
      assert.is(o.stringData, undefined, `${rel} has stringData`);
    }
    assert.not.match(text, /eyJhbGciOi/, `${rel} holds something shaped like a JWT`);
    assert.not.match(text, /-----BEGIN [A-Z ]*(PRIVATE KEY|CERTIFICATE)-----/, `${rel} holds PEM material`);
  }
  assert.ok(secrets > 0, 'the example renders member token Secrets to scan');
});

test('fails and leaves out/ untouched GIVEN a broken model, with every diagnostic reported', () => {
  const before = snapshot(path.join(dir, 'out'));
  const broken = fs
    .readFileSync(path.join(dir, 'clusterset.ts'), 'utf8')
    .replace("id: 'east',", "id: 'East_1',")
    .replace("name: 'cart',", "name: 'cart-service-with-a-name-that-is-much-too-long-for-antrea',");
  fs.writeFileSync(path.join(dir, 'broken.ts'), broken);
  const r = run(['synth', 'broken.ts', '--out', 'out'], dir);
  assert.is(r.status, 2);
  assert.match(r.stderr, /nothing was written/);
  assert.match(r.stderr, /clusters\[1\]\.id/);
  assert.match(r.stderr, /services\[0\]\.name/);
  assert.equal(snapshot(path.join(dir, 'out')), before);
  assert.is(run(['validate', 'broken.ts'], dir).status, 2);
});

test('fails GIVEN --check WHEN out/ is stale, naming the stale file, and writes nothing', () => {
  const file = path.join(dir, 'out', 'clusters', 'east', 'kube-system', 'ClusterSet.prod-set.yaml');
  fs.appendFileSync(file, '# edited by hand\n');
  const edited = fs.readFileSync(file, 'utf8');
  const r = run(['synth', '--check'], dir);
  assert.is(r.status, 1);
  assert.match(r.stderr, /clusters\/east\/kube-system\/ClusterSet\.prod-set\.yaml/);
  assert.is(fs.readFileSync(file, 'utf8'), edited);
});

test('fails GIVEN --check WHEN out/ has a changed, a missing file and files of a dropped member THEN each format says which (added, changed, removed), and nothing is written', () => {
  const hub = path.join(dir, 'out', 'clusters', 'hub', 'antrea-multicluster');
  assert.is(run(['synth'], dir).status, 0);
  const changedRel = 'clusters/east/kube-system/ClusterSet.prod-set.yaml';
  const missing = fs.readdirSync(hub).find((f) => f.startsWith('ServiceAccount.'))!;
  const missingRel = `clusters/hub/antrea-multicluster/${missing}`;
  // The model without edge: its files are in out/ (and its index) but no longer rendered.
  writeModelWithoutEdge('no-edge.ts');
  const edgeFiles = fs.readdirSync(path.join(dir, 'out', 'clusters', 'edge'), {
    recursive: true,
    withFileTypes: true,
  });
  const extraRel = path
    .relative(
      path.join(dir, 'out'),
      path.join(edgeFiles.find((e) => e.isFile())!.parentPath, edgeFiles.find((e) => e.isFile())!.name),
    )
    .split(path.sep)
    .join('/');
  fs.appendFileSync(path.join(dir, 'out', changedRel), '# edited by hand\n');
  fs.rmSync(path.join(dir, 'out', missingRel));
  const before = snapshot(path.join(dir, 'out'));

  const text = run(['synth', 'no-edge.ts', '--check'], dir);
  assert.is(text.status, 1);
  assert.match(text.stderr, new RegExp(`  added: +${missingRel.replace(/\./g, '\\.')}\n`));
  assert.match(text.stderr, new RegExp(`  changed: ${changedRel.replace(/\./g, '\\.')}\n`));
  assert.match(text.stderr, new RegExp(`  removed: ${extraRel.replace(/\./g, '\\.')}\n`));
  assert.is(text.stdout, '');

  const json = run(['synth', 'no-edge.ts', '--check', '--format', 'json'], dir);
  assert.is(json.status, 1);
  const j = JSON.parse(json.stdout) as {
    ok: boolean;
    files: { added: string[]; changed: string[]; removed: string[]; unchanged: number };
  };
  assert.is(j.ok, false);
  assert.equal(j.files.added, [missingRel]);
  assert.ok(j.files.changed.includes(changedRel), `${changedRel} among ${j.files.changed.join(', ')}`);
  assert.ok(j.files.removed.includes(extraRel), `${extraRel} among ${j.files.removed.join(', ')}`);
  assert.ok(j.files.removed.every((f) => !j.files.changed.includes(f)));
  assert.ok(j.files.unchanged > 0);

  const github = run(['synth', 'no-edge.ts', '--check', '--format', 'github'], dir);
  assert.is(github.status, 1);
  const annotations = github.stdout.split('\n').filter((l) => l.startsWith('::error '));
  const all = j.files.added.length + j.files.changed.length + j.files.removed.length;
  assert.is(annotations.length, Math.min(21, all), github.stdout);
  if (all > 20)
    assert.match(annotations[20]!, new RegExp(`\\.\\.\\. and ${all - 20} more files? not up to date`));
  for (const f of [missingRel, changedRel])
    assert.ok(
      annotations.some((a) => a.startsWith(`::error file=out/${f},title=out-stale::`)),
      `an annotation on out/${f}`,
    );
  assert.equal(snapshot(path.join(dir, 'out')), before, '--check writes nothing');
  assert.is(run(['synth', 'no-edge.ts', '--out', 'out'], dir).status, 0);
  const up = run(['synth', 'no-edge.ts', '--check', '--format', 'json'], dir);
  assert.is(up.status, 0, up.stderr);
  assert.is((JSON.parse(up.stdout) as { ok: boolean }).ok, true);
  assert.is(run(['synth'], dir).status, 0, 'out/ back to the whole example for the tests after');
});

test('fails GIVEN a scratch model in another folder (mistakes/m-overlap.ts) WHEN synth runs without --out THEN exit 2, out/ untouched, and the message names the model out/ belongs to and the fixes; with --out it renders there', () => {
  assert.is(run(['synth'], dir).status, 0);
  const before = snapshot(path.join(dir, 'out'));
  fs.mkdirSync(path.join(dir, 'mistakes'), { recursive: true });
  writeModelWithoutEdge('mistakes/m-overlap.ts');
  const r = run(['synth', 'mistakes/m-overlap.ts'], dir);
  assert.is(r.status, 2, r.stderr);
  assert.is(
    r.stderr,
    "clusterset: synth mistakes/m-overlap.ts: out/ belongs to clusterset.ts (the project's model), not to mistakes/m-overlap.ts; nothing was written.\n" +
      '  render mistakes/m-overlap.ts into a folder of its own: clusterset synth mistakes/m-overlap.ts --out mistakes/out\n' +
      '  check it without writing anything: clusterset validate mistakes/m-overlap.ts\n' +
      '  replace out/ with its rendering on purpose: clusterset synth mistakes/m-overlap.ts --out out\n',
  );
  const json = run(['synth', 'mistakes/m-overlap.ts', '--format', 'json'], dir);
  assert.is(json.status, 2);
  const j = JSON.parse(json.stdout) as { ok: boolean; diagnostics: { rule: string; fix: string }[] };
  assert.is(j.ok, false);
  assert.is(j.diagnostics[0]?.rule, 'out-owner');
  assert.match(j.diagnostics[0]!.fix, '--out mistakes/out');
  assert.equal(snapshot(path.join(dir, 'out')), before, 'out/ untouched');
  const elsewhere = run(['synth', 'mistakes/m-overlap.ts', '--out', 'mistakes/out'], dir);
  assert.is(elsewhere.status, 0, elsewhere.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'mistakes', 'out', 'clusters', 'east')));
  assert.not.ok(fs.existsSync(path.join(dir, 'mistakes', 'out', 'clusters', 'edge')));
  assert.equal(snapshot(path.join(dir, 'out')), before, 'out/ still untouched');
  // --check writes nothing: it compares whatever it is asked to.
  assert.is(run(['synth', 'mistakes/m-overlap.ts', '--check'], dir).status, 1);
  assert.is(run(['synth', './clusterset.ts'], dir).status, 0, 'the project model, however spelled');
});

test('fails GIVEN a project whose model is not clusterset.ts WHEN synth writes out/ from fleet.ts and then runs on scratch.ts without --out THEN exit 2 naming fleet.ts, the model that last wrote out/', () => {
  const project = workdir();
  fs.renameSync(path.join(project, 'clusterset.ts'), path.join(project, 'fleet.ts'));
  fs.writeFileSync(
    path.join(project, 'scratch.ts'),
    fs.readFileSync(path.join(project, 'fleet.ts'), 'utf8').replace("id: 'east',", "id: 'east2',"),
  );
  assert.is(run(['synth', 'fleet.ts'], project).status, 0);
  const before = snapshot(path.join(project, 'out'));
  const r = run(['synth', 'scratch.ts'], project);
  assert.is(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    'out/ belongs to fleet.ts (the model that last wrote it), not to scratch.ts; nothing was written',
  );
  assert.match(r.stderr, 'clusterset synth scratch.ts --out out-scratch');
  assert.equal(snapshot(path.join(project, 'out')), before);
  assert.is(run(['synth', 'fleet.ts'], project).status, 0);
});

test('fails GIVEN a file no synth wrote in out/clusters/<cluster>/ (an old Job a branch switch left) and in a folder of a cluster the model lacks WHEN check and synth --check run THEN exit 1 naming each as extra with the fix; WHEN synth runs THEN both are removed and named, and a file of the team at the top of out/ stays', () => {
  assert.is(run(['synth'], dir).status, 0);
  assert.is(run(['check'], dir).status, 0, 'the check command: up to date');
  const job = 'clusters/east/kube-system/Job.clusterset-restart-0123456789.yaml';
  const gone = 'clusters/south/kube-system/ClusterSet.prod-set.yaml';
  for (const rel of [job, gone]) {
    fs.mkdirSync(path.dirname(path.join(dir, 'out', rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'out', rel), 'kind: Job\n');
  }
  fs.writeFileSync(path.join(dir, 'out', 'README.md'), 'the rendered ClusterSet\n');
  const before = snapshot(path.join(dir, 'out'));
  for (const args of [['check'], ['synth', '--check'], ['check', 'clusterset.ts', '--out', 'out']]) {
    const r = run(args, dir);
    assert.is(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, 'out/ is stale: run `npm run synth`');
    assert.match(r.stderr, `  extra:   ${job}\n`);
    assert.match(r.stderr, `  extra:   ${gone}\n`);
    assert.match(r.stderr, 'synth removes the extra files: out/argocd/, out/clusters/ and out/flux/');
    assert.not.match(r.stderr, 'README');
  }
  const json = run(['check', '--format', 'json'], dir);
  assert.is(json.status, 1);
  const j = JSON.parse(json.stdout) as { ok: boolean; files: { extra: string[]; removed: string[] } };
  assert.is(j.ok, false);
  assert.equal(j.files.extra, [job, gone]);
  assert.equal(j.files.removed, []);
  const github = run(['check', '--format', 'github'], dir);
  assert.match(github.stdout, `::error file=out/${job},title=out-stale::no synth wrote this file`);
  assert.equal(snapshot(path.join(dir, 'out')), before, 'the checks write nothing');

  const r = run(['synth'], dir);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, / 0 files written, \d+ unchanged, 2 pruned/);
  assert.match(
    r.stderr,
    `clusterset: removed 2 files no synth wrote from out/argocd/, out/clusters/ and out/flux/`,
  );
  assert.match(r.stderr, `  out/${job}\n`);
  for (const rel of [job, gone]) assert.not.ok(fs.existsSync(path.join(dir, 'out', rel)), rel);
  assert.not.ok(fs.existsSync(path.join(dir, 'out', 'clusters', 'south')), 'the folder it leaves empty');
  assert.is(fs.readFileSync(path.join(dir, 'out', 'README.md'), 'utf8'), 'the rendered ClusterSet\n');
  assert.is(run(['check'], dir).status, 0);
  fs.rmSync(path.join(dir, 'out', 'README.md'));
});

/** The example model without the member edge, written beside it as `name`. */
function writeModelWithoutEdge(name: string): void {
  const smaller = fs
    .readFileSync(path.join(dir, 'clusterset.ts'), 'utf8')
    .replace("members: ['east', 'west', 'central', 'edge'],", "members: ['east', 'west', 'central'],")
    .replace(
      "exportedFrom: ['east', 'west', 'central', 'edge'],",
      "exportedFrom: ['east', 'west', 'central'],",
    );
  assert.is.not(smaller, fs.readFileSync(path.join(dir, 'clusterset.ts'), 'utf8'), 'edge dropped');
  fs.writeFileSync(path.join(dir, name), smaller);
}

test('GIVEN a model that drops a member WHEN synth runs THEN its files are pruned', () => {
  writeModelWithoutEdge('smaller.ts');
  const r = run(['synth', 'smaller.ts', '--out', 'out'], dir);
  assert.is(r.status, 0, r.stderr);
  assert.not.match(r.stdout, / 0 pruned/);
  assert.not.ok(fs.existsSync(path.join(dir, 'out', 'clusters', 'edge')));
  assert.not.ok(
    fs.existsSync(
      path.join(dir, 'out', 'clusters', 'hub', 'antrea-multicluster', 'ServiceAccount.member-edge.yaml'),
    ),
  );
});

test('GIVEN the committed out/ WHEN synth --check runs in the repo THEN it is up to date', () => {
  const r = run(['synth', '--check'], root);
  assert.is(r.status, 0, r.stderr);
});

test.run();
