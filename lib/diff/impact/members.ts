/**
 * Members joining and leaving, in the model's terms: a member's identity in the leader (its
 * ServiceAccount, RoleBinding and token Secret, as facts.ts finds them) and its own bundle, or the
 * whole ClusterSet uninstalled (every member leaves, the leader stays); and members that stay while
 * their identity is renamed (`memberIdentity`), a rotation that after-merge/rotation.ts turns into steps.
 */
import type { IdentityNames } from '../after-merge';
import { memberIdentityName } from '../../names';
import { countKinds, joinAnd } from '../describe';
import type { BundleDiff, ObjectChange } from '../tree';
import { count } from '../../plural';
import { type Facts, list, spec } from './facts';
import { all, type ChangeContext } from './summary';

/** The leader-side identity of a member, in the order the summary names it. */
const IDENTITY_PARTS = ['ServiceAccount', 'RoleBinding', 'token Secret'];

/**
 * Members joining and leaving: their identity in the leader and their own bundle, summed up in the
 * member's line but for its ServiceExports and stretched policies, which are described on their
 * own. `uninstalling`: the model's `uninstall`, every member leaves and the leader stays.
 */
export function describeMembers(
  ctx: ChangeContext,
  uninstalling: boolean,
  bundleOfCluster: ReadonlyMap<string, BundleDiff>,
  leaderBundle: BundleDiff | undefined,
  explained: Set<ObjectChange>,
): void {
  const { acc, fa, fb, leader, joined, left, membersBefore } = ctx;
  if (uninstalling)
    acc.add(
      'members',
      `the ClusterSet is uninstalled: ${all(membersBefore)} ${membersBefore.length > 1 ? 'leave' : 'leaves'}, and the leader ${leader} keeps its bundle until they have left (see After merge)`,
      membersBefore,
    );
  for (const [ids, change, word] of [
    [joined, 'added', 'joins'],
    [left, 'removed', 'leaves'],
  ] as const) {
    for (const id of ids) {
      const parts: string[] = [];
      const names = identityNamesOf(change === 'added' ? fa : fb, id);
      const partName: Record<string, string> = {};
      for (const o of leaderBundle?.objects ?? []) {
        if (o.change !== change) continue;
        const part =
          o.kind === 'ServiceAccount' && o.name === names.serviceAccount
            ? 'ServiceAccount'
            : o.kind === 'Secret' && o.name === names.tokenSecret
              ? 'token Secret'
              : o.kind === 'RoleBinding' && o.name === names.roleBinding
                ? 'RoleBinding'
                : undefined;
        if (part === undefined) continue;
        parts.push(part);
        partName[part] = o.name;
        explained.add(o);
      }
      const shown = IDENTITY_PARTS.filter((p) => parts.includes(p));
      const oneName = new Set(shown.map((p) => partName[p])).size === 1;
      const own = bundleOfCluster.get(id);
      const clusters = [id, ...(leader !== undefined && parts.length > 0 ? [leader] : [])];
      const where =
        parts.length > 0
          ? `${change === 'added' ? 'new' : 'removed'} ${oneName ? `${joinAnd(shown)} ${partName[shown[0]!]!}` : joinAnd(shown.map((p) => `${p} ${partName[p]!}`))} in ${leader}`
          : undefined;
      let bundle: string | undefined;
      if (own && own.presence === change) {
        const objs = own.objects;
        const cs = objs.map((o) => o.after ?? o.before).find((o) => o?.kind === 'ClusterSet');
        const secret = list(spec(cs).leaders)
          .map((l) => l.secret)
          .find((s) => typeof s === 'string');
        bundle =
          `${change === 'added' ? 'new' : 'removed'} bundle clusters/${id} (${count(objs.length, 'object')}: ${countKinds(objs)}` +
          (change === 'added' && secret !== undefined ? `; token reference: Secret ${String(secret)})` : ')');
        for (const o of objs)
          if (o.kind !== 'ServiceExport' && o.kind !== 'ClusterNetworkPolicy') explained.add(o);
      } else if (own) {
        bundle = `its ClusterSet ${change === 'added' ? 'now names' : 'no longer names'} a leader token Secret`;
      }
      acc.add('members', `member ${id} ${word}: ${[where, bundle].filter(Boolean).join('; ')}`, clusters);
    }
  }
}

/**
 * Members that stay while their identity is renamed (memberIdentity): a rotation (after-merge/rotation.ts),
 * added to `ctx.rotations`; the identity objects that come and go with it are explained by it.
 */
export function describeRotations(
  ctx: ChangeContext,
  leaderBundle: BundleDiff | undefined,
  explained: Set<ObjectChange>,
): void {
  const { acc, fa, fb, leader, membersAfter, rotations } = ctx;
  for (const id of membersAfter) {
    const was = fb.identities.get(id);
    const is = fa.identities.get(id);
    if (!was || !is || !fb.members.has(id) || sameIdentity(was, is)) continue;
    rotations.push({ member: id, before: was, after: is, externalSecrets: fa.externalSecrets.has(id) });
    const parts = (
      [
        ['ServiceAccount', 'serviceAccount'],
        ['RoleBinding', 'roleBinding'],
        ['token Secret', 'tokenSecret'],
      ] as const
    )
      .filter(([, f]) => was[f] !== is[f])
      .map(([what, f]) => `${what} ${was[f] ?? '(none)'} → ${is[f] ?? '(none)'}`);
    if (was.memberTokenSecret !== is.memberTokenSecret)
      parts.push(
        `its token Secret in ${id} ${was.memberTokenSecret ?? '(none)'} → ${is.memberTokenSecret ?? '(none)'}`,
      );
    acc.add(
      'members',
      `member ${id}'s identity is renamed: ${parts.join(', ')} (a rotation: see After merge)`,
      [id, ...(leader !== undefined ? [leader] : [])],
    );
    // The identity objects that come and go with it are that rotation, not separate leader changes.
    const old = [was.serviceAccount, was.roleBinding, was.tokenSecret];
    const now = [is.serviceAccount, is.roleBinding, is.tokenSecret];
    for (const o of leaderBundle?.objects ?? []) {
      const names = o.change === 'removed' ? old : o.change === 'added' ? now : [];
      const i = ['ServiceAccount', 'RoleBinding', 'Secret'].indexOf(o.kind);
      if (i >= 0 && names[i] === o.name) explained.add(o);
    }
  }
}

/**
 * The names of member `id`'s identity on one side, as the leader's bundle renders them; the default
 * names when that side holds none (a leader bundle that is not there).
 */
export function identityNamesOf(f: Facts, id: string): IdentityNames {
  return (
    f.identities.get(id) ?? {
      serviceAccount: memberIdentityName(id),
      roleBinding: memberIdentityName(id),
      tokenSecret: memberIdentityName(id),
      memberTokenSecret: undefined,
      leaderNamespace: '',
      memberNamespace: undefined,
    }
  );
}

function sameIdentity(a: IdentityNames, b: IdentityNames): boolean {
  return (
    a.serviceAccount === b.serviceAccount &&
    a.roleBinding === b.roleBinding &&
    a.tokenSecret === b.tokenSecret &&
    a.memberTokenSecret === b.memberTokenSecret
  );
}
