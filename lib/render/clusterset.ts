/**
 * The ClusterSet object. Its name is the ClusterSet ID in every cluster.
 *
 * The leader's is always `multicluster.crd.antrea.io/v1alpha2` and names only itself: the leader
 * bundle ships the current CRDs (v1alpha2 is their storage version, with no conversion, so a
 * v1alpha1 `members` list would be pruned) and only the clusterset reconciler reads it.
 *
 * A member's names the leader, its API server and the token Secret, in the version the member's
 * own Antrea reads: v1alpha2 with `spec.clusterID` from Antrea 1.13 on (v1alpha1 would silently
 * drop it); before 1.13, v1alpha1, which has no `clusterID` (the ID comes from the `id.k8s.io`
 * ClusterClaim) and lists the member itself under `members`.
 */
import { FEATURES, hasFeature } from '../antrea-releases';
import { ClusterSet, ClusterSetV1Alpha2 } from '../../generated/clusterset';
import { RESTART_JOB_ANNOTATION } from '../names';
import { identityOf, type Plan, type PlannedCluster } from '../plan';
import { meta, put, type Sink } from './util';

/** Antrea reads ClusterSet v1alpha2 (with spec.clusterID) from 1.13 on. */
export function usesClusterSetV1Alpha2(plan: Plan): boolean {
  return hasFeature(plan.antreaVersion, FEATURES.clusterSetV1alpha2);
}

export function renderLeaderClusterSet(scope: Sink, plan: Plan): void {
  put(scope, ClusterSetV1Alpha2, {
    metadata: meta(plan.clusterSetId, plan.leaderNamespace),
    spec: {
      clusterId: plan.leader.id,
      leaders: [{ clusterId: plan.leader.id }],
      namespace: plan.leaderNamespace,
    },
  });
}

/**
 * The member's ClusterSet. With the v1alpha2 ClusterSet, it names the bundle's restart Job
 * (`clusterset/restart-job`): that Job records its progress on it, and the ClusterSet's health check
 * reads the record of that Job only (member-restart.ts, health.ts).
 */
export function renderMemberClusterSet(
  scope: Sink,
  plan: Plan,
  member: PlannedCluster,
  restartJob: string,
): void {
  const metadata = meta(plan.clusterSetId, plan.memberNamespace);
  const leader = {
    clusterId: plan.leader.id,
    secret: identityOf(member).memberTokenSecret,
    server: plan.leader.apiServer,
  };
  if (!usesClusterSetV1Alpha2(plan)) {
    put(scope, ClusterSet, {
      metadata,
      spec: { leaders: [leader], members: [{ clusterId: member.id }], namespace: plan.leaderNamespace },
    });
    return;
  }
  put(scope, ClusterSetV1Alpha2, {
    metadata: meta(plan.clusterSetId, plan.memberNamespace, {
      annotations: { [RESTART_JOB_ANNOTATION]: restartJob },
    }),
    spec: { clusterId: member.id, leaders: [leader], namespace: plan.leaderNamespace },
  });
}
