/**
 * Flux delivers a bundle with custom Tiers as two Kustomizations over one path, split by patches,
 * the member's restart Job in the one that waits for the Tiers: proven with the kustomize that
 * kubectl carries, building each Kustomization the way kustomize-controller does (the bundle's
 * kustomization.yaml plus the Kustomization's `patches`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadYaml } from '../../lib/yaml';
import { fluxBuild } from '../helpers/flux-build';
import { dualRoleModel, minimalModel, policiesModel, type ModelDraft } from '../helpers/models';

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
  return fluxBuild(dir, ks.spec as { path: string; patches?: unknown[] });
}

/** The member's restart Job (render/member-restart.ts), in the member namespace. */
const isRestartJob = (o: Obj, ns = 'kube-system'): boolean =>
  o.apiVersion === 'batch/v1' &&
  o.kind === 'Job' &&
  o.metadata.name.startsWith('clusterset-restart-') &&
  o.metadata.namespace === ns;

/** Every Kustomization in flux/ that delivers `cluster`'s bundle. */
function kustomizationsOf(dir: string, cluster: string): Obj[] {
  return fs
    .readdirSync(path.join(dir, 'flux'))
    .filter((f) => f.startsWith('Kustomization.'))
    .map((f) => loadYaml(fs.readFileSync(path.join(dir, 'flux', f), 'utf8')) as Obj)
    .filter((k) => String((k.spec as { path: string }).path).endsWith(`/clusters/${cluster}`));
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
  assert.is(first.filter((o) => isRestartJob(o)).length, 0, 'the restart Job is not applied with the Tiers');
  assert.is(second.filter((o) => isRestartJob(o)).length, 1, 'the restart Job is applied after the Tiers');
  const deps = ((mainKs.spec as { dependsOn?: { name: string }[] }).dependsOn ?? []).map((d) => d.name);
  assert.equal(deps, ['test-set-hub', 'test-set-east.tiers']);
  assert.is((tiersKs.spec as { dependsOn?: unknown }).dependsOn, undefined, 'the Tiers wait for nothing');
  assert.is((tiersKs.spec as { path: string }).path, (mainKs.spec as { path: string }).path);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('GIVEN members without custom Tiers WHEN rendered THEN each has one Kustomization, with no patch, which applies the whole bundle, its restart Job included', () => {
  const dir = synth(minimalModel());
  for (const id of ['east', 'west']) {
    assert.is(fluxKustomization(dir, `test-set-${id}.tiers`), undefined);
    const ks = fluxKustomization(dir, `test-set-${id}`)!;
    assert.is((ks.spec as { patches?: unknown[] }).patches, undefined);
    const all = bundle(dir, id);
    assert.is(all.filter((o) => isRestartJob(o)).length, 1);
    assert.equal(build(dir, ks).map(key).sort(), all.map(key).sort());
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test("GIVEN any member (with or without Tiers, the leader too, a custom member namespace) WHEN Flux's Kustomizations are built THEN every object of the bundle is applied exactly once, the restart Job never with the Tiers, and no Deployment of Antrea's", () => {
  const models: [string, ModelDraft, string][] = [
    ['policies', policiesModel(), 'kube-system'],
    ['dual-role', dualRoleModel(), 'kube-system'],
    ['custom namespace', { ...minimalModel(), memberNamespace: 'antrea-mc' }, 'antrea-mc'],
  ];
  for (const [what, m, ns] of models) {
    const dir = synth(m);
    for (const id of m.members) {
      const all = bundle(dir, id);
      assert.is(all.filter((o) => isRestartJob(o, ns)).length, 1, `${what}: ${id}'s restart Job in ${ns}`);
      const kss = kustomizationsOf(dir, id);
      const built = kss.flatMap((ks) => build(dir, ks));
      assert.equal(built.map(key).sort(), all.map(key).sort(), `${what}: ${id}`);
      for (const ks of kss.filter((k) => k.metadata.name.endsWith('.tiers')))
        assert.equal(
          build(dir, ks).filter((o) => o.kind !== 'Tier'),
          [],
          `${what}: ${ks.metadata.name} applies Tiers alone`,
        );
      assert.equal(
        built.filter((o) => o.kind === 'Deployment' && o.metadata.name === 'antrea-mc-controller'),
        [],
        `${what}: Flux applies nothing of Antrea's Deployment in ${id}`,
      );
    }
    if (what === 'dual-role')
      assert.ok(
        kustomizationsOf(dir, 'hub')
          .flatMap((ks) => build(dir, ks))
          .some((o) => o.kind === 'Deployment' && o.metadata.name === 'clusterset-reconciler'),
        "the dual-role leader's reconciler Deployment is applied",
      );
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
