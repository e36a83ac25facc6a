/**
 * A member's membership: its announce in the leader (MemberClusterAnnounce, refreshed by Antrea's
 * member controller), the leader ClusterSet's view of it and its own ClusterSet's Ready condition;
 * and, while the ClusterSet is uninstalled, what is left of it, in the order it goes.
 */
import { announceName, IMPORTED_ACNP_ANNOTATION, TOUCH_TS_ANNOTATION } from '../../names';
import { findNamed, kindKey, listOf, nameOf, type ClusterRead, type Obj } from '../live';
import { annotations, conditionOf, describeCondition, type Problems, secondsSince } from './problems';
import type { ClusterReport, Condition, StatusInput } from './types';

/** A member whose announce is older than this is reported stale (Antrea refreshes it every 10 s). */
export const ANNOUNCE_STALE_SECONDS = 30;

export function membership(inp: StatusInput, id: string, p: Problems): ClusterReport['membership'] {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  const out: {
    announce: { present: boolean; ageSeconds?: number };
    leaderView?: Condition;
    ready?: Condition;
  } = {
    announce: { present: false },
  };
  if (leader && !leader.unreachable) {
    const a = findNamed(
      listOf(leader, kindKey('MemberClusterAnnounce', plan.leaderNamespace)),
      announceName(id),
    );
    const age = secondsSince(inp.nowMs, annotations(a)[TOUCH_TS_ANNOTATION]);
    out.announce = { present: a !== undefined, ...(age !== undefined ? { ageSeconds: age } : {}) };
    if (!a)
      p.add(id, `has not announced itself to the leader (no MemberClusterAnnounce ${announceName(id)})`);
    else if (age === undefined || age > ANNOUNCE_STALE_SECONDS)
      p.add(
        id,
        `last announced itself ${age ?? '?'} s ago (Antrea refreshes it every 10 s): is its controller running?`,
      );
    const cs = findNamed(listOf(leader, kindKey('ClusterSet', plan.leaderNamespace)), plan.clusterSetId);
    const statuses = (cs?.status as Obj | undefined)?.clusterStatuses;
    const mine = Array.isArray(statuses) ? (statuses as Obj[]).find((s) => s.clusterID === id) : undefined;
    const c = mine ? conditionOf({ status: mine }, 'Ready') : undefined;
    if (c) out.leaderView = c;
    if (c?.status !== 'True')
      p.add(id, `the leader ClusterSet reports it ${c ? describeCondition(c) : 'not at all'}`);
  }
  const own = inp.reads.get(id);
  if (own && !own.unreachable) {
    const cs = findNamed(listOf(own, kindKey('ClusterSet', plan.memberNamespace)), plan.clusterSetId);
    const c = conditionOf(cs, 'Ready');
    if (c) out.ready = c;
    if (c?.status !== 'True')
      p.add(
        id,
        `its ClusterSet ${plan.memberNamespace}/${plan.clusterSetId} is not Ready (${describeCondition(c)})`,
      );
  }
  return out;
}

/**
 * A member of a ClusterSet being uninstalled: what is left of it, each a problem until it is gone,
 * in the order it goes (docs/runbook.md, "Step 9: uninstall").
 */
export function leaving(inp: StatusInput, id: string, p: Problems): NonNullable<ClusterReport['leaving']> {
  const { plan } = inp;
  const readable = (r: ClusterRead | undefined) => (r && !r.unreachable ? r : undefined);
  const own = readable(inp.reads.get(id));
  const leader = readable(inp.reads.get(plan.leader.id));
  const count = (list: readonly Obj[] | undefined, keep: (o: Obj) => boolean = () => true) =>
    list === undefined ? undefined : list.filter(keep).length;
  const clusterSet = count(
    listOf(own, kindKey('ClusterSet', plan.memberNamespace)),
    (o) => nameOf(o) === plan.clusterSetId,
  );
  const announce = count(
    listOf(leader, kindKey('MemberClusterAnnounce', plan.leaderNamespace)),
    (o) => nameOf(o) === announceName(id),
  );
  const exports = count(
    listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)),
    (o) => (o.spec as Obj | undefined)?.clusterID === id,
  );
  const imports = own
    ? [
        ...plan.serviceNamespaces.map((ns) => listOf(own, kindKey('ServiceImport', ns))),
        listOf(own, kindKey('LabelIdentity')),
        listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace)),
        listOf(own, kindKey('ClusterNetworkPolicy'))?.filter(
          (o) => IMPORTED_ACNP_ANNOTATION in annotations(o),
        ),
      ]
    : [];
  const imported =
    own && imports.every((l) => l !== undefined) ? imports.reduce((n, l) => n + l!.length, 0) : undefined;
  if (clusterSet)
    p.add(
      id,
      `still joined: its ClusterSet ${plan.memberNamespace}/${plan.clusterSetId} is there (its delivery deletes it)`,
    );
  if (announce)
    p.add(
      id,
      `has not left the leader: MemberClusterAnnounce ${announceName(id)} is still there (Antrea's member deletes it once its ClusterSet is gone)`,
    );
  if (exports) p.add(id, `${exports} of its exports are still in the leader (the reconciler deletes them)`);
  if (imported)
    p.add(
      id,
      `still holds ${imported} objects Antrea imported (Antrea's member deletes them once it has left)`,
    );
  return {
    ...(clusterSet !== undefined ? { clusterSet } : {}),
    ...(announce !== undefined ? { announce } : {}),
    ...(exports !== undefined ? { exports } : {}),
    ...(imported !== undefined ? { imported } : {}),
  };
}
