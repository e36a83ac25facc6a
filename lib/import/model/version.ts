/**
 * antreaVersion: the oldest `antrea-mc-controller` image tag among the leader and the members, so
 * that the compiler renders for the oldest Antrea that runs. Older than 2.7 is a blocker (the
 * member-writes admission policy needs Antrea's per-member ServiceAccounts); a controller whose
 * image carries no version tag is noted. Pure.
 */
import { MC_CONTROLLER, compareVersions, find, imageOf, versionOfImage } from '../live';
import type { ClusterSetIdentity } from './clusterset';
import type { Context } from './context';

export function readVersion(
  { s, notes, leaderSnap, memberIds }: Context,
  { leaderNamespace, memberNamespace, leaderId }: ClusterSetIdentity,
): string | undefined {
  const versions: { where: string; version: string | undefined; image: string | undefined }[] = [];
  const leaderDeploy = find(leaderSnap, 'apps/v1', 'Deployment', leaderNamespace, MC_CONTROLLER);
  versions.push({
    where: `leader ${leaderId}`,
    image: imageOf(leaderDeploy, MC_CONTROLLER),
    version: versionOfImage(imageOf(leaderDeploy, MC_CONTROLLER)),
  });
  for (const id of memberIds) {
    const d = find(s.members[id], 'apps/v1', 'Deployment', memberNamespace, MC_CONTROLLER);
    versions.push({
      where: `member ${id}`,
      image: imageOf(d, MC_CONTROLLER),
      version: versionOfImage(imageOf(d, MC_CONTROLLER)),
    });
  }
  const known = versions.filter((v) => v.version !== undefined);
  const oldest = [...known].sort((a, b) => compareVersions(a.version!, b.version!))[0];
  let antreaVersion: string | undefined;
  if (oldest) {
    antreaVersion = oldest.version;
    const distinct = [...new Set(known.map((v) => v.version!))].sort(compareVersions);
    notes.comment(
      'antreaVersion',
      distinct.length === 1
        ? `From the antrea-mc-controller image tags (${oldest.image} and the same in ${known.length - 1} more).`
        : `The oldest antrea-mc-controller running: ${known.map((v) => `${v.where} ${v.version}`).join(', ')}.`,
    );
    if (compareVersions(oldest.version!, '2.7.0') < 0)
      notes.add({
        class: 'blocker',
        code: 'antrea-too-old',
        path: 'antreaVersion',
        message: `${oldest.where} runs Antrea ${oldest.version} (${oldest.image}); clusterset's member-writes admission policy knows members by per-member ServiceAccounts, which Antrea requires only from 2.7`,
        fix: "upgrade every cluster to Antrea 2.7 or later as Antrea's upgrade guide says (including the per-member identities), then import again",
      });
  } else {
    notes.comment(
      '',
      'antreaVersion: no antrea-mc-controller image tag could be read; the compiler assumes its default.',
    );
  }
  for (const v of versions)
    if (v.version === undefined)
      notes.add({
        class: 'info',
        code: 'antrea-version-unknown',
        path: v.where,
        message: `the antrea-mc-controller image of ${v.where} (${v.image ?? 'no Deployment found'}) carries no version tag`,
        fix: 'set antreaVersion in the model to the release it runs',
      });
  return antreaVersion;
}
