/**
 * Reachability: which Namespaces of which member may reach which exported Service in which
 * exporting cluster, given the policies of the model. Pure; computed from the plan alone.
 *
 * The flow from Namespace `n` of member `c` to port `p` of Service `ns/name` exported by `e` goes
 * through `antrea-mc-<name>` in `c` (every member imports every exported Service, its own included,
 * antrea-mc.md §c.3) to an endpoint in `e`. It must pass:
 * - the egress rules in force in `c` on the calling Pods, and
 * - the ingress rules in force in `e` on the Pods behind the Service.
 *
 * Each side is evaluated as Antrea does: Tiers by priority, policies by priority, rules in order;
 * the first matching Allow, Drop or Reject decides; Pass skips the remaining Tiers down to K8s
 * NetworkPolicies and then the `baseline` Tier; no match means allowed. K8s NetworkPolicies are not
 * in the model: "allowed" always means "allowed by the Antrea-native policies of the model".
 *
 * What the model cannot know becomes an open question (an {@link Atom}), never a guess:
 * - Pod labels (any non-empty podSelector), Namespace labels other than `kubernetes.io/metadata.name`;
 * - the container port a Service port targets (ingress rules, and egress rules where the endpoint
 *   is a Pod: PodIP mode, or the member's own export), as the model only declares Service ports;
 * - source addresses of cross-cluster traffic (ingress ipBlocks), and addresses not covered by the
 *   declared CIDRs;
 * - how `e` classifies traffic from a member that does not enable stretched NetworkPolicy (its
 *   Pods carry no label identity) against ClusterSet-scope peers;
 * - the order of policies with the same Tier and priority, which Antrea leaves undefined;
 * - ClusterGroup membership, ServiceAccounts of Pods, Node addresses, what FQDNs resolve to,
 *   Namespace labels compared by `sameLabels`, named and source ports, and whether requests match
 *   a rule's layer 7 criteria (a matching L7 rule allows or drops, and ends the evaluation).
 * What it does decide:
 * - a `Cluster`-scope peer (the default) selects Pods of its own cluster only, so it never matches
 *   a source in another member; egress `to` selectors never match an endpoint in another member;
 * - `toServices` matches exactly the multi-cluster Services it names;
 * - in ClusterIP mode the port seen by egress rules towards another member is the Service port.
 * A member reaching its own export is modelled as reaching the Service's Pods in that member.
 */
import { cmp } from '../diagnostics';
import { parseIpv4Cidr, rangesOverlap, type Ipv4Range } from '../check/ipv4';
import type {
  EgressRuleProps,
  IngressRuleProps,
  LabelSelectorProps,
  PeerProps,
  PolicyPortProps,
  AppliedToProps,
} from '../model';
import { memberImportName } from '../names';
import type { Plan, PlannedCluster, PlannedPort, PlannedService } from '../plan';
import { decide, type Ask, type Atom, type Decision, type Outcome } from './conditions';
import {
  BASELINE_TIER,
  NAME_LABEL,
  formatSelector,
  namespacesNamedBy,
  policiesIn,
  type AppliedPolicy,
} from './policies';

/** The row for every Namespace the model does not name. */
export const OTHER_NAMESPACE = '*';

/** One port of one Service, from one source Namespace, to one exporting cluster. */
export interface PortReachability {
  readonly port: PlannedPort;
  readonly decision: Decision;
}

/** One cell of the table: all ports of a Service in one exporter, from one source Namespace. */
export interface Reachability {
  /** `ns/name`. */
  readonly service: string;
  readonly exporter: string;
  readonly source: string;
  /** A Namespace name, or {@link OTHER_NAMESPACE}. */
  readonly namespace: string;
  /** `depends` also when ports differ in their definite verdicts. */
  readonly verdict: 'allowed' | 'denied' | 'depends';
  readonly ports: readonly PortReachability[];
}

/** The Namespaces the table shows: Service namespaces and names policies select, then "any other". */
export function tableNamespaces(plan: Plan): string[] {
  const named = new Set([
    ...plan.serviceNamespaces,
    ...namespacesNamedBy([...plan.baselinePolicies, ...plan.stretchedPolicies]),
  ]);
  return [...[...named].sort(cmp), OTHER_NAMESPACE];
}

/** `Service shop/cart port http (8080/TCP)`. */
export function portLabel(p: PlannedPort): string {
  return `${p.name ? `${p.name} ` : ''}${p.port}/${p.protocol}`;
}

/** The whole table, sorted by Service, exporter, source cluster, Namespace ("any other" last). */
export function reachability(plan: Plan, filter?: { readonly cluster?: string }): Reachability[] {
  const namespaces = tableNamespaces(plan);
  const policies = new Map(plan.members.map((m) => [m.id, policiesIn(plan, m.id)]));
  const out: Reachability[] = [];
  for (const service of plan.services) {
    for (const exporterId of service.exportedFrom) {
      const exporter = plan.clusters.find((c) => c.id === exporterId);
      if (!exporter) continue;
      for (const source of plan.members) {
        if (filter?.cluster !== undefined && filter.cluster !== source.id && filter.cluster !== exporter.id)
          continue;
        for (const namespace of namespaces) {
          const flow = { source, namespace, service, exporter };
          const ports = service.ports.map((port) => ({
            port,
            decision: decide((ask) =>
              evaluateFlow(
                { ...flow, port },
                policies.get(source.id) ?? [],
                policies.get(exporter.id) ?? [],
                ask,
              ),
            ),
          }));
          const verdicts = new Set(ports.map((p) => p.decision.verdict));
          const verdict = verdicts.size === 1 ? [...verdicts][0]! : 'depends';
          out.push({
            service: `${service.namespace}/${service.name}`,
            exporter: exporter.id,
            source: source.id,
            namespace,
            verdict,
            ports,
          });
        }
      }
    }
  }
  return out;
}

/** One flow, fully specified. */
export interface Flow {
  readonly source: PlannedCluster;
  readonly namespace: string;
  readonly service: PlannedService;
  readonly port: PlannedPort;
  readonly exporter: PlannedCluster;
}

/** Egress in the source member, then ingress in the exporter; both must allow. */
export function evaluateFlow(
  flow: Flow,
  sourcePolicies: readonly AppliedPolicy[],
  exporterPolicies: readonly AppliedPolicy[],
  ask: Ask,
): Outcome {
  const m = new Matcher(flow, ask);
  const egress = evaluateSide('egress', flow.source.id, sourcePolicies, m, ask);
  if (!egress.allowed) return egress;
  const ingress = evaluateSide('ingress', flow.exporter.id, exporterPolicies, m, ask);
  if (!ingress.allowed) return ingress;
  return { allowed: true, by: `${egress.by}; ${ingress.by}` };
}

function ruleRef(
  direction: 'egress' | 'ingress',
  rule: IngressRuleProps | EgressRuleProps,
  index: number,
  p: AppliedPolicy,
  cluster: string,
): string {
  const name = rule.name ?? `#${index + 1}`;
  return `${direction} rule ${name} (${rule.action}) of ${p.kind} policy ${p.name} in ${cluster}`;
}

/** Antrea's order of evaluation on one side; see the module comment. */
function evaluateSide(
  direction: 'egress' | 'ingress',
  cluster: string,
  all: readonly AppliedPolicy[],
  m: Matcher,
  ask: Ask,
): Outcome {
  const rulesOf = (p: AppliedPolicy) => (direction === 'egress' ? p.policy.egress : p.policy.ingress) ?? [];
  const policies = orderTies(
    all.filter((p) => rulesOf(p).length > 0),
    cluster,
    ask,
  );
  const tiers = [
    policies.filter((p) => p.tier !== BASELINE_TIER),
    policies.filter((p) => p.tier === BASELINE_TIER),
  ];
  let passedBy: string | undefined;
  for (const [phase, list] of tiers.entries()) {
    for (const p of list) {
      // appliedTo is either the policy's or each rule's own (the checks refuse both and neither).
      const policyLevel = p.policy.appliedTo;
      if (policyLevel !== undefined && !m.appliesTo(direction, policyLevel)) continue;
      const rules: readonly (IngressRuleProps | EgressRuleProps)[] =
        (direction === 'egress' ? p.policy.egress : p.policy.ingress) ?? [];
      const hit = rules.findIndex(
        (r) =>
          (policyLevel !== undefined || m.appliesTo(direction, r.appliedTo ?? [])) &&
          (direction === 'egress'
            ? m.egressRule(r as EgressRuleProps)
            : m.ingressRule(r as IngressRuleProps)),
      );
      if (hit < 0) continue;
      const rule = rules[hit]!;
      const ref = ruleRef(direction, rule, hit, p, cluster);
      // Traffic a layer 7 rule matches goes to the L7 engine: allowed if the requests match, dropped
      // otherwise, and no later rule is evaluated.
      if (rule.l7Protocols && rule.l7Protocols.length > 0) {
        const { port, exporter, service } = m.flow;
        const ok = m.ask({
          key: `l7:${exporter.id}/${service.namespace}/${service.name}/${port.port}|${ref}`,
          yes: `the requests to ${service.namespace}/${service.name} port ${portLabel(port)} match the layer 7 criteria of ${ref}`,
          no: `the requests to ${service.namespace}/${service.name} port ${portLabel(port)} do not match the layer 7 criteria of ${ref}`,
        });
        return { allowed: ok, by: ref };
      }
      if (rule.action === 'Allow') return { allowed: true, by: ref };
      if (rule.action === 'Drop' || rule.action === 'Reject') return { allowed: false, by: ref };
      if (phase === 1) return { allowed: true, by: `${ref}, in the baseline Tier: nothing left to decide` };
      passedBy = ref;
      break;
    }
  }
  return {
    allowed: true,
    by: passedBy
      ? `${passedBy}, then no baseline rule matches in ${cluster}`
      : `no ${direction} rule matches in ${cluster}`,
  };
}

/**
 * Antrea leaves the order of policies with the same Tier and priority undefined. Each such pair
 * becomes an open question ("Antrea evaluates A before B in east"), and a run of tied policies is
 * ordered by how many of the others it precedes, so every order Antrea might pick is enumerated.
 */
function orderTies(policies: readonly AppliedPolicy[], cluster: string, ask: Ask): AppliedPolicy[] {
  const out: AppliedPolicy[] = [];
  for (let i = 0; i < policies.length;) {
    let j = i + 1;
    const p = policies[i]!;
    while (j < policies.length && policies[j]!.tier === p.tier && policies[j]!.priority === p.priority) j++;
    const run = policies.slice(i, j);
    if (run.length > 1) {
      const wins = new Map(run.map((x) => [x.objectName, 0]));
      for (let a = 0; a < run.length; a++) {
        for (let b = a + 1; b < run.length; b++) {
          const [x, y] = [run[a]!.objectName, run[b]!.objectName];
          const first = ask({
            key: `order:${cluster}|${x}<${y}`,
            yes: `Antrea evaluates ${x} before ${y} in ${cluster} (same Tier and priority)`,
            no: `Antrea evaluates ${y} before ${x} in ${cluster} (same Tier and priority)`,
          });
          const winner = first ? x : y;
          wins.set(winner, wins.get(winner)! + 1);
        }
      }
      run.sort(
        (a, b) => wins.get(b.objectName)! - wins.get(a.objectName)! || cmp(a.objectName, b.objectName),
      );
    }
    out.push(...run);
    i = j;
  }
  return out;
}

const NO_CIDRS: readonly Ipv4Range[] = [];

function ranges(cidrs: readonly string[]): readonly Ipv4Range[] {
  const out = cidrs.map(parseIpv4Cidr);
  return out.every((r) => r !== undefined) ? (out as Ipv4Range[]) : NO_CIDRS;
}

/** Whether every address of `within` lies in `cidr` (true), none does (false), or it is unknown. */
function cidrRelation(cidr: string, within: readonly Ipv4Range[]): boolean | undefined {
  const r = parseIpv4Cidr(cidr);
  if (!r || within.length === 0) return undefined;
  if (within.every((w) => r.first <= w.first && w.last <= r.last)) return true;
  if (within.every((w) => !rangesOverlap(r, w))) return false;
  return undefined;
}

/** Matching for one flow; every open question goes through `ask`. */
class Matcher {
  private readonly local: boolean;
  private readonly svc: string;
  constructor(
    readonly flow: Flow,
    readonly ask: Ask,
  ) {
    this.local = flow.source.id === flow.exporter.id;
    this.svc = `${flow.service.namespace}/${flow.service.name}`;
  }

  private get sourceWhere(): string {
    const { source, namespace } = this.flow;
    return namespace === OTHER_NAMESPACE ? `${source.id} (any other Namespace)` : `${source.id}/${namespace}`;
  }

  /** Does the selector select the calling Pods (egress) or the Service's Pods (ingress)? */
  appliesTo(direction: 'egress' | 'ingress', appliedTo: readonly AppliedToProps[]): boolean {
    return appliedTo.some((a) => {
      // Node policies protect the Nodes' host network, never Pods.
      if (a.nodeSelector) return false;
      const side = direction === 'egress' ? 'source' : 'backend';
      if (a.group !== undefined) return this.groupSelected(a.group, side);
      if (a.serviceAccount) return this.serviceAccountSelected(a.serviceAccount, side);
      return side === 'source'
        ? this.sourceSelected(a.namespaceSelector, a.podSelector)
        : this.backendSelected(a.namespaceSelector, a.podSelector);
    });
  }

  private sideWhere(side: 'source' | 'backend'): { cluster: string; namespace: string; who: string } {
    const { source, namespace, exporter, service } = this.flow;
    return side === 'source'
      ? { cluster: source.id, namespace, who: `the calling Pods in ${this.sourceWhere}` }
      : {
          cluster: exporter.id,
          namespace: service.namespace,
          who: `the Pods behind ${this.svc} in ${exporter.id}`,
        };
  }

  /** ClusterGroup members are resolved by antrea-controller at run time: an open question. */
  private groupSelected(group: string, side: 'source' | 'backend'): boolean {
    const { cluster, namespace, who } = this.sideWhere(side);
    return this.ask({
      key: `group:${cluster}/${namespace}/${side}|${group}`,
      yes: `${who} are in ClusterGroup ${group}`,
      no: `${who} are not in ClusterGroup ${group}`,
    });
  }

  private serviceAccountSelected(
    sa: { readonly namespace: string; readonly name: string },
    side: 'source' | 'backend',
  ): boolean {
    const { cluster, namespace, who } = this.sideWhere(side);
    if (namespace === OTHER_NAMESPACE || sa.namespace !== namespace) return false;
    return this.ask({
      key: `sa:${cluster}/${namespace}/${side}|${sa.name}`,
      yes: `${who} run as ServiceAccount ${sa.namespace}/${sa.name}`,
      no: `${who} do not run as ServiceAccount ${sa.namespace}/${sa.name}`,
    });
  }

  /**
   * A `namespaces` peer: `Self` selects the Namespace of the applied-to Pods (for ingress, the
   * Service's; for egress, the caller's), `sameLabels` the Namespaces whose labels agree.
   */
  private namespacesPeer(peer: PeerProps, side: 'source' | 'backend'): boolean {
    const { namespace, service } = this.flow;
    const ns = peer.namespaces!;
    if (ns.match === 'Self') {
      if (namespace === OTHER_NAMESPACE || namespace !== service.namespace) return false;
    } else {
      const keys = [...(ns.sameLabels ?? [])].join(',');
      const ok = this.ask({
        key: `samelabels:${this.flow.source.id}/${namespace}->${this.flow.exporter.id}/${service.namespace}|${keys}`,
        yes: `the Namespace of the calling Pods in ${this.sourceWhere} has the same ${keys} labels as ${service.namespace} in ${this.flow.exporter.id}`,
        no: `the Namespace of the calling Pods in ${this.sourceWhere} does not have the same ${keys} labels as ${service.namespace} in ${this.flow.exporter.id}`,
      });
      if (!ok) return false;
    }
    const { who } = this.sideWhere(side);
    return this.podsSelected(peer.podSelector, `${side}:${this.flow.source.id}/${namespace}`, who);
  }

  /** A peer whose field this Matcher cannot decide from the model alone. */
  private peerOther(peer: PeerProps, side: 'source' | 'backend'): boolean | undefined {
    if (peer.group !== undefined) return this.groupSelected(peer.group, side);
    if (peer.serviceAccount) return this.serviceAccountSelected(peer.serviceAccount, side);
    if (peer.nodeSelector) {
      const { who } = this.sideWhere(side);
      return this.ask({
        key: `node:${this.flow.source.id}->${this.flow.exporter.id}/${side}|${formatSelector(peer.nodeSelector)}`,
        yes: `${who} are seen with the address of a Node matching ${formatSelector(peer.nodeSelector)}`,
        no: `${who} are not seen with the address of a Node matching ${formatSelector(peer.nodeSelector)}`,
      });
    }
    if (peer.fqdn !== undefined) {
      return this.ask({
        key: `fqdn:${this.flow.exporter.id}/${this.svc}|${peer.fqdn}`,
        yes: `the calling Pods resolve ${peer.fqdn} to the endpoints of ${this.svc} in ${this.flow.exporter.id}`,
        no: `the calling Pods do not resolve ${peer.fqdn} to the endpoints of ${this.svc} in ${this.flow.exporter.id}`,
      });
    }
    return undefined;
  }

  /** Whether the flow's address lies in the ipBlock, `except` taken out; open when unknown. */
  private inIpBlock(
    block: { readonly cidr: string; readonly except?: readonly string[] },
    within: readonly Ipv4Range[],
    atomKey: string,
    what: string,
  ): boolean {
    const inCidr = cidrRelation(block.cidr, within);
    if (inCidr === false) return false;
    const excepts = (block.except ?? []).map((e) => cidrRelation(e, within));
    if (excepts.some((x) => x === true)) return false;
    if (inCidr === true && excepts.every((x) => x === false)) return true;
    const text =
      block.except && block.except.length > 0 ? `${block.cidr} except ${block.except.join(',')}` : block.cidr;
    return this.ask(cidrAtom(atomKey, what, text));
  }

  private sourceSelected(ns: LabelSelectorProps | undefined, pods: LabelSelectorProps | undefined): boolean {
    const { source, namespace } = this.flow;
    return (
      this.namespaceSelected(ns, source.id, namespace) &&
      this.podsSelected(pods, `src:${source.id}/${namespace}`, `the calling Pods in ${this.sourceWhere}`)
    );
  }

  private backendSelected(ns: LabelSelectorProps | undefined, pods: LabelSelectorProps | undefined): boolean {
    const { exporter, service } = this.flow;
    return (
      this.namespaceSelected(ns, exporter.id, service.namespace) &&
      this.podsSelected(
        pods,
        `dst:${exporter.id}/${this.svc}`,
        `the Pods behind ${this.svc} in ${exporter.id}`,
      )
    );
  }

  private namespaceSelected(sel: LabelSelectorProps | undefined, cluster: string, ns: string): boolean {
    if (sel === undefined) return true;
    const other = ns === OTHER_NAMESPACE;
    const unknown: string[] = [];
    for (const [k, v] of Object.entries(sel.matchLabels ?? {}).sort(([a], [b]) => cmp(a, b))) {
      if (k !== NAME_LABEL) unknown.push(`${k}=${v}`);
      else if (other || v !== ns) return false;
    }
    for (const e of sel.matchExpressions ?? []) {
      if (e.key !== NAME_LABEL) {
        unknown.push(formatSelector({ matchExpressions: [e] }));
        continue;
      }
      const listed = !other && (e.values ?? []).includes(ns);
      if (e.operator === 'In' && !listed) return false;
      if (e.operator === 'NotIn' && listed) return false;
      if (e.operator === 'DoesNotExist') return false;
    }
    if (unknown.length === 0) return true;
    const labels = unknown.join(',');
    const who = other ? `the calling Namespace in ${cluster} (any other)` : `Namespace ${ns} in ${cluster}`;
    return this.ask({
      key: `ns:${cluster}/${ns}|${labels}`,
      yes: `${who} matches ${labels}`,
      no: `${who} does not match ${labels}`,
    });
  }

  private podsSelected(sel: LabelSelectorProps | undefined, key: string, who: string): boolean {
    if (sel === undefined) return true;
    const labels = formatSelector(sel);
    if (labels === '{}') return true;
    return this.ask({
      key: `pods:${key}|${labels}`,
      yes: `${who} match ${labels}`,
      no: `${who} do not match ${labels}`,
    });
  }

  ingressRule(r: IngressRuleProps): boolean {
    const from = r.from ?? [];
    return (
      (from.length === 0 || from.some((p) => this.ingressPeer(p))) &&
      this.portsMatch(r.ports, r.protocols, 'ingress')
    );
  }

  private ingressPeer(peer: PeerProps): boolean {
    const { source, exporter } = this.flow;
    if (peer.ipBlock) {
      return this.inIpBlock(
        peer.ipBlock,
        this.local ? ranges(source.podCIDRs) : NO_CIDRS,
        `srcip:${source.id}/${this.flow.namespace}->${exporter.id}`,
        `traffic from ${this.sourceWhere} arrives in ${exporter.id} with a source address`,
      );
    }
    // A ClusterGroup may hold ipBlocks, which match addresses from anywhere.
    if (peer.group !== undefined) return this.groupSelected(peer.group, 'source');
    if ((peer.scope ?? 'Cluster') === 'Cluster') {
      if (!this.local) return false;
    } else if (!this.local && !source.enableStretchedNetworkPolicy) {
      if (!this.ask(noIdentityAtom(source.id, exporter.id))) return false;
    }
    const other = this.peerOther(peer, 'source');
    if (other !== undefined) return other;
    if (peer.namespaces) return this.namespacesPeer(peer, 'source');
    return this.sourceSelected(peer.namespaceSelector, peer.podSelector);
  }

  egressRule(r: EgressRuleProps): boolean {
    const { service, source } = this.flow;
    if (r.toServices && r.toServices.length > 0) {
      return r.toServices.some((s) =>
        (s.scope ?? 'ClusterSet') === 'ClusterSet'
          ? // antrea-controller skips ClusterSet-scope toServices where stretched NetworkPolicy is
            // off (the checks refuse that).
            source.enableStretchedNetworkPolicy &&
            s.namespace === service.namespace &&
            s.name === service.name
          : // A Cluster-scope reference names a Service of the member: the import itself matches.
            s.namespace === service.namespace && s.name === memberImportName(service.name),
      );
    }
    const to = r.to ?? [];
    return (
      (to.length === 0 || to.some((p) => this.egressPeer(p))) &&
      this.portsMatch(r.ports, r.protocols, 'egress')
    );
  }

  private egressPeer(peer: PeerProps): boolean {
    const { exporter } = this.flow;
    if (peer.ipBlock) {
      const endpoints =
        !this.local && exporter.endpointIPType === 'ClusterIP'
          ? ranges([exporter.serviceCIDR])
          : ranges(exporter.podCIDRs);
      return this.inIpBlock(
        peer.ipBlock,
        endpoints,
        `dstip:${exporter.id}/${this.svc}`,
        `the endpoints of ${this.svc} in ${exporter.id} have addresses`,
      );
    }
    if (peer.fqdn !== undefined || peer.group !== undefined) return this.peerOther(peer, 'backend')!;
    // Egress selectors select Pods of the source cluster only; endpoints in another member are
    // addresses there (its ClusterIP or Pod IPs), which no local selector holds.
    if (!this.local) return false;
    const other = this.peerOther(peer, 'backend');
    if (other !== undefined) return other;
    if (peer.namespaces) return this.namespacesPeer(peer, 'backend');
    return this.backendSelected(peer.namespaceSelector, peer.podSelector);
  }

  /** Clients pick their source ports: an open question. */
  private sourcePortAllowed(lo: number, hi: number | undefined): boolean {
    const range = hi === undefined ? `${lo}` : `${lo}-${hi}`;
    return this.ask({
      key: `sport:${this.flow.source.id}/${this.flow.namespace}|${range}`,
      yes: `the calling Pods in ${this.sourceWhere} use a source port in ${range}`,
      no: `the calling Pods in ${this.sourceWhere} do not use a source port in ${range}`,
    });
  }

  private portsMatch(
    ports: readonly PolicyPortProps[] | undefined,
    protocols: readonly unknown[] | undefined,
    direction: 'egress' | 'ingress',
  ): boolean {
    // A rule with only `protocols` (ICMP, IGMP) matches no Service port.
    if (!ports || ports.length === 0) return !protocols || protocols.length === 0;
    const { port, exporter } = this.flow;
    const servicePortSeen = direction === 'egress' && !this.local && exporter.endpointIPType === 'ClusterIP';
    return ports.some((p) => {
      if ((p.protocol ?? 'TCP') !== port.protocol) return false;
      if (p.sourcePort !== undefined && !this.sourcePortAllowed(p.sourcePort, p.sourceEndPort)) return false;
      if (p.port === undefined) return true;
      const what = `port ${portLabel(port)} of ${this.svc} in ${exporter.id}`;
      if (typeof p.port === 'string') {
        // A named port is a container port of the selected Pods: never a remote Service port.
        if (servicePortSeen) return false;
        return this.ask({
          key: `tpn:${exporter.id}/${this.svc}/${port.port}/${port.protocol}|${p.port}`,
          yes: `${what} targets the container port named ${p.port}`,
          no: `${what} does not target the container port named ${p.port}`,
        });
      }
      const lo = p.port;
      const hi = p.endPort ?? p.port;
      if (servicePortSeen) return port.port >= lo && port.port <= hi;
      const range = lo === hi ? `container port ${lo}` : `a container port in ${lo}-${hi}`;
      return this.ask({
        key: `tp:${exporter.id}/${this.svc}/${port.port}/${port.protocol}|${lo}-${hi}`,
        yes: `${what} targets ${range}`,
        no: `${what} does not target ${range}`,
      });
    });
  }
}

function cidrAtom(key: string, what: string, cidr: string): Atom {
  return { key: `${key}|${cidr}`, yes: `${what} in ${cidr}`, no: `${what} outside ${cidr}` };
}

function noIdentityAtom(source: string, exporter: string): Atom {
  const why = `${source} does not enable stretched NetworkPolicy, so its Pods carry no label identity`;
  return {
    key: `noid:${source}->${exporter}`,
    yes: `ClusterSet-scope peers in ${exporter} match traffic from ${source} (${why})`,
    no: `ClusterSet-scope peers in ${exporter} do not match traffic from ${source} (${why})`,
  };
}
