/**
 * Antrea's member controller Deployment as Antrea's member manifest installs it
 * (YAMLS/antrea-multicluster-member.yml: Deployment `antrea-mc-controller` in the member controller
 * namespace, labels `app: antrea` and `control-plane: antrea-mc-controller`, one replica, the
 * config file mounted from ConfigMap `antrea-mc-controller-config`), created the way `kubectl apply`
 * creates it (field manager `kubectl-client-side-apply`). No kubelet runs in test/kube, so its Pods
 * stay Pending; kube-controller-manager still rolls out a ReplicaSet per Pod template.
 */
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';

export const ANTREA_MEMBER_DEPLOYMENT = 'antrea-mc-controller';
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
