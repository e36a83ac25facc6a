/**
 * What must survive the cut-over (antrea-mc.md §i), recorded before it and verified after each phase
 * (`clusterset import --snapshot FILE`, then `import --verify --snapshot FILE`):
 *
 * - in the leader, every ResourceImport: name, UID, spec digest, the label ID of a LabelIdentity
 *   import, the addresses of an Endpoints import;
 * - in each member, every object its member controller imported: Services `antrea-mc-*` (UID,
 *   ClusterIP), ServiceImports (`spec.ips`), Endpoints `antrea-mc-*` (addresses), ClusterNetworkPolicies
 *   `antrea-mc-*`, LabelIdentities (ID), ClusterInfoImports.
 *
 * A deleted ResourceImport is an outage in every member even if it is re-created at once, and a
 * new ClusterIP: so verification fails on a recorded object that is gone or has a new UID, a changed
 * ClusterIP or `spec.ips`, a changed label ID, or a changed or emptied address set. A new object, an
 * import whose spec changed in place, a label no member exports any more, and an address set that
 * changed to exactly what the exporters' live Endpoints exports hold now (their Pods moved: the
 * import and the members followed) are listed and pass.
 *
 * The record holds names, UIDs, IPs, label IDs and digests: no Secret, no token (the LiveSnapshot it
 * is made from has none). Pure, and deterministic: the same set gives the same bytes, whatever order
 * it was read in.
 */
import { IMPORT_PREFIX, labelIdentityHash } from '../names';
import { specDigest } from '../reconciler/objects';
import { cmp, isObject, list, spec, str } from './live';
import type { ClusterSnapshot, LiveObject, LiveSnapshot } from './snapshot';

export const SURVIVAL_FORMAT = 'clusterset-import-snapshot/v1';
const IMPORTED_SERVICE = 'multicluster.antrea.io/imported-service';

/** One recorded object. */
export interface Recorded {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
  /** ResourceImports. */
  readonly importKind?: string;
  readonly specDigest?: string;
  /** LabelIdentity imports and LabelIdentities. */
  readonly labelId?: number;
  /** Endpoints imports and Endpoints: `ip:port/protocol[ name]`, sorted. */
  readonly addresses?: readonly string[];
  /** Services. */
  readonly clusterIP?: string;
  /** ServiceImports, sorted. */
  readonly ips?: readonly string[];
}

export interface RecordedCluster {
  readonly context: string;
  readonly objects: readonly Recorded[];
}

export interface SurvivalRecord {
  readonly format: typeof SURVIVAL_FORMAT;
  readonly readAt: string;
  readonly leaderNamespace: string;
  readonly leader: RecordedCluster;
  readonly members: Readonly<Record<string, RecordedCluster>>;
}

/** Every address of `subsets` with each port: `10.0.0.1:8080/TCP http`, sorted, no duplicates. */
export function addressesOf(subsets: unknown): string[] {
  const out = new Set<string>();
  for (const sub of Array.isArray(subsets) ? subsets : []) {
    if (!isObject(sub)) continue;
    const ports = (Array.isArray(sub.ports) ? sub.ports : []).filter(isObject);
    for (const a of Array.isArray(sub.addresses) ? sub.addresses : []) {
      if (!isObject(a) || typeof a.ip !== 'string') continue;
      if (ports.length === 0) out.add(a.ip);
      for (const p of ports)
        out.add(
          `${a.ip}:${String(p.port)}/${str(p.protocol) ?? 'TCP'}${str(p.name) ? ` ${str(p.name)}` : ''}`,
        );
    }
  }
  return [...out].sort(cmp);
}

const uidOf = (o: LiveObject) => o.metadata.uid ?? '';
const base = (o: LiveObject) => ({
  kind: o.kind,
  ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}),
  name: o.metadata.name,
  uid: uidOf(o),
});

function recordImport(o: LiveObject): Recorded {
  const sp = spec(o);
  const kind = str(sp.kind);
  const li = isObject(sp.labelIdentity) ? sp.labelIdentity : undefined;
  return {
    ...base(o),
    ...(kind !== undefined ? { importKind: kind } : {}),
    specDigest: specDigest(o.spec),
    ...(kind === 'LabelIdentity' && typeof li?.id === 'number' ? { labelId: li.id } : {}),
    ...(kind === 'Endpoints'
      ? { addresses: addressesOf(isObject(sp.endpoints) ? sp.endpoints.subsets : undefined) }
      : {}),
  };
}

const imported = (o: LiveObject) =>
  o.metadata.name.startsWith(IMPORT_PREFIX) && IMPORTED_SERVICE in (o.metadata.annotations ?? {});

/** What a member imported, as recorded. */
function memberObjects(c: ClusterSnapshot): Recorded[] {
  const out: Recorded[] = [];
  for (const o of list(c, 'v1', 'Service'))
    if (imported(o)) out.push({ ...base(o), clusterIP: str(spec(o).clusterIP) ?? '' });
  for (const o of list(c, 'multicluster.x-k8s.io/*', 'ServiceImport'))
    out.push({
      ...base(o),
      ips: (Array.isArray(spec(o).ips) ? (spec(o).ips as unknown[]) : [])
        .filter((x): x is string => typeof x === 'string')
        .sort(cmp),
    });
  for (const o of list(c, 'v1', 'Endpoints'))
    if (imported(o)) out.push({ ...base(o), addresses: addressesOf(o.subsets) });
  for (const o of list(c, 'crd.antrea.io/*', 'ClusterNetworkPolicy'))
    if (o.metadata.name.startsWith(IMPORT_PREFIX)) out.push({ ...base(o), specDigest: specDigest(o.spec) });
  for (const o of list(c, 'multicluster.crd.antrea.io/*', 'LabelIdentity')) {
    const id = spec(o).id;
    out.push({ ...base(o), ...(typeof id === 'number' ? { labelId: id } : {}) });
  }
  for (const o of list(c, 'multicluster.crd.antrea.io/*', 'ClusterInfoImport')) out.push(base(o));
  return sortRecorded(out);
}

function sortRecorded(xs: Recorded[]): Recorded[] {
  return xs.sort(
    (a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? '') || cmp(a.name, b.name),
  );
}

/** The record of what must survive, from a snapshot of the set. */
export function recordSurvivors(s: LiveSnapshot, leaderNamespace: string): SurvivalRecord {
  const imports = list(s.leader, 'multicluster.crd.antrea.io/*', 'ResourceImport', leaderNamespace).map(
    recordImport,
  );
  return {
    format: SURVIVAL_FORMAT,
    readAt: s.readAt,
    leaderNamespace,
    leader: { context: s.leader.context, objects: sortRecorded(imports) },
    members: Object.fromEntries(
      Object.keys(s.members)
        .sort(cmp)
        .map((id) => [id, { context: s.members[id]!.context, objects: memberObjects(s.members[id]!) }]),
    ),
  };
}

/** Canonical JSON of a record: keys sorted at every level, two-space indent, one final newline. */
export function renderRecord(r: SurvivalRecord): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .filter((k) => v[k] !== undefined)
              .sort(cmp)
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return `${JSON.stringify(sorted(r), null, 2)}\n`;
}

/** A record read back from a file; throws with what is wrong. */
export function parseRecord(text: string): SurvivalRecord {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(v) || v.format !== SURVIVAL_FORMAT)
    throw new Error(`not a snapshot written by clusterset import --snapshot (format ${SURVIVAL_FORMAT})`);
  if (!isObject(v.leader) || !Array.isArray(v.leader.objects) || !isObject(v.members))
    throw new Error('a snapshot needs leader.objects and members');
  if (typeof v.leaderNamespace !== 'string') throw new Error('a snapshot needs leaderNamespace');
  return v as unknown as SurvivalRecord;
}

/** One object that did not survive: which, where, which field, before and now. */
export interface Violation {
  /** `leader` or `member <id>`. */
  readonly cluster: string;
  /** `ResourceImport antrea-multicluster/shop-cart-service`. */
  readonly object: string;
  readonly field: string;
  readonly recorded: unknown;
  readonly now: unknown;
  readonly message: string;
}

/** A difference that passes: a new object, or an import's spec changed in place. */
export interface Listed {
  readonly cluster: string;
  readonly object: string;
  readonly message: string;
}

export interface VerifyResult {
  readonly ok: boolean;
  readonly recordedAt: string;
  readonly readAt: string;
  readonly checked: number;
  readonly violations: readonly Violation[];
  readonly listed: readonly Listed[];
}

const nameOf = (r: Recorded) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
const same = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  (a ?? []).join('\n') === (b ?? []).join('\n');

/** A label identity, in the leader (its `<hash16>` import) or in a member (its LabelIdentity). */
const isLabel = (r: Recorded) =>
  r.kind === 'LabelIdentity' || (r.kind === 'ResourceImport' && r.importKind === 'LabelIdentity');

function compareCluster(
  cluster: string,
  was: readonly Recorded[],
  now: readonly Recorded[],
  exportedLabels: ReadonlySet<string>,
  /** The addresses the live exports give an Endpoints import or imported Endpoints now. */
  exported: (r: Recorded) => readonly string[] | undefined,
  violations: Violation[],
  listed: Listed[],
): void {
  const byName = new Map(now.map((r) => [nameOf(r), r]));
  const v = (r: Recorded, field: string, recorded: unknown, current: unknown, message: string) =>
    violations.push({ cluster, object: nameOf(r), field, recorded, now: current, message });
  for (const r of was) {
    const n = byName.get(nameOf(r));
    if (!n && isLabel(r) && !exportedLabels.has(r.name)) {
      // Pods' label sets come and go all the time: a label no member exports any more is withdrawn
      // by its members (its import and LabelIdentities go with it), not lost in the cut-over.
      listed.push({ cluster, object: nameOf(r), message: 'withdrawn: no member exports the label any more' });
      continue;
    }
    if (!n) {
      v(r, 'metadata.uid', r.uid, null, 'deleted');
      continue;
    }
    if (n.uid !== r.uid) {
      v(r, 'metadata.uid', r.uid, n.uid, 'deleted and re-created (a new UID): members saw it go');
    }
    if (r.clusterIP !== undefined && n.clusterIP !== r.clusterIP)
      v(r, 'spec.clusterIP', r.clusterIP, n.clusterIP, 'a new ClusterIP: clients of the old one are cut off');
    if (r.ips !== undefined && !same(r.ips, n.ips)) v(r, 'spec.ips', r.ips, n.ips ?? [], 'spec.ips changed');
    if (r.labelId !== undefined && n.labelId !== r.labelId)
      v(
        r,
        r.kind === 'ResourceImport' ? 'spec.labelIdentity.id' : 'spec.id',
        r.labelId,
        n.labelId,
        'the label ID changed',
      );
    const now = n.addresses ?? [];
    const followed = exported(r);
    if (
      r.addresses !== undefined &&
      !same(r.addresses, now) &&
      now.length > 0 &&
      followed &&
      same(followed, now)
    ) {
      // Pods of an exporter moved: its export changed, and the import (and the members) followed it.
      listed.push({
        cluster,
        object: nameOf(r),
        message: "addresses changed with the exporters' Endpoints exports (the import follows them)",
      });
    } else if (r.addresses !== undefined && !same(r.addresses, now)) {
      const field = r.kind === 'ResourceImport' ? 'spec.endpoints.subsets' : 'subsets';
      const emptied = r.addresses.length > 0 && (n.addresses ?? []).length === 0;
      v(
        r,
        field,
        r.addresses,
        n.addresses ?? [],
        emptied ? 'the address set is empty' : 'the address set changed',
      );
    }
    if (r.kind === 'ResourceImport' && n.uid === r.uid && r.specDigest !== n.specDigest)
      listed.push({ cluster, object: nameOf(r), message: 'spec changed in place (same UID)' });
  }
  const known = new Set(was.map(nameOf));
  for (const n of now) if (!known.has(nameOf(n))) listed.push({ cluster, object: nameOf(n), message: 'new' });
}

/** Verifies a fresh snapshot against the record. */
export function verifySurvivors(recorded: SurvivalRecord, s: LiveSnapshot): VerifyResult {
  const now = recordSurvivors(s, recorded.leaderNamespace);
  const violations: Violation[] = [];
  const listed: Listed[] = [];
  // The `<hash16>` of every label a member exports now.
  const exportedLabels = new Set<string>();
  for (const e of list(
    s.leader,
    'multicluster.crd.antrea.io/*',
    'ResourceExport',
    recorded.leaderNamespace,
  )) {
    const li = spec(e).labelIdentity;
    const label = isObject(li) ? str(li.normalizedLabel) : undefined;
    if (spec(e).kind === 'LabelIdentity' && label !== undefined) exportedLabels.add(labelIdentityHash(label));
  }
  // `<ns>/<service>` → the union of the addresses its live Endpoints exports hold (what the import
  // merges), and each Endpoints import's name → its `<ns>/<service>`.
  const exportedAddresses = new Map<string, Set<string>>();
  for (const e of list(
    s.leader,
    'multicluster.crd.antrea.io/*',
    'ResourceExport',
    recorded.leaderNamespace,
  )) {
    const sp = spec(e);
    if (sp.kind !== 'Endpoints') continue;
    const key = `${str(sp.namespace) ?? ''}/${str(sp.name) ?? ''}`;
    const set = exportedAddresses.get(key) ?? new Set<string>();
    for (const a of addressesOf(isObject(sp.endpoints) ? sp.endpoints.subsets : undefined)) set.add(a);
    exportedAddresses.set(key, set);
  }
  const serviceOfImport = new Map<string, string>();
  for (const o of list(
    s.leader,
    'multicluster.crd.antrea.io/*',
    'ResourceImport',
    recorded.leaderNamespace,
  )) {
    const sp = spec(o);
    if (sp.kind === 'Endpoints')
      serviceOfImport.set(o.metadata.name, `${str(sp.namespace) ?? ''}/${str(sp.name) ?? ''}`);
  }
  const addressesFor = (key: string | undefined) => {
    const set = key === undefined ? undefined : exportedAddresses.get(key);
    return set ? [...set].sort(cmp) : undefined;
  };
  const leaderExported = (r: Recorded) =>
    r.kind === 'ResourceImport' ? addressesFor(serviceOfImport.get(r.name)) : undefined;
  const memberExported = (r: Recorded) =>
    r.kind === 'Endpoints' && r.name.startsWith(IMPORT_PREFIX)
      ? addressesFor(`${r.namespace ?? ''}/${r.name.slice(IMPORT_PREFIX.length)}`)
      : undefined;
  compareCluster(
    'leader',
    recorded.leader.objects,
    now.leader.objects,
    exportedLabels,
    leaderExported,
    violations,
    listed,
  );
  for (const id of Object.keys(recorded.members).sort(cmp)) {
    const m = now.members[id];
    if (!m) {
      violations.push({
        cluster: `member ${id}`,
        object: `member ${id}`,
        field: '(cluster)',
        recorded: recorded.members[id]!.context,
        now: null,
        message: `member ${id} was recorded but not read now: pass --member ${id}=CONTEXT`,
      });
      continue;
    }
    compareCluster(
      `member ${id}`,
      recorded.members[id]!.objects,
      m.objects,
      exportedLabels,
      memberExported,
      violations,
      listed,
    );
  }
  const checked =
    recorded.leader.objects.length +
    Object.values(recorded.members).reduce((n, m) => n + m.objects.length, 0);
  return {
    ok: violations.length === 0,
    recordedAt: recorded.readAt,
    readAt: s.readAt,
    checked,
    violations,
    listed,
  };
}

export function renderVerify(r: VerifyResult, format: 'text' | 'json'): string {
  if (format === 'json') return `${JSON.stringify(r, null, 2)}\n`;
  const lines = [
    `clusterset import --verify: ${r.checked} object(s) recorded at ${r.recordedAt}, read again at ${r.readAt}`,
  ];
  if (r.listed.length > 0) {
    lines.push('', 'Listed (passes):');
    for (const l of r.listed) lines.push(`  ${l.cluster}: ${l.object}: ${l.message}`);
  }
  if (r.violations.length > 0) {
    lines.push('', `FAILED: ${r.violations.length} violation(s):`);
    for (const v of r.violations)
      lines.push(
        `  ${v.cluster}: ${v.object} ${v.field}: ${v.message} (recorded ${JSON.stringify(v.recorded)}, now ${JSON.stringify(v.now)})`,
      );
  } else
    lines.push(
      '',
      'OK: every recorded import and imported object survived (same UID, ClusterIP, IPs, label ID, addresses).',
    );
  return `${lines.join('\n')}\n`;
}
