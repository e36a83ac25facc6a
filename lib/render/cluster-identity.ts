/**
 * Cluster identity as About API ClusterProperties (about.k8s.io/v1beta1, KEP-2149):
 * `cluster.clusterset.k8s.io` (this cluster's ID), `clusterset.k8s.io` (the ClusterSet ID) and, when
 * the model declares networks, `network.k8s.io` (as proposed for multi-network KEP-1645).
 * Antrea older than 1.13 read ClusterClaims instead; they are rendered only for such targets.
 */
import { ClusterClaim } from '../../generated/clusterclaim';
import { ClusterPropertyV1Beta1 } from '../../generated/clusterproperty';
import type { Plan, PlannedCluster } from '../plan';
import { usesClusterSetV1Alpha2 } from './clusterset';
import { meta, put, type Sink } from './util';

export function renderClusterIdentity(scope: Sink, plan: Plan, cluster: PlannedCluster): void {
  const props: [string, string][] = [
    ['cluster.clusterset.k8s.io', cluster.id],
    ['clusterset.k8s.io', plan.clusterSetId],
  ];
  if (plan.clusters.some((c) => c.network !== undefined))
    props.push(['network.k8s.io', cluster.network ?? 'default']);
  for (const [name, value] of props) {
    put(scope, ClusterPropertyV1Beta1, {
      metadata: meta(name),
      spec: { value },
    });
  }
  if (!usesClusterSetV1Alpha2(plan)) {
    for (const [name, value] of [
      ['id.k8s.io', cluster.id],
      ['clusterset.k8s.io', plan.clusterSetId],
    ] as const) {
      put(scope, ClusterClaim, {
        metadata: meta(name, plan.memberNamespace),
        value,
      });
    }
  }
}
