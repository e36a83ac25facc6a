/**
 * Networks, gateways and CIDRs: what must hold for traffic to cross between members.
 */
import type { ClusterProps, ClusterSetProps } from '../model';
import { overlappingPairs, parseIpv4, parseIpv4Cidr, type Ipv4Range } from './ipv4';
import {
  type At,
  clusterName,
  clustersOf,
  isObject,
  memberClusters,
  networkName,
  networkOf,
  nonEmpty,
  objects,
  quote,
  str,
  strings,
} from './util';
import { type Rule, rule, serviceKey, warning } from './rule';

/** `"prod/web"` for a Service or Service reference with string namespace and name. */

/** A parsed CIDR of a member, with where it is written. */
interface MemberCidr {
  readonly cluster: At<ClusterProps>;
  readonly cidr: At<string>;
  readonly range: Ipv4Range;
  readonly kind: 'Service' | 'Pod';
}

/** Every valid Service and Pod CIDR of the members, in model order. */
function memberCidrs(m: ClusterSetProps): MemberCidr[] {
  return memberClusters(m).flatMap((cluster) => {
    const { serviceCIDR, podCIDRs } = cluster.value;
    const texts: [At<string>, MemberCidr['kind']][] = [
      ...(typeof serviceCIDR === 'string'
        ? [
            [{ value: serviceCIDR, path: `${cluster.path}.serviceCIDR` }, 'Service'] as [
              At<string>,
              'Service',
            ],
          ]
        : []),
      ...strings(podCIDRs, `${cluster.path}.podCIDRs`).map((x): [At<string>, 'Pod'] => [x, 'Pod']),
    ];
    return texts.flatMap(([cidr, kind]) => {
      const range = parseIpv4Cidr(cidr.value);
      return range ? [{ cluster, cidr, range, kind }] : [];
    });
  });
}

/**
 * Pairs of overlapping member CIDRs that `keep` accepts; the first of a pair is listed first in the
 * model. Sort and sweep (ipv4.ts): a 200-cluster model costs its overlaps, not every pair.
 */
function overlappingCidrs(
  m: ClusterSetProps,
  keep: (a: MemberCidr, b: MemberCidr) => boolean,
): [MemberCidr, MemberCidr][] {
  const cidrs = memberCidrs(m);
  return overlappingPairs(cidrs, (c) => c.range)
    .map(([i, j]): [MemberCidr, MemberCidr] => [cidrs[i]!, cidrs[j]!])
    .filter(([a, b]) => keep(a, b));
}

const sameNetwork = (a: MemberCidr, b: MemberCidr): boolean =>
  networkOf(a.cluster.value) === networkOf(b.cluster.value);

/** `Service CIDR "10.96.0.0/16" of cluster "east" (clusters[1].serviceCIDR) on network "dc1"`. */
function describeCidr(x: MemberCidr): string {
  return `${x.kind} CIDR ${quote(x.cidr.value)} of cluster ${quote(x.cluster.value.id)} (${x.cidr.path}) on ${networkName(networkOf(x.cluster.value))}`;
}

/** `Pod CIDR "10.96.0.0/12" (clusters[1].podCIDRs[0])`, for a pair within one cluster. */
function describeOwnCidr(x: MemberCidr): string {
  return `${x.kind} CIDR ${quote(x.cidr.value)} (${x.cidr.path})`;
}

/** One Service flowing between two members on different networks. */
export interface Crossing {
  /** The member concerned. */
  readonly cluster: At<ClusterProps>;
  /** The member on the other network. */
  readonly partner: At<ClusterProps>;
  readonly service: string;
  /** Whether `cluster` exports the Service (to `partner`) or imports it (from `partner`). */
  readonly exports: boolean;
}

/** The cross-network exchanges of one member: the first one found, and how many there are. */
export interface Exchanges {
  readonly first: Crossing;
  readonly count: number;
}

/** Where an exchange is met in the order services × exporters × members (× export, then import). */
type Position = readonly [service: number, exporter: number, member: number, imports: number];

const before = (a: Position, b: Position): boolean => {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
};

const found = new WeakMap<object, Exchanges[]>();

/**
 * For each member that exchanges Services with a member on another network, its exchanges, in
 * cluster order. An exporter sends its endpoints to every member (ResourceImports reach all
 * members, antrea-mc.md §0.5), so each exporter crosses to every member on another network.
 *
 * Each exchange is (Service, exporter, member on another network), both ways; they are counted,
 * never listed: a member's count is what it exports times the members on other networks, plus the
 * (Service, exporter) pairs on other networks. The first exchange reported for a member is the one
 * met first in the order services × exporters × members, found from the first (Service, exporter)
 * pair and the first member off each network. Linear in Services × exporters plus members; computed
 * once per model.
 */
export function crossNetworkExchanges(m: ClusterSetProps): Exchanges[] {
  const cached = found.get(m);
  if (cached) return cached;
  const members = memberClusters(m);
  const order = new Map(members.map((c, i) => [c.value.id, i]));
  const net = members.map((c) => networkOf(c.value));
  const onNetwork = new Map<string, number>();
  for (const n of net) onNetwork.set(n, (onNetwork.get(n) ?? 0) + 1);
  // The first member in order, and the first on another network than it: between them, the first
  // member off any network.
  const firstOff = (n: string): number | undefined => {
    if (members.length === 0) return undefined;
    if (net[0] !== n) return 0;
    const i = net.findIndex((x) => x !== n);
    return i < 0 ? undefined : i;
  };
  const firstOffCache = new Map<string, number | undefined>();
  const firstMemberOff = (n: string) => {
    if (!firstOffCache.has(n)) firstOffCache.set(n, firstOff(n));
    return firstOffCache.get(n);
  };

  interface Pair {
    readonly service: string;
    readonly exporter: number;
    readonly at: readonly [number, number];
  }
  const exportsOf = new Map<number, { count: number; first: Pair }>();
  const pairsOn = new Map<string, number>();
  let pairs = 0;
  // The first (Service, exporter) pair, and the first on another network than it.
  let firstPair: Pair | undefined;
  let secondPair: Pair | undefined;
  objects(m.services, 'services').forEach((s, si) => {
    const service = serviceKey(s.value) ?? s.path;
    let k = 0;
    for (const id of new Set(strings(s.value.exportedFrom, '').map((e) => e.value))) {
      const exporter = order.get(id);
      if (exporter === undefined) continue;
      const pair: Pair = { service, exporter, at: [si, k++] };
      const n = net[exporter]!;
      pairs++;
      pairsOn.set(n, (pairsOn.get(n) ?? 0) + 1);
      const mine = exportsOf.get(exporter);
      if (mine) mine.count++;
      else exportsOf.set(exporter, { count: 1, first: pair });
      if (!firstPair) firstPair = pair;
      else if (!secondPair && net[firstPair.exporter] !== n) secondPair = pair;
    }
  });
  const firstPairOff = (n: string): Pair | undefined =>
    firstPair && net[firstPair.exporter] !== n
      ? firstPair
      : secondPair && net[secondPair.exporter] !== n
        ? secondPair
        : undefined;

  const out: Exchanges[] = [];
  members.forEach((cluster, i) => {
    const n = net[i]!;
    const others = members.length - onNetwork.get(n)!;
    if (others === 0) return;
    const mine = exportsOf.get(i);
    const incoming = pairs - (pairsOn.get(n) ?? 0);
    const count = (mine?.count ?? 0) * others + incoming;
    if (count === 0) return;
    let first: Crossing | undefined;
    let at: Position | undefined;
    if (mine) {
      const partner = firstMemberOff(n)!;
      at = [mine.first.at[0], mine.first.at[1], partner, 0];
      first = { cluster, partner: members[partner]!, service: mine.first.service, exports: true };
    }
    const pair = incoming > 0 ? firstPairOff(n) : undefined;
    if (pair) {
      const pos: Position = [pair.at[0], pair.at[1], i, 1];
      if (!at || before(pos, at)) {
        first = { cluster, partner: members[pair.exporter]!, service: pair.service, exports: false };
      }
    }
    out.push({ first: first!, count });
  });
  out.sort((a, b) => a.first.cluster.index - b.first.cluster.index);
  found.set(m, out);
  return out;
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

export const networkRules: readonly Rule[] = [
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
      for (const [a, b] of overlappingCidrs(
        m,
        (a, b) => a.kind === 'Service' && b.kind === 'Service' && !sameNetwork(a, b),
      )) {
        report(
          b.cidr.path,
          `${describeCidr(b)} overlaps ${describeCidr(a)}`,
          'give clusters on different networks disjoint Service CIDRs',
        );
      }
    },
  ),
  warning(
    'network-service-cidr-overlap-same-network',
    'Members on the same network have disjoint Service CIDRs, unless both use PodIP endpoints.',
    "With ClusterIP endpoints (the default) the imported Endpoints hold the exporters' ClusterIPs, reached " +
      "through the Service CIDR each member announces in its ClusterInfo: where two members' ranges overlap, " +
      'an address is both a local and a remote ClusterIP, and once the same ClusterIP is allocated on both sides, ' +
      'traffic meant for one reaches the other. Antrea accepts it, and nothing goes wrong until two ClusterIPs ' +
      'collide, so it is a warning; with PodIP endpoints on both sides no ClusterIP crosses, and it is harmless.',
    (m, report) => {
      for (const [a, b] of overlappingCidrs(
        m,
        (a, b) =>
          a.kind === 'Service' &&
          b.kind === 'Service' &&
          a.cluster !== b.cluster &&
          sameNetwork(a, b) &&
          (a.cluster.value.endpointIPType !== 'PodIP' || b.cluster.value.endpointIPType !== 'PodIP'),
      )) {
        report(
          b.cidr.path,
          `${describeCidr(b)} overlaps ${describeCidr(a)}: a ClusterIP exported by one can be a ClusterIP of the other`,
          `give ${quote(a.cluster.value.id)} and ${quote(b.cluster.value.id)} disjoint Service CIDRs (the ranges their API servers were created with), or use endpointIPType: "PodIP" on both`,
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
      for (const [a, b] of overlappingCidrs(
        m,
        (a, b) => a.kind === 'Pod' && b.kind === 'Pod' && a.cluster !== b.cluster && sameNetwork(a, b),
      )) {
        report(
          b.cidr.path,
          `${describeCidr(b)} overlaps ${describeCidr(a)}, the same network`,
          'give clusters on the same network disjoint Pod CIDRs',
        );
      }
    },
  ),
  rule(
    'network-pod-service-cidr-overlap',
    "No member's Pod CIDRs overlap another member's Service CIDR, on any network.",
    "Antrea sends traffic for another member's Service CIDR (its ClusterInfo) to that member through the " +
      'gateways: a Pod whose IP falls inside it cannot be reached from across the ClusterSet, and its replies ' +
      'leave for the other cluster. Different networks do not help: the route is by Service CIDR.',
    (m, report) => {
      for (const [a, b] of overlappingCidrs(m, (a, b) => a.kind !== b.kind && a.cluster !== b.cluster)) {
        report(
          b.cidr.path,
          `${describeCidr(b)} overlaps ${describeCidr(a)}`,
          `give ${quote(a.cluster.value.id)} and ${quote(b.cluster.value.id)} disjoint Pod and Service CIDRs`,
        );
      }
    },
  ),
  rule(
    'cluster-pod-service-cidr-overlap',
    "A member's Pod CIDRs do not overlap its own Service CIDR.",
    'Kubernetes allocates ClusterIPs from the Service CIDR and Pod IPs from the Pod CIDRs: where they ' +
      "overlap, a Pod and a Service can get the same IP, and Antrea Proxy takes the Pod's traffic for the " +
      "Service's. The member controller also reports both ranges to every other member as this cluster's.",
    (m, report) => {
      for (const [a, b] of overlappingCidrs(m, (a, b) => a.kind !== b.kind && a.cluster === b.cluster)) {
        report(
          b.cidr.path,
          `${describeOwnCidr(b)} overlaps ${describeOwnCidr(a)} of the same cluster ${quote(b.cluster.value.id)}`,
          'write the CIDRs the cluster was created with (kube-apiserver --service-cluster-ip-range, ' +
            'kube-controller-manager --cluster-cidr): they never overlap',
        );
      }
    },
  ),
  rule(
    'cluster-pod-cidr-overlap',
    "A member's Pod CIDRs do not overlap each other.",
    'Each Pod CIDR is announced to the other members as a range of this cluster: two that overlap are ' +
      'one written twice, or a typo that claims addresses the cluster does not have.',
    (m, report) => {
      for (const [a, b] of overlappingCidrs(
        m,
        (a, b) => a.kind === 'Pod' && b.kind === 'Pod' && a.cluster === b.cluster,
      )) {
        report(
          b.cidr.path,
          `${describeOwnCidr(b)} overlaps ${describeOwnCidr(a)} of the same cluster ${quote(b.cluster.value.id)}`,
          `remove ${b.cidr.path}, or write the range the cluster actually has`,
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
