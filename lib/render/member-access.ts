/**
 * Member identities in the leader (Antrea ≥ 2.7 requires one per member): Antrea's member Role
 * less the status writes its member never makes, and per member a ServiceAccount annotated with the
 * cluster ID, a token Secret with no data (the API server fills it), and a RoleBinding, named
 * `member-<id>` or as the model's `memberIdentity` says (PlannedMemberIdentity).
 */
import { k8s } from 'cdk8s-plus-33';
import { CLUSTER_ID_ANNOTATION, MEMBER_ROLE } from '../names';
import { identityOf, type Plan, type PlannedCluster } from '../plan';
import { meta, put, type Sink } from './util';

const MC = 'multicluster.crd.antrea.io';
const ALL = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * `antrea-mc-member-cluster-role`, as in Antrea's CFG/overlays/leader/member_cluster_role.yaml, less
 * `patch` and `update` on `resourceexports/status` and `resourceimports/status`: Antrea's member
 * controller never writes either (it writes announces and exports, reads imports and creates Events;
 * antrea-mc.md §h: it ignores export status), and with them any member could rewrite another
 * member's export status or a compiled import's. `get` stays: it shows nothing the object does not.
 * The member-writes admission policy refuses those writes too, should a wider Role be bound.
 */
export function renderMemberRole(scope: Sink, plan: Plan): void {
  put(scope, k8s.KubeRole, {
    metadata: meta(MEMBER_ROLE, plan.leaderNamespace),
    rules: [
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
      { apiGroups: [MC], resources: ['memberclusterannounces'], verbs: ALL },
      { apiGroups: [MC], resources: ['memberclusterannounces/status'], verbs: ['get'] },
      { apiGroups: [MC], resources: ['resourceexports'], verbs: ALL },
      { apiGroups: [MC], resources: ['resourceexports/status'], verbs: ['get'] },
      { apiGroups: [MC], resources: ['resourceimports'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [MC], resources: ['resourceimports/status'], verbs: ['get'] },
    ],
  });
}

/** The ServiceAccount username of a member identity, as admission sees it. */
export function memberUsername(plan: Plan, member: PlannedCluster): string {
  return `system:serviceaccount:${plan.leaderNamespace}:${identityOf(member).serviceAccount}`;
}

export function renderMemberIdentity(scope: Sink, plan: Plan, member: PlannedCluster): void {
  const { serviceAccount, roleBinding, tokenSecret } = identityOf(member);
  const ns = plan.leaderNamespace;
  put(scope, k8s.KubeServiceAccount, {
    metadata: meta(serviceAccount, ns, { annotations: { [CLUSTER_ID_ANNOTATION]: member.id } }),
  });
  // No data: the token controller fills it. Nothing secret is ever rendered.
  put(scope, k8s.KubeSecret, {
    metadata: meta(tokenSecret, ns, {
      annotations: { 'kubernetes.io/service-account.name': serviceAccount },
    }),
    type: 'kubernetes.io/service-account-token',
  });
  put(scope, k8s.KubeRoleBinding, {
    metadata: meta(roleBinding, ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_ROLE },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace: ns }],
  });
}
