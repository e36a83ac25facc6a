/**
 * Flux delivers a bundle with custom Tiers as two Kustomizations over one path, split by patches:
 * proven with the kustomize that kubectl carries, building each Kustomization the way
 * kustomize-controller does (the bundle's kustomization.yaml plus the Kustomization's `patches`).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { dumpYaml, loadYaml } from '../../lib/yaml';
import { minimalModel, policiesModel, type ModelDraft } from '../helpers/models';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
}

const key = (o: Obj) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function synth(m: ModelDraft): string {
  m.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', flux: {} };
  const r = compile(m);
  assert.equal(r.diagnostics, []);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-flux-tiers-'));
  for (const [rel, content] of r.files) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

function fluxKustomization(dir: string, name: string): Obj | undefined {
  const file = path.join(dir, 'flux', `Kustomization.${name}.yaml`);
  return fs.existsSync(file) ? (loadYaml(fs.readFileSync(file, 'utf8')) as Obj) : undefined;
}

/** What kustomize-controller applies for `ks`: its path's kustomization plus its patches. */
function build(dir: string, ks: Obj): Obj[] {
  const spec = ks.spec as { path: string; patches?: unknown[] };
  const wrap = fs.mkdtempSync(path.join(dir, 'wrap-'));
  const target = path.relative(wrap, path.join(dir, spec.path.replace(/^\.\/(out\/)?/, '')));
  fs.writeFileSync(
    path.join(wrap, 'kustomization.yaml'),
    dumpYaml({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: [target],
      ...(spec.patches ? { patches: spec.patches } : {}),
    }),
  );
  const out = execFileSync('kubectl', ['kustomize', wrap], { encoding: 'utf8' });
  return out
    .split(/^---$/m)
    .map((d) => loadYaml(d) as Obj | null)
    .filter((o): o is Obj => o !== null);
}

function bundle(dir: string, cluster: string): Obj[] {
  return build(dir, {
    apiVersion: '',
    kind: '',
    metadata: { name: '' },
    spec: { path: `./clusters/${cluster}` },
  });
}

test('GIVEN a member with custom Tiers WHEN its two Flux Kustomizations are built THEN one holds exactly the Tiers, the other everything else, and it waits for the Tiers', () => {
  const dir = synth(policiesModel());
  const all = bundle(dir, 'east');
  const tiers = all.filter((o) => o.kind === 'Tier');
  assert.ok(
    tiers.length > 0 && all.some((o) => o.kind === 'ClusterNetworkPolicy'),
    'the case has Tiers and a policy',
  );

  const tiersKs = fluxKustomization(dir, 'test-set-east.tiers');
  const mainKs = fluxKustomization(dir, 'test-set-east');
  assert.ok(tiersKs && mainKs);
  const first = build(dir, tiersKs);
  const second = build(dir, mainKs);
  assert.equal(
    first.map(key).sort(),
    tiers.map(key).sort(),
    'the Tiers Kustomization applies the Tiers only',
  );
  assert.equal(
    second.map(key).sort(),
    all
      .filter((o) => o.kind !== 'Tier')
      .map(key)
      .sort(),
    'the bundle Kustomization applies everything else',
  );
  const deps = ((mainKs.spec as { dependsOn?: { name: string }[] }).dependsOn ?? []).map((d) => d.name);
  assert.equal(deps, ['test-set-hub', 'test-set-east.tiers']);
  assert.is((tiersKs.spec as { dependsOn?: unknown }).dependsOn, undefined, 'the Tiers wait for nothing');
  assert.is((tiersKs.spec as { path: string }).path, (mainKs.spec as { path: string }).path);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('GIVEN members without custom Tiers WHEN rendered THEN each has one Kustomization, unpatched', () => {
  const dir = synth(minimalModel());
  for (const id of ['east', 'west']) {
    assert.is(fluxKustomization(dir, `test-set-${id}.tiers`), undefined);
    const ks = fluxKustomization(dir, `test-set-${id}`)!;
    assert.is((ks.spec as { patches?: unknown }).patches, undefined);
    assert.equal(build(dir, ks).map(key).sort(), bundle(dir, id).map(key).sort());
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test.run();
