/**
 * Precomputed ServiceImport ResourceImports, one per exported Service, exactly as Antrea's leader
 * computes them (refreshServiceResourceImport): name `<ns>-<name>-service`, no labels or
 * annotations, `spec: {name, namespace, kind: ServiceImport, serviceImport: {spec: {ports, type}}}`
 * with ports `{name, port, protocol}` in the declared order, type ClusterSetIP, no `ips`.
 */
import { ResourceImport, ResourceImportSpecServiceImportSpecType } from '../../generated/resourceimport';
import { serviceImportName } from '../names';
import type { Plan, PlannedService } from '../plan';
import { meta, put, type Sink } from './util';

export function renderServiceImport(scope: Sink, plan: Plan, svc: PlannedService): void {
  const name = serviceImportName(svc.namespace, svc.name);
  put(scope, ResourceImport, {
    metadata: meta(name, plan.leaderNamespace),
    spec: {
      name: svc.name,
      namespace: svc.namespace,
      kind: 'ServiceImport',
      serviceImport: {
        spec: {
          ports: svc.ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
          type: ResourceImportSpecServiceImportSpecType.CLUSTER_SET_IP,
        },
      },
    },
  });
}
