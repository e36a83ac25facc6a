/**
 * Each baseline and stretched policy of the model: whether every member it applies in holds it,
 * and its Tier, and what Antrea's ACNPImportFailed events in the leader say of a member that does
 * not hold an imported one.
 */
import { acnpImportName, BUILTIN_TIERS, memberImportName } from '../../names';
import type { PlannedPolicy } from '../../plan';
import { ACNP_IMPORT_FAILED, findNamed, kindKey, listOf, type Obj } from '../live';
import type { Problems } from './problems';
import type { PolicyMemberReport, PolicyReport, StatusInput } from './types';

/** Antrea's member controller writes the cluster ID last: "... in importing cluster <id>". */
function eventCluster(message: string): string | undefined {
  return /cluster (\S+)$/.exec(message)?.[1];
}

export function policyReport(inp: StatusInput, pol: PlannedPolicy, p: Problems): PolicyReport {
  const { plan } = inp;
  const object = pol.kind === 'baseline' ? memberImportName(pol.name) : pol.name;
  const tier = pol.tier ?? 'application';
  const leader = inp.reads.get(plan.leader.id);
  const events = (
    leader && !leader.unreachable
      ? (listOf(leader, kindKey('Event', plan.leaderNamespace, `reason=${ACNP_IMPORT_FAILED}`)) ?? [])
      : []
  ).filter(
    (e) => ((e.involvedObject as Obj | undefined)?.name as string | undefined) === acnpImportName(pol.name),
  );
  const members: PolicyMemberReport[] = [];
  for (const id of pol.members) {
    const own = inp.reads.get(id);
    if (!own || own.unreachable) continue;
    const present = findNamed(listOf(own, kindKey('ClusterNetworkPolicy')), object) !== undefined;
    const tierPresent =
      BUILTIN_TIERS.includes(tier) || findNamed(listOf(own, kindKey('Tier')), tier) !== undefined;
    // Antrea's Events outlive what they report (an hour): shown only while the policy is missing.
    const mine = events
      .filter((e) => !present && eventCluster(String(e.message ?? '')) === id)
      .map((e) => String(e.message ?? ''))
      .sort();
    const msgs = [...new Set(mine)];
    members.push({ cluster: id, present, tier, tierPresent, events: msgs });
    const what = `policy ${pol.name}`;
    if (!present) p.add(what, `${id} does not hold ClusterNetworkPolicy ${object}`);
    if (!tierPresent) p.add(what, `${id} has no Tier ${tier}`);
    for (const m of msgs) p.add(what, `${id}: Antrea could not import it: ${m}`);
  }
  return { name: pol.name, kind: pol.kind, object, members };
}
