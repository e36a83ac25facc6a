/**
 * The leader's own objects: the reconciler's config (a change restarts its Pods through the
 * Deployment's checksum annotation) and Deployment, and the leader's ServiceAccounts, Roles,
 * RoleBindings, Secrets and ConfigMaps that no other kind's file explains (member identities are
 * members.ts's).
 */
import { CONFIG_CHECKSUM_ANNOTATION } from '../../render/reconciler';
import { RECONCILER_CONFIG_NAME, RECONCILER_NAME } from '../../names';
import type { ObjectChange } from '../tree';
import { sorted } from './facts';
import { type ChangeContext, fieldSummary, objName, verbOf } from './summary';

/**
 * The reconciler's config or Deployment, or another object of the leader of those kinds, described;
 * false when `o` is none of them.
 */
export function describeLeaderObject(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc, leader } = ctx;
  const v = verbOf[o.change];
  if (o.kind === 'ConfigMap' && o.name === RECONCILER_CONFIG_NAME) {
    const keys = sorted(
      new Set(o.fields.map((f) => f.path.replace(/^data\["[^"]*"\]\.?/, '').split(/[.[]/)[0]!)),
    );
    acc.add(
      'leader',
      `reconciler config ${v} {clusters}${o.change === 'changed' ? ` (${keys.join(', ')}); its Pods restart` : ''}`,
      [cluster],
    );
    return true;
  }
  if (o.kind === 'Deployment' && o.name === RECONCILER_NAME && cluster === leader) {
    // A config change rolls the Pods through the checksum annotation: the config line says so.
    const checksum = `spec.template.metadata.annotations["${CONFIG_CHECKSUM_ANNOTATION}"]`;
    const rest = o.fields.filter((f) => f.path !== checksum);
    if (o.change === 'changed' && rest.length === 0) return true;
    acc.add(
      'leader',
      `reconciler Deployment ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(rest)}` : ''}`,
      [cluster],
    );
    return true;
  }
  if (
    cluster === leader &&
    ['ServiceAccount', 'Role', 'RoleBinding', 'Secret', 'ConfigMap'].includes(o.kind)
  ) {
    acc.add(
      'leader',
      `${o.kind} ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : ''}`,
      [cluster],
    );
    return true;
  }
  return false;
}
