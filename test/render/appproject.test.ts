import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { CRD_DIR, loadCrd } from '../../lib/crds';
import type { ClusterSetProps } from '../../lib/model';
import type { K8sObject } from '../../lib/render';
import { groupOf, isNamespaced } from '../../lib/render/appproject';
import { validateObject } from '../../lib/validate';
import { deliveryOf } from '../helpers/delivery';
import { caseNames, loadCase } from '../helpers/golden';
import { minimalModel, only, type ModelDraft } from '../helpers/models';

const REPO = 'https://git.example.com/platform/gitops.git';
const IN_CLUSTER = 'https://kubernetes.default.svc';

function withDelivery(m: ModelDraft, extra: Partial<NonNullable<ModelDraft['delivery']>> = {}): ModelDraft {
  m.delivery = { repoURL: REPO, managementCluster: 'hub', ...extra };
  return m;
}

type GK = { group: string; kind: string };
type Destination = { server?: string; name?: string; namespace?: string };
type ProjectSpec = {
  sourceRepos: string[];
  destinations: Destination[];
  clusterResourceWhitelist: GK[];
  namespaceResourceWhitelist: GK[];
  orphanedResources?: unknown;
};
const projectSpec = (o: K8sObject) => o.spec as ProjectSpec;

/**
 * Argo CD's own test of a resource against a project (AppProject.IsResourcePermitted, v3.6): the
 * group/kind must be in the whitelist of its scope (we list no patterns, so equality is Argo CD's
 * glob match), and a namespaced object's namespace must be a permitted destination of its cluster.
 */
function refusal(p: ProjectSpec, dest: Destination, o: K8sObject): string | undefined {
  const gk = { group: groupOf(o), kind: o.kind };
  const list = isNamespaced(o) ? p.namespaceResourceWhitelist : p.clusterResourceWhitelist;
  const key = `${gk.group}/${gk.kind}`;
  if (!list.some((w) => w.group === gk.group && w.kind === gk.kind))
    return `${key} is not in the ${isNamespaced(o) ? 'namespace' : 'cluster'} resource whitelist`;
  if (isNamespaced(o) && !destinationPermitted(p, { ...dest, namespace: o.metadata.namespace }))
    return `namespace ${o.metadata.namespace} of ${key} is not a permitted destination`;
  return undefined;
}

/** Argo CD's isDestinationMatched, for the exact values and `*` we render. */
function destinationPermitted(p: ProjectSpec, dst: Destination): boolean {
  const glob = (pattern: string | undefined, v: string | undefined) =>
    pattern === '*' || (pattern ?? '') === (v ?? '');
  return p.destinations.some(
    (d) =>
      ((dst.server !== undefined && glob(d.server, dst.server)) ||
        (dst.name !== undefined && glob(d.name, dst.name))) &&
      glob(d.namespace, dst.namespace),
  );
}

/**
 * Every golden case, given delivery from its leader when its model has none, and the rendered
 * AppProject when its model names an existing one (two-networks does).
 */
function deliveredCases(): [string, ClusterSetProps][] {
  return caseNames().map((name) => {
    const m = structuredClone(loadCase(name)) as ModelDraft;
    m.delivery ??= { repoURL: REPO, managementCluster: m.leader };
    if (m.delivery.argocd) m.delivery.argocd = { ...m.delivery.argocd, project: undefined };
    return [name, m as ClusterSetProps];
  });
}

/** Every object a project must permit: each bundle's objects with its Application's destination. */
function refusals(r: ReturnType<typeof compile>, project: ProjectSpec): string[] {
  const out: string[] = [];
  const apps = r.delivery?.get('argocd/apps') ?? [];
  for (const [cluster, objects] of r.bundles ?? []) {
    const app = apps.find((a) =>
      (a.spec as { source: { path: string } }).source.path.endsWith(`/${cluster}`),
    );
    if (!app) {
      out.push(`${cluster}: no Application`);
      continue;
    }
    const dest = (app.spec as { destination: Destination }).destination;
    if (!destinationPermitted(project, dest)) out.push(`${cluster}: destination ${JSON.stringify(dest)}`);
    for (const o of objects) {
      const why = refusal(project, dest, o);
      if (why) out.push(`${cluster}: ${why}`);
    }
  }
  // The root Application syncs the per-cluster Applications into Argo CD's namespace.
  const root = only(r.delivery?.get('argocd') ?? [], 'Application');
  const rootDest = (root.spec as { destination: Destination }).destination;
  if (!destinationPermitted(project, rootDest)) out.push(`root: destination ${JSON.stringify(rootDest)}`);
  for (const o of apps) {
    const why = refusal(project, rootDest, o);
    if (why) out.push(`root: ${why}`);
  }
  return out;
}

test('GIVEN delivery WHEN rendered THEN an AppProject named the ClusterSet ID, beside the root Application, holds every Application', () => {
  const f = deliveryOf(withDelivery(minimalModel()));
  const project = only(f.get('argocd') ?? [], 'AppProject');
  assert.equal(project.metadata, {
    name: 'test-set',
    namespace: 'argocd',
    labels: { 'app.kubernetes.io/managed-by': 'clusterset', 'app.kubernetes.io/part-of': 'test-set' },
  });
  assert.equal(
    f.get('argocd/apps')?.filter((o) => o.kind === 'AppProject'),
    [],
    'never synced from git',
  );
  const all = [...(f.get('argocd') ?? []), ...(f.get('argocd/apps') ?? [])].filter(
    (o) => o.kind === 'Application',
  );
  assert.is(all.length, 4);
  for (const a of all) assert.is((a.spec as { project: string }).project, 'test-set', a.metadata.name);
});

test('GIVEN delivery by server URL from hub WHEN rendered THEN the project permits only the repository, the three clusters and the Argo CD namespace', () => {
  const p = projectSpec(only(deliveryOf(withDelivery(minimalModel())).get('argocd') ?? [], 'AppProject'));
  assert.equal(p.sourceRepos, [REPO]);
  assert.equal(p.destinations, [
    { namespace: 'argocd', server: IN_CLUSTER },
    { namespace: '*', server: 'https://east.example.com:6443' },
    { namespace: '*', server: IN_CLUSTER },
    { namespace: '*', server: 'https://west.example.com:6443' },
  ]);
  assert.is(p.orphanedResources, undefined);
});

test('GIVEN destinationBy name, namespace gitops, management cluster east WHEN rendered THEN destinations name hub and west and east is in-cluster', () => {
  const m = withDelivery(minimalModel(), {
    managementCluster: 'east',
    argocd: { destinationBy: 'name', namespace: 'gitops' },
  });
  m.admission = { deliveryUsers: ['system:serviceaccount:kube-system:argocd-manager'] };
  const project = only(deliveryOf(m).get('argocd') ?? [], 'AppProject');
  assert.is(project.metadata.namespace, 'gitops');
  assert.equal(projectSpec(project).destinations, [
    { namespace: 'gitops', server: IN_CLUSTER },
    { namespace: '*', server: IN_CLUSTER },
    { name: 'hub', namespace: '*' },
    { name: 'west', namespace: '*' },
  ]);
});

test('GIVEN delivery.argocd.project WHEN rendered THEN no AppProject and every Application in the named project', () => {
  const f = deliveryOf(withDelivery(minimalModel(), { argocd: { project: 'platform' } }));
  const objs = [...(f.get('argocd') ?? []), ...(f.get('argocd/apps') ?? [])];
  assert.equal(
    objs.filter((o) => o.kind === 'AppProject'),
    [],
  );
  assert.is(objs.length, 4);
  for (const a of objs) assert.is((a.spec as { project: string }).project, 'platform');
});

test('GIVEN the minimal model WHEN rendered THEN the whitelists hold exactly its bundle kinds by scope, plus Application', () => {
  const p = projectSpec(only(deliveryOf(withDelivery(minimalModel())).get('argocd') ?? [], 'AppProject'));
  const keys = (l: GK[]) => l.map((g) => `${g.group}/${g.kind}`);
  assert.ok(keys(p.clusterResourceWhitelist).includes('/Namespace'));
  assert.ok(keys(p.namespaceResourceWhitelist).includes('argoproj.io/Application'));
  assert.ok(keys(p.namespaceResourceWhitelist).includes('multicluster.crd.antrea.io/ClusterSet'));
  assert.not.ok(keys(p.clusterResourceWhitelist).includes('multicluster.crd.antrea.io/ClusterSet'));
  assert.equal(keys(p.clusterResourceWhitelist), [...keys(p.clusterResourceWhitelist)].sort(), 'sorted');
});

test('GIVEN every golden case with delivery WHEN compiled THEN Argo CD permits every object of every bundle and every Application, and nothing more', () => {
  for (const [name, m] of deliveredCases()) {
    const r = compile(m);
    assert.equal(r.diagnostics, [], name);
    const p = projectSpec(only(r.delivery?.get('argocd') ?? [], 'AppProject'));
    assert.equal(refusals(r, p), [], name);
    // Nothing more: every whitelisted kind is rendered somewhere.
    const rendered = new Set(
      [...(r.bundles?.values() ?? []), r.delivery?.get('argocd/apps') ?? []]
        .flat()
        .map((o) => `${isNamespaced(o)}:${groupOf(o)}/${o.kind}`),
    );
    for (const w of p.clusterResourceWhitelist)
      assert.ok(rendered.has(`false:${w.group}/${w.kind}`), `${name}: unused ${w.group}/${w.kind}`);
    for (const w of p.namespaceResourceWhitelist)
      assert.ok(rendered.has(`true:${w.group}/${w.kind}`), `${name}: unused ${w.group}/${w.kind}`);
  }
});

test('fails the permission check GIVEN a golden project WHEN any one whitelisted kind is removed THEN the objects of that kind are refused', () => {
  for (const [name, m] of deliveredCases()) {
    const r = compile(m);
    const p = projectSpec(only(r.delivery?.get('argocd') ?? [], 'AppProject'));
    for (const field of ['clusterResourceWhitelist', 'namespaceResourceWhitelist'] as const) {
      for (const w of p[field]) {
        const narrowed = { ...p, [field]: p[field].filter((x) => x !== w) };
        const refused = refusals(r, narrowed);
        assert.ok(refused.length > 0, `${name}: dropping ${w.group}/${w.kind} went unnoticed`);
        assert.ok(
          refused.every((x) => x.includes(`${w.group}/${w.kind} is not in`)),
          `${name}: ${refused.join('; ')}`,
        );
      }
    }
    const noCluster = { ...p, destinations: p.destinations.slice(0, -1) };
    assert.ok(refusals(r, noCluster).length > 0, `${name}: dropping a destination went unnoticed`);
  }
});

test('GIVEN every kind the golden bundles hold WHEN its scope is looked up THEN namespaced objects are exactly those of Namespaced CRDs and built-ins', () => {
  const crdScope = new Map<string, string>();
  for (const file of fs.readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'))) {
    const crd = loadCrd(path.basename(file));
    crdScope.set(`${crd.spec.group}/${crd.spec.names.kind}`, crd.spec.scope);
  }
  const clusterBuiltins = new Set([
    '/Namespace',
    'apiextensions.k8s.io/CustomResourceDefinition',
    'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
    'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  ]);
  let seen = 0;
  for (const [name, m] of deliveredCases()) {
    for (const o of [...(compile(m).bundles?.values() ?? [])].flat()) {
      const key = `${groupOf(o)}/${o.kind}`;
      const scope = crdScope.get(key) ?? (clusterBuiltins.has(key) ? 'Cluster' : 'Namespaced');
      assert.is(isNamespaced(o), scope === 'Namespaced', `${name}: ${key} ${o.metadata.name}`);
      seen++;
    }
  }
  assert.ok(seen > 100);
});

test('GIVEN the rendered AppProject WHEN validated against its CRD THEN it is accepted, and an unknown field is refused', () => {
  const project = only(deliveryOf(withDelivery(minimalModel())).get('argocd') ?? [], 'AppProject');
  assert.equal(validateObject(project, 'p'), []);
  const broken = { ...project, spec: { ...(project.spec as object), sourceRepo: REPO } };
  assert.equal(
    validateObject(broken, 'p').map((d) => `${d.rule} ${d.path}`),
    ['output-schema p#/spec'],
  );
});

test.run();
