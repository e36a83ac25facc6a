// End-to-end: the real Flux (source-controller and kustomize-controller, test/flux, run by
// test/delivery/flux.ts) on real control planes (test/kube), fed by a git repository served over
// smart HTTP (test/delivery/git-server.ts). A management cluster runs Flux; a Kustomization applies a
// small kustomize folder to it, another to a remote cluster through a kubeconfig Secret; a pushed
// change converges on both and what the commit removed is pruned.
//
// Everything is started inside the first test, not in a before() hook: uvu 0.5.6 swallows errors
// thrown by before() hooks and would exit 0.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import type { Flux } from '../delivery/flux';
import { startFlux } from '../delivery/flux';
import type { GitServer } from '../delivery/git-server';
import { startGitServer } from '../delivery/git-server';
import { LEADER_APPLIED } from '../../lib/render/flux';

interface Env {
  mgmt: Cluster;
  remote: Cluster;
  git: GitServer;
  flux: Flux;
}

const t0 = Date.now();
const log = (msg: string) =>
  process.stderr.write(`flux-smoke +${((Date.now() - t0) / 1000).toFixed(1)}s ${msg}\n`);

let started: Promise<Env> | undefined;
function env(): Promise<Env> {
  started ??= (async () => {
    const [clusters, git] = await Promise.all([startClusters(['mgmt', 'remote']), startGitServer()]);
    const mgmt = clusters.get('mgmt')!;
    const remote = clusters.get('remote')!;
    log('clusters and git server up');
    const flux = await startFlux(mgmt);
    log(
      `flux up (source-controller ${flux.versions.source}, kustomize-controller ${flux.versions.kustomize})`,
    );
    return { mgmt, remote, git, flux };
  })();
  return started;
}

const NS = 'flux-smoke';

function tree(settings: Record<string, string>, withExtra: boolean): Map<string, string> {
  const files = new Map<string, string>();
  const resources = ['namespace.yaml', 'settings.yaml', ...(withExtra ? ['extra.yaml'] : [])];
  files.set(
    'apps/kustomization.yaml',
    ['apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', 'resources:']
      .concat(resources.map((r) => `  - ${r}`))
      .join('\n') + '\n',
  );
  files.set('apps/namespace.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${NS}\n`);
  files.set(
    'apps/settings.yaml',
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${NS}\ndata:\n` +
      Object.entries(settings)
        .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
        .join(''),
  );
  // For the last test: a ConfigMap whose name the API server refuses (not a DNS subdomain).
  files.set(
    'broken/configmap.yaml',
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_Valid\n  namespace: default\n`,
  );
  // For the dependency test: a Deployment no node runs (these clusters have none), so that a
  // Kustomization applying it fails its health checks; and a ConfigMap for the ones that depend on it.
  files.set(
    'gate/deployment.yaml',
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: gate, namespace: default}',
      'spec:',
      '  selector: {matchLabels: {app: gate}}',
      '  template:',
      '    metadata: {labels: {app: gate}}',
      '    spec: {containers: [{name: c, image: registry.invalid/gate:1}]}',
      '',
    ].join('\n'),
  );
  files.set(
    'after-gate/configmap.yaml',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-gate\n  namespace: default\n',
  );
  if (withExtra)
    files.set(
      'apps/extra.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: ${NS}\ndata:\n  x: "1"\n`,
    );
  return files;
}

function kustomization(name: string, kubeconfigSecret?: string): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      sourceRef: { kind: 'GitRepository', name: 'gitops' },
      path: './apps',
      prune: true,
      wait: true,
      timeout: '1m',
      ...(kubeconfigSecret ? { kubeConfig: { secretRef: { name: kubeconfigSecret } } } : {}),
    },
  };
}

interface Stored {
  metadata: { managedFields?: { manager?: string; operation?: string }[]; labels?: Record<string, string> };
  data?: Record<string, string>;
}

async function get(cluster: Cluster, urlPath: string): Promise<Stored | undefined> {
  const res = await request(cluster.admin, 'GET', urlPath);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`${cluster.name}: GET ${urlPath}: HTTP ${res.status}: ${res.body}`);
  return res.json as Stored;
}

const NS_PATH = `/api/v1/namespaces/${NS}`;
const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;

function assertAppliedByFlux(o: Stored | undefined, what: string, ks: string): void {
  assert.ok(o, `${what} exists`);
  const managers = (o.metadata.managedFields ?? []).map((f) => `${f.manager}/${f.operation}`);
  assert.ok(managers.includes('kustomize-controller/Apply'), `${what}: managers ${managers.join(', ')}`);
  assert.is(o.metadata.labels?.['kustomize.toolkit.fluxcd.io/name'], ks, `${what}: Flux's owner label`);
  assert.is(o.metadata.labels?.['kustomize.toolkit.fluxcd.io/namespace'], 'flux-system');
}

const it = suite('flux smoke');

let first = '';

it('GIVEN a commit and two Kustomizations (mgmt, remote by kubeconfig) WHEN applied THEN both are Ready at that revision with the objects applied by kustomize-controller', async () => {
  const { mgmt, remote, git, flux } = await env();
  first = await git.commit(tree({ greeting: 'hello' }, true), 'first');
  await flux.addKubeconfigSecret(remote);
  await flux.apply(
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: 'gitops', namespace: 'flux-system' },
      spec: { url: git.url, ref: { branch: git.branch }, interval: '10m', timeout: '20s' },
    },
    kustomization('mgmt'),
    kustomization('remote', 'remote-kubeconfig'),
  );
  const [m, r] = await Promise.all([
    flux.waitReady('mgmt', { revision: first }),
    flux.waitReady('remote', { revision: first }),
  ]);
  log('first revision Ready on both');
  for (const k of [m, r]) {
    const status = k.status as { lastAppliedRevision: string; inventory?: { entries: { id: string }[] } };
    assert.is(status.lastAppliedRevision, `${git.branch}@sha1:${first}`);
    assert.equal(
      status.inventory?.entries.map((e) => e.id).sort(),
      // Flux's inventory ids: <namespace>_<name>_<group>_<kind>
      [`${NS}_extra__ConfigMap`, `${NS}_settings__ConfigMap`, `_${NS}__Namespace`].sort(),
    );
  }
  for (const [c, ks] of [
    [mgmt, 'mgmt'],
    [remote, 'remote'],
  ] as const) {
    assertAppliedByFlux(await get(c, NS_PATH), `${c.name}: Namespace`, ks);
    const settings = await get(c, cmPath('settings'));
    assertAppliedByFlux(settings, `${c.name}: ConfigMap settings`, ks);
    assert.equal(settings?.data, { greeting: 'hello' });
    assertAppliedByFlux(await get(c, cmPath('extra')), `${c.name}: ConfigMap extra`, ks);
  }
});

it('GIVEN a pushed change (ConfigMap changed, one removed) WHEN a reconcile is requested THEN both converge and the removed object is pruned', async () => {
  const { mgmt, remote, git, flux } = await env();
  assert.ok(first, 'the first test ran');
  const second = await git.commit(tree({ greeting: 'hello again' }, false), 'second');
  await flux.requestReconcile('GitRepository', 'gitops');
  await Promise.all([
    flux.requestReconcile('Kustomization', 'mgmt'),
    flux.requestReconcile('Kustomization', 'remote'),
  ]);
  await Promise.all([
    flux.waitReady('mgmt', { revision: second }),
    flux.waitReady('remote', { revision: second }),
  ]);
  log('second revision Ready on both');
  for (const c of [mgmt, remote]) {
    assert.equal(
      (await get(c, cmPath('settings')))?.data,
      { greeting: 'hello again' },
      `${c.name}: settings`,
    );
    assert.is(await get(c, cmPath('extra')), undefined, `${c.name}: extra pruned`);
    assert.ok(await get(c, NS_PATH), `${c.name}: Namespace kept`);
  }
  const repo = await flux.gitRepository('gitops');
  assert.is(
    (repo?.status as { artifact?: { revision?: string } }).artifact?.revision,
    `${git.branch}@sha1:${second}`,
  );
});

it('GIVEN a Kustomization with an object the API server refuses WHEN reconciled THEN waitReady({ ready: false }) returns its failure at the head revision', async () => {
  const { mgmt, git, flux } = await env();
  const head = await git.head();
  assert.ok(head);
  const k = kustomization('broken');
  await flux.apply({ ...k, spec: { ...(k.spec as object), path: './broken' } });
  const failed = await flux.waitReady('broken', { ready: false, revision: head });
  const ready = (
    failed.status as { conditions: { type: string; reason: string; message: string }[] }
  ).conditions.find((c) => c.type === 'Ready');
  assert.is(ready?.reason, 'ReconciliationFailed');
  assert.match(ready?.message ?? '', 'Not_Valid');
  assert.is(await get(mgmt, '/api/v1/namespaces/default/configmaps/Not_Valid'), undefined);
});

it("GIVEN a leader-like Kustomization whose first reconcile fails its health checks WHEN others depend on it THEN one with the members' readyExpr is delivered, one that also wants its observedGeneration current is held back", async () => {
  const { mgmt, git, flux } = await env();
  const head = await git.head();
  assert.ok(head);
  const gate = kustomization('gate');
  await flux.apply({ ...gate, spec: { ...(gate.spec as object), path: './gate', timeout: '5s' } });
  const failed = await flux.waitReady('gate', { ready: false, revision: head });
  const st = failed.status as { observedGeneration?: number; conditions: { type: string; reason: string }[] };
  assert.is(st.conditions.find((c) => c.type === 'Ready')?.reason, 'HealthCheckFailed');
  // kustomize-controller records observedGeneration only once Ready: never, here.
  assert.is.not(st.observedGeneration, (failed.metadata as { generation: number }).generation);
  const dependent = (name: string, readyExpr: string) => {
    const k = kustomization(name);
    return {
      ...k,
      spec: { ...(k.spec as object), path: './after-gate', dependsOn: [{ name: 'gate', readyExpr }] },
    };
  };
  const held =
    "dep.metadata.generation == dep.status.observedGeneration && dep.status.conditions.exists(c, c.type == 'Ready' && (c.status == 'True' || c.reason == 'HealthCheckFailed'))";
  await flux.apply(dependent('after-gate', LEADER_APPLIED), dependent('held-back', held));
  await flux.waitReady('after-gate', { revision: head });
  assert.ok(await get(mgmt, '/api/v1/namespaces/default/configmaps/after-gate'), 'applied');
  const waiting = await flux.waitReady('held-back', { ready: false });
  const why = (waiting.status as { conditions: { type: string; reason: string }[] }).conditions.find(
    (c) => c.type === 'Ready',
  );
  assert.is(why?.reason, 'DependencyNotReady');
});

it.after(async () => {
  const e = await started?.catch(() => undefined);
  await e?.flux.stop();
  await e?.git.stop();
  await stopAll();
  log('stopped');
});

it.run();
