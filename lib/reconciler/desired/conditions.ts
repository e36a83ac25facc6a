/**
 * The conditions the reconciler writes, in the shapes of Antrea's leader: an export's `Succeeded`,
 * or `Failure` with the reason spelled out; a condition that keeps its lastTransitionTime while its
 * status stays the same; condition times in RFC 3339, whole seconds.
 */
import type { Condition } from '../objects';

/** Antrea's leader status for an export (updateResourceExportStatus), with the reason spelled out. */
export function exportCondition(why: string | undefined, now: string): Condition {
  return why === undefined
    ? { type: 'Succeeded', status: 'True', lastTransitionTime: now }
    : {
        type: 'Failure',
        status: 'False',
        reason: 'ConvergeFailure',
        message: `ResourceExport can't be converged to ResourceImport: ${why}`,
        lastTransitionTime: now,
      };
}

export function sameCondition(a: Condition | undefined, b: Condition): boolean {
  return (
    a !== undefined &&
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '')
  );
}

/** RFC 3339 in whole seconds, as Kubernetes writes condition times. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Keeps the old lastTransitionTime while the condition's status stays the same. */
export function carried(
  old: Condition | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: string,
): Condition {
  const same = old !== undefined && old.status === next.status;
  return { ...next, lastTransitionTime: same && old.lastTransitionTime ? old.lastTransitionTime : now };
}
