/**
 * The explain report: for each cluster, its role, network and endpoint type, what it exports, what
 * it imports and from where, which policies are in force there in Antrea's evaluation order, and
 * which objects of its bundle are ours and which are shared with another owner (ownership.ts); for
 * the set, a summary and the reachability table. Pure: a function of the plan (and of the bundles
 * it renders).
 *
 * Import facts (antrea-mc.md §c.3): every member imports every exported Service, its own exports
 * included, as Service `antrea-mc-<name>` (plus a ServiceImport `<name>`) in the Service's
 * namespace, with the endpoints of every exporting member: that member's ClusterIP in ClusterIP
 * mode, its Pod IPs in PodIP mode (the exporter's setting decides). Across networks the traffic
 * goes through the Multi-cluster Gateways of both clusters. A leader that is not a member imports
 * nothing and holds no policies.
 */
import { MEMBER_CONFIG_KEY, memberConfigText } from '../antrea-member-config';
import { didYouMean } from '../check/util';
import { cmp } from '../diagnostics';
import type { EndpointIPType } from '../model';
import { MEMBER_CONTROLLER_CONFIG, memberImportName } from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { render, type Bundles } from '../render';
import { imageEntry, type ImageEntry } from './image';
import { clusterOwnership, type ClusterOwnership } from './ownership';
import {
  antreaSettings,
  deliveryPrerequisites,
  serviceNamespaces,
  type AntreaSetting,
  type DeliveryPrerequisite,
  type ServiceNamespacesEntry,
} from './prerequisites';
import { describeAppliedTo, policiesIn } from './policies';
import { portLabel, reachability, tableNamespaces, type Reachability } from './reachability';

/** The role of a cluster in the set. */
export type Role = 'leader' | 'member' | 'leader+member' | 'unused';

/** One Service a cluster exports. */
export interface ExportEntry {
  readonly service: string;
  readonly ports: readonly string[];
  /** The members that import it from this cluster (every member, this one included). */
  readonly importedBy: readonly string[];
}

/** One exporter behind an imported Service. */
export interface ImportSource {
  readonly cluster: string;
  /** What the exporter publishes as endpoints. */
  readonly endpoints: EndpointIPType;
  /** `local` (its own export), `same network`, or `via gateways` (different networks). */
  readonly path: 'local' | 'same network' | 'via gateways';
}

/** One Service a cluster imports. */
export interface ImportEntry {
  readonly service: string;
  /** `ns/antrea-mc-<name>`: the Service Antrea creates in the member. */
  readonly importedAs: string;
  readonly ports: readonly string[];
  readonly from: readonly ImportSource[];
}

/** One policy in force in a cluster, in evaluation order. */
export interface PolicyEntry {
  readonly name: string;
  /** The ClusterNetworkPolicy in the member (`antrea-mc-<name>` for baseline policies). */
  readonly object: string;
  readonly kind: 'baseline' | 'stretched';
  readonly tier: string;
  readonly tierPriority: number;
  readonly priority: number;
  readonly appliesTo: string;
  readonly ingressRules: readonly string[];
  readonly egressRules: readonly string[];
  /** Policies with the same Tier and priority: Antrea's order among them is undefined. */
  readonly tiedWith: readonly string[];
}

/**
 * Antrea's member controller settings in a member: where they live, who renders them, and the exact
 * file. Taken over (`takeOver.memberControllerConfig`), the member's bundle renders it; otherwise
 * Antrea's install must ship this text.
 */
export interface MemberControllerConfigEntry {
  /** `<member namespace>/antrea-mc-controller-config` */
  readonly configMap: string;
  /** `controller_manager_config.yaml` */
  readonly key: string;
  readonly renderedBy: 'clusterset' | 'antrea-install';
  /** The file, as the ConfigMap must hold it. */
  readonly content: string;
}

export type { ServiceNamespacesEntry } from './prerequisites';

/** Everything about one cluster. */
export interface ClusterReport {
  readonly id: string;
  readonly role: Role;
  /** The declared network, or null for the default network. */
  readonly network: string | null;
  readonly endpointIPType: EndpointIPType;
  readonly stretchedNetworkPolicy: boolean;
  readonly gatewayNodes: readonly string[];
  readonly exports: readonly ExportEntry[];
  readonly imports: readonly ImportEntry[];
  readonly policies: readonly PolicyEntry[];
  /**
   * What Antrea's agent, controller and member controller must have enabled there for the model's
   * features (prerequisites.ts); empty for a leader that is not a member and for a plain member.
   */
  readonly antrea: readonly AntreaSetting[];
  /** Members only (null otherwise). */
  readonly memberControllerConfig: MemberControllerConfigEntry | null;
  /** Members only (null otherwise). */
  readonly serviceNamespaces: ServiceNamespacesEntry | null;
  /** What of its bundle is ours and what is shared with another owner; null: it has no bundle. */
  readonly ownership: ClusterOwnership | null;
  /** The reconciler image where the bundle runs it (image.ts); null where nothing runs it. */
  readonly image: ImageEntry | null;
}

/** Counts over the whole set. */
export interface Summary {
  readonly clusters: number;
  readonly members: number;
  readonly networks: readonly string[];
  readonly services: number;
  /** (Service, exporting member) pairs. */
  readonly exports: number;
  readonly baselinePolicies: number;
  readonly stretchedPolicies: number;
  readonly reachability: { readonly allowed: number; readonly denied: number; readonly depends: number };
}

/** The whole report. */
export interface ExplainReport {
  readonly clusterSetId: string;
  readonly leader: string;
  readonly leaderNamespace: string;
  readonly memberNamespace: string;
  /** Set when the report is about one cluster. */
  readonly cluster: string | null;
  readonly summary: Summary;
  readonly clusters: readonly ClusterReport[];
  /** Namespaces the table shows (`*`: any other). */
  readonly namespaces: readonly string[];
  readonly reachability: readonly Reachability[];
  /** What Argo CD and Flux need that the bundles cannot carry (repository credentials for an ssh origin). */
  readonly delivery: readonly DeliveryPrerequisite[];
  /** What the report does not cover. */
  readonly notes: readonly string[];
}

/** What every report says about its own limits. */
export const NOTES: readonly string[] = [
  'K8s NetworkPolicies are not in the model: "allowed" means allowed by the Antrea-native policies the model declares; a K8s NetworkPolicy can still isolate Pods (it is evaluated after every Tier but baseline).',
  'Pod labels, Namespace labels other than kubernetes.io/metadata.name, the container ports Services target, and source addresses of cross-cluster traffic are not in the model: where they decide, the verdict is "depends" and the condition is spelled out.',
  "A member reaching its own export goes through antrea-mc-<name> to a local endpoint; it is modelled as reaching the Service's Pods in that member.",
];

/** What a report of a ClusterSet being uninstalled (the model's `uninstall`) says first. */
export const UNINSTALL_NOTE =
  "uninstall is set: this is the ClusterSet being removed. No member's bundle is rendered any more (with prune on, Argo CD and Flux then delete what they applied in each member); the leader's bundle stays until every member has left through it. `clusterset diff`'s After merge block lists what comes next, in order.";

function role(c: PlannedCluster): Role {
  if (c.isLeader && c.isMember) return 'leader+member';
  if (c.isLeader) return 'leader';
  return c.isMember ? 'member' : 'unused';
}

function ruleLine(r: { name?: string; action: string }, i: number): string {
  return `${r.name ?? `#${i + 1}`} (${r.action})`;
}

function clusterReport(plan: Plan, c: PlannedCluster, bundles: Bundles): ClusterReport {
  const memberIds = plan.members.map((m) => m.id);
  const exports = (plan.exportsByMember.get(c.id) ?? []).map((s) => ({
    service: `${s.namespace}/${s.name}`,
    ports: s.ports.map(portLabel),
    importedBy: memberIds,
  }));
  const imports = c.isMember
    ? plan.services.map((s) => ({
        service: `${s.namespace}/${s.name}`,
        importedAs: `${s.namespace}/${memberImportName(s.name)}`,
        ports: s.ports.map(portLabel),
        from: s.exportedFrom.map((id) => {
          const e = plan.clusters.find((x) => x.id === id)!;
          const path: ImportSource['path'] =
            e.id === c.id ? 'local' : e.network === c.network ? 'same network' : 'via gateways';
          return { cluster: id, endpoints: e.endpointIPType, path };
        }),
      }))
    : [];
  const policies = policiesIn(plan, c.id).map((p) => ({
    name: p.name,
    object: p.objectName,
    kind: p.kind,
    tier: p.tier,
    tierPriority: p.tierPriority,
    priority: p.priority,
    appliesTo: describeAppliedTo(p.policy),
    ingressRules: (p.policy.ingress ?? []).map(ruleLine),
    egressRules: (p.policy.egress ?? []).map(ruleLine),
    tiedWith: p.tiedWith,
  }));
  return {
    id: c.id,
    role: role(c),
    network: c.network ?? null,
    endpointIPType: c.endpointIPType,
    stretchedNetworkPolicy: c.enableStretchedNetworkPolicy,
    gatewayNodes: (c.gateway?.nodes ?? []).map((n) => n.name).sort(cmp),
    exports,
    imports,
    policies,
    antrea: antreaSettings(plan, c),
    memberControllerConfig: c.isMember
      ? {
          configMap: `${plan.memberNamespace}/${MEMBER_CONTROLLER_CONFIG}`,
          key: MEMBER_CONFIG_KEY,
          renderedBy: plan.takeOver.memberControllerConfig ? 'clusterset' : 'antrea-install',
          content: memberConfigText(c),
        }
      : null,
    serviceNamespaces: serviceNamespaces(plan, c),
    ownership: bundles.has(c.id) ? clusterOwnership(plan.clusterSetId, c.id, bundles.get(c.id)!) : null,
    image: imageEntry(plan, bundles.get(c.id)),
  };
}

/**
 * The report for the whole set, or for one cluster (`cluster`): then only that cluster is
 * described and the table keeps the rows where it is the source or the exporter.
 */
export function explain(plan: Plan, options: { readonly cluster?: string } = {}): ExplainReport {
  if (options.cluster !== undefined && !plan.clusters.some((c) => c.id === options.cluster)) {
    throw new UnknownClusterError(
      options.cluster,
      plan.clusters.map((c) => c.id),
    );
  }
  const table = reachability(plan, options);
  const count = (v: Reachability['verdict']) => table.filter((r) => r.verdict === v).length;
  // The bundles, for what in each is ours (render is as pure as the plan).
  const bundles = render(plan);
  const clusters = plan.clusters
    .filter((c) => options.cluster === undefined || c.id === options.cluster)
    .map((c) => clusterReport(plan, c, bundles));
  return {
    clusterSetId: plan.clusterSetId,
    leader: plan.leader.id,
    leaderNamespace: plan.leaderNamespace,
    memberNamespace: plan.memberNamespace,
    cluster: options.cluster ?? null,
    summary: {
      clusters: plan.clusters.length,
      members: plan.members.length,
      networks: [...new Set(plan.clusters.map((c) => c.network ?? '(default)'))].sort(cmp),
      services: plan.services.length,
      exports: plan.services.reduce((n, s) => n + s.exportedFrom.length, 0),
      baselinePolicies: plan.baselinePolicies.length,
      stretchedPolicies: plan.stretchedPolicies.length,
      reachability: { allowed: count('allowed'), denied: count('denied'), depends: count('depends') },
    },
    clusters,
    namespaces: tableNamespaces(plan),
    reachability: table,
    delivery: deliveryPrerequisites(plan),
    notes: plan.uninstall ? [UNINSTALL_NOTE, ...NOTES] : NOTES,
  };
}

/** `--cluster` names no cluster of the model. */
export class UnknownClusterError extends Error {
  constructor(
    readonly cluster: string,
    readonly known: readonly string[],
  ) {
    super(
      `cluster "${cluster}" is not in the model; the clusters are: ${[...known].sort(cmp).join(', ')}${didYouMean(cluster, known)}`,
    );
    this.name = 'UnknownClusterError';
  }
}
