/**
 * Label identities and ClusterInfos, the exports Antrea's members make of themselves: what the
 * leader holds and refused, and whether each member holds as many imports as the leader has for it.
 */
import { clusterInfoName } from '../../names';
import { kindKey, listOf, nameOf, type Obj } from '../live';
import { conditionOf, describeCondition, type Problems } from './problems';
import type { IdentityReport, StatusInput } from './types';

export function identityReport(inp: StatusInput, p: Problems): IdentityReport | undefined {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  if (!leader || leader.unreachable) return undefined;
  const res = listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)) ?? [];
  const ris = listOf(leader, kindKey('ResourceImport', plan.leaderNamespace)) ?? [];
  const ofKind = (list: readonly Obj[], kind: string) =>
    list.filter((o) => (o.spec as Obj | undefined)?.kind === kind);
  const refused = [...ofKind(res, 'LabelIdentity'), ...ofKind(res, 'ClusterInfo')]
    .filter((o) => conditionOf(o)?.type === 'Failure')
    .map((o) => `${nameOf(o)}: ${describeCondition(conditionOf(o))}`)
    .sort();
  for (const r of refused) p.add('identities', `export refused: ${r}`);
  const labelImports = ofKind(ris, 'LabelIdentity');
  const infoImports = ofKind(ris, 'ClusterInfo').map(nameOf);
  for (const m of plan.members) {
    const own = inp.reads.get(m.id);
    if (!own || own.unreachable) continue;
    const held = listOf(own, kindKey('LabelIdentity'))?.length;
    if (m.enableStretchedNetworkPolicy && held !== undefined && held !== labelImports.length)
      p.add(m.id, `holds ${held} label identities; the leader has ${labelImports.length}`);
    const infos = listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace))?.length;
    const want = infoImports.filter((n) => n !== clusterInfoName(m.id)).length;
    if (infos !== undefined && infos !== want)
      p.add(m.id, `holds ${infos} ClusterInfo imports; the leader has ${want} for it`);
  }
  return {
    labelIdentities: { exports: ofKind(res, 'LabelIdentity').length, imports: labelImports.length },
    clusterInfos: { exports: ofKind(res, 'ClusterInfo').length, imports: infoImports.length },
    refused,
  };
}
