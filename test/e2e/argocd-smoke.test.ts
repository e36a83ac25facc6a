// End-to-end: the real Argo CD (test/delivery/argocd.ts: Argo CD v3.2.6's application controller and
// repo server, kustomize 5.7.0, redis) on real API servers (test/kube), delivering from a git
// repository served over smart HTTP (test/delivery/git-server.ts).
//
// A management cluster runs Argo CD; a remote cluster is registered as `argocd cluster add` does.
// One Application (automated sync, ServerSideApply=true) targets the remote cluster, one the
// management cluster as https://kubernetes.default.svc. Both become Synced and Healthy at the pushed
// commit, with the objects applied by the field manager `argocd-controller`; a second commit and a
// refresh (what a git webhook causes) converge both to it.
//
// Everything is started inside the first test, not in a before() hook: uvu 0.5.6 swallows errors
// thrown by before() hooks. Every test awaits the same promise, so a failed start fails them all.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import type { ArgoCD } from '../delivery/argocd';
import { ARGOCD_NAMESPACE, clusterSecretName, startArgoCD } from '../delivery/argocd';
import type { GitServer } from '../delivery/git-server';
import { startGitServer } from '../delivery/git-server';

const IN_CLUSTER = 'https://kubernetes.default.svc';
const PATH = 'smoke';

interface World {
  mgmt: Cluster;
  remote: Cluster;
  argocd: ArgoCD;
  git: GitServer;
}

let started: Promise<World> | undefined;
function world(): Promise<World> {
  started ??= (async () => {
    const clusters = await startClusters(['mgmt', 'remote']);
    const mgmt = clusters.get('mgmt')!;
    const remote = clusters.get('remote')!;
    const [argocd, git] = await Promise.all([
      startArgoCD(mgmt, { reconciliation: '15s', jitter: '0s' }),
      startGitServer(),
    ]);
    return { mgmt, remote, argocd, git };
  })();
  return started;
}

/** The repository's tree: one kustomize folder with a Namespace and a ConfigMap in it. */
function tree(greeting: string): Map<string, string> {
  return new Map([
    [
      `${PATH}/kustomization.yaml`,
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- namespace.yaml\n- configmap.yaml\n',
    ],
    [`${PATH}/namespace.yaml`, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: smoke\n'],
    [
      `${PATH}/configmap.yaml`,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: smoke\ndata:\n  greeting: ${greeting}\n`,
    ],
  ]);
}

function application(name: string, repoURL: string, server: string): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: ARGOCD_NAMESPACE },
    spec: {
      project: 'smoke',
      source: { repoURL, targetRevision: 'main', path: PATH },
      destination: { server },
      syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['ServerSideApply=true'] },
    },
  };
}

interface Stored {
  metadata: {
    annotations?: Record<string, string>;
    managedFields?: { manager: string; operation: string }[];
  };
  data?: Record<string, string>;
}

async function read(c: Cluster, urlPath: string): Promise<Stored> {
  const res = await request(c.admin, 'GET', urlPath);
  assert.is(res.status, 200, `GET ${urlPath} from ${c.name}: ${res.body}`);
  return res.json as Stored;
}

function appliedByArgoCD(o: Stored): boolean {
  return (o.metadata.managedFields ?? []).some(
    (m) => m.manager === 'argocd-controller' && m.operation === 'Apply',
  );
}

const test = suite('argocd-smoke');

test('GIVEN a pushed commit WHEN Argo CD syncs THEN both Applications are Synced and Healthy at it, applied server-side by argocd-controller', async () => {
  const { mgmt, remote, argocd, git } = await world();
  await argocd.registerCluster(remote);
  const secret = await read(
    mgmt,
    `/api/v1/namespaces/${ARGOCD_NAMESPACE}/secrets/${clusterSecretName(remote.server)}`,
  );
  const config = JSON.parse(Buffer.from(secret.data!.config!, 'base64').toString()) as Record<
    string,
    unknown
  >;
  assert.equal(Object.keys(config), ['bearerToken', 'tlsClientConfig']);

  const sha = await git.commit(tree('hello'), 'first');
  await argocd.apply(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'smoke', namespace: ARGOCD_NAMESPACE },
      spec: {
        sourceRepos: [git.url],
        destinations: [
          { server: remote.server, namespace: '*' },
          { server: IN_CLUSTER, namespace: '*' },
        ],
        clusterResourceWhitelist: [{ group: '', kind: 'Namespace' }],
      },
    },
    application('smoke-remote', git.url, remote.server),
    application('smoke-mgmt', git.url, IN_CLUSTER),
  );
  for (const name of ['smoke-remote', 'smoke-mgmt'])
    await argocd.waitApp(name, { sync: 'Synced', health: 'Healthy', revision: sha });

  for (const [c, app] of [
    [remote, 'smoke-remote'],
    [mgmt, 'smoke-mgmt'],
  ] as const) {
    const cm = await read(c, '/api/v1/namespaces/smoke/configmaps/settings');
    const ns = await read(c, '/api/v1/namespaces/smoke');
    assert.equal(cm.data, { greeting: 'hello' });
    assert.ok(appliedByArgoCD(cm), `${c.name}: ConfigMap applied by argocd-controller`);
    assert.ok(appliedByArgoCD(ns), `${c.name}: Namespace applied by argocd-controller`);
    // Argo CD v3's default tracking: the annotation.
    assert.is(
      cm.metadata.annotations?.['argocd.argoproj.io/tracking-id'],
      `${app}:/ConfigMap:smoke/settings`,
    );
  }
});

test('GIVEN a second commit WHEN the Applications are refreshed THEN both converge to it', async () => {
  const { mgmt, remote, argocd, git } = await world();
  const sha = await git.commit(tree('hola'), 'second');
  await argocd.refresh('smoke-remote');
  await argocd.refresh('smoke-mgmt');
  for (const name of ['smoke-remote', 'smoke-mgmt']) {
    const app = await argocd.waitApp(name, { sync: 'Synced', health: 'Healthy', revision: sha });
    const op = (app.status as { operationState?: { phase?: string; syncResult?: { revision?: string } } })
      .operationState;
    assert.is(op?.phase, 'Succeeded');
    assert.is(op?.syncResult?.revision, sha);
  }
  for (const c of [remote, mgmt])
    assert.equal((await read(c, '/api/v1/namespaces/smoke/configmaps/settings')).data, { greeting: 'hola' });
});

test.after(async () => {
  const w = await started?.catch(() => undefined);
  await w?.argocd.stop();
  await w?.git.stop();
  await stopAll();
});

test.run();
