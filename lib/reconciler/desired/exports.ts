/**
 * What every reconcile does with the exports it owns: judges whether the exporting cluster is a
 * member, writes each export's status, releases the leader's finalizers from an export being deleted
 * once its data left the imports, and lists the refusals; exports taken in name order, their specs
 * read as plain objects.
 */
import { LEGACY_RESOURCE_EXPORT_FINALIZER, RESOURCE_EXPORT_FINALIZER } from '../../names';
import type { ReconcilerConfig } from '../../reconciler-config';
import type { CachedExport } from '../objects';
import { exportCondition, sameCondition } from './conditions';
import type { Action, Refusal } from './outcome';

/** Objects in name order, so that the caches' order never leaks into the writes. */
export const nameOrder = (a: { name: string }, b: { name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

const OUR_FINALIZERS = new Set([RESOURCE_EXPORT_FINALIZER, LEGACY_RESOURCE_EXPORT_FINALIZER]);

/** The status write an export needs, if any: none while it is being deleted. */
export function statusAction(
  e: CachedExport,
  why: string | undefined,
  now: string,
  onlyFailures = false,
): Action[] {
  if (e.deleting) return [];
  if (onlyFailures && why === undefined && e.condition?.type !== 'Failure') return [];
  const c = exportCondition(why, now);
  return sameCondition(e.condition, c)
    ? []
    : [{ op: 'exportStatus', name: e.name, uid: e.uid, condition: c }];
}

/** Removes the leader's finalizers from an export being deleted (after its data left the imports). */
export function releaseAction(e: CachedExport): Action[] {
  if (!e.deleting || !e.finalizers.some((f) => OUR_FINALIZERS.has(f))) return [];
  return [
    {
      op: 'releaseExport',
      name: e.name,
      resourceVersion: e.resourceVersion,
      finalizers: e.finalizers.filter((f) => !OUR_FINALIZERS.has(f)),
    },
  ];
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function memberProblem(config: ReconcilerConfig, clusterId: unknown): string | undefined {
  if (typeof clusterId !== 'string' || clusterId === '') return 'spec.clusterID is missing';
  return config.members.some((m) => m.id === clusterId)
    ? undefined
    : `cluster ${clusterId} is not a member of ClusterSet ${config.clusterSetId}`;
}

export function refusals(
  exports: readonly CachedExport[],
  why: ReadonlyMap<string, string | undefined>,
): Refusal[] {
  return exports
    .filter((e) => !e.deleting && why.get(e.name) !== undefined)
    .map((e) => ({ export: e.name, why: why.get(e.name)! }));
}
