/**
 * Model policies → Antrea ClusterNetworkPolicy specs, typed by the generated crd.antrea.io binding.
 * Shared by the replicated (ResourceImport) and the direct (stretched) renderers, so a policy has
 * one spelling wherever it lands. Pure.
 */
import type {
  ClusterNetworkPolicySpec,
  ClusterNetworkPolicySpecAppliedTo,
  ClusterNetworkPolicySpecEgress,
  ClusterNetworkPolicySpecEgressTo,
  ClusterNetworkPolicySpecIngress,
  ClusterNetworkPolicySpecIngressFrom,
  ClusterNetworkPolicySpecIngressPorts,
  ClusterNetworkPolicySpecEgressAction,
  ClusterNetworkPolicySpecEgressPortsProtocol,
  ClusterNetworkPolicySpecEgressToServicesScope,
  ClusterNetworkPolicySpecIngressAction,
  ClusterNetworkPolicySpecIngressFromScope,
  ClusterNetworkPolicySpecIngressPortsProtocol,
} from '../generated/clusternetworkpolicy';
import { toJson_ClusterNetworkPolicySpec } from '../generated/clusternetworkpolicy';
import { cmp } from './diagnostics';
import type {
  AppliedToProps,
  EgressRuleProps,
  IngressRuleProps,
  IPBlockProps,
  L7ProtocolProps,
  LabelSelectorProps,
  NamespacedNameProps,
  PeerProps,
  PolicyPortProps,
  PolicyProps,
  RuleAppliedToProps,
  RuleProps,
} from './model';

type Selector = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: never; values?: string[] }[];
};

export function selector(s: LabelSelectorProps | undefined): Selector | undefined {
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

function namespacedName(n: NamespacedNameProps | undefined): { name: string; namespace: string } | undefined {
  return n ? { name: n.name, namespace: n.namespace } : undefined;
}

export function ipBlock(b: IPBlockProps): { cidr: string; except?: string[] } {
  return { cidr: b.cidr, ...(b.except ? { except: [...b.except] } : {}) };
}

/** appliedTo at rule level (the schema has no nodeSelector there, nor has the model). */
function ruleAppliedTo(a: RuleAppliedToProps) {
  return {
    podSelector: selector(a.podSelector),
    namespaceSelector: selector(a.namespaceSelector),
    group: a.group,
    serviceAccount: namespacedName(a.serviceAccount),
  };
}

function appliedTo(a: AppliedToProps): ClusterNetworkPolicySpecAppliedTo {
  return { ...ruleAppliedTo(a), nodeSelector: selector(a.nodeSelector) };
}

/** Peer fields shared by ingress `from` and egress `to` (the binding types them separately). */
function peerFields(p: PeerProps) {
  return {
    podSelector: selector(p.podSelector),
    namespaceSelector: selector(p.namespaceSelector),
    namespaces: p.namespaces
      ? {
          ...(p.namespaces.match !== undefined ? { match: p.namespaces.match as never } : {}),
          ...(p.namespaces.sameLabels ? { sameLabels: [...p.namespaces.sameLabels] } : {}),
        }
      : undefined,
    ipBlock: p.ipBlock ? ipBlock(p.ipBlock) : undefined,
    group: p.group,
    serviceAccount: namespacedName(p.serviceAccount),
    nodeSelector: selector(p.nodeSelector),
  };
}

// The ACNP schema has `scope` only under ingress `from`, and `fqdn` only under egress `to`; the
// checks refuse the other placements, and they are not rendered.
function from(p: PeerProps): ClusterNetworkPolicySpecIngressFrom {
  return { ...peerFields(p), scope: p.scope as ClusterNetworkPolicySpecIngressFromScope | undefined };
}

function to(p: PeerProps): ClusterNetworkPolicySpecEgressTo {
  return { ...peerFields(p), fqdn: p.fqdn };
}

/** Ports always carry their protocol, so the API server's default never shows up as drift. */
function ports(
  ps: readonly PolicyPortProps[] | undefined,
): ClusterNetworkPolicySpecIngressPorts[] | undefined {
  return ps?.map((p) => ({
    protocol: (p.protocol ?? 'TCP') as ClusterNetworkPolicySpecIngressPortsProtocol,
    port: p.port,
    endPort: p.endPort,
    sourcePort: p.sourcePort,
    sourceEndPort: p.sourceEndPort,
  }));
}

function l7(ps: readonly L7ProtocolProps[] | undefined) {
  return ps?.map((p) => ({
    ...(p.http ? { http: { host: p.http.host, method: p.http.method as never, path: p.http.path } } : {}),
    ...(p.tls ? { tls: { sni: p.tls.sni } } : {}),
  }));
}

/** Fields every rule has, whatever its direction. */
function ruleFields(r: RuleProps) {
  return {
    name: r.name,
    l7Protocols: l7(r.l7Protocols),
    // The binding types each level's selectors apart; the JSON is the same.
    appliedTo: r.appliedTo?.map(ruleAppliedTo) as never,
    enableLogging: r.enableLogging,
    logLabel: r.logLabel,
  };
}

function ingress(r: IngressRuleProps): ClusterNetworkPolicySpecIngress {
  return {
    action: r.action as ClusterNetworkPolicySpecIngressAction,
    ...ruleFields(r),
    from: r.from?.map(from),
    ports: ports(r.ports),
    protocols: r.protocols?.map((p) => ({ icmp: p.icmp, igmp: p.igmp as never })),
  };
}

function egress(r: EgressRuleProps): ClusterNetworkPolicySpecEgress {
  return {
    action: r.action as ClusterNetworkPolicySpecEgressAction,
    ...ruleFields(r),
    to: r.to?.map(to),
    ports: ports(r.ports)?.map((p) => ({
      ...p,
      protocol: p.protocol as unknown as ClusterNetworkPolicySpecEgressPortsProtocol,
    })),
    protocols: r.protocols?.map((p) => ({ icmp: p.icmp, igmp: p.igmp as never })),
    toServices: r.toServices?.map((s) => ({
      name: s.name,
      namespace: s.namespace,
      scope: (s.scope ?? 'ClusterSet') as ClusterNetworkPolicySpecEgressToServicesScope,
    })),
  };
}

/** The ACNP spec of a model policy, typed by the generated binding. */
export function acnpSpec(p: PolicyProps): ClusterNetworkPolicySpec {
  return {
    tier: p.tier,
    priority: p.priority,
    appliedTo: p.appliedTo?.map(appliedTo),
    ingress: p.ingress?.map(ingress),
    egress: p.egress?.map(egress),
  };
}

/** The same spec as plain JSON (for ResourceImport payloads and comparisons). */
export function acnpSpecJson(p: PolicyProps): Record<string, unknown> {
  return toJson_ClusterNetworkPolicySpec(acnpSpec(p)) as Record<string, unknown>;
}

/** The ClusterGroup names a policy refers to (appliedTo and peers, at every level), sorted, once each. */
export function groupsOf(p: PolicyProps): string[] {
  const names = new Set<string>();
  const add = (g: string | undefined) => void (g !== undefined && names.add(g));
  for (const a of p.appliedTo ?? []) add(a.group);
  for (const r of [...(p.ingress ?? []), ...(p.egress ?? [])]) {
    for (const a of r.appliedTo ?? []) add(a.group);
  }
  for (const r of p.ingress ?? []) for (const peer of r.from ?? []) add(peer.group);
  for (const r of p.egress ?? []) for (const peer of r.to ?? []) add(peer.group);
  return [...names].sort(cmp);
}
