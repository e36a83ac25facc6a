/**
 * Precomputed ACNP ResourceImports for baseline policies, as Antrea's leader computes them from an
 * admin's ResourceExport (refreshACNPResourceImport): name `<policy>-antreaclusternetworkpolicy`,
 * `spec: {name, kind: AntreaClusterNetworkPolicy, clusternetworkpolicy: <spec>}`, no namespace.
 * Every member imports it as ClusterNetworkPolicy `antrea-mc-<policy>`.
 */
import { ResourceImport } from '../../generated/resourceimport';
import { acnpImportName } from '../names';
import type { Plan, PlannedPolicy } from '../plan';
import { acnpSpecJson } from '../policy';
import { meta, putObject, type Sink } from './util';

export function renderPolicyImport(scope: Sink, plan: Plan, policy: PlannedPolicy): void {
  const name = acnpImportName(policy.name);
  // The payload is the ClusterNetworkPolicySpec the direct renderer uses, built with the
  // crd.antrea.io binding. It is not passed through the ResourceImport binding: that one types its
  // copy of the spec apart (other enums, int-or-string wrapper classes) and its toJson silently
  // drops a plain `port` number. The whole object is checked against the ResourceImport CRD on output.
  putObject(scope, {
    ...ResourceImport.GVK,
    metadata: meta(name, plan.leaderNamespace),
    spec: {
      name: policy.name,
      kind: 'AntreaClusterNetworkPolicy',
      clusternetworkpolicy: acnpSpecJson(policy),
    },
  });
}
