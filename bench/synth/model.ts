/**
 * Synthetic ClusterSets for the benchmark: `synthetic(clusters, services, options)` builds a model
 * that is valid under the checks, deterministically (no randomness, no clock), so every run of a
 * size compiles the same objects.
 *
 * Shape (the defaults; `options` changes the counts and the policies, see SyntheticOptions):
 * - cluster 0 is the leader (`leader`), clusters 1..n-1 are members (`m-001`, ..., four digits from
 *   1,001 clusters on);
 * - the first half of the clusters sit on network `net-a`, the second half on `net-b`; every cluster
 *   has gateway nodes and ClusterIP endpoints (needed across networks);
 * - cluster i has Service CIDR `10.<i/256>.<i%256>.0/24` and Pod CIDR
 *   `100.<64 + i/64>.<(i%64)*4>.0/22`: disjoint /24s inside 10.0.0.0/8 and disjoint /22s inside
 *   100.64.0.0/10, room for 4,000 clusters (MAX_CLUSTERS) without any overlap;
 * - `services` Services over 10 namespaces, each exported from 2 or 3 consecutive (mod) members
 *   (`exporters`: that many), every fourth one with three named ports;
 * - 3 custom Tiers, 5 baseline policies (Cluster scope only, so members need no stretched feature),
 *   10 stretched policies, each targeting a subset of the members that enable stretched
 *   NetworkPolicy (every other member), with ClusterSet-scope ingress and `toServices` egress.
 *   `richPolicies` gives every policy several rules instead (ingress and egress, several peers of
 *   each kind, port ranges, ClusterGroups): see richBaseline and richStretched.
 */
import type {
  BaselinePolicyProps,
  ClusterGroupProps,
  ClusterProps,
  ClusterSetProps,
  ExportedServiceProps,
  LabelSelectorProps,
  ServicePortProps,
  StretchedPolicyProps,
  TierProps,
} from '../../lib/model';

const NAMESPACES = 10;
const TIERS = 3;
/** ClusterGroups declared (and named by rich policies). */
const CLUSTER_GROUPS = 20;
/**
 * The CIDR scheme has room for 4,096 clusters; 4,000 keeps 100.127.0.0/16 free for a member added
 * outside the scheme (bench/diff).
 */
export const MAX_CLUSTERS = 4000;
export const MAX_SERVICES = 99_999;

export interface SyntheticOptions {
  /** Members each Service is exported from. @default 2 or 3 (every third Service) */
  readonly exporters?: number;
  /** @default 5 */
  readonly baselinePolicies?: number;
  /** @default 10 */
  readonly stretchedPolicies?: number;
  /** Several rules per policy (3 ingress and 4 egress for baseline, 3 and 3 for stretched). */
  readonly richPolicies?: boolean;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function clusterId(i: number, clusters: number): string {
  return i === 0 ? 'leader' : `m-${pad(i, clusters > 1000 ? 4 : 3)}`;
}

function namespaceName(k: number): string {
  return `team-${pad(k % NAMESPACES, 2)}`;
}

function serviceName(k: number): string {
  return `svc-${pad(k, 5)}`;
}

/** Members with index i (1-based cluster index) odd enable stretched NetworkPolicy. */
function stretchedEnabled(i: number): boolean {
  return i % 2 === 1;
}

function cluster(i: number, clusters: number): ClusterProps {
  const id = clusterId(i, clusters);
  return {
    id,
    apiServer: `https://${id}.k8s.bench.example:6443`,
    network: i < Math.ceil(clusters / 2) ? 'net-a' : 'net-b',
    serviceCIDR: `10.${i >> 8}.${i & 255}.0/24`,
    podCIDRs: [`100.${64 + (i >> 6)}.${(i & 63) * 4}.0/22`],
    endpointIPType: 'ClusterIP',
    gateway: { nodes: [{ name: `${id}-gw-0` }, { name: `${id}-gw-1` }] },
    ...(i > 0 && stretchedEnabled(i) ? { enableStretchedNetworkPolicy: true } : {}),
  };
}

function ports(k: number): ServicePortProps[] {
  if (k % 4 === 3) {
    return [
      { name: 'http', port: 80, protocol: 'TCP' },
      { name: 'grpc', port: 9090, protocol: 'TCP' },
      { name: 'metrics', port: 9100 + (k % 100), protocol: 'TCP' },
    ];
  }
  if (k % 7 === 5) return [{ name: 'dns', port: 53, protocol: 'UDP' }];
  return [{ name: 'http', port: 8000 + (k % 1000) }];
}

/**
 * Service k, exported from `exporters` (default 2 or 3) consecutive (mod) members; the stride 7
 * spreads consecutive Services over different members.
 */
function service(
  k: number,
  memberIds: readonly string[],
  exporters: number | undefined,
): ExportedServiceProps {
  const want = exporters ?? (k % 3 === 0 ? 3 : 2);
  const count = Math.min(want, memberIds.length);
  const start = (k * 7) % memberIds.length;
  const exportedFrom = Array.from({ length: count }, (_, j) => memberIds[(start + j) % memberIds.length]!);
  return { namespace: namespaceName(k), name: serviceName(k), ports: ports(k), exportedFrom };
}

function tiers(): TierProps[] {
  return Array.from({ length: TIERS }, (_, t) => ({
    name: `bench-tier-${t}`,
    priority: 200 + t * 10,
    description: `Synthetic tier ${t}`,
  }));
}

const nsSelector = (ns: string): LabelSelectorProps => ({
  matchLabels: { 'kubernetes.io/metadata.name': ns },
});
const app = (name: string): LabelSelectorProps => ({ matchLabels: { app: name } });

/** Half pod selectors, half address blocks: the two kinds of ClusterGroup policies name most. */
function clusterGroups(): ClusterGroupProps[] {
  return Array.from({ length: CLUSTER_GROUPS }, (_, g) =>
    g % 2 === 0
      ? {
          name: `shared-${pad(g, 2)}`,
          podSelector: app(`shared-${g}`),
          namespaceSelector: nsSelector('shared'),
        }
      : { name: `shared-${pad(g, 2)}`, ipBlocks: [{ cidr: `172.20.${g}.0/24` }] },
  );
}

function simpleBaseline(p: number): BaselinePolicyProps {
  return {
    name: `baseline-${p}`,
    tier: p % 2 === 0 ? `bench-tier-${p % TIERS}` : 'platform',
    priority: 10 + p,
    appliedTo: [{ namespaceSelector: nsSelector(namespaceName(p)) }],
    ingress: [
      {
        name: 'allow-same-team',
        action: 'Allow',
        from: [{ namespaceSelector: nsSelector(namespaceName(p)) }],
        ports: [{ port: 8000 + p }, { protocol: 'UDP', port: 53 }],
      },
      { name: 'drop-rest', action: 'Drop', from: [{ namespaceSelector: {} }] },
    ],
    egress: [
      {
        name: 'dns',
        action: 'Allow',
        to: [{ namespaceSelector: nsSelector('kube-system') }],
        ports: [{ protocol: 'UDP', port: 53 }],
      },
    ],
  };
}

/** A baseline policy with several rules: 3 ingress (3, 1 and 1 peers), 4 egress (incl. a group and an FQDN). */
function richBaseline(p: number): BaselinePolicyProps {
  const ns = namespaceName(p);
  return {
    name: `baseline-${p}`,
    tier: p % 2 === 0 ? `bench-tier-${p % TIERS}` : 'platform',
    priority: 10 + (p % 5000),
    appliedTo: [{ podSelector: app(`app-${p % 50}`), namespaceSelector: nsSelector(ns) }],
    ingress: [
      {
        name: 'from-team',
        action: 'Allow',
        from: [
          { namespaceSelector: nsSelector(ns) },
          {
            podSelector: { matchLabels: { role: 'frontend' } },
            namespaceSelector: nsSelector(namespaceName(p + 1)),
          },
          { podSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'edge'] }] } },
        ],
        ports: [{ port: 8000 + (p % 1000) }, { port: 9000, endPort: 9010 }, { protocol: 'UDP', port: 53 }],
      },
      {
        name: 'from-office',
        action: 'Allow',
        from: [{ ipBlock: { cidr: '192.168.0.0/16', except: [`192.168.${p % 256}.0/24`] } }],
        ports: [{ port: 443 }],
      },
      { name: 'drop-rest', action: 'Drop', from: [{ namespaceSelector: {} }] },
    ],
    egress: [
      {
        name: 'dns',
        action: 'Allow',
        to: [
          {
            namespaceSelector: nsSelector('kube-system'),
            podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
          },
        ],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      {
        name: 'to-backends',
        action: 'Allow',
        to: [
          {
            podSelector: { matchLabels: { tier: 'backend' } },
            namespaceSelector: nsSelector(namespaceName(p + 2)),
          },
          { ipBlock: { cidr: `172.16.${p % 256}.0/24` } },
          { group: `shared-${pad(p % CLUSTER_GROUPS, 2)}` },
        ],
        ports: [{ port: 5432 }, { port: 6379 }],
      },
      {
        name: 'to-api',
        action: 'Allow',
        to: [{ fqdn: `api-${p % 100}.bench.example` }],
        ports: [{ port: 443 }],
      },
      { name: 'drop-rest-out', action: 'Drop', to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] },
    ],
  };
}

/** Every (p+2)-th stretched member, starting at p: subsets of different sizes and overlaps. */
function simpleTargets(p: number, stretchedMembers: readonly string[]): string[] {
  const targets = stretchedMembers.filter((_, j) => j % (p + 2) === p % (p + 2));
  return targets.length > 0 ? targets : [stretchedMembers[p % stretchedMembers.length]!];
}

/** Half of the stretched members, alternating by policy: every stretched member is in half the policies. */
function richTargets(p: number, stretchedMembers: readonly string[]): string[] {
  const targets = stretchedMembers.filter((_, j) => (j + p) % 2 === 0);
  return targets.length > 0 ? targets : [stretchedMembers[0]!];
}

/** The `count` Services from the p-th on that are not in namespace `ns`. */
function otherServices(p: number, ns: string, count: number, services: readonly ExportedServiceProps[]) {
  const out: { namespace: string; name: string }[] = [];
  for (let i = 0; i < services.length && out.length < count; i++) {
    const s = services[(p + i) % services.length]!;
    if (s.namespace !== ns) out.push({ namespace: s.namespace, name: s.name });
  }
  return out;
}

function simpleStretched(
  p: number,
  stretchedMembers: readonly string[],
  services: readonly ExportedServiceProps[],
): StretchedPolicyProps {
  const ns = namespaceName(p);
  const toServices = services
    .filter((s) => s.namespace !== ns)
    .slice(p, p + 2)
    .map((s) => ({ namespace: s.namespace, name: s.name }));
  return {
    name: `stretched-${p}`,
    members: simpleTargets(p, stretchedMembers),
    tier: p % 3 === 0 ? `bench-tier-${p % TIERS}` : 'application',
    priority: 100 + p,
    appliedTo: [{ podSelector: app(`app-${p}`), namespaceSelector: nsSelector(ns) }],
    ingress: [
      {
        name: 'from-anywhere-in-set',
        action: 'Allow',
        from: [{ scope: 'ClusterSet', podSelector: app(`client-${p}`), namespaceSelector: nsSelector(ns) }],
        ports: [{ port: 8080 }],
      },
      { name: 'drop-others', action: 'Drop', from: [{ scope: 'ClusterSet', namespaceSelector: {} }] },
    ],
    ...(toServices.length > 0 ? { egress: [{ name: 'to-mc-services', action: 'Allow', toServices }] } : {}),
  };
}

/** A stretched policy with several rules: 3 ingress (ClusterSet and Cluster scope), 3 egress (toServices, peers, a group). */
function richStretched(
  p: number,
  stretchedMembers: readonly string[],
  services: readonly ExportedServiceProps[],
): StretchedPolicyProps {
  const ns = namespaceName(p);
  const toServices = otherServices(p, ns, 3, services);
  return {
    name: `stretched-${p}`,
    members: richTargets(p, stretchedMembers),
    tier: p % 3 === 0 ? `bench-tier-${p % TIERS}` : 'application',
    priority: 100 + (p % 5000),
    appliedTo: [{ podSelector: app(`app-${p % 50}`), namespaceSelector: nsSelector(ns) }],
    ingress: [
      {
        name: 'from-set',
        action: 'Allow',
        from: [
          { scope: 'ClusterSet', podSelector: app(`client-${p % 40}`), namespaceSelector: nsSelector(ns) },
          { scope: 'ClusterSet', namespaceSelector: nsSelector(namespaceName(p + 3)) },
          { podSelector: app('ingress-gateway'), namespaceSelector: nsSelector('ingress') },
        ],
        ports: [{ port: 8080 }, { port: 8443 }, { port: 9000, endPort: 9099 }],
      },
      {
        name: 'from-monitoring',
        action: 'Allow',
        from: [{ namespaceSelector: nsSelector('monitoring') }],
        ports: [{ port: 9100 }],
      },
      { name: 'drop-others', action: 'Drop', from: [{ scope: 'ClusterSet', namespaceSelector: {} }] },
    ],
    egress: [
      ...(toServices.length > 0 ? [{ name: 'to-mc-services', action: 'Allow' as const, toServices }] : []),
      {
        name: 'to-db',
        action: 'Allow',
        to: [
          {
            podSelector: { matchLabels: { tier: 'db' } },
            namespaceSelector: nsSelector(namespaceName(p + 1)),
          },
          { ipBlock: { cidr: `172.17.${p % 256}.0/24` } },
        ],
        ports: [{ port: 5432 }, { port: 3306 }],
      },
      {
        name: 'to-shared',
        action: 'Allow',
        to: [{ group: `shared-${pad((p + 1) % CLUSTER_GROUPS, 2)}` }],
        ports: [{ port: 443 }],
      },
    ],
  };
}

function count(what: string, n: number | undefined, fallback: number, max: number): number {
  const v = n ?? fallback;
  if (!Number.isInteger(v) || v < 0 || v > max)
    throw new Error(`${what} must be an integer from 0 to ${max}, got ${v}`);
  return v;
}

/**
 * A valid synthetic ClusterSet of `clusters` clusters (1 leader + clusters-1 members) and
 * `services` exported Services.
 */
export function synthetic(
  clusters: number,
  services: number,
  options: SyntheticOptions = {},
): ClusterSetProps {
  if (!Number.isInteger(clusters) || clusters < 2 || clusters > MAX_CLUSTERS) {
    throw new Error(`clusters must be an integer from 2 to ${MAX_CLUSTERS}, got ${clusters}`);
  }
  count('services', services, 0, MAX_SERVICES);
  const exporters =
    options.exporters === undefined ? undefined : count('exporters', options.exporters, 0, clusters - 1);
  if (exporters === 0) throw new Error('exporters must be at least 1');
  const baselines = count('baselinePolicies', options.baselinePolicies, 5, 4999);
  const stretched = count('stretchedPolicies', options.stretchedPolicies, 10, 4999);
  const rich = options.richPolicies === true;

  const all = Array.from({ length: clusters }, (_, i) => cluster(i, clusters));
  const memberIds = all.slice(1).map((c) => c.id);
  const stretchedMembers = all
    .slice(1)
    .filter((c) => c.enableStretchedNetworkPolicy)
    .map((c) => c.id);
  const svcs = Array.from({ length: services }, (_, k) => service(k, memberIds, exporters));
  const makeStretched = rich ? richStretched : simpleStretched;
  return {
    clusterSetId: `bench-${clusters}x${services}`,
    antreaVersion: '2.7.0',
    leader: clusterId(0, clusters),
    members: memberIds,
    clusters: all,
    services: svcs,
    tiers: tiers(),
    ...(rich ? { clusterGroups: clusterGroups() } : {}),
    baselinePolicies: Array.from({ length: baselines }, (_, p) =>
      rich ? richBaseline(p) : simpleBaseline(p),
    ),
    stretchedPolicies:
      stretchedMembers.length === 0
        ? []
        : Array.from({ length: stretched }, (_, p) => makeStretched(p, stretchedMembers, svcs)),
  };
}
