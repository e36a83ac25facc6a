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
//   rendered) is built as kustomize-controller builds it (kustomize, its path and its patches:
//   test/helpers/flux-build.ts), applied with ResourceManager.ApplyAllStaged and the apply options
//   kustomize-controller sets, and then garbage-collected as kustomize-controller's finalizer does
//   when a Kustomization with prune on is deleted (ResourceManager.DeleteAll, background
//   propagation, owner labels, `kustomize.toolkit.fluxcd.io/prune: disabled` excluded). What
//   decides that the finalizer collects at all (prune on, the default deletionPolicy) is read from
//   the rendered Kustomizations. The member's partial Deployment, which Flux's apply refuses (shown
//   below), is deleted by the Kustomization's own patch: Flux applies the rest of the bundle, never
//   touches Antrea's Deployment, and so never has it in an inventory.
// - Argo CD: with Argo CD's own code, github.com/argoproj/argo-cd/v3 v3.2.6 (test/argocd-gc, built
//   from the Go module proxy): each object but CRDs gets the tracking Argo CD 3 writes (its
//   ResourceTracking.SetAppInstance, annotation tracking), is applied as Argo CD syncs with
//   ServerSideApply=true (test/kube/apply.ts), and the rendered Application's finalizer is then
//   run as its controller's finalizeApplicationDeletion runs it (managed objects by Argo CD's
//   GetAppName, filtered by the AppProject live in a management cluster with Argo CD's
//   AppProject.IsLiveResourcePermitted, the rules of its shouldBeDeleted, controller.
//   FilterObjectsForDeletion, its kubectl delete with the finalizer's propagation policy),
//   reconcile after reconcile. Ours: keptOnCascade (those rules, unexported there) and the loop
//   standing for the reconciles. The AppProject is the one rendered before east leaves and after;
//   both orders are run: re-applied once east's Application is gone (east is left as before it
//   joined), and re-applied first (east's namespaced objects and its policy stay behind).

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
import { fluxBuild } from '../helpers/flux-build';
import { policiesModel } from '../helpers/models';
import type { BundleObject, KubeObject } from '../kube/apply';
import { applyBundle, applyObject, loadBundle, readBack } from '../kube/apply';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { ANTREA_INSTALL_MANAGER, installAntreaMember } from './antrea-member';
import { ARGOCD_CRDS, installCrds } from './crds';

const ROOT = path.resolve(__dirname, '..', '..');
const MEMBER = 'east';

/**
 * The policies model (leader hub; east exports shop/cart, has two Tiers and a stretched policy),
 * delivered by both tools; with `without`, the model once that member has left it (the model of the
 * pull request that removes it).
 */
function model(without?: string): ClusterSetProps {
  const m = policiesModel();
  if (without !== undefined) {
    m.members = m.members.filter((id) => id !== without);
    m.clusters = m.clusters.filter((c) => c.id !== without);
    m.services = m.services?.map((s) => ({
      ...s,
      exportedFrom: s.exportedFrom.filter((id) => id !== without),
    }));
    m.stretchedPolicies = m.stretchedPolicies?.filter((p) => !(p.members ?? []).includes(without));
  }
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

/** The AppProject as rendered (out/argocd/AppProject.<set>.yaml, lib/render/appproject.ts) for a model. */
function renderedAppProject(m: ClusterSetProps): KubeObject {
  const r = compile(m);
  if (r.diagnostics.length > 0) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  const file = [...r.files.keys()].find((f) => /^argocd\/AppProject\.[^/]+\.yaml$/.test(f));
  if (file === undefined) throw new Error('no AppProject rendered');
  return loadYaml(r.files.get(file)!) as KubeObject;
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
  patches?: unknown[];
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

/** `<Kind> <namespace>/<name>` (cluster-scoped: `<Kind> <name>`). */
const key = (o: { kind: string; metadata: { name?: string; namespace?: string } }): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;

/** Which of the bundle's objects exist in the cluster. */
async function present(cluster: Cluster, objs: readonly BundleObject[]): Promise<string[]> {
  const out: string[] = [];
  for (const b of objs) if (await readBack(cluster, b.obj)) out.push(key(b.obj));
  return out.sort();
}

/** Builds test/<name> (test/helpers/go-build.sh, cached) and returns the binary's path. */
function goTool(name: 'flux-gc' | 'argocd-gc'): string {
  const out = execFileSync('bash', [path.join(ROOT, 'test', name, 'build.sh')], {
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
let argocdBin: string;

it.before(async () => {
  bin = goTool('flux-gc');
  argocdBin = goTool('argocd-gc');
  rendered = synth();
  bundle = loadBundle(path.join(rendered.dir, 'clusters', MEMBER));
  clusters = await startClusters(['rm-flux', 'rm-argocd', 'rm-mgmt']);
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

it("GIVEN the partial Deployment alone (no patch, as a Kustomization of one's own over the member's path would apply it) WHEN Flux's apply meets it THEN it is refused: why our Kustomizations delete it", async () => {
  // kustomize-controller normalizes every object through its typed Kubernetes API type before the
  // server-side apply (ssa/normalize, as its apply() does): a Deployment that sets only Pod
  // template annotations leaves the round trip with `selector: null` and `containers: null`, which
  // the API server refuses even as a dry run, failing the whole Kustomization with it. Should
  // Flux stop doing so, this fails, and the patch (render/flux.ts) could go.
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

const inventories: { name: string; namespace: string; file: string }[] = [];

it("GIVEN east's Kustomizations as rendered WHEN Flux builds them (kustomize, their patches) and applies them with its own code THEN the whole member bundle is applied but the partial Deployment, and Antrea's Deployment is left to Antrea", async () => {
  const cluster = clusters.get('rm-flux')!;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-flux-'));
  const built: string[] = [];
  for (const k of rendered.kustomizations) {
    const mine = fluxBuild(rendered.dir, k.spec);
    built.push(...mine.map(key));
    const manifest = path.join(work, `${k.metadata.name}.yaml`);
    fs.writeFileSync(manifest, mine.map((o) => dumpYaml(o)).join('---\n'));
    const inventory = path.join(work, `${k.metadata.name}.inventory.json`);
    const who = [
      '-kubeconfig',
      cluster.kubeconfigPath,
      '-name',
      k.metadata.name!,
      '-namespace',
      k.metadata.namespace!,
    ];
    // Throws, with Flux's error on stderr, if anything is refused.
    runFluxGc(['apply', ...who, '-inventory', inventory, manifest]);
    inventories.push({ name: k.metadata.name!, namespace: k.metadata.namespace!, file: inventory });
  }
  assert.equal(
    built.sort(),
    bundle
      .filter((b) => !isPartialDeployment(b.obj))
      .map((b) => key(b.obj))
      .sort(),
    'Flux applies every object of the bundle once, but the partial Deployment',
  );
  const inventoried = inventories.flatMap(
    (i) => JSON.parse(fs.readFileSync(i.file, 'utf8')) as { kind: string; name: string }[],
  );
  assert.is(inventoried.length, built.length, 'every built object is in an inventory');
  assert.not.ok(inventoried.some((e) => e.kind === 'Deployment'));
  assert.equal(await present(cluster, bundle), bundle.map((b) => key(b.obj)).sort(), 'every object is there');
  const d = await readBack(cluster, bundle.find((b) => isPartialDeployment(b.obj))!.obj);
  const managers = ((d?.metadata.managedFields ?? []) as { manager: string }[]).map((m) => m.manager);
  assert.ok(managers.includes(ANTREA_INSTALL_MANAGER), managers.join());
  assert.not.ok(managers.includes('kustomize-controller'), 'Flux owns no field of it');
  assert.is(d?.metadata.generation, 1, 'its spec is as Antrea installed it: nothing rolled');
});

it("GIVEN Flux (Flux's own garbage collection) WHEN east's Kustomizations are deleted THEN all but CRDs and Antrea's Deployment is gone", async () => {
  const cluster = clusters.get('rm-flux')!;
  assert.is(inventories.length, rendered.kustomizations.length, 'applied above');
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

interface Ref {
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Runs test/argocd-gc; returns its parsed stdout, or throws with its stderr. */
function runArgocdGc<T>(args: string[], input?: string): T {
  return JSON.parse(
    execFileSync(argocdBin, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] }),
  ) as T;
}

const refKey = (r: Ref): string => key({ kind: r.kind, metadata: r });

/** What the cascade deletion reports (test/argocd-gc delete). */
interface CascadeReport {
  managed: Ref[];
  propagationPolicy: string;
  batches: Ref[][];
  unpermitted: Ref[];
  kept: (Ref & { reason: string })[];
  failedReconciles: string[];
}

const isCrd = (o: KubeObject): boolean => o.kind === 'CustomResourceDefinition';

/** Applies the AppProject in the management cluster, as `kubectl apply -k out/argocd` does. */
async function applyProject(project: KubeObject): Promise<void> {
  const r = await applyObject(
    clusters.get('rm-mgmt')!,
    { file: 'AppProject.yaml', obj: project, wave: 0 },
    { fieldManager: 'kubectl' },
  );
  if ('rejection' in r) throw new Error(`AppProject: ${r.rejection.message}`);
}

async function deleteProject(project: KubeObject): Promise<void> {
  const res = await request(
    clusters.get('rm-mgmt')!.admin,
    'DELETE',
    `/apis/argoproj.io/v1alpha1/namespaces/${project.metadata.namespace}/appprojects/${project.metadata.name}`,
  );
  assert.ok(res.status === 200 || res.status === 202, `delete AppProject: HTTP ${res.status} ${res.body}`);
}

let appFile: string;
/** The AppProject as rendered before east leaves (it permits east) and after (it does not). */
let projectBefore: KubeObject;
let projectAfter: KubeObject;

/** East's bundle as Argo CD syncs it: Argo CD's SetAppInstance on each object, then applied server-side. */
async function syncEast(): Promise<void> {
  const cluster = clusters.get('rm-argocd')!;
  const tracked = runArgocdGc<KubeObject[]>(
    ['track', '-application', appFile],
    JSON.stringify(bundle.map((b) => b.obj)),
  );
  assert.is(tracked.length, bundle.length);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-argocd-bundle-'));
  bundle.forEach((b, i) => {
    const obj = tracked[i]!;
    assert.is(key(obj), key(b.obj));
    // Annotation tracking, as Argo CD 3 documents it; the repo server tracks no CRD.
    const group = b.obj.apiVersion.includes('/') ? b.obj.apiVersion.split('/')[0]! : '';
    const ns = b.obj.metadata.namespace ?? '';
    assert.is(
      obj.metadata.annotations?.['argocd.argoproj.io/tracking-id'],
      isCrd(b.obj)
        ? undefined
        : `${rendered.application.metadata.name}:${group}/${b.obj.kind}:${ns}/${b.obj.metadata.name}`,
    );
    fs.mkdirSync(path.dirname(path.join(dir, b.file)), { recursive: true });
    fs.writeFileSync(path.join(dir, b.file), dumpYaml(obj));
  });
  const applied = await applyBundle(cluster, dir);
  assert.equal(applied.rejected, []);
  assert.equal(await present(cluster, bundle), bundle.map((b) => key(b.obj)).sort(), 'east is delivered');
}

/** East's Application is deleted: Argo CD's finalizer, reconcile after reconcile, with the live AppProject. */
function cascadeEast(timeout = '2m'): CascadeReport {
  const cluster = clusters.get('rm-argocd')!;
  return runArgocdGc<CascadeReport>([
    'delete',
    '-kubeconfig',
    cluster.kubeconfigPath,
    '-project-kubeconfig',
    clusters.get('rm-mgmt')!.kubeconfigPath,
    '-application',
    appFile,
    // Registered as the After merge block says: `argocd cluster add <east> --name east`.
    '-cluster-name',
    MEMBER,
    '-timeout',
    timeout,
  ]);
}

it('GIVEN the AppProject as rendered before and after east leaves THEN only the one before permits east: its destination goes, and the kinds no other bundle holds', async () => {
  const mgmt = clusters.get('rm-mgmt')!;
  await installCrds(mgmt, ARGOCD_CRDS, 'argocd-install');
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: rendered.application.metadata.namespace },
  };
  const created = await applyObject(
    mgmt,
    { file: 'Namespace.yaml', obj: ns, wave: 0 },
    { fieldManager: 'argocd-install' },
  );
  assert.ok('result' in created);
  projectBefore = renderedAppProject(model());
  projectAfter = renderedAppProject(model(MEMBER));
  const server = (rendered.application as unknown as { spec: { destination: { server: string } } }).spec
    .destination.server;
  const servers = (p: KubeObject): string[] =>
    (p as unknown as { spec: { destinations: { server?: string }[] } }).spec.destinations.map(
      (d) => d.server ?? '',
    );
  assert.ok(servers(projectBefore).includes(server));
  assert.not.ok(servers(projectAfter).includes(server));
  const kinds = (p: KubeObject): string[] =>
    (p as unknown as { spec: { clusterResourceWhitelist: { kind: string }[] } }).spec.clusterResourceWhitelist
      .map((k) => k.kind)
      .sort();
  // The stretched policy is east's alone, so its kind leaves the whitelist with east.
  assert.ok(kinds(projectBefore).includes('ClusterNetworkPolicy'));
  assert.not.ok(kinds(projectAfter).includes('ClusterNetworkPolicy'));

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-removal-argocd-'));
  appFile = path.join(work, 'application.yaml');
  fs.writeFileSync(appFile, dumpYaml(rendered.application));
  await installAntreaMember(clusters.get('rm-argocd')!, compile(model()).plan!, MEMBER);
});

it("GIVEN Argo CD (v3.2.6's tracking, cascade deletion and AppProject permissions) WHEN east's Application is deleted and only once it is gone the AppProject is re-applied THEN all but CRDs and Antrea's Deployment is gone", async () => {
  const cluster = clusters.get('rm-argocd')!;
  await applyProject(projectBefore);
  await syncEast();
  const report = cascadeEast();
  assert.equal(
    report.managed.map(refKey).sort(),
    bundle
      .filter((b) => !isCrd(b.obj))
      .map((b) => key(b.obj))
      .sort(),
    "Argo CD manages exactly the bundle's tracked objects (not its CRD, not Antrea's own objects)",
  );
  assert.is(report.propagationPolicy, 'Background', 'the background finalizer');
  assert.equal(report.unpermitted, [], 'the project still permits everything east holds');
  assert.equal(
    report.kept.map((k) => `${refKey(k)}: ${k.reason}`),
    [`Deployment kube-system/${MEMBER_CONTROLLER_DEPLOYMENT}: argocd.argoproj.io/sync-options: Delete=false`],
  );
  assert.ok(report.batches.length > 1, 'deleted batch by batch');
  assert.equal(report.batches.flat().map(refKey).sort(), EXPECTED_GONE);
  // East's Application is gone: now the AppProject may narrow.
  await applyProject(projectAfter);
  const kept = await present(cluster, bundle);
  assert.equal(kept, EXPECTED_KEPT);
  remaining.set('argocd', kept);
});

/** East's objects that the narrowed project no longer permits: every namespaced one (its destination is gone) and the stretched policy (its kind is gone). */
const LEFT_BEHIND = [
  'ClusterNetworkPolicy cart-stretched',
  'ClusterSet kube-system/test-set',
  'ServiceExport shop/cart',
];

it("fails to remove east when the AppProject is re-applied first (before east's Application is deleted): Argo CD deletes only what the narrowed project permits and drops the finalizer, leaving east's namespaced objects and its policy", async () => {
  const cluster = clusters.get('rm-argocd')!;
  await applyProject(projectBefore);
  await syncEast();
  await applyProject(projectAfter);
  const report = cascadeEast();
  // Antrea's Deployment is namespaced too, so unpermitted as well; it stays either way (Delete=false).
  assert.equal(
    report.unpermitted.map(refKey).sort(),
    [...LEFT_BEHIND, `Deployment kube-system/${MEMBER_CONTROLLER_DEPLOYMENT}`].sort(),
  );
  assert.equal(
    report.batches.flat().map(refKey).sort(),
    EXPECTED_GONE.filter((k) => !LEFT_BEHIND.includes(k)),
  );
  assert.equal(await present(cluster, bundle), [...EXPECTED_KEPT, ...LEFT_BEHIND].sort(), 'left behind');
});

it('fails to remove anything while the AppProject is missing (pruned, say): every reconcile fails and the Application keeps its finalizer; once the project that permits east is back, the leftovers go', async () => {
  const cluster = clusters.get('rm-argocd')!;
  await deleteProject(projectAfter);
  let error = '';
  try {
    cascadeEast('3s');
  } catch (e) {
    error = String((e as { stderr?: string }).stderr ?? e);
  }
  assert.match(error, /did not finish in 3s; last reconcile: AppProject argocd\/test-set: .*not found/);
  assert.equal(await present(cluster, bundle), [...EXPECTED_KEPT, ...LEFT_BEHIND].sort(), 'nothing deleted');
  // The leftovers still carry east's tracking: the project that permits east collects them.
  await applyProject(projectBefore);
  const report = cascadeEast();
  assert.equal(report.unpermitted, []);
  assert.equal(report.batches.flat().map(refKey).sort(), LEFT_BEHIND);
  assert.equal(await present(cluster, bundle), EXPECTED_KEPT);
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
