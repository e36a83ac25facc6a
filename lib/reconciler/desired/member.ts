/**
 * Members (keys `member/<id>`): the finalizer on a member's announce, its retirement once silent
 * (or at once, when the model no longer lists it), and the deletion of its exports before its
 * announce is released.
 */
import { announceFinalizer } from '../../names';
import { parseTime, type CachedAnnounce, type CachedExport } from '../objects';
import { nameOrder } from './exports';
import type { Action, Outcome } from './outcome';

export interface MemberInputs {
  readonly clusterId: string;
  /**
   * Whether the model lists the cluster as a member. One it no longer lists has lost its identity
   * in the leader in the same sync that dropped it from the config, so it can neither refresh nor
   * delete its announce: it is retired at once, not after `retireAfterMs`. @default true
   */
  readonly isMember?: boolean;
  readonly announce: CachedAnnounce | undefined;
  /** Every export whose spec.clusterID is this cluster. */
  readonly exports: readonly CachedExport[];
  readonly retireAfterMs: number;
  readonly nowMs: number;
}

/**
 * When the member last refreshed its announce: `touch-ts` (RFC 3339, as Antrea's stale controller
 * reads it), else the announce's creation. Antrea deletes an announce whose `touch-ts` does not
 * parse at its next 12-hourly check; here such an announce is timed from its creation instead.
 */
export function lastTouchMs(a: CachedAnnounce): number {
  return parseTime(a.touchTs) ?? parseTime(a.creationTimestamp) ?? 0;
}

export function reconcileMember(inp: MemberInputs): Outcome {
  const a = inp.announce;
  if (!a || a.clusterID !== inp.clusterId) return { actions: [], refused: [] };
  const finalizer = announceFinalizer(inp.clusterId);
  if (a.deleting) {
    // Antrea (leader/stale_controller.go): deleting an announce deletes every export of the
    // cluster, then releases the announce. Each export's own finalizer then withdraws its data.
    // Unlike Antrea's leader, the announce is released only once those exports are gone (the edge
    // requeues this key as each goes): an announce gone means the member has left for good, with
    // no export finalizer left behind. Uninstalling waits for exactly that before the leader
    // namespace is deleted (diff/after-merge/uninstall.ts), where such a finalizer, with the reconciler
    // gone, would hold the namespace in Terminating.
    if (!a.finalizers.includes(finalizer)) return { actions: [], refused: [] };
    if (inp.exports.length > 0)
      return {
        actions: [...inp.exports]
          .sort(nameOrder)
          .filter((e) => !e.deleting)
          .map((e): Action => ({ op: 'deleteExport', name: e.name, uid: e.uid })),
        refused: [],
      };
    return {
      actions: [
        {
          op: 'announceFinalizers',
          name: a.name,
          resourceVersion: a.resourceVersion,
          finalizers: a.finalizers.filter((f) => f !== finalizer),
        },
      ],
      refused: [],
    };
  }
  const silentFor = inp.nowMs - lastTouchMs(a);
  if (silentFor >= inp.retireAfterMs || inp.isMember === false)
    return { actions: [{ op: 'deleteAnnounce', name: a.name, uid: a.uid }], refused: [] };
  const actions: Action[] = a.finalizers.includes(finalizer)
    ? []
    : [
        {
          op: 'announceFinalizers',
          name: a.name,
          resourceVersion: a.resourceVersion,
          finalizers: [...a.finalizers, finalizer],
        },
      ];
  return { actions, refused: [], requeueAfterMs: inp.retireAfterMs - silentFor + 1000 };
}
