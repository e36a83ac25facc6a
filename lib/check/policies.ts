/**
 * Tiers, baseline policies and stretched policies.
 */
import type { ClusterProps, StretchedPolicyProps } from '../model';
import { BUILTIN_TIERS, DNS1123_LABEL, IMPORT_PREFIX, memberImportName } from '../names';
import {
  type At,
  clusterById,
  clusterName,
  duplicates,
  egressOf,
  ingressOf,
  memberClusters,
  memberIds,
  nonEmpty,
  objects,
  orClosest,
  peersOf,
  policiesOf,
  quote,
  quoteList,
  rulesOf,
  str,
  strings,
} from './util';
import { type Rule, rule, LABEL_WORDS, checkName, stretchedEnabled, serviceKey } from './rule';

export const tierRules: readonly Rule[] = [
  rule(
    'tier-name-duplicate',
    'Each custom Tier is declared once.',
    'Two Tier objects with one name overwrite each other in every member.',
    (m, report) => {
      for (const { first, dup } of duplicates(objects(m.tiers, 'tiers'), (t) => str(t.name))) {
        report(
          `${dup.path}.name`,
          `Tier ${quote(dup.value.name)} is already declared at ${first.path}`,
          'declare each Tier once',
        );
      }
    },
  ),
  rule(
    'tier-priority-duplicate',
    'Custom Tiers have distinct priorities.',
    "antrea-controller's Tier webhook refuses a Tier whose priority another Tier already has, so the second Tier " +
      'and every policy in it are missing.',
    (m, report) => {
      const key = (t: { priority?: unknown }) =>
        typeof t.priority === 'number' ? String(t.priority) : undefined;
      for (const { first, dup } of duplicates(objects(m.tiers, 'tiers'), key)) {
        report(
          `${dup.path}.priority`,
          `Tier ${quote(dup.value.name)} has priority ${quote(dup.value.priority)}, already used by Tier ${quote(first.value.name)} (${first.path})`,
          'give each Tier its own priority',
        );
      }
    },
  ),
  rule(
    'tier-builtin-clash',
    "Custom Tiers do not reuse a built-in Tier's name.",
    'Built-in Tiers already exist and cannot be changed: applying a custom Tier of that name fails or is overwritten.',
    (m, report) => {
      for (const t of objects(m.tiers, 'tiers')) {
        const name = str(t.value.name);
        if (name === undefined || !BUILTIN_TIERS.includes(name)) continue;
        report(
          `${t.path}.name`,
          `Tier ${quote(name)} is one of Antrea's built-in Tiers (${quoteList(BUILTIN_TIERS)})`,
          'use the built-in Tier without declaring it, or give the custom Tier another name',
        );
      }
    },
  ),
];

export const policyRules: readonly Rule[] = [
  rule(
    'policy-name-format',
    'Policy names are DNS-1123 labels of at most 53 characters.',
    'Members import a replicated policy as antrea-mc-<name>, and its name is a sourceName label value (at most 63): ' +
      'longer or malformed names are refused by the API server.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        checkName(report, `${p.path}.name`, p.value.name, 'policy name', 53, DNS1123_LABEL, LABEL_WORDS);
      }
    },
  ),
  rule(
    'policy-name-duplicate',
    'Policy names are unique across baseline and stretched policies.',
    'Both become ClusterNetworkPolicy antrea-mc-<name> in the same member: one overwrites the other, or the member ' +
      'refuses the import as conflicting with an existing policy.',
    (m, report) => {
      for (const { first, dup } of duplicates(policiesOf(m), (p) => str(p.name))) {
        report(
          `${dup.path}.name`,
          `policy name ${quote(dup.value.name)} is already used by ${first.path}`,
          'give each policy a unique name',
        );
      }
    },
  ),
  rule(
    'policy-import-name-collision',
    'No stretched policy is named antrea-mc-<p> beside a baseline policy <p>.',
    'Members import baseline policy <p> as ClusterNetworkPolicy antrea-mc-<p>; a stretched policy of that name in the ' +
      'same member makes Antrea refuse the import ("conflicts with existing one"), or one overwrites the other.',
    (m, report) => {
      const baseline = new Map(
        objects(m.baselinePolicies, 'baselinePolicies').flatMap((p) => {
          const name = str(p.value.name);
          return name === undefined ? [] : [[memberImportName(name), p] as const];
        }),
      );
      for (const p of objects(m.stretchedPolicies, 'stretchedPolicies')) {
        const name = str(p.value.name);
        const original = name === undefined ? undefined : baseline.get(name);
        if (!original) continue;
        report(
          `${p.path}.name`,
          `stretched policy ${quote(name)} has the name members give the import of baseline policy ` +
            `${quote(original.value.name)} (${original.path})`,
          `rename the stretched policy: names starting with ${quote(IMPORT_PREFIX)} belong to Antrea's imports`,
        );
      }
    },
  ),
  rule(
    'policy-priority-range',
    'Policy priorities are from 1 to 10000.',
    'The ClusterNetworkPolicy CRD refuses a priority outside 1..10000, so the policy never exists in any member.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        const priority = p.value.priority;
        if (typeof priority !== 'number' || (priority >= 1 && priority <= 10000)) continue;
        report(
          `${p.path}.priority`,
          `priority ${quote(priority)} is not from 1 to 10000`,
          'use a priority from 1 to 10000',
        );
      }
    },
  ),
  rule(
    'policy-tier-unknown',
    'A policy names a built-in Tier or one declared in tiers.',
    'antrea-controller refuses a policy whose Tier does not exist; a replicated one is dropped by the member ' +
      '(Warning Event, never retried).',
    (m, report) => {
      const known = [...BUILTIN_TIERS, ...objects(m.tiers, 'tiers').flatMap((t) => str(t.value.name) ?? [])];
      for (const p of policiesOf(m)) {
        const tier = str(p.value.tier);
        if (!tier || known.includes(tier)) continue;
        report(
          `${p.path}.tier`,
          `Tier ${quote(tier)} is neither built in nor declared in tiers`,
          orClosest(tier, known, 'declare the Tier in tiers, or use one of the built-in Tiers'),
        );
      }
    },
  ),
  rule(
    'baseline-policy-tier-missing',
    'Every baseline policy names its Tier explicitly.',
    'A replicated ACNP without an existing Tier is silently dropped by the member (a Warning Event in the leader) ' +
      'and never retried.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        if (p.kind !== 'baseline' || (p.value.tier !== undefined && p.value.tier !== '')) continue;
        report(
          `${p.path}.tier`,
          `baseline policy ${quote(p.value.name)} has no Tier`,
          `set tier, e.g. ${quote('application')}, or a Tier declared in tiers`,
        );
      }
    },
  ),
  rule(
    'egress-service-unknown',
    'Egress toServices of scope ClusterSet name Services declared in services.',
    'antrea-controller rewrites toServices to antrea-mc-<name>, which exists only for imported Services: a ' +
      'reference to anything else matches nothing, and the rule silently allows or drops nothing.',
    (m, report) => {
      const declared = new Set(objects(m.services, 'services').flatMap((s) => serviceKey(s.value) ?? []));
      for (const p of policiesOf(m)) {
        for (const r of egressOf(p)) {
          for (const ref of objects(r.value.toServices, `${r.path}.toServices`)) {
            if ((ref.value.scope ?? 'ClusterSet') !== 'ClusterSet') continue;
            const key = serviceKey(ref.value);
            if (key === undefined || declared.has(key)) continue;
            report(
              ref.path,
              `toServices names Service ${quote(key)}, which is not declared in services`,
              orClosest(key, declared, 'declare the Service in services, or name a declared one'),
            );
          }
        }
      }
    },
  ),
  rule(
    'egress-to-services-combined',
    'An egress rule with toServices has no `to`, `ports` or `protocols`.',
    "antrea-controller's validation refuses a rule combining toServices with to, ports or protocols, so the whole " +
      'policy is refused.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of egressOf(p)) {
          if (!nonEmpty(r.value.toServices)) continue;
          for (const field of ['to', 'ports', 'protocols'] as const) {
            if (!nonEmpty(r.value[field])) continue;
            report(
              `${r.path}.${field}`,
              `egress rule ${quote(r.value.name ?? r.index)} combines toServices with ${field}`,
              `split it into two rules: one with toServices only, one with ${field}`,
            );
          }
        }
      }
    },
  ),
  rule(
    'egress-peer-scope-clusterset',
    'Egress `to` peers do not use `scope: ClusterSet`.',
    'The ClusterNetworkPolicy schema has no scope under egress to: the API server prunes it and the peer silently ' +
      'matches only the local cluster.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of egressOf(p)) {
          for (const peer of peersOf(r, 'to')) {
            if (peer.value.scope !== 'ClusterSet') continue;
            report(
              `${peer.path}.scope`,
              `egress peer has scope ${quote('ClusterSet')}, which Antrea only allows on ingress peers`,
              'reach Services in other clusters with toServices instead, or remove scope',
            );
          }
        }
      }
    },
  ),
  rule(
    'baseline-policy-stretched-feature',
    'Baseline policies use ClusterSet scope (peers or toServices) only when every member enables stretched NetworkPolicy.',
    'Baseline policies reach every member; a member without stretched NetworkPolicy skips toServices entries and ' +
      'ClusterSet-scope peers (antrea-controller logs an error), so the policy allows or drops less than written.',
    (m, report) => {
      const lacking = memberClusters(m).filter((c) => !stretchedEnabled(c.value));
      if (lacking.length === 0) return;
      const ids = quoteList(lacking.map((c) => c.value.id));
      const fix = `move the rule to a stretched policy, or set enableStretchedNetworkPolicy: true on ${ids}`;
      for (const p of policiesOf(m)) {
        if (p.kind !== 'baseline') continue;
        const because = `baseline policy ${quote(p.value.name)} reaches every member, and ${ids} do${lacking.length === 1 ? 'es' : ''} not enable stretched NetworkPolicy`;
        for (const r of ingressOf(p)) {
          for (const peer of peersOf(r, 'from')) {
            if (peer.value.scope === 'ClusterSet')
              report(`${peer.path}.scope`, `uses scope "ClusterSet", but ${because}`, fix);
          }
        }
        for (const r of egressOf(p)) {
          for (const ref of objects(r.value.toServices, `${r.path}.toServices`)) {
            if ((ref.value.scope ?? 'ClusterSet') === 'ClusterSet')
              report(ref.path, `uses a ClusterSet-scope toServices, but ${because}`, fix);
          }
        }
      }
    },
  ),
  rule(
    'stretched-policy-member-unknown',
    "A stretched policy's members are members of the ClusterSet.",
    'A policy for a cluster outside the set is never rendered anywhere, so the protection it describes does not exist.',
    (m, report) => {
      const members = memberIds(m);
      const byId = clusterById(m);
      for (const p of policiesOf(m)) {
        if (p.kind !== 'stretched') continue;
        for (const x of strings((p.value as StretchedPolicyProps).members, `${p.path}.members`)) {
          if (members.has(x.value)) continue;
          report(
            x.path,
            byId.has(x.value)
              ? `cluster ${quote(x.value)} is not a member`
              : `${quote(x.value)} is not the ID of any cluster`,
            orClosest(x.value, members, 'name members only, or add the cluster to members'),
          );
        }
      }
    },
  ),
  rule(
    'stretched-policy-members-empty',
    'A stretched policy that lists its members lists at least one.',
    'A stretched policy with `members: []` is rendered into no cluster: the protection it describes does not exist anywhere.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        if (p.kind !== 'stretched') continue;
        const members = (p.value as StretchedPolicyProps).members;
        if (Array.isArray(members) && members.length === 0) {
          report(
            `${p.path}.members`,
            'the list is empty',
            'name the members the policy protects, or leave members out to target every member',
          );
        }
      }
    },
  ),
  rule(
    'stretched-policy-member-disabled',
    'Every member a stretched policy targets enables stretched NetworkPolicy.',
    "Without enableStretchedNetworkPolicy, the member's antrea-controller skips ClusterSet-scope peers and toServices " +
      'and no LabelIdentities are exchanged, so the stretched rules match nothing there.',
    (m, report) => {
      const byId = new Map(memberClusters(m).map((c) => [c.value.id, c]));
      const fix = (id: string) =>
        `set enableStretchedNetworkPolicy: true on cluster ${quote(id)}, or stop targeting it`;
      for (const p of policiesOf(m)) {
        if (p.kind !== 'stretched') continue;
        const listed = (p.value as StretchedPolicyProps).members;
        const targets: { cluster: At<ClusterProps> | undefined; path: string }[] =
          listed === undefined
            ? [...byId.values()].map((cluster) => ({ cluster, path: p.path }))
            : strings(listed, `${p.path}.members`).map((x) => ({ cluster: byId.get(x.value), path: x.path }));
        for (const { cluster, path } of targets) {
          if (!cluster || stretchedEnabled(cluster.value)) continue;
          report(
            path,
            `stretched policy ${quote(p.value.name)} targets ${clusterName(cluster)}${listed === undefined ? ' (every member is targeted by default)' : ''}, which does not enable stretched NetworkPolicy`,
            fix(cluster.value.id),
          );
        }
      }
    },
  ),
  rule(
    'policy-rule-name-duplicate',
    'Rule names are unique within a policy.',
    'antrea-controller refuses a ClusterNetworkPolicy whose rules share a name.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        const named = rulesOf(p);
        for (const { first, dup } of duplicates(named, (r) => str(r.name) || undefined)) {
          report(
            `${dup.path}.name`,
            `rule name ${quote(dup.value.name)} is already used by ${first.path}`,
            'give each rule of the policy its own name',
          );
        }
      }
    },
  ),
];
