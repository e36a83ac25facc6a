/** MCS ServiceExports (multicluster.x-k8s.io/v1alpha1) for the Services a member exports. */
import { ServiceExport } from '../../generated/serviceexport';
import type { PlannedService } from '../plan';
import { meta, put, type Sink } from './util';

export function renderServiceExport(scope: Sink, svc: PlannedService): void {
  put(scope, ServiceExport, {
    metadata: meta(svc.name, svc.namespace),
  });
}
