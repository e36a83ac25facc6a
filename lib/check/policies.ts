/**
 * Tiers, baseline policies and stretched policies.
 */
import type { ClusterProps, EgressRuleProps, IngressRuleProps, StretchedPolicyProps } from '../model';
import { BUILTIN_TIERS, DNS1123_LABEL, IMPORT_PREFIX, memberImportName } from '../names';
import {
  type At,
  closest,
  clusterById,
  clusterName,
  duplicates,
  egressOf,
  ingressOf,
  isObject,
  memberClusters,
  memberIds,
  nearest,
  nonEmpty,
  objects,
  orClosest,
  peersOf,
  policiesOf,
  quote,
  quoteList,
  roleReferencesResolve,
  rulesOf,
  str,
  strings,
} from './util';
import { type Rule, rule, warning, LABEL_WORDS, checkName, stretchedEnabled, serviceKey } from './rule';

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

// ---- kube-system and DNS ----

/** The label every Namespace carries with its own name (Kubernetes 1.22 and later). */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** How to exclude kube-system from an appliedTo entry, in the model's words. */
const WITHOUT_KUBE_SYSTEM = `{ namespaceSelector: { matchExpressions: [{ key: ${quote(NAMESPACE_NAME_LABEL)}, operator: "NotIn", values: ["kube-system"] }] } }`;

/** A label selector that selects everything: no labels, no expressions. */
function selectsAll(x: unknown): boolean {
  if (!isObject(x)) return false;
  const { matchLabels, matchExpressions } = x;
  return (
    (matchLabels === undefined || (isObject(matchLabels) && Object.keys(matchLabels).length === 0)) &&
    (matchExpressions === undefined || (Array.isArray(matchExpressions) && matchExpressions.length === 0))
  );
}

/**
 * Whether a label selector selects an object with exactly `labels`, as the API server matches
 * (every matchLabels pair and every expression must hold; NotIn and DoesNotExist hold for a label
 * the object lacks). A selector that is not an object, or an expression the schema refuses, selects
 * nothing: its own rule reports it.
 */
function selectsLabels(x: unknown, labels: Readonly<Record<string, string>>): boolean {
  if (!isObject(x)) return false;
  const { matchLabels, matchExpressions } = x;
  if (matchLabels !== undefined) {
    if (!isObject(matchLabels)) return false;
    if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) return false;
  }
  if (matchExpressions === undefined) return true;
  if (!Array.isArray(matchExpressions)) return false;
  return matchExpressions.every((e: unknown) => {
    if (!isObject(e) || typeof e.key !== 'string') return false;
    const value = Object.hasOwn(labels, e.key) ? labels[e.key] : undefined;
    const values = Array.isArray(e.values) ? (e.values as unknown[]) : [];
    switch (e.operator) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

/**
 * kube-system's labels, all a policy can count on: the name label every Namespace carries (Kubernetes
 * 1.22 and later). A selector on any other label is taken not to select it.
 */
const KUBE_SYSTEM_LABELS = { [NAMESPACE_NAME_LABEL]: 'kube-system' };

/**
 * The labels of a Namespace no selector of the model can name: the name label, with a name no
 * model writes. A selector that selects it selects every Namespace but those it names.
 */
const ANY_NAMESPACE_LABELS = { [NAMESPACE_NAME_LABEL]: '\u0000any namespace' };

/**
 * Which Namespaces a Pod selection (an appliedTo entry, or a peer) takes in with every Pod of each:
 * `kubeSystem` when it selects kube-system, `all` when it selects every Namespace but those it names.
 * A namespaceSelector (with no podSelector, or an empty one) selects by the labels above; an empty
 * podSelector alone selects Pods in all Namespaces (a ClusterNetworkPolicy's meaning); a non-empty
 * podSelector, or any other kind of peer, takes in none whole.
 */
function podsTakenIn(x: Record<string, unknown>): { kubeSystem: boolean; all: boolean } {
  const none = { kubeSystem: false, all: false };
  const alone = ['group', 'serviceAccount', 'nodeSelector', 'ipBlock', 'fqdn', 'namespaces'];
  if (alone.some((k) => x[k] !== undefined)) return none;
  if (x.namespaceSelector !== undefined) {
    if (x.podSelector !== undefined && !selectsAll(x.podSelector)) return none;
    return {
      kubeSystem: selectsLabels(x.namespaceSelector, KUBE_SYSTEM_LABELS),
      all: selectsLabels(x.namespaceSelector, ANY_NAMESPACE_LABELS),
    };
  }
  const every = x.podSelector !== undefined && selectsAll(x.podSelector);
  return { kubeSystem: every, all: every };
}

/** Whether a peer takes in every Pod of every Namespace (but those it names). */
function everyPod(x: Record<string, unknown>): boolean {
  return podsTakenIn(x).all;
}

/** CoreDNS's container ports are named so (kubeadm, kube-dns, most distributions). */
const DNS_PORT_NAMES = ['dns', 'dns-tcp'];

/** Whether a port entry matches DNS (53 over UDP or TCP); `any` also counts a port left out. */
function matchesDns(x: unknown, any: boolean): boolean {
  if (!isObject(x) || (x.protocol !== undefined && x.protocol !== 'UDP' && x.protocol !== 'TCP'))
    return false;
  const { port, endPort } = x;
  if (port === undefined) return any;
  if (typeof port === 'string') return DNS_PORT_NAMES.includes(port);
  if (typeof port !== 'number') return false;
  return port === 53 || (typeof endPort === 'number' && port <= 53 && 53 <= endPort);
}

/** Whether a rule's ports let DNS through it: no ports and no other protocols, or a port that matches 53. */
function rulePortsTakeDns(r: IngressRuleProps | EgressRuleProps): boolean {
  const ports: unknown = r.ports;
  if (Array.isArray(ports) && ports.length > 0) return ports.some((x) => matchesDns(x, true));
  return !nonEmpty(r.protocols);
}

/**
 * Whether a Drop or Reject rule catches DNS traffic of kube-system's Pods: ingress from every Pod
 * (no `from`, or a peer selecting every Pod), egress to every Pod (no `to` nor `toServices`, or such
 * a peer), on a port that takes DNS.
 */
function dropsDns(direction: 'ingress' | 'egress', r: IngressRuleProps | EgressRuleProps): boolean {
  if (r.action !== 'Drop' && r.action !== 'Reject') return false;
  if (!rulePortsTakeDns(r)) return false;
  const peers: unknown = direction === 'ingress' ? (r as IngressRuleProps).from : (r as EgressRuleProps).to;
  if (direction === 'egress' && nonEmpty((r as EgressRuleProps).toServices)) return false;
  if (!nonEmpty(peers)) return true;
  return (peers as unknown[]).some((p) => isObject(p) && everyPod(p));
}

/** Whether some policy of the model explicitly allows DNS in `direction` (port 53, or CoreDNS's port names). */
function allowsDnsSomewhere(m: Parameters<Rule['check']>[0], direction: 'ingress' | 'egress'): boolean {
  return policiesOf(m).some((p) =>
    rulesOf(p).some(
      (r) =>
        r.direction === direction &&
        r.value.action === 'Allow' &&
        Array.isArray(r.value.ports) &&
        r.value.ports.some((x) => matchesDns(x, false)),
    ),
  );
}

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
      const declared = objects(m.tiers, 'tiers').flatMap((t) => str(t.value.name) ?? []);
      const known = [...BUILTIN_TIERS, ...declared];
      const listed =
        `the built-in Tiers are ${quoteList(BUILTIN_TIERS)}` +
        (declared.length === 0
          ? ', and tiers declares none'
          : declared.length <= 10
            ? `, and tiers declares ${quoteList(declared)}`
            : `, and tiers declares ${declared.length}, among them ${quoteList(declared.slice(0, 10))}`);
      for (const p of policiesOf(m)) {
        const tier = str(p.value.tier);
        if (!tier || known.includes(tier)) continue;
        const near = closest(tier, known);
        const far = near === undefined ? nearest(tier, known) : undefined;
        report(
          `${p.path}.tier`,
          `Tier ${quote(tier)} is neither built in nor declared in tiers (${listed})`,
          near !== undefined
            ? `did you mean ${quote(near)}? If not, declare Tier ${quote(tier)} in tiers`
            : `use one of those Tiers (the nearest name is ${quote(far)}), or declare Tier ${quote(tier)} in tiers with its priority`,
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
      const resolved = roleReferencesResolve(m);
      for (const p of policiesOf(m)) {
        if (p.kind !== 'stretched') continue;
        for (const x of strings((p.value as StretchedPolicyProps).members, `${p.path}.members`)) {
          if (members.has(x.value)) continue;
          // A declared cluster that a misspelt member meant: member-unknown reports that.
          if (byId.has(x.value) && !resolved) continue;
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
  warning(
    'policy-drop-catches-kube-system',
    'A policy applied to every Namespace does not drop or reject DNS traffic from or to every other Namespace, unless the model allows DNS explicitly.',
    'An appliedTo entry that selects kube-system takes in CoreDNS: an empty namespaceSelector (or an empty ' +
      "podSelector alone), one on kube-system's only dependable label (kubernetes.io/metadata.name: matchLabels, In), " +
      'one that every Namespace meets (that label Exists), or NotIn and DoesNotExist that leave kube-system in. A ' +
      "Drop or Reject ingress rule from every Namespace then refuses every Pod's DNS queries at CoreDNS, and one on " +
      'egress to every Namespace stops them on the way (or cuts CoreDNS off), so name resolution fails in the whole ' +
      'cluster. Legal, and meant for the applications alone almost every time; silent when a policy of the model ' +
      'allows DNS (port 53) in that direction.',
    (m, report) => {
      const allowed = { ingress: allowsDnsSomewhere(m, 'ingress'), egress: allowsDnsSomewhere(m, 'egress') };
      for (const p of policiesOf(m)) {
        const policyLevel = objects(p.value.appliedTo, `${p.path}.appliedTo`);
        // Per appliedTo entry that selects everything and direction: the rules it puts on kube-system.
        const found = new Map<
          string,
          {
            path: string;
            direction: 'ingress' | 'egress';
            /** The entry takes in every Namespace, not kube-system alone (or with a few). */
            everyNamespace: boolean;
            rules: At<IngressRuleProps | EgressRuleProps>[];
          }
        >();
        for (const r of rulesOf(p)) {
          if (allowed[r.direction] || !dropsDns(r.direction, r.value)) continue;
          const appliedTo =
            policyLevel.length > 0 ? policyLevel : objects(r.value.appliedTo, `${r.path}.appliedTo`);
          const taken = appliedTo
            .map((a) => ({ a, in: podsTakenIn(a.value as unknown as Record<string, unknown>) }))
            .find((t) => t.in.kubeSystem);
          if (!taken) continue;
          const key = `${taken.a.path}\n${r.direction}`;
          const entry = found.get(key) ?? {
            path: taken.a.path,
            direction: r.direction,
            everyNamespace: taken.in.all,
            rules: [],
          };
          entry.rules.push(r);
          found.set(key, entry);
        }
        for (const { path, direction, everyNamespace, rules } of found.values()) {
          const first = rules[0]!;
          const verb = first.value.action === 'Reject' ? 'rejects' : 'drops';
          const more =
            rules.length > 1 ? ` (and ${rules.length - 1} more such rule${rules.length > 2 ? 's' : ''})` : '';
          const effect =
            direction === 'ingress'
              ? `${verb} traffic from every Namespace: CoreDNS in kube-system then refuses every Pod's DNS queries`
              : everyNamespace
                ? `${verb} traffic to every Namespace: no Pod reaches CoreDNS in kube-system any more`
                : `${verb} kube-system's traffic to every Namespace: CoreDNS is cut off with the rest of kube-system`;
          const scope = everyNamespace
            ? 'applies to every Namespace, kube-system included'
            : `applies to kube-system (${path} selects it by its ${quote(NAMESPACE_NAME_LABEL)} label)`;
          report(
            path,
            `${p.kind} policy ${quote(p.value.name)} ${scope}, ` +
              `and its ${direction} rule ${quote(first.value.name ?? first.index)} (${first.path})${more} ${effect}, ` +
              'which cuts DNS in the whole cluster',
            !everyNamespace
              ? `allow DNS before it: add the rule { action: "Allow", ports: [{ protocol: "UDP", port: 53 }, { protocol: "TCP", port: 53 }] } ahead of it, or leave kube-system out of ${path}`
              : direction === 'ingress'
                ? `exclude kube-system: write ${path} as ${WITHOUT_KUBE_SYSTEM}`
                : `allow DNS before it: add the rule { action: "Allow", to: [{ namespaceSelector: { matchLabels: { ${quote(NAMESPACE_NAME_LABEL)}: "kube-system" } } }], ports: [{ protocol: "UDP", port: 53 }, { protocol: "TCP", port: 53 }] } ahead of it, and exclude kube-system: write ${path} as ${WITHOUT_KUBE_SYSTEM}`,
          );
        }
      }
    },
  ),
];
