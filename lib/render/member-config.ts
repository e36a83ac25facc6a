/**
 * The settings of Antrea's member controller, ConfigMap `antrea-mc-controller-config` (key
 * `controller_manager_config.yaml`, a MultiClusterConfig), derived from the model: Service and Pod
 * CIDRs, gateway IP precedence, endpoint IP type and stretched NetworkPolicy. The other fields keep
 * the values of Antrea's member manifest, since this ConfigMap replaces that one.
 */
import { NEVER_PRUNE } from './namespaces';
import { k8s } from 'cdk8s-plus-33';
import { dumpYaml } from '../yaml';
import type { Plan, PlannedCluster } from '../plan';
import { meta, put, type Sink } from './util';

export const MEMBER_CONFIG_NAME = 'antrea-mc-controller-config';
export const MEMBER_CONFIG_KEY = 'controller_manager_config.yaml';

export function memberConfig(cluster: PlannedCluster): Record<string, unknown> {
  return {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'MultiClusterConfig',
    health: { healthProbeBindAddress: ':8080' },
    metrics: { bindAddress: '0' },
    webhook: { port: 9443 },
    leaderElection: { leaderElect: false, resourceName: '6536456a.crd.antrea.io' },
    serviceCIDR: cluster.serviceCIDR,
    podCIDRs: cluster.podCIDRs.length > 0 ? [...cluster.podCIDRs] : [''],
    gatewayIPPrecedence: cluster.gateway?.ipPrecedence ?? 'private',
    endpointIPType: cluster.endpointIPType,
    enableStretchedNetworkPolicy: cluster.enableStretchedNetworkPolicy,
  };
}

export function renderMemberConfig(scope: Sink, plan: Plan, cluster: PlannedCluster): void {
  put(scope, k8s.KubeConfigMap, {
    // Antrea's install ships this ConfigMap too: never deleted, whatever happens to the bundle.
    metadata: meta(MEMBER_CONFIG_NAME, plan.memberNamespace, { annotations: { ...NEVER_PRUNE } }),
    data: { [MEMBER_CONFIG_KEY]: dumpYaml(memberConfig(cluster)) },
  });
}
