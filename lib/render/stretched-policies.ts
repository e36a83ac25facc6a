/**
 * Stretched policies, rendered straight into the members they target (ResourceImports cannot target
 * a subset of members): Antrea ClusterNetworkPolicies with `scope: ClusterSet` ingress peers and
 * `toServices` egress to multi-cluster Services. Named as the model names them; the `antrea-mc-`
 * prefix is left to what Antrea imports, so the two never collide.
 */
import { ClusterNetworkPolicy } from '../../generated/clusternetworkpolicy';
import type { PlannedPolicy } from '../plan';
import { acnpSpec } from '../policy';
import { meta, put, type Sink } from './util';

export function renderStretchedPolicy(scope: Sink, policy: PlannedPolicy): void {
  put(scope, ClusterNetworkPolicy, {
    metadata: meta(policy.name),
    spec: acnpSpec(policy),
  });
}
