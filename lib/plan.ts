/**
 * Plan: the pure step between a checked model and rendering. It applies defaults, puts every set
 * the model lists (clusters, members, services, tiers, policies) in a canonical order, and indexes
 * what each cluster needs, so that nothing downstream depends on the order the model was written in.
 *
 * Order that carries meaning is kept as written: the ports of a Service (Antrea compares port lists
 * in order) and the rules and peers of a policy (evaluated in order).
 */
import { cmp } from './diagnostics';
import type {
  ClusterGroupProps,
  ClusterProps,
  ClusterSetProps,
  DeliveryProps,
  EndpointIPType,
  ExternalSecretsProps,
  ExportedServiceProps,
  GatewayProps,
  PolicyProps,
  ReconcilerProps,
  ServicePortProps,
  TakeOverProps,
  TierProps,
} from './model';
import { durationSeconds } from './duration';
import { type Version, parseAntreaVersion } from './antrea-releases';
import {
  DEFAULT_ANTREA_VERSION,
  CLUSTER_PLACEHOLDER,
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_EXTERNAL_SECRETS_REFRESH,
  DEFAULT_EXTERNAL_SECRETS_STORE,
  DEFAULT_FLUX_NAMESPACE,
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  DEFAULT_MEMBER_TOKEN_SECRET,
  DEFAULT_RECONCILER_IMAGE,
  DEFAULT_RECONCILER_REPLICAS,
  DEFAULT_RECONCILER_RESOURCES,
  DEFAULT_RETIRE_MEMBERS_AFTER,
  defaultKubeConfigSecretName,
  deliveryUsers,
  memberIdentityName,
} from './names';

export interface PlannedCluster {
  readonly id: string;
  readonly apiServer: string;
  /** The declared network, or undefined for the default network. */
  readonly network: string | undefined;
  readonly serviceCIDR: string;
  readonly podCIDRs: readonly string[];
  readonly endpointIPType: EndpointIPType;
  readonly gateway: GatewayProps | undefined;
  readonly enableStretchedNetworkPolicy: boolean;
  readonly isLeader: boolean;
  readonly isMember: boolean;
  /** The names of a member's identity, defaults applied; undefined for a cluster that is no member. */
  readonly identity: PlannedMemberIdentity | undefined;
}

/** The names of one member's identity (see MemberIdentityProps), defaults applied. */
export interface PlannedMemberIdentity {
  /** ServiceAccount in the leader namespace the member authenticates as. */
  readonly serviceAccount: string;
  /** RoleBinding in the leader namespace binding it to `antrea-mc-member-cluster-role`. */
  readonly roleBinding: string;
  /** The ServiceAccount's token Secret in the leader namespace. */
  readonly tokenSecret: string;
  /** The token Secret in the member namespace that the member ClusterSet names. */
  readonly memberTokenSecret: string;
}

export interface PlannedPort {
  readonly name?: string;
  readonly port: number;
  readonly protocol: NonNullable<ServicePortProps['protocol']>;
}

export interface PlannedService {
  readonly namespace: string;
  readonly name: string;
  readonly ports: readonly PlannedPort[];
  /** Sorted member IDs. */
  readonly exportedFrom: readonly string[];
}

export interface PlannedPolicy extends PolicyProps {
  readonly kind: 'baseline' | 'stretched';
  /** Sorted IDs of the members that get it (every member for baseline policies). */
  readonly members: readonly string[];
}

/** External Secrets delivery of the token Secret, defaults applied (see ExternalSecretsProps). */
export interface PlannedExternalSecrets {
  readonly storeName: string;
  readonly refreshInterval: string;
  readonly ca:
    { readonly pem: string } | { readonly configMap: { readonly name: string; readonly key: string } };
  readonly auth:
    | { readonly serviceAccount: { readonly name: string; readonly audiences: readonly string[] } }
    | { readonly tokenSecret: { readonly name: string; readonly key: string } };
  /** The template with `{cluster}`; see storeUsername(). */
  readonly leaderUsername: string;
}

/** Argo CD delivery, defaults applied. */
export interface PlannedArgoCd {
  readonly namespace: string;
  /** The AppProject of every Application: `argocd.project`, or the ClusterSet ID when rendered. */
  readonly project: string;
  /** Whether the AppProject is rendered (no `argocd.project` in the model) or exists already. */
  readonly renderProject: boolean;
  readonly destinationBy: 'server' | 'name';
  readonly prune: boolean;
  readonly selfHeal: boolean;
}

/** Flux delivery, defaults applied. */
export interface PlannedFlux {
  readonly namespace: string;
  readonly interval: string;
  readonly gitSecretName: string | undefined;
  /** Per remote cluster ID (every cluster but the management cluster): its kubeconfig Secret. */
  readonly kubeConfigSecrets: ReadonlyMap<string, string>;
  readonly kubeConfigKey: string;
  readonly prune: boolean;
}

/** What clusterset takes over from other owners (TakeOverProps), defaults applied. */
export interface PlannedTakeOver {
  /** Antrea's member controller ConfigMap is rendered into every member bundle. */
  readonly memberControllerConfig: boolean;
  /** Every exported Service's Namespace is rendered into every member bundle. */
  readonly serviceNamespaces: boolean;
}

/** Delivery of the bundles, defaults applied; a tool turned off is undefined. */
export interface PlannedDelivery {
  readonly repoURL: string;
  readonly branch: string;
  /** `out/` inside the repository, without leading `./` or trailing `/`. */
  readonly path: string;
  readonly managementCluster: string;
  readonly argocd: PlannedArgoCd | undefined;
  readonly flux: PlannedFlux | undefined;
}

/** CPU and memory quantities; a resource left out is not set. */
export interface PlannedQuantities {
  readonly cpu?: string;
  readonly memory?: string;
}

/** The reconciler's Deployment settings, defaults applied (see ReconcilerProps). */
export interface PlannedReconciler {
  readonly image: string;
  /** Secrets the kubelet pulls the image with, sorted; empty when the model names none. */
  readonly imagePullSecrets: readonly string[];
  readonly replicas: number;
  readonly retireMembersAfterSeconds: number;
  readonly resources: { readonly requests: PlannedQuantities; readonly limits: PlannedQuantities };
  /** Hold back from leading while Antrea's leader runs (ReconcilerProps.waitForAntreaLeader). */
  readonly waitForAntreaLeader: boolean;
}

export interface Plan {
  readonly clusterSetId: string;
  readonly leaderNamespace: string;
  readonly memberNamespace: string;
  /** [major, minor, patch] */
  readonly antreaVersion: readonly [number, number, number];
  /** Every cluster, sorted by ID. */
  readonly clusters: readonly PlannedCluster[];
  readonly leader: PlannedCluster;
  /** Member clusters, sorted by ID. */
  readonly members: readonly PlannedCluster[];
  /** Services sorted by namespace, then name. */
  readonly services: readonly PlannedService[];
  /** The distinct namespaces of the Services, sorted. */
  readonly serviceNamespaces: readonly string[];
  /** Tiers sorted by name. */
  readonly tiers: readonly TierProps[];
  /** ClusterGroups sorted by name. */
  readonly clusterGroups: readonly ClusterGroupProps[];
  /** Baseline policies sorted by name. */
  readonly baselinePolicies: readonly PlannedPolicy[];
  /** Stretched policies sorted by name. */
  readonly stretchedPolicies: readonly PlannedPolicy[];
  /**
   * The member token Secret of every member whose `memberIdentity` names none; each member's own is
   * its `identity.memberTokenSecret`.
   */
  readonly memberTokenSecretName: string;
  /** Set when members get their token Secret through External Secrets. */
  readonly externalSecrets?: PlannedExternalSecrets;
  /** Sorted. */
  readonly deliveryUsers: readonly string[];
  /** Argo CD and Flux delivery; undefined when the model has no `delivery`. */
  readonly delivery: PlannedDelivery | undefined;
  /** The reconciler in the leader. */
  readonly reconciler: PlannedReconciler;
  /** Objects of other owners that the bundles render. */
  readonly takeOver: PlannedTakeOver;
  /** Per member ID: services it exports (sorted). */
  readonly exportsByMember: ReadonlyMap<string, readonly PlannedService[]>;
  /** Per member ID: stretched policies that target it (sorted by name). */
  readonly stretchedByMember: ReadonlyMap<string, readonly PlannedPolicy[]>;
  /**
   * The model's `uninstall`: members get no bundle (memberBundle), the leader keeps its own until
   * every member has left.
   */
  readonly uninstall: boolean;
}

const byId = (a: { id: string }, b: { id: string }): number => cmp(a.id, b.id);
const byName = (a: { name: string }, b: { name: string }): number => cmp(a.name, b.name);

export function parseVersion(v: string): Version {
  const parsed = parseAntreaVersion(v);
  // The check stage refuses a malformed antreaVersion first (rule antrea-version-format).
  if (!parsed) throw new Error(`antreaVersion "${v}" is not MAJOR.MINOR[.PATCH]`);
  return parsed;
}

/** The names of member `c`'s identity: the model's `memberIdentity`, else the defaults. */
export function planMemberIdentity(c: ClusterProps, memberTokenSecretName: string): PlannedMemberIdentity {
  const x = c.memberIdentity;
  const serviceAccount = x?.serviceAccount ?? memberIdentityName(c.id);
  return {
    serviceAccount,
    roleBinding: x?.roleBinding ?? serviceAccount,
    tokenSecret: x?.tokenSecret ?? serviceAccount,
    memberTokenSecret: x?.memberTokenSecret ?? memberTokenSecretName,
  };
}

function planCluster(
  c: ClusterProps,
  leader: string,
  members: ReadonlySet<string>,
  memberTokenSecretName: string,
): PlannedCluster {
  const isMember = members.has(c.id);
  return {
    id: c.id,
    apiServer: c.apiServer,
    network: c.network,
    serviceCIDR: c.serviceCIDR,
    podCIDRs: [...(c.podCIDRs ?? [])],
    endpointIPType: c.endpointIPType ?? 'ClusterIP',
    gateway: c.gateway,
    enableStretchedNetworkPolicy: c.enableStretchedNetworkPolicy ?? false,
    isLeader: c.id === leader,
    isMember,
    identity: isMember ? planMemberIdentity(c, memberTokenSecretName) : undefined,
  };
}

function planService(s: ExportedServiceProps): PlannedService {
  return {
    namespace: s.namespace,
    name: s.name,
    ports: s.ports.map((p) => ({
      ...(p.name !== undefined ? { name: p.name } : {}),
      port: p.port,
      protocol: p.protocol ?? 'TCP',
    })),
    exportedFrom: [...new Set(s.exportedFrom)].sort(cmp),
  };
}

function planExternalSecrets(x: ExternalSecretsProps): PlannedExternalSecrets {
  const { pem, configMap } = x.leaderCA;
  const { serviceAccount, tokenSecret } = x.auth;
  return {
    storeName: x.storeName ?? DEFAULT_EXTERNAL_SECRETS_STORE,
    refreshInterval: x.refreshInterval ?? DEFAULT_EXTERNAL_SECRETS_REFRESH,
    ca:
      pem !== undefined
        ? { pem }
        : { configMap: { name: configMap?.name ?? '', key: configMap?.key ?? 'ca.crt' } },
    auth: serviceAccount
      ? { serviceAccount: { name: serviceAccount.name, audiences: [...(serviceAccount.audiences ?? [])] } }
      : { tokenSecret: { name: tokenSecret?.name ?? '', key: tokenSecret?.key ?? 'token' } },
    leaderUsername: x.leaderUsername,
  };
}

/**
 * The user name the leader sees for one member's External Secrets store. A member that is the
 * leader itself and authenticates with its own ServiceAccount is known by that ServiceAccount's
 * name; every other member by the model's template, with `{cluster}` replaced.
 */
export function storeUsername(p: Plan, member: PlannedCluster): string {
  const x = p.externalSecrets;
  if (!x) throw new Error('the model does not use External Secrets');
  if (member.isLeader && 'serviceAccount' in x.auth) {
    return `system:serviceaccount:${p.memberNamespace}:${x.auth.serviceAccount.name}`;
  }
  return x.leaderUsername.split(CLUSTER_PLACEHOLDER).join(member.id);
}

/** Namespaces every cluster has already; a bundle never owns them. */
const BUILTIN_NAMESPACES: ReadonlySet<string> = new Set([
  'default',
  'kube-node-lease',
  'kube-public',
  'kube-system',
]);

/**
 * The ClusterSet's own Namespaces in a member: its controller namespace when custom (a built-in one
 * exists already), unless it is the leader namespace of a dual-role cluster, which the leader side
 * renders. Always rendered, whatever `takeOver` says.
 */
export function memberOwnNamespaces(plan: Plan, member: PlannedCluster): string[] {
  const ns = plan.memberNamespace;
  return BUILTIN_NAMESPACES.has(ns) || (member.isLeader && ns === plan.leaderNamespace) ? [] : [ns];
}

/**
 * The exported Services' Namespaces a member needs (every member imports every Service), sorted:
 * all but the built-in ones and the ClusterSet's own (the member namespace; the leader namespace in a
 * dual-role cluster). A member bundle renders them with `takeOver.serviceNamespaces`; otherwise they
 * must exist before it applies.
 */
export function serviceNamespacesIn(plan: Plan, member: PlannedCluster): string[] {
  return plan.serviceNamespaces.filter(
    (n) =>
      !BUILTIN_NAMESPACES.has(n) &&
      n !== plan.memberNamespace &&
      !(member.isLeader && n === plan.leaderNamespace),
  );
}

/** `./out/` → `out`: the form both tools' paths are built from. */
function normalisePath(p: string): string {
  return p.replace(/^(\.\/)+/, '').replace(/\/+$/, '') || '.';
}

function planDelivery(
  d: DeliveryProps,
  clusters: readonly PlannedCluster[],
  clusterSetId: string,
): PlannedDelivery {
  const { argocd, flux } = d;
  const remote = clusters
    .filter((c) => (c.isLeader || c.isMember) && c.id !== d.managementCluster)
    .map((c) => c.id);
  return {
    repoURL: d.repoURL,
    branch: d.branch ?? 'main',
    path: normalisePath(d.path ?? 'out'),
    managementCluster: d.managementCluster,
    argocd:
      argocd?.enabled === false
        ? undefined
        : {
            namespace: argocd?.namespace ?? DEFAULT_ARGOCD_NAMESPACE,
            project: argocd?.project ?? clusterSetId,
            renderProject: argocd?.project === undefined,
            destinationBy: argocd?.destinationBy ?? 'server',
            prune: argocd?.prune ?? true,
            selfHeal: argocd?.selfHeal ?? true,
          },
    flux:
      flux?.enabled === false
        ? undefined
        : {
            namespace: flux?.namespace ?? DEFAULT_FLUX_NAMESPACE,
            interval: flux?.interval ?? '5m',
            gitSecretName: flux?.gitSecretName,
            kubeConfigSecrets: new Map(
              remote.map((id) => [id, flux?.kubeConfigSecrets?.[id] ?? defaultKubeConfigSecretName(id)]),
            ),
            kubeConfigKey: flux?.kubeConfigKey ?? 'value',
            prune: flux?.prune ?? true,
          },
  };
}

/** Each quantity the model sets, else its default; a resource with neither is left out. */
function quantities(set: PlannedQuantities | undefined, defaults: PlannedQuantities): PlannedQuantities {
  const cpu = set?.cpu ?? defaults.cpu;
  const memory = set?.memory ?? defaults.memory;
  return { ...(cpu !== undefined ? { cpu } : {}), ...(memory !== undefined ? { memory } : {}) };
}

/**
 * The reconciler settings, per field: what the model sets, else the default. The checks have made
 * sure that `retireMembersAfter` is whole seconds.
 */
export function planReconciler(r: ReconcilerProps | undefined): PlannedReconciler {
  const retire = r?.retireMembersAfter ?? DEFAULT_RETIRE_MEMBERS_AFTER;
  const seconds = durationSeconds(retire);
  if (seconds === undefined) throw new Error(`retireMembersAfter "${retire}" is not whole seconds`);
  return {
    image: r?.image ?? DEFAULT_RECONCILER_IMAGE,
    imagePullSecrets: [...new Set(r?.imagePullSecrets ?? [])].sort(cmp),
    replicas: r?.replicas ?? DEFAULT_RECONCILER_REPLICAS,
    retireMembersAfterSeconds: seconds,
    resources: {
      requests: quantities(r?.resources?.requests, DEFAULT_RECONCILER_RESOURCES.requests),
      limits: quantities(r?.resources?.limits, DEFAULT_RECONCILER_RESOURCES.limits),
    },
    waitForAntreaLeader: r?.waitForAntreaLeader ?? false,
  };
}

function planTakeOver(t: TakeOverProps | undefined): PlannedTakeOver {
  return {
    memberControllerConfig: t?.memberControllerConfig ?? false,
    serviceNamespaces: t?.serviceNamespaces ?? false,
  };
}

/** Builds the plan of a model that passed the checks. */
export function plan(model: ClusterSetProps): Plan {
  const memberIds = new Set(model.members);
  const memberTokenSecretName = model.secrets?.memberTokenSecretName ?? DEFAULT_MEMBER_TOKEN_SECRET;
  const clusters = model.clusters
    .map((c) => planCluster(c, model.leader, memberIds, memberTokenSecretName))
    .sort(byId);
  const leader = clusters.find((c) => c.isLeader);
  if (!leader) throw new Error(`leader "${model.leader}" is not a declared cluster`);
  const members = clusters.filter((c) => c.isMember);
  const allMembers = members.map((m) => m.id);

  const services = (model.services ?? [])
    .map(planService)
    .sort((a, b) => cmp(a.namespace, b.namespace) || cmp(a.name, b.name));
  const baselinePolicies: PlannedPolicy[] = (model.baselinePolicies ?? [])
    .map((p) => ({ ...p, kind: 'baseline' as const, members: allMembers }))
    .sort(byName);
  const stretchedPolicies: PlannedPolicy[] = (model.stretchedPolicies ?? [])
    .map(({ members: targets, ...p }) => ({
      ...p,
      kind: 'stretched' as const,
      members: targets ? [...new Set(targets)].sort(cmp) : allMembers,
    }))
    .sort(byName);

  const exportsByMember = new Map<string, PlannedService[]>(allMembers.map((id) => [id, []]));
  for (const s of services) for (const id of s.exportedFrom) exportsByMember.get(id)?.push(s);
  const stretchedByMember = new Map<string, PlannedPolicy[]>(allMembers.map((id) => [id, []]));
  for (const p of stretchedPolicies) for (const id of p.members) stretchedByMember.get(id)?.push(p);

  return {
    clusterSetId: model.clusterSetId,
    leaderNamespace: model.leaderNamespace ?? DEFAULT_LEADER_NAMESPACE,
    memberNamespace: model.memberNamespace ?? DEFAULT_MEMBER_NAMESPACE,
    antreaVersion: parseVersion(model.antreaVersion ?? DEFAULT_ANTREA_VERSION),
    clusters,
    leader,
    members,
    services,
    serviceNamespaces: [...new Set(services.map((s) => s.namespace))],
    tiers: [...(model.tiers ?? [])].sort(byName),
    clusterGroups: [...(model.clusterGroups ?? [])].sort(byName),
    baselinePolicies,
    stretchedPolicies,
    memberTokenSecretName,
    ...(model.secrets?.externalSecrets
      ? { externalSecrets: planExternalSecrets(model.secrets.externalSecrets) }
      : {}),
    deliveryUsers: [
      ...new Set(
        model.admission?.deliveryUsers ??
          deliveryUsers(
            model.delivery?.argocd?.namespace ?? DEFAULT_ARGOCD_NAMESPACE,
            model.delivery?.flux?.namespace ?? DEFAULT_FLUX_NAMESPACE,
          ),
      ),
    ].sort(cmp),
    delivery: model.delivery ? planDelivery(model.delivery, clusters, model.clusterSetId) : undefined,
    reconciler: planReconciler(model.reconciler),
    takeOver: planTakeOver(model.takeOver),
    exportsByMember,
    stretchedByMember,
    uninstall: model.uninstall ?? false,
  };
}

/**
 * Whether `c` gets a member's bundle (its member ClusterSet, ServiceExports, Tiers, policies): it is
 * a member, and the ClusterSet is not being uninstalled.
 */
export function memberBundle(plan: Plan, c: PlannedCluster): boolean {
  return c.isMember && !plan.uninstall;
}

/** The names of member `m`'s identity; `m` must be a member. */
export function identityOf(m: PlannedCluster): PlannedMemberIdentity {
  if (!m.identity) throw new Error(`cluster "${m.id}" is no member: it has no member identity`);
  return m.identity;
}
