/**
 * The reconciler's pure core: from what is (the config, the exports, announces and imports the
 * caches hold, and the time) to what must be done. Nothing here reads the cluster or a clock; the
 * edge (controller.ts) feeds it and applies its actions in order.
 *
 * Each function reconciles one key and is safe to repeat: computed from the present state alone,
 * never from the history of events. Antrea's leader controller is the reference for every shape and
 * message (antrea-mc.md §c.2, §d, §h; leader/*.go); where the model decides instead of "first writer
 * wins", the difference is said where it is made.
 */
import { isIP } from 'node:net';
import {
  announceFinalizer,
  announceName,
  clusterInfoName,
  endpointsImportName,
  labelIdentityExportName,
  labelIdentityHash,
  LEGACY_RESOURCE_EXPORT_FINALIZER,
  RESOURCE_EXPORT_FINALIZER,
  serviceExportName,
  serviceImportName,
} from '../names';
import type { ReconcilerConfig, ReconcilerPort, ReconcilerService } from '../reconciler-config';
import { normalizedLabelProblem } from './normalized-label';
import {
  canonicalJson,
  parseTime,
  type CachedAnnounce,
  type CachedClusterSet,
  type CachedExport,
  type CachedImport,
  type ClusterSetStatus,
  type Condition,
  type ImportClusterStatus,
} from './objects';

/** The largest label identity ID: 24 bits of VNI, 16777215 being "unknown" (Antrea). */
export const MAX_LABEL_ID = 16777214;
/**
 * Bytes of subsets one Endpoints import may carry. etcd refuses requests over 1.5 MiB; the rest is
 * headroom for metadata and managedFields. Exporters past the budget are refused, largest last, so
 * that one huge export never takes a Service's other endpoints down with it.
 */
export const ENDPOINTS_IMPORT_BUDGET = 1_000_000;
/** Antrea's leader counts a member connected while its announce was written in the last 30 s. */
export const CONNECTED_WINDOW_MS = 30_000;
/**
 * How long a Service export being deleted keeps the leader's finalizer while its Endpoints export
 * is still live. Antrea's member withdraws a Service (its ServiceExport deleted, or no endpoints
 * left) by deleting the Service export and then, 20-40 ms later, the Endpoints export; the hold
 * keeps the pair whole through that gap, so the Endpoints export is seen withdrawing, never
 * orphaned. Past it (a member that never deletes the Endpoints export) the Service export goes and
 * the Endpoints export is refused, as it would be at once without the hold.
 */
export const WITHDRAWAL_GRACE_MS = 10_000;

/** What the edge must do, in order. A failed action stops the rest; the key is retried. */
export type Action =
  | { readonly op: 'createImport'; readonly name: string; readonly spec: ImportSpec }
  | { readonly op: 'replaceImport'; readonly name: string; readonly uid: string; readonly spec: ImportSpec }
  | { readonly op: 'deleteImport'; readonly name: string; readonly uid: string }
  | {
      readonly op: 'importStatus';
      readonly name: string;
      readonly uid: string;
      readonly clusterStatuses: readonly ImportClusterStatus[];
    }
  | {
      readonly op: 'exportStatus';
      readonly name: string;
      readonly uid: string;
      readonly condition: Condition;
    }
  | {
      readonly op: 'releaseExport';
      readonly name: string;
      readonly resourceVersion: string;
      readonly finalizers: readonly string[];
    }
  | { readonly op: 'deleteExport'; readonly name: string; readonly uid: string }
  | {
      readonly op: 'announceFinalizers';
      readonly name: string;
      readonly resourceVersion: string;
      readonly finalizers: readonly string[];
    }
  | { readonly op: 'deleteAnnounce'; readonly name: string; readonly uid: string }
  | { readonly op: 'clusterSetStatus'; readonly name: string; readonly status: ClusterSetStatus };

/** The spec of a dynamic ResourceImport. */
export type ImportSpec =
  | {
      readonly name: string;
      readonly namespace: string;
      readonly kind: 'Endpoints';
      readonly endpoints: { readonly subsets: readonly unknown[] };
    }
  | {
      readonly kind: 'ClusterInfo';
      readonly name: string;
      readonly namespace: string;
      readonly clusterinfo: unknown;
    }
  | {
      readonly kind: 'LabelIdentity';
      readonly labelIdentity: { readonly label: string; readonly id: number };
    };

/** An export the reconciler refuses, and why (also written to its status). */
export interface Refusal {
  readonly export: string;
  readonly why: string;
}

export interface Outcome {
  readonly actions: readonly Action[];
  readonly refused: readonly Refusal[];
  /** Reconcile the key again after this long (time-driven state: retirement, readiness). */
  readonly requeueAfterMs?: number;
}

/** Whether a stored import already holds a desired spec (the edge knows what the server stores). */
export type SameSpec = (existing: CachedImport, desired: ImportSpec) => boolean;

// ---------------------------------------------------------------------------------------------------
// Keys: which reconcile an object belongs to.

/** Key of the reconcile that owns an export: derived from its spec and name, never its labels. */
export function exportKey(e: CachedExport): string {
  const s = e.spec;
  if (s?.kind === 'Service' || s?.kind === 'Endpoints') {
    if (typeof s.namespace === 'string' && typeof s.name === 'string') return serviceKey(s.namespace, s.name);
  } else if (s?.kind === 'ClusterInfo') {
    return `ci/${e.name}`;
  } else if (s?.kind === 'LabelIdentity') {
    const hash = labelHashOfExportName(e.name);
    if (hash !== undefined) return `label/${hash}`;
  }
  return `export/${e.name}`;
}

/**
 * Key of the reconcile that owns an import: a dynamic one, or a compiled ServiceImport one (whose
 * status the Service's reconcile keeps); undefined for compiled ACNP imports and foreign ones.
 */
export function importKey(i: CachedImport): string | undefined {
  if (i.kind === 'Endpoints' && i.specNamespace !== undefined && i.specName !== undefined)
    return serviceKey(i.specNamespace, i.specName);
  if (
    i.kind === 'ServiceImport' &&
    i.specNamespace !== undefined &&
    i.specName !== undefined &&
    i.name === serviceImportName(i.specNamespace, i.specName)
  )
    return serviceKey(i.specNamespace, i.specName);
  if (i.kind === 'ClusterInfo') return `ci/${i.name}`;
  if (i.kind === 'LabelIdentity') return `label/${i.name}`;
  return undefined;
}

export function serviceKey(namespace: string, name: string): string {
  return `svc/${namespace}/${name}`;
}

export const CLUSTERSET_KEY = 'clusterset';

export function memberKey(clusterId: string): string {
  return `member/${clusterId}`;
}

/** The cluster ID an announce is named for (`member-announce-from-<id>`), if it is so named. */
export function announceClusterId(name: string): string | undefined {
  const prefix = announceName('');
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined;
}

/** `<hash16>` of a LabelIdentity export name `<id>-<hash16>` (split at the last '-', as Antrea). */
export function labelHashOfExportName(name: string): string | undefined {
  const i = name.lastIndexOf('-');
  if (i <= 0) return undefined;
  const hash = name.slice(i + 1);
  return /^[0-9a-f]{16}$/.test(hash) ? hash : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Shared pieces.

/** Objects in name order, so that the caches' order never leaks into the writes. */
const nameOrder = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

const OUR_FINALIZERS = new Set([RESOURCE_EXPORT_FINALIZER, LEGACY_RESOURCE_EXPORT_FINALIZER]);

/** Antrea's leader status for an export (updateResourceExportStatus), with the reason spelled out. */
export function exportCondition(why: string | undefined, now: string): Condition {
  return why === undefined
    ? { type: 'Succeeded', status: 'True', lastTransitionTime: now }
    : {
        type: 'Failure',
        status: 'False',
        reason: 'ConvergeFailure',
        message: `ResourceExport can't be converged to ResourceImport: ${why}`,
        lastTransitionTime: now,
      };
}

function sameCondition(a: Condition | undefined, b: Condition): boolean {
  return (
    a !== undefined &&
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '')
  );
}

/** The status write an export needs, if any: none while it is being deleted. */
function statusAction(e: CachedExport, why: string | undefined, now: string, onlyFailures = false): Action[] {
  if (e.deleting) return [];
  if (onlyFailures && why === undefined && e.condition?.type !== 'Failure') return [];
  const c = exportCondition(why, now);
  return sameCondition(e.condition, c)
    ? []
    : [{ op: 'exportStatus', name: e.name, uid: e.uid, condition: c }];
}

/** Removes the leader's finalizers from an export being deleted (after its data left the imports). */
function releaseAction(e: CachedExport): Action[] {
  if (!e.deleting || !e.finalizers.some((f) => OUR_FINALIZERS.has(f))) return [];
  return [
    {
      op: 'releaseExport',
      name: e.name,
      resourceVersion: e.resourceVersion,
      finalizers: e.finalizers.filter((f) => !OUR_FINALIZERS.has(f)),
    },
  ];
}

/** Create, replace or delete one import so that it holds `desired` (or nothing). */
function importActions(
  name: string,
  existing: CachedImport | undefined,
  desired: ImportSpec | undefined,
  sameSpec: SameSpec,
): Action[] {
  if (desired === undefined)
    return existing && !existing.deleting ? [{ op: 'deleteImport', name, uid: existing.uid }] : [];
  if (existing === undefined) return [{ op: 'createImport', name, spec: desired }];
  if (existing.deleting) return []; // gone soon; the delete event brings the key back
  return sameSpec(existing, desired) ? [] : [{ op: 'replaceImport', name, uid: existing.uid, spec: desired }];
}

/** An existing import of another kind under the name we need: Antrea never overwrites those. */
function foreignImport(existing: CachedImport | undefined, kind: string): string | undefined {
  return existing && existing.kind !== kind
    ? `ResourceImport ${existing.name} already exists with kind ${existing.kind ?? '(none)'}; it is not the reconciler's to replace`
    : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What is wrong with the subsets of an Endpoints export, if anything. */
export function subsetsProblem(subsets: unknown): string | undefined {
  if (!Array.isArray(subsets)) return 'spec.endpoints.subsets is missing';
  for (const [i, s] of subsets.entries()) {
    if (!isObject(s)) return `spec.endpoints.subsets[${i}] is not an object`;
    const addresses = s.addresses ?? [];
    if (!Array.isArray(addresses)) return `spec.endpoints.subsets[${i}].addresses is not a list`;
    for (const [j, a] of addresses.entries()) {
      if (!isObject(a) || typeof a.ip !== 'string' || isIP(a.ip) === 0)
        return `spec.endpoints.subsets[${i}].addresses[${j}].ip ${JSON.stringify(isObject(a) ? a.ip : a)} is not an IP address`;
    }
    const ports = s.ports ?? [];
    if (!Array.isArray(ports)) return `spec.endpoints.subsets[${i}].ports is not a list`;
    for (const [j, p] of ports.entries()) {
      if (!isObject(p) || !Number.isInteger(p.port) || (p.port as number) < 1 || (p.port as number) > 65535)
        return `spec.endpoints.subsets[${i}].ports[${j}].port is not a port number`;
    }
  }
  return undefined;
}

/** The ports of a Service export as the compiled ServiceImport writes them (SvcPortsConverter). */
export function convertedPorts(ports: unknown): ReconcilerPort[] | undefined {
  if (!Array.isArray(ports)) return undefined;
  const out: ReconcilerPort[] = [];
  for (const p of ports) {
    if (!isObject(p) || !Number.isInteger(p.port)) return undefined;
    out.push({
      name: typeof p.name === 'string' ? p.name : '',
      port: p.port as number,
      protocol: (typeof p.protocol === 'string' ? p.protocol : 'TCP') as ReconcilerPort['protocol'],
    });
  }
  return out;
}

export function portsText(ports: readonly ReconcilerPort[]): string {
  return `[${ports.map((p) => `${p.port}/${p.protocol}${p.name ? ` ${p.name}` : ''}`).join(', ')}]`;
}

function samePorts(a: readonly ReconcilerPort[], b: readonly ReconcilerPort[]): boolean {
  return (
    a.length === b.length &&
    a.every((p, i) => p.name === b[i]!.name && p.port === b[i]!.port && p.protocol === b[i]!.protocol)
  );
}

function memberProblem(config: ReconcilerConfig, clusterId: unknown): string | undefined {
  if (typeof clusterId !== 'string' || clusterId === '') return 'spec.clusterID is missing';
  return config.members.some((m) => m.id === clusterId)
    ? undefined
    : `cluster ${clusterId} is not a member of ClusterSet ${config.clusterSetId}`;
}

// ---------------------------------------------------------------------------------------------------
// Services: the Endpoints import and the status of Service and Endpoints exports.

export interface ServiceInputs {
  readonly config: ReconcilerConfig;
  readonly namespace: string;
  readonly name: string;
  /** Every Service and Endpoints export whose spec names this Service, from any cluster. */
  readonly exports: readonly CachedExport[];
  /** The import named `<ns>-<name>-endpoints`, if it exists. */
  readonly existing: CachedImport | undefined;
  /** The compiled import named `<ns>-<name>-service`, if it exists: its status is kept here. */
  readonly compiled?: CachedImport | undefined;
  readonly sameSpec: SameSpec;
  /** RFC 3339, for lastTransitionTime. */
  readonly now: string;
  /** @default ENDPOINTS_IMPORT_BUDGET */
  readonly budget?: number;
}

/** Why a Service or Endpoints export cannot take part, judged on its own (no siblings). */
function serviceExportProblem(
  config: ReconcilerConfig,
  svc: ReconcilerService | undefined,
  ns: string,
  name: string,
  e: CachedExport,
): string | undefined {
  const s = e.spec!;
  const kind = s.kind as 'Service' | 'Endpoints';
  const member = memberProblem(config, s.clusterID);
  if (member) return member;
  const id = s.clusterID as string;
  const expected = serviceExportName(id, ns, name, kind === 'Service' ? 'service' : 'endpoints');
  if (e.name !== expected)
    return `a ${kind} export of ${ns}/${name} from cluster ${id} must be named ${expected}, not ${e.name}`;
  if (kind === 'Service') {
    const service = isObject(s.service) ? s.service : undefined;
    const spec = service && isObject(service.serviceSpec) ? service.serviceSpec : undefined;
    if (!spec || !Array.isArray(spec.ports)) return 'spec.service.serviceSpec.ports is missing';
  } else {
    const endpoints = isObject(s.endpoints) ? s.endpoints : undefined;
    const problem = subsetsProblem(endpoints?.subsets);
    if (problem) return problem;
  }
  if (!svc) return `Service ${ns}/${name} is not exported in the ClusterSet model`;
  if (!svc.exportedFrom.includes(id))
    return `cluster ${id} is not listed in exportedFrom of Service ${ns}/${name} (${svc.exportedFrom.join(', ') || 'none'})`;
  if (kind === 'Service') {
    const ports = convertedPorts((s.service as { serviceSpec: { ports: unknown } }).serviceSpec.ports);
    if (!ports) return 'spec.service.serviceSpec.ports is not a list of ports';
    if (!samePorts(ports, svc.ports))
      return `ports ${portsText(ports)} differ from the model's ${portsText(svc.ports)} for ${ns}/${name}`;
  }
  return undefined;
}

export function reconcileService(input: ServiceInputs): Outcome {
  const inp = { ...input, exports: [...input.exports].sort(nameOrder) };
  const { config, namespace: ns, name } = inp;
  const svc = config.services.find((s) => s.namespace === ns && s.name === name);
  const importName = endpointsImportName(ns, name);
  const why = new Map<string, string | undefined>();
  for (const e of inp.exports) why.set(e.name, serviceExportProblem(config, svc, ns, name, e));

  const foreign = foreignImport(inp.existing, 'Endpoints');
  // An Endpoints export needs its own Service export, live and accepted (Antrea: "has not been
  // converged"), so that endpoints never flow under ports the model does not declare. One whose
  // Service export is being deleted is withdrawing (Antrea's member deletes both, the Service export
  // first): its endpoints leave the import, and it is neither refused nor given a status.
  const byName = new Map(inp.exports.map((e) => [e.name, e]));
  const withdrawing = new Set<string>();
  for (const e of inp.exports) {
    if (e.spec!.kind !== 'Endpoints' || why.get(e.name) !== undefined) continue;
    const sibling = serviceExportName(e.spec!.clusterID as string, ns, name, 'service');
    const s = byName.get(sibling);
    if (!s) why.set(e.name, `the Service export ${sibling} does not exist`);
    else if (s.deleting) withdrawing.add(e.name);
    else if (why.get(sibling) !== undefined) why.set(e.name, `the Service export ${sibling} is refused`);
  }
  if (foreign)
    for (const e of inp.exports)
      if (why.get(e.name) === undefined && !withdrawing.has(e.name)) why.set(e.name, foreign);

  // Live, accepted Endpoints exports within the size budget: the smallest first, so that one huge
  // export never crowds out the others; the subsets then go in cluster ID order.
  const budget = inp.budget ?? ENDPOINTS_IMPORT_BUDGET;
  const clusterOrder = (a: CachedExport, b: CachedExport) =>
    (a.spec!.clusterID as string) < (b.spec!.clusterID as string) ? -1 : 1;
  const live = inp.exports
    .filter(
      (e) =>
        e.spec!.kind === 'Endpoints' &&
        !e.deleting &&
        !withdrawing.has(e.name) &&
        why.get(e.name) === undefined,
    )
    .map((e) => ({ e, size: canonicalJson((e.spec!.endpoints as { subsets: unknown[] }).subsets).length }))
    .sort((a, b) => a.size - b.size || clusterOrder(a.e, b.e));
  let used = 0;
  for (const { e, size } of live) {
    if (used + size > budget) {
      why.set(
        e.name,
        `its endpoints (${size} bytes) would make ResourceImport ${importName} larger than ${budget} bytes`,
      );
      continue;
    }
    used += size;
  }
  const subsets: unknown[] = [];
  for (const { e } of [...live].sort((a, b) => clusterOrder(a.e, b.e)))
    if (why.get(e.name) === undefined) subsets.push(...(e.spec!.endpoints as { subsets: unknown[] }).subsets);
  const contributing = live.filter(({ e }) => why.get(e.name) === undefined);

  const actions: Action[] = [];
  if (!foreign) {
    const desired: ImportSpec | undefined =
      contributing.length > 0
        ? { name, namespace: ns, kind: 'Endpoints', endpoints: { subsets } }
        : undefined;
    actions.push(...importActions(importName, inp.existing, desired, inp.sameSpec));
  }
  for (const e of inp.exports)
    if (!withdrawing.has(e.name)) actions.push(...statusAction(e, why.get(e.name), inp.now));
  // A Service export being deleted keeps its finalizer while its Endpoints export is live, for
  // WITHDRAWAL_GRACE_MS from its deletion at most (see there).
  const nowMs = parseTime(inp.now);
  let requeueAfterMs: number | undefined;
  for (const e of inp.exports) {
    const id = e.spec!.clusterID;
    if (
      e.deleting &&
      e.spec!.kind === 'Service' &&
      typeof id === 'string' &&
      e.name === serviceExportName(id, ns, name, 'service')
    ) {
      const sibling = byName.get(serviceExportName(id, ns, name, 'endpoints'));
      const since = parseTime(e.deletionTimestamp);
      const left = nowMs === undefined || since === undefined ? 0 : since + WITHDRAWAL_GRACE_MS - nowMs;
      if (sibling && !sibling.deleting && left > 0) {
        requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, left + 1000);
        continue;
      }
    }
    actions.push(...releaseAction(e));
  }
  actions.push(...importStatusAction(inp.compiled, inp.exports, why, withdrawing, inp.now));
  const refused = refusals(inp.exports, why);
  return requeueAfterMs === undefined ? { actions, refused } : { actions, refused, requeueAfterMs };
}

/** Antrea's leader's message on an import's cluster status (resourceexport_controller.go). */
export const IMPORT_STATUS_SUCCEEDED = 'update is successful';

/**
 * The status of the compiled ServiceImport import, `status.clusterStatuses`: one entry per cluster
 * that exports the Service, in cluster ID order, `Succeeded` True when its exports take part in the
 * import (Antrea's leader's shape and message) and False, with the reason, when the reconciler
 * refuses one of them (the Service export's reason first). Antrea's leader writes only the True
 * entries, on an import update; the refusals are clusterset's, so that Argo CD's and Flux's health
 * checks of the import, which delivery tracks, show a refused export (render/health.ts). Written
 * even with no exporter (an empty list), so that the import always has a status once the reconciler
 * has seen it. Exports being deleted or withdrawn are left out.
 */
function importStatusAction(
  compiled: CachedImport | undefined,
  exports: readonly CachedExport[],
  why: ReadonlyMap<string, string | undefined>,
  withdrawing: ReadonlySet<string>,
  now: string,
): Action[] {
  if (!compiled || compiled.deleting || compiled.kind !== 'ServiceImport') return [];
  const byCluster = new Map<string, CachedExport[]>();
  for (const e of exports) {
    const id = e.spec!.clusterID;
    if (e.deleting || withdrawing.has(e.name) || typeof id !== 'string' || id === '') continue;
    byCluster.set(id, [...(byCluster.get(id) ?? []), e]);
  }
  const old = compiled.clusterStatuses;
  const clusterStatuses = [...byCluster.keys()].sort().map((id) => {
    const refused = byCluster.get(id)!.filter((e) => why.get(e.name) !== undefined);
    const r = refused.find((e) => e.spec!.kind === 'Service') ?? refused[0];
    const next =
      r === undefined
        ? { type: 'Succeeded', status: 'True', message: IMPORT_STATUS_SUCCEEDED }
        : {
            type: 'Succeeded',
            status: 'False',
            reason: 'ConvergeFailure',
            message: `ResourceExport ${r.name} can't be converged to ResourceImport: ${why.get(r.name)!}`,
          };
    const prev = old?.find((s) => s.clusterID === id)?.conditions.find((c) => c.type === 'Succeeded');
    return { clusterID: id, conditions: [carried(prev, next, now)] };
  });
  return old !== undefined && canonicalJson(old) === canonicalJson(clusterStatuses)
    ? []
    : [{ op: 'importStatus', name: compiled.name, uid: compiled.uid, clusterStatuses }];
}

function refusals(exports: readonly CachedExport[], why: ReadonlyMap<string, string | undefined>): Refusal[] {
  return exports
    .filter((e) => !e.deleting && why.get(e.name) !== undefined)
    .map((e) => ({ export: e.name, why: why.get(e.name)! }));
}

// ---------------------------------------------------------------------------------------------------
// ClusterInfo.

export interface ClusterInfoInputs {
  readonly config: ReconcilerConfig;
  /** The export and the import share this name, `<id>-clusterinfo`. */
  readonly name: string;
  readonly export: CachedExport | undefined;
  readonly existing: CachedImport | undefined;
  readonly sameSpec: SameSpec;
  readonly now: string;
}

function clusterInfoProblem(config: ReconcilerConfig, e: CachedExport): string | undefined {
  const s = e.spec!;
  const member = memberProblem(config, s.clusterID);
  if (member) return member;
  const id = s.clusterID as string;
  if (e.name !== clusterInfoName(id))
    return `the ClusterInfo export of cluster ${id} must be named ${clusterInfoName(id)}, not ${e.name}`;
  const info = s.clusterInfo;
  if (!isObject(info)) return 'spec.clusterInfo is missing';
  if (info.clusterID !== id)
    return `clusterInfo.clusterID is ${JSON.stringify(info.clusterID ?? null)}, but the export is from cluster ${id}: another cluster's routing information is refused`;
  if (info.gatewayInfos !== undefined) {
    if (!Array.isArray(info.gatewayInfos)) return 'clusterInfo.gatewayInfos is not a list';
    for (const [i, g] of info.gatewayInfos.entries())
      if (!isObject(g) || typeof g.gatewayIP !== 'string' || isIP(g.gatewayIP) === 0)
        return `clusterInfo.gatewayInfos[${i}].gatewayIP is not an IP address`;
  }
  return undefined;
}

export function reconcileClusterInfo(inp: ClusterInfoInputs): Outcome {
  const e = inp.export;
  const foreign = foreignImport(inp.existing, 'ClusterInfo');
  const why = e ? (clusterInfoProblem(inp.config, e) ?? foreign) : undefined;
  const actions: Action[] = [];
  if (!foreign) {
    const desired: ImportSpec | undefined =
      e && !e.deleting && why === undefined
        ? {
            kind: 'ClusterInfo',
            name: inp.name,
            namespace: inp.config.leaderNamespace,
            clusterinfo: e.spec!.clusterInfo,
          }
        : undefined;
    actions.push(...importActions(inp.name, inp.existing, desired, inp.sameSpec));
  }
  if (e) actions.push(...statusAction(e, why, inp.now), ...releaseAction(e));
  return { actions, refused: e ? refusals([e], new Map([[e.name, why]])) : [] };
}

// ---------------------------------------------------------------------------------------------------
// Label identities.

/** The edge's ID allocator, as the label reconcile uses it. */
export interface LabelIds {
  /** The label hash that holds `id` (the oldest import, if two claim it). */
  ownerOf(id: number): string | undefined;
  /** A fresh ID for `hash`, never handed out before in this cycle of 1..MAX_LABEL_ID. */
  allocate(hash: string): number;
}

export interface LabelInputs {
  readonly config: ReconcilerConfig;
  readonly hash: string;
  /** Every LabelIdentity export named `<id>-<hash>`. */
  readonly exports: readonly CachedExport[];
  readonly existing: CachedImport | undefined;
  readonly ids: LabelIds;
  readonly sameSpec: SameSpec;
  readonly now: string;
}

function labelProblem(config: ReconcilerConfig, hash: string, e: CachedExport): string | undefined {
  const s = e.spec!;
  const member = memberProblem(config, s.clusterID);
  if (member) return member;
  const id = s.clusterID as string;
  if (e.name !== labelIdentityExportName(id, hash))
    return `a LabelIdentity export of cluster ${id} must be named ${labelIdentityExportName(id, hash)}, not ${e.name}`;
  const li = isObject(s.labelIdentity) ? s.labelIdentity : undefined;
  if (!li || typeof li.normalizedLabel !== 'string') return 'spec.labelIdentity.normalizedLabel is missing';
  const actual = labelIdentityHash(li.normalizedLabel);
  if (actual !== hash) return `the normalized label hashes to ${actual}, not ${hash}`;
  // Antrea's leader relays any label, and antrea-controller in every member misreads a malformed
  // one or panics on it (antrea-io/antrea#8385): refused here, it never gets an ID or an import.
  const form = normalizedLabelProblem(li.normalizedLabel);
  if (form) return `spec.labelIdentity.normalizedLabel is not a label as Antrea's member writes it: ${form}`;
  return undefined;
}

export function reconcileLabel(input: LabelInputs): Outcome {
  const inp = { ...input, exports: [...input.exports].sort(nameOrder) };
  const foreign = foreignImport(inp.existing, 'LabelIdentity');
  const why = new Map<string, string | undefined>();
  for (const e of inp.exports) why.set(e.name, labelProblem(inp.config, inp.hash, e) ?? foreign);
  const labels = inp.exports
    .filter((e) => !e.deleting && why.get(e.name) === undefined)
    .map((e) => (e.spec!.labelIdentity as { normalizedLabel: string }).normalizedLabel)
    .sort();
  const actions: Action[] = [];
  if (!foreign) {
    let desired: ImportSpec | undefined;
    const label = labels[0];
    if (label !== undefined) {
      const have = inp.existing;
      const keep =
        have !== undefined &&
        !have.deleting &&
        have.label === label &&
        have.labelId !== undefined &&
        Number.isInteger(have.labelId) &&
        have.labelId >= 1 &&
        have.labelId <= MAX_LABEL_ID &&
        inp.ids.ownerOf(have.labelId) === inp.hash;
      const id = keep ? have.labelId! : have?.deleting ? undefined : inp.ids.allocate(inp.hash);
      if (id !== undefined) desired = { kind: 'LabelIdentity', labelIdentity: { label, id } };
    }
    if (desired !== undefined || !inp.existing?.deleting)
      actions.push(...importActions(inp.hash, inp.existing, desired, inp.sameSpec));
  }
  // Antrea's leader writes no status on label exports. The reconciler refuses some (another
  // cluster's, a name or hash that does not match, a malformed label), and the export's status is
  // the one place in the leader where the member's owner sees why the label got no ID and stretched
  // policies never select those Pods; so a refusal is written, as for Service exports, and cleared
  // once the export is accepted. An accepted export gets no status, as with Antrea.
  for (const e of inp.exports) actions.push(...statusAction(e, why.get(e.name), inp.now, true));
  for (const e of inp.exports) actions.push(...releaseAction(e));
  return { actions, refused: refusals(inp.exports, why) };
}

// ---------------------------------------------------------------------------------------------------
// Exports no reconcile owns (unknown kinds, a spec without the fields that place it).

export function reconcileStray(e: CachedExport, now: string): Outcome {
  const s = e.spec;
  let why: string;
  if (!s) why = 'spec is missing';
  else if (s.kind === 'AntreaClusterNetworkPolicy')
    why = 'replicated policies are compiled from baselinePolicies in the model; this export is ignored';
  else if (s.kind === 'Service' || s.kind === 'Endpoints') why = 'spec.namespace and spec.name are required';
  else if (s.kind === 'LabelIdentity')
    why = `a LabelIdentity export must be named <cluster ID>-<16 hex digits>, not ${e.name}`;
  else
    why = `kind ${JSON.stringify(s.kind ?? null)} is not one a member exports (Service, Endpoints, ClusterInfo, LabelIdentity)`;
  return {
    actions: [...statusAction(e, why, now), ...releaseAction(e)],
    refused: refusals([e], new Map([[e.name, why]])),
  };
}

// ---------------------------------------------------------------------------------------------------
// Members: the announce finalizer, retirement, cleanup.

export interface MemberInputs {
  readonly clusterId: string;
  /**
   * Whether the model lists the cluster as a member. One it no longer lists has lost its identity
   * in the leader in the same sync that dropped it from the config, so it can neither refresh nor
   * delete its announce: it is retired at once, not after `retireAfterMs`. @default true
   */
  readonly isMember?: boolean;
  readonly announce: CachedAnnounce | undefined;
  /** Every export whose spec.clusterID is this cluster. */
  readonly exports: readonly CachedExport[];
  readonly retireAfterMs: number;
  readonly nowMs: number;
}

/**
 * When the member last refreshed its announce: `touch-ts` (RFC 3339, as Antrea's stale controller
 * reads it), else the announce's creation. Antrea deletes an announce whose `touch-ts` does not
 * parse at its next 12-hourly check; here such an announce is timed from its creation instead.
 */
export function lastTouchMs(a: CachedAnnounce): number {
  return parseTime(a.touchTs) ?? parseTime(a.creationTimestamp) ?? 0;
}

export function reconcileMember(inp: MemberInputs): Outcome {
  const a = inp.announce;
  if (!a || a.clusterID !== inp.clusterId) return { actions: [], refused: [] };
  const finalizer = announceFinalizer(inp.clusterId);
  if (a.deleting) {
    // Antrea (leader/stale_controller.go): deleting an announce deletes every export of the
    // cluster, then releases the announce. Each export's own finalizer then withdraws its data.
    // Unlike Antrea's leader, the announce is released only once those exports are gone (the edge
    // requeues this key as each goes): an announce gone means the member has left for good, with
    // no export finalizer left behind. Uninstalling waits for exactly that before the leader
    // namespace is deleted (diff/after-merge/uninstall.ts), where such a finalizer, with the reconciler
    // gone, would hold the namespace in Terminating.
    if (!a.finalizers.includes(finalizer)) return { actions: [], refused: [] };
    if (inp.exports.length > 0)
      return {
        actions: [...inp.exports]
          .sort(nameOrder)
          .filter((e) => !e.deleting)
          .map((e): Action => ({ op: 'deleteExport', name: e.name, uid: e.uid })),
        refused: [],
      };
    return {
      actions: [
        {
          op: 'announceFinalizers',
          name: a.name,
          resourceVersion: a.resourceVersion,
          finalizers: a.finalizers.filter((f) => f !== finalizer),
        },
      ],
      refused: [],
    };
  }
  const silentFor = inp.nowMs - lastTouchMs(a);
  if (silentFor >= inp.retireAfterMs || inp.isMember === false)
    return { actions: [{ op: 'deleteAnnounce', name: a.name, uid: a.uid }], refused: [] };
  const actions: Action[] = a.finalizers.includes(finalizer)
    ? []
    : [
        {
          op: 'announceFinalizers',
          name: a.name,
          resourceVersion: a.resourceVersion,
          finalizers: [...a.finalizers, finalizer],
        },
      ];
  return { actions, refused: [], requeueAfterMs: inp.retireAfterMs - silentFor + 1000 };
}

// ---------------------------------------------------------------------------------------------------
// The leader ClusterSet's status (leader/clusterset_controller.go updateStatus, and the member
// conditions of leader/memberclusterannounce_controller.go).

export interface ClusterSetInputs {
  readonly clusterSet: CachedClusterSet | undefined;
  readonly announces: readonly CachedAnnounce[];
  readonly nowMs: number;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.UnixDate layout, in UTC: `Mon Jan _2 15:04:05 MST 2006`. */
export function unixDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
  );
}

/** RFC 3339 in whole seconds, as Kubernetes writes condition times. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Keeps the old lastTransitionTime while the condition's status stays the same. */
function carried(
  old: Condition | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: string,
): Condition {
  const same = old !== undefined && old.status === next.status;
  return { ...next, lastTransitionTime: same && old.lastTransitionTime ? old.lastTransitionTime : now };
}

export function reconcileClusterSet(inp: ClusterSetInputs): Outcome {
  const cs = inp.clusterSet;
  if (!cs || cs.deleting) return { actions: [], refused: [] };
  const now = rfc3339(inp.nowMs);
  const old = cs.status;
  const members = inp.announces
    .filter((a) => !a.deleting && a.clusterID !== undefined && announceClusterId(a.name) === a.clusterID)
    .sort((a, b) => (a.clusterID! < b.clusterID! ? -1 : 1));
  let nextFlipMs: number | undefined;
  const clusterStatuses = members.map((a) => {
    const id = a.clusterID!;
    const ready = inp.nowMs - a.lastWriteMs <= CONNECTED_WINDOW_MS;
    if (ready) {
      const flip = a.lastWriteMs + CONNECTED_WINDOW_MS - inp.nowMs + 1000;
      nextFlipMs = nextFlipMs === undefined ? flip : Math.min(nextFlipMs, flip);
    }
    const prev = old?.clusterStatuses
      ?.find((s) => s.clusterID === id)
      ?.conditions?.find((c) => c.type === 'Ready');
    const next = ready
      ? { type: 'Ready', status: 'True', reason: 'Connected', message: 'Member Connected' }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'Disconnected',
          message: `No MemberClusterAnnounce update after ${unixDate(a.lastWriteMs)}`,
        };
    return { clusterID: id, conditions: [carried(prev, next, now)] };
  });
  const total = clusterStatuses.length;
  const ready = clusterStatuses.filter((s) => s.conditions[0]!.status === 'True').length;
  const unknown = clusterStatuses.filter((s) => s.conditions[0]!.status === 'Unknown').length;
  const overall =
    ready === total
      ? { type: 'Ready', status: 'True' }
      : unknown === total
        ? {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NoReadyCluster',
            message: 'All clusters have an unknown status',
          }
        : { type: 'Ready', status: 'False', reason: 'NoReadyCluster' };
  const oldOverall = old?.conditions?.length === 1 ? old.conditions[0] : undefined;
  const conditions =
    oldOverall && oldOverall.status === overall.status
      ? [oldOverall]
      : [{ ...overall, lastTransitionTime: now }];
  const status: ClusterSetStatus = {
    observedGeneration: cs.generation,
    totalClusters: total,
    readyClusters: ready,
    clusterStatuses,
    conditions,
  };
  const current: ClusterSetStatus = {
    observedGeneration: old?.observedGeneration,
    totalClusters: old?.totalClusters ?? 0,
    readyClusters: old?.readyClusters ?? 0,
    clusterStatuses: old?.clusterStatuses ?? [],
    conditions: old?.conditions ?? [],
  };
  const actions: Action[] =
    canonicalJson(status) === canonicalJson(current)
      ? []
      : [{ op: 'clusterSetStatus', name: cs.name, status }];
  return { actions, refused: [], ...(nextFlipMs !== undefined ? { requeueAfterMs: nextFlipMs } : {}) };
}
