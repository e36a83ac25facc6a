/**
 * One changed object of a cluster's bundle, described by the file of its kind (services, policies,
 * clusterset, member-controller, leader, admission), in that order; Namespaces, CRDs and whatever
 * no kind explains are described here.
 */
import { ARGOCD_SYNC_OPTIONS } from '../../render/util';
import type { ObjectChange } from '../tree';
import { describeAdmission } from './admission';
import { describeClusterSetObject } from './clusterset';
import { isObj } from './facts';
import { describeLeaderObject } from './leader';
import { describeMemberConfig } from './member-controller';
import { describePolicyObject } from './policies';
import { describeServiceObject } from './services';
import { type ChangeContext, fieldSummary, objName, verbOf } from './summary';

/** Adds what `o`, an object of `cluster`'s bundle, changes to the summary. */
export function describeObject(ctx: ChangeContext, o: ObjectChange, cluster: string): void {
  const { acc } = ctx;
  if (
    describeServiceObject(ctx, o, cluster) ||
    describePolicyObject(ctx, o, cluster) ||
    describeClusterSetObject(ctx, o, cluster) ||
    describeMemberConfig(ctx, o, cluster) ||
    describeLeaderObject(ctx, o, cluster) ||
    describeAdmission(ctx, o, cluster)
  )
    return;
  const v = verbOf[o.change];
  if (o.kind === 'Namespace') {
    const annotations = isObj(o.before?.metadata.annotations) ? o.before.metadata.annotations : {};
    // A never-pruned Namespace (render/namespaces.ts NEVER_PRUNE) outlives its removal from git.
    const kept = o.change === 'removed' && /Prune=false/.test(String(annotations[ARGOCD_SYNC_OPTIONS] ?? ''));
    acc.add(
      'namespaces',
      kept
        ? `Namespace ${o.name} is no longer rendered in {clusters}: it stays in the cluster (never pruned)`
        : `Namespace ${o.name} ${v} {clusters}`,
      [cluster],
    );
    return;
  }
  if (o.kind === 'CustomResourceDefinition') {
    acc.add(
      'crds',
      `CRD ${o.name} ${v} {clusters}${o.change === 'changed' ? ` (${o.fields.length} fields)` : ''}`,
      [cluster],
    );
    return;
  }
  acc.add(
    'other',
    `${o.kind} ${objName(o)} ${v} {clusters}${o.change === 'changed' ? `: ${fieldSummary(o.fields)}` : ''}`,
    [cluster],
  );
}
