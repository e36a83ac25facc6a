/**
 * Render: plan → one list of Kubernetes objects per cluster (one module per output kind), each built
 * with a generated binding's static `manifest()` (typed props; util.ts `put`) into a `Sink`, and
 * handed to our own emitter, which orders, names and writes files. No cdk8s construct tree: its
 * multi-chart synth is quadratic in charts, its file naming loses objects, and building and
 * resolving constructs was half of the render stage.
 */
import { groupsOf } from '../policy';
import {
  memberBundle,
  memberOwnNamespaces,
  serviceNamespacesIn,
  type Plan,
  type PlannedCluster,
  type PlannedPolicy,
} from '../plan';
import {
  renderCompiledImportsPolicy,
  renderMemberWritesPolicy,
  renderReconcilerWritesPolicy,
} from './admission';
import { renderLeaderClusterSet, renderMemberClusterSet } from './clusterset';
import { groupsNeeded, renderClusterGroup } from './cluster-groups';
import { renderClusterIdentity } from './cluster-identity';
import { LEADER_CRDS, MEMBER_CRDS, renderCrds } from './crds';
import { renderMemberExternalSecret, renderTokenReaderAccess } from './external-secrets';
import { renderMemberIdentity, renderMemberRole } from './member-access';
import { renderMemberConfig } from './member-config';
import { memberRestartJob, renderMemberControllerRestart } from './member-restart';
import { renderNamespace } from './namespaces';
import { renderPolicyImport } from './policy-imports';
import { renderReconciler } from './reconciler';
import { renderServiceImport } from './service-imports';
import { renderServiceExport } from './service-exports';
import { renderStretchedPolicy } from './stretched-policies';
import { renderTier } from './tiers';
import { type K8sObject, Sink, withOwnership } from './util';

export type { K8sObject } from './util';

/** Objects of one cluster's bundle, in no particular order (the emitter orders them). */
export type Bundles = Map<string, K8sObject[]>;

function renderLeader(chart: Sink, plan: Plan): void {
  renderCrds(chart, LEADER_CRDS);
  renderNamespace(chart, plan.leaderNamespace, { prune: true });
  renderLeaderClusterSet(chart, plan);
  renderMemberRole(chart, plan);
  for (const m of plan.members) renderMemberIdentity(chart, plan, m);
  if (plan.externalSecrets) for (const m of plan.members) renderTokenReaderAccess(chart, plan, m);
  renderMemberWritesPolicy(chart, plan);
  renderCompiledImportsPolicy(chart, plan);
  renderReconcilerWritesPolicy(chart, plan);
  for (const s of plan.services) renderServiceImport(chart, plan, s);
  for (const p of plan.baselinePolicies) renderPolicyImport(chart, plan, p);
  renderReconciler(chart, plan);
}

/**
 * Objects that are the same in every bundle that holds them (CRDs, Namespaces, ServiceExports, Tiers,
 * ClusterGroups, stretched policies): each rendered once per compile and shared, not rebuilt per member, so render
 * is linear in the model; the emitter and the validator, which key their work on the object, then
 * handle each once too.
 */
class Shared {
  private readonly memo = new Map<string, readonly K8sObject[]>();
  private readonly groupNames = new Map<PlannedPolicy, readonly string[]>();
  constructor(private readonly clusterSetId: string) {}

  /** `groupsOf(p)`, once per policy: every member asks for the baseline policies' groups. */
  readonly groupsOf = (p: PlannedPolicy): readonly string[] => {
    let names = this.groupNames.get(p);
    if (!names) {
      names = groupsOf(p);
      this.groupNames.set(p, names);
    }
    return names;
  };

  objects(key: string, build: (sink: Sink) => void): readonly K8sObject[] {
    let objects = this.memo.get(key);
    if (!objects) {
      const sink = new Sink();
      build(sink);
      objects = withOwnership(sink.objects, this.clusterSetId);
      this.memo.set(key, objects);
    }
    return objects;
  }
}

/** Renders a member's own objects into `chart`; returns the shared ones its bundle also holds. */
function renderMember(chart: Sink, plan: Plan, member: PlannedCluster, shared: Shared): K8sObject[] {
  const common: K8sObject[] = [];
  const add = (key: string, build: (sink: Sink) => void): void => {
    common.push(...shared.objects(key, build));
  };
  add('crds', (s) => renderCrds(s, MEMBER_CRDS));
  for (const ns of memberOwnNamespaces(plan, member))
    add(`Namespace/${ns}`, (s) => renderNamespace(s, ns, { prune: false }));
  if (plan.takeOver.serviceNamespaces)
    for (const ns of serviceNamespacesIn(plan, member))
      add(`Namespace/${ns}`, (s) => renderNamespace(s, ns, { prune: false }));
  const stretched = plan.stretchedByMember.get(member.id) ?? [];
  const tiers = new Set([...plan.baselinePolicies, ...stretched].map((p) => p.tier));
  const memberTiers = plan.tiers.filter((t) => tiers.has(t.name));
  renderMemberClusterSet(chart, plan, member, memberRestartJob(plan, member, memberTiers).name);
  if (plan.externalSecrets) renderMemberExternalSecret(chart, plan, member);
  if (plan.takeOver.memberControllerConfig) renderMemberConfig(chart, plan, member);
  renderClusterIdentity(chart, plan, member);
  for (const s of plan.exportsByMember.get(member.id) ?? [])
    add(`ServiceExport/${s.namespace}/${s.name}`, (sink) => renderServiceExport(sink, s));
  for (const t of memberTiers) add(`Tier/${t.name}`, (s) => renderTier(s, t));
  for (const g of groupsNeeded([...plan.baselinePolicies, ...stretched], plan.clusterGroups, shared.groupsOf))
    add(`ClusterGroup/${g.name}`, (s) => renderClusterGroup(s, g));
  for (const p of stretched) add(`ClusterNetworkPolicy/${p.name}`, (s) => renderStretchedPolicy(s, p));
  renderMemberControllerRestart(chart, plan, member, memberTiers);
  return common;
}

/**
 * Renders every cluster's bundle. Pure: no file system, no environment. While the ClusterSet is
 * uninstalled (`plan.uninstall`), only the leader's, without a member side: the leader's stays as
 * it was until every member has left through it.
 */
export function render(plan: Plan): Bundles {
  const bundles: Bundles = new Map();
  const shared = new Shared(plan.clusterSetId);
  for (const cluster of plan.clusters) {
    const member = memberBundle(plan, cluster);
    if (!cluster.isLeader && !member) continue;
    const sink = new Sink();
    if (cluster.isLeader) renderLeader(sink, plan);
    const common = member ? renderMember(sink, plan, cluster, shared) : [];
    bundles.set(cluster.id, [...common, ...withOwnership(sink.objects, plan.clusterSetId)]);
  }
  return bundles;
}
