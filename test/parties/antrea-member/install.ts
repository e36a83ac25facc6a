/**
 * A member as its owners leave it before clusterset's bundle arrives.
 *
 * Antrea's member manifest (YAMLS/antrea-multicluster-member.yml) installs the member CRDs, the
 * Deployment `antrea-mc-controller` in the member controller namespace (labels `app: antrea` and
 * `control-plane: antrea-mc-controller`, one replica, the config file mounted from ConfigMap
 * `antrea-mc-controller-config`) and that ConfigMap, with Antrea's defaults, unless the model takes
 * it over (`takeOver.memberControllerConfig`: the team has dropped it from the install), and the
 * controller's ServiceAccount. They are installed with `kubectl apply` itself (client-side: field
 * manager `kubectl-client-side-apply` and the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation, which decides what a later server-side apply by anyone else takes over: Argo CD's
 * partial apply of this Deployment failed on exactly that). No Antrea image exists here, so on a
 * cluster with a node its Pod does not start (and without one it stays Pending);
 * kube-controller-manager still rolls out a ReplicaSet per Pod template.
 *
 * The application teams create the Namespaces of the exported Services, unless the model takes them
 * over (`takeOver.serviceNamespaces`): a ServiceExport in a missing Namespace is refused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serviceNamespacesIn, type Plan } from '../../../lib/plan';
import { usesClusterSetV1Alpha2 } from '../../../lib/render/clusterset';
import { loadYaml } from '../../../lib/yaml';
import type { BundleObject } from '../argocd-apply';
import { applyObject } from '../argocd-apply';
import type { Cluster } from '../../kube/cluster';
import { request } from '../../kube/cluster';
import {
  ANTREA_DEFAULT_MEMBER_CONFIG,
  ANTREA_MEMBER_CRDS,
  antreaControllerDeployment,
  antreaMemberConfigMap,
} from '../antrea-manifests';
import { kubectlApply, KUBECTL_CLIENT_SIDE_MANAGER } from '../kubectl';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export const ANTREA_INSTALL_MANAGER = KUBECTL_CLIENT_SIDE_MANAGER;
/** Field manager of the application teams' own delivery, which creates their Namespaces. */
export const APPLICATION_TEAM_MANAGER = 'application-team';

/** POSTs `obj` to `collection` as `manager`; an object that exists already is left as it is. */
async function create(cluster: Cluster, collection: string, obj: unknown, manager: string): Promise<void> {
  const r = await request(cluster.admin, 'POST', `${collection}?fieldManager=${manager}`, obj);
  if (r.status !== 201 && r.status !== 409) throw new Error(`POST ${collection}: HTTP ${r.status} ${r.body}`);
}

/**
 * Creates what Antrea's member manifest puts in the member controller namespace (the Namespace itself
 * when missing, as whoever installs Antrea there must), with `kubectl apply` on a fresh member: the
 * controller's ServiceAccount, its ConfigMap, unless the model takes it over, and its Deployment.
 */
export async function installAntreaMemberDeployment(cluster: Cluster, plan: Plan): Promise<void> {
  const namespace = plan.memberNamespace;
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
  await create(cluster, '/api/v1/namespaces', ns, ANTREA_INSTALL_MANAGER);
  applyAntreaMemberManifest(
    cluster,
    namespace,
    plan.takeOver.memberControllerConfig ? undefined : ANTREA_DEFAULT_MEMBER_CONFIG,
  );
}

/**
 * `kubectl apply` of Antrea's member manifest's objects in the member controller namespace: the
 * controller's ServiceAccount, its ConfigMap holding `config` (none when undefined: the model took it
 * over) and its Deployment.
 */
export function applyAntreaMemberManifest(
  cluster: Cluster,
  namespace: string,
  config: string | undefined,
): void {
  kubectlApply(cluster, [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'antrea-mc-controller', namespace, labels: { app: 'antrea' } },
    },
    ...(config === undefined ? [] : [antreaMemberConfigMap(namespace, config)]),
    antreaControllerDeployment(namespace, 'member'),
  ]);
}

/**
 * Creates the exported Services' Namespaces `member` needs, as the application teams' own delivery
 * would, unless the model takes them over (then the bundle brings them).
 */
export async function createApplicationNamespaces(
  cluster: Cluster,
  plan: Plan,
  member: string,
): Promise<void> {
  if (plan.takeOver.serviceNamespaces) return;
  const m = plan.members.find((x) => x.id === member);
  if (!m) throw new Error(`${member} is not a member`);
  for (const name of serviceNamespacesIn(plan, m)) {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    await create(cluster, '/api/v1/namespaces', ns, APPLICATION_TEAM_MANAGER);
  }
}

/** CRDs of External Secrets, which a member must run when the model delivers its token that way. */
const EXTERNAL_SECRETS_CRDS = [
  'external-secrets.io_externalsecrets.yaml',
  'external-secrets.io_secretstores.yaml',
];

/**
 * Prepares a member as Antrea's member manifest would (and External Secrets' chart, when used): its
 * CRDs, then its member controller ConfigMap (unless taken over) and Deployment, which the bundle's
 * restart object patches; and the application teams' Namespaces (unless taken over). Antrea
 * before 1.13 shipped a ClusterSet CRD whose only version was v1alpha1; that CRD is not vendored, so
 * for such targets the vendored one is cut down to its v1alpha1 version (made the storage version),
 * which is what those members read.
 */
export async function installAntreaMember(
  cluster: Cluster,
  plan: Plan,
  member: string,
  /** Also the application teams' Namespaces of the Services `member` exports (default true). */
  namespaces = true,
): Promise<void> {
  for (const file of [...ANTREA_MEMBER_CRDS, ...(plan.externalSecrets ? EXTERNAL_SECRETS_CRDS : [])]) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as BundleObject['obj'];
    if (file === 'multicluster.crd.antrea.io_clustersets.yaml' && !usesClusterSetV1Alpha2(plan)) {
      const spec = obj.spec as { versions: { name: string; storage: boolean }[] };
      spec.versions = spec.versions
        .filter((v) => v.name === 'v1alpha1')
        .map((v) => ({ ...v, storage: true }));
    }
    const r = await applyObject(cluster, { file, obj, wave: 0 }, { fieldManager: 'antrea-install' });
    if ('rejection' in r) throw new Error(`installing ${file}: ${r.rejection.message}`);
  }
  await installAntreaMemberDeployment(cluster, plan);
  if (namespaces) await createApplicationNamespaces(cluster, plan, member);
}
