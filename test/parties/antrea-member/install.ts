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
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MEMBER_CONFIG_KEY } from '../../../lib/antrea-member-config';
import { MEMBER_CONTROLLER_CONFIG, MEMBER_CONTROLLER_DEPLOYMENT } from '../../../lib/names';
import { serviceNamespacesIn, type Plan } from '../../../lib/plan';
import { usesClusterSetV1Alpha2 } from '../../../lib/render/clusterset';
import { dumpYaml, loadYaml } from '../../../lib/yaml';
import type { BundleObject } from '../argocd-apply';
import { applyObject } from '../argocd-apply';
import type { Cluster } from '../../kube/cluster';
import { request } from '../../kube/cluster';
import { ANTREA_MEMBER_CRDS } from '../../e2e/crds';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export const ANTREA_MEMBER_DEPLOYMENT = MEMBER_CONTROLLER_DEPLOYMENT;
export const ANTREA_INSTALL_MANAGER = 'kubectl-client-side-apply';
/** Field manager of the application teams' own delivery, which creates their Namespaces. */
export const APPLICATION_TEAM_MANAGER = 'application-team';

/**
 * The member controller ConfigMap as Antrea's member manifest ships it, with Antrea's default settings
 * (antrea-mc.md §e Member; no CIDRs). The team then makes it hold what `clusterset explain --cluster
 * <member>` prints (docs/what-lands-where.md, "Objects the team already owns"); no Antrea reads it
 * here.
 */
export const ANTREA_DEFAULT_MEMBER_CONFIG = [
  'apiVersion: multicluster.crd.antrea.io/v1alpha1',
  'kind: MultiClusterConfig',
  'health:',
  '  healthProbeBindAddress: :8080',
  'metrics:',
  '  bindAddress: "0"',
  'webhook:',
  '  port: 9443',
  'leaderElection:',
  '  leaderElect: false',
  'serviceCIDR: ""',
  'podCIDRs:',
  '  - ""',
  'gatewayIPPrecedence: "private"',
  'endpointIPType: "ClusterIP"',
  'enableStretchedNetworkPolicy: false',
  '',
].join('\n');

export function antreaMemberConfigMap(
  namespace: string,
  config = ANTREA_DEFAULT_MEMBER_CONFIG,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: MEMBER_CONTROLLER_CONFIG, namespace, labels: { app: 'antrea' } },
    data: { [MEMBER_CONFIG_KEY]: config },
  };
}

export function antreaMemberDeployment(namespace: string): Record<string, unknown> {
  const labels = { app: 'antrea', 'control-plane': 'antrea-mc-controller' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: ANTREA_MEMBER_DEPLOYMENT, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'antrea-mc-controller',
          containers: [
            {
              name: 'antrea-mc-controller',
              image: 'antrea/antrea-mc-controller:v2.7.0',
              command: ['/antrea-mc-controller', 'member'],
              args: ['--config=/controller_manager_config.yaml'],
              volumeMounts: [
                {
                  name: 'antrea-mc-controller-config',
                  mountPath: '/controller_manager_config.yaml',
                  subPath: 'controller_manager_config.yaml',
                },
              ],
            },
          ],
          volumes: [
            { name: 'antrea-mc-controller-config', configMap: { name: 'antrea-mc-controller-config' } },
          ],
        },
      },
    },
  };
}

/**
 * `kubectl apply -f` of `objects` (client-side, as Antrea's install guide and `antctl mc deploy`
 * users run it) against `cluster`.
 */
export function kubectlApply(cluster: Cluster, objects: readonly Record<string, unknown>[]): void {
  const file = path.join(cluster.dir, `kubectl-apply-${process.pid}-${Date.now()}.yaml`);
  fs.writeFileSync(file, objects.map((o) => dumpYaml(o)).join('---\n'));
  try {
    execFileSync('kubectl', ['--kubeconfig', cluster.kubeconfigPath, 'apply', '-f', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  } catch (e) {
    const x = e as { stderr?: Buffer; message: string };
    throw new Error(`kubectl apply -f ${file}: ${x.stderr?.toString() ?? x.message}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

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
  kubectlApply(cluster, [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'antrea-mc-controller', namespace, labels: { app: 'antrea' } },
    },
    ...(plan.takeOver.memberControllerConfig ? [] : [antreaMemberConfigMap(namespace)]),
    antreaMemberDeployment(namespace),
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
