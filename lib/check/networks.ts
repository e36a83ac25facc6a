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
import { type Rule, rule, serviceKey } from './rule';

/** `"prod/web"` for a Service or Service reference with string namespace and name. */

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
  return overlappingPairs(cidrs, (c) => c.range)
    .map(([i, j]): [MemberCidr, MemberCidr] => [cidrs[i]!, cidrs[j]!])
    .filter(
      ([a, b]) =>
        a.cluster !== b.cluster &&
        (networkOf(a.cluster.value) === networkOf(b.cluster.value)) === sameNetwork,
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
