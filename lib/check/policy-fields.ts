/**
 * The fields of a policy beyond selectors and Services: appliedTo placement, ClusterGroups,
 * ServiceAccounts, Nodes, ipBlocks, FQDNs, `namespaces`, ports, protocols, layer 7 and logging.
 * Each rule restates one check of antrea-controller's policy webhook
 * (pkg/controller/networkpolicy/validate.go, quoted in `prevents`), of the ClusterNetworkPolicy
 * schema, or a multi-cluster limit (antrea-mc.md §d): a policy the webhook refuses never exists in a
 * member, and a replicated one is refused in every member at once.
 */
import { labelKeyProblem } from './labels';
import { isIPv6 } from 'node:net';
import type { ClusterGroupProps, PeerProps, RuleAppliedToProps } from '../model';
import { DNS1123_SUBDOMAIN } from '../names';
import { parseIpv4Cidr } from './ipv4';
import { type Rule, rule, LABEL_WORDS, checkName } from './rule';
import {
  type At,
  duplicates,
  nonEmpty,
  objects,
  orClosest,
  policiesOf,
  quote,
  quoteList,
  rulePeers,
  rulesOf,
  setFields,
  str,
  strings,
  walkOnce,
} from './util';

/** Every appliedTo entry of the model's policies, policy level then rule level, with paths. */
function appliedTos(m: Parameters<Rule['check']>[0]): At<RuleAppliedToProps & { nodeSelector?: unknown }>[] {
  return walkOnce('appliedTos', m, () =>
    policiesOf(m).flatMap((p) => [
      ...objects(p.value.appliedTo, `${p.path}.appliedTo`),
      ...rulesOf(p).flatMap((r) => objects(r.value.appliedTo, `${r.path}.appliedTo`)),
    ]),
  );
}

/** Every peer of every rule, with its rule's direction. */
function peers(m: Parameters<Rule['check']>[0]) {
  return walkOnce('peers', m, () =>
    policiesOf(m).flatMap((p) =>
      rulesOf(p).flatMap((r) => rulePeers(r).map((peer) => ({ ...peer, direction: r.direction, policy: p }))),
    ),
  );
}

/** A CIDR Antrea (Go's net.ParseCIDR) and the API server's `cidr` format accept: IPv4 or IPv6. */
function isCidr(s: string): boolean {
  if (parseIpv4Cidr(s) !== undefined) return true;
  const m = /^([0-9A-Fa-f:.]+)\/(0|[1-9][0-9]{0,2})$/.exec(s);
  return m !== null && isIPv6(m[1]!) && Number(m[2]) <= 128;
}

/** Whether `inner` is a strict subset of `outer` (IPv4 only; undefined when either is not IPv4). */
function strictSubset(outer: string, inner: string): boolean | undefined {
  const o = parseIpv4Cidr(outer);
  const i = parseIpv4Cidr(inner);
  if (!o || !i) return undefined;
  return o.first <= i.first && i.last <= o.last && i.last - i.first < o.last - o.first;
}

/** Every ipBlock of the model (peers and ClusterGroups), with paths. */
function ipBlocks(m: Parameters<Rule['check']>[0]): At<{ cidr?: unknown; except?: readonly string[] }>[] {
  return [
    ...peers(m).flatMap((p) =>
      p.value.ipBlock && typeof p.value.ipBlock === 'object'
        ? [{ value: p.value.ipBlock, path: `${p.path}.ipBlock`, index: p.index }]
        : [],
    ),
    ...objects(m.clusterGroups, 'clusterGroups').flatMap((g) =>
      objects(g.value.ipBlocks, `${g.path}.ipBlocks`),
    ),
  ];
}

/** The logLabel pattern of the ClusterNetworkPolicy schema. */
const LOG_LABEL = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** validate.go's allowedFQDNChars. */
const FQDN_CHARS = /^[-0-9a-zA-Z.*]+$/;

const isMulticastV4 = (s: string) => {
  const first = Number(s.split('.')[0]);
  return /^\d+\.\d+\.\d+\.\d+$/.test(s) && first >= 224 && first <= 239;
};

export const policyFieldRules: readonly Rule[] = [
  rule(
    'policy-applied-to-placement',
    'A policy has appliedTo either at policy level or in every rule, never both and never neither.',
    'antrea-controller refuses the policy: "appliedTo should not be set in both spec and rules", "appliedTo needs ' +
      'to be set in either spec or rules", or "appliedTo field should either be set in all rules or in none of them".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        const atPolicy = nonEmpty(p.value.appliedTo);
        const rules = rulesOf(p);
        const withOwn = rules.filter((r) => nonEmpty(r.value.appliedTo));
        if (atPolicy) {
          for (const r of withOwn)
            report(
              `${r.path}.appliedTo`,
              `policy ${quote(p.value.name)} sets appliedTo at policy level and in this rule`,
              'keep one: remove the rule appliedTo, or move the policy appliedTo into every rule',
            );
        } else if (withOwn.length === 0) {
          report(
            `${p.path}.appliedTo`,
            `policy ${quote(p.value.name)} sets appliedTo neither at policy level nor in its rules`,
            'set appliedTo on the policy, or on every rule',
          );
        } else {
          for (const r of rules)
            if (!nonEmpty(r.value.appliedTo))
              report(
                `${r.path}.appliedTo`,
                `policy ${quote(p.value.name)} sets appliedTo in some rules but not in this one`,
                'set appliedTo on every rule of the policy, or on the policy only',
              );
        }
      }
    },
  ),
  rule(
    'applied-to-exclusive',
    'An appliedTo entry with group, serviceAccount or nodeSelector sets nothing else.',
    'antrea-controller refuses the policy: "group cannot be set with other peers in appliedTo" (likewise ' +
      'serviceAccount and nodeSelector).',
    (m, report) => {
      const fields = ['podSelector', 'namespaceSelector', 'group', 'serviceAccount', 'nodeSelector'];
      for (const a of appliedTos(m)) {
        const set = setFields(a.value, fields);
        const alone = set.find((f) => ['group', 'serviceAccount', 'nodeSelector'].includes(f));
        if (alone === undefined || set.length < 2) continue;
        report(
          a.path,
          `appliedTo sets ${alone} together with ${quoteList(set.filter((f) => f !== alone))}`,
          `split it into separate appliedTo entries: one with ${alone} alone`,
        );
      }
    },
  ),
  rule(
    'policy-peer-exclusive',
    'A peer with group, serviceAccount, nodeSelector, ipBlock or fqdn sets nothing else.',
    'antrea-controller refuses "group cannot be set with other peers in rules" (likewise serviceAccount and ' +
      'nodeSelector, an explicit scope included), and silently ignores the selectors beside an ipBlock or fqdn.',
    (m, report) => {
      const fields = [
        'podSelector',
        'namespaceSelector',
        'namespaces',
        'ipBlock',
        'group',
        'serviceAccount',
        'nodeSelector',
        'fqdn',
        'scope',
      ];
      for (const peer of peers(m)) {
        const set = setFields(peer.value, fields);
        const alone = set.find((f) =>
          ['group', 'serviceAccount', 'nodeSelector', 'ipBlock', 'fqdn'].includes(f),
        );
        // scope is only counted by the webhook for group, serviceAccount and nodeSelector.
        const others = set.filter(
          (f) =>
            f !== alone && (f !== 'scope' || ['group', 'serviceAccount', 'nodeSelector'].includes(alone!)),
        );
        if (alone === undefined || others.length === 0) continue;
        report(
          peer.path,
          `peer sets ${alone} together with ${quoteList(others)}`,
          `split it into separate peers: one with ${alone} alone`,
        );
      }
    },
  ),
  rule(
    'peer-namespaces-selector',
    'A peer does not set both namespaces and namespaceSelector.',
    'antrea-controller refuses "namespaces and namespaceSelector cannot be set at the same time for a single ' +
      'NetworkPolicyPeer".',
    (m, report) => {
      for (const peer of peers(m)) {
        if (peer.value.namespaces === undefined || peer.value.namespaceSelector === undefined) continue;
        report(
          `${peer.path}.namespaces`,
          'peer sets namespaces and namespaceSelector',
          'keep one of them, or split the peer in two',
        );
      }
    },
  ),
  rule(
    'peer-namespaces-criterion',
    'A peer namespaces sets exactly one of match and sameLabels (with at least one key).',
    'The ClusterNetworkPolicy schema allows exactly one property in namespaces, and antrea-controller refuses ' +
      '"only one matching criteria can be specified in a single peer namespaces field".',
    (m, report) => {
      for (const peer of peers(m)) {
        const ns = peer.value.namespaces;
        if (!ns || typeof ns !== 'object') continue;
        const set = setFields(ns, ['match', 'sameLabels']);
        if (set.length === 1 && (set[0] === 'match' || nonEmpty(ns.sameLabels))) continue;
        report(
          `${peer.path}.namespaces`,
          set.length === 2
            ? 'namespaces sets both match and sameLabels'
            : set.length === 0
              ? 'namespaces sets neither match nor sameLabels'
              : 'namespaces.sameLabels lists no label key',
          "use { match: 'Self' } or { sameLabels: [<label keys>] }, in separate peers if you need both",
        );
      }
    },
  ),
  rule(
    'peer-same-labels-key',
    'Each namespaces.sameLabels entry is a valid label key.',
    'antrea-controller refuses "Invalid label key in sameLabels rule".',
    (m, report) => {
      for (const peer of peers(m)) {
        const ns = peer.value.namespaces;
        if (!ns || typeof ns !== 'object') continue;
        for (const k of strings(ns.sameLabels, `${peer.path}.namespaces.sameLabels`)) {
          if (labelKeyProblem(k.value) === undefined) continue;
          report(
            k.path,
            `${quote(k.value)} is not a label key (an optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`,
            'use the key of a Namespace label, e.g. "tenant"',
          );
        }
      }
    },
  ),
  rule(
    'ip-block-cidr',
    'Every ipBlock cidr and except entry is a CIDR.',
    'The API server refuses a value that is not in `cidr` format, and antrea-controller refuses ' +
      '"invalid except CIDR value".',
    (m, report) => {
      for (const b of ipBlocks(m)) {
        const cidr = str(b.value.cidr);
        if (cidr !== undefined && !isCidr(cidr))
          report(
            `${b.path}.cidr`,
            `${quote(cidr)} is not a CIDR`,
            'write it as address/prefix, e.g. "10.0.0.0/8"',
          );
        for (const e of strings(b.value.except, `${b.path}.except`)) {
          if (!isCidr(e.value))
            report(
              e.path,
              `${quote(e.value)} is not a CIDR`,
              'write it as address/prefix, e.g. "10.1.0.0/16"',
            );
        }
      }
    },
  ),
  rule(
    'ip-block-except-subset',
    'Every ipBlock except entry is a strict subset of its cidr.',
    'antrea-controller refuses "except CIDR ... is not a strict subset of CIDR ...".',
    (m, report) => {
      for (const b of ipBlocks(m)) {
        const cidr = str(b.value.cidr);
        if (cidr === undefined) continue;
        for (const e of strings(b.value.except, `${b.path}.except`)) {
          if (strictSubset(cidr, e.value) !== false) continue;
          report(
            e.path,
            `${quote(e.value)} is not strictly inside ${quote(cidr)}`,
            `leave out only a smaller part of ${quote(cidr)}, or remove the entry`,
          );
        }
      }
    },
  ),
  rule(
    'ingress-peer-fqdn',
    'Only egress peers use fqdn.',
    'The ClusterNetworkPolicy schema has no fqdn under ingress from: the API server prunes it and the peer ' +
      'matches every source.',
    (m, report) => {
      for (const peer of peers(m)) {
        if (peer.direction !== 'ingress' || peer.value.fqdn === undefined) continue;
        report(
          `${peer.path}.fqdn`,
          'an ingress peer sets fqdn, which Antrea only matches on egress',
          'move the FQDN to an egress rule, or select the sources by ipBlock',
        );
      }
    },
  ),
  rule(
    'peer-fqdn-format',
    "An fqdn is made of letters, digits, '-', '.' and '*'.",
    'antrea-controller refuses "invalid characters in egress rule fqdn field".',
    (m, report) => {
      for (const peer of peers(m)) {
        const fqdn = str(peer.value.fqdn);
        if (fqdn === undefined || FQDN_CHARS.test(fqdn)) continue;
        report(
          `${peer.path}.fqdn`,
          `${quote(fqdn)} has characters other than letters, digits, '-', '.' and '*'`,
          'write a domain name, or a pattern such as "*.example.com"',
        );
      }
    },
  ),
  rule(
    'peer-scope-clusterset-fields',
    'A ClusterSet-scope peer selects by podSelector, namespaceSelector or namespaces only.',
    "antrea-controller builds the ClusterSet-wide selector from a peer's pod and namespace selectors alone " +
      '(antrea-mc.md §d): a ClusterSet-scope group, serviceAccount, nodeSelector or ipBlock keeps matching only ' +
      'the local cluster, so the stretched rule silently does less than written.',
    (m, report) => {
      for (const peer of peers(m)) {
        if (peer.value.scope !== 'ClusterSet') continue;
        const local = setFields(peer.value, ['group', 'serviceAccount', 'nodeSelector', 'ipBlock']);
        if (local.length === 0) continue;
        report(
          `${peer.path}.scope`,
          `scope "ClusterSet" with ${quoteList(local)}, which Antrea matches in the local cluster only`,
          'select the remote Pods by podSelector and namespaceSelector (or namespaces), or drop the scope',
        );
      }
    },
  ),
  rule(
    'policy-port-end-port',
    'endPort is set only with a numeric port, and is at least port.',
    'antrea-controller refuses "if `endPort` is specified `port` must be specified", "if `port` is a string ' +
      '`endPort` cannot be specified" and "`endPort` should be greater than or equal to `port`".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          for (const port of objects(r.value.ports, `${r.path}.ports`)) {
            const { port: start, endPort: end } = port.value;
            if (typeof end !== 'number') continue;
            if (start === undefined)
              report(
                `${port.path}.endPort`,
                `endPort ${end} has no port`,
                'set port to the start of the range',
              );
            else if (typeof start === 'string')
              report(
                `${port.path}.endPort`,
                `endPort ${end} follows the named port ${quote(start)}`,
                'use a numeric port for a range, or remove endPort',
              );
            else if (typeof start === 'number' && end < start)
              report(
                `${port.path}.endPort`,
                `endPort ${end} is less than port ${start}`,
                `set endPort to at least ${start}`,
              );
          }
        }
      }
    },
  ),
  rule(
    'policy-port-source-end-port',
    'sourceEndPort is set only with sourcePort, and is at least sourcePort.',
    'antrea-controller refuses "if `sourceEndPort` is specified `sourcePort` must be specified" and ' +
      '"`sourceEndPort` should be greater than or equal to `sourcePort`".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          for (const port of objects(r.value.ports, `${r.path}.ports`)) {
            const { sourcePort: start, sourceEndPort: end } = port.value;
            if (typeof end !== 'number') continue;
            if (start === undefined)
              report(
                `${port.path}.sourceEndPort`,
                `sourceEndPort ${end} has no sourcePort`,
                'set sourcePort to the start of the range',
              );
            else if (typeof start === 'number' && end < start)
              report(
                `${port.path}.sourceEndPort`,
                `sourceEndPort ${end} is less than sourcePort ${start}`,
                `set sourceEndPort to at least ${start}`,
              );
          }
        }
      }
    },
  ),
  rule(
    'rule-protocol-one',
    'Each protocols entry sets exactly one of icmp and igmp; each l7Protocols entry exactly one of http and tls.',
    'The ClusterNetworkPolicy schema requires exactly one of them (oneOf): the API server refuses the policy.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          for (const [list, fields] of [
            ['protocols', ['icmp', 'igmp']],
            ['l7Protocols', ['http', 'tls']],
          ] as const) {
            for (const x of objects(r.value[list] as readonly object[] | undefined, `${r.path}.${list}`)) {
              if (setFields(x.value, fields).length === 1) continue;
              report(
                x.path,
                `the entry sets ${setFields(x.value, fields).length} of ${quoteList(fields)}`,
                `set exactly one of ${quoteList(fields)} per entry`,
              );
            }
          }
        }
      }
    },
  ),
  rule(
    'rule-igmp-exclusive',
    'A rule with IGMP has no ports, peers, toServices or ICMP, and its action is Allow or Drop.',
    'antrea-controller refuses "protocol IGMP can not be used with other protocols or other properties like ' +
      'from, to" and "protocol IGMP does not support Pass or Reject".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          const protocols = objects(
            r.value.protocols as readonly object[] | undefined,
            `${r.path}.protocols`,
          );
          const igmp = protocols.find((x) => (x.value as { igmp?: unknown }).igmp !== undefined);
          if (!igmp) continue;
          const v = r.value as unknown as Record<string, unknown>;
          const others = ['ports', 'from', 'to', 'toServices'].filter((f) => nonEmpty(v[f]));
          if (protocols.some((x) => (x.value as { icmp?: unknown }).icmp !== undefined)) others.push('icmp');
          if (others.length > 0)
            report(igmp.path, `IGMP is combined with ${quoteList(others)}`, 'put IGMP in a rule of its own');
          if (r.value.action === 'Pass' || r.value.action === 'Reject')
            report(`${r.path}.action`, `IGMP rule has action ${quote(r.value.action)}`, 'use Allow or Drop');
        }
      }
    },
  ),
  rule(
    'rule-igmp-group-address',
    'An IGMP groupAddress is a multicast address.',
    'antrea-controller refuses "groupAddress ... is not multicast address".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          for (const x of objects(
            r.value.protocols as readonly object[] | undefined,
            `${r.path}.protocols`,
          )) {
            const addr = str((x.value as { igmp?: { groupAddress?: unknown } }).igmp?.groupAddress);
            if (addr === undefined || isMulticastV4(addr) || /^ff/i.test(addr)) continue;
            report(
              `${x.path}.igmp.groupAddress`,
              `${quote(addr)} is not a multicast address`,
              'use an address in 224.0.0.0/4 (or ff00::/8)',
            );
          }
        }
      }
    },
  ),
  rule(
    'rule-l7-allow-only',
    'A rule with l7Protocols has action Allow.',
    'antrea-controller refuses "layer 7 protocols only support Allow".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          if (!nonEmpty(r.value.l7Protocols) || r.value.action === 'Allow') continue;
          report(
            `${r.path}.action`,
            `rule with l7Protocols has action ${quote(r.value.action)}`,
            'use Allow: traffic that does not match the layer 7 criteria is dropped anyway',
          );
        }
      }
    },
  ),
  rule(
    'rule-l7-to-services',
    'A rule with l7Protocols has no toServices.',
    'antrea-controller refuses "layer 7 protocols can not be used with toServices".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          const v = r.value as { toServices?: unknown };
          if (!nonEmpty(r.value.l7Protocols) || !nonEmpty(v.toServices)) continue;
          report(
            `${r.path}.l7Protocols`,
            'l7Protocols is combined with toServices',
            'select the destination with to instead',
          );
        }
      }
    },
  ),
  rule(
    'rule-l7-http-transport',
    'A rule with HTTP matches only TCP ports and no ICMP or IGMP.',
    'antrea-controller refuses "HTTP protocol can only be used when layer 4 protocol is TCP or unset" and ' +
      '"HTTP protocol can not be used with protocol IGMP or ICMP".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          const http = objects(r.value.l7Protocols, `${r.path}.l7Protocols`).some(
            (x) => x.value.http !== undefined,
          );
          if (!http) continue;
          for (const port of objects(r.value.ports, `${r.path}.ports`)) {
            if (port.value.protocol === undefined || port.value.protocol === 'TCP') continue;
            report(
              `${port.path}.protocol`,
              `HTTP rule matches protocol ${quote(port.value.protocol)}`,
              'use TCP',
            );
          }
          if (nonEmpty(r.value.protocols))
            report(
              `${r.path}.protocols`,
              'HTTP rule also matches ICMP or IGMP',
              'move those protocols to another rule',
            );
        }
      }
    },
  ),
  rule(
    'rule-log-label-format',
    "A logLabel is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit.",
    'The ClusterNetworkPolicy schema refuses any other logLabel: the policy never exists.',
    (m, report) => {
      for (const p of policiesOf(m)) {
        for (const r of rulesOf(p)) {
          const label = str(r.value.logLabel);
          if (label === undefined || LOG_LABEL.test(label)) continue;
          report(
            `${r.path}.logLabel`,
            `logLabel ${quote(label)} is not at most 63 letters, digits, '-', '_' and '.' starting and ending with a letter or digit`,
            `rename it, e.g. to ${quote(
              label
                .replace(/[^A-Za-z0-9_.-]+/g, '-')
                .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
                .slice(0, 63) || 'rule',
            )}`,
          );
        }
      }
    },
  ),
  rule(
    'policy-pass-baseline-tier',
    'Policies in the baseline Tier have no Pass rules.',
    'antrea-controller refuses "`Pass` action should not be set for Baseline Tier policy rules".',
    (m, report) => {
      for (const p of policiesOf(m)) {
        if (str(p.value.tier)?.toLowerCase() !== 'baseline') continue;
        for (const r of rulesOf(p)) {
          if (r.value.action !== 'Pass') continue;
          report(
            `${r.path}.action`,
            'a baseline-Tier rule has action "Pass"',
            'use Allow, Drop or Reject, or another Tier',
          );
        }
      }
    },
  ),
  rule(
    'policy-group-unknown',
    'Every group a policy names is declared in clusterGroups.',
    'The ClusterGroup is rendered only when declared; antrea-controller accepts a policy naming a missing ' +
      'ClusterGroup and the peer or appliedTo silently matches nothing.',
    (m, report) => {
      const declared = new Set(
        objects(m.clusterGroups, 'clusterGroups').flatMap((g) => str(g.value.name) ?? []),
      );
      const check = (value: { group?: unknown }, path: string) => {
        const g = str(value.group);
        if (g === undefined || declared.has(g)) return;
        report(
          `${path}.group`,
          `ClusterGroup ${quote(g)} is not declared in clusterGroups`,
          orClosest(g, declared, 'declare it in clusterGroups, or name a declared one'),
        );
      };
      for (const a of appliedTos(m)) check(a.value, a.path);
      for (const peer of peers(m)) check(peer.value as PeerProps, peer.path);
    },
  ),
];

export const clusterGroupRules: readonly Rule[] = [
  rule(
    'cluster-group-name-format',
    'ClusterGroup names are DNS-1123 subdomains.',
    'The API server refuses any other object name, so the ClusterGroup and what names it are missing.',
    (m, report) => {
      for (const g of objects(m.clusterGroups, 'clusterGroups'))
        checkName(
          report,
          `${g.path}.name`,
          g.value.name,
          'ClusterGroup name',
          253,
          DNS1123_SUBDOMAIN,
          `${LABEL_WORDS}, and '.'`,
        );
    },
  ),
  rule(
    'cluster-group-duplicate',
    'Each ClusterGroup is declared once.',
    'Two ClusterGroups with one name overwrite each other in every member.',
    (m, report) => {
      for (const { first, dup } of duplicates(objects(m.clusterGroups, 'clusterGroups'), (g) => str(g.name)))
        report(
          `${dup.path}.name`,
          `ClusterGroup ${quote(dup.value.name)} is already declared at ${first.path}`,
          'declare each ClusterGroup once',
        );
    },
  ),
  rule(
    'cluster-group-fields',
    'A ClusterGroup sets one of podSelector, nodeSelector, ipBlocks, serviceReference and childGroups, with namespaceSelector only beside podSelector or alone.',
    'antrea-controller refuses "At most one of podSelector, externalEntitySelector, serviceReference, ipBlock, ' +
      'ipBlocks or childGroups can be set for a ClusterGroup".',
    (m, report) => {
      const fields = [
        'podSelector',
        'namespaceSelector',
        'nodeSelector',
        'ipBlocks',
        'serviceReference',
        'childGroups',
      ];
      for (const g of objects(m.clusterGroups, 'clusterGroups')) {
        const set = setFields(g.value, fields);
        const ok =
          set.length <= 1 ||
          (set.length === 2 && set.includes('namespaceSelector') && set.includes('podSelector'));
        if (ok) continue;
        report(
          g.path,
          `ClusterGroup ${quote(g.value.name)} sets ${quoteList(set)}`,
          'split it into ClusterGroups of one criterion each and join them with childGroups',
        );
      }
    },
  ),
  rule(
    'cluster-group-child',
    'childGroups name declared ClusterGroups that have no childGroups themselves.',
    'A missing child matches nothing; antrea-controller refuses "cannot set ClusterGroup ... as childGroup, who ' +
      'has ... childGroups itself".',
    (m, report) => {
      const byName = new Map<string, At<ClusterGroupProps>>();
      for (const g of objects(m.clusterGroups, 'clusterGroups')) {
        const name = str(g.value.name);
        if (name !== undefined && !byName.has(name)) byName.set(name, g);
      }
      for (const g of byName.values()) {
        for (const c of strings(g.value.childGroups, `${g.path}.childGroups`)) {
          const child = byName.get(c.value);
          if (!child)
            report(
              c.path,
              `ClusterGroup ${quote(c.value)} is not declared in clusterGroups`,
              orClosest(c.value, byName.keys(), 'declare it, or name a declared one'),
            );
          else if (nonEmpty(child.value.childGroups))
            report(
              c.path,
              `ClusterGroup ${quote(c.value)} has childGroups itself (${child.path})`,
              'nest ClusterGroups one level deep only',
            );
        }
      }
    },
  ),
];
