/**
 * The Antrea releases the compiler supports, and the release that brought each feature it renders
 * (from Antrea's CHANGELOG and upgrade notes; antrea-mc.md §0). The model's `antreaVersion` names the
 * release the clusters run; rules refuse what that release cannot do, and rendering follows it.
 */

export type Version = readonly [number, number, number];

/** `MAJOR.MINOR[.PATCH]`, with an optional leading `v`. */
export const ANTREA_VERSION_FORMAT = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/;

/** The oldest release supported: Antrea Multi-cluster arrived in 1.5.0. */
export const OLDEST_SUPPORTED: Version = [1, 5, 0];
/**
 * The newest minor release supported (any patch): the vendored CRDs (crds/SOURCES.md) and the
 * admission policies replicating the leader webhooks are those of v2.7.0.
 */
export const NEWEST_SUPPORTED_MINOR: readonly [number, number] = [2, 7];

export interface Feature {
  readonly since: readonly [number, number];
  readonly what: string;
}

/** Features gated by release, in the order they arrived. */
export const FEATURES = {
  multicluster: { since: [1, 5], what: 'Antrea Multi-cluster' },
  policyReplication: {
    since: [1, 6],
    what: 'replicating ClusterNetworkPolicies to members through the leader (baseline policies)',
  },
  nodeAndServiceAccountPeers: {
    since: [1, 6],
    what: 'Node selectors and ServiceAccount selectors in Antrea-native policies',
  },
  stretchedPolicies: {
    since: [1, 10],
    what: 'NetworkPolicy for cross-cluster traffic (scope ClusterSet peers and toServices, stretched policies)',
  },
  l7NetworkPolicy: {
    since: [1, 10],
    what: 'layer 7 NetworkPolicy (l7Protocols)',
  },
  clusterSetV1alpha2: {
    since: [1, 13],
    what: 'ClusterSet v1alpha2 with spec.clusterID (before it, ClusterClaims are rendered)',
  },
  memberIdentity: {
    since: [2, 7],
    what: 'a ServiceAccount per member annotated with its cluster ID (rendered for every release; read from 2.7)',
  },
} as const satisfies Record<string, Feature>;

/** The parsed version, or undefined when it is not `MAJOR.MINOR[.PATCH]`. */
export function parseAntreaVersion(v: string): Version | undefined {
  const m = ANTREA_VERSION_FORMAT.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** Version `v` is at least `major.minor`. */
export function atLeast(v: Version, major: number, minor: number): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

export function hasFeature(v: Version, f: Feature): boolean {
  return atLeast(v, f.since[0], f.since[1]);
}

export function isSupported(v: Version): boolean {
  const [maj, min] = NEWEST_SUPPORTED_MINOR;
  return atLeast(v, OLDEST_SUPPORTED[0], OLDEST_SUPPORTED[1]) && !atLeast(v, maj, min + 1);
}

export function showVersion(v: readonly number[]): string {
  return v.join('.');
}
