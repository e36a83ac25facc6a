/**
 * The leader ClusterSet's status (key `clusterset`; leader/clusterset_controller.go updateStatus,
 * and the member conditions of leader/memberclusterannounce_controller.go): each announced member
 * Ready while its announce was written in the last 30 s, the ClusterSet Ready when every member is.
 */
import { canonicalJson, type CachedAnnounce, type CachedClusterSet, type ClusterSetStatus } from '../objects';
import { carried, rfc3339 } from './conditions';
import { announceClusterId } from './keys';
import type { Action, Outcome } from './outcome';

/** Antrea's leader counts a member connected while its announce was written in the last 30 s. */
export const CONNECTED_WINDOW_MS = 30_000;

export interface ClusterSetInputs {
  readonly clusterSet: CachedClusterSet | undefined;
  readonly announces: readonly CachedAnnounce[];
  readonly nowMs: number;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.UnixDate layout, in UTC: `Mon Jan _2 15:04:05 MST 2006`. */
export function unixDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
  );
}

export function reconcileClusterSet(inp: ClusterSetInputs): Outcome {
  const cs = inp.clusterSet;
  if (!cs || cs.deleting) return { actions: [], refused: [] };
  const now = rfc3339(inp.nowMs);
  const old = cs.status;
  const members = inp.announces
    .filter((a) => !a.deleting && a.clusterID !== undefined && announceClusterId(a.name) === a.clusterID)
    .sort((a, b) => (a.clusterID! < b.clusterID! ? -1 : 1));
  let nextFlipMs: number | undefined;
  const clusterStatuses = members.map((a) => {
    const id = a.clusterID!;
    const ready = inp.nowMs - a.lastWriteMs <= CONNECTED_WINDOW_MS;
    if (ready) {
      const flip = a.lastWriteMs + CONNECTED_WINDOW_MS - inp.nowMs + 1000;
      nextFlipMs = nextFlipMs === undefined ? flip : Math.min(nextFlipMs, flip);
    }
    const prev = old?.clusterStatuses
      ?.find((s) => s.clusterID === id)
      ?.conditions?.find((c) => c.type === 'Ready');
    const next = ready
      ? { type: 'Ready', status: 'True', reason: 'Connected', message: 'Member Connected' }
      : {
          type: 'Ready',
          status: 'False',
          reason: 'Disconnected',
          message: `No MemberClusterAnnounce update after ${unixDate(a.lastWriteMs)}`,
        };
    return { clusterID: id, conditions: [carried(prev, next, now)] };
  });
  const total = clusterStatuses.length;
  const ready = clusterStatuses.filter((s) => s.conditions[0]!.status === 'True').length;
  const unknown = clusterStatuses.filter((s) => s.conditions[0]!.status === 'Unknown').length;
  const overall =
    ready === total
      ? { type: 'Ready', status: 'True' }
      : unknown === total
        ? {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NoReadyCluster',
            message: 'All clusters have an unknown status',
          }
        : { type: 'Ready', status: 'False', reason: 'NoReadyCluster' };
  const oldOverall = old?.conditions?.length === 1 ? old.conditions[0] : undefined;
  const conditions =
    oldOverall && oldOverall.status === overall.status
      ? [oldOverall]
      : [{ ...overall, lastTransitionTime: now }];
  const status: ClusterSetStatus = {
    observedGeneration: cs.generation,
    totalClusters: total,
    readyClusters: ready,
    clusterStatuses,
    conditions,
  };
  const current: ClusterSetStatus = {
    observedGeneration: old?.observedGeneration,
    totalClusters: old?.totalClusters ?? 0,
    readyClusters: old?.readyClusters ?? 0,
    clusterStatuses: old?.clusterStatuses ?? [],
    conditions: old?.conditions ?? [],
  };
  const actions: Action[] =
    canonicalJson(status) === canonicalJson(current)
      ? []
      : [{ op: 'clusterSetStatus', name: cs.name, status }];
  return { actions, refused: [], ...(nextFlipMs !== undefined ? { requeueAfterMs: nextFlipMs } : {}) };
}
