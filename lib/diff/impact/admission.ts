/**
 * Admission policies (ValidatingAdmissionPolicy and its binding) in the leader, whose parameters
 * name the member identities: a change that only follows the members joining and leaving, or the
 * renamed member identities, is said so rather than listed field by field.
 */
import type { ObjectChange } from '../tree';
import { identityNamesOf } from './members';
import { type ChangeContext, verbOf } from './summary';

/** An admission policy or binding, described; false when `o` is neither. */
export function describeAdmission(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc, fa, fb, joined, left, rotations } = ctx;
  const v = verbOf[o.change];
  if (o.kind === 'ValidatingAdmissionPolicy' || o.kind === 'ValidatingAdmissionPolicyBinding') {
    const followsMembers =
      (joined.length > 0 || left.length > 0) &&
      o.change === 'changed' &&
      o.fields.every((f) =>
        [
          ...joined.map((id) => identityNamesOf(fa, id).serviceAccount),
          ...left.map((id) => identityNamesOf(fb, id).serviceAccount),
        ].some((sa) => `${JSON.stringify(f.before)}${JSON.stringify(f.after)}`.includes(sa)),
      );
    const followsRotations =
      !followsMembers &&
      rotations.length > 0 &&
      o.change === 'changed' &&
      o.fields.every((f) =>
        rotations.some((r) =>
          [r.before.serviceAccount, r.after.serviceAccount].some((sa) =>
            `${JSON.stringify(f.before)}${JSON.stringify(f.after)}`.includes(sa),
          ),
        ),
      );
    const what = followsMembers
      ? ' to follow the member list'
      : followsRotations
        ? ' to follow the renamed member identities'
        : o.change === 'changed'
          ? `: ${o.fields
              .map((f) => f.path)
              .slice(0, 3)
              .join(', ')}${o.fields.length > 3 ? ` and ${o.fields.length - 3} more` : ''}`
          : '';
    acc.add('admission', `admission: ${o.kind} ${o.name} ${v} {clusters}${what}`, [cluster]);
    return true;
  }
  return false;
}
