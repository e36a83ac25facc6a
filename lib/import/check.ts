/**
 * `clusterset import --check`: what applying the committed model would do to the running set, read
 * only. For every object of every bundle (the leader's and each member's): create, adopt unchanged,
 * or adopt with change, compared in the fields the bundle renders (what a server-side apply of that
 * object would change: fields the live object has and the bundle does not render stay as they are,
 * so server defaults and other managers' fields are not changes); then the reconciler's own pure
 * decisions (lib/reconciler/desired/, with the config the leader bundle renders) over the live
 * exports, imports, announces and ClusterSet: every write it would make the moment it leads.
 *
 * It fails on what a member would feel (antrea-mc.md §i): an import that would be deleted (compiled
 * or dynamic), an Endpoints address set that would change (an Endpoints import created counts: its
 * Service's address set changes from none), a label ID that would change, an export the reconciler
 * would refuse (but an ACNP export whose policy the leader bundle compiles: that one is only marked
 * ignored), and every blocker the import comparison finds (compare.ts). Everything else is listed
 * and passes. Pure: the CLI reads the objects (read.ts readRendered) and prints what this returns.
 */
import type { ClusterSetProps } from '../model';
import { DEFAULT_LEADER_NAMESPACE, DEFAULT_MEMBER_NAMESPACE, MEMBER_CONTROLLER_CONFIG } from '../names';
import type { Action } from '../reconciler/desired/outcome';
import type { K8sObject } from '../render';
import { addressSet, compareWithLive } from './compare';
import { CREATED_BY_ANTCTL, type FieldDiff, cmp, find, isObject, list, sameJson, show, spec } from './live';
import { type Finding, Notes } from './findings';
import { memberClusterSet, readMcConfig } from './mc-config';
import type { LiveObject, LiveSnapshot } from './snapshot';

export type Verdict = 'create' | 'adopt-unchanged' | 'adopt-changed';

export interface ObjectCheck {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly verdict: Verdict;
  /** The rendered fields whose live value differs (live → rendered). */
  readonly changes: readonly FieldDiff[];
  /** Who made the live object, when Antrea's install or antctl did: adopting it takes it over. */
  readonly owner?: string;
}

export interface ClusterCheck {
  readonly id: string;
  /** `leader`, `member`, or both. */
  readonly roles: readonly string[];
  readonly objects: readonly ObjectCheck[];
}

/** One write the reconciler would make. */
export interface ReconcilerWrite {
  /** The reconciler key it comes from (`svc/shop/cart`, `label/<hash>`, `member/east`, ...). */
  readonly key: string;
  readonly op: Action['op'];
  /** `ResourceImport antrea-multicluster/shop-cart-endpoints`. */
  readonly object: string;
  readonly detail: string;
}

export interface CheckFailure {
  readonly code: string;
  /** The object (and field) it is about. */
  readonly path: string;
  readonly message: string;
}

export interface CheckResult {
  readonly clusterSetId: string;
  readonly leader: string;
  readonly ok: boolean;
  readonly clusters: readonly ClusterCheck[];
  readonly reconciler: readonly ReconcilerWrite[];
  readonly failures: readonly CheckFailure[];
  /** The import comparison's findings for this model (compare.ts), every class. */
  readonly findings: readonly Finding[];
}

/** Labels and annotations clusterset puts on every object: bookkeeping, not changes (no behaviour, no generation). */
const BOOKKEEPING_LABELS = new Set(['app.kubernetes.io/managed-by', 'app.kubernetes.io/part-of']);
const BOOKKEEPING_ANNOTATION_PREFIXES = ['argocd.argoproj.io/', 'kustomize.toolkit.fluxcd.io/'];

/** Finding codes that fail the check: each is something a member would feel. */
const FAILING = new Set([
  'import-deleted',
  'dynamic-import-deleted',
  'endpoints-changed',
  'label-id-changed',
  'member-clusterset-replaced',
]);

/**
 * The fields of `rendered` whose value in `live` differs, as a server-side apply of `rendered` sees
 * them: a field `live` has and `rendered` does not is left alone; lists are compared item by item
 * when they have the same length, whole otherwise (an apply replaces an atomic list whole).
 */
export function renderedChanges(live: unknown, rendered: unknown, path: string): FieldDiff[] {
  if (rendered === undefined) return [];
  if (isObject(rendered)) {
    if (!isObject(live)) return [{ path, live, rendered }];
    return Object.keys(rendered)
      .sort(cmp)
      .flatMap((k) => renderedChanges(live[k], rendered[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(rendered)) {
    if (!Array.isArray(live) || live.length !== rendered.length) return [{ path, live, rendered }];
    return rendered.flatMap((x, i) => renderedChanges(live[i], x, `${path}[${i}]`));
  }
  return sameJson(live, rendered) ? [] : [{ path, live, rendered }];
}

function keep(map: unknown, keepKey: (k: string) => boolean): Record<string, unknown> | undefined {
  if (!isObject(map)) return undefined;
  const out = Object.fromEntries(Object.entries(map).filter(([k]) => keepKey(k)));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What applying `rendered` over `live` would change: every rendered field but clusterset's bookkeeping. */
export function objectChanges(rendered: K8sObject, live: LiveObject): FieldDiff[] {
  const r = rendered as unknown as Record<string, unknown>;
  const labels = keep(rendered.metadata.labels, (k) => !BOOKKEEPING_LABELS.has(k));
  const annotations = keep(
    rendered.metadata.annotations,
    (k) => !BOOKKEEPING_ANNOTATION_PREFIXES.some((p) => k.startsWith(p)),
  );
  // A Secret read as a Table row (a member's, or one --check looked up by name) has its name and
  // type only: its labels and annotations were never read, so they are not compared.
  const tableRow = rendered.kind === 'Secret' && live.metadata.uid === undefined;
  const out: FieldDiff[] = [];
  if (!tableRow) {
    out.push(...renderedChanges(live.metadata.labels ?? {}, labels, 'metadata.labels'));
    out.push(...renderedChanges(live.metadata.annotations ?? {}, annotations, 'metadata.annotations'));
  }
  for (const k of Object.keys(r).sort(cmp)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata' || k === 'status') continue;
    if (rendered.kind === 'Secret' && k !== 'type') continue; // import never reads a Secret's data
    if (rendered.kind === 'Secret' && live.type === undefined) continue;
    out.push(...renderedChanges(live[k], r[k], k));
  }
  return out;
}

/** Who made `live`, when it is Antrea's install or antctl (not clusterset, not a user, not Antrea's run-time writes). */
function ownerOf(live: LiveObject): string | undefined {
  if (live.metadata.labels?.app === 'antrea')
    return "Antrea's install (label app: antrea): adopting it takes it over from Antrea's manifests";
  if (live.metadata.annotations?.[CREATED_BY_ANTCTL] === 'true')
    return `antctl (annotation ${CREATED_BY_ANTCTL}): \`antctl mc leave\` or \`destroy\` would delete it by that annotation`;
  // `antctl mc deploy` and `init` create with their client (field manager antctl): the leader
  // ClusterSet, the CRDs. Antrea's leader's run-time writes (imports, statuses) are not an install.
  const managers = (live.metadata.managedFields ?? []).map((f) => (isObject(f) ? f.manager : undefined));
  if (managers.includes('antctl'))
    return 'antctl (field manager antctl: `antctl mc deploy` or `init` made it)';
  return undefined;
}

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

/** An index of live objects by group, kind, namespace and name (any version of the group). */
function indexOf(objects: readonly LiveObject[]): Map<string, LiveObject> {
  const m = new Map<string, LiveObject>();
  for (const o of objects) {
    const k = `${groupOf(o.apiVersion)}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    if (!m.has(k)) m.set(k, o);
  }
  return m;
}

function objectName(o: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/**
 * Checks `model` against the running set. `read` is, per cluster ID, what `import --check` read under
 * the names the bundles render (read.ts readRendered); the snapshot's own objects are looked at first.
 */
export function checkSet(
  s: LiveSnapshot,
  model: ClusterSetProps,
  read: ReadonlyMap<string, readonly LiveObject[]> = new Map(),
): CheckResult {
  const leaderNamespace = model.leaderNamespace ?? DEFAULT_LEADER_NAMESPACE;
  const memberNamespace = model.memberNamespace ?? DEFAULT_MEMBER_NAMESPACE;
  const notes = new Notes();
  const memberSets = new Map(
    (model.members ?? []).map((id) => [id, s.members[id] ? memberClusterSet(s.members[id]!, id) : undefined]),
  );
  const leaderConfig = readMcConfig(
    find(s.leader, 'v1', 'ConfigMap', leaderNamespace, MEMBER_CONTROLLER_CONFIG),
  );
  const cmpd = compareWithLive(
    s,
    model,
    { leaderNamespace, memberNamespace, leaderConfig, memberSets },
    notes,
  );
  const findings = [...notes.findings];
  const failures: CheckFailure[] = [];

  // Every object of every bundle.
  const clusters: ClusterCheck[] = [];
  const bundles = cmpd.compiled.bundles ?? new Map<string, K8sObject[]>();
  for (const id of [...bundles.keys()].sort(cmp)) {
    const roles = [
      ...(id === model.leader ? ['leader'] : []),
      ...((model.members ?? []).includes(id) ? ['member'] : []),
    ];
    const live = indexOf([
      ...(id === model.leader ? s.leader.objects : []),
      ...(s.members[id]?.objects ?? []),
      ...(read.get(id) ?? []),
    ]);
    const objects: ObjectCheck[] = [];
    for (const o of bundles.get(id)!) {
      const l = live.get(
        `${groupOf(o.apiVersion)}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
      );
      const base = {
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {}),
        name: o.metadata.name,
      };
      if (!l) {
        objects.push({ ...base, verdict: 'create', changes: [] });
        continue;
      }
      const changes = objectChanges(o, l);
      const owner = ownerOf(l);
      objects.push({
        ...base,
        verdict: changes.length > 0 || owner !== undefined ? 'adopt-changed' : 'adopt-unchanged',
        changes,
        ...(owner !== undefined ? { owner } : {}),
      });
    }
    objects.sort(
      (a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? '') || cmp(a.name, b.name),
    );
    clusters.push({ id, roles, objects });
  }

  // The reconciler's writes.
  const ns = leaderNamespace;
  const liveImports = new Map(
    list(s.leader, 'multicluster.crd.antrea.io/*', 'ResourceImport', ns).map((i) => [i.metadata.name, i]),
  );
  const reconciler: ReconcilerWrite[] = [];
  for (const d of cmpd.decisions)
    for (const a of d.outcome.actions) reconciler.push(describe(d.key, a, ns, liveImports));

  // Failures: what members would feel.
  const compiledPolicies = new Set(
    (bundles.get(model.leader) ?? []).filter((o) => o.kind === 'ResourceImport').map((o) => o.metadata.name),
  );
  for (const f of findings)
    if (f.class === 'blocker' || FAILING.has(f.code))
      failures.push({ code: f.code, path: f.path ?? '(set)', message: f.message });
  for (const w of reconciler)
    if (w.op === 'createImport' && w.detail.startsWith('Endpoints'))
      failures.push({
        code: 'endpoints-created',
        path: w.object,
        message: `the reconciler creates ${w.object}: the Service's address set in every member changes from none to ${w.detail.replace(/^Endpoints: /, '')}`,
      });
  const exports = new Map(
    list(s.leader, 'multicluster.crd.antrea.io/*', 'ResourceExport', ns).map((e) => [e.metadata.name, e]),
  );
  for (const d of cmpd.decisions)
    for (const r of d.outcome.refused) {
      const e = exports.get(r.export);
      const sp = spec(e);
      if (
        sp.kind === 'AntreaClusterNetworkPolicy' &&
        typeof sp.name === 'string' &&
        compiledPolicies.has(`${sp.name}-antreaclusternetworkpolicy`)
      )
        continue; // compiled from the model: the export is only marked ignored
      const antrea =
        isObject(e?.status) && Array.isArray(e.status.conditions) ? e.status.conditions[0] : undefined;
      const already = isObject(antrea) && antrea.type === 'Failure';
      failures.push({
        code: 'export-refused',
        path: `ResourceExport ${ns}/${r.export}`,
        message: `the reconciler would refuse this export: ${r.why}${already ? " (Antrea's leader refuses it too)" : ''}`,
      });
    }
  const seen = new Set<string>();
  const unique = failures.filter((f) => {
    const k = `${f.code}\n${f.path}\n${f.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  unique.sort((a, b) => cmp(a.code, b.code) || cmp(a.path, b.path));
  return {
    clusterSetId: model.clusterSetId,
    leader: model.leader,
    ok: unique.length === 0,
    clusters,
    reconciler,
    failures: unique,
    findings,
  };
}

function describe(
  key: string,
  a: Action,
  ns: string,
  live: ReadonlyMap<string, LiveObject>,
): ReconcilerWrite {
  const ri = `ResourceImport ${ns}/${a.name}`;
  const re = `ResourceExport ${ns}/${a.name}`;
  const w = (object: string, detail: string): ReconcilerWrite => ({ key, op: a.op, object, detail });
  switch (a.op) {
    case 'createImport':
    case 'replaceImport': {
      const verb = a.op === 'createImport' ? '' : 'rewrite: ';
      if (a.spec.kind === 'Endpoints') {
        const after = addressSet(a.spec.endpoints.subsets);
        if (a.op === 'replaceImport') {
          const l = spec(live.get(a.name));
          const before = addressSet(isObject(l.endpoints) ? l.endpoints.subsets : undefined);
          if (before.join('\n') === after.join('\n'))
            return w(ri, `Endpoints: ${verb}same addresses, other order (${after.length})`);
        }
        return w(ri, `Endpoints: ${verb}${after.join('; ') || '(none)'}`);
      }
      if (a.spec.kind === 'LabelIdentity') {
        const before = spec(live.get(a.name)).labelIdentity;
        const was = isObject(before) && typeof before.id === 'number' ? `id ${before.id} → ` : 'id ';
        return w(
          ri,
          `LabelIdentity: ${verb}${was}${a.spec.labelIdentity.id}, label ${a.spec.labelIdentity.label}`,
        );
      }
      return w(ri, `ClusterInfo: ${verb}${show(a.spec.clusterinfo)}`);
    }
    case 'deleteImport':
      return w(ri, `delete (${String(spec(live.get(a.name)).kind ?? 'unknown kind')})`);
    case 'importStatus':
      return w(
        ri,
        `status.clusterStatuses: ${a.clusterStatuses.map((c) => `${c.clusterID} ${c.conditions[0]?.status ?? '?'}`).join(', ') || '(none)'}`,
      );
    case 'exportStatus':
      return w(
        re,
        `status: ${a.condition.type} ${a.condition.status}${a.condition.reason ? ` ${a.condition.reason}` : ''}${a.condition.message ? `: ${a.condition.message}` : ''}`,
      );
    case 'releaseExport':
      return w(re, `finalizers → ${show(a.finalizers)}`);
    case 'deleteExport':
      return w(re, 'delete');
    case 'announceFinalizers':
      return w(`MemberClusterAnnounce ${ns}/${a.name}`, `finalizers → ${show(a.finalizers)}`);
    case 'deleteAnnounce':
      return w(`MemberClusterAnnounce ${ns}/${a.name}`, 'delete (the member is retired)');
    case 'clusterSetStatus':
      return w(
        `ClusterSet ${ns}/${a.name}`,
        `status: ${a.status.readyClusters ?? 0} of ${a.status.totalClusters ?? 0} clusters ready`,
      );
  }
}

const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  create: 'create',
  'adopt-unchanged': 'adopt unchanged',
  'adopt-changed': 'adopt with change',
};

export function renderCheck(r: CheckResult, format: 'text' | 'json'): string {
  if (format === 'json') return `${JSON.stringify(r, null, 2)}\n`;
  const lines: string[] = [`clusterset import --check: ClusterSet ${r.clusterSetId}, leader ${r.leader}`];
  for (const c of r.clusters) {
    const n = (v: Verdict) => c.objects.filter((o) => o.verdict === v).length;
    lines.push(
      '',
      `Cluster ${c.id} (${c.roles.join(' and ') || 'no role'}): ${c.objects.length} object(s): ${n('create')} create, ` +
        `${n('adopt-unchanged')} adopt unchanged, ${n('adopt-changed')} adopt with change`,
    );
    const width = Math.max(...c.objects.map((o) => VERDICT_TEXT[o.verdict].length), 7);
    lines.push(`  ${'VERDICT'.padEnd(width)}  OBJECT`);
    for (const o of c.objects) {
      lines.push(`  ${VERDICT_TEXT[o.verdict].padEnd(width)}  ${objectName({ kind: o.kind, metadata: o })}`);
      if (o.owner) lines.push(`  ${''.padEnd(width)}    made by ${o.owner}`);
      for (const d of o.changes)
        lines.push(`  ${''.padEnd(width)}    ${d.path}: live ${show(d.live)}, renders ${show(d.rendered)}`);
    }
  }
  lines.push('', `The reconciler, the moment it leads: ${r.reconciler.length} write(s)`);
  for (const w of r.reconciler) lines.push(`  ${w.op.padEnd(18)}  ${w.object}: ${w.detail}`);
  const listed = r.findings.filter(
    (f) => f.class !== 'info' && !r.failures.some((x) => x.code === f.code && x.path === (f.path ?? '(set)')),
  );
  if (listed.length > 0) {
    lines.push('', 'Changes members see, each in place (listed, not failures):');
    for (const f of listed)
      lines.push(`  - [${f.code}]${f.path !== undefined ? ` ${f.path}:` : ''} ${f.message}`);
  }
  if (r.failures.length > 0) {
    lines.push('', `FAILED: ${r.failures.length} problem(s) a member would feel:`);
    for (const f of r.failures) lines.push(`  - [${f.code}] ${f.path}: ${f.message}`);
  } else {
    lines.push('', 'OK: no import deleted, no address set or label ID changed, no export refused.');
  }
  return `${lines.join('\n')}\n`;
}
