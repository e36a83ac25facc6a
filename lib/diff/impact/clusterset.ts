/**
 * A cluster's place in the ClusterSet: its identity (the `ClusterProperty` and `ClusterClaim`
 * objects naming its cluster ID and network), its ClusterSet (a member's names the Secret holding
 * the leader token) and the ExternalSecret that brings that token, a reference only.
 */
import type { DiffObject, ObjectChange } from '../tree';
import { list, spec } from './facts';
import { type ChangeContext, fieldSummary, fmt, objName, verbOf } from './summary';

/** Cluster identity, a ClusterSet or a token reference, described; false when `o` is none of them. */
export function describeClusterSetObject(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc } = ctx;
  const obj = (o.after ?? o.before)!;
  const v = verbOf[o.change];
  if (o.kind === 'ClusterProperty' || o.kind === 'ClusterClaim') {
    const value = (x: DiffObject | undefined) => (o.kind === 'ClusterClaim' ? x?.value : spec(x).value);
    const what =
      o.change === 'changed'
        ? `${fmt(value(o.before))} → ${fmt(value(o.after))}`
        : o.change === 'added'
          ? `added (${fmt(value(o.after))})`
          : 'removed';
    acc.add(
      'identity',
      `cluster identity: ${o.kind} ${o.name} ${what} ${o.change === 'removed' ? 'from' : 'in'} {clusters}`,
      [cluster],
    );
    return true;
  }
  if (o.kind === 'ClusterSet') {
    const isMember = list(spec(obj).leaders).some((l) => l.secret !== undefined);
    const what = o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : '';
    acc.add('clusterset', `${isMember ? 'member' : 'leader'} ClusterSet ${o.name} ${v} {clusters}${what}`, [
      cluster,
    ]);
    return true;
  }
  if (o.kind === 'ExternalSecret') {
    // How a member gets the leader token: a reference only, never the value.
    const what = o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : '';
    acc.add('clusterset', `token reference ExternalSecret ${objName(o)} ${v} {clusters}${what}`, [cluster]);
    return true;
  }
  return false;
}
