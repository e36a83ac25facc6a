/**
 * Antrea's member controller Deployment as Antrea's member manifest installs it
 * (YAMLS/antrea-multicluster-member.yml: Deployment `antrea-mc-controller` in the member controller
 * namespace, labels `app: antrea` and `control-plane: antrea-mc-controller`, one replica, the
 * config file mounted from ConfigMap `antrea-mc-controller-config`), created the way `kubectl apply`
 * creates it (field manager `kubectl-client-side-apply`). No kubelet runs in test/kube, so its Pods
 * stay Pending; kube-controller-manager still rolls out a ReplicaSet per Pod template.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MEMBER_CONTROLLER_DEPLOYMENT } from '../../lib/names';
import type { Plan } from '../../lib/plan';
import { usesClusterSetV1Alpha2 } from '../../lib/render/clusterset';
import { loadYaml } from '../../lib/yaml';
import type { BundleObject } from '../kube/apply';
import { applyObject } from '../kube/apply';
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';
import { ANTREA_MEMBER_CRDS } from './crds';

const ROOT = path.resolve(__dirname, '..', '..');

export const ANTREA_MEMBER_DEPLOYMENT = MEMBER_CONTROLLER_DEPLOYMENT;
export const ANTREA_INSTALL_MANAGER = 'kubectl-client-side-apply';

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

/** Creates the Deployment (and its Namespace when missing) as `kubectl apply` would on a fresh member. */
export async function installAntreaMemberDeployment(cluster: Cluster, namespace: string): Promise<void> {
  const q = `fieldManager=${ANTREA_INSTALL_MANAGER}`;
  const ns = await request(cluster.admin, 'POST', `/api/v1/namespaces?${q}`, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  if (ns.status !== 201 && ns.status !== 409)
    throw new Error(`namespace ${namespace}: HTTP ${ns.status} ${ns.body}`);
  const r = await request(
    cluster.admin,
    'POST',
    `/apis/apps/v1/namespaces/${namespace}/deployments?${q}`,
    antreaMemberDeployment(namespace),
  );
  if (r.status !== 201)
    throw new Error(`Deployment ${namespace}/${ANTREA_MEMBER_DEPLOYMENT}: HTTP ${r.status} ${r.body}`);
}

/** CRDs of External Secrets, which a member must run when the model delivers its token that way. */
const EXTERNAL_SECRETS_CRDS = [
  'external-secrets.io_externalsecrets.yaml',
  'external-secrets.io_secretstores.yaml',
];

/**
 * Prepares a member as Antrea's member manifest would (and External Secrets' chart, when used): its
 * CRDs, then its member controller Deployment, which the bundle's restart object patches. Antrea
 * before 1.13 shipped a ClusterSet CRD whose only version was v1alpha1; that CRD is not vendored, so
 * for such targets the vendored one is cut down to its v1alpha1 version (made the storage version),
 * which is what those members read.
 */
export async function installAntreaMember(cluster: Cluster, plan: Plan): Promise<void> {
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
  await installAntreaMemberDeployment(cluster, plan.memberNamespace);
}
