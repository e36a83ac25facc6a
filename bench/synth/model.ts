/**
 * Synthetic ClusterSets for the benchmark: `synthetic(clusters, services)` builds a model that is
 * valid under the checks, deterministically (no randomness, no clock), so every run of a size
 * compiles the same objects.
 *
 * Shape:
 * - cluster 0 is the leader (`leader`), clusters 1..n-1 are members (`m-001`, ...);
 * - the first half of the clusters sit on network `net-a`, the second half on `net-b`; every cluster
 *   has gateway nodes and ClusterIP endpoints (needed across networks);
 * - cluster i has Service CIDR `10.<i>.0.0/16` and Pod CIDR `100.<64 + i/4>.<(i%4)*64>.0/18`, i.e.
 *   disjoint /18s inside 100.64.0.0/10: up to 256 clusters without any overlap;
 * - `services` Services over 10 namespaces, each exported from 2 or 3 members (fewer when there are
 *   fewer members), every fourth one with three named ports;
 * - 3 custom Tiers, 5 baseline policies (Cluster scope only, so members need no stretched feature),
 *   10 stretched policies, each targeting a subset of the members that enable stretched
 *   NetworkPolicy (every other member), with ClusterSet-scope ingress and `toServices` egress.
 */
import type {
  BaselinePolicyProps,
  ClusterProps,
  ClusterSetProps,
  ExportedServiceProps,
  ServicePortProps,
  StretchedPolicyProps,
  TierProps,
} from '../../lib/model';

const NAMESPACES = 10;
const TIERS = 3;
const BASELINE_POLICIES = 5;
const STRETCHED_POLICIES = 10;
/** The CIDR scheme below has room for this many clusters. */
export const MAX_CLUSTERS = 256;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function clusterId(i: number): string {
  return i === 0 ? 'leader' : `m-${pad(i, 3)}`;
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
  const id = clusterId(i);
  return {
    id,
    apiServer: `https://${id}.k8s.bench.example:6443`,
    network: i < Math.ceil(clusters / 2) ? 'net-a' : 'net-b',
    serviceCIDR: `10.${i}.0.0/16`,
    podCIDRs: [`100.${64 + Math.floor(i / 4)}.${(i % 4) * 64}.0/18`],
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

/** Services spread over the members: service k is exported from 2 or 3 consecutive (mod) members. */
function service(k: number, memberIds: readonly string[]): ExportedServiceProps {
  const want = k % 3 === 0 ? 3 : 2;
  const count = Math.min(want, memberIds.length);
  // Stride 7 spreads consecutive services over different members; distinct because consecutive.
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

const nsSelector = (ns: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': ns } });

function baselinePolicies(): BaselinePolicyProps[] {
  return Array.from({ length: BASELINE_POLICIES }, (_, p) => ({
    name: `baseline-${p}`,
    tier: p % 2 === 0 ? `bench-tier-${p % TIERS}` : 'platform',
    priority: 10 + p,
    appliedTo: [{ namespaceSelector: nsSelector(namespaceName(p)) }],
    ingress: [
      {
        name: 'allow-same-team',
        action: 'Allow' as const,
        from: [{ namespaceSelector: nsSelector(namespaceName(p)) }],
        ports: [{ port: 8000 + p }, { protocol: 'UDP' as const, port: 53 }],
      },
      { name: 'drop-rest', action: 'Drop' as const, from: [{ namespaceSelector: {} }] },
    ],
    egress: [
      {
        name: 'dns',
        action: 'Allow' as const,
        to: [{ namespaceSelector: nsSelector('kube-system') }],
        ports: [{ protocol: 'UDP' as const, port: 53 }],
      },
    ],
  }));
}

function stretchedPolicies(
  stretchedMembers: readonly string[],
  services: readonly ExportedServiceProps[],
): StretchedPolicyProps[] {
  if (stretchedMembers.length === 0) return [];
  return Array.from({ length: STRETCHED_POLICIES }, (_, p) => {
    // Every (p+2)-th stretched member, starting at p: subsets of different sizes and overlaps.
    const targets = stretchedMembers.filter((_, j) => j % (p + 2) === p % (p + 2));
    const members = targets.length > 0 ? targets : [stretchedMembers[p % stretchedMembers.length]!];
    const ns = namespaceName(p);
    const toServices = services
      .filter((s) => s.namespace !== ns)
      .slice(p, p + 2)
      .map((s) => ({ namespace: s.namespace, name: s.name }));
    return {
      name: `stretched-${p}`,
      members,
      tier: p % 3 === 0 ? `bench-tier-${p % TIERS}` : 'application',
      priority: 100 + p,
      appliedTo: [{ podSelector: { matchLabels: { app: `app-${p}` } }, namespaceSelector: nsSelector(ns) }],
      ingress: [
        {
          name: 'from-anywhere-in-set',
          action: 'Allow' as const,
          from: [
            {
              scope: 'ClusterSet' as const,
              podSelector: { matchLabels: { app: `client-${p}` } },
              namespaceSelector: nsSelector(ns),
            },
          ],
          ports: [{ port: 8080 }],
        },
        {
          name: 'drop-others',
          action: 'Drop' as const,
          from: [{ scope: 'ClusterSet' as const, namespaceSelector: {} }],
        },
      ],
      ...(toServices.length > 0
        ? { egress: [{ name: 'to-mc-services', action: 'Allow' as const, toServices }] }
        : {}),
    };
  });
}

/**
 * A valid synthetic ClusterSet of `clusters` clusters (1 leader + clusters-1 members) and
 * `services` exported Services.
 */
export function synthetic(clusters: number, services: number): ClusterSetProps {
  if (!Number.isInteger(clusters) || clusters < 2 || clusters > MAX_CLUSTERS) {
    throw new Error(`clusters must be an integer from 2 to ${MAX_CLUSTERS}, got ${clusters}`);
  }
  if (!Number.isInteger(services) || services < 0 || services > 99999) {
    throw new Error(`services must be an integer from 0 to 99999, got ${services}`);
  }
  const all = Array.from({ length: clusters }, (_, i) => cluster(i, clusters));
  const memberIds = all.slice(1).map((c) => c.id);
  const stretchedMembers = all
    .slice(1)
    .filter((c) => c.enableStretchedNetworkPolicy)
    .map((c) => c.id);
  const svcs = Array.from({ length: services }, (_, k) => service(k, memberIds));
  return {
    clusterSetId: `bench-${clusters}x${services}`,
    antreaVersion: '2.7.0',
    leader: clusterId(0),
    members: memberIds,
    clusters: all,
    services: svcs,
    tiers: tiers(),
    baselinePolicies: baselinePolicies(),
    stretchedPolicies: stretchedPolicies(stretchedMembers, svcs),
  };
}
