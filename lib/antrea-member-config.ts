/**
 * The settings file of Antrea's member controller: ConfigMap `antrea-mc-controller-config`, key
 * `controller_manager_config.yaml`, a MultiClusterConfig (antrea-mc.md §e Member), as the model
 * determines it: Service and Pod CIDRs, gateway IP precedence, endpoint IP type and stretched
 * NetworkPolicy. The other fields keep the values of Antrea's member manifest.
 *
 * One text for every use: the ConfigMap a member bundle renders with `takeOver.memberControllerConfig`
 * (render/member-config.ts), and otherwise what `clusterset explain` prints for Antrea's own install
 * and what the member's restart Job carries as the expected settings (render/member-restart.ts).
 * Pure.
 */
import type { PlannedCluster } from './plan';
import { dumpYaml } from './yaml';

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

/** `controller_manager_config.yaml` exactly as the ConfigMap holds it. */
export function memberConfigText(cluster: PlannedCluster): string {
  return dumpYaml(memberConfig(cluster));
}
