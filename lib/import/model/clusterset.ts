/**
 * The leader and the ClusterSet's identity, the first thing the import reads: the leader's
 * ClusterSet (the one whose `spec.leaders` names its own `spec.clusterID`, antrea-mc.md §b) gives
 * clusterSetId, leader and leaderNamespace, with the members' ClusterSets (`spec.namespace`,
 * `leaders[0].clusterID`) voting where it is missing; memberNamespace is where most members' own
 * ClusterSets live. Every member whose ClusterSet is missing or names another ID, leader, name or
 * namespace is a blocker. Pure.
 */
import { DEFAULT_LEADER_NAMESPACE, DEFAULT_MEMBER_NAMESPACE } from '../../names';
import { list, ref, spec, str } from '../live';
import { leaders0, memberClusterSet } from '../mc-config';
import type { LiveObject } from '../snapshot';
import { type Context, MC_ANY, mostCommon } from './context';

/** What the leader's and the members' ClusterSets say the ClusterSet is. */
export interface ClusterSetIdentity {
  /** Each member's own ClusterSet, by member ID (undefined: none found). */
  readonly memberSets: Map<string, LiveObject | undefined>;
  readonly leaderNamespace: string;
  readonly memberNamespace: string;
  readonly clusterSetId: string;
  readonly leaderId: string;
}

export function readClusterSet({ s, notes, leaderSnap, memberIds }: Context): ClusterSetIdentity {
  const memberSets = new Map<string, LiveObject | undefined>(
    memberIds.map((id) => [id, memberClusterSet(s.members[id]!, id)]),
  );
  const leaderNsVotes = [...memberSets.values()].flatMap((cs) =>
    str(spec(cs).namespace) ? [spec(cs).namespace as string] : [],
  );
  const leaderSetCandidates = list(leaderSnap, MC_ANY, 'ClusterSet').filter((o) => {
    const l = leaders0(o);
    return l.clusterID === spec(o).clusterID && str(l.secret) === undefined;
  });
  const votedNs = mostCommon(leaderNsVotes);
  const leaderSet =
    leaderSetCandidates.find((o) => o.metadata.namespace === votedNs) ?? leaderSetCandidates[0];
  const leaderNamespace = leaderSet?.metadata.namespace ?? votedNs ?? DEFAULT_LEADER_NAMESPACE;
  if (!leaderSet)
    notes.add({
      class: 'blocker',
      code: 'leader-clusterset-missing',
      message: `no leader ClusterSet (one whose spec.leaders names its own spec.clusterID) was found through context ${leaderSnap.context}`,
      fix: "pass the leader cluster's context as --leader-context (the cluster where `antctl mc init` ran)",
    });
  const clusterSetId =
    leaderSet?.metadata.name ??
    mostCommon([...memberSets.values()].flatMap((cs) => (cs ? [cs.metadata.name] : []))) ??
    'clusterset';
  const leaderId =
    str(spec(leaderSet).clusterID) ??
    mostCommon(
      [...memberSets.values()].flatMap((cs) =>
        str(leaders0(cs).clusterID) ? [leaders0(cs).clusterID as string] : [],
      ),
    ) ??
    'leader';
  if (leaderSet)
    notes.comment(
      'clusterSetId',
      `From ClusterSet ${leaderNamespace}/${clusterSetId} in the leader (context ${leaderSnap.context}).`,
    );
  if (votedNs !== undefined && votedNs !== leaderNamespace)
    notes.add({
      class: 'blocker',
      code: 'leader-namespace-differs',
      message: `members name leader namespace ${votedNs} (ClusterSet spec.namespace), but the leader's ClusterSet is in ${leaderNamespace}`,
      fix: "correct the members' ClusterSet spec.namespace, then import again",
    });

  const memberNsVotes = [...memberSets.values()].flatMap((cs) =>
    cs?.metadata.namespace ? [cs.metadata.namespace] : [],
  );
  const memberNamespace = mostCommon(memberNsVotes) ?? DEFAULT_MEMBER_NAMESPACE;
  for (const [id, cs] of memberSets) {
    if (!cs) {
      notes.add({
        class: 'blocker',
        code: 'member-clusterset-missing',
        path: `member ${id}`,
        message: `no member ClusterSet (one naming a leader server) was found through context ${s.members[id]!.context}`,
        fix: `check --member ${id}=CONTEXT names the member's context, and that \`antctl mc join\` ran there`,
      });
      continue;
    }
    if (cs.metadata.namespace !== memberNamespace)
      notes.add({
        class: 'blocker',
        code: 'member-namespace-differs',
        path: ref(cs),
        message: `member ${id} runs its member controller in ${cs.metadata.namespace}, the others in ${memberNamespace}; the model has one memberNamespace`,
        fix: 'move the member controller of one of them, or adopt them in separate steps',
      });
    if (spec(cs).clusterID !== id)
      notes.add({
        class: 'blocker',
        code: 'member-id-mismatch',
        path: `${ref(cs)} spec.clusterID`,
        message: `--member ${id}=${s.members[id]!.context} reads a cluster whose ClusterSet says clusterID ${JSON.stringify(spec(cs).clusterID)}`,
        fix: 'pass each member as --member <its cluster ID>=<its context>',
      });
    if (cs.metadata.name !== clusterSetId)
      notes.add({
        class: 'blocker',
        code: 'clusterset-id-mismatch',
        path: ref(cs),
        message: `member ${id}'s ClusterSet is named ${cs.metadata.name}, the leader's ${clusterSetId}; Antrea requires one name in every cluster`,
        fix: 'this member belongs to another ClusterSet: leave it out, or join it to this one first',
      });
    if (str(leaders0(cs).clusterID) !== undefined && leaders0(cs).clusterID !== leaderId)
      notes.add({
        class: 'blocker',
        code: 'member-leader-mismatch',
        path: `${ref(cs)} spec.leaders[0].clusterID`,
        message: `member ${id} names leader ${String(leaders0(cs).clusterID)}, the leader context holds ${leaderId}`,
        fix: 'import each ClusterSet from its own leader',
      });
  }
  if (memberNamespace !== DEFAULT_MEMBER_NAMESPACE)
    notes.comment(
      'memberNamespace',
      `Where the members' ClusterSets live (${memberNsVotes.length} of ${memberIds.length} members).`,
    );
  return { memberSets, leaderNamespace, memberNamespace, clusterSetId, leaderId };
}
