/**
 * The examples are the golden cases. Every folder under `examples/` holds `clusterset.ts`,
 * `README.md` and `out/` (a folder without one fails here), is listed in `examples/README.md`, and
 * its model compiles to exactly the files under its `out/` (same relative paths, same bytes;
 * `UPDATE_GOLDEN=1` rewrites them: review the diff like code). The synth command its README gives
 * runs as written (with `--check`: it writes nothing) and finds `out/` up to date. Then every cluster
 * bundle of every example must build with `kubectl kustomize` into as many objects as its
 * kustomization lists. The folder list is read from disk, so an example added is an example tested.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin } from './helpers/cli';
import { compile } from '../lib/compile';
import { formatDiagnostic } from '../lib/diagnostics';
import { CACHE_FILE } from '../lib/synth';
import { EXAMPLES_DIR, caseNames, caseOut, exampleProblems, loadCase, matchGolden } from './helpers/golden';

function kubectlAvailable(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The command each example's README gives to render it, from the repository root. */
function synthCommand(name: string): string[] {
  return ['synth', `examples/${name}/clusterset.ts`, '--out', `examples/${name}/out`];
}

const names = caseNames();

test('GIVEN examples/ THEN every example examples/README.md describes is there', () => {
  for (const required of [
    'minimal',
    'two-networks',
    'external-secrets',
    'dual-role',
    'legacy-antrea',
    'policies',
    'policy-fields',
  ])
    assert.ok(names.includes(required), required);
});

test('GIVEN examples/ THEN every folder holds clusterset.ts, README.md and out/', () => {
  assert.ok(names.length > 0, 'examples/ has folders');
  assert.equal(exampleProblems(), []);
});

test('fails GIVEN an example folder without clusterset.ts or README.md WHEN checked THEN it names the folder and the file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-examples-'));
  try {
    for (const [name, files] of [
      ['complete', ['clusterset.ts', 'README.md']],
      ['no-model', ['README.md']],
      ['no-readme', ['clusterset.ts']],
    ] as const) {
      fs.mkdirSync(path.join(dir, name, 'out'), { recursive: true });
      for (const f of files) fs.writeFileSync(path.join(dir, name, f), '');
    }
    fs.writeFileSync(path.join(dir, 'README.md'), '');
    assert.equal(caseNames(dir), ['complete', 'no-model', 'no-readme'], 'a folder without a model is listed');
    assert.equal(exampleProblems(dir), ['no-model: no clusterset.ts', 'no-readme: no README.md']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('GIVEN examples/README.md THEN it links every example folder, and no other', () => {
  const index = fs.readFileSync(path.join(EXAMPLES_DIR, 'README.md'), 'utf8');
  const linked = [...index.matchAll(/\]\(([^)/]+)\/\)/g)].map((m) => m[1]!);
  assert.equal([...new Set(linked)].sort(), names);
});

for (const name of names) {
  test(`GIVEN example ${name} WHEN compiled THEN the files equal examples/${name}/out/`, () => {
    const r = compile(loadCase(name));
    assert.equal(r.diagnostics.map(formatDiagnostic), [], 'the example model compiles without diagnostics');
    // A synth run of the README's command leaves its cache beside the bundles (git ignores it).
    const problems = matchGolden(r.files, caseOut(name), [CACHE_FILE]);
    assert.ok(
      problems.length === 0,
      `${problems.length} golden difference(s) (UPDATE_GOLDEN=1 rewrites):\n${problems.join('\n')}`,
    );
  });
}

for (const name of names) {
  test(`GIVEN example ${name} WHEN its README's synth command runs with --check THEN out/ is up to date`, () => {
    const readme = fs.readFileSync(path.join(EXAMPLES_DIR, name, 'README.md'), 'utf8');
    const command = `npx clusterset ${synthCommand(name).join(' ')}`;
    assert.ok(readme.includes(command), `the README gives \`${command}\``);
    const r = runBin([...synthCommand(name), '--check']);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, `examples/${name}/out/ is up to date`);
  });
}

for (const name of names) {
  test(`GIVEN example ${name} THEN no rendered Secret carries data or stringData`, () => {
    const r = compile(loadCase(name));
    let secrets = 0;
    for (const [p, text] of r.files) {
      if (!p.endsWith('.yaml') || p.endsWith('kustomization.yaml')) continue;
      const o = yaml.load(text) as { kind?: string; data?: unknown; stringData?: unknown };
      if (o.kind !== 'Secret') continue;
      secrets++;
      assert.is(o.data, undefined, `${p}: data`);
      assert.is(o.stringData, undefined, `${p}: stringData`);
    }
    assert.ok(secrets > 0, 'the example renders member token Secrets');
  });
}

const hasKubectl = kubectlAvailable();
for (const name of names) {
  (hasKubectl ? test : test.skip)(
    `GIVEN example ${name} THEN kubectl kustomize builds every cluster bundle with every listed object`,
    () => {
      const clustersDir = path.join(caseOut(name), 'clusters');
      const clusters = fs.readdirSync(clustersDir).sort();
      assert.ok(clusters.length > 0);
      for (const c of clusters) {
        const dir = path.join(clustersDir, c);
        const k = yaml.load(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as {
          resources: string[];
        };
        for (const r of k.resources)
          assert.ok(fs.existsSync(path.join(dir, r)), `${c}: listed resource ${r} exists`);
        const onDisk = execFileSync('find', ['.', '-name', '*.yaml', '!', '-name', 'kustomization.yaml'], {
          cwd: dir,
          encoding: 'utf8',
        })
          .split('\n')
          .filter(Boolean).length;
        assert.is(onDisk, k.resources.length, `${c}: every object file is listed in kustomization.yaml`);
        const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
        const docs = yaml.loadAll(out).filter((d) => d !== null && d !== undefined);
        assert.is(
          docs.length,
          k.resources.length,
          `${c}: kubectl kustomize yields one object per listed file`,
        );
      }
    },
  );
}

for (const name of names) {
  const outDir = caseOut(name);
  const folders = ['argocd', 'argocd/apps', 'flux'].filter((f) => fs.existsSync(path.join(outDir, f)));
  if (folders.length === 0) continue;
  (hasKubectl ? test : test.skip)(
    `GIVEN example ${name} THEN kubectl kustomize builds each delivery folder into exactly the objects of its own files`,
    () => {
      for (const f of folders) {
        const dir = path.join(outDir, f);
        const own = fs.readdirSync(dir).filter((x) => x.endsWith('.yaml') && x !== 'kustomization.yaml');
        const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
        const docs = yaml.loadAll(out).filter((d) => d !== null && d !== undefined) as {
          kind: string;
          metadata: { name: string };
        }[];
        assert.equal(
          docs.map((d) => `${d.kind}.${d.metadata.name}.yaml`).sort(),
          own.sort(),
          `${f}: kubectl kustomize yields one object per file, and no other`,
        );
      }
    },
  );
}

test.run();
