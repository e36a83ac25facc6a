/**
 * Stretched policies, rendered straight into the members they target (ResourceImports cannot target
 * a subset of members): Antrea ClusterNetworkPolicies with `scope: ClusterSet` ingress peers and
 * `toServices` egress to multi-cluster Services. Named as the model names them; the `antrea-mc-`
 * prefix is left to what Antrea imports, so the two never collide.
 */
import type { Construct } from 'constructs';
import { ClusterNetworkPolicy } from '../../generated/clusternetworkpolicy';
import type { PlannedPolicy } from '../plan';
import { acnpSpec } from '../policy';
import { constructId, meta } from './util';

export function renderStretchedPolicy(scope: Construct, policy: PlannedPolicy): void {
  new ClusterNetworkPolicy(scope, constructId('ClusterNetworkPolicy', undefined, policy.name), {
    metadata: meta(policy.name),
    spec: acnpSpec(policy),
  });
}
