/**
 * The decisive test of an import: compile the imported model, and compare what the bundles render
 * with what lives, in the fields the bundles render; then run the reconciler's own pure decisions
 * (lib/reconciler/desired/) over the live exports and imports, as it would run them the moment it
 * leads. Every difference a member would see becomes a `change` finding naming the object and field;
 * an import that would be deleted (live, not rendered, and not one the reconciler keeps) is a
 * `blocker`: a deleted ResourceImport is an outage in every member, even if it is re-created
 * (antrea-mc.md §i). Pure.
 */
import { type CompileResult, compile } from '../compile';
import type { ClusterSetProps } from '../model';
import {
  CLUSTER_ID_ANNOTATION,
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  RECONCILER_FIELD_MANAGER,
  announceName,
  isDashPrefixPair,
} from '../names';
import type { K8sObject } from '../render';
import { type ReconcilerConfig, parseReconcilerConfigText } from '../reconciler-config';
import { reconcileClusterInfo } from '../reconciler/desired/cluster-info';
import { reconcileClusterSet } from '../reconciler/desired/clusterset';
import { announceClusterId, exportKey, labelHashOfExportName } from '../reconciler/desired/keys';
import { type LabelIds, reconcileLabel } from '../reconciler/desired/label';
import { lastTouchMs, reconcileMember } from '../reconciler/desired/member';
import type { Action, Outcome, SameSpec } from '../reconciler/desired/outcome';
import { reconcileService } from '../reconciler/desired/service';
import { reconcileStray } from '../reconciler/desired/stray-export';
import {
  type CachedImport,
  parseTime,
  specDigest,
  trimAnnounce,
  trimClusterSet,
  trimExport,
  trimImport,
} from '../reconciler/objects';
import { type Json, annotation, cmp, diffJson, isObject, list, ref, show, spec, str } from './live';
import type { Notes } from './findings';
import type { MemberConfig } from './mc-config';
import type { LiveObject, LiveSnapshot } from './snapshot';

const MC_ANY = 'multicluster.crd.antrea.io/*';
const CRD_ANY = 'crd.antrea.io/*';

export interface CompareContext {
  readonly leaderNamespace: string;
  readonly memberNamespace: string;
  /** The leader's `antrea-mc-controller-config`. */
  readonly leaderConfig: MemberConfig;
  /** Each member's ClusterSet, as read. */
  readonly memberSets: ReadonlyMap<string, LiveObject | undefined>;
}

/** Import kinds the reconciler keeps at run time (DESIGN.md): never compiled, never a blocker. */
const DYNAMIC = new Set(['Endpoints', 'ClusterInfo', 'LabelIdentity']);

/** One key the reconciler would reconcile the moment it leads, and what it would do there. */
export interface Decision {
  /** The reconciler's key: `svc/<ns>/<name>`, `ci/<name>`, `label/<hash>`, `member/<id>`, `export/<name>`, `clusterset`. */
  readonly key: string;
  readonly outcome: Outcome;
}

/** What compareWithLive compiled and decided, for `import --check` (check.ts). */
export interface Comparison {
  readonly compiled: CompileResult;
  /** The reconciler config the leader bundle renders; undefined when the model does not compile. */
  readonly config?: ReconcilerConfig;
  /** The reconciler's decisions over the live exports, imports, announces and ClusterSet, by key. */
  readonly decisions: readonly Decision[];
}

export function compareWithLive(
  s: LiveSnapshot,
  model: ClusterSetProps,
  ctx: CompareContext,
  notes: Notes,
): Comparison {
  const result = compile(model);
  for (const d of result.diagnostics)
    notes.add({
      class: 'blocker',
      code: 'model-invalid',
      path: d.path || '(model)',
      message: `${d.message} [${d.rule}]`,
      fix: d.fix,
    });
  for (const d of result.warnings)
    notes.add({
      class: 'info',
      code: 'model-warning',
      path: d.path || '(model)',
      message: `${d.message} [${d.rule}]`,
      fix: d.fix,
    });
  identityFindings(s, model, ctx, notes);
  if (!result.bundles) return { compiled: result, decisions: [] };
  const leaderBundle = result.bundles.get(model.leader) ?? [];
  compileImports(s, leaderBundle, ctx, notes);
  memberSides(s, model, result.bundles, ctx, notes);
  const config = renderedReconcilerConfig(leaderBundle);
  if (config === undefined) return { compiled: result, decisions: [] };
  const decisions = reconcilerDecisions(s, config, ctx);
  dynamicImports(s, decisions, ctx, notes);
  return { compiled: result, config, decisions };
}

/** The reconciler config the leader bundle renders (its ConfigMap), if it renders one. */
export function renderedReconcilerConfig(leaderBundle: readonly K8sObject[]): ReconcilerConfig | undefined {
  const cm = leaderBundle.find((o) => o.kind === 'ConfigMap' && o.metadata.name === RECONCILER_CONFIG_NAME);
  const text = cm && isObject(cm.data) ? str(cm.data[RECONCILER_CONFIG_KEY]) : undefined;
  return text === undefined ? undefined : parseReconcilerConfigText(text, RECONCILER_CONFIG_NAME);
}

// -------------------------------------------------------------------------- compiled imports

function compileImports(
  s: LiveSnapshot,
  leaderBundle: readonly K8sObject[],
  ctx: CompareContext,
  notes: Notes,
): void {
  const rendered = leaderBundle
    .filter((o) => o.kind === 'ResourceImport')
    .sort((a, b) => cmp(a.metadata.name, b.metadata.name));
  const live = list(s.leader, MC_ANY, 'ResourceImport', ctx.leaderNamespace);
  const liveByName = new Map(live.map((o) => [o.metadata.name, o]));
  for (const r of rendered) {
    const l = liveByName.get(r.metadata.name);
    const name = `ResourceImport ${ctx.leaderNamespace}/${r.metadata.name}`;
    if (!l) {
      notes.add({
        class: 'change',
        code: 'import-created',
        path: name,
        message: `the leader bundle creates ${name}, which does not exist: every member imports it (${importEffect(r.spec)})`,
      });
      continue;
    }
    for (const d of diffJson(l.spec, r.spec, 'spec'))
      notes.add({
        class: 'change',
        code: 'import-changed',
        path: `${name} ${d.path}`,
        message: `live ${show(d.live)}, the leader bundle renders ${show(d.rendered)}: the import is updated in place and every member updates ${importEffect(r.spec)}`,
      });
  }
  const renderedNames = new Set(rendered.map((r) => r.metadata.name));
  for (const l of live) {
    const kind = str(spec(l).kind);
    if (renderedNames.has(l.metadata.name) || (kind !== undefined && DYNAMIC.has(kind))) continue;
    notes.add({
      class: 'blocker',
      code: 'import-deleted',
      path: ref(l),
      message: `${ref(l)} (kind ${kind ?? '(none)'}) lives but the leader bundle does not render it: no one would keep it after the cut-over, and removing it deletes ${importEffect(l.spec)} in every member`,
      fix:
        kind === 'ServiceImport'
          ? `declare Service ${String(spec(l).namespace)}/${String(spec(l).name)} in the model so that it compiles to this very name`
          : kind === 'AntreaClusterNetworkPolicy'
            ? `name the policy so that its import is named ${l.metadata.name} (<name>-antreaclusternetworkpolicy)`
            : 'find out what wrote it; delete it only once no member uses it',
    });
  }
}

/** What a member makes of an import, for messages. */
function importEffect(sp: unknown): string {
  const x = isObject(sp) ? sp : {};
  switch (x.kind) {
    case 'ServiceImport':
      return `Service ${String(x.namespace)}/antrea-mc-${String(x.name)} and ServiceImport ${String(x.namespace)}/${String(x.name)}`;
    case 'AntreaClusterNetworkPolicy':
      return `ClusterNetworkPolicy antrea-mc-${String(x.name)}`;
    case 'Endpoints':
      return `Endpoints ${String(x.namespace)}/antrea-mc-${String(x.name)}`;
    case 'ClusterInfo':
      return `ClusterInfoImport ${String(x.name)}`;
    case 'LabelIdentity':
      return 'a LabelIdentity';
    default:
      return 'what it imported from it';
  }
}

// -------------------------------------------------------------------------- member side

function memberSides(
  s: LiveSnapshot,
  model: ClusterSetProps,
  bundles: ReadonlyMap<string, readonly K8sObject[]>,
  ctx: CompareContext,
  notes: Notes,
): void {
  for (const id of [...model.members].sort(cmp)) {
    const snap = s.members[id];
    const bundle = bundles.get(id);
    if (!snap || !bundle) continue;
    // The member ClusterSet: a new leader connection is rebuilt in place; a new ID or name cleans up everything imported.
    const cs = bundle.find((o) => o.kind === 'ClusterSet' && o.metadata.namespace === ctx.memberNamespace);
    const live = ctx.memberSets.get(id);
    if (cs && live) {
      if (cs.metadata.name !== live.metadata.name)
        notes.add({
          class: 'blocker',
          code: 'member-clusterset-replaced',
          path: ref(live),
          message: `member ${id}'s bundle renders ClusterSet ${cs.metadata.name}, not ${live.metadata.name}: a renamed ClusterSet makes Antrea's member clean up everything it imported`,
          fix: 'keep clusterSetId equal to the live ClusterSet name',
        });
      for (const d of diffJson(live.spec, cs.spec, 'spec')) {
        const fatal = d.path === 'spec.clusterID' || d.path === 'spec.leaders[0].clusterID';
        notes.add({
          class: fatal ? 'blocker' : 'change',
          code: fatal ? 'member-clusterset-replaced' : 'member-clusterset-changed',
          path: `${ref(live)} ${d.path}`,
          message:
            `live ${show(d.live)}, member ${id}'s bundle renders ${show(d.rendered)}: ` +
            (fatal
              ? "Antrea's member cleans up everything it imported when its ClusterSet's IDs change"
              : d.path.startsWith('spec.leaders[0]')
                ? "Antrea's member rebuilds its connection to the leader (nothing it imported is deleted)"
                : 'the member ClusterSet is updated in place'),
          ...(fatal ? { fix: 'the model must keep the live cluster IDs' } : {}),
        });
      }
    }
    // Tiers, ClusterGroups, stretched policies and ServiceExports the bundle renders.
    for (const o of bundle) {
      if (!['Tier', 'ClusterGroup', 'ClusterNetworkPolicy', 'ServiceExport'].includes(o.kind)) continue;
      const group = o.kind === 'ServiceExport' ? 'multicluster.x-k8s.io/*' : CRD_ANY;
      const l = list(snap, group, o.kind, o.metadata.namespace).find(
        (x) => x.metadata.name === o.metadata.name,
      );
      const name = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
      if (!l) {
        if (o.kind === 'Tier') continue; // tier-created says it, once per Tier
        notes.add({
          class: 'change',
          code: 'member-object-created',
          path: `member ${id} ${name}`,
          message:
            o.kind === 'ServiceExport'
              ? `member ${id}'s bundle creates ${name}: ${id} starts exporting it`
              : `member ${id}'s bundle creates ${name}`,
        });
        continue;
      }
      if (o.kind === 'ServiceExport') continue;
      for (const d of diffJson(l.spec, o.spec, 'spec'))
        notes.add({
          class: 'change',
          code: 'member-object-changed',
          path: `member ${id} ${name} ${d.path}`,
          message: `live ${show(d.live)}, member ${id}'s bundle renders ${show(d.rendered)}`,
        });
    }
  }
}

// -------------------------------------------------------------------------- identities, IDs, announces

function identityFindings(s: LiveSnapshot, model: ClusterSetProps, ctx: CompareContext, notes: Notes): void {
  const members = new Set(model.members);
  const identityIds = list(s.leader, 'v1', 'ServiceAccount', ctx.leaderNamespace).flatMap((sa) => {
    const id = annotation(sa, CLUSTER_ID_ANNOTATION);
    return id ? [id] : [];
  });
  const announces = list(s.leader, MC_ANY, 'MemberClusterAnnounce', ctx.leaderNamespace);
  const announceIds = announces.flatMap((a) => {
    const id = str(a.clusterID) ?? announceClusterId(a.metadata.name);
    return id ? [id] : [];
  });
  const exports = list(s.leader, MC_ANY, 'ResourceExport', ctx.leaderNamespace);
  const exportsOf = (id: string) =>
    exports.filter((e) => spec(e).clusterID === id).map((e) => e.metadata.name);

  const ids = [...new Set([...model.members, ...identityIds, ...announceIds])].sort(cmp);
  for (const [i, a] of ids.entries())
    for (const b of ids.slice(i + 1))
      if (isDashPrefixPair(a, b))
        notes.add({
          class: 'blocker',
          code: 'dash-prefix-pair',
          path: `clusters ${a} and ${b}`,
          message:
            `cluster IDs ${a} and ${b} form a dash-prefix pair: Antrea's leader refuses the announce of the second to join ` +
            '(HasClusterIDPrefixPair), and clusterset refuses the pair (member-id-dash-prefix), since a LabelIdentity export ' +
            `<id>-<hash> of ${b} would read as one of ${a}`,
          fix: `rejoin one of them under another ID (\`antctl mc leave\`, then join with a new --clusterid), then import again`,
        });

  const retireMs = 24 * 60 * 60 * 1000;
  const now = parseTime(s.readAt) ?? 0;
  for (const a of announces) {
    const id = str(a.clusterID) ?? announceClusterId(a.metadata.name) ?? '';
    const own = exportsOf(id);
    if (!members.has(id)) {
      const hasIdentity = identityIds.includes(id);
      notes.add({
        class: hasIdentity ? 'blocker' : 'change',
        code: hasIdentity ? 'member-not-read' : 'announce-unknown',
        path: ref(a),
        message: hasIdentity
          ? `cluster ${id} is connected (its announce and its identity live) but was not read: the model leaves it out, and the reconciler would retire it at once, deleting its ${own.length} export(s)`
          : `${ref(a)} is from cluster ${id}, which has no member identity and is not in the model: the reconciler retires it at once, deleting its ${own.length} export(s)${own.length ? ` (${own.join(', ')}), so their endpoints leave every member` : ''}`,
        fix: hasIdentity
          ? `run the import again with --member ${id}=CONTEXT`
          : `run \`antctl mc leave\` in ${id} first, or give it an identity and import it with --member ${id}=CONTEXT`,
      });
      continue;
    }
    if (a.metadata.name !== announceName(id))
      notes.add({
        class: 'info',
        code: 'announce-misnamed',
        path: ref(a),
        message: `the announce of ${id} is not named ${announceName(id)}`,
      });
    const last = lastTouchMs(trimAnnounce(a as unknown as Json, ''));
    if (now - last >= retireMs)
      notes.add({
        class: 'change',
        code: 'announce-stale',
        path: ref(a),
        message: `member ${id} last refreshed its announce ${Math.floor((now - last) / 3_600_000)} h before the read (touch-ts ${annotation(a, 'touch-ts') ?? '(none)'}); the reconciler retires members silent for 24 h (reconciler.retireMembersAfter) at once, deleting its ${own.length} export(s), which Antrea's leader would do at its next 12-hourly check`,
        fix: `bring member ${id}'s controller back (it refreshes every 10 s), or let it leave; then import again`,
      });
  }
  for (const id of model.members)
    if (!announceIds.includes(id))
      notes.add({
        class: 'info',
        code: 'announce-missing',
        path: `member ${id}`,
        message: `member ${id} has no MemberClusterAnnounce in the leader: it is not connected now`,
      });
  for (const id of [...new Set(identityIds)].sort(cmp))
    if (!members.has(id) && !announceIds.includes(id))
      notes.add({
        class: 'info',
        code: 'identity-unused',
        path: `member identity ${id}`,
        message: `an identity for cluster ${id} lives in the leader, but ${id} neither announces nor was read: it stays out of the model (clusterset never deletes what it did not render)`,
      });
}

// -------------------------------------------------------------------------- what the reconciler does first

export function addressSet(subsets: unknown): string[] {
  const out: string[] = [];
  for (const sub of Array.isArray(subsets) ? subsets : []) {
    if (!isObject(sub)) continue;
    const ports = JSON.stringify(
      (Array.isArray(sub.ports) ? sub.ports : []).map((p) =>
        isObject(p) ? [p.name ?? '', p.port, p.protocol ?? 'TCP'] : p,
      ),
    );
    for (const a of Array.isArray(sub.addresses) ? sub.addresses : [])
      if (isObject(a)) out.push(`${String(a.ip)} ${ports}`);
  }
  return [...new Set(out)].sort(cmp);
}

/**
 * The reconciler's own pure decisions (lib/reconciler/desired/) over the live leader, key by key, as
 * it would take them the moment it leads: Services, ClusterInfo, label identities (IDs adopted as it
 * adopts them at start, the oldest import first), members (announce finalizers, retirement), exports
 * no reconcile owns, and the leader ClusterSet's status. Keys in a fixed order.
 */
export function reconcilerDecisions(
  s: LiveSnapshot,
  config: ReconcilerConfig,
  ctx: Pick<CompareContext, 'leaderNamespace'>,
): Decision[] {
  const liveExports = list(s.leader, MC_ANY, 'ResourceExport', ctx.leaderNamespace);
  const liveImports = list(s.leader, MC_ANY, 'ResourceImport', ctx.leaderNamespace);
  const exports = liveExports.map((e) => trimExport(e as unknown as Json));
  const imports = new Map(liveImports.map((i) => [i.metadata.name, trimImport(i as unknown as Json)]));
  const sameSpec: SameSpec = (existing, desired) => existing.specDigest === specDigest(desired);
  const now = s.readAt;
  const nowMs = parseTime(now) ?? 0;
  const decisions: Decision[] = [];

  // Services: every Service named by an export or an Endpoints import.
  const services = new Set<string>();
  for (const e of exports)
    if (
      (e.spec?.kind === 'Service' || e.spec?.kind === 'Endpoints') &&
      typeof e.spec.namespace === 'string' &&
      typeof e.spec.name === 'string'
    )
      services.add(`${e.spec.namespace}/${e.spec.name}`);
  for (const i of imports.values())
    if (i.kind === 'Endpoints' && i.specNamespace !== undefined && i.specName !== undefined)
      services.add(`${i.specNamespace}/${i.specName}`);
  for (const key of [...services].sort(cmp)) {
    const [namespace, name] = key.split('/') as [string, string];
    decisions.push({
      key: `svc/${key}`,
      outcome: reconcileService({
        config,
        namespace,
        name,
        exports: exports.filter(
          (e) =>
            (e.spec?.kind === 'Service' || e.spec?.kind === 'Endpoints') &&
            e.spec.namespace === namespace &&
            e.spec.name === name,
        ),
        existing: imports.get(`${namespace}-${name}-endpoints`),
        compiled: imports.get(`${namespace}-${name}-service`),
        sameSpec,
        now,
      }),
    });
  }
  // ClusterInfo.
  const infos = new Set<string>();
  for (const e of exports) if (e.spec?.kind === 'ClusterInfo') infos.add(e.name);
  for (const i of imports.values()) if (i.kind === 'ClusterInfo') infos.add(i.name);
  for (const name of [...infos].sort(cmp))
    decisions.push({
      key: `ci/${name}`,
      outcome: reconcileClusterInfo({
        config,
        name,
        export: exports.find((e) => e.name === name && e.spec?.kind === 'ClusterInfo'),
        existing: imports.get(name),
        sameSpec,
        now,
      }),
    });
  // Label identities: IDs adopted as the reconciler adopts them at start (label-ids.ts), the oldest import first.
  const labelImports = [...imports.values()]
    .filter((i) => i.kind === 'LabelIdentity')
    .sort((a, b) => cmp(a.creationTimestamp, b.creationTimestamp) || cmp(a.name, b.name));
  const owner = new Map<number, string>();
  for (const i of labelImports)
    if (i.labelId !== undefined && !owner.has(i.labelId)) owner.set(i.labelId, i.name);
  let next = 1;
  const ids: LabelIds = {
    ownerOf: (id) => owner.get(id),
    allocate: (hash) => {
      while (owner.has(next)) next++;
      owner.set(next, hash);
      return next;
    },
  };
  const hashes = new Set<string>();
  const labelExports = exports.filter((e) => e.spec?.kind === 'LabelIdentity');
  for (const e of labelExports) {
    const h = labelHashOfExportName(e.name);
    if (h) hashes.add(h);
  }
  for (const i of labelImports) hashes.add(i.name);
  for (const hash of [...hashes].sort(cmp))
    decisions.push({
      key: `label/${hash}`,
      outcome: reconcileLabel({
        config,
        hash,
        exports: labelExports.filter((e) => labelHashOfExportName(e.name) === hash),
        existing: imports.get(hash),
        ids,
        sameSpec,
        now,
      }),
    });
  // Members: every member of the model, and every cluster that announces or exports.
  const announces = list(s.leader, MC_ANY, 'MemberClusterAnnounce', ctx.leaderNamespace).map((a) =>
    trimAnnounce(a as unknown as Json, RECONCILER_FIELD_MANAGER),
  );
  const clusterIds = new Set<string>(config.members.map((m) => m.id));
  for (const a of announces) {
    const id = a.clusterID ?? announceClusterId(a.name);
    if (id) clusterIds.add(id);
  }
  for (const e of exports) if (typeof e.spec?.clusterID === 'string') clusterIds.add(e.spec.clusterID);
  for (const id of [...clusterIds].sort(cmp))
    decisions.push({
      key: `member/${id}`,
      outcome: reconcileMember({
        clusterId: id,
        isMember: config.members.some((m) => m.id === id),
        announce: announces.find((a) => a.name === announceName(id)),
        exports: exports.filter((e) => e.spec?.clusterID === id),
        retireAfterMs: config.retireMembersAfterSeconds * 1000,
        nowMs,
      }),
    });
  // Exports no reconcile owns (an ACNP export among them: replicated policies are compiled).
  for (const e of [...exports].sort((a, b) => cmp(a.name, b.name)))
    if (exportKey(e) === `export/${e.name}`)
      decisions.push({ key: `export/${e.name}`, outcome: reconcileStray(e, now) });
  // The leader ClusterSet's status.
  const cs = list(s.leader, MC_ANY, 'ClusterSet', ctx.leaderNamespace).find(
    (o) => o.metadata.name === config.clusterSetId,
  );
  decisions.push({
    key: 'clusterset',
    outcome: reconcileClusterSet({
      clusterSet: cs ? trimClusterSet(cs as unknown as Json) : undefined,
      announces,
      nowMs,
    }),
  });
  return decisions;
}

function dynamicImports(
  s: LiveSnapshot,
  decisions: readonly Decision[],
  ctx: CompareContext,
  notes: Notes,
): void {
  const liveExports = list(s.leader, MC_ANY, 'ResourceExport', ctx.leaderNamespace);
  const liveImports = list(s.leader, MC_ANY, 'ResourceImport', ctx.leaderNamespace);
  const imports = new Map(liveImports.map((i) => [i.metadata.name, trimImport(i as unknown as Json)]));
  const liveImport = new Map(liveImports.map((i) => [i.metadata.name, i]));
  const labelExports = liveExports.filter((e) => spec(e).kind === 'LabelIdentity');
  const outcomes = decisions
    .filter((d) => d.key.startsWith('svc/') || d.key.startsWith('ci/'))
    .map((d) => d.outcome);
  const labelOutcomes = decisions.filter((d) => d.key.startsWith('label/')).map((d) => d.outcome);

  const failed = new Set(
    liveExports
      .filter((e) => notes.findings.some((f) => f.code === 'export-failed' && f.path === ref(e)))
      .map((e) => e.metadata.name),
  );
  // Labels some export still carries (accepted or not): a label import none carries was withdrawn.
  const exportedLabels = new Set(
    labelExports.map((e) => {
      const li = spec(e).labelIdentity;
      return isObject(li) ? str(li.normalizedLabel) : undefined;
    }),
  );
  for (const o of [...outcomes, ...labelOutcomes]) {
    for (const a of o.actions) actionFinding(a, liveImport, imports, notes, ctx, exportedLabels);
    for (const r of o.refused)
      if (!failed.has(r.export))
        notes.add({
          class: 'info',
          code: 'export-refused',
          path: `ResourceExport ${ctx.leaderNamespace}/${r.export}`,
          message: `the reconciler refuses this export: ${r.why}`,
        });
  }

  // A leader that never handled label identities (stretched policy off) while members export them.
  if (!ctx.leaderConfig.enableStretchedNetworkPolicy && labelExports.length > 0) {
    const created = labelOutcomes.flatMap((o) => o.actions.filter((a) => a.op === 'createImport')).length;
    notes.add({
      class: 'change',
      code: 'leader-stretched-off',
      path: `ConfigMap ${ctx.leaderNamespace}/antrea-mc-controller-config enableStretchedNetworkPolicy`,
      message:
        `Antrea's leader ran with enableStretchedNetworkPolicy off, so it never imported the ${labelExports.length} label identity export(s) members write; ` +
        `clusterset's reconciler imports them (${created} new LabelIdentity import(s)), and every member gets LabelIdentity objects: ClusterSet-scope selectors start matching`,
      fix: 'review the stretched policies in the members before the cut-over: their ClusterSet-scope peers take effect',
    });
  }
}

function actionFinding(
  a: Action,
  live: ReadonlyMap<string, LiveObject>,
  cached: ReadonlyMap<string, CachedImport>,
  notes: Notes,
  ctx: CompareContext,
  exportedLabels: ReadonlySet<string | undefined>,
): void {
  const name = `ResourceImport ${ctx.leaderNamespace}/${a.name}`;
  if (a.op === 'createImport') {
    if (a.spec.kind === 'LabelIdentity' && !ctx.leaderConfig.enableStretchedNetworkPolicy) return; // leader-stretched-off says it
    notes.add({
      class: 'change',
      code: 'dynamic-import-created',
      path: name,
      message: `the reconciler creates ${name} (${a.spec.kind}): every member gets ${importEffect(a.spec)}`,
    });
  } else if (a.op === 'deleteImport') {
    const l = live.get(a.name);
    const li = spec(l).labelIdentity;
    const label = spec(l).kind === 'LabelIdentity' && isObject(li) ? str(li.label) : undefined;
    if (label !== undefined && !exportedLabels.has(label)) {
      // Pods' label sets come and go: no member exports this label any more, and Antrea's leader
      // deletes its import as well; the cut-over loses nothing.
      notes.add({
        class: 'info',
        code: 'label-withdrawn',
        path: name,
        message: `no member exports label ${JSON.stringify(label)} any more: its import goes, as Antrea's leader would delete it too`,
      });
      return;
    }
    notes.add({
      class: 'change',
      code: 'dynamic-import-deleted',
      path: name,
      message: `no accepted export backs ${name} (an orphan import): the reconciler deletes it, and every member deletes ${importEffect(l?.spec)}`,
      fix: 'if a member still serves it, make its export valid first (see the export findings), then import again',
    });
  } else if (a.op === 'replaceImport') {
    const l = live.get(a.name);
    const lspec = spec(l);
    if (a.spec.kind === 'Endpoints') {
      const before = addressSet(isObject(lspec.endpoints) ? lspec.endpoints.subsets : undefined);
      const after = addressSet(a.spec.endpoints.subsets);
      if (before.join('\n') === after.join('\n')) {
        notes.add({
          class: 'info',
          code: 'endpoints-order',
          path: `${name} spec.endpoints.subsets`,
          message:
            "same addresses, other order: Antrea's leader concatenated the exporters' subsets in informer order, the reconciler " +
            'sorts them by cluster ID. The import is rewritten once in place; members copy the subsets into Endpoints ' +
            `${String(lspec.namespace)}/antrea-mc-${String(lspec.name)}, whose addresses stay the same (Kubernetes and kube-proxy treat them as a set): no connection is affected`,
        });
        return;
      }
      const gone = before.filter((x) => !after.includes(x));
      const added = after.filter((x) => !before.includes(x));
      notes.add({
        class: 'change',
        code: 'endpoints-changed',
        path: `${name} spec.endpoints.subsets`,
        message: `the reconciler rewrites the endpoints${gone.length ? `; leaving: ${gone.join('; ')}` : ''}${added.length ? `; joining: ${added.join('; ')}` : ''}`,
      });
      return;
    }
    if (a.spec.kind === 'LabelIdentity') {
      const before = cached.get(a.name)?.labelId;
      notes.add({
        class: 'change',
        code: before !== a.spec.labelIdentity.id ? 'label-id-changed' : 'import-changed',
        path: `${name} spec.labelIdentity`,
        message: `the reconciler rewrites it: id ${String(before)} → ${a.spec.labelIdentity.id}, label ${show(a.spec.labelIdentity.label)}; every member updates its LabelIdentity, and traffic stamped with the old ID is matched by it no more`,
      });
      return;
    }
    for (const d of diffJson(lspec, a.spec, 'spec'))
      notes.add({
        class: 'change',
        code: 'import-changed',
        path: `${name} ${d.path}`,
        message: `live ${show(d.live)}, the reconciler writes ${show(d.rendered)}: updated in place in every member`,
      });
  }
}
