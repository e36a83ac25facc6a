/**
 * Which Antrea ClusterNetworkPolicies are in force in one cluster, in the order Antrea evaluates
 * them: by Tier priority, then policy priority (lower first), then, where Antrea leaves the order
 * undefined (same Tier and priority), by object name, with the tie reported.
 */
import { cmp } from '../diagnostics';
import type { AppliedToProps, LabelSelectorProps } from '../model';
import { memberImportName } from '../names';
import type { Plan, PlannedPolicy } from '../plan';

/**
 * Priorities of Antrea's built-in Tiers (docs/antrea-network-policy.md "Static tiers"). Custom Tiers
 * must use priorities below 250, so they are all evaluated before K8s NetworkPolicies; only the
 * `baseline` Tier comes after them.
 */
export const BUILTIN_TIER_PRIORITIES: Readonly<Record<string, number>> = {
  emergency: 50,
  securityops: 100,
  networkops: 150,
  platform: 200,
  application: 250,
  baseline: 253,
};

/** The Tier Antrea assigns to a policy that names none. */
export const DEFAULT_TIER = 'application';
/** The Tier evaluated after K8s NetworkPolicies. */
export const BASELINE_TIER = 'baseline';

/** A policy as one cluster holds it. */
export interface AppliedPolicy {
  readonly policy: PlannedPolicy;
  /** Model name. */
  readonly name: string;
  /** The ClusterNetworkPolicy in the member: `antrea-mc-<name>` for replicated baseline policies. */
  readonly objectName: string;
  readonly kind: 'baseline' | 'stretched';
  readonly tier: string;
  readonly tierPriority: number;
  readonly priority: number;
  /** Other policies of the same cluster with the same Tier and priority: Antrea orders them arbitrarily. */
  readonly tiedWith: readonly string[];
}

/** The priority of a Tier by name (built-in or declared in the model). */
export function tierPriority(plan: Plan, tier: string): number {
  return BUILTIN_TIER_PRIORITIES[tier] ?? plan.tiers.find((t) => t.name === tier)?.priority ?? NaN;
}

/** The ClusterNetworkPolicy name a policy has in a member. */
export function policyObjectName(p: PlannedPolicy): string {
  return p.kind === 'baseline' ? memberImportName(p.name) : p.name;
}

/**
 * The policies in force in `clusterId`, in evaluation order. Only members hold any: baseline
 * policies are imported by every member, stretched ones are rendered into the members they list.
 */
export function policiesIn(plan: Plan, clusterId: string): AppliedPolicy[] {
  const cluster = plan.clusters.find((c) => c.id === clusterId);
  if (!cluster?.isMember) return [];
  const held = [...plan.baselinePolicies, ...(plan.stretchedByMember.get(clusterId) ?? [])];
  const base = held.map((p) => {
    const tier = p.tier ?? DEFAULT_TIER;
    return {
      policy: p,
      name: p.name,
      objectName: policyObjectName(p),
      kind: p.kind,
      tier,
      tierPriority: tierPriority(plan, tier),
      priority: p.priority,
    };
  });
  base.sort(
    (a, b) => a.tierPriority - b.tierPriority || a.priority - b.priority || cmp(a.objectName, b.objectName),
  );
  return base.map((p) => ({
    ...p,
    tiedWith: base
      .filter((q) => q !== p && q.tier === p.tier && q.priority === p.priority)
      .map((q) => q.objectName),
  }));
}

/** `app=cart,tier in (a,b),!legacy`: a selector as kubectl prints one; `{}` selects everything. */
export function formatSelector(s: LabelSelectorProps | undefined): string {
  if (s === undefined) return '';
  const parts = Object.entries(s.matchLabels ?? {})
    .sort(([a], [b]) => cmp(a, b))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of s.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.length === 0 ? '{}' : parts.join(',');
}

/** What a policy applies to, in words: `Namespace shop, Pods app=cart; all Pods`. */
export function describeAppliedTo(p: PlannedPolicy): string {
  if (p.appliedTo === undefined) return 'set per rule';
  return p.appliedTo
    .map((a: AppliedToProps) => {
      if (a.group !== undefined) return `ClusterGroup ${a.group}`;
      if (a.serviceAccount) return `ServiceAccount ${a.serviceAccount.namespace}/${a.serviceAccount.name}`;
      if (a.nodeSelector) return `Nodes ${formatSelector(a.nodeSelector)}`;
      const parts: string[] = [];
      if (a.namespaceSelector) parts.push(`Namespaces ${formatNamespaceSelector(a.namespaceSelector)}`);
      if (a.podSelector) parts.push(`Pods ${formatSelector(a.podSelector)}`);
      return parts.length === 0 ? 'all Pods' : parts.join(', ');
    })
    .join('; ');
}

/** `shop` for a selector on the Namespace name alone, `{}` for all, the selector otherwise. */
export function formatNamespaceSelector(s: LabelSelectorProps): string {
  const labels = Object.entries(s.matchLabels ?? {});
  if ((s.matchExpressions ?? []).length === 0 && labels.length === 1 && labels[0]![0] === NAME_LABEL)
    return labels[0]![1];
  return formatSelector(s);
}

/** The label every Namespace carries with its own name (Kubernetes ≥ 1.21). */
export const NAME_LABEL = 'kubernetes.io/metadata.name';

/** Every Namespace a policy names through `kubernetes.io/metadata.name`, sorted. */
export function namespacesNamedBy(policies: readonly PlannedPolicy[]): string[] {
  const names = new Set<string>();
  const visit = (s: LabelSelectorProps | undefined): void => {
    if (!s) return;
    const v = s.matchLabels?.[NAME_LABEL];
    if (v !== undefined) names.add(v);
    for (const e of s.matchExpressions ?? [])
      if (e.key === NAME_LABEL) for (const x of e.values ?? []) names.add(x);
  };
  for (const p of policies) {
    for (const a of p.appliedTo ?? []) visit(a.namespaceSelector);
    for (const r of [...(p.ingress ?? []), ...(p.egress ?? [])])
      for (const a of r.appliedTo ?? []) visit(a.namespaceSelector);
    for (const r of p.ingress ?? []) for (const x of r.from ?? []) visit(x.namespaceSelector);
    for (const r of p.egress ?? []) {
      for (const x of r.to ?? []) visit(x.namespaceSelector);
      for (const s of r.toServices ?? []) names.add(s.namespace);
    }
  }
  return [...names].sort(cmp);
}
