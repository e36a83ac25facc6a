/**
 * Each Service of the model, end to end: every exporter's ServiceExport and its export to the
 * leader (the Service and endpoints ResourceExports and their status), then each member's import,
 * whose endpoints are traced back to the exporters they come from; and a member's export left in
 * the leader after its ServiceExport went.
 */
import { memberImportName, serviceExportName } from '../../names';
import type { PlannedService } from '../../plan';
import { findNamed, kindKey, listOf, nameOf, SERVICE_EXPORTS_ALL, type Obj } from '../live';
import { conditionOf, describeCondition, type Problems } from './problems';
import type { ExporterReport, ImporterReport, ServiceReport, StatusInput } from './types';

/** The IPs of every address in `subsets`. */
function addressesOf(subsets: unknown): string[] {
  if (!Array.isArray(subsets)) return [];
  return subsets.flatMap((s: Obj) =>
    Array.isArray(s.addresses) ? s.addresses.map((a: Obj) => String(a.ip ?? '')) : [],
  );
}

/**
 * A member's Service export left in the leader after its ServiceExport went: Antrea's member drops
 * the ServiceExport reconciles that come before its connection to the leader (antrea-mc.md §i), so
 * after any restart of its controller it does not know it exported a quiet Service, and never
 * withdraws it when its ServiceExport is deleted. The member's restart Job makes good what its own
 * restarts would lose; an operator's restart does not. Named with what it means and the fix.
 */
export function leftoverExports(inp: StatusInput, id: string, p: Problems): void {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  const own = inp.reads.get(id);
  if (!leader || leader.unreachable || !own || own.unreachable) return;
  const exports = listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)) ?? [];
  const present = listOf(own, SERVICE_EXPORTS_ALL);
  if (present === undefined) return;
  const have = new Set(present.map((o) => `${String((o.metadata as Obj).namespace)}/${nameOf(o)}`));
  for (const e of exports) {
    const spec = (e.spec as Obj | undefined) ?? {};
    if (spec.kind !== 'Service' || spec.clusterID !== id) continue;
    if ((e.metadata as Obj | undefined)?.deletionTimestamp) continue; // being withdrawn
    const svc = `${String(spec.namespace)}/${String(spec.name)}`;
    if (have.has(svc)) continue;
    const names = [nameOf(e), serviceExportName(id, String(spec.namespace), String(spec.name), 'endpoints')];
    p.add(
      plan.services.some((x) => `${x.namespace}/${x.name}` === svc) ? svc : id,
      `${id} has no ServiceExport ${svc}, yet its export ${nameOf(e)} is still in the leader: Antrea's member controller did not withdraw it ` +
        `(it drops what it sees before it connects to the leader, so after a restart of the controller it does not know it exported ${svc}, and the deletion of the ServiceExport went unheeded). ` +
        `Withdraw it: \`kubectl --context <${plan.leader.id}> -n ${plan.leaderNamespace} delete resourceexport ${names.join(' ')}\` ` +
        `(the reconciler releases their finalizers and takes ${id}'s endpoints out of the import), or restart Antrea's member controller in ${id}: once connected, its stale cleanup deletes them`,
    );
  }
}

export function serviceReport(inp: StatusInput, svc: PlannedService, p: Problems): ServiceReport {
  const { plan } = inp;
  const what = `${svc.namespace}/${svc.name}`;
  const leader = inp.reads.get(plan.leader.id);
  const exportsList =
    leader && !leader.unreachable
      ? listOf(leader, kindKey('ResourceExport', plan.leaderNamespace))
      : undefined;
  const ipOwner = new Map<string, string>();
  const exporters: ExporterReport[] = svc.exportedFrom.map((id) => {
    const own = inp.reads.get(id);
    const se =
      own && !own.unreachable
        ? findNamed(listOf(own, kindKey('ServiceExport', svc.namespace)), svc.name)
        : undefined;
    const valid = conditionOf(se, 'Valid');
    if (own && !own.unreachable) {
      if (!se) p.add(what, `${id} has no ServiceExport`);
      else if (valid?.status !== 'True')
        p.add(what, `${id}'s ServiceExport is not Valid (${describeCondition(valid)})`);
    }
    const re = findNamed(exportsList, serviceExportName(id, svc.namespace, svc.name, 'service'));
    const ep = findNamed(exportsList, serviceExportName(id, svc.namespace, svc.name, 'endpoints'));
    const ips = addressesOf(((ep?.spec as Obj | undefined)?.endpoints as Obj | undefined)?.subsets);
    for (const ip of ips) ipOwner.set(ip, id);
    const cond = conditionOf(re);
    if (exportsList) {
      if (!re)
        p.add(
          what,
          `${id} exports nothing to the leader (no ResourceExport ${serviceExportName(id, svc.namespace, svc.name, 'service')})`,
        );
      else if (!cond) p.add(what, `${id}'s export has no status yet: is the reconciler running?`);
      else if (cond.type !== 'Succeeded')
        p.add(what, `${id}'s export is refused: ${[cond.reason, cond.message].filter(Boolean).join(': ')}`);
    }
    return {
      cluster: id,
      reachable: own !== undefined && own.unreachable === undefined,
      serviceExportPresent: se !== undefined,
      ...(valid ? { serviceExport: valid } : {}),
      export: {
        known: exportsList !== undefined,
        present: re !== undefined,
        ...(cond ? { condition: cond } : {}),
      },
      endpoints: ips.length,
    };
  });
  const expected = exporters
    .filter((e) => e.export.condition?.type === 'Succeeded' && e.endpoints > 0)
    .map((e) => e.cluster)
    .sort();
  const importers: ImporterReport[] = [];
  for (const m of plan.members) {
    const own = inp.reads.get(m.id);
    if (!own || own.unreachable) continue;
    const eps = findNamed(listOf(own, kindKey('Endpoints', svc.namespace)), memberImportName(svc.name));
    const ips = addressesOf(eps?.subsets);
    const from = [...new Set(ips.map((ip) => ipOwner.get(ip) ?? 'unknown'))].sort();
    importers.push({ cluster: m.id, present: eps !== undefined, endpoints: ips.length, from });
    if (expected.length > 0 && from.join(',') !== expected.join(','))
      p.add(
        what,
        eps === undefined
          ? `${m.id} has not imported it (no Endpoints ${svc.namespace}/${memberImportName(svc.name)})`
          : `${m.id} reaches it through ${from.length > 0 ? from.join(', ') : 'no exporter'}, not ${expected.join(', ')}`,
      );
  }
  const reachable = importers.some((i) => i.endpoints > 0);
  if (!reachable && importers.length > 0)
    p.add(what, 'no member can reach it: no member holds an endpoint for it');
  return { namespace: svc.namespace, name: svc.name, exporters, importers, reachable };
}
