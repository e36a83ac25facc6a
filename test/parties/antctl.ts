/**
 * `antctl`'s multi-cluster commands as an operator runs them, and the user guide's `kubectl` steps
 * that do the same by hand (antrea-mc.md §b, §e): what each leaves in the clusters. `antctl` creates
 * each object (Create, field manager `antctl`, the antctl annotation where it sets one); the
 * `kubectl` way applies files (kubectl.ts). `mc deploy leadercluster`: the leader's CRDs and the rest
 * of its manifest (antrea-manifests.ts); `mc create membertoken NAME --cluster-id ID`: a member's
 * ServiceAccount, RoleBinding and token Secret in the leader (the user guide: `member-<id>`,
 * `member-<id>-token`); `mc join`: the token Secret copied into the member, then its ClusterSet
 * naming the leader.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLUSTER_ID_ANNOTATION, MEMBER_ROLE } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import type { Cluster } from '../kube/cluster';
import { create, get } from '../kube/objects';
import { eventually } from '../kube/wait';
import { leaderInstall, LEADER_CRDS } from './antrea-manifests';
import { kubectlApply } from './kubectl';

const ROOT = path.resolve(__dirname, '..', '..');
type Obj = Record<string, unknown>;

export const CREATED_BY_ANTCTL = 'multicluster.antrea.io/created-by-antctl';
/** The field manager of what antctl creates (its client's user agent). */
export const ANTCTL_MANAGER = 'antctl';
const MC = 'multicluster.crd.antrea.io';

/** How the member identities were made: `antctl`, or the user guide's `kubectl` steps. */
export type IdentityWay = 'antctl' | 'kubectl';

/** The names of one member's identity, on the leader and (token Secret) on the member. */
export interface PlayedIdentity {
  readonly serviceAccount: string;
  readonly roleBinding: string;
  readonly tokenSecret: string;
  readonly memberTokenSecret: string;
}

/** The names of member `id`'s identity, as each way makes them. */
export function playedIdentity(way: IdentityWay, id: string, index: number): PlayedIdentity {
  if (way === 'antctl') {
    // `antctl mc create membertoken <NAME> --cluster-id <id>`: NAME is the operator's choice;
    // `antctl mc join --config-file` names the member's Secret after it too.
    const name = `${id}-access-token`;
    return { serviceAccount: name, roleBinding: name, tokenSecret: name, memberTokenSecret: name };
  }
  // The user guide: `member-east`, `member-east-token`; the second member's Secret got a name of its
  // own on the member (each member's is the operator's choice).
  return {
    serviceAccount: `member-${id}`,
    roleBinding: `member-${id}`,
    tokenSecret: `member-${id}-token`,
    memberTokenSecret: index === 0 ? `member-${id}-token` : 'leader-access-token',
  };
}

/** Creates the vendored CRDs `files` (crds/<file>) as `manager`, then waits until each is Established. */
export async function createCrds(cluster: Cluster, files: readonly string[], manager: string): Promise<void> {
  for (const file of files) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as Obj;
    await create(cluster.admin, obj, manager);
  }
  for (const file of files) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as Obj;
    await eventually(`CRD ${(obj.metadata as { name: string }).name} established`, async () => {
      const live = await get(cluster.admin, obj);
      const conds = ((live.status as Obj | undefined)?.conditions ?? []) as {
        type: string;
        status: string;
      }[];
      return conds.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
}

/** `antctl mc deploy leadercluster`: the leader's CRDs, then its manifest, one object at a time. */
export async function deployLeaderCluster(leader: Cluster, ns: string): Promise<void> {
  await createCrds(leader, LEADER_CRDS, ANTCTL_MANAGER);
  for (const obj of leaderInstall(ns)) await create(leader.admin, obj, ANTCTL_MANAGER);
}

/** `antctl mc init`: the leader's ClusterSet; returns it as created. */
export function initLeaderClusterSet(
  leader: Cluster,
  clusterSetId: string,
  leaderId: string,
  ns: string,
): Promise<Obj> {
  return create(
    leader.admin,
    {
      apiVersion: `${MC}/v1alpha2`,
      kind: 'ClusterSet',
      metadata: { name: clusterSetId, namespace: ns },
      spec: { clusterID: leaderId, leaders: [{ clusterID: leaderId }], namespace: ns },
    },
    ANTCTL_MANAGER,
  );
}

/**
 * `antctl mc create membertoken` (or the user guide's `kubectl apply` of the same three objects):
 * member `id`'s ServiceAccount, its RoleBinding to the member Role and its token Secret, which the
 * leader's kube-controller-manager fills in.
 */
export async function createMemberToken(
  way: IdentityWay,
  leader: Cluster,
  leaderNs: string,
  id: string,
  n: PlayedIdentity,
): Promise<void> {
  const antctl = way === 'antctl' ? { [CREATED_BY_ANTCTL]: 'true' } : {};
  const objs: Obj[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: n.serviceAccount,
        namespace: leaderNs,
        annotations: { ...antctl, [CLUSTER_ID_ANNOTATION]: id },
      },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: n.roleBinding,
        namespace: leaderNs,
        ...(way === 'antctl' ? { annotations: antctl } : {}),
      },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: n.serviceAccount, namespace: leaderNs }],
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: n.tokenSecret,
        namespace: leaderNs,
        annotations: { ...antctl, 'kubernetes.io/service-account.name': n.serviceAccount },
      },
      type: 'kubernetes.io/service-account-token',
    },
  ];
  if (way === 'antctl') for (const x of objs) await create(leader.admin, x, ANTCTL_MANAGER);
  else kubectlApply(leader, objs);
}

/**
 * `antctl mc join` (or the user guide's `kubectl apply` of the file it makes, whose last-applied
 * annotation then holds the token): the leader's token Secret `tokenData` copied into the member
 * namespace under the member's name for it (ConvertMemberTokenSecret: an Opaque Secret with
 * `ca.crt`, `namespace` and `token`), then the member ClusterSet naming the leader, its server and
 * that Secret.
 */
export async function joinMember(
  way: IdentityWay,
  member: Cluster,
  o: {
    readonly clusterSetId: string;
    readonly memberId: string;
    readonly memberNs: string;
    readonly leader: Cluster;
    readonly leaderId: string;
    readonly leaderNs: string;
    readonly identity: PlayedIdentity;
    readonly tokenData: Record<string, string>;
  },
): Promise<void> {
  const secret: Obj = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: o.identity.memberTokenSecret,
      namespace: o.memberNs,
      ...(way === 'antctl' ? { annotations: { [CREATED_BY_ANTCTL]: 'true' } } : {}),
    },
    type: 'Opaque',
    data: {
      'ca.crt': o.tokenData['ca.crt']!,
      namespace: o.tokenData.namespace ?? Buffer.from(o.leaderNs).toString('base64'),
      token: o.tokenData.token!,
    },
  };
  if (way === 'antctl') await create(member.admin, secret, ANTCTL_MANAGER);
  else kubectlApply(member, [secret]);
  const cs: Obj = {
    apiVersion: `${MC}/v1alpha2`,
    kind: 'ClusterSet',
    metadata: { name: o.clusterSetId, namespace: o.memberNs },
    spec: {
      clusterID: o.memberId,
      leaders: [{ clusterID: o.leaderId, secret: o.identity.memberTokenSecret, server: o.leader.server }],
      namespace: o.leaderNs,
    },
  };
  if (way === 'antctl') await create(member.admin, cs, ANTCTL_MANAGER);
  else kubectlApply(member, [cs]);
}
