/**
 * The ClusterSet object. Its name is the ClusterSet ID in every cluster.
 *
 * Antrea 1.13 and later: `multicluster.crd.antrea.io/v1alpha2` (v1alpha1 would silently drop
 * `spec.clusterID`). The leader's names only itself; a member's names the leader, its API server
 * and the token Secret. Older Antrea reads v1alpha1, which has no `clusterID` (the cluster's ID
 * comes from the `id.k8s.io` ClusterClaim) and lists members instead: the leader lists every
 * member with its ServiceAccount, a member lists itself.
 */
import type { Construct } from 'constructs';
import { ClusterSet, ClusterSetV1Alpha2 } from '../../generated/clusterset';
import { memberIdentityName } from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { atLeast } from '../plan';
import { constructId, meta } from './util';

/** Antrea reads ClusterSet v1alpha2 (with spec.clusterID) from 1.13 on. */
export function usesClusterSetV1Alpha2(plan: Plan): boolean {
  return atLeast(plan.antreaVersion, 1, 13);
}

export function renderLeaderClusterSet(scope: Construct, plan: Plan): void {
  const id = constructId('ClusterSet', plan.leaderNamespace, plan.clusterSetId);
  const metadata = meta(plan.clusterSetId, plan.leaderNamespace);
  if (!usesClusterSetV1Alpha2(plan)) {
    new ClusterSet(scope, id, {
      metadata,
      spec: {
        leaders: [{ clusterId: plan.leader.id }],
        members: plan.members.map((m) => ({ clusterId: m.id, serviceAccount: memberIdentityName(m.id) })),
        namespace: plan.leaderNamespace,
      },
    });
    return;
  }
  new ClusterSetV1Alpha2(scope, id, {
    metadata,
    spec: {
      clusterId: plan.leader.id,
      leaders: [{ clusterId: plan.leader.id }],
      namespace: plan.leaderNamespace,
    },
  });
}

export function renderMemberClusterSet(scope: Construct, plan: Plan, member: PlannedCluster): void {
  const id = constructId('ClusterSet', plan.memberNamespace, plan.clusterSetId);
  const metadata = meta(plan.clusterSetId, plan.memberNamespace);
  const leader = {
    clusterId: plan.leader.id,
    secret: plan.memberTokenSecretName,
    server: plan.leader.apiServer,
  };
  if (!usesClusterSetV1Alpha2(plan)) {
    new ClusterSet(scope, id, {
      metadata,
      spec: { leaders: [leader], members: [{ clusterId: member.id }], namespace: plan.leaderNamespace },
    });
    return;
  }
  new ClusterSetV1Alpha2(scope, id, {
    metadata,
    spec: { clusterId: member.id, leaders: [leader], namespace: plan.leaderNamespace },
  });
}
