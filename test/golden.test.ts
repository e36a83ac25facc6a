/**
 * Golden cases: every `test/cases/<name>/clusterset.ts` compiles to exactly the files under
 * `test/cases/<name>/expected/` (same relative paths, same bytes). `UPDATE_GOLDEN=1` rewrites them;
 * review the diff like code. Then every cluster bundle of every case must build with
 * `kubectl kustomize` into as many objects as its kustomization lists.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../lib/compile';
import { formatDiagnostic } from '../lib/diagnostics';
import { CASES_DIR, caseNames, loadCase, matchGolden } from './helpers/golden';

function kubectlAvailable(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const names = caseNames();

test('the golden cases the suite promises are all present', () => {
  for (const required of ['minimal', 'two-networks', 'policies', 'policy-fields', 'dual-role'])
    assert.ok(names.includes(required), required);
});

for (const name of names) {
  test(`GIVEN case ${name} WHEN compiled THEN the files equal test/cases/${name}/expected/`, () => {
    const r = compile(loadCase(name));
    assert.equal(r.diagnostics.map(formatDiagnostic), [], 'the case model compiles without diagnostics');
    const problems = matchGolden(r.files, path.join(CASES_DIR, name, 'expected'));
    assert.ok(
      problems.length === 0,
      `${problems.length} golden difference(s) (UPDATE_GOLDEN=1 rewrites):\n${problems.join('\n')}`,
    );
  });
}

for (const name of names) {
  test(`GIVEN case ${name} THEN no rendered Secret carries data or stringData`, () => {
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
    assert.ok(secrets > 0, 'the case renders member token Secrets');
  });
}

const hasKubectl = kubectlAvailable();
for (const name of names) {
  (hasKubectl ? test : test.skip)(
    `GIVEN case ${name} THEN kubectl kustomize builds every cluster bundle with every listed object`,
    () => {
      const clustersDir = path.join(CASES_DIR, name, 'expected', 'clusters');
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
  const expected = path.join(CASES_DIR, name, 'expected');
  const folders = ['argocd', 'argocd/apps', 'flux'].filter((f) => fs.existsSync(path.join(expected, f)));
  if (folders.length === 0) continue;
  (hasKubectl ? test : test.skip)(
    `GIVEN case ${name} THEN kubectl kustomize builds each delivery folder into exactly the objects of its own files`,
    () => {
      for (const f of folders) {
        const dir = path.join(expected, f);
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
