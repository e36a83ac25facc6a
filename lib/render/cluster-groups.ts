/**
 * ClusterGroups a member needs: Antrea replicates ACNPs through ResourceImports but not the
 * ClusterGroups they name, and a policy whose `group` does not exist matches nothing there. So every
 * member gets, in the early sync wave of its Tiers, every ClusterGroup named by a policy it gets
 * (baseline policies: every member; stretched policies: their members), child groups included.
 */
import { ClusterGroup } from '../../generated/clustergroup';
import type { ClusterGroupProps } from '../model';
import { groupsOf, ipBlock, selector } from '../policy';
import type { PlannedPolicy } from '../plan';
import { SYNC_WAVE, WAVE_NAMESPACES, meta, put, type Sink } from './util';

/** The ClusterGroups the policies name, with their child groups, in declaration order of `groups`. */
export function groupsNeeded(
  policies: readonly PlannedPolicy[],
  groups: readonly ClusterGroupProps[],
  namesOf: (p: PlannedPolicy) => readonly string[] = groupsOf,
): ClusterGroupProps[] {
  const byName = new Map(groups.map((g) => [g.name, g]));
  const needed = new Set<string>();
  const visit = (name: string) => {
    if (needed.has(name)) return;
    needed.add(name);
    for (const child of byName.get(name)?.childGroups ?? []) visit(child);
  };
  for (const p of policies) for (const g of namesOf(p)) visit(g);
  return groups.filter((g) => needed.has(g.name));
}

export function renderClusterGroup(scope: Sink, g: ClusterGroupProps): void {
  put(scope, ClusterGroup, {
    metadata: meta(g.name, undefined, { annotations: { [SYNC_WAVE]: WAVE_NAMESPACES } }),
    spec: {
      podSelector: selector(g.podSelector),
      namespaceSelector: selector(g.namespaceSelector),
      nodeSelector: selector(g.nodeSelector),
      ipBlocks: g.ipBlocks?.map(ipBlock),
      serviceReference: g.serviceReference
        ? { name: g.serviceReference.name, namespace: g.serviceReference.namespace }
        : undefined,
      childGroups: g.childGroups ? [...g.childGroups] : undefined,
    },
  });
}
