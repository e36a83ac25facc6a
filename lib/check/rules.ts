/**
 * The model rules: relations between clusters, members, Services, Tiers and policies that the JSON
 * Schema cannot express. Each rule is a row of data: a stable ID, what it checks, which runtime
 * behaviour of Antrea it prevents (antrea-mc.md), and a check that returns diagnostics with paths
 * into the model, using the indexes of the input lists.
 *
 * Rules also run on a model that failed the schema check, so that every problem is reported at
 * once: a list that is missing or malformed counts as empty, and a value of the wrong type is left
 * to the schema check (the rules only judge strings that are strings, numbers that are numbers).
 */
import type { Diagnostic } from '../diagnostics';
import { cmp } from '../diagnostics';
import { GO_DURATION, durationNanos } from '../duration';
import type {
  ClusterProps,
  ClusterSetProps,
  ExternalSecretsProps,
  ReconcilerProps,
  StretchedPolicyProps,
} from '../model';
import {
  BUILTIN_TIERS,
  CLUSTER_PLACEHOLDER,
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_TOKEN_SECRET,
  DEFAULT_MEMBER_NAMESPACE,
  DEFAULT_RECONCILER_RESOURCES,
  DNS1035_LABEL,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  deliveryObjectName,
  isDashPrefixPair,
  serviceImportName,
} from '../names';
import { parseIpv4, parseIpv4Cidr, rangesOverlap, type Ipv4Range } from './ipv4';
import {
  type At,
  clusterById,
  clusterName,
  clustersOf,
  duplicates,
  egressOf,
  ingressOf,
  isObject,
  memberClusters,
  memberIds,
  networkName,
  networkOf,
  nonEmpty,
  objects,
  orClosest,
  pairs,
  peersOf,
  policiesOf,
  quote,
  quoteList,
  str,
  strings,
} from './util';

export interface Rule {
  /** Stable kebab-case ID, quoted in every diagnostic the rule produces. */
  readonly id: string;
  /** What the rule checks. */
  readonly summary: string;
  /** Which runtime behaviour of Antrea the rule prevents. */
  readonly prevents: string;
  check(model: ClusterSetProps): Diagnostic[];
}

type Report = (path: string, message: string, fix: string) => void;

function rule(
  id: string,
  summary: string,
  prevents: string,
  body: (m: ClusterSetProps, report: Report) => void,
): Rule {
  return {
    id,
    summary,
    prevents,
    check(m) {
      const out: Diagnostic[] = [];
      body(m, (path, message, fix) => out.push({ rule: id, path, message, fix }));
      return out;
    },
  };
}

// ---- shared judgements ----

const LABEL_WORDS = "lowercase letters, digits and '-', starting and ending with a letter or digit";

/** What is wrong with a name that must match `format` and be at most `max` long, if anything. */
function nameProblem(name: string, max: number, format: RegExp, words: string): string | undefined {
  if (name.length > max) return `is ${name.length} characters long, more than ${max}`;
  if (!format.test(name)) return `is not made of ${words}`;
  return undefined;
}

/** A lowercase, dash-separated rewrite of an invalid name, cut to `max`. */
function suggestName(name: string, max: number): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, max)
      .replace(/^-+|-+$/g, '') || 'a-valid-name'
  );
}

function checkName(
  report: Report,
  path: string,
  value: unknown,
  what: string,
  max: number,
  format: RegExp,
  words: string,
): void {
  const name = str(value);
  if (name === undefined) return;
  const problem = nameProblem(name, max, format, words);
  if (problem) {
    report(
      path,
      `${what} ${quote(name)} ${problem} (allowed: ${words}, at most ${max})`,
      `rename it, e.g. to ${quote(suggestName(name, max))}`,
    );
  }
}

function stretchedEnabled(c: ClusterProps): boolean {
  return c.enableStretchedNetworkPolicy === true;
}

/** `"prod/web"` for a Service or Service reference with string namespace and name. */
function serviceKey(s: { namespace?: unknown; name?: unknown }): string | undefined {
  const ns = str(s.namespace);
  const name = str(s.name);
  return ns === undefined || name === undefined ? undefined : `${ns}/${name}`;
}

/** A parsed CIDR of a member, with where it is written. */
interface MemberCidr {
  readonly cluster: At<ClusterProps>;
  readonly cidr: At<string>;
  readonly range: Ipv4Range;
}

/**
 * Pairs of overlapping CIDRs (the Service CIDR, or the Pod CIDRs) of two different members, on
 * the same network or on different ones; the first of a pair is listed first in the model.
 */
function overlappingCidrs(
  m: ClusterSetProps,
  field: 'serviceCIDR' | 'podCIDRs',
  sameNetwork: boolean,
): [MemberCidr, MemberCidr][] {
  const cidrs = memberClusters(m).flatMap((cluster) => {
    const { serviceCIDR, podCIDRs } = cluster.value;
    const texts =
      field === 'podCIDRs'
        ? strings(podCIDRs, `${cluster.path}.podCIDRs`)
        : typeof serviceCIDR === 'string'
          ? [{ value: serviceCIDR, path: `${cluster.path}.serviceCIDR`, index: 0 }]
          : [];
    return texts.flatMap((cidr) => {
      const range = parseIpv4Cidr(cidr.value);
      return range ? [{ cluster, cidr, range }] : [];
    });
  });
  return pairs(cidrs).filter(
    ([a, b]) =>
      a.cluster !== b.cluster &&
      (networkOf(a.cluster.value) === networkOf(b.cluster.value)) === sameNetwork &&
      rangesOverlap(a.range, b.range),
  );
}

/** `"10.96.0.0/16" of cluster "east" (clusters[1]) on network "dc1"`. */
function describeCidr(x: MemberCidr): string {
  return `${quote(x.cidr.value)} of ${clusterName(x.cluster)} on ${networkName(networkOf(x.cluster.value))}`;
}

/** One Service flowing between two members on different networks. */
interface Crossing {
  /** The member concerned. */
  readonly cluster: At<ClusterProps>;
  /** The member on the other network. */
  readonly partner: At<ClusterProps>;
  readonly service: string;
  /** Whether `cluster` exports the Service (to `partner`) or imports it (from `partner`). */
  readonly exports: boolean;
}

/** The cross-network exchanges of one member: the first one found, and how many there are. */
interface Exchanges {
  readonly first: Crossing;
  readonly count: number;
}

/**
 * For each member that exchanges Services with a member on another network, its exchanges, in
 * cluster order. An exporter sends its endpoints to every member (ResourceImports reach all
 * members, antrea-mc.md §0.5), so each exporter crosses to every member on another network.
 */
function crossNetworkExchanges(m: ClusterSetProps): Exchanges[] {
  const members = memberClusters(m);
  const byId = new Map(members.map((c) => [c.value.id, c]));
  const found = new Map<number, { first: Crossing; count: number }>();
  const note = (cluster: At<ClusterProps>, partner: At<ClusterProps>, service: string, exports: boolean) => {
    const seen = found.get(cluster.index);
    if (seen) seen.count++;
    else found.set(cluster.index, { first: { cluster, partner, service, exports }, count: 1 });
  };
  for (const s of objects(m.services, 'services')) {
    const service = serviceKey(s.value) ?? s.path;
    for (const id of new Set(strings(s.value.exportedFrom, '').map((e) => e.value))) {
      const exporter = byId.get(id);
      if (!exporter) continue;
      const network = networkOf(exporter.value);
      for (const other of members) {
        if (networkOf(other.value) === network) continue;
        note(exporter, other, service, true);
        note(other, exporter, service, false);
      }
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, x]) => x);
}

/** `cluster "west" (clusters[3]) on network "dc2"` and `it imports Service "prod/web" from cluster "east" (…) on network "dc1"`. */
function describeExchanges({ first: x, count }: Exchanges): { who: string; what: string } {
  const on = (c: At<ClusterProps>) => `${clusterName(c)} on ${networkName(networkOf(c.value))}`;
  const verb = x.exports
    ? `exports Service ${quote(x.service)} to`
    : `imports Service ${quote(x.service)} from`;
  const more = count > 1 ? ` (and ${count - 1} more cross-network exchange${count > 2 ? 's' : ''})` : '';
  return { who: on(x.cluster), what: `it ${verb} ${on(x.partner)}${more}` };
}

// ---- the rules ----

const identityRules: readonly Rule[] = [
  rule(
    'cluster-id-format',
    "Cluster IDs are lowercase letters, digits and '-', alphanumeric at both ends, at most 63 characters.",
    'The ID becomes the sourceClusterID label value and the name member-announce-from-<id>; the API server ' +
      "refuses objects with an invalid label value or name, so the member's exports and announce never land.",
    (m, report) => {
      for (const c of clustersOf(m)) {
        checkName(report, `${c.path}.id`, c.value.id, 'cluster ID', 63, DNS1123_LABEL, LABEL_WORDS);
      }
    },
  ),
  rule(
    'clusterset-id-format',
    'The ClusterSet ID is a DNS-1123 subdomain (it is metadata.name of every ClusterSet object).',
    'The API server refuses a ClusterSet whose name is not a DNS-1123 subdomain, so no cluster joins the set.',
    (m, report) =>
      checkName(
        report,
        'clusterSetId',
        m.clusterSetId,
        'ClusterSet ID',
        253,
        DNS1123_SUBDOMAIN,
        "lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit",
      ),
  ),
  rule(
    'namespace-format',
    'The leader and member controller namespaces are DNS-1123 labels.',
    'The API server refuses a Namespace (and everything placed in it) whose name is not a DNS-1123 label.',
    (m, report) => {
      for (const field of ['leaderNamespace', 'memberNamespace'] as const) {
        checkName(report, field, m[field], 'namespace', 63, DNS1123_LABEL, LABEL_WORDS);
      }
    },
  ),
  rule(
    'dual-role-namespace-clash',
    'A leader that is also a member keeps its leader and member namespaces apart.',
    "Antrea allows one ClusterSet per namespace: the dual-role cluster's member ClusterSet would be refused " +
      '("multiple ClusterSets in a Namespace are not allowed") or replace the leader one.',
    (m, report) => {
      const leaderNs = str(m.leaderNamespace) ?? DEFAULT_LEADER_NAMESPACE;
      const memberNs = str(m.memberNamespace) ?? DEFAULT_MEMBER_NAMESPACE;
      const leader = str(m.leader);
      if (leader === undefined || leaderNs !== memberNs || !memberIds(m).has(leader)) return;
      report(
        'memberNamespace',
        `the leader ${quote(leader)} is also a member, and its member namespace ${quote(memberNs)} is the leader namespace`,
        `use another memberNamespace (Antrea's default is "${DEFAULT_MEMBER_NAMESPACE}")`,
      );
    },
  ),
  rule(
    'cluster-id-duplicate',
    'Every cluster has its own ID.',
    'Two clusters with one ID write the same ResourceExports and announce: each overwrites the other, and the ' +
      "leader's webhooks tie both identities to one cluster.",
    (m, report) => {
      for (const { first, dup } of duplicates(clustersOf(m), (c) => str(c.id))) {
        report(
          `${dup.path}.id`,
          `cluster ID ${quote(dup.value.id)} is already the ID of ${first.path}`,
          'give each cluster a unique ID',
        );
      }
    },
  ),
  rule(
    'member-id-dash-prefix',
    "No member ID is another member ID followed by '-' (`east` / `east-1`).",
    "Antrea's leader webhook refuses the MemberClusterAnnounce of a member whose ID forms a dash-prefix pair with " +
      "another member's (HasClusterIDPrefixPair), so that member never joins; its ResourceExport names would be ambiguous.",
    (m, report) => {
      const unique = [...new Map(strings(m.members, 'members').map((x) => [x.value, x])).values()];
      for (const [a, b] of pairs(unique)) {
        if (!isDashPrefixPair(a.value, b.value)) continue;
        report(
          b.path,
          `member IDs ${quote(a.value)} (${a.path}) and ${quote(b.value)} (${b.path}) form a dash-prefix pair, which Antrea refuses`,
          `rename one of the two clusters so that neither ID is the other followed by '-'`,
        );
      }
    },
  ),
  rule(
    'leader-unknown',
    'The leader is one of the declared clusters.',
    'Without the leader cluster there is no API server for members to join: every member ClusterSet points nowhere.',
    (m, report) => {
      const leader = str(m.leader);
      if (leader === undefined || clusterById(m).has(leader)) return;
      report(
        'leader',
        `leader ${quote(leader)} is not the ID of any cluster in clusters`,
        orClosest(
          leader,
          clusterById(m).keys(),
          'set leader to the ID of a declared cluster, or declare that cluster',
        ),
      );
    },
  ),
  rule(
    'member-unknown',
    'Every member is one of the declared clusters.',
    'A member without a cluster has no API server, network or CIDRs: its bundle, identity and gateway cannot be compiled.',
    (m, report) => {
      const byId = clusterById(m);
      for (const x of strings(m.members, 'members')) {
        if (byId.has(x.value)) continue;
        report(
          x.path,
          `member ${quote(x.value)} is not the ID of any cluster in clusters`,
          orClosest(x.value, byId.keys(), 'declare the cluster in clusters, or remove it from members'),
        );
      }
    },
  ),
  rule(
    'members-empty',
    'The ClusterSet has at least one member.',
    'A ClusterSet without members exchanges nothing: no member controller ever imports a Service or policy.',
    (m, report) => {
      if (Array.isArray(m.members) && m.members.length === 0) {
        report('members', 'the ClusterSet has no members', 'list at least one cluster ID in members');
      }
    },
  ),
  rule(
    'member-duplicate',
    'Each member is listed once.',
    'A member listed twice would get two identities (ServiceAccounts) tied to one cluster ID in the leader.',
    (m, report) => {
      for (const { first, dup } of duplicates(strings(m.members, 'members'), (x) => x)) {
        report(
          dup.path,
          `member ${quote(dup.value)} is already listed at ${first.path}`,
          'list each member once',
        );
      }
    },
  ),
];

const serviceRules: readonly Rule[] = [
  rule(
    'service-name-format',
    'Exported Service names are DNS-1035 labels of at most 53 characters.',
    'Members import the Service as antrea-mc-<name>, which must be a Service name of at most 63 characters; a ' +
      'longer or malformed name is refused by the API server in every importing member.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        checkName(
          report,
          `${s.path}.name`,
          s.value.name,
          'Service name',
          53,
          DNS1035_LABEL,
          "lowercase letters, digits and '-', starting with a letter and ending with a letter or digit",
        );
      }
    },
  ),
  rule(
    'service-namespace-format',
    "Exported Services' namespaces are DNS-1123 labels.",
    "Antrea's leader webhook refuses Service ResourceExports whose namespace is not a DNS-1123 label.",
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        checkName(
          report,
          `${s.path}.namespace`,
          s.value.namespace,
          'namespace',
          63,
          DNS1123_LABEL,
          LABEL_WORDS,
        );
      }
    },
  ),
  rule(
    'service-duplicate',
    'Each (namespace, name) Service is declared once.',
    'Two declarations compile to one ResourceImport with two port lists; the second overwrites the first.',
    (m, report) => {
      for (const { first, dup } of duplicates(objects(m.services, 'services'), serviceKey)) {
        report(
          dup.path,
          `Service ${quote(serviceKey(dup.value))} is already declared at ${first.path}`,
          'declare each Service once, listing every exporting member in its exportedFrom',
        );
      }
    },
  ),
  rule(
    'service-import-name-collision',
    'No two Services give the same `<namespace>-<name>-service` ResourceImport name.',
    "Antrea names imports by plain concatenation: the first Service's export wins the name and the other one gets " +
      'a permanent ConvergeFailure, so it is never imported anywhere.',
    (m, report) => {
      const named = objects(m.services, 'services').filter((s) => serviceKey(s.value) !== undefined);
      const importName = (s: { namespace: string; name: string }) => serviceImportName(s.namespace, s.name);
      for (const { first, dup } of duplicates(named, importName)) {
        if (serviceKey(first.value) === serviceKey(dup.value)) continue;
        report(
          dup.path,
          `Service ${quote(serviceKey(dup.value))} and Service ${quote(serviceKey(first.value))} (${first.path}) ` +
            `both become ResourceImport ${quote(importName(dup.value))}`,
          'rename one of the two Services or move it to another namespace',
        );
      }
    },
  ),
  rule(
    'service-export-not-member',
    'Services are exported only from members.',
    'A cluster that is not a member runs no member controller and has no identity in the leader: its ServiceExport ' +
      'is never turned into a ResourceExport, so the Service silently has no endpoints from it.',
    (m, report) => {
      const members = memberIds(m);
      const byId = clusterById(m);
      for (const s of objects(m.services, 'services')) {
        for (const x of strings(s.value.exportedFrom, `${s.path}.exportedFrom`)) {
          if (members.has(x.value)) continue;
          const known = byId.has(x.value);
          report(
            x.path,
            known
              ? `cluster ${quote(x.value)} exports ${quote(serviceKey(s.value))} but is not a member`
              : `${quote(x.value)} is not the ID of any cluster`,
            known
              ? `add ${quote(x.value)} to members, or remove it from exportedFrom`
              : orClosest(x.value, members, 'name a member in exportedFrom'),
          );
        }
      }
    },
  ),
  rule(
    'service-exported-from-empty',
    'Every exported Service has at least one exporting member.',
    'A ServiceImport with no exporter gives importing members an antrea-mc-<name> Service without endpoints: ' +
      'connections to it fail.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        if (Array.isArray(s.value.exportedFrom) && s.value.exportedFrom.length === 0) {
          report(
            `${s.path}.exportedFrom`,
            `Service ${quote(serviceKey(s.value))} is exported from no member`,
            'list the members that export it, or remove the Service',
          );
        }
      }
    },
  ),
  rule(
    'service-port-name-duplicate',
    'Port names are unique within a Service.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when two ports share a name.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        for (const { first, dup } of duplicates(ports, (p) => str(p.name) || undefined)) {
          report(
            `${dup.path}.name`,
            `port name ${quote(dup.value.name)} is already used by ${first.path}`,
            'give each port of the Service its own name',
          );
        }
      }
    },
  ),
  rule(
    'service-port-duplicate',
    'A (port, protocol) pair appears once within a Service.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when two ports share a number and protocol.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        const key = (p: { port?: unknown; protocol?: unknown }) =>
          typeof p.port === 'number' ? `${p.port}/${str(p.protocol) ?? 'TCP'}` : undefined;
        for (const { first, dup } of duplicates(ports, key)) {
          report(
            `${dup.path}.port`,
            `port ${quote(key(dup.value))} is already declared at ${first.path}`,
            'remove the duplicate port or change its number or protocol',
          );
        }
      }
    },
  ),
  rule(
    'service-port-name-missing',
    'Every port is named when a Service has more than one port.',
    'Kubernetes refuses the imported antrea-mc-<name> Service when one of several ports has no name.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        const ports = objects(s.value.ports, `${s.path}.ports`);
        if (ports.length < 2) continue;
        for (const p of ports) {
          if (str(p.value.name)) continue;
          report(
            `${p.path}.name`,
            `port ${quote(p.value.port)} has no name, but Service ${quote(serviceKey(s.value))} has ${ports.length} ports`,
            'name every port of the Service, as the Service in the exporting clusters does',
          );
        }
      }
    },
  ),
  rule(
    'service-port-range',
    'Port numbers are integers from 1 to 65535.',
    'Kubernetes refuses the imported antrea-mc-<name> Service, and the ServiceImport never gets an IP.',
    (m, report) => {
      for (const s of objects(m.services, 'services')) {
        for (const p of objects(s.value.ports, `${s.path}.ports`)) {
          const port = p.value.port;
          if (typeof port !== 'number' || (Number.isInteger(port) && port >= 1 && port <= 65535)) continue;
          report(
            `${p.path}.port`,
            `port ${quote(port)} is not an integer from 1 to 65535`,
            'use a valid port number',
          );
        }
      }
    },
  ),
];

const tierRules: readonly Rule[] = [
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

const policyRules: readonly Rule[] = [
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
    'Egress toServices name Services declared in services.',
    'antrea-controller rewrites toServices to antrea-mc-<name>, which exists only for imported Services: a ' +
      'reference to anything else matches nothing, and the rule silently allows or drops nothing.',
    (m, report) => {
      const declared = new Set(objects(m.services, 'services').flatMap((s) => serviceKey(s.value) ?? []));
      for (const p of policiesOf(m)) {
        for (const r of egressOf(p)) {
          for (const ref of objects(r.value.toServices, `${r.path}.toServices`)) {
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
    'An egress rule with toServices has neither `to` nor `ports`.',
    "antrea-controller's validation refuses a rule combining toServices with to, ports or protocols, so the whole " +
      'policy is refused.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of egressOf(p)) {
          if (!nonEmpty(r.value.toServices)) continue;
          for (const field of ['to', 'ports'] as const) {
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
    'Baseline policies use ClusterSet scope or toServices only when every member enables stretched NetworkPolicy.',
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
          if (nonEmpty(r.value.toServices))
            report(`${r.path}.toServices`, `uses toServices, but ${because}`, fix);
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
        const named = [...ingressOf(p), ...egressOf(p)];
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

const networkRules: readonly Rule[] = [
  rule(
    'network-gateway-missing',
    'A member that exchanges Services with a member on another network has gateway nodes.',
    'Across networks, traffic to imported Services goes through Multi-cluster Gateways; without a gateway the ' +
      'member exports no ClusterInfo and gets no tunnel, so cross-network connections time out.',
    (m, report) => {
      for (const xs of crossNetworkExchanges(m)) {
        const c = xs.first.cluster;
        const gw = c.value.gateway;
        if (isObject(gw) && nonEmpty(gw.nodes)) continue;
        const { who, what } = describeExchanges(xs);
        report(
          isObject(gw) ? `${c.path}.gateway.nodes` : `${c.path}.gateway`,
          `${who} has no gateway nodes, but ${what}`,
          `declare gateway.nodes for cluster ${quote(c.value.id)}, or put the clusters on the same network`,
        );
      }
    },
  ),
  rule(
    'network-podip-cross-network',
    'A member that exchanges Services with a member on another network uses ClusterIP endpoints.',
    'In PodIP mode the exported endpoints are Pod IPs, which are not routable from another network: connections ' +
      'to the imported Service fail.',
    (m, report) => {
      for (const xs of crossNetworkExchanges(m)) {
        const c = xs.first.cluster;
        if (c.value.endpointIPType !== 'PodIP') continue;
        const { who, what } = describeExchanges(xs);
        report(
          `${c.path}.endpointIPType`,
          `${who} uses endpointIPType "PodIP", but ${what}: Pod IPs are not routable across networks`,
          `set endpointIPType: "ClusterIP" on cluster ${quote(c.value.id)}, or put the clusters on the same network`,
        );
      }
    },
  ),
  rule(
    'network-service-cidr-overlap',
    'Members on different networks have disjoint Service CIDRs.',
    "Antrea's gateways route cross-network traffic by the remote cluster's Service CIDR: an overlapping range " +
      'sends traffic for remote ClusterIPs to the local cluster, or the other way round.',
    (m, report) => {
      for (const [a, b] of overlappingCidrs(m, 'serviceCIDR', false)) {
        report(
          b.cidr.path,
          `Service CIDR ${describeCidr(b)} overlaps Service CIDR ${describeCidr(a)}`,
          'give clusters on different networks disjoint Service CIDRs',
        );
      }
    },
  ),
  rule(
    'network-pod-cidr-overlap',
    'Members on the same network have disjoint Pod CIDRs.',
    'On a flat network Pod IPs are used as endpoints and routed directly: an IP in two clusters is ambiguous, and ' +
      'traffic reaches the wrong Pod.',
    (m, report) => {
      for (const [a, b] of overlappingCidrs(m, 'podCIDRs', true)) {
        report(
          b.cidr.path,
          `Pod CIDR ${describeCidr(b)} overlaps Pod CIDR ${describeCidr(a)}, the same network`,
          'give clusters on the same network disjoint Pod CIDRs',
        );
      }
    },
  ),
  rule(
    'ipv4-format',
    'Service CIDRs, Pod CIDRs and gateway IPs are valid IPv4 (a.b.c.d/n, a.b.c.d).',
    'Antrea Multi-cluster is IPv4-only: the member controller fails to start on an invalid serviceCIDR or podCIDRs, ' +
      'and a Node with an invalid gateway-ip annotation never becomes the Gateway.',
    (m, report) => {
      const bad = (path: string, value: string, what: string, example: string) =>
        report(
          path,
          `${quote(value)} is not ${what}${value.includes(':') ? ' (IPv6 is not supported by Antrea Multi-cluster)' : ''}`,
          `write it as ${what}, e.g. ${quote(example)}`,
        );
      for (const c of clustersOf(m)) {
        const svc = str(c.value.serviceCIDR);
        if (svc !== undefined && !parseIpv4Cidr(svc))
          bad(`${c.path}.serviceCIDR`, svc, 'an IPv4 CIDR', '10.96.0.0/16');
        for (const x of strings(c.value.podCIDRs, `${c.path}.podCIDRs`)) {
          if (!parseIpv4Cidr(x.value)) bad(x.path, x.value, 'an IPv4 CIDR', '10.244.0.0/16');
        }
        const gw = c.value.gateway;
        for (const n of isObject(gw) ? objects(gw.nodes, `${c.path}.gateway.nodes`) : []) {
          const ip = str(n.value.ip);
          if (ip !== undefined && parseIpv4(ip) === undefined)
            bad(`${n.path}.ip`, ip, 'an IPv4 address', '192.0.2.10');
        }
      }
    },
  ),
  rule(
    'podip-pod-cidrs-missing',
    'A cluster using PodIP endpoints declares its Pod CIDRs.',
    'In PodIP mode the gateways route to remote Pod IPs by the podCIDRs the member controller announces; without ' +
      'them cross-cluster Pod traffic has no route.',
    (m, report) => {
      for (const c of clustersOf(m)) {
        if (c.value.endpointIPType !== 'PodIP' || nonEmpty(c.value.podCIDRs)) continue;
        report(
          `${c.path}.podCIDRs`,
          `${clusterName(c)} uses endpointIPType "PodIP" but declares no podCIDRs`,
          'list the Pod CIDRs of the cluster, or use endpointIPType "ClusterIP"',
        );
      }
    },
  ),
];

const clusterRules: readonly Rule[] = [
  rule(
    'api-server-url',
    'API server URLs are https URLs with a host.',
    "The member controller connects to the leader only over TLS with the leader token's CA; Argo CD and Flux need a " +
      'reachable URL to deliver each bundle.',
    (m, report) => {
      for (const c of clustersOf(m)) {
        const url = str(c.value.apiServer);
        if (url === undefined || isHttpsUrl(url)) continue;
        report(
          `${c.path}.apiServer`,
          `API server ${quote(url)} is not an https URL`,
          `write it as https://<host>:<port>, e.g. ${quote('https://east.example.com:6443')}`,
        );
      }
    },
  ),
];

function isHttpsUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' && u.hostname !== '';
  } catch {
    return false;
  }
}

// ---- token Secret references ----

/** `secrets.externalSecrets` when it is an object, with its path. */
function externalSecretsOf(m: ClusterSetProps): At<ExternalSecretsProps> | undefined {
  const secrets: unknown = m.secrets;
  if (!isObject(secrets) || !isObject(secrets.externalSecrets)) return undefined;
  return {
    value: secrets.externalSecrets as unknown as ExternalSecretsProps,
    path: 'secrets.externalSecrets',
    index: 0,
  };
}

/** The keys of `x` (an object or not) among `choices` that are set. */
function chosen(x: unknown, choices: readonly string[]): string[] {
  return isObject(x) ? choices.filter((k) => x[k] !== undefined) : [];
}

/** Data keys of Secrets and ConfigMaps. */
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

const secretRules: readonly Rule[] = [
  rule(
    'secret-reference-names',
    'The token Secret, the SecretStore and every object the store refers to have valid Kubernetes names and keys.',
    'The API server refuses a Secret, SecretStore or ExternalSecret with an invalid name, so the member never gets ' +
      'its token and the member controller never connects to the leader.',
    (m, report) => {
      const secrets: unknown = m.secrets;
      if (isObject(secrets)) {
        checkName(
          report,
          'secrets.memberTokenSecretName',
          secrets.memberTokenSecretName,
          'Secret name',
          253,
          DNS1123_SUBDOMAIN,
          LABEL_WORDS + " and '.'",
        );
      }
      const x = externalSecretsOf(m);
      if (!x) return;
      const names: [string, unknown][] = [[`${x.path}.storeName`, x.value.storeName]];
      const { leaderCA, auth } = x.value as { leaderCA?: unknown; auth?: unknown };
      const keys: [string, unknown][] = [];
      if (isObject(leaderCA) && isObject(leaderCA.configMap)) {
        names.push([`${x.path}.leaderCA.configMap.name`, leaderCA.configMap.name]);
        keys.push([`${x.path}.leaderCA.configMap.key`, leaderCA.configMap.key]);
      }
      if (isObject(auth) && isObject(auth.serviceAccount))
        names.push([`${x.path}.auth.serviceAccount.name`, auth.serviceAccount.name]);
      if (isObject(auth) && isObject(auth.tokenSecret)) {
        names.push([`${x.path}.auth.tokenSecret.name`, auth.tokenSecret.name]);
        keys.push([`${x.path}.auth.tokenSecret.key`, auth.tokenSecret.key]);
      }
      for (const [path, value] of names)
        checkName(report, path, value, 'name', 253, DNS1123_SUBDOMAIN, LABEL_WORDS + " and '.'");
      for (const [path, value] of keys) {
        const key = str(value);
        if (key !== undefined && (key.length > 253 || !DATA_KEY.test(key)))
          report(
            path,
            `key ${quote(key)} is not a valid data key (letters, digits, '-', '_' and '.', at most 253)`,
            'rename the key, e.g. to "ca.crt" or "token"',
          );
      }
    },
  ),
  rule(
    'external-secrets-ca-choice',
    'The leader CA is given exactly one way: a PEM in the model or a ConfigMap in the member.',
    'Without the leader CA, External Secrets cannot verify the leader API server and never writes the token Secret; ' +
      'with both, it is ambiguous which one the store trusts.',
    (m, report) => {
      const x = externalSecretsOf(m);
      if (!x) return;
      const set = chosen(x.value.leaderCA, ['pem', 'configMap']);
      if (set.length !== 1)
        report(
          `${x.path}.leaderCA`,
          set.length === 0
            ? 'the leader CA is not given'
            : 'the leader CA is given both as "pem" and as "configMap"',
          'set exactly one of leaderCA.pem (the PEM of the CA certificate) or leaderCA.configMap (a ConfigMap in each member namespace)',
        );
    },
  ),
  rule(
    'external-secrets-ca-pem',
    'leaderCA.pem holds PEM certificates and nothing else: never a private key.',
    'The PEM is rendered into every member bundle (out/, git): a private key there is a leaked secret, and a PEM that ' +
      'is no certificate makes External Secrets fail TLS to the leader, so the member never gets its token.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const pem = x && isObject(x.value.leaderCA) ? str(x.value.leaderCA.pem) : undefined;
      if (!x || pem === undefined) return;
      // Never quote the value: it may be the very secret we refuse to render.
      if (/PRIVATE KEY/.test(pem))
        report(
          `${x.path}.leaderCA.pem`,
          'leaderCA.pem contains a private key; a private key must never be in the model or in out/',
          'remove the key from the model (and rotate it, since it was in a file), keep only the CA certificate',
        );
      else if (!PEM_CERTIFICATE.test(pem))
        report(
          `${x.path}.leaderCA.pem`,
          'leaderCA.pem holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)',
          "paste the leader CA certificate, e.g. the leader kubeconfig's certificate-authority-data, base64-decoded",
        );
    },
  ),
  rule(
    'external-secrets-auth-choice',
    'The store authenticates to the leader exactly one way: a member ServiceAccount or a bootstrap token Secret.',
    'External Secrets refuses a Kubernetes store with no or several auth methods, and the member never gets its token.',
    (m, report) => {
      const x = externalSecretsOf(m);
      if (!x) return;
      const set = chosen(x.value.auth, ['serviceAccount', 'tokenSecret']);
      if (set.length !== 1)
        report(
          `${x.path}.auth`,
          set.length === 0 ? 'no auth method is given' : 'both "serviceAccount" and "tokenSecret" are given',
          'set exactly one of auth.serviceAccount (the leader trusts the member ServiceAccount issuer) or auth.tokenSecret (a bootstrap Secret)',
        );
    },
  ),
  rule(
    'external-secrets-username-per-member',
    `externalSecrets.leaderUsername contains ${CLUSTER_PLACEHOLDER}, so each member's store is a different leader user.`,
    "The leader grants each store user `get` on its own member's token Secret: one user shared by every member could " +
      "read every member's token and impersonate any member in the leader.",
    (m, report) => {
      const x = externalSecretsOf(m);
      const name = x ? str(x.value.leaderUsername) : undefined;
      if (!x || name === undefined || name.includes(CLUSTER_PLACEHOLDER)) return;
      report(
        `${x.path}.leaderUsername`,
        `leaderUsername ${quote(name)} does not contain ${CLUSTER_PLACEHOLDER}, so every member would be the same leader user`,
        `map each member to its own user in the leader's authenticator and write it with ${CLUSTER_PLACEHOLDER}, e.g. ${quote(`oidc:${CLUSTER_PLACEHOLDER}:system:serviceaccount:kube-system:antrea-mc-token-reader`)}`,
      );
    },
  ),
  rule(
    'external-secrets-token-secret-clash',
    "The store's bootstrap token Secret is not the token Secret the ExternalSecret writes.",
    'External Secrets would overwrite the credential it reads the leader with by the Antrea member token, and stop ' +
      'syncing once that token cannot read the leader Secret.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const auth: unknown = x?.value.auth;
      const name = isObject(auth) && isObject(auth.tokenSecret) ? str(auth.tokenSecret.name) : undefined;
      const secrets: unknown = m.secrets;
      const target =
        (isObject(secrets) ? str(secrets.memberTokenSecretName) : undefined) ?? DEFAULT_MEMBER_TOKEN_SECRET;
      if (!x || name !== target) return;
      report(
        `${x.path}.auth.tokenSecret.name`,
        `the store's token Secret ${quote(name)} is also the Secret the member ClusterSet names, which the ExternalSecret writes`,
        'give the bootstrap token Secret another name, e.g. "antrea-mc-leader-reader"',
      );
    },
  ),
  rule(
    'external-secrets-refresh-interval',
    'externalSecrets.refreshInterval is a Go duration greater than zero.',
    'External Secrets refuses an invalid interval, and "0" syncs once: a token the leader re-issues would never reach ' +
      'the member, which then loses the leader.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const interval = x ? str(x.value.refreshInterval) : undefined;
      if (!x || interval === undefined) return;
      if (!GO_DURATION.test(interval) || !/[1-9]/.test(interval))
        report(
          `${x.path}.refreshInterval`,
          `refreshInterval ${quote(interval)} is not a Go duration greater than zero`,
          'write it like "1h", "30m" or "1h30m"',
        );
    },
  ),
];

// ---- delivery (Argo CD and Flux) ----

/** `delivery`, `delivery.argocd` and `delivery.flux` when they are objects. */
function deliveryOf(m: ClusterSetProps):
  | {
      d: Record<string, unknown>;
      argocd: Record<string, unknown> | undefined;
      flux: Record<string, unknown> | undefined;
    }
  | undefined {
  const d: unknown = m.delivery;
  if (!isObject(d)) return undefined;
  return {
    d,
    argocd: isObject(d.argocd) ? (d.argocd.enabled !== false ? d.argocd : undefined) : {},
    flux: isObject(d.flux) ? (d.flux.enabled !== false ? d.flux : undefined) : {},
  };
}

/** IDs of the clusters that get a bundle (the leader and the members), as listed. */
function deliveredIds(m: ClusterSetProps): string[] {
  const ids = memberIds(m);
  const leader = str(m.leader);
  if (leader !== undefined) ids.add(leader);
  return [...clusterById(m).keys()].filter((id) => ids.has(id));
}

/** Flux's and Argo CD's duration format (the GitRepository CRD's pattern for `interval`). */
const FLUX_DURATION = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;

function isRepoUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return ['https:', 'http:', 'ssh:'].includes(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

const deliveryRules: readonly Rule[] = [
  rule(
    'delivery-management-cluster-unknown',
    'The delivery management cluster is a declared cluster.',
    'Argo CD and Flux deliver the management cluster in-cluster and every other one remotely; an unknown ID ' +
      'would deliver every bundle through a kubeconfig or cluster registration that does not exist.',
    (m, report) => {
      const d = deliveryOf(m)?.d;
      const id = str(d?.managementCluster);
      if (id === undefined) return;
      const ids = clusterById(m);
      if (ids.has(id)) return;
      report(
        'delivery.managementCluster',
        `management cluster ${quote(id)} is not a declared cluster`,
        orClosest(id, ids.keys(), 'name the cluster Argo CD and Flux run in, declared in clusters'),
      );
    },
  ),
  rule(
    'delivery-repo-url',
    'The delivery repository URL is an https, http or ssh URL with a host.',
    "Flux's GitRepository refuses any other URL (scp-like `git@host:path` included), so nothing would be " +
      'delivered at all.',
    (m, report) => {
      const url = str(deliveryOf(m)?.d.repoURL);
      if (url === undefined || isRepoUrl(url)) return;
      const scp = /^([^@/:]+@)?([^/:]+):(.+)$/.exec(url);
      report(
        'delivery.repoURL',
        `repository ${quote(url)} is not an https, http or ssh URL`,
        scp
          ? `write it as ${quote(`ssh://${scp[1] ?? ''}${scp[2]}/${scp[3]}`)}`
          : `write it as a URL, e.g. ${quote('https://git.example.com/platform/gitops.git')}`,
      );
    },
  ),
  rule(
    'delivery-path-format',
    'The delivery path is a relative path inside the repository, without "..".',
    'Argo CD refuses source paths that leave the repository, and Flux resolves them against the repository ' +
      'root: the bundles would not be found.',
    (m, report) => {
      const p = str(deliveryOf(m)?.d.path);
      if (p === undefined) return;
      const segments = p.split('/');
      if (p !== '' && !p.startsWith('/') && !segments.includes('..') && !/[\s\\]/.test(p)) return;
      report(
        'delivery.path',
        `path ${quote(p)} is not a relative path inside the repository`,
        `give the folder of the compiled output relative to the repository root, e.g. ${quote('out')}`,
      );
    },
  ),
  rule(
    'delivery-branch-format',
    'The delivery branch is a valid git branch name.',
    'Argo CD and Flux fail to resolve a branch git cannot name, and deliver nothing.',
    (m, report) => {
      const b = str(deliveryOf(m)?.d.branch);
      if (b === undefined) return;
      const bad =
        b === '' ||
        b.startsWith('-') ||
        b.startsWith('/') ||
        b.endsWith('/') ||
        b.endsWith('.lock') ||
        b.includes('..') ||
        b.includes('@{') ||
        /[\s~^:?*[\\]/.test(b) ||
        [...b].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
      if (!bad) return;
      report(
        'delivery.branch',
        `branch ${quote(b)} is not a valid git branch name`,
        `name a branch, e.g. ${quote('main')}`,
      );
    },
  ),
  rule(
    'delivery-name-format',
    'Delivery namespaces, project and Secret names are valid Kubernetes names.',
    'The API server refuses Applications, Kustomizations and GitRepositories in an invalid namespace or with an ' +
      'invalid reference, and Argo CD refuses an Application whose project cannot exist.',
    (m, report) => {
      const x = deliveryOf(m);
      if (!x) return;
      const label = (path: string, v: unknown, what: string) =>
        checkName(report, path, v, what, 63, DNS1123_LABEL, LABEL_WORDS);
      const subdomain = (path: string, v: unknown, what: string) =>
        checkName(report, path, v, what, 253, DNS1123_SUBDOMAIN, `${LABEL_WORDS}, and '.'`);
      label('delivery.argocd.namespace', x.argocd?.namespace, 'Argo CD namespace');
      subdomain('delivery.argocd.project', x.argocd?.project, 'Argo CD project');
      label('delivery.flux.namespace', x.flux?.namespace, 'Flux namespace');
      subdomain('delivery.flux.gitSecretName', x.flux?.gitSecretName, 'git Secret name');
      const secrets = x.flux?.kubeConfigSecrets;
      if (isObject(secrets)) {
        for (const [id, name] of Object.entries(secrets))
          subdomain(`delivery.flux.kubeConfigSecrets.${id}`, name, 'kubeconfig Secret name');
      }
      const key = str(x.flux?.kubeConfigKey);
      if (key !== undefined && (key.length > 253 || !DATA_KEY.test(key))) {
        report(
          'delivery.flux.kubeConfigKey',
          `kubeconfig key ${quote(key)} is not a valid Secret key (letters, digits, '-', '_' and '.', at most 253)`,
          `use Flux's default key ${quote('value')}, or the key your Secrets hold`,
        );
      }
    },
  ),
  rule(
    'delivery-argocd-project-default',
    'A rendered Argo CD AppProject is not named "default".',
    'Without delivery.argocd.project, an AppProject named the ClusterSet ID is rendered; one named "default" ' +
      "would replace Argo CD's built-in project, which other Applications of that Argo CD may rely on.",
    (m, report) => {
      const x = deliveryOf(m);
      if (!x?.argocd || x.argocd.project !== undefined || str(m.clusterSetId) !== 'default') return;
      report(
        'delivery.argocd',
        `the AppProject rendered for ClusterSet ${quote('default')} would be named ${quote('default')}, Argo CD's built-in project`,
        `set delivery.argocd.project to ${quote('default')} to use the built-in project as it is, or give the ClusterSet another ID`,
      );
    },
  ),
  rule(
    'delivery-kubeconfig-cluster',
    'Flux kubeconfig Secrets are named only for delivered clusters other than the management cluster.',
    'Flux reaches the management cluster in-cluster and never reads a kubeconfig for it; a Secret named for a ' +
      'cluster that gets no bundle, or a misspelt ID, leaves the intended cluster on the default Secret name.',
    (m, report) => {
      const x = deliveryOf(m);
      const secrets = x?.flux?.kubeConfigSecrets;
      if (!x || !isObject(secrets)) return;
      const delivered = deliveredIds(m);
      const management = str(x.d.managementCluster);
      for (const id of Object.keys(secrets).sort(cmp)) {
        const path = `delivery.flux.kubeConfigSecrets.${id}`;
        if (id === management) {
          report(
            path,
            `cluster ${quote(id)} is the management cluster, which Flux reaches without a kubeconfig`,
            'remove the entry',
          );
        } else if (!delivered.includes(id)) {
          report(
            path,
            `${quote(id)} is not a cluster that gets a bundle (the leader or a member)`,
            orClosest(id, delivered, 'remove the entry or name a delivered cluster'),
          );
        }
      }
    },
  ),
  rule(
    'delivery-interval-format',
    'The Flux interval is a Go duration such as "5m" or "1h30m".',
    "Flux's CRDs refuse any other interval: the GitRepository and every Kustomization would be rejected.",
    (m, report) => {
      const interval = deliveryOf(m)?.flux?.interval;
      const i = str(interval);
      if (i === undefined || FLUX_DURATION.test(i)) return;
      report(
        'delivery.flux.interval',
        `interval ${quote(i)} is not a duration made of numbers with the units ms, s, m or h`,
        `write it as e.g. ${quote('5m')} or ${quote('1h30m')}`,
      );
    },
  ),
  rule(
    'delivery-object-name-length',
    'Each delivered cluster\'s Application and Kustomization name, "<clusterSetId>-<cluster>", is at most 63 characters.',
    'Flux labels every object it applies with kustomize.toolkit.fluxcd.io/name and Argo CD (label tracking) with ' +
      'app.kubernetes.io/instance, set to that name; a label value over 63 characters makes every apply fail.',
    (m, report) => {
      const set = str(m.clusterSetId);
      if (!deliveryOf(m) || set === undefined) return;
      for (const c of clustersOf(m)) {
        if (!deliveredIds(m).includes(c.value.id)) continue;
        const name = deliveryObjectName(set, c.value.id);
        if (name.length <= 63) continue;
        report(
          `${c.path}.id`,
          `the delivery name ${quote(name)} of ${clusterName(c)} is ${name.length} characters long, more than 63`,
          'shorten the ClusterSet ID or the cluster ID',
        );
      }
    },
  ),
  rule(
    'delivery-remote-leader-users',
    'When the leader is not the management cluster, admission.deliveryUsers names the identity Argo CD or Flux uses there.',
    "The leader's compiled-imports admission policy admits only the delivery users, by default the in-cluster " +
      'controllers of the management cluster; a remote leader sees another identity, and every compiled ' +
      'ResourceImport would be refused.',
    (m, report) => {
      const x = deliveryOf(m);
      const management = str(x?.d.managementCluster);
      const leader = str(m.leader);
      if (!x || management === undefined || leader === undefined || management === leader) return;
      // An undeclared management cluster is reported by delivery-management-cluster-unknown alone.
      if (!clusterById(m).has(management)) return;
      if (!x.argocd && !x.flux) return;
      if (isObject(m.admission) && m.admission.deliveryUsers !== undefined) return;
      report(
        'admission.deliveryUsers',
        `the leader ${quote(leader)} is delivered remotely from ${quote(management)}, but admission.deliveryUsers is not set`,
        `list the users Argo CD and Flux write to ${quote(leader)} as, e.g. ${quote('system:serviceaccount:kube-system:argocd-manager')} (what \`argocd cluster add\` creates) and the user of the Flux kubeconfig Secret`,
      );
    },
  ),
];

// ---- the reconciler ----

/** `reconciler` when it is an object. */
function reconcilerOf(m: ClusterSetProps): Partial<Record<keyof ReconcilerProps, unknown>> | undefined {
  const r: unknown = m.reconciler;
  return isObject(r) ? r : undefined;
}

/** The shortest silence after which the reconciler may retire a member (members announce every 10 s). */
const MIN_RETIRE_NANOS = 10_000_000_000n;

/**
 * A container image reference as the kubelet parses it (distribution/reference): an optional
 * registry host and port, lowercase path components, an optional tag, an optional digest.
 */
const IMAGE_REFERENCE = new RegExp(
  '^' +
    '(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*' +
    '(?::[0-9]+)?/)?' +
    '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*' +
    '(?::[\\w][\\w.-]{0,127})?' +
    '(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?' +
    '$',
);
/** The longest image name (without tag and digest) the kubelet accepts. */
const IMAGE_NAME_MAX = 255;

/** A non-negative Kubernetes quantity (resource.ParseQuantity): a number and an optional suffix. */
const QUANTITY = /^\+?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?\d+)?$/;
const QUANTITY_SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity, or undefined when it is none. Precise enough to compare two of them. */
function quantityValue(q: string): number | undefined {
  const m = QUANTITY.exec(q);
  if (!m) return undefined;
  const suffix = m[3] ?? '';
  const scale = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : QUANTITY_SUFFIX[suffix]!;
  return Number(m[1]) * scale;
}

const RESOURCES = ['cpu', 'memory'] as const;
const REQUEST_LIMIT = ['requests', 'limits'] as const;

/** `reconciler.resources.<requests|limits>.<cpu|memory>` as set in the model (strings only). */
function quantityOf(
  r: Partial<Record<keyof ReconcilerProps, unknown>> | undefined,
  kind: (typeof REQUEST_LIMIT)[number],
  resource: (typeof RESOURCES)[number],
): string | undefined {
  const resources = r?.resources;
  const group = isObject(resources) ? resources[kind] : undefined;
  return isObject(group) ? str(group[resource]) : undefined;
}

const reconcilerRules: readonly Rule[] = [
  rule(
    'reconciler-retire-members-after',
    'reconciler.retireMembersAfter is a Go duration of whole seconds, at least 10s.',
    'The reconciler refuses a config it cannot read and never starts; a silence shorter than 10 s retires live ' +
      'members between two announce refreshes, deleting their exports and withdrawing their endpoints from every ' +
      'other member.',
    (m, report) => {
      const after = str(reconcilerOf(m)?.retireMembersAfter);
      if (after === undefined) return;
      const ns = durationNanos(after);
      if (ns === undefined || ns % 1_000_000_000n !== 0n)
        report(
          'reconciler.retireMembersAfter',
          `retireMembersAfter ${quote(after)} is not a Go duration of whole seconds`,
          `write it like ${quote('24h')} (what Antrea uses), ${quote('90m')} or ${quote('30s')}`,
        );
      else if (ns < MIN_RETIRE_NANOS)
        report(
          'reconciler.retireMembersAfter',
          `retireMembersAfter ${quote(after)} is shorter than 10s; members refresh their announce only every 10 s`,
          `give at least ${quote('10s')}; Antrea's leader uses ${quote('24h')}`,
        );
    },
  ),
  rule(
    'reconciler-replicas',
    'reconciler.replicas is a whole number, at least 1.',
    'With no reconciler Pod, no Endpoints, ClusterInfo or LabelIdentity import is ever written and deleted exports ' +
      'keep their finalizer forever; the API server refuses a negative or fractional count.',
    (m, report) => {
      const n = reconcilerOf(m)?.replicas;
      if (typeof n !== 'number' || (Number.isInteger(n) && n >= 1)) return;
      report(
        'reconciler.replicas',
        `replicas ${quote(n)} is not a whole number of at least 1`,
        'leave it out for 2 (one writes, one stands by), or give 1 or more',
      );
    },
  ),
  rule(
    'reconciler-image-reference',
    'reconciler.image is a valid container image reference.',
    'The kubelet refuses to pull an invalid reference (InvalidImageName): the reconciler Pods never start and no ' +
      'dynamic ResourceImport is written.',
    (m, report) => {
      const image = str(reconcilerOf(m)?.image);
      if (image === undefined) return;
      const name = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
      if (IMAGE_REFERENCE.test(image) && name.length <= IMAGE_NAME_MAX) return;
      report(
        'reconciler.image',
        `image ${quote(image)} is not a valid image reference ([registry[:port]/]lowercase/path[:tag][@sha256:digest], name at most ${IMAGE_NAME_MAX} characters)`,
        `name the image built from this package's Dockerfile, e.g. ${quote('registry.example.com/platform/clusterset:0.1.0')}`,
      );
    },
  ),
  rule(
    'reconciler-resource-quantity',
    'reconciler.resources holds non-negative Kubernetes quantities.',
    'The API server refuses a Deployment with an invalid quantity: the reconciler is never deployed and the ' +
      "leader's sync fails.",
    (m, report) => {
      const r = reconcilerOf(m);
      for (const kind of REQUEST_LIMIT) {
        for (const resource of RESOURCES) {
          const q = quantityOf(r, kind, resource);
          if (q === undefined || QUANTITY.test(q)) continue;
          report(
            `reconciler.resources.${kind}.${resource}`,
            `${resource} ${kind === 'requests' ? 'request' : 'limit'} ${quote(q)} is not a non-negative Kubernetes quantity`,
            resource === 'cpu'
              ? `write CPU in cores or millicores, e.g. ${quote('100m')} or ${quote('1')}`
              : `write memory in bytes with a suffix, e.g. ${quote('128Mi')} or ${quote('1Gi')}`,
          );
        }
      }
    },
  ),
  rule(
    'reconciler-request-over-limit',
    'Each reconciler resource request, defaults included, is at most its limit.',
    'The API server refuses a container whose request exceeds its limit: the reconciler Deployment is never ' +
      'applied.',
    (m, report) => {
      const r = reconcilerOf(m);
      const defaults: Record<string, Record<string, string | undefined>> = {
        requests: DEFAULT_RECONCILER_RESOURCES.requests,
        limits: DEFAULT_RECONCILER_RESOURCES.limits,
      };
      for (const resource of RESOURCES) {
        const set = {
          requests: quantityOf(r, 'requests', resource),
          limits: quantityOf(r, 'limits', resource),
        };
        const request = set.requests ?? defaults.requests![resource];
        const limit = set.limits ?? defaults.limits![resource];
        if (request === undefined || limit === undefined) continue;
        const [rv, lv] = [quantityValue(request), quantityValue(limit)];
        if (rv === undefined || lv === undefined || rv <= lv * (1 + 1e-12)) continue;
        const given = set.limits !== undefined ? 'limits' : 'requests';
        report(
          `reconciler.resources.${given}.${resource}`,
          `${resource} request ${quote(request)}${set.requests === undefined ? ' (the default)' : ''} is more than the ${resource} limit ${quote(limit)}${set.limits === undefined ? ' (the default)' : ''}`,
          `raise reconciler.resources.limits.${resource} to at least ${quote(request)}, or lower reconciler.resources.requests.${resource}`,
        );
      }
    },
  ),
];

/** Every rule, in a stable order. IDs are stable: tests and users refer to them. */
export const RULES: readonly Rule[] = [
  ...identityRules,
  ...serviceRules,
  ...tierRules,
  ...policyRules,
  ...networkRules,
  ...clusterRules,
  ...deliveryRules,
  ...secretRules,
  ...reconcilerRules,
];
