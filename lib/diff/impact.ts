/**
 * The impact of a change in the model's own terms, derived only from the rendered objects on both
 * sides (so it works for any git revision of out/, without loading the old model): members joining
 * and leaving, Services becoming importable or exported from other members, port changes, baseline
 * and stretched policies with a plain description of whom they admit, Tiers, cluster identity,
 * member controller settings, admission policies and delivery objects.
 *
 * What each object means comes from lib/render/* and lib/names.ts: the leader holds the member
 * identities (a ServiceAccount annotated with the member's cluster ID, its token Secret and its
 * RoleBinding to Antrea's member Role: `member-<id>` unless the model's `memberIdentity` names them
 * otherwise, so they are found by what they say, not by name) and the compiled
 * ResourceImports (`<ns>-<name>-service`, `<policy>-antreaclusternetworkpolicy`) that every member
 * imports; members hold their ClusterSet, controller settings, identity, ServiceExports, Tiers and
 * stretched policies.
 */
import * as yaml from 'js-yaml';
import {
  type AfterMerge,
  type DeliveryFolders,
  type GatewayChange,
  type IdentityNames,
  type IdentityRotation,
  type LeaderSync,
  type Uninstall,
  afterMerge,
  restartJob,
  restartReasons,
} from './after-merge';
import type { Plan } from '../plan';
import { cmp } from '../diagnostics';
import {
  CLUSTER_ID_ANNOTATION,
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_CONTROLLER_DEPLOYMENT,
  MEMBER_RESTART_NAME,
  MEMBER_ROLE,
  memberIdentityName,
  RESTART_JOB_ANNOTATION,
} from '../names';
import { EXPECTED_MEMBER_CONFIG_ANNOTATION } from '../render/member-restart';
import { ARGOCD_SYNC_OPTIONS } from '../render/util';
import { CONFIG_CHECKSUM_ANNOTATION, RECONCILER_CONFIG_NAME, RECONCILER_NAME } from '../render/reconciler';
import {
  countKinds,
  describePolicy,
  describePolicyChange,
  describePortChange,
  describeServicePorts,
  joinAnd,
} from './describe';
import type { BundleDiff, DiffObject, FieldChange, ObjectChange, TreeDiff } from './tree';
import { bundleOf, diffTrees, diffValues } from './tree';
import { count, noun } from '../plural';
import { clipEnd } from './clip';

/** Kinds of impact, in the order the summary lists them. */
export const IMPACT_CATEGORIES = [
  'members',
  'services',
  'exports',
  'baseline-policies',
  'stretched-policies',
  'tiers',
  'identity',
  'member-config',
  'clusterset',
  'admission',
  'namespaces',
  'leader',
  'crds',
  'delivery',
  'other',
] as const;

/** One kind of impact. */
export type ImpactCategory = (typeof IMPACT_CATEGORIES)[number];

/** One line of the summary. */
export interface ImpactItem {
  readonly category: ImpactCategory;
  /** A sentence in the model's terms, naming the clusters it reaches. */
  readonly text: string;
  /** IDs of the clusters whose bundles this item changes, sorted. */
  readonly clusters: readonly string[];
  /**
   * IDs of the clusters the change reaches, as the text names them, sorted: a Service or baseline
   * policy changes only the leader's bundle but reaches every member through its import.
   */
  readonly reaches: readonly string[];
}

/** One exporter of a Service in the export graph. */
export interface ExporterChange {
  readonly cluster: string;
  /** `same`: exported before and after; `added`/`removed`: by this change. */
  readonly change: 'same' | 'added' | 'removed';
}

/** Who exports a Service, before and after, for the picture of the ClusterSet. */
export interface ExportedService {
  /** `namespace/name` */
  readonly service: string;
  readonly exporters: readonly ExporterChange[];
}

/** The whole impact summary. */
export interface Impact {
  /** The leader after the change (before it, when the change removes everything). */
  readonly leader?: string;
  readonly membersBefore: readonly string[];
  readonly membersAfter: readonly string[];
  /** Every cluster with a bundle after the change. */
  readonly clusters: readonly string[];
  /** Cluster IDs whose bundles change, sorted. */
  readonly touched: readonly string[];
  /** Delivery folders (argocd, flux, …) that change, sorted. */
  readonly delivery: readonly string[];
  /** In category order, then by text. */
  readonly items: readonly ImpactItem[];
  /** Every Service exported before or after, sorted, with its exporters. */
  readonly exports: readonly ExportedService[];
  /** Cluster ID → network, from `network.k8s.io` ClusterProperties (after, else before). */
  readonly networks: Readonly<Record<string, string>>;
  /** What the change asks of people once merged (after-merge.ts). */
  readonly afterMerge: AfterMerge;
}

interface Facts {
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

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): Record<string, unknown>[] {
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

/**
 * The leader, the members and who exports what, from one side's files. Only files that can hold a
 * ClusterSet or a ServiceExport are parsed (a substring test finds them; emitted YAML puts `kind`
 * on the second line), so this stays cheap on thousands of files.
 */
/** The YAML documents of a file; none when it does not parse. */
function documents(content: string): unknown[] {
  try {
    return yaml.loadAll(content);
  } catch {
    return [];
  }
}

function factsOf(files: ReadonlyMap<string, string>): Facts {
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

const sorted = (xs: Iterable<string>): string[] => [...xs].sort(cmp);

/** The annotation that ties a token Secret to its ServiceAccount. */
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';

/**
 * Members that exchange Services with a member on another network, so need gateway Nodes (the
 * rule `network-gateway-missing`, check/networks.ts): it exports something and some member sits on
 * another network, or a member on another network exports something. Mapped to the other networks
 * (`''`: the default network) it exchanges with.
 */
function crossNetworkMembers(f: Facts): Map<string, Set<string>> {
  const net = (c: string): string => f.networks.get(c) ?? '';
  const exporting = new Set<string>();
  for (const cs of f.exports.values()) for (const c of cs) if (f.members.has(c)) exporting.add(c);
  // Per network: whether it has members, and whether one of them exports something.
  const networks = new Map<string, boolean>();
  for (const m of f.members) networks.set(net(m), (networks.get(net(m)) ?? false) || exporting.has(m));
  const out = new Map<string, Set<string>>();
  for (const m of f.members) {
    const peers = new Set<string>();
    for (const [n, exports] of networks) if (n !== net(m) && (exports || exporting.has(m))) peers.add(n);
    if (peers.size > 0) out.set(m, peers);
  }
  return out;
}

function sameSet(a: ReadonlySet<string>, b: readonly string[]): boolean {
  return a.size === b.length && b.every((x) => a.has(x));
}

/**
 * `all 4 members`, `east and west`, `12 clusters (a, b, c, d, e and 7 more)`. "both" and "all" only
 * when the clusters are every member of the set after the change, or before it when the set stays
 * the same: two of three members are named, never "both members".
 */
export function phrase(ids: ReadonlySet<string>, memberSets: readonly (readonly string[])[]): string {
  const xs = sorted(ids);
  const [after, before] = memberSets;
  const everyMember =
    (after !== undefined && sameSet(ids, after)) ||
    (before !== undefined && after !== undefined && sameSet(new Set(after), before) && sameSet(ids, before));
  if (xs.length === 2 && everyMember) return 'both members';
  if (xs.length > 1 && everyMember) return `all ${xs.length} members`;
  if (xs.length <= 6) return joinAnd(xs);
  return `${xs.length} clusters (${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more)`;
}

/** `metadata.name` with namespace: `shop/cart`, or just `name` for cluster-scoped objects. */
function objName(c: { namespace?: string; name: string }): string {
  return c.namespace !== undefined ? `${c.namespace}/${c.name}` : c.name;
}

function fmt(v: unknown): string {
  if (v === undefined) return '(none)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return clipEnd(s, 60);
}

/** `a.b: 1 → 2`, `+ x`, `- y` for a few field changes, stripping a common prefix. */
function fieldSummary(fields: readonly FieldChange[], strip = '', max = 3): string {
  const shown = fields.slice(0, max).map((f) => {
    const p = f.path.startsWith(strip) ? f.path.slice(strip.length).replace(/^\./, '') : f.path;
    if (f.op === 'changed') return `${p} ${fmt(f.before)} → ${fmt(f.after)}`;
    if (f.op === 'added') return `${p} + ${fmt(f.after)}`;
    if (f.op === 'removed') return `${p} - ${fmt(f.before)}`;
    return `${p} reordered`;
  });
  return fields.length > max ? `${shown.join('; ')}; and ${fields.length - max} more` : shown.join('; ');
}

/** The settings Antrea's install must hold, as a restart Job (or an earlier partial Deployment) carries them. */
function expectedConfig(o: DiffObject | undefined): string | undefined {
  const a = o?.metadata.annotations;
  const v = isObj(a) ? a[EXPECTED_MEMBER_CONFIG_ANNOTATION] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * The member's restart Job (render/member-restart.ts), described per bundle, and what follows it
 * alone: its access to the ServiceExports of a namespace where the member starts or stops
 * exporting, and the member ClusterSet's naming of the Job (`clusterset/restart-job`).
 */
const isRestartJob = (o: ObjectChange, memberNamespace: string | undefined): boolean =>
  (o.kind === 'Job' && o.name.startsWith(`${MEMBER_RESTART_NAME}-`)) ||
  ((o.kind === 'Role' || o.kind === 'RoleBinding') &&
    o.name === MEMBER_RESTART_NAME &&
    memberNamespace !== undefined &&
    o.namespace !== memberNamespace &&
    o.change !== 'changed') ||
  (o.kind === 'ClusterSet' &&
    o.change === 'changed' &&
    o.fields.length > 0 &&
    o.fields.every((f) => f.path === `metadata.annotations["${RESTART_JOB_ANNOTATION}"]`));

function spec(o: DiffObject | undefined): Record<string, unknown> {
  return o && isObj(o.spec) ? o.spec : {};
}

/** The leader-side identity of a member, in the order the summary names it. */
const IDENTITY_PARTS = ['ServiceAccount', 'RoleBinding', 'token Secret'];

class Accumulator {
  private readonly items = new Map<
    string,
    { category: ImpactCategory; template: string; clusters: Set<string>; reaches: Set<string> }
  >();

  /**
   * Adds an item; items with the same template merge their clusters (`{clusters}` is filled in
   * later). `reaches` defaults to the clusters whose bundles change.
   */
  add(
    category: ImpactCategory,
    template: string,
    clusters: Iterable<string>,
    reaches?: Iterable<string>,
  ): void {
    const key = `${category}\u0000${template}`;
    const item = this.items.get(key) ?? {
      category,
      template,
      clusters: new Set<string>(),
      reaches: new Set<string>(),
    };
    const bundles = [...clusters];
    for (const c of bundles) item.clusters.add(c);
    for (const c of reaches ?? bundles) item.reaches.add(c);
    this.items.set(key, item);
  }

  done(memberSets: readonly (readonly string[])[]): ImpactItem[] {
    const rank = (c: ImpactCategory): number => IMPACT_CATEGORIES.indexOf(c);
    return [...this.items.values()]
      .map((i) => ({
        category: i.category,
        text: i.template.replace('{clusters}', phrase(i.clusters, memberSets)),
        clusters: sorted(i.clusters),
        reaches: sorted(i.reaches),
      }))
      .sort((a, b) => rank(a.category) - rank(b.category) || cmp(a.text, b.text));
  }
}

const verbOf = { added: 'added in', removed: 'removed from', changed: 'changes in' } as const;

/**
 * The impact summary of going from `before` to `after` (relative path → content, as in out/).
 * Pass the tree diff when it is already computed, and the plan of the model `after` was rendered
 * from when there is one: it only names the gateway Nodes to annotate, which no bundle holds.
 */
export function impact(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  diff: TreeDiff = diffTrees(before, after),
  afterPlan?: Plan,
): Impact {
  const fb = factsOf(before);
  const fa = factsOf(after);
  const leader = fa.leader ?? fb.leader;
  const membersBefore = sorted(fb.members);
  const membersAfter = sorted(fa.members);
  const memberSets = [membersAfter, membersBefore];
  const all = (m: readonly string[]): string =>
    m.length === 1
      ? `member ${m[0]}`
      : m.length === 2
        ? `both members (${m.join(', ')})`
        : m.length <= 6
          ? `all ${m.length} members (${m.join(', ')})`
          : `all ${m.length} members`;
  const acc = new Accumulator();
  const explained = new Set<ObjectChange>();

  // Members joining and leaving: their identity in the leader and their own bundle.
  const joined = membersAfter.filter((m) => !fb.members.has(m));
  const left = membersBefore.filter((m) => !fa.members.has(m));
  // Uninstalling (the model's `uninstall`): every member leaves and the leader stays. The checks
  // refuse a ClusterSet without members otherwise, so nothing else leaves out/ in that shape.
  const uninstalling =
    leader !== undefined &&
    membersBefore.length > 0 &&
    membersAfter.length === 0 &&
    diff.clustersAfter.includes(leader);
  if (uninstalling)
    acc.add(
      'members',
      `the ClusterSet is uninstalled: ${all(membersBefore)} ${membersBefore.length > 1 ? 'leave' : 'leaves'}, and the leader ${leader} keeps its bundle until they have left (see After merge)`,
      membersBefore,
    );
  const bundleOfCluster = new Map(diff.bundles.filter((b) => b.cluster).map((b) => [b.cluster!, b]));
  const leaderBundle = leader !== undefined ? bundleOfCluster.get(leader) : undefined;
  for (const [ids, change, word] of [
    [joined, 'added', 'joins'],
    [left, 'removed', 'leaves'],
  ] as const) {
    for (const id of ids) {
      const parts: string[] = [];
      const names = identityNamesOf(change === 'added' ? fa : fb, id);
      const partName: Record<string, string> = {};
      for (const o of leaderBundle?.objects ?? []) {
        if (o.change !== change) continue;
        const part =
          o.kind === 'ServiceAccount' && o.name === names.serviceAccount
            ? 'ServiceAccount'
            : o.kind === 'Secret' && o.name === names.tokenSecret
              ? 'token Secret'
              : o.kind === 'RoleBinding' && o.name === names.roleBinding
                ? 'RoleBinding'
                : undefined;
        if (part === undefined) continue;
        parts.push(part);
        partName[part] = o.name;
        explained.add(o);
      }
      const shown = IDENTITY_PARTS.filter((p) => parts.includes(p));
      const oneName = new Set(shown.map((p) => partName[p])).size === 1;
      const own = bundleOfCluster.get(id);
      const clusters = [id, ...(leader !== undefined && parts.length > 0 ? [leader] : [])];
      const where =
        parts.length > 0
          ? `${change === 'added' ? 'new' : 'removed'} ${oneName ? `${joinAnd(shown)} ${partName[shown[0]!]!}` : joinAnd(shown.map((p) => `${p} ${partName[p]!}`))} in ${leader}`
          : undefined;
      let bundle: string | undefined;
      if (own && own.presence === change) {
        const objs = own.objects;
        const cs = objs.map((o) => o.after ?? o.before).find((o) => o?.kind === 'ClusterSet');
        const secret = list(spec(cs).leaders)
          .map((l) => l.secret)
          .find((s) => typeof s === 'string');
        bundle =
          `${change === 'added' ? 'new' : 'removed'} bundle clusters/${id} (${count(objs.length, 'object')}: ${countKinds(objs)}` +
          (change === 'added' && secret !== undefined ? `; token reference: Secret ${String(secret)})` : ')');
        for (const o of objs)
          if (o.kind !== 'ServiceExport' && o.kind !== 'ClusterNetworkPolicy') explained.add(o);
      } else if (own) {
        bundle = `its ClusterSet ${change === 'added' ? 'now names' : 'no longer names'} a leader token Secret`;
      }
      acc.add('members', `member ${id} ${word}: ${[where, bundle].filter(Boolean).join('; ')}`, clusters);
    }
  }

  // Members that stay while their identity is renamed (memberIdentity): a rotation (after-merge.ts).
  const rotations: IdentityRotation[] = [];
  for (const id of membersAfter) {
    const was = fb.identities.get(id);
    const is = fa.identities.get(id);
    if (!was || !is || !fb.members.has(id) || sameIdentity(was, is)) continue;
    rotations.push({ member: id, before: was, after: is, externalSecrets: fa.externalSecrets.has(id) });
    const parts = (
      [
        ['ServiceAccount', 'serviceAccount'],
        ['RoleBinding', 'roleBinding'],
        ['token Secret', 'tokenSecret'],
      ] as const
    )
      .filter(([, f]) => was[f] !== is[f])
      .map(([what, f]) => `${what} ${was[f] ?? '(none)'} → ${is[f] ?? '(none)'}`);
    if (was.memberTokenSecret !== is.memberTokenSecret)
      parts.push(
        `its token Secret in ${id} ${was.memberTokenSecret ?? '(none)'} → ${is.memberTokenSecret ?? '(none)'}`,
      );
    acc.add(
      'members',
      `member ${id}'s identity is renamed: ${parts.join(', ')} (a rotation: see After merge)`,
      [id, ...(leader !== undefined ? [leader] : [])],
    );
    // The identity objects that come and go with it are that rotation, not separate leader changes.
    const old = [was.serviceAccount, was.roleBinding, was.tokenSecret];
    const now = [is.serviceAccount, is.roleBinding, is.tokenSecret];
    for (const o of leaderBundle?.objects ?? []) {
      const names = o.change === 'removed' ? old : o.change === 'added' ? now : [];
      const i = ['ServiceAccount', 'RoleBinding', 'Secret'].indexOf(o.kind);
      if (i >= 0 && names[i] === o.name) explained.add(o);
    }
  }

  for (const b of diff.bundles) {
    if (b.type === 'delivery') {
      describeDelivery(b, acc);
      continue;
    }
    if (b.type === 'root' || b.cluster === undefined) continue;
    const cluster = b.cluster;
    if (b.presence !== 'both' && !joined.includes(cluster) && !left.includes(cluster)) {
      acc.add(
        'other',
        `bundle clusters/${cluster} ${b.presence} (${count(b.objects.length, 'object')}: ${countKinds(b.objects)})`,
        [cluster],
      );
      for (const o of b.objects)
        if (o.kind !== 'ServiceExport' && o.kind !== 'ClusterNetworkPolicy') explained.add(o);
    }
    describeMemberRestart(b, cluster);
    const memberNamespace = (restartJob(b, 'after') ?? restartJob(b, 'before'))?.namespace;
    for (const o of b.objects) {
      if (explained.has(o) || isRestartJob(o, memberNamespace)) continue;
      describeObject(o, cluster);
    }
    if (b.objects.length === 0 && b.files.length > 0)
      acc.add(
        'other',
        `${b.files.map((f) => f.file).join(', ')} ${noun(b.files.length, 'differs', 'differ')} from what synth writes (edited by hand?)`,
        [cluster],
      );
  }

  function describeObject(o: ObjectChange, cluster: string): void {
    const obj = (o.after ?? o.before)!;
    const s = spec(obj);
    const v = verbOf[o.change];
    if (o.kind === 'ResourceImport' && s.kind === 'ServiceImport') {
      const svc = `${String(s.namespace)}/${String(s.name)}`;
      const ports = (x: DiffObject | undefined) => {
        const si = spec(x).serviceImport;
        return isObj(si) && isObj(si.spec) ? si.spec.ports : undefined;
      };
      if (o.change === 'added')
        acc.add(
          'services',
          `Service ${svc} (${describeServicePorts(ports(o.after))}) becomes importable in ${all(membersAfter)}`,
          [cluster],
          membersAfter,
        );
      else if (o.change === 'removed')
        acc.add(
          'services',
          `Service ${svc} is no longer importable in ${all(membersBefore)}`,
          [cluster],
          membersBefore,
        );
      else {
        const portChanges = describePortChange(ports(o.before), ports(o.after));
        const rest = o.fields.filter((f) => !f.path.startsWith('spec.serviceImport.spec.ports'));
        const what = [...portChanges, ...(rest.length > 0 ? [fieldSummary(rest)] : [])];
        acc.add(
          'services',
          `Service ${svc} changes in ${all(membersAfter)}: ${what.join('; ')}`,
          [cluster],
          membersAfter,
        );
      }
      return;
    }
    if (o.kind === 'ResourceImport' && s.kind === 'AntreaClusterNetworkPolicy') {
      const name = String(s.name ?? o.name);
      const acnp = (x: DiffObject | undefined) => {
        const p = spec(x).clusternetworkpolicy;
        return isObj(p) ? p : {};
      };
      if (o.change === 'added')
        acc.add(
          'baseline-policies',
          `baseline policy ${name} added in ${all(membersAfter)}: ${describePolicy(acnp(o.after))}`,
          [cluster],
          membersAfter,
        );
      else if (o.change === 'removed')
        acc.add(
          'baseline-policies',
          `baseline policy ${name} removed from ${all(membersBefore)}`,
          [cluster],
          membersBefore,
        );
      else {
        const what = describePolicyChange(acnp(o.before), acnp(o.after));
        acc.add(
          'baseline-policies',
          `baseline policy ${name} changes in ${all(membersAfter)}: ${what.length > 0 ? what.join('; ') : fieldSummary(o.fields)}`,
          [cluster],
          membersAfter,
        );
      }
      return;
    }
    if (o.kind === 'ClusterNetworkPolicy' && o.group === 'crd.antrea.io') {
      if (o.change === 'added')
        acc.add(
          'stretched-policies',
          `stretched policy ${o.name} now applies in {clusters}: ${describePolicy(s)}`,
          [cluster],
        );
      else if (o.change === 'removed')
        acc.add('stretched-policies', `stretched policy ${o.name} no longer applies in {clusters}`, [
          cluster,
        ]);
      else {
        const what = describePolicyChange(spec(o.before), spec(o.after));
        for (const w of what.length > 0 ? what : [fieldSummary(o.fields)])
          acc.add('stretched-policies', `stretched policy ${o.name} in {clusters}: ${w}`, [cluster]);
      }
      return;
    }
    if (o.kind === 'ServiceExport') {
      const svc = objName(o);
      if (o.change === 'added')
        acc.add('exports', `Service ${svc} is now exported from {clusters}`, [cluster]);
      else if (o.change === 'removed')
        acc.add('exports', `Service ${svc} is no longer exported from {clusters}`, [cluster]);
      else
        acc.add('exports', `ServiceExport ${svc} changes in {clusters}: ${fieldSummary(o.fields)}`, [
          cluster,
        ]);
      return;
    }
    if (o.kind === 'Tier') {
      const what =
        o.change === 'changed'
          ? `: ${fieldSummary(o.fields, 'spec')}`
          : o.change === 'added'
            ? ` (priority ${String(s.priority)})`
            : '';
      acc.add('tiers', `Tier ${o.name} ${v} {clusters}${what}`, [cluster]);
      return;
    }
    if (o.kind === 'ClusterProperty' || o.kind === 'ClusterClaim') {
      const value = (x: DiffObject | undefined) => (o.kind === 'ClusterClaim' ? x?.value : spec(x).value);
      const what =
        o.change === 'changed'
          ? `${fmt(value(o.before))} → ${fmt(value(o.after))}`
          : o.change === 'added'
            ? `added (${fmt(value(o.after))})`
            : 'removed';
      acc.add(
        'identity',
        `cluster identity: ${o.kind} ${o.name} ${what} ${o.change === 'removed' ? 'from' : 'in'} {clusters}`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'ConfigMap' && o.name === MEMBER_CONTROLLER_CONFIG && o.change !== 'changed') {
      // takeOver.memberControllerConfig turned on or off (a joining or leaving member's bundle is
      // summed up with the member).
      acc.add(
        'member-config',
        o.change === 'added'
          ? `Antrea's member controller ConfigMap ${objName(o)} is now rendered in {clusters}: clusterset takes it over from Antrea's install`
          : `Antrea's member controller ConfigMap ${objName(o)} is no longer rendered in {clusters}: it stays in the cluster (never pruned), and Antrea's install must hold its settings`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'ConfigMap' && o.name === MEMBER_CONTROLLER_CONFIG) {
      const what =
        o.change === 'changed'
          ? `: ${fieldSummary(
              o.fields.map((f) => ({ ...f, path: f.path.replace(/^data\["[^"]*"\]\.?/, '') })),
              '',
              4,
            )}`
          : '';
      acc.add(
        'member-config',
        `member controller settings ${o.change === 'changed' ? 'change in' : v} {clusters}${what}`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'ConfigMap' && o.name === RECONCILER_CONFIG_NAME) {
      const keys = sorted(
        new Set(o.fields.map((f) => f.path.replace(/^data\["[^"]*"\]\.?/, '').split(/[.[]/)[0]!)),
      );
      acc.add(
        'leader',
        `reconciler config ${v} {clusters}${o.change === 'changed' ? ` (${keys.join(', ')}); its Pods restart` : ''}`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'Deployment' && o.name === RECONCILER_NAME && cluster === leader) {
      // A config change rolls the Pods through the checksum annotation: the config line says so.
      const checksum = `spec.template.metadata.annotations["${CONFIG_CHECKSUM_ANNOTATION}"]`;
      const rest = o.fields.filter((f) => f.path !== checksum);
      if (o.change === 'changed' && rest.length === 0) return;
      acc.add(
        'leader',
        `reconciler Deployment ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(rest)}` : ''}`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'ClusterSet') {
      const isMember = list(spec(obj).leaders).some((l) => l.secret !== undefined);
      const what = o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : '';
      acc.add('clusterset', `${isMember ? 'member' : 'leader'} ClusterSet ${o.name} ${v} {clusters}${what}`, [
        cluster,
      ]);
      return;
    }
    if (o.kind === 'ValidatingAdmissionPolicy' || o.kind === 'ValidatingAdmissionPolicyBinding') {
      const followsMembers =
        (joined.length > 0 || left.length > 0) &&
        o.change === 'changed' &&
        o.fields.every((f) =>
          [
            ...joined.map((id) => identityNamesOf(fa, id).serviceAccount),
            ...left.map((id) => identityNamesOf(fb, id).serviceAccount),
          ].some((sa) => `${JSON.stringify(f.before)}${JSON.stringify(f.after)}`.includes(sa)),
        );
      const followsRotations =
        !followsMembers &&
        rotations.length > 0 &&
        o.change === 'changed' &&
        o.fields.every((f) =>
          rotations.some((r) =>
            [r.before.serviceAccount, r.after.serviceAccount].some((sa) =>
              `${JSON.stringify(f.before)}${JSON.stringify(f.after)}`.includes(sa),
            ),
          ),
        );
      const what = followsMembers
        ? ' to follow the member list'
        : followsRotations
          ? ' to follow the renamed member identities'
          : o.change === 'changed'
            ? `: ${o.fields
                .map((f) => f.path)
                .slice(0, 3)
                .join(', ')}${o.fields.length > 3 ? ` and ${o.fields.length - 3} more` : ''}`
            : '';
      acc.add('admission', `admission: ${o.kind} ${o.name} ${v} {clusters}${what}`, [cluster]);
      return;
    }
    if (o.kind === 'ExternalSecret') {
      // How a member gets the leader token: a reference only, never the value.
      const what = o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : '';
      acc.add('clusterset', `token reference ExternalSecret ${objName(o)} ${v} {clusters}${what}`, [cluster]);
      return;
    }
    if (o.kind === 'Namespace') {
      const annotations = isObj(o.before?.metadata.annotations) ? o.before.metadata.annotations : {};
      // A never-pruned Namespace (render/namespaces.ts NEVER_PRUNE) outlives its removal from git.
      const kept =
        o.change === 'removed' && /Prune=false/.test(String(annotations[ARGOCD_SYNC_OPTIONS] ?? ''));
      acc.add(
        'namespaces',
        kept
          ? `Namespace ${o.name} is no longer rendered in {clusters}: it stays in the cluster (never pruned)`
          : `Namespace ${o.name} ${v} {clusters}`,
        [cluster],
      );
      return;
    }
    if (o.kind === 'CustomResourceDefinition') {
      acc.add(
        'crds',
        `CRD ${o.name} ${v} {clusters}${o.change === 'changed' ? ` (${o.fields.length} fields)` : ''}`,
        [cluster],
      );
      return;
    }
    if (
      cluster === leader &&
      ['ServiceAccount', 'Role', 'RoleBinding', 'Secret', 'ConfigMap'].includes(o.kind)
    ) {
      acc.add(
        'leader',
        `${o.kind} ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : ''}`,
        [cluster],
      );
      return;
    }
    acc.add(
      'other',
      `${o.kind} ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : ''}`,
      [cluster],
    );
  }

  /**
   * The member's restart Job (render/member-restart.ts): a new one is a restart when what it sets
   * changes, not a diff to read; the settings Antrea's install must hold
   * (`takeOver.memberControllerConfig` off) are read like the ConfigMap's.
   */
  function describeMemberRestart(b: BundleDiff, cluster: string): void {
    const why = restartReasons(b);
    if (why !== undefined)
      acc.add(
        'member-config',
        `Antrea's member controller restarts in {clusters} (its ${why.join(' and ')} changed)`,
        [cluster],
      );
    // Before the Job, earlier releases' partial Deployment of Antrea's member controller held them.
    const was =
      restartJob(b, 'before')?.before ??
      b.objects.find((x) => x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT)?.before;
    const after = expectedConfig(restartJob(b, 'after')?.after);
    const before = expectedConfig(was);
    if (after === undefined || before === undefined || before === after) return;
    const path = `metadata.annotations["${EXPECTED_MEMBER_CONFIG_ANNOTATION}"]`;
    const fields: FieldChange[] = [];
    diffValues(before, after, path, fields);
    acc.add(
      'member-config',
      `member controller settings change in {clusters}: ${fieldSummary(fields, path, 4)}; Antrea's install holds them (see After merge)`,
      [cluster],
    );
  }

  const names = sorted(new Set([...fb.exports.keys(), ...fa.exports.keys()]));
  const exports: ExportedService[] = names.map((service) => {
    const was = fb.exports.get(service) ?? new Set<string>();
    const is = fa.exports.get(service) ?? new Set<string>();
    return {
      service,
      exporters: sorted(new Set([...was, ...is])).map((cluster) => ({
        cluster,
        change: was.has(cluster) && is.has(cluster) ? 'same' : is.has(cluster) ? 'added' : 'removed',
      })),
    };
  });

  return {
    ...(leader !== undefined ? { leader } : {}),
    membersBefore,
    membersAfter,
    clusters: diff.clustersAfter,
    touched: sorted(diff.bundles.flatMap((b) => (b.cluster !== undefined ? [b.cluster] : []))),
    delivery: sorted(diff.bundles.filter((b) => b.type === 'delivery').map((b) => b.bundle)),
    items: acc.done(memberSets),
    exports,
    afterMerge: afterMerge(diff, {
      ...(leader !== undefined ? { leader } : {}),
      joined,
      left,
      exporters: (service) => sorted(fa.exports.get(service) ?? []),
      phrase: (ids) => phrase(new Set(ids), memberSets),
      gateways: gatewayChanges(fb, fa, joined, afterPlan),
      ...(uninstalling ? { uninstall: uninstallOf(after, leader) } : {}),
      ...(afterPlan ? { plan: afterPlan } : {}),
      ...deliveryFolders(before, after),
      ...(rotations.length > 0 && leader !== undefined
        ? { rotations, leaderSync: leaderSync(after, leader) }
        : {}),
    }),
    networks: Object.fromEntries(
      sorted(new Set([...fb.networks.keys(), ...fa.networks.keys()])).map((c) => [
        c,
        (fa.networks.get(c) ?? fb.networks.get(c))!,
      ]),
    ),
  };
}

/**
 * The names of member `id`'s identity on one side, as the leader's bundle renders them; the default
 * names when that side holds none (a leader bundle that is not there).
 */
function identityNamesOf(f: Facts, id: string): IdentityNames {
  return (
    f.identities.get(id) ?? {
      serviceAccount: memberIdentityName(id),
      roleBinding: memberIdentityName(id),
      tokenSecret: memberIdentityName(id),
      memberTokenSecret: undefined,
      leaderNamespace: '',
      memberNamespace: undefined,
    }
  );
}

function sameIdentity(a: IdentityNames, b: IdentityNames): boolean {
  return (
    a.serviceAccount === b.serviceAccount &&
    a.roleBinding === b.roleBinding &&
    a.tokenSecret === b.tokenSecret &&
    a.memberTokenSecret === b.memberTokenSecret
  );
}

/**
 * How the leader's bundle is delivered after the change, from its Applications and Kustomizations:
 * an Application prunes with automated prune, a Kustomization with `prune: true`.
 */
function leaderSync(after: ReadonlyMap<string, string>, leader: string): LeaderSync {
  const objects = objectsOf(after, (ref) => ref.type === 'delivery').filter(
    (o) =>
      (o.kind === 'Application' || o.kind === 'Kustomization') &&
      (spec(o).path ?? (isObj(spec(o).source) ? (spec(o).source as Record<string, unknown>).path : ''))
        ?.toString()
        .replace(/\/+$/, '')
        .endsWith(`clusters/${leader}`),
  );
  const prunes = (o: DiffObject): boolean => {
    if (o.kind === 'Kustomization') return spec(o).prune === true;
    const policy = spec(o).syncPolicy;
    const automated = isObj(policy) ? policy.automated : undefined;
    return isObj(automated) && automated.prune === true;
  };
  return {
    tools: [
      ...(objects.some((o) => o.kind === 'Application') ? ['Argo CD'] : []),
      ...(objects.some((o) => o.kind === 'Kustomization') ? ['Flux'] : []),
    ],
    prunes: objects.length > 0 && objects.every(prunes),
  };
}

/** The Kubernetes objects of the files of `files` whose bundle `keep` keeps. */
function objectsOf(
  files: ReadonlyMap<string, string>,
  keep: (ref: ReturnType<typeof bundleOf>) => boolean,
): DiffObject[] {
  const out: DiffObject[] = [];
  const isK8s = (d: unknown): d is DiffObject =>
    isObj(d) && typeof d.kind === 'string' && typeof d.apiVersion === 'string' && isObj(d.metadata);
  for (const [file, content] of files) {
    if (!keep(bundleOf(file))) continue;
    // kustomization.yaml files have no metadata: not objects.
    for (const d of documents(content)) if (isK8s(d)) out.push(d);
  }
  return out;
}

/**
 * The delivery folders (`argocd`, `flux`) on each side, with the delivery objects after the change,
 * when a folder comes or goes (a delivery tool turned on or off: after-merge.ts); none otherwise.
 */
function deliveryFolders(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): { delivery?: DeliveryFolders } {
  const folders = (files: ReadonlyMap<string, string>): string[] =>
    sorted(
      new Set(
        [...files.keys()].flatMap((f) => (bundleOf(f).type === 'delivery' ? [bundleOf(f).bundle] : [])),
      ),
    );
  const was = folders(before);
  const is = folders(after);
  if (was.join() === is.join()) return {};
  return {
    delivery: { before: was, after: is, objects: objectsOf(after, (ref) => ref.type === 'delivery') },
  };
}

/** What the leader's removal needs, from the out/ an uninstalling change leaves (after-merge.ts). */
function uninstallOf(after: ReadonlyMap<string, string>, leader: string): Uninstall {
  return {
    leaderObjects: objectsOf(after, (ref) => ref.type === 'cluster' && ref.cluster === leader),
    delivery: objectsOf(after, (ref) => ref.type === 'delivery'),
  };
}

/** Members that exchange Services across networks after the change and did not before, new ones first. */
function gatewayChanges(
  fb: Facts,
  fa: Facts,
  joined: readonly string[],
  afterPlan: Plan | undefined,
): GatewayChange[] {
  const was = crossNetworkMembers(fb);
  const is = crossNetworkMembers(fa);
  const starting = sorted([...is.keys()].filter((m) => !was.has(m)));
  const nodes = new Map((afterPlan?.clusters ?? []).map((c) => [c.id, c.gateway?.nodes]));
  return [...starting.filter((m) => joined.includes(m)), ...starting.filter((m) => !joined.includes(m))].map(
    (m) => {
      const n = nodes.get(m);
      return {
        cluster: m,
        network: fa.networks.get(m),
        peers: sorted(is.get(m)!).map((p) => (p === '' ? undefined : p)),
        existing: !joined.includes(m),
        ...(n !== undefined ? { nodes: n } : {}),
      };
    },
  );
}

/** Delivery folders (Argo CD, Flux, …): what is added, changed and removed, by kind and name. */
function describeDelivery(b: BundleDiff, acc: Accumulator): void {
  for (const change of ['added', 'changed', 'removed'] as const) {
    const objs = b.objects.filter((o) => o.change === change);
    if (objs.length === 0) continue;
    const names = objs.map(
      (o) =>
        `${o.kind} ${objName(o)}${change === 'changed' && objs.length <= 3 ? `: ${fieldSummary(o.fields, '', 2)}` : ''}`,
    );
    const shown =
      names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
    acc.add('delivery', `${b.bundle}/: ${objs.length} ${change} (${shown})`, []);
  }
  const files = b.files.filter((f) => !f.file.endsWith('kustomization.yaml'));
  if (b.objects.length === 0 && files.length > 0)
    acc.add('delivery', `${b.bundle}/: ${files.map((f) => `${f.file} ${f.change}`).join(', ')}`, []);
}
