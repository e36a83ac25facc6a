/**
 * What every part of the model's reading (lib/import/model/) shares: the snapshot, the Notes each
 * part adds its comments and findings to, the leader's snapshot and the member IDs read, in one
 * order; and the leader's exports and imports, which the clusters, the Services and the policies
 * all read from. Pure.
 */
import type { Notes } from '../findings';
import { cmp, list, spec } from '../live';
import type { ClusterSnapshot, LiveObject, LiveSnapshot } from '../snapshot';

export const MC_ANY = 'multicluster.crd.antrea.io/*';
export const CRD_ANY = 'crd.antrea.io/*';

export interface Context {
  readonly s: LiveSnapshot;
  readonly notes: Notes;
  /** `s.leader`. */
  readonly leaderSnap: ClusterSnapshot;
  /** The members read (`--member ID=CONTEXT`), in code-unit order. */
  readonly memberIds: string[];
}

/** The most frequent value (ties: the smallest), or undefined for none. */
export function mostCommon(values: readonly string[]): string | undefined {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))[0]?.[0];
}

/** The leader's exports and imports (its namespace), and those of one kind. */
export interface LeaderExports {
  readonly exportsAll: LiveObject[];
  readonly importsAll: LiveObject[];
  readonly importsOfKind: (k: string) => LiveObject[];
  readonly exportsOfKind: (k: string) => LiveObject[];
}

export function leaderExports({ leaderSnap }: Context, leaderNamespace: string): LeaderExports {
  const exportsAll = list(leaderSnap, MC_ANY, 'ResourceExport', leaderNamespace);
  const importsAll = list(leaderSnap, MC_ANY, 'ResourceImport', leaderNamespace);
  const importsOfKind = (k: string) => importsAll.filter((i) => spec(i).kind === k);
  const exportsOfKind = (k: string) => exportsAll.filter((e) => spec(e).kind === k);
  return { exportsAll, importsAll, importsOfKind, exportsOfKind };
}
