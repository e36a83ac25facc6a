/**
 * `clusterset import`'s pure core: a snapshot of a running Antrea ClusterSet (lib/import/snapshot.ts)
 * → the model that compiles to what is there, each assumption commented at its model path, and the
 * findings of the report (lib/import/report.ts). importSet() reads one kind of thing after another,
 * each in its own file of this folder, and what each field is read from:
 *
 * - clusterSetId, leader, leaderNamespace: the leader's ClusterSet (antrea-mc.md §b) and the members'
 *   `spec.namespace`; memberNamespace: the namespace of each member's ClusterSet (clusterset.ts);
 * - each member's identity: the ServiceAccount annotated with its cluster ID, its RoleBinding to
 *   `antrea-mc-member-cluster-role`, its token Secret (§e, §i) and the member ClusterSet's
 *   `leaders[0].secret` (identities.ts);
 * - antreaVersion: the oldest `antrea-mc-controller` image tag (version.ts);
 * - each cluster: the leader's API server from the members' `leaders[0].server`, a member's from the
 *   kubeconfig it was read through; Service and Pod CIDRs, endpoint IP type, gateway IP precedence
 *   and stretched policy from its `antrea-mc-controller-config` (§e Member); gateway Nodes from the
 *   `multicluster.antrea.io/gateway` annotation (§f); networks from the endpoint types and gateways
 *   (clusters.ts);
 * - Services: the live ServiceImport imports, ports in their order; exporters from the Service
 *   exports (§c.1) and the members' ServiceExports (services.ts);
 * - baseline policies: the ACNP imports (§c.2); stretched policies, ClusterGroups and Tiers: the
 *   members (§d) (policies.ts);
 * - secrets and the reconciler's warm standby (settings.ts).
 *
 * Then the model is compiled and what the leader bundle renders is compared with what lives
 * (compare.ts): that comparison, not the reading, decides what the cut-over changes.
 */
import type { ClusterSetProps } from '../../model';
import { DEFAULT_LEADER_NAMESPACE, DEFAULT_MEMBER_NAMESPACE, MEMBER_CONTROLLER_CONFIG } from '../../names';
import { compareWithLive } from '../compare';
import { type Finding, type Imported, Notes, sortFindings } from '../findings';
import { cmp } from '../live';
import type { LiveSnapshot } from '../snapshot';
import { commentClusters, importClusters } from './clusters';
import { readClusterSet } from './clusterset';
import { type Context, leaderExports } from './context';
import { readIdentities } from './identities';
import {
  commentPolicies,
  importBaselinePolicies,
  importClusterGroups,
  importStretchedPolicies,
  importTiers,
} from './policies';
import { commentServices, importServices } from './services';
import { reconcilerSetting, secretsSetting } from './settings';
import { readVersion } from './version';

export function importSet(s: LiveSnapshot): Imported {
  const notes = new Notes();
  const leaderSnap = s.leader;
  const memberIds = Object.keys(s.members).sort(cmp);
  const cx: Context = { s, notes, leaderSnap, memberIds };

  // -------------------------------------------------------------------- ClusterSet, leader, namespaces
  const set = readClusterSet(cx);
  const { memberSets, leaderNamespace, memberNamespace, clusterSetId, leaderId } = set;

  // -------------------------------------------------------------------- identities (leader namespace)
  const identities = readIdentities(cx, leaderNamespace);

  // -------------------------------------------------------------------- exports, imports, announces
  const exports = leaderExports(cx, leaderNamespace);

  // -------------------------------------------------------------------- versions
  const antreaVersion = readVersion(cx, set);

  // -------------------------------------------------------------------- clusters, networks
  const cl = importClusters(cx, set, identities, exports);
  const { leaderConfig, isMember, clusters, networkNote, memberTokenSecretName } = cl;

  // -------------------------------------------------------------------- Services
  const sv = importServices(cx, exports);
  const { services } = sv;

  // -------------------------------------------------------------------- baseline policies
  const baseline = importBaselinePolicies(cx, exports);
  const { baselinePolicies } = baseline;

  // -------------------------------------------------------------------- stretched policies
  const stretchedPolicies = importStretchedPolicies(cx, baseline.policyComments);

  // -------------------------------------------------------------------- Tiers and ClusterGroups
  const tierPart = importTiers(cx, baselinePolicies, stretchedPolicies);
  const { tiers } = tierPart;
  const groupPart = importClusterGroups(cx, baselinePolicies, stretchedPolicies);
  const { clusterGroups } = groupPart;

  // -------------------------------------------------------------------- the model
  const model: Record<string, unknown> = { clusterSetId };
  if (antreaVersion !== undefined) model.antreaVersion = antreaVersion;
  if (leaderNamespace !== DEFAULT_LEADER_NAMESPACE) model.leaderNamespace = leaderNamespace;
  if (memberNamespace !== DEFAULT_MEMBER_NAMESPACE) model.memberNamespace = memberNamespace;
  model.leader = leaderId;
  model.members = memberIds;
  model.clusters = clusters;
  if (services.length > 0) model.services = services;
  if (tiers.length > 0) model.tiers = tiers;
  if (clusterGroups.length > 0) model.clusterGroups = clusterGroups;
  if (baselinePolicies.length > 0) model.baselinePolicies = baselinePolicies;
  if (stretchedPolicies.length > 0) model.stretchedPolicies = stretchedPolicies;
  secretsSetting(model, notes, memberTokenSecretName);

  notes.comment(
    '',
    `Imported by \`clusterset import\` from the running ClusterSet ${clusterSetId} (leader context ${leaderSnap.context}, read ${s.readAt}).`,
    'Each comment says where a value came from or what was assumed; check the ones that say "Assumed" or "Unsure".',
    'Add `delivery` (the git repository Argo CD or Flux reads) before the cut-over; see docs/import.md.',
    ...networkNote,
  );
  notes.comment(
    'leader',
    `spec.clusterID of the leader's ClusterSet${isMember.has(leaderId) ? '; it is also a member (a member ClusterSet names it)' : ''}.`,
  );
  notes.comment('members', 'The clusters read with --member ID=CONTEXT.');
  if (leaderConfig.found)
    notes.comment(
      'leader',
      `The leader's ${MEMBER_CONTROLLER_CONFIG} has enableStretchedNetworkPolicy: ${leaderConfig.enableStretchedNetworkPolicy}.`,
    );
  commentClusters(notes, cl);
  commentServices(notes, sv);
  commentPolicies(notes, tierPart, groupPart, baseline, stretchedPolicies);

  reconcilerSetting(model, notes);

  const typed = model as unknown as ClusterSetProps;
  compareWithLive(s, typed, { leaderNamespace, memberNamespace, leaderConfig, memberSets }, notes);
  return { model: typed, comments: notes.comments, findings: sortFindings(dedupe(notes.findings)) };
}

function dedupe(fs: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return fs.filter((f) => {
    const k = JSON.stringify([f.class, f.code, f.path, f.message]);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
