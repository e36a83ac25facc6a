/**
 * The members' identities and tokens: in the leader's namespace, the ServiceAccounts annotated with
 * a member's cluster ID, their RoleBindings to `antrea-mc-member-cluster-role` and their token
 * Secrets (antrea-mc.md §e, §i); in each member, the token Secret its ClusterSet's
 * `leaders[0].secret` names. A shared pre-2.7 identity or two for one ID is a blocker; what a
 * member's identity is named where it differs from the compiler's defaults becomes its
 * `memberIdentity`, and the token Secret name most members share `secrets.memberTokenSecretName`.
 * Pure.
 */
import type { MemberIdentityProps } from '../../model';
import {
  CLUSTER_ID_ANNOTATION,
  DEFAULT_MEMBER_TOKEN_SECRET,
  MEMBER_ROLE,
  memberIdentityName,
} from '../../names';
import { SA_NAME_ANNOTATION, SA_TOKEN_TYPE, annotation, cmp, isObject, list, ref, str } from '../live';
import { leaders0 } from '../mc-config';
import type { LiveObject } from '../snapshot';
import { type Context, mostCommon } from './context';

const ANTCTL_NOTE = 'multicluster.antrea.io/created-by-antctl';

/** The member identities the leader's namespace holds. */
export interface LeaderIdentities {
  readonly leaderNamespace: string;
  /** The ServiceAccounts annotated with each cluster ID. */
  readonly saById: Map<string, LiveObject[]>;
  /** The RoleBindings to the member role. */
  readonly memberBindings: LiveObject[];
  readonly boundSAs: (rb: LiveObject) => string[];
  readonly tokenSecrets: LiveObject[];
}

export function readIdentities({ notes, leaderSnap }: Context, leaderNamespace: string): LeaderIdentities {
  const serviceAccounts = list(leaderSnap, 'v1', 'ServiceAccount', leaderNamespace);
  const annotated = serviceAccounts.filter((sa) => annotation(sa, CLUSTER_ID_ANNOTATION) !== undefined);
  const saById = new Map<string, LiveObject[]>();
  for (const sa of annotated) {
    const id = annotation(sa, CLUSTER_ID_ANNOTATION)!;
    saById.set(id, [...(saById.get(id) ?? []), sa]);
  }
  const memberBindings = list(
    leaderSnap,
    'rbac.authorization.k8s.io/v1',
    'RoleBinding',
    leaderNamespace,
  ).filter((rb) => {
    const r = isObject(rb.roleRef) ? rb.roleRef : {};
    return r.kind === 'Role' && r.name === MEMBER_ROLE;
  });
  const boundSAs = (rb: LiveObject): string[] =>
    (Array.isArray(rb.subjects) ? rb.subjects : []).flatMap((x) =>
      isObject(x) &&
      x.kind === 'ServiceAccount' &&
      (x.namespace === undefined || x.namespace === leaderNamespace) &&
      typeof x.name === 'string'
        ? [x.name]
        : [],
    );
  const tokenSecrets = list(leaderSnap, 'v1', 'Secret', leaderNamespace).filter(
    (sec) =>
      annotation(sec, SA_NAME_ANNOTATION) !== undefined &&
      (sec.type === undefined || sec.type === SA_TOKEN_TYPE),
  );
  const legacy = serviceAccounts.filter(
    (sa) =>
      annotation(sa, CLUSTER_ID_ANNOTATION) === undefined &&
      (sa.metadata.name === 'antrea-mc-member-access-sa' ||
        memberBindings.some((rb) => boundSAs(rb).includes(sa.metadata.name))),
  );
  for (const sa of legacy)
    notes.add({
      class: 'blocker',
      code: 'shared-member-identity',
      path: ref(sa),
      message:
        `ServiceAccount ${sa.metadata.name} may write as any member: it is bound to ${MEMBER_ROLE} without a ` +
        `${CLUSTER_ID_ANNOTATION} annotation (Antrea before 2.7 shared one such identity, antrea-mc-member-access-sa, among all members)`,
      fix:
        'follow Antrea\'s v2.7 upgrade guide (docs/multicluster/upgrade.md, "Upgrade to v2.7 or later"): for each member create ' +
        `its own ServiceAccount annotated ${CLUSTER_ID_ANNOTATION}: <id>, a RoleBinding to ${MEMBER_ROLE} and a token Secret ` +
        "(`antctl mc create membertoken`), copy that token into the member and point its ClusterSet's leaders[0].secret at it, " +
        'then delete the shared ServiceAccount, its RoleBinding and its token Secret; then import again',
    });
  for (const [id, sas] of [...saById.entries()].sort((a, b) => cmp(a[0], b[0])))
    if (sas.length > 1)
      notes.add({
        class: 'blocker',
        code: 'member-identity-ambiguous',
        path: sas.map(ref).join(', '),
        message: `${sas.length} ServiceAccounts carry ${CLUSTER_ID_ANNOTATION}: ${id}; the model names one identity per member, and which one the member uses cannot be read from the leader`,
        fix: `delete the ServiceAccounts member ${id} does not use (antctl and Antrea's webhook refuse a second identity for one ID)`,
      });
  return { leaderNamespace, saById, memberBindings, boundSAs, tokenSecrets };
}

/** The token Secret each member's ClusterSet names, and the name the model declares for all. */
export interface MemberTokens {
  readonly memberTokenSecrets: Map<string, string>;
  readonly memberTokenSecretName: string;
}

export function memberTokens(
  { memberIds }: Context,
  memberSets: ReadonlyMap<string, LiveObject | undefined>,
): MemberTokens {
  const memberTokenSecrets = new Map(
    memberIds.flatMap((id) =>
      str(leaders0(memberSets.get(id)).secret)
        ? [[id, leaders0(memberSets.get(id)).secret as string] as const]
        : [],
    ),
  );
  // A name that several members share (or the only member's) becomes secrets.memberTokenSecretName;
  // names of their own stay per member (memberIdentity.memberTokenSecret).
  const common = mostCommon([...memberTokenSecrets.values()]);
  const shared =
    common !== undefined &&
    ([...memberTokenSecrets.values()].filter((v) => v === common).length > 1 ||
      memberTokenSecrets.size === 1);
  const memberTokenSecretName = shared ? common : DEFAULT_MEMBER_TOKEN_SECRET;
  return { memberTokenSecrets, memberTokenSecretName };
}

/** A member's identity as it exists, by the names that differ from the defaults (its comment in `identityNotes`). */
export function identityOf(
  { notes }: Context,
  { leaderNamespace, saById, memberBindings, boundSAs, tokenSecrets }: LeaderIdentities,
  { memberTokenSecrets, memberTokenSecretName }: MemberTokens,
  identityNotes: Map<string, string[]>,
  id: string,
): MemberIdentityProps | undefined {
  const sas = saById.get(id) ?? [];
  const sa = sas[0];
  if (!sa) {
    notes.add({
      class: 'blocker',
      code: 'member-identity-missing',
      path: `member ${id}`,
      message: `no ServiceAccount in ${leaderNamespace} carries ${CLUSTER_ID_ANNOTATION}: ${id}, so member ${id} writes through some other (shared) identity`,
      fix: `give member ${id} its own identity (\`antctl mc create membertoken <name> --cluster-id ${id}\`), copy its token into the member and point its ClusterSet's leaders[0].secret at it; then import again`,
    });
    return undefined;
  }
  const saName = sa.metadata.name;
  const rbs = memberBindings.filter((rb) => boundSAs(rb).includes(saName));
  const rb = rbs.find((x) => x.metadata.name === saName) ?? rbs[0];
  const secrets = tokenSecrets.filter((x) => annotation(x, SA_NAME_ANNOTATION) === saName);
  const secret =
    secrets.find((x) => x.metadata.name === saName) ??
    secrets.find((x) => x.metadata.name === `${saName}-token`) ??
    secrets[0];
  const out: Record<string, string> = {};
  if (saName !== memberIdentityName(id)) out.serviceAccount = saName;
  if (rb && rb.metadata.name !== saName) out.roleBinding = rb.metadata.name;
  if (secret && secret.metadata.name !== saName) out.tokenSecret = secret.metadata.name;
  const mts = memberTokenSecrets.get(id);
  if (mts && mts !== memberTokenSecretName) out.memberTokenSecret = mts;
  const how = annotation(sa, ANTCTL_NOTE) === 'true' ? ' (made by `antctl mc create membertoken`)' : '';
  identityNotes.set(id, [
    `The identity as it exists: ServiceAccount ${saName}${how}, RoleBinding ${rb?.metadata.name ?? '(none)'} and token Secret ` +
      `${secret?.metadata.name ?? '(none)'} in ${leaderNamespace}; in the member, Secret ${mts ?? '(unknown)'} (its ClusterSet's leaders[0].secret).`,
  ]);
  if (!rb)
    notes.add({
      class: 'info',
      code: 'member-rolebinding-missing',
      path: ref(sa),
      message: `no RoleBinding binds ${saName} to ${MEMBER_ROLE}; the leader bundle creates ${out.roleBinding ?? saName}`,
    });
  if (!secret)
    notes.add({
      class: 'info',
      code: 'member-token-secret-missing',
      path: ref(sa),
      message: `no token Secret in ${leaderNamespace} is annotated ${SA_NAME_ANNOTATION}: ${saName}; the leader bundle creates ${saName}, with a new token (the member keeps using the one it has until it is replaced)`,
    });
  return out;
}
