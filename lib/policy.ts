/**
 * Model policies → Antrea ClusterNetworkPolicy specs, typed by the generated crd.antrea.io binding.
 * Shared by the replicated (ResourceImport) and the direct (stretched) renderers, so a policy has
 * one spelling wherever it lands. Pure.
 */
import type {
  ClusterNetworkPolicySpec,
  ClusterNetworkPolicySpecAppliedTo,
  ClusterNetworkPolicySpecEgress,
  ClusterNetworkPolicySpecIngress,
  ClusterNetworkPolicySpecIngressFrom,
  ClusterNetworkPolicySpecIngressPorts,
  ClusterNetworkPolicySpecEgressAction,
  ClusterNetworkPolicySpecEgressPortsProtocol,
  ClusterNetworkPolicySpecIngressAction,
  ClusterNetworkPolicySpecIngressFromScope,
  ClusterNetworkPolicySpecIngressPortsProtocol,
} from '../generated/clusternetworkpolicy';
import {
  ClusterNetworkPolicySpecEgressToServicesScope,
  toJson_ClusterNetworkPolicySpec,
} from '../generated/clusternetworkpolicy';
import type {
  AppliedToProps,
  EgressRuleProps,
  IngressRuleProps,
  LabelSelectorProps,
  PeerProps,
  PolicyPortProps,
  PolicyProps,
} from './model';

type Selector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: never; values?: string[] }[];
};

function selector(s: LabelSelectorProps | undefined): Selector | undefined {
  if (s === undefined) return undefined;
  return {
    ...(s.matchLabels ? { matchLabels: { ...s.matchLabels } } : {}),
    ...(s.matchExpressions
      ? {
          matchExpressions: s.matchExpressions.map((e) => ({
            key: e.key,
            operator: e.operator as never,
            ...(e.values ? { values: [...e.values] } : {}),
          })),
        }
      : {}),
  };
}

function appliedTo(a: AppliedToProps): ClusterNetworkPolicySpecAppliedTo {
  return { podSelector: selector(a.podSelector), namespaceSelector: selector(a.namespaceSelector) };
}

/** Peer fields shared by ingress `from` and egress `to` (the binding types them separately). */
function peerFields(p: PeerProps) {
  return {
    podSelector: selector(p.podSelector),
    namespaceSelector: selector(p.namespaceSelector),
    ipBlock: p.ipBlock ? { cidr: p.ipBlock.cidr } : undefined,
  };
}

function peer(p: PeerProps): ClusterNetworkPolicySpecIngressFrom {
  return { ...peerFields(p), scope: p.scope as ClusterNetworkPolicySpecIngressFromScope | undefined };
}

/** Ports always carry their protocol, so the API server's default never shows up as drift. */
function ports(
  ps: readonly PolicyPortProps[] | undefined,
): ClusterNetworkPolicySpecIngressPorts[] | undefined {
  return ps?.map((p) => ({
    protocol: (p.protocol ?? 'TCP') as ClusterNetworkPolicySpecIngressPortsProtocol,
    port: p.port,
    endPort: p.endPort,
  }));
}

function ingress(r: IngressRuleProps): ClusterNetworkPolicySpecIngress {
  return {
    action: r.action as ClusterNetworkPolicySpecIngressAction,
    name: r.name,
    from: r.from?.map(peer),
    ports: ports(r.ports),
  };
}

function egress(r: EgressRuleProps): ClusterNetworkPolicySpecEgress {
  return {
    action: r.action as ClusterNetworkPolicySpecEgressAction,
    name: r.name,
    // Antrea's schema has no `scope` on egress peers; the checks refuse it, and it is not rendered.
    to: r.to?.map(peerFields),
    ports: ports(r.ports)?.map((p) => ({
      ...p,
      protocol: p.protocol as unknown as ClusterNetworkPolicySpecEgressPortsProtocol,
    })),
    toServices: r.toServices?.map((s) => ({
      name: s.name,
      namespace: s.namespace,
      scope: ClusterNetworkPolicySpecEgressToServicesScope.CLUSTER_SET,
    })),
  };
}

/** The ACNP spec of a model policy, typed by the generated binding. */
export function acnpSpec(p: PolicyProps): ClusterNetworkPolicySpec {
  return {
    tier: p.tier,
    priority: p.priority,
    appliedTo: p.appliedTo.map(appliedTo),
    ingress: p.ingress?.map(ingress),
    egress: p.egress?.map(egress),
  };
}

/** The same spec as plain JSON (for ResourceImport payloads and comparisons). */
export function acnpSpecJson(p: PolicyProps): Record<string, unknown> {
  return toJson_ClusterNetworkPolicySpec(acnpSpec(p)) as Record<string, unknown>;
}
