/**
 * Exports no reconcile owns (keys `export/<name>`): an unknown kind, or a spec without the fields
 * that place it. Each is refused with why, and released when it is deleted.
 */
import type { CachedExport } from '../objects';
import { refusals, releaseAction, statusAction } from './exports';
import type { Outcome } from './outcome';

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
