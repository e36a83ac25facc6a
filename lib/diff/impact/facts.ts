/**
 * What one side's out/ tree says in the model's terms, read from its rendered objects alone: the
 * leader, the members (a member's ClusterSet names the Secret holding the leader token), who exports
 * which Service, each cluster's network, the names of each member's identity in the leader (a
 * ServiceAccount annotated with the member's cluster ID, its token Secret and its RoleBinding to
 * Antrea's member Role, found by what they say, not by name) and the clusters whose token comes by
 * External Secrets. Also the small readers of rendered objects the other files share.
 */
import * as yaml from 'js-yaml';
import type { IdentityNames } from '../after-merge';
import { cmp } from '../../diagnostics';
import { CLUSTER_ID_ANNOTATION, MEMBER_ROLE } from '../../names';
import type { DiffObject } from '../tree';
import { bundleOf } from '../tree';

export interface Facts {
  leader?: string;
  /** Cluster ID → its `network.k8s.io` ClusterProperty. */
  networks: Map<string, string>;
  members: Set<string>;
  /** `ns/name` → exporting clusters */
  exports: Map<string, Set<string>>;
  /** Member ID → the names of its identity, read from the leader's bundle and its own ClusterSet. */
  identities: Map<string, IdentityNames>;
  /** Clusters whose bundle holds an ExternalSecret (their token comes by External Secrets). */
  externalSecrets: Set<string>;
}

/** Per bundle: what each member identity object names, before the leader is known. */
interface IdentityObjects {
  /** ServiceAccount name → [cluster ID, namespace] (its `multicluster.antrea.io/cluster-id`). */
  readonly accounts: Map<string, [string, string]>;
  /** ServiceAccount name → its token Secrets (`kubernetes.io/service-account.name`). */
  readonly secrets: Map<string, string[]>;
  /** ServiceAccount name → the RoleBindings binding it to Antrea's member Role. */
  readonly bindings: Map<string, string[]>;
}

function addTo(m: Map<string, string[]>, key: string, value: string): void {
  const xs = m.get(key) ?? [];
  xs.push(value);
  m.set(key, xs);
}

/** What one document says of a member identity, if anything. */
function readIdentityObject(d: Record<string, unknown>, ids: IdentityObjects): void {
  const md = isObj(d.metadata) ? d.metadata : {};
  const name = typeof md.name === 'string' ? md.name : undefined;
  const annotations = isObj(md.annotations) ? md.annotations : {};
  if (name === undefined) return;
  if (d.kind === 'ServiceAccount' && typeof annotations[CLUSTER_ID_ANNOTATION] === 'string')
    ids.accounts.set(name, [annotations[CLUSTER_ID_ANNOTATION], String(md.namespace ?? '')]);
  const sa = annotations[SA_NAME_ANNOTATION];
  if (d.kind === 'Secret' && typeof sa === 'string') addTo(ids.secrets, sa, name);
  if (d.kind === 'RoleBinding' && isObj(d.roleRef) && d.roleRef.name === MEMBER_ROLE)
    for (const s of list(d.subjects))
      if (s.kind === 'ServiceAccount' && typeof s.name === 'string') addTo(ids.bindings, s.name, name);
}

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function list(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** A ServiceExport exactly as emitted: one document, plain DNS names, no other metadata. */
const EMITTED_EXPORT =
  /^apiVersion: multicluster\.x-k8s\.io\/v1alpha1\nkind: ServiceExport\nmetadata:\n {2}name: ([a-z][-a-z0-9]*)\n {2}namespace: ([a-z][-a-z0-9]*)\n$/;

function addExport(facts: Facts, service: string, cluster: string): void {
  const s = facts.exports.get(service) ?? new Set<string>();
  s.add(cluster);
  facts.exports.set(service, s);
}

/** The YAML documents of a file; none when it does not parse. */
export function documents(content: string): unknown[] {
  try {
    return yaml.loadAll(content);
  } catch {
    return [];
  }
}

/**
 * The leader, the members and who exports what, from one side's files. Only files that can hold a
 * ClusterSet or a ServiceExport are parsed (a substring test finds them; emitted YAML puts `kind`
 * on the second line), so this stays cheap on thousands of files.
 */
export function factsOf(files: ReadonlyMap<string, string>): Facts {
  const facts: Facts = {
    members: new Set(),
    exports: new Map(),
    networks: new Map(),
    identities: new Map(),
    externalSecrets: new Set(),
  };
  const identityObjects = new Map<string, IdentityObjects>();
  /** Member ID → [its token Secret, its namespace], as its ClusterSet names it. */
  const tokenSecrets = new Map<string, [string, string]>();
  for (const [file, content] of files) {
    const { cluster } = bundleOf(file);
    if (cluster === undefined) continue;
    if (content.includes('kind: ExternalSecret\n')) facts.externalSecrets.add(cluster);
    // A member identity object of the leader: cheap substring tests first, as for the rest.
    if (
      (content.includes('kind: ServiceAccount\n') && content.includes(CLUSTER_ID_ANNOTATION)) ||
      (content.includes('kind: Secret\n') && content.includes(SA_NAME_ANNOTATION)) ||
      (content.includes('kind: RoleBinding\n') && content.includes(MEMBER_ROLE))
    ) {
      let ids = identityObjects.get(cluster);
      if (!ids) {
        ids = { accounts: new Map(), secrets: new Map(), bindings: new Map() };
        identityObjects.set(cluster, ids);
      }
      for (const d of documents(content)) if (isObj(d)) readIdentityObject(d, ids);
      continue;
    }
    const isClusterSet = content.includes('kind: ClusterSet\n');
    const isExport = content.includes('kind: ServiceExport\n');
    const isNetwork =
      content.includes('kind: ClusterProperty\n') && content.includes('name: network.k8s.io\n');
    if (!isClusterSet && !isExport && !isNetwork) continue;
    // The common case, a ServiceExport as lib/emit.ts writes it, is read without a YAML parser.
    const fast = isExport && !isClusterSet ? EMITTED_EXPORT.exec(content) : null;
    if (fast) {
      addExport(facts, `${fast[2]}/${fast[1]}`, cluster);
      continue;
    }
    for (const d of documents(content)) {
      if (!isObj(d) || !isObj(d.metadata)) continue;
      if (d.kind === 'ClusterSet' && isObj(d.spec)) {
        for (const l of list(d.spec.leaders)) {
          if (typeof l.clusterID === 'string') facts.leader = l.clusterID;
          // Only a member's ClusterSet names the Secret holding the leader token.
          if (l.secret !== undefined) {
            facts.members.add(cluster);
            if (typeof l.secret === 'string')
              tokenSecrets.set(cluster, [l.secret, String(d.metadata.namespace ?? '')]);
          }
        }
      }
      if (d.kind === 'ClusterProperty' && d.metadata.name === 'network.k8s.io' && isObj(d.spec))
        facts.networks.set(cluster, String(d.spec.value));
      if (d.kind === 'ServiceExport')
        addExport(facts, `${String(d.metadata.namespace)}/${String(d.metadata.name)}`, cluster);
    }
  }
  const ids = facts.leader !== undefined ? identityObjects.get(facts.leader) : undefined;
  for (const [sa, [id, namespace]] of ids?.accounts ?? []) {
    const [memberTokenSecret, memberNamespace] = tokenSecrets.get(id) ?? [];
    facts.identities.set(id, {
      serviceAccount: sa,
      roleBinding: ids!.bindings.get(sa)?.[0],
      tokenSecret: ids!.secrets.get(sa)?.[0],
      memberTokenSecret,
      leaderNamespace: namespace,
      memberNamespace,
    });
  }
  return facts;
}

export const sorted = (xs: Iterable<string>): string[] => [...xs].sort(cmp);

/** The annotation that ties a token Secret to its ServiceAccount. */
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';

export function spec(o: DiffObject | undefined): Record<string, unknown> {
  return o && isObj(o.spec) ? o.spec : {};
}
