/**
 * Gateways: the members that start exchanging Services with a member on another network with the
 * change, so need gateway Nodes (the rule `network-gateway-missing`, check/networks.ts), joining
 * members first, with the Nodes the plan names (after-merge/gateways.ts prints the annotate commands).
 */
import type { GatewayChange } from '../after-merge';
import type { Plan } from '../../plan';
import { type Facts, sorted } from './facts';

/**
 * Members that exchange Services with a member on another network, so need gateway Nodes (the
 * rule `network-gateway-missing`, check/networks.ts): it exports something and some member sits on
 * another network, or a member on another network exports something. Mapped to the other networks
 * (`''`: the default network) it exchanges with.
 */
function crossNetworkMembers(f: Facts): Map<string, Set<string>> {
  const net = (c: string): string => f.networks.get(c) ?? '';
  const exporting = new Set<string>();
  for (const cs of f.exports.values()) for (const c of cs) if (f.members.has(c)) exporting.add(c);
  // Per network: whether it has members, and whether one of them exports something.
  const networks = new Map<string, boolean>();
  for (const m of f.members) networks.set(net(m), (networks.get(net(m)) ?? false) || exporting.has(m));
  const out = new Map<string, Set<string>>();
  for (const m of f.members) {
    const peers = new Set<string>();
    for (const [n, exports] of networks) if (n !== net(m) && (exports || exporting.has(m))) peers.add(n);
    if (peers.size > 0) out.set(m, peers);
  }
  return out;
}

/** Members that exchange Services across networks after the change and did not before, new ones first. */
export function gatewayChanges(
  fb: Facts,
  fa: Facts,
  joined: readonly string[],
  afterPlan: Plan | undefined,
): GatewayChange[] {
  const was = crossNetworkMembers(fb);
  const is = crossNetworkMembers(fa);
  const starting = sorted([...is.keys()].filter((m) => !was.has(m)));
  const nodes = new Map((afterPlan?.clusters ?? []).map((c) => [c.id, c.gateway?.nodes]));
  return [...starting.filter((m) => joined.includes(m)), ...starting.filter((m) => !joined.includes(m))].map(
    (m) => {
      const n = nodes.get(m);
      return {
        cluster: m,
        network: fa.networks.get(m),
        peers: sorted(is.get(m)!).map((p) => (p === '' ? undefined : p)),
        existing: !joined.includes(m),
        ...(n !== undefined ? { nodes: n } : {}),
      };
    },
  );
}
