/** MCS ServiceExports (multicluster.x-k8s.io/v1alpha1) for the Services a member exports. */
import type { Construct } from 'constructs';
import { ServiceExport } from '../../generated/serviceexport';
import type { PlannedService } from '../plan';
import { constructId, meta } from './util';

export function renderServiceExport(scope: Construct, svc: PlannedService): void {
  new ServiceExport(scope, constructId('ServiceExport', svc.namespace, svc.name), {
    metadata: meta(svc.name, svc.namespace),
  });
}
