/**
 * Cluster identity: cluster IDs, the ClusterSet ID, leader and members, namespaces, API servers.
 */
import {
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  isDashPrefixPair,
} from '../names';
import {
  clusterById,
  clustersOf,
  duplicates,
  isObject,
  memberIds,
  orClosest,
  quote,
  roleReferencesResolve,
  str,
  strings,
} from './util';
import { type Rule, rule, warning, LABEL_WORDS, checkName } from './rule';

export const identityRules: readonly Rule[] = [
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
      // Linear: each ID is looked up by its own dash-prefixes, never compared with every other ID.
      const byId = new Map(unique.map((x) => [x.value, x]));
      for (const long of unique) {
        for (let i = long.value.indexOf('-'); i > 0; i = long.value.indexOf('-', i + 1)) {
          const short = byId.get(long.value.slice(0, i));
          if (!short || !isDashPrefixPair(short.value, long.value)) continue;
          const [a, b] = short.index < long.index ? [short, long] : [long, short];
          report(
            b.path,
            `member IDs ${quote(a.value)} (${a.path}) and ${quote(b.value)} (${b.path}) form a dash-prefix pair, which Antrea refuses`,
            `rename one of the two clusters so that neither ID is the other followed by '-'`,
          );
        }
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

export const clusterRules: readonly Rule[] = [
  warning(
    'cluster-unused',
    'Every declared cluster is the leader, a member, or the delivery management cluster.',
    'A cluster in clusters that has no role gets no bundle and is silently left out of the ClusterSet: what a ' +
      'half-finished removal, or a member forgotten in members, looks like. No Service, policy or identity of the ' +
      'set reaches it.',
    (m, report) => {
      // A misspelt leader or member leaves the cluster it meant without a role: leader-unknown and
      // member-unknown say so, with the name they meant.
      if (!roleReferencesResolve(m)) return;
      const roles = memberIds(m);
      const leader = str(m.leader);
      if (leader !== undefined) roles.add(leader);
      const management = isObject(m.delivery) ? str(m.delivery.managementCluster) : undefined;
      if (management !== undefined) roles.add(management);
      const seen = new Set<string>();
      for (const c of clustersOf(m)) {
        const id = str(c.value.id);
        // A duplicate ID is cluster-id-duplicate's to report.
        if (id === undefined || roles.has(id) || seen.has(id)) continue;
        seen.add(id);
        report(
          c.path,
          `cluster ${quote(id)} is neither the leader nor a member${management !== undefined ? ' nor the delivery management cluster' : ''}: it gets no bundle and is not part of the ClusterSet`,
          `add ${quote(id)} to members, or remove it from clusters if it is leaving the set`,
        );
      }
    },
  ),
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
