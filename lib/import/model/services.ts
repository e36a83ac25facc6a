/**
 * The model's Services: one for each live ServiceImport import (antrea-mc.md §c.1), its ports in
 * the import's order as Antrea's SvcPortsConverter keeps them; exportedFrom lists the members whose
 * Service export the leader accepted with those ports, or that have a ServiceExport but no export
 * now. An import no member exports (an orphan) and an export without an import stay out of the
 * model, each noted. Pure.
 */
import type { ExportedServiceProps, ServicePortProps } from '../../model';
import { serviceExportName } from '../../names';
import type { Notes } from '../findings';
import {
  MCS_V1ALPHA1,
  type Json,
  cmp,
  find,
  firstCondition,
  isObject,
  ref,
  sameJson,
  spec,
  str,
} from '../live';
import type { Context, LeaderExports } from './context';

interface ServicePort {
  name: string;
  port: number;
  protocol: string;
}

/** Ports as Antrea's SvcPortsConverter keeps them: name ('' for none), port, protocol (TCP by default). */
export function convertPorts(ports: unknown): ServicePort[] | undefined {
  if (!Array.isArray(ports)) return undefined;
  const out: ServicePort[] = [];
  for (const p of ports) {
    if (!isObject(p) || typeof p.port !== 'number') return undefined;
    out.push({ name: str(p.name) ?? '', port: p.port, protocol: str(p.protocol) ?? 'TCP' });
  }
  return out;
}

function portsText(ps: readonly ServicePort[]): string {
  return `[${ps.map((p) => `${p.port}/${p.protocol}${p.name ? ` ${p.name}` : ''}`).join(', ')}]`;
}

const svcKey = (ns: string, name: string) => `${ns}/${name}`;

/** The Services read, with their comments. */
export interface Services {
  readonly services: ExportedServiceProps[];
  /** key, field, text. */
  readonly serviceComments: [string, string, string][];
}

export function importServices(
  { s, notes, memberIds }: Context,
  { exportsAll, importsOfKind, exportsOfKind }: LeaderExports,
): Services {
  const services: ExportedServiceProps[] = [];
  const serviceComments: [string, string, string][] = []; // key, field, text
  for (const ri of importsOfKind('ServiceImport')) {
    const sp = spec(ri);
    const ns = str(sp.namespace);
    const name = str(sp.name);
    const si = isObject(sp.serviceImport) && isObject(sp.serviceImport.spec) ? sp.serviceImport.spec : {};
    const ports = convertPorts(si.ports);
    if (!ns || !name || !ports) {
      notes.add({
        class: 'blocker',
        code: 'import-unreadable',
        path: ref(ri),
        message:
          'a ServiceImport import without spec.namespace, spec.name or serviceImport.spec.ports: the model cannot carry it, and the leader bundle would not render it',
        fix: "find out which controller wrote it; it is none of Antrea's shapes",
      });
      continue;
    }
    if (services.some((x) => x.namespace === ns && x.name === name)) continue;
    const exportedFrom: string[] = [];
    const notesFor: string[] = [];
    for (const id of memberIds) {
      const se = exportsAll.find(
        (e) => e.metadata.name === serviceExportName(id, ns, name, 'service') && spec(e).kind === 'Service',
      );
      if (se) {
        const svc = isObject(spec(se).service) ? (spec(se).service as Json) : {};
        const ePorts = convertPorts(isObject(svc.serviceSpec) ? svc.serviceSpec.ports : undefined);
        const cond = firstCondition(se);
        const failed = cond !== undefined && cond.type === 'Failure';
        const mismatch = ePorts !== undefined && !sameJson(ePorts, ports);
        if (failed || mismatch) {
          notes.add({
            class: 'info',
            code: 'export-failed',
            path: ref(se),
            message:
              `${id}'s export of ${ns}/${name} ` +
              (failed
                ? `failed under Antrea's leader (${String(cond!.reason ?? cond!.type)}: ${String(cond!.message ?? '')})`
                : 'is accepted') +
              (mismatch
                ? `, its ports ${portsText(ePorts!)} differ from the import's ${portsText(ports)}`
                : '') +
              `; the model leaves ${id} out of exportedFrom, so clusterset's reconciler refuses it too`,
            fix: `give ${ns}/${name} in ${id} the ports ${portsText(ports)} (in that order), then add ${id} to exportedFrom`,
          });
          notesFor.push(
            `${id} exports it but is left out: ${failed ? 'its export failed' : "its ports differ from the import's"}.`,
          );
          continue;
        }
        exportedFrom.push(id);
        continue;
      }
      const local = find(s.members[id], MCS_V1ALPHA1, 'ServiceExport', ns, name);
      if (local) {
        exportedFrom.push(id);
        notesFor.push(
          `${id} has a ServiceExport but no export in the leader now (no ready endpoints?): listed as an exporter.`,
        );
      }
    }
    const backed = exportsOfKind('Service').some((e) => spec(e).namespace === ns && spec(e).name === name);
    if (exportedFrom.length === 0) {
      // The model cannot declare a Service no member exports: left out, its import is one the
      // bundle would not render (import-deleted says what that means).
      notes.add({
        class: 'info',
        code: 'orphan-import',
        path: ref(ri),
        message: `no member exports ${ns}/${name}${backed ? " with the import's ports" : ' (no Service export, no ServiceExport)'}: ${ref(ri)} is an orphan, and the model, which declares only exported Services, leaves it out`,
        fix: `export ${ns}/${name} again from a member, or delete the import before the cut-over once no member uses antrea-mc-${name}`,
      });
      continue;
    }
    const modelPorts: ServicePortProps[] = ports.map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      port: p.port,
      ...(p.protocol !== 'TCP' ? { protocol: p.protocol as ServicePortProps['protocol'] } : {}),
    }));
    services.push({ namespace: ns, name, ports: modelPorts, exportedFrom });
    serviceComments.push([svcKey(ns, name), 'ports', `From ${ref(ri)}, in its order.`]);
    for (const n of notesFor) serviceComments.push([svcKey(ns, name), 'exportedFrom', n]);
  }
  for (const e of exportsOfKind('Service')) {
    const ns = str(spec(e).namespace);
    const name = str(spec(e).name);
    if (!ns || !name || services.some((x) => x.namespace === ns && x.name === name)) continue;
    if (!importsOfKind('ServiceImport').some((i) => spec(i).namespace === ns && spec(i).name === name))
      notes.add({
        class: 'info',
        code: 'export-without-import',
        path: ref(e),
        message: `${ref(e)} exports ${ns}/${name}, but no ServiceImport import exists for it (Antrea's leader did not converge it); it stays out of the model and the reconciler refuses it`,
        fix: `add ${ns}/${name} to services with its ports if it should be imported (a new import in every member)`,
      });
  }
  services.sort((a, b) => cmp(svcKey(a.namespace, a.name), svcKey(b.namespace, b.name)));
  return { services, serviceComments };
}

/** The Services' comments, at their model paths. */
export function commentServices(notes: Notes, { services, serviceComments }: Services): void {
  services.forEach((x, i) => {
    for (const [k, field, text] of serviceComments)
      if (k === svcKey(x.namespace, x.name)) notes.comment(`services[${i}].${field}`, text);
  });
}
