/**
 * Policies in the model's terms: a baseline policy's compiled import in the leader
 * (`<policy>-antreaclusternetworkpolicy` ResourceImport), which every member imports; a stretched
 * policy delivered to each member it applies in; and the Tiers they sit in. Whom a policy admits is
 * worded by describe.ts.
 */
import { describePolicy, describePolicyChange } from '../describe';
import type { DiffObject, ObjectChange } from '../tree';
import { isObj, spec } from './facts';
import { all, type ChangeContext, fieldSummary, verbOf } from './summary';

/** A baseline or stretched policy, or a Tier, described; false when `o` is none of them. */
export function describePolicyObject(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc, membersAfter, membersBefore } = ctx;
  const s = spec((o.after ?? o.before)!);
  const v = verbOf[o.change];
  if (o.kind === 'ResourceImport' && s.kind === 'AntreaClusterNetworkPolicy') {
    const name = String(s.name ?? o.name);
    const acnp = (x: DiffObject | undefined) => {
      const p = spec(x).clusternetworkpolicy;
      return isObj(p) ? p : {};
    };
    if (o.change === 'added')
      acc.add(
        'baseline-policies',
        `baseline policy ${name} added in ${all(membersAfter)}: ${describePolicy(acnp(o.after))}`,
        [cluster],
        membersAfter,
      );
    else if (o.change === 'removed')
      acc.add(
        'baseline-policies',
        `baseline policy ${name} removed from ${all(membersBefore)}`,
        [cluster],
        membersBefore,
      );
    else {
      const what = describePolicyChange(acnp(o.before), acnp(o.after));
      acc.add(
        'baseline-policies',
        `baseline policy ${name} changes in ${all(membersAfter)}: ${what.length > 0 ? what.join('; ') : fieldSummary(o.fields)}`,
        [cluster],
        membersAfter,
      );
    }
    return true;
  }
  if (o.kind === 'ClusterNetworkPolicy' && o.group === 'crd.antrea.io') {
    if (o.change === 'added')
      acc.add(
        'stretched-policies',
        `stretched policy ${o.name} now applies in {clusters}: ${describePolicy(s)}`,
        [cluster],
      );
    else if (o.change === 'removed')
      acc.add('stretched-policies', `stretched policy ${o.name} no longer applies in {clusters}`, [cluster]);
    else {
      const what = describePolicyChange(spec(o.before), spec(o.after));
      for (const w of what.length > 0 ? what : [fieldSummary(o.fields)])
        acc.add('stretched-policies', `stretched policy ${o.name} in {clusters}: ${w}`, [cluster]);
    }
    return true;
  }
  if (o.kind === 'Tier') {
    const what =
      o.change === 'changed'
        ? `: ${fieldSummary(o.fields, 'spec')}`
        : o.change === 'added'
          ? ` (priority ${String(s.priority)})`
          : '';
    acc.add('tiers', `Tier ${o.name} ${v} {clusters}${what}`, [cluster]);
    return true;
  }
  return false;
}
