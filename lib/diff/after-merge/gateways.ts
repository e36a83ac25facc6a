/**
 * The gateway Nodes to annotate where a member starts exchanging Services across networks (a new
 * member, or one that stays while a peer on another network comes): no bundle holds them, so the
 * step lists the `kubectl annotate` commands for the Nodes the model names (docs/gateways.md).
 */
import type { GatewayNodeProps } from '../../model';
import { joinAnd } from '../describe';

/** A member that starts exchanging Services across networks, and where its peers are. */
export interface GatewayChange {
  readonly cluster: string;
  /** Its network; undefined: the default network. */
  readonly network: string | undefined;
  /** The other networks it exchanges Services with, sorted (undefined: the default network). */
  readonly peers: readonly (string | undefined)[];
  /** A member of the set before the change (its Nodes may be annotated already). */
  readonly existing: boolean;
  /** The model's gateway Nodes, when the caller knows them (no bundle holds them). */
  readonly nodes?: readonly GatewayNodeProps[];
}

/** A cluster on no declared network has none, or `network.k8s.io: default` once some cluster declares one. */
const networkName = (n: string | undefined): string =>
  n === undefined || n === 'default' ? 'the default network' : `network ${n}`;

/**
 * `kubectl annotate` for the gateway candidates: one command for the Nodes without an IP override,
 * one per Node with one (docs/gateways.md).
 */
function annotateCommands(g: GatewayChange): string {
  const ctx = `kubectl --context <${g.cluster}> annotate node`;
  const flag = 'multicluster.antrea.io/gateway=true';
  const nodes = g.nodes ?? [];
  if (nodes.length === 0) return `\`${ctx} <node> ${flag}\` for each Node the model lists in gateway.nodes`;
  const plain = nodes.filter((n) => n.ip === undefined).map((n) => n.name);
  const commands = [
    ...(plain.length > 0 ? [`${ctx} ${plain.join(' ')} ${flag}`] : []),
    ...nodes
      .filter((n) => n.ip !== undefined)
      .map((n) => `${ctx} ${n.name} ${flag} multicluster.antrea.io/gateway-ip=${n.ip!}`),
  ];
  return joinAnd(commands.map((c) => `\`${c}\``));
}

export function gatewayStep(g: GatewayChange): string {
  const why = `it is on ${networkName(g.network)} and ${g.existing ? 'now exchanges' : 'exchanges'} Services with ${joinAnd(g.peers.map(networkName))}`;
  return `annotate ${g.cluster}'s gateway Nodes${g.existing ? ' unless they already are' : ''} (${why}): ${annotateCommands(g)}`;
}
