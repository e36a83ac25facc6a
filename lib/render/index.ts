/**
 * Render: plan → one list of Kubernetes objects per cluster (one module per output kind), each built
 * with a generated binding's static `manifest()` (typed props; util.ts `put`) into a `Sink`, and
 * handed to our own emitter, which orders, names and writes files. No cdk8s construct tree: its
 * multi-chart synth is quadratic in charts, its file naming loses objects, and building and
 * resolving constructs was half of the render stage.
 */
import type { Plan, PlannedCluster } from '../plan';
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
import { renderMemberControllerRestart } from './member-restart';
import { renderNamespace } from './namespaces';
import { renderPolicyImport } from './policy-imports';
import { renderReconciler } from './reconciler';
import { renderServiceImport } from './service-imports';
import { renderServiceExport } from './service-exports';
import { renderStretchedPolicy } from './stretched-policies';
import { renderTier } from './tiers';
import { Sink, withOwnership } from './util';

/** A rendered Kubernetes object, as plain JSON. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
};

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

/** Namespaces every cluster has already; a bundle never owns them. */
const BUILTIN_NAMESPACES: ReadonlySet<string> = new Set([
  'default',
  'kube-node-lease',
  'kube-public',
  'kube-system',
]);

/**
 * Namespaces a member bundle brings: its controller namespace when custom, and every exported
 * Service's namespace (every member may import every Service), except built-in ones and the leader
 * namespace, which the leader side of a dual-role cluster owns.
 */
function memberNamespaces(plan: Plan, member: PlannedCluster): string[] {
  const names = new Set([plan.memberNamespace, ...plan.serviceNamespaces]);
  if (member.isLeader) names.delete(plan.leaderNamespace);
  return [...names].filter((n) => !BUILTIN_NAMESPACES.has(n));
}

function renderMember(chart: Sink, plan: Plan, member: PlannedCluster): void {
  renderCrds(chart, MEMBER_CRDS);
  for (const ns of memberNamespaces(plan, member)) renderNamespace(chart, ns, { prune: false });
  renderMemberClusterSet(chart, plan, member);
  if (plan.externalSecrets) renderMemberExternalSecret(chart, plan, member);
  renderMemberConfig(chart, plan, member);
  renderClusterIdentity(chart, plan, member);
  for (const s of plan.exportsByMember.get(member.id) ?? []) renderServiceExport(chart, s);
  const stretched = plan.stretchedByMember.get(member.id) ?? [];
  const tiers = new Set([...plan.baselinePolicies, ...stretched].map((p) => p.tier));
  const memberTiers = plan.tiers.filter((t) => tiers.has(t.name));
  for (const t of memberTiers) renderTier(chart, t);
  for (const g of groupsNeeded([...plan.baselinePolicies, ...stretched], plan.clusterGroups))
    renderClusterGroup(chart, g);
  for (const p of stretched) renderStretchedPolicy(chart, p);
  renderMemberControllerRestart(chart, plan, member, memberTiers);
}

/** Renders every cluster's bundle. Pure: no file system, no environment. */
export function render(plan: Plan): Bundles {
  const bundles: Bundles = new Map();
  for (const cluster of plan.clusters) {
    if (!cluster.isLeader && !cluster.isMember) continue;
    const sink = new Sink();
    if (cluster.isLeader) renderLeader(sink, plan);
    if (cluster.isMember) renderMember(sink, plan, cluster);
    bundles.set(cluster.id, withOwnership(sink.objects, plan.clusterSetId));
  }
  return bundles;
}
