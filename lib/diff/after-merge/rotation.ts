/**
 * What renaming a member's identity (the model's `memberIdentity`) asks of people while the member
 * stays: clusterset renders one identity per member, so one change rotates it at once, where
 * Antrea's upgrade guide moves the member onto a new identity before it deletes the old one. The
 * steps say what each bundle's sync does, in no set order, how the new token reaches the member, when
 * its controller must restart, and what of the old identity is left to delete.
 */
import { MEMBER_CONTROLLER_DEPLOYMENT } from '../../names';
import { joinAnd } from '../describe';

/** The names of one member's identity as the rendered objects carry them (impact.ts reads them). */
export interface IdentityNames {
  /** The ServiceAccount in the leader annotated with the member's cluster ID. */
  readonly serviceAccount: string;
  /** The RoleBinding binding it to Antrea's member Role. */
  readonly roleBinding: string | undefined;
  /** Its token Secret in the leader. */
  readonly tokenSecret: string | undefined;
  /** The Secret the member's ClusterSet names. */
  readonly memberTokenSecret: string | undefined;
  readonly leaderNamespace: string;
  readonly memberNamespace: string | undefined;
}

/** A member that stays while the names of its identity change. */
export interface IdentityRotation {
  readonly member: string;
  readonly before: IdentityNames;
  readonly after: IdentityNames;
  /** Its token comes by External Secrets after the change (its bundle holds an ExternalSecret). */
  readonly externalSecrets: boolean;
}

/** How the leader's bundle is delivered after the change: by which tools, and whether their syncs prune. */
export interface LeaderSync {
  /** `Argo CD`, `Flux`; empty when nothing delivers it (it is applied by hand). */
  readonly tools: readonly string[];
  /** Every tool that delivers it deletes what leaves the bundle (Argo CD's automated prune, Flux's prune). */
  readonly prunes: boolean;
}

const LEADER_SIDE = [
  ['serviceAccount', 'ServiceAccount', 'serviceaccount'],
  ['roleBinding', 'RoleBinding', 'rolebinding'],
  ['tokenSecret', 'token Secret', 'secret'],
] as const;

/**
 * What renaming a member's identity asks of people. Antrea's upgrade guide rotates an identity
 * without a gap: a new identity beside the old one, its token copied into a new Secret in the
 * member, the member ClusterSet pointed at it (a change of `leaders[0].secret` rebuilds the
 * member's connection; nothing is deleted), and only then the old identity deleted. clusterset
 * renders one identity per member, so one change does it all, and what the member sees depends on
 * which bundle syncs when: the leader's sync creates the new identity and, with prune on, deletes
 * the old one (its token stops working), the member's points its ClusterSet at the new Secret, and
 * no order between the two is set. The member controller reads its token Secret only when it
 * (re)builds its connection (antrea-mc.md §i).
 */
export function rotationSteps(r: IdentityRotation, leader: string, sync: LeaderSync | undefined): string[] {
  const { member: id, before: b, after: a } = r;
  const ns = a.memberNamespace ?? b.memberNamespace ?? 'kube-system';
  const lns = a.leaderNamespace;
  const renamed = LEADER_SIDE.filter(([f]) => b[f] !== a[f]);
  const leaderSide = renamed.length > 0;
  const memberSide = b.memberTokenSecret !== a.memberTokenSecret;
  const newSecret = a.memberTokenSecret ?? '<token Secret>';
  const names = [
    ...renamed.map(([f, what]) => `${what} ${b[f] ?? '?'} → ${a[f] ?? '?'}`),
    ...(memberSide ? [`its token Secret in ${id} ${b.memberTokenSecret ?? '?'} → ${newSecret}`] : []),
  ];
  const steps: string[] = [];
  const prunes = sync !== undefined && sync.tools.length > 0 && sync.prunes;
  const how =
    sync === undefined || sync.tools.length === 0
      ? 'applied by hand'
      : `delivered by ${joinAnd([...sync.tools])}`;
  const copy = `\`npx clusterset token ${id} --leader-context <${leader}> --member-context <${id}>\``;
  const restart = `\`kubectl --context <${id}> -n ${ns} rollout restart deployment ${MEMBER_CONTROLLER_DEPLOYMENT}\``;
  const head = `${id}'s identity is renamed (${joinAnd(names)}): clusterset renders one identity per member, so this change rotates it at once, where Antrea's upgrade guide creates the new identity, moves the member onto it and deletes the old one last`;
  if (leaderSide)
    steps.push(
      prunes
        ? `${head}. When ${leader}'s bundle syncs (${how}), the new identity is created and the old one deleted (prune), and with it the token ${id} holds: from then until ${id} uses the new token, it is Disconnected from ${leader} (its exports fail and are not updated, what it imported stays, nothing is deleted). Take the next steps as soon as ${leader} has synced: the reconciler retires a member that stays silent longer than reconciler.retireMembersAfter (24 h by default)`
        : `${head}. When ${leader}'s bundle is applied (${how}${sync !== undefined && sync.tools.length > 0 ? ', prune off' : ''}), the new identity is created and the old one stays, so ${id} keeps working with its old token; but the member-writes admission policy no longer knows the old ServiceAccount, whose writes then pass on RBAC alone until it is deleted (the last step)`,
    );
  else steps.push(`${head}. ${leader}'s side does not change`);

  // The token, into the Secret the member ClusterSet names after the change.
  if (r.externalSecrets)
    steps.push(
      `${id}'s token comes by External Secrets: once both bundles have synced, its ExternalSecret copies ${a.tokenSecret ?? 'its token Secret'} from ${leader} into ${ns}/${newSecret} (until ${leader} has synced, the store may not read ${a.tokenSecret ?? 'it'} yet, and External Secrets retries)`,
    );
  else if (leaderSide)
    steps.push(
      `once ${leader} has synced (its Secret ${lns}/${a.tokenSecret ?? '<token Secret>'} is then filled), copy ${id}'s new token into ${ns}/${newSecret}: ${copy}`,
    );
  else
    steps.push(
      `copy ${id}'s token into its new Secret ${ns}/${newSecret} before ${id}'s bundle syncs if you can (from this change's checkout: ${leader}'s Secret ${lns}/${a.tokenSecret ?? '<token Secret>'} does not change), else right after: ${copy}`,
    );

  // The member onto the new token.
  steps.push(
    memberSide
      ? `once ${id}'s bundle has synced, its ClusterSet names ${newSecret}, and Antrea's member controller rebuilds its connection to ${leader} with the token there (a change of leaders[0].secret does that; nothing is deleted). The two bundles sync each on its own, in no set order: should ${id}'s come first, ${id} is Disconnected until ${newSecret} holds the new token; if it does not reconnect within minutes of that, restart its controller, ${restart} (safe: every import it has still exists in ${leader})`
      : `${id}'s ClusterSet does not change, and Antrea's member controller reads its token only when it (re)builds its connection: once the new token is in ${ns}/${newSecret}, restart it, ${restart} (safe: every import it has still exists in ${leader}). Renaming memberIdentity.memberTokenSecret in the same change spares this restart: a new Secret name makes the controller reconnect by itself`,
  );

  // What is left of the old identity.
  const connected = `once ${id}'s ClusterSet is Ready again (\`kubectl --context <${id}> -n ${ns} get clustersets.multicluster.crd.antrea.io\`)`;
  if (leaderSide && !prunes)
    steps.push(
      `${connected}, delete its old identity in ${leader}: ${joinAnd(renamed.map(([f, , kind]) => `\`kubectl --context <${leader}> -n ${b.leaderNamespace} delete ${kind} ${b[f] ?? '?'}\``))}`,
    );
  if (memberSide && !r.externalSecrets && b.memberTokenSecret !== undefined)
    steps.push(
      `${connected}, delete its old token Secret, which \`clusterset token\` wrote and no tool deletes: \`kubectl --context <${id}> -n ${ns} delete secret ${b.memberTokenSecret}\``,
    );
  return steps;
}
