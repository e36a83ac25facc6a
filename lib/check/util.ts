/**
 * Small helpers shared by the schema check and the rules: quoting received values, walking a
 * possibly malformed model with the paths of its elements, finding duplicates and near matches.
 *
 * The rules run even when the schema check failed, so every helper here accepts anything: a list
 * that is missing or not a list is empty, an element that is not an object is skipped.
 */
import type {
  ClusterProps,
  ClusterSetProps,
  EgressRuleProps,
  IngressRuleProps,
  PeerProps,
  PolicyProps,
} from '../model';

/** A value found in the model, with its path (`clusters[2]`) and its index in the input list. */
export interface At<T> {
  readonly value: T;
  readonly path: string;
  readonly index: number;
}

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `x` when it is a string, otherwise undefined. */
export function str(x: unknown): string | undefined {
  return typeof x === 'string' ? x : undefined;
}

/**
 * Every character outside printable ASCII as `\uXXXX`, so that look-alike and invisible characters
 * show as what they are: a Cyrillic "е" in "wеst" reads "w\u0435st".
 */
export function escapeUnusual(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** How a received value is quoted in a message: strings in double quotes, escaped, long values cut. */
export function quote(x: unknown): string {
  if (x === undefined) return 'nothing';
  const s = escapeUnusual(JSON.stringify(x) ?? String(x));
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** A map key as a path shows it: quoted and escaped when it is not a plain identifier, cut when long. */
function pathKey(key: string): string {
  if (key.length <= 60 && /^[A-Za-z_$][\w$]*$/.test(key)) return key;
  if (key.length <= 60) return `[${escapeUnusual(JSON.stringify(key))}]`;
  const head = escapeUnusual(JSON.stringify(key.slice(0, 40)));
  return `[${head.slice(0, -1)}..." (${key.length} characters)]`;
}

/** `"a", "b" and "c"`. */
export function quoteList(xs: readonly unknown[]): string {
  const qs = xs.map(quote);
  return qs.length <= 1 ? (qs[0] ?? '') : `${qs.slice(0, -1).join(', ')} and ${qs[qs.length - 1]}`;
}

/** `path` extended by a map key (`a.b`, `a["x/y"]`) or, in a list, an index (`a[2]`). */
export function joinPath(path: string, key: string, inList = false): string {
  if (inList) return `${path}[${key}]`;
  const k = pathKey(key);
  if (k.startsWith('[')) return `${path}${k}`;
  return path === '' ? k : `${path}.${k}`;
}

/** The object elements of a list, with their paths; anything else yields nothing. */
export function objects<T>(list: readonly T[] | undefined, path: string): At<T>[] {
  const out: At<T>[] = [];
  if (!Array.isArray(list)) return out;
  for (let index = 0; index < list.length; index++) {
    const value: unknown = list[index];
    if (isObject(value)) out.push({ value: value as T, path: `${path}[${index}]`, index });
  }
  return out;
}

/** The string elements of a list, with their paths. */
export function strings(list: readonly string[] | undefined, path: string): At<string>[] {
  const out: At<string>[] = [];
  if (!Array.isArray(list)) return out;
  for (let index = 0; index < list.length; index++) {
    const value: unknown = list[index];
    if (typeof value === 'string') out.push({ value, path: `${path}[${index}]`, index });
  }
  return out;
}

/** Each element whose key was already seen, with the first element that had that key. */
export function duplicates<T>(
  items: readonly At<T>[],
  key: (t: T) => string | undefined,
): { readonly first: At<T>; readonly dup: At<T> }[] {
  const seen = new Map<string, At<T>>();
  const out: { first: At<T>; dup: At<T> }[] = [];
  for (const item of items) {
    const k = key(item.value);
    if (k === undefined) continue;
    const first = seen.get(k);
    if (first) out.push({ first, dup: item });
    else seen.set(k, item);
  }
  return out;
}

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The candidate closest to `s` (same letters ignoring case, or at most 2 edits away), if any. */
export function closest(s: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    if (c === s) continue;
    const score = c.toLowerCase() === s.toLowerCase() ? 0 : editDistance(s.toLowerCase(), c.toLowerCase());
    if (score <= 2 && score < bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

/**
 * The candidate nearest to `s` by edit distance (ignoring case), however far; the first listed on a
 * tie. For messages that name the nearest choice even when no "did you mean" is close enough.
 */
export function nearest(s: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = editDistance(s.toLowerCase(), c.toLowerCase());
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

/**
 * `; did you mean "x"?` when a candidate is close to `s` (closest()), else nothing: the one "did you
 * mean" of every command that takes a cluster ID (token, explain --cluster, status --context-for).
 */
export function didYouMean(s: string, candidates: Iterable<string>): string {
  const c = closest(s, candidates);
  return c === undefined ? '' : `; did you mean ${JSON.stringify(c)}?`;
}

/** `fix`, preceded by `did you mean "x"? If not, ` when a candidate is close to `s`. */
export function orClosest(s: string, candidates: Iterable<string>, fix: string): string {
  const c = closest(s, candidates);
  return c === undefined ? fix : `did you mean ${quote(c)}? If not, ${fix}`;
}

// ---- the model ----

export function clustersOf(m: ClusterSetProps): At<ClusterProps>[] {
  return objects(m.clusters, 'clusters');
}

/** Clusters by ID, first occurrence wins. */
export function clusterById(m: ClusterSetProps): Map<string, At<ClusterProps>> {
  const byId = new Map<string, At<ClusterProps>>();
  for (const c of clustersOf(m)) {
    const id = str(c.value.id);
    if (id !== undefined && !byId.has(id)) byId.set(id, c);
  }
  return byId;
}

/** The member IDs, as listed. */
export function memberIds(m: ClusterSetProps): Set<string> {
  return new Set(strings(m.members, 'members').map((x) => x.value));
}

/**
 * Whether the leader and every member name a declared cluster. Rules that judge who is the leader,
 * a member or delivered stay silent while one does not: leader-unknown and member-unknown report
 * the reference with a "did you mean", and any other finding would be a knock-on of it (the
 * cluster meant would look unused, undelivered or remote).
 */
export function roleReferencesResolve(m: ClusterSetProps): boolean {
  return walkOnce('roleReferencesResolve', m, () => {
    const byId = clusterById(m);
    const leader = str(m.leader);
    if (leader !== undefined && !byId.has(leader)) return false;
    return strings(m.members, 'members').every((x) => byId.has(x.value));
  });
}

/** The clusters that are members, once each, in cluster order. */
export function memberClusters(m: ClusterSetProps): At<ClusterProps>[] {
  const ids = memberIds(m);
  return [...clusterById(m).values()].filter((c) => ids.has(c.value.id));
}

/** The network of a cluster; `''` is the default network. */
export function networkOf(c: ClusterProps): string {
  return str(c.network) ?? '';
}

/** `network "a"` or `the default network`. */
export function networkName(network: string): string {
  return network === '' ? 'the default network' : `network ${quote(network)}`;
}

/** `cluster "east" (clusters[0])`. */
export function clusterName(c: At<ClusterProps>): string {
  return `cluster ${quote(c.value.id)} (${c.path})`;
}

export interface PolicyAt extends At<PolicyProps> {
  readonly kind: 'baseline' | 'stretched';
}

/** Baseline then stretched policies, with their paths. */
let walkCache: WeakMap<object, Map<string, unknown>> | undefined;

/**
 * Runs `f` (every rule over one model) with the walks below computed once per model node instead of
 * once per rule: with thousands of policies, re-walking them in each of some forty rules was most of
 * the check stage. The model is not changed while the rules run; the cache ends with `f`.
 */
export function withWalkCache<T>(f: () => T): T {
  const previous = walkCache;
  walkCache = new WeakMap();
  try {
    return f();
  } finally {
    walkCache = previous;
  }
}

/** `walk()` of `node`, computed once per `withWalkCache` run (every time outside one). */
export function walkOnce<V>(name: string, node: object, walk: () => V): V {
  if (!walkCache) return walk();
  let byName = walkCache.get(node);
  if (!byName) {
    byName = new Map();
    walkCache.set(node, byName);
  }
  if (!byName.has(name)) byName.set(name, walk());
  return byName.get(name) as V;
}

export function policiesOf(m: ClusterSetProps): readonly PolicyAt[] {
  return walkOnce('policiesOf', m, () => [
    ...objects(m.baselinePolicies, 'baselinePolicies').map((p) => ({ ...p, kind: 'baseline' as const })),
    ...objects(m.stretchedPolicies, 'stretchedPolicies').map((p) => ({ ...p, kind: 'stretched' as const })),
  ]);
}

export function ingressOf(p: At<PolicyProps>): At<IngressRuleProps>[] {
  return objects(p.value.ingress, `${p.path}.ingress`);
}

export function egressOf(p: At<PolicyProps>): At<EgressRuleProps>[] {
  return objects(p.value.egress, `${p.path}.egress`);
}

/** The peers of a rule (`from` of ingress rules, `to` of egress rules), with their paths. */
export function peersOf(rule: At<IngressRuleProps>, field: 'from'): At<PeerProps>[];
export function peersOf(rule: At<EgressRuleProps>, field: 'to'): At<PeerProps>[];
export function peersOf(rule: At<IngressRuleProps | EgressRuleProps>, field: 'from' | 'to'): At<PeerProps>[] {
  const list = (rule.value as unknown as Record<string, readonly PeerProps[] | undefined>)[field];
  return objects(list, `${rule.path}.${field}`);
}

/** Whether a list property holds at least one element. */
export function nonEmpty(x: unknown): boolean {
  return Array.isArray(x) && x.length > 0;
}

/** Every rule of a policy, ingress then egress, with its direction. */
export function rulesOf(
  p: At<PolicyProps>,
): readonly ({ readonly direction: 'ingress' | 'egress' } & At<IngressRuleProps | EgressRuleProps>)[] {
  return walkOnce('rulesOf', p, () => [
    ...ingressOf(p).map((r) => ({ ...r, direction: 'ingress' as const })),
    ...egressOf(p).map((r) => ({ ...r, direction: 'egress' as const })),
  ]);
}

/** The peers of any rule (`from` or `to`, by direction), with their paths. */
export function rulePeers(r: {
  readonly direction: 'ingress' | 'egress';
  readonly value: IngressRuleProps | EgressRuleProps;
  readonly path: string;
}): At<PeerProps>[] {
  const field = r.direction === 'ingress' ? 'from' : 'to';
  const list = (r.value as unknown as Record<string, readonly PeerProps[] | undefined>)[field];
  return objects(list, `${r.path}.${field}`);
}

/** The fields of an object that are set (not undefined), in a stable order. */
export function setFields(x: object, fields: readonly string[]): string[] {
  return fields.filter((f) => (x as Record<string, unknown>)[f] !== undefined);
}
