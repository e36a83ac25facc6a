/**
 * The live ClusterSet in the model's terms: a pure function of the plan, the bundles in out/ and
 * what was read from each cluster (live.ts). Every mismatch is also one line of `problems`, so that
 * the exit code, the text and the JSON agree on what "matches the model" means.
 *
 * This file puts the report together; its types are in types.ts, and each part has its file:
 * clusters.ts (delivered objects, who applied them), reconciler.ts (the leader's Lease and the
 * standby), members.ts (membership, and what is left of a member while uninstalling), restart.ts
 * (the member's restart Job), services.ts, policies.ts and identities.ts.
 */
import type { Plan } from '../../plan';
import { deliveryManagers } from '../delivered';
import { kindKey, listOf } from '../live';
import { clusterReport } from './clusters';
import { identityReport } from './identities';
import { leaving, membership } from './members';
import { policyReport } from './policies';
import { Problems } from './problems';
import { restartReport } from './restart';
import { leftoverExports, serviceReport } from './services';
import type { StatusInput, StatusReport } from './types';

function delivery(plan: Plan): { deliveryManagers?: readonly string[] } {
  const tools = deliveryManagers(plan);
  return tools ? { deliveryManagers: tools } : {};
}

export function statusReport(inp: StatusInput): StatusReport {
  const { plan } = inp;
  const p = new Problems();
  if (plan.uninstall) {
    // Only the leader still holds a bundle; the members are reported by what is left of them.
    const clusters = [
      plan.leader.id,
      ...plan.members.map((m) => m.id).filter((id) => id !== plan.leader.id),
    ].map((id) => {
      const c = clusterReport(inp, id, p);
      return plan.members.some((m) => m.id === id) ? { ...c, leaving: leaving(inp, id, p) } : c;
    });
    return {
      version: 1,
      uninstalling: true,
      clusterSet: plan.clusterSetId,
      leader: plan.leader.id,
      ...delivery(plan),
      at: new Date(inp.nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ok: p.lines.length === 0,
      clusters,
      services: [],
      policies: [],
      problems: p.lines,
    };
  }
  const ids = [plan.leader.id, ...plan.members.map((m) => m.id).filter((id) => id !== plan.leader.id)];
  const clusters = ids.map((id) => {
    const c = clusterReport(inp, id, p);
    if (!plan.members.some((m) => m.id === id)) return c;
    const own = inp.reads.get(id);
    const identities =
      c.reachable && own
        ? {
            identities: {
              labelIdentities: listOf(own, kindKey('LabelIdentity'))?.length ?? 0,
              clusterInfoImports:
                listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace))?.length ?? 0,
            },
          }
        : {};
    const restart = c.reachable ? restartReport(inp, id, p) : undefined;
    leftoverExports(inp, id, p);
    return { ...c, membership: membership(inp, id, p), ...identities, ...(restart ? { restart } : {}) };
  });
  const services = plan.services.map((s) => serviceReport(inp, s, p));
  const policies = [...plan.baselinePolicies, ...plan.stretchedPolicies]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((pol) => policyReport(inp, pol, p));
  const identities = identityReport(inp, p);
  return {
    version: 1,
    clusterSet: plan.clusterSetId,
    leader: plan.leader.id,
    ...delivery(plan),
    at: new Date(inp.nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ok: p.lines.length === 0,
    clusters,
    services,
    policies,
    ...(identities ? { identities } : {}),
    problems: p.lines,
  };
}
