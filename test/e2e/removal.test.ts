// End-to-end: a member leaves the model, under Flux and under Argo CD, on real API servers
// (test/kube: kube-apiserver, etcd, kube-controller-manager). Both tools must delete what they
// applied in the member except the objects that are never deleted (CRDs, Antrea's member
// controller Deployment; with takeOver, its ConfigMap and the Namespaces of exported Services), and
// leave the member in the same state.
//
// Two control planes, each prepared as Antrea's member manifest leaves a member (its CRDs and its
// member controller Deployment, installed with `kubectl apply`'s field manager), get member east's
// bundle:
// - Flux: with Flux's own code, github.com/fluxcd/pkg/ssa (test/flux-gc, built from the Go module
//   proxy): each Kustomization that delivers east (`<set>-east.tiers` and `<set>-east`, as
//   rendered, their delete patches honoured) is applied with ResourceManager.ApplyAllStaged and the
//   apply options kustomize-controller sets, and then garbage-collected as kustomize-controller's
//   finalizer does when a Kustomization with prune on is deleted (ResourceManager.DeleteAll,
//   background propagation, owner labels, `kustomize.toolkit.fluxcd.io/prune: disabled` excluded).
//   What decides that the finalizer collects at all (prune on, the default deletionPolicy) is read
//   from the rendered Kustomizations. The member's partial Deployment is left out: Flux's apply
//   refuses it (asserted by its own test below), so under Flux it is never in an inventory and
//   Antrea's Deployment stays as Antrea installed it.
// - Argo CD: applied as Argo CD syncs with ServerSideApply=true (test/kube/apply.ts), each object
//   annotated with the tracking id Argo CD 3 writes; then the rendered Application's finalizer
//   decides the cascade, which test/e2e/argocd-cascade.ts performs. That file is our reading of
//   Argo CD's documented rule and of its controller's source, not Argo CD's code (which does not
//   build here): it deletes every live object the Application manages but CRDs and those whose
//   sync-options list Delete=false.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import type { ClusterSetProps } from '../../lib/model';
import { MEMBER_CONTROLLER_DEPLOYMENT } from '../../lib/names';
import { dumpYaml, loadYaml } from '../../lib/yaml';
import { policiesModel } from '../helpers/models';
import type { BundleObject, KubeObject } from '../kube/apply';
import { applyBundle, loadBundle, readBack } from '../kube/apply';
import type { Cluster } from '../kube/cluster';
import { startClusters, stopAll } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { installAntreaMember } from './antrea-member';
import { TRACKING_ID, cascadeDelete, managedLiveObjects, trackingId } from './argocd-cascade';

const ROOT = path.resolve(__dirname, '..', '..');
const MEMBER = 'east';

/** The policies model (leader hub; east exports shop/cart, has two Tiers and a stretched policy), delivered by both tools. */
function model(): ClusterSetProps {
  const m = policiesModel();
  m.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    branch: 'main',
    path: 'out',
    managementCluster: 'hub',
    argocd: {},
    flux: {},
  };
  return m as ClusterSetProps;
}

interface Rendered {
  readonly dir: string;
  readonly application: KubeObject & { metadata: { finalizers?: string[] } };
  readonly kustomizations: (KubeObject & { spec: KustomizationSpec })[];
}

interface KustomizationSpec {
  path: string;
  prune: boolean;
  deletionPolicy?: string;
  suspend?: boolean;
  dependsOn?: { name: string }[];
  patches?: { patch: string; target: { group?: string; version?: string; kind?: string } }[];
}

/** out/ of the model, in a temporary directory, with east's Application and Kustomizations. */
function synth(): Rendered {
  const r = compile(model());
  if (r.diagnostics.length > 0) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-'));
  for (const [rel, text] of r.files) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const read = (rel: string): KubeObject =>
    loadYaml(fs.readFileSync(path.join(dir, rel), 'utf8')) as KubeObject;
  const plan = r.plan!;
  const app = `${plan.clusterSetId}-${MEMBER}`;
  const kustomizations = fs
    .readdirSync(path.join(dir, 'flux'))
    .filter((f) => f.startsWith('Kustomization.'))
    .map((f) => read(path.join('flux', f)) as KubeObject & { spec: KustomizationSpec })
    .filter((k) => k.spec.path.replace(/\/+$/, '').endsWith(`clusters/${MEMBER}`));
  return {
    dir,
    application: read(path.join('argocd', 'apps', `Application.${app}.yaml`)) as Rendered['application'],
    // Applied in dependsOn order: the Tiers' Kustomization first.
    kustomizations: kustomizations.sort(
      (a, b) => (a.spec.dependsOn ?? []).length - (b.spec.dependsOn ?? []).length,
    ),
  };
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const versionOf = (apiVersion: string): string => apiVersion.split('/').pop()!;

/** Whether a `$patch: delete` patch of the Kustomization removes `o` from what it applies. */
function deletedByPatch(k: KustomizationSpec, o: KubeObject): boolean {
  return (k.patches ?? []).some(
    (p) =>
      /\$patch: delete/.test(p.patch) &&
      (p.target.group === undefined || p.target.group === groupOf(o.apiVersion)) &&
      (p.target.version === undefined || p.target.version === versionOf(o.apiVersion)) &&
      (p.target.kind === undefined || p.target.kind === o.kind),
  );
}

/** `<Kind> <namespace>/<name>` (cluster-scoped: `<Kind> <name>`). */
const key = (o: { kind: string; metadata: { name?: string; namespace?: string } }): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;

/** Which of the bundle's objects exist in the cluster. */
async function present(cluster: Cluster, objs: readonly BundleObject[]): Promise<string[]> {
  const out: string[] = [];
  for (const b of objs) if (await readBack(cluster, b.obj)) out.push(key(b.obj));
  return out.sort();
}

function fluxGc(): string {
  const out = execFileSync('bash', [path.join(ROOT, 'test', 'flux-gc', 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop()!;
}

interface Change {
  subject: string;
  action: string;
}

const it = suite('removal');
let clusters: Map<string, Cluster>;
let rendered: Rendered;
let bundle: BundleObject[];
let bin: string;

it.before(async () => {
  bin = fluxGc();
  rendered = synth();
  bundle = loadBundle(path.join(rendered.dir, 'clusters', MEMBER));
  clusters = await startClusters(['rm-flux', 'rm-argocd']);
});

it.after(async () => {
  await stopAll();
});

const EXPECTED_KEPT = [
  'CustomResourceDefinition clusterproperties.about.k8s.io',
  `Deployment kube-system/${MEMBER_CONTROLLER_DEPLOYMENT}`,
];
const EXPECTED_GONE = [
  'ClusterNetworkPolicy cart-stretched',
  'ClusterProperty cluster.clusterset.k8s.io',
  'ClusterProperty clusterset.k8s.io',
  'ClusterSet kube-system/test-set',
  'ServiceExport shop/cart',
  'Tier mc-baseline',
  'Tier mc-stretched',
];

const remaining = new Map<string, string[]>();

it('GIVEN the rendered delivery THEN east is delivered with prune on by both tools: the Application carries the resources finalizer, the Kustomizations prune', () => {
  assert.equal(rendered.application.metadata.finalizers, [
    'resources-finalizer.argocd.argoproj.io/background',
  ]);
  assert.equal(
    rendered.kustomizations.map((k) => k.metadata.name),
    ['test-set-east.tiers', 'test-set-east'],
  );
  for (const k of rendered.kustomizations) {
    assert.is(k.spec.prune, true);
    assert.ok((k.spec.deletionPolicy ?? 'MirrorPrune') === 'MirrorPrune' && !k.spec.suspend);
  }
  assert.equal(
    bundle.map((b) => key(b.obj)).sort(),
    [...EXPECTED_KEPT, ...EXPECTED_GONE].sort(),
    'the bundle holds what the assertions below name',
  );
});

/** Runs test/flux-gc; returns its stdout, or throws with its stderr. */
function runFluxGc(args: string[]): string {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const isPartialDeployment = (o: KubeObject): boolean =>
  o.kind === 'Deployment' && o.metadata.name === MEMBER_CONTROLLER_DEPLOYMENT;

it("GIVEN Flux's apply THEN it refuses the member's partial Deployment: Flux cannot deliver the restart object", async () => {
  // kustomize-controller normalizes every object through its typed Kubernetes API type before the
  // server-side apply (ssa/normalize, as its apply() does): a Deployment that sets only two Pod
  // template annotations leaves the round trip with `selector: null` and `containers: null`, which
  // the API server refuses even as a dry run. So under Flux a member Kustomization that holds the
  // partial Deployment fails as a whole (its other objects are dry-run with it and never applied);
  // the removal below is therefore proven on the member's other objects, and Antrea's Deployment,
  // which Flux never applied, stays as Antrea installed it.
  const cluster = clusters.get('rm-flux')!;
  await installAntreaMember(cluster, compile(model()).plan!, MEMBER);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-flux-'));
  const manifest = path.join(work, 'deployment.yaml');
  fs.writeFileSync(manifest, dumpYaml(bundle.find((b) => isPartialDeployment(b.obj))!.obj));
  let error = '';
  try {
    runFluxGc([
      'apply',
      '-kubeconfig',
      cluster.kubeconfigPath,
      '-name',
      'probe',
      '-inventory',
      path.join(work, 'probe.json'),
      manifest,
    ]);
  } catch (e) {
    error = String((e as { stderr?: string }).stderr ?? e);
  }
  assert.match(error, /Deployment\/kube-system\/antrea-mc-controller dry-run failed \(Invalid\)/);
  assert.match(error, /spec\.selector: Required value/);
});

it("GIVEN Flux (Flux's own apply and garbage collection) WHEN east's Kustomizations are deleted THEN all but CRDs and Antrea's Deployment is gone", async () => {
  const cluster = clusters.get('rm-flux')!;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-flux-'));
  const inventories: { name: string; namespace: string; file: string }[] = [];
  for (const k of rendered.kustomizations) {
    const mine = bundle.filter((b) => !deletedByPatch(k.spec, b.obj) && !isPartialDeployment(b.obj));
    const manifest = path.join(work, `${k.metadata.name}.yaml`);
    fs.writeFileSync(manifest, mine.map((b) => dumpYaml(b.obj)).join('---\n'));
    const inventory = path.join(work, `${k.metadata.name}.inventory.json`);
    const who = [
      '-kubeconfig',
      cluster.kubeconfigPath,
      '-name',
      k.metadata.name!,
      '-namespace',
      k.metadata.namespace!,
    ];
    runFluxGc(['apply', ...who, '-inventory', inventory, manifest]);
    inventories.push({ name: k.metadata.name!, namespace: k.metadata.namespace!, file: inventory });
  }
  assert.equal(await present(cluster, bundle), bundle.map((b) => key(b.obj)).sort(), 'every object is there');

  const changes: Change[] = [];
  for (const inv of inventories) {
    const who = ['-kubeconfig', cluster.kubeconfigPath, '-name', inv.name, '-namespace', inv.namespace];
    changes.push(...(JSON.parse(runFluxGc(['delete', ...who, '-inventory', inv.file])) as Change[]));
  }
  // Flux's change set: the never-deleted objects skipped (prune disabled), every other one deleted.
  assert.equal(
    changes
      .filter((c) => c.action === 'skipped')
      .map((c) => c.subject)
      .sort(),
    ['CustomResourceDefinition/clusterproperties.about.k8s.io'],
  );
  assert.is(changes.filter((c) => c.action === 'deleted').length, EXPECTED_GONE.length);
  const kept = await eventually('Flux garbage collection done', async () => {
    const p = await present(cluster, bundle);
    return p.length === EXPECTED_KEPT.length ? p : undefined;
  });
  assert.equal(kept, EXPECTED_KEPT);
  remaining.set('flux', kept);
});

it("GIVEN Argo CD (our reading of its cascade rule) WHEN east's Application is deleted THEN all but CRDs and Antrea's Deployment is gone", async () => {
  const cluster = clusters.get('rm-argocd')!;
  const plan = compile(model()).plan!;
  await installAntreaMember(cluster, plan, MEMBER);
  const app = rendered.application.metadata.name!;
  // The bundle as Argo CD applies it: each object carries its tracking id.
  const tracked = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-argocd-'));
  for (const b of bundle) {
    const obj = { ...b.obj, metadata: { ...b.obj.metadata } };
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TRACKING_ID]: trackingId(app, obj) };
    fs.mkdirSync(path.dirname(path.join(tracked, b.file)), { recursive: true });
    fs.writeFileSync(path.join(tracked, b.file), dumpYaml(obj));
  }
  const applied = await applyBundle(cluster, tracked);
  assert.equal(applied.rejected, []);
  assert.equal(
    (await managedLiveObjects(cluster, app)).map(key).sort(),
    bundle.map((b) => key(b.obj)).sort(),
    'Argo CD manages exactly the bundle (Antrea CRDs and its own objects are not tracked)',
  );

  const finalizers = rendered.application.metadata.finalizers ?? [];
  assert.is(finalizers.length, 1);
  const deleted = await cascadeDelete(cluster, app, finalizers[0]!);
  assert.equal(deleted.map(key).sort(), EXPECTED_GONE);
  const kept = await present(cluster, bundle);
  assert.equal(kept, EXPECTED_KEPT);
  remaining.set('argocd', kept);
});

it("THEN both removals leave the member identical, and Antrea's Deployment and CRDs as Antrea installed them", async () => {
  assert.equal(remaining.get('flux'), remaining.get('argocd'));
  for (const name of ['rm-flux', 'rm-argocd']) {
    const cluster = clusters.get(name)!;
    const d = (await readBack(cluster, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: MEMBER_CONTROLLER_DEPLOYMENT, namespace: 'kube-system' },
    })) as KubeObject & { spec: { template: { spec: { containers: { name: string }[] } } } };
    assert.equal(
      d.spec.template.spec.containers.map((c) => c.name),
      ['antrea-mc-controller'],
      `${name}: Antrea's Deployment keeps its containers`,
    );
    const crd = await readBack(cluster, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'clustersets.multicluster.crd.antrea.io' },
    });
    assert.ok(crd, `${name}: Antrea's ClusterSet CRD is still there`);
  }
});

it.run();
