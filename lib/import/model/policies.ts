/**
 * The model's policies and what they use: baseline policies from the live ACNP imports
 * (antrea-mc.md §c.2), stretched policies from the members' own ClusterNetworkPolicies (§d), one
 * spec per name; then the Tiers and ClusterGroups those policies name, from the members. What does
 * not round-trip through the model (policy.ts) is a blocker named by its path; a copy that differs
 * between members, a Tier or ClusterGroup no member has, likewise. Pure.
 */
import type { ClusterGroupProps, PolicyProps, StretchedPolicyProps, TierProps } from '../../model';
import { BUILTIN_TIERS, IMPORTED_ACNP_ANNOTATION, IMPORT_PREFIX, acnpImportName } from '../../names';
import { groupsOf } from '../../policy';
import type { Notes } from '../findings';
import { type Json, annotation, cmp, isObject, list, ref, sameJson, spec, str } from '../live';
import { clusterGroupFromSpec, isStretched, policyFromSpec } from '../policy';
import { type Context, type LeaderExports, CRD_ANY } from './context';

/** The baseline policies read, and the comments of every policy (name, text). */
export interface BaselinePolicies {
  readonly baselinePolicies: PolicyProps[];
  readonly policyComments: [string, string][];
}

export function importBaselinePolicies(
  { notes }: Context,
  { importsOfKind, exportsOfKind }: LeaderExports,
): BaselinePolicies {
  const baselinePolicies: PolicyProps[] = [];
  const policyComments: [string, string][] = [];
  for (const ri of importsOfKind('AntreaClusterNetworkPolicy')) {
    const name = str(spec(ri).name);
    const live = isObject(spec(ri).clusternetworkpolicy)
      ? (spec(ri).clusternetworkpolicy as Json)
      : undefined;
    if (!name || !live) {
      notes.add({
        class: 'blocker',
        code: 'import-unreadable',
        path: ref(ri),
        message: 'an ACNP import without spec.name or spec.clusternetworkpolicy: the model cannot carry it',
        fix: "find out which controller wrote it; it is none of Antrea's shapes",
      });
      continue;
    }
    const { policy, unexpressible } = policyFromSpec(name, live);
    for (const u of unexpressible)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `${ref(ri)} spec.clusternetworkpolicy.${u.path}`,
        message: `policy ${name} does not round-trip through the model: ${u.why}; adopting it would change antrea-mc-${name} in every member`,
        fix: `change the ACNP ResourceExport of ${name} so that it uses only what the model can say, or accept the change knowingly`,
      });
    baselinePolicies.push(policy);
    policyComments.push([
      name,
      `From ${ref(ri)}${ri.metadata.name !== acnpImportName(name) ? ` (named otherwise than ${acnpImportName(name)}!)` : ''}.`,
    ]);
    if (!exportsOfKind('AntreaClusterNetworkPolicy').some((e) => spec(e).name === name))
      notes.add({
        class: 'info',
        code: 'orphan-import',
        path: ref(ri),
        message: `no ACNP export backs ${ref(ri)}; the model keeps policy ${name}, now compiled from the model alone`,
      });
  }
  baselinePolicies.sort((a, b) => cmp(a.name, b.name));
  for (const e of exportsOfKind('AntreaClusterNetworkPolicy')) {
    const name = str(spec(e).name);
    if (name && !baselinePolicies.some((p) => p.name === name))
      notes.add({
        class: 'info',
        code: 'export-without-import',
        path: ref(e),
        message: `the ACNP export ${e.metadata.name} (policy ${name}) has no import; it stays out of the model`,
        fix: `add it to baselinePolicies if every member should get it (a new antrea-mc-${name} in every member)`,
      });
  }
  return { baselinePolicies, policyComments };
}

/** The stretched policies read; their comments join `policyComments`. */
export function importStretchedPolicies(
  { s, notes, memberIds }: Context,
  policyComments: [string, string][],
): StretchedPolicyProps[] {
  const byName = new Map<string, { id: string; spec: Json }[]>();
  for (const id of memberIds) {
    for (const p of list(s.members[id], CRD_ANY, 'ClusterNetworkPolicy')) {
      if (annotation(p, IMPORTED_ACNP_ANNOTATION) !== undefined || p.metadata.name.startsWith(IMPORT_PREFIX))
        continue;
      if (!isObject(p.spec) || !isStretched(p.spec)) continue;
      byName.set(p.metadata.name, [...(byName.get(p.metadata.name) ?? []), { id, spec: p.spec }]);
    }
  }
  const stretchedPolicies: StretchedPolicyProps[] = [];
  for (const [name, copies] of [...byName.entries()].sort((a, b) => cmp(a[0], b[0]))) {
    const first = copies[0]!;
    const same = copies.filter((c) => sameJson(c.spec, first.spec)).map((c) => c.id);
    const other = copies.filter((c) => !sameJson(c.spec, first.spec)).map((c) => c.id);
    if (other.length > 0)
      notes.add({
        class: 'blocker',
        code: 'stretched-policy-differs',
        path: `ClusterNetworkPolicy ${name}`,
        message: `stretched policy ${name} differs between members (${same.join(', ')} vs ${other.join(', ')}); the model has one spec per name, taken from ${first.id}`,
        fix: `make the copies equal, or rename one of them, then import again`,
      });
    const { policy, unexpressible } = policyFromSpec(name, first.spec);
    for (const u of unexpressible)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `ClusterNetworkPolicy ${name} (member ${first.id}) spec.${u.path}`,
        message: `stretched policy ${name} does not round-trip through the model: ${u.why}`,
        fix: `change ${name} in the members so that it uses only what the model can say, or accept the change knowingly`,
      });
    const all = same.length === memberIds.length;
    stretchedPolicies.push({ ...policy, ...(all ? {} : { members: same }) });
    policyComments.push([name, `From ClusterNetworkPolicy ${name} in ${same.join(', ')}.`]);
  }
  return stretchedPolicies;
}

/** The Tiers the policies use, with their comments (name, text). */
export interface Tiers {
  readonly tiers: TierProps[];
  readonly tierComments: [string, string][];
}

export function importTiers(
  { s, notes, memberIds }: Context,
  baselinePolicies: readonly PolicyProps[],
  stretchedPolicies: readonly StretchedPolicyProps[],
): Tiers {
  const usedTiers = [
    ...new Set([...baselinePolicies, ...stretchedPolicies].flatMap((p) => (p.tier ? [p.tier] : []))),
  ]
    .filter((t) => !BUILTIN_TIERS.includes(t))
    .sort(cmp);
  const tiers: TierProps[] = [];
  const tierComments: [string, string][] = [];
  for (const t of usedTiers) {
    const seen = memberIds.flatMap((id) => {
      const o = list(s.members[id], CRD_ANY, 'Tier').find((x) => x.metadata.name === t);
      return o ? [{ id, spec: spec(o) }] : [];
    });
    const first = seen[0];
    if (!first || typeof first.spec.priority !== 'number') {
      notes.add({
        class: 'blocker',
        code: 'tier-unknown',
        path: `Tier ${t}`,
        message: `Tier ${t}, which a policy uses, exists in no member read; its priority is unknown`,
        fix: `declare Tier ${t} in the model's tiers with the priority it has`,
      });
      continue;
    }
    const desc = str(first.spec.description);
    tiers.push({ name: t, priority: first.spec.priority, ...(desc ? { description: desc } : {}) });
    const differ = seen.filter((x) => !sameJson(x.spec, first.spec)).map((x) => x.id);
    tierComments.push([
      t,
      `From Tier ${t} in ${first.id}${differ.length ? `; it differs in ${differ.join(', ')}, whose copy the cut-over changes` : ''}.`,
    ]);
    const missing = memberIds.filter((id) => !seen.some((x) => x.id === id));
    if (missing.length > 0)
      notes.add({
        class: 'change',
        code: 'tier-created',
        path: `Tier ${t}`,
        message: `Tier ${t} is missing in ${missing.join(', ')}; their bundles create it (until then Antrea drops replicated policies of that Tier there)`,
      });
  }
  tiers.sort((a, b) => cmp(a.name, b.name));
  return { tiers, tierComments };
}

/** The ClusterGroups the policies name, and their child groups, with their comments (name, text). */
export interface ClusterGroups {
  readonly clusterGroups: ClusterGroupProps[];
  readonly groupComments: [string, string][];
}

export function importClusterGroups(
  { s, notes, memberIds }: Context,
  baselinePolicies: readonly PolicyProps[],
  stretchedPolicies: readonly StretchedPolicyProps[],
): ClusterGroups {
  const groupNames = new Set<string>();
  const clusterGroups: ClusterGroupProps[] = [];
  const groupComments: [string, string][] = [];
  const queue = [...baselinePolicies, ...stretchedPolicies].flatMap((p) => groupsOf(p));
  while (queue.length > 0) {
    const g = queue.shift()!;
    if (groupNames.has(g)) continue;
    groupNames.add(g);
    const seen = memberIds.flatMap((id) => {
      const o = list(s.members[id], CRD_ANY, 'ClusterGroup').find((x) => x.metadata.name === g);
      return o ? [{ id, spec: spec(o) }] : [];
    });
    const first = seen[0];
    if (!first) {
      notes.add({
        class: 'blocker',
        code: 'cluster-group-unknown',
        path: `ClusterGroup ${g}`,
        message: `ClusterGroup ${g}, which a policy names, exists in no member read`,
        fix: `declare ClusterGroup ${g} in the model's clusterGroups`,
      });
      continue;
    }
    const { group, dropped } = clusterGroupFromSpec(g, first.spec);
    for (const d of dropped)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `ClusterGroup ${g} (member ${first.id}) spec.${d}`,
        message: `ClusterGroup ${g} has a field the model lacks`,
        fix: `change ClusterGroup ${g} to use only what the model can say`,
      });
    clusterGroups.push(group);
    queue.push(...(group.childGroups ?? []));
    groupComments.push([g, `From ClusterGroup ${g} in ${first.id}.`]);
  }
  clusterGroups.sort((a, b) => cmp(a.name, b.name));
  return { clusterGroups, groupComments };
}

/** The comments of the Tiers, ClusterGroups and policies, at their model paths. */
export function commentPolicies(
  notes: Notes,
  { tiers, tierComments }: Tiers,
  { clusterGroups, groupComments }: ClusterGroups,
  { baselinePolicies, policyComments }: BaselinePolicies,
  stretchedPolicies: readonly StretchedPolicyProps[],
): void {
  tiers.forEach((t, i) =>
    tierComments.filter(([n]) => n === t.name).forEach(([, text]) => notes.comment(`tiers[${i}]`, text)),
  );
  clusterGroups.forEach((g, i) =>
    groupComments
      .filter(([n]) => n === g.name)
      .forEach(([, text]) => notes.comment(`clusterGroups[${i}]`, text)),
  );
  baselinePolicies.forEach((p, i) =>
    policyComments
      .filter(([n]) => n === p.name)
      .forEach(([, text]) => notes.comment(`baselinePolicies[${i}]`, text)),
  );
  stretchedPolicies.forEach((p, i) =>
    policyComments
      .filter(([n]) => n === p.name)
      .forEach(([, text]) => notes.comment(`stretchedPolicies[${i}]`, text)),
  );
}
