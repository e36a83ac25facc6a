/**
 * Services (keys `svc/<ns>/<name>`): the Endpoints import, which joins the endpoints of every
 * accepted exporter within a size budget; the status of Service and Endpoints exports; the
 * withdrawal of a Service whose exports are being deleted; and the status of the compiled
 * ServiceImport import, one entry per exporting cluster.
 */
import { isIP } from 'node:net';
import { endpointsImportName, serviceExportName } from '../../names';
import type { ReconcilerConfig, ReconcilerPort, ReconcilerService } from '../../reconciler-config';
import { canonicalJson, parseTime, type CachedExport, type CachedImport } from '../objects';
import { carried } from './conditions';
import { isObject, memberProblem, nameOrder, refusals, releaseAction, statusAction } from './exports';
import { foreignImport, importActions } from './imports';
import type { Action, ImportSpec, Outcome, SameSpec } from './outcome';

/**
 * Bytes of subsets one Endpoints import may carry. etcd refuses requests over 1.5 MiB; the rest is
 * headroom for metadata and managedFields. Exporters past the budget are refused, largest last, so
 * that one huge export never takes a Service's other endpoints down with it.
 */
export const ENDPOINTS_IMPORT_BUDGET = 1_000_000;
/**
 * How long a Service export being deleted keeps the leader's finalizer while its Endpoints export
 * is still live. Antrea's member withdraws a Service (its ServiceExport deleted, or no endpoints
 * left) by deleting the Service export and then, 20-40 ms later, the Endpoints export; the hold
 * keeps the pair whole through that gap, so the Endpoints export is seen withdrawing, never
 * orphaned. Past it (a member that never deletes the Endpoints export) the Service export goes and
 * the Endpoints export is refused, as it would be at once without the hold.
 */
export const WITHDRAWAL_GRACE_MS = 10_000;

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
