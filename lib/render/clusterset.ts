/**
 * The ClusterSet object (multicluster.crd.antrea.io/v1alpha2; v1alpha1 would silently drop
 * `spec.clusterID`). Its name is the ClusterSet ID in every cluster. The leader's names only itself;
 * a member's names the leader, its API server and the token Secret.
 */
import type { Construct } from 'constructs';
import { ClusterSetV1Alpha2 } from '../../generated/clusterset';
import type { Plan, PlannedCluster } from '../plan';
import { constructId, meta } from './util';

export function renderLeaderClusterSet(scope: Construct, plan: Plan): void {
  new ClusterSetV1Alpha2(scope, constructId('ClusterSet', plan.leaderNamespace, plan.clusterSetId), {
    metadata: meta(plan.clusterSetId, plan.leaderNamespace),
    spec: {
      clusterId: plan.leader.id,
      leaders: [{ clusterId: plan.leader.id }],
      namespace: plan.leaderNamespace,
    },
  });
}

export function renderMemberClusterSet(scope: Construct, plan: Plan, member: PlannedCluster): void {
  new ClusterSetV1Alpha2(scope, constructId('ClusterSet', plan.memberNamespace, plan.clusterSetId), {
    metadata: meta(plan.clusterSetId, plan.memberNamespace),
    spec: {
      clusterId: member.id,
      leaders: [
        { clusterId: plan.leader.id, secret: plan.memberTokenSecretName, server: plan.leader.apiServer },
      ],
      namespace: plan.leaderNamespace,
    },
  });
}
