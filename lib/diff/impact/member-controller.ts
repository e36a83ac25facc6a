/**
 * Antrea's member controller in each member: its settings ConfigMap, rendered when clusterset takes
 * it over (`takeOver.memberControllerConfig`) and otherwise held by Antrea's install, and the
 * member's restart Job (render/member-restart.ts), which restarts the controller when the Tiers or
 * its settings change and carries the settings Antrea's install must hold.
 */
import { restartJob, restartReasons } from '../after-merge';
import {
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_CONTROLLER_DEPLOYMENT,
  MEMBER_RESTART_NAME,
  RESTART_JOB_ANNOTATION,
} from '../../names';
import { EXPECTED_MEMBER_CONFIG_ANNOTATION } from '../../render/member-restart';
import type { BundleDiff, DiffObject, FieldChange, ObjectChange } from '../tree';
import { diffValues } from '../tree';
import { isObj } from './facts';
import { type Accumulator, type ChangeContext, fieldSummary, objName, verbOf } from './summary';

/** The settings Antrea's install must hold, as a restart Job (or an earlier partial Deployment) carries them. */
function expectedConfig(o: DiffObject | undefined): string | undefined {
  const a = o?.metadata.annotations;
  const v = isObj(a) ? a[EXPECTED_MEMBER_CONFIG_ANNOTATION] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * The member's restart Job (render/member-restart.ts), described per bundle, and what follows it
 * alone: its access to the ServiceExports of a namespace where the member starts or stops
 * exporting, and the member ClusterSet's naming of the Job (`clusterset/restart-job`).
 */
export const isRestartJob = (o: ObjectChange, memberNamespace: string | undefined): boolean =>
  (o.kind === 'Job' && o.name.startsWith(`${MEMBER_RESTART_NAME}-`)) ||
  ((o.kind === 'Role' || o.kind === 'RoleBinding') &&
    o.name === MEMBER_RESTART_NAME &&
    memberNamespace !== undefined &&
    o.namespace !== memberNamespace &&
    o.change !== 'changed') ||
  (o.kind === 'ClusterSet' &&
    o.change === 'changed' &&
    o.fields.length > 0 &&
    o.fields.every((f) => f.path === `metadata.annotations["${RESTART_JOB_ANNOTATION}"]`));

/** The member controller's settings ConfigMap, described; false when `o` is not it. */
export function describeMemberConfig(ctx: ChangeContext, o: ObjectChange, cluster: string): boolean {
  const { acc } = ctx;
  const v = verbOf[o.change];
  if (o.kind === 'ConfigMap' && o.name === MEMBER_CONTROLLER_CONFIG && o.change !== 'changed') {
    // takeOver.memberControllerConfig turned on or off (a joining or leaving member's bundle is
    // summed up with the member).
    acc.add(
      'member-config',
      o.change === 'added'
        ? `Antrea's member controller ConfigMap ${objName(o)} is now rendered in {clusters}: clusterset takes it over from Antrea's install`
        : `Antrea's member controller ConfigMap ${objName(o)} is no longer rendered in {clusters}: it stays in the cluster (never pruned), and Antrea's install must hold its settings`,
      [cluster],
    );
    return true;
  }
  if (o.kind === 'ConfigMap' && o.name === MEMBER_CONTROLLER_CONFIG) {
    const what =
      o.change === 'changed'
        ? `: ${fieldSummary(
            o.fields.map((f) => ({ ...f, path: f.path.replace(/^data\["[^"]*"\]\.?/, '') })),
            '',
            4,
          )}`
        : '';
    acc.add(
      'member-config',
      `member controller settings ${o.change === 'changed' ? 'change in' : v} {clusters}${what}`,
      [cluster],
    );
    return true;
  }
  return false;
}

/**
 * The member's restart Job (render/member-restart.ts): a new one is a restart when what it sets
 * changes, not a diff to read; the settings Antrea's install must hold
 * (`takeOver.memberControllerConfig` off) are read like the ConfigMap's.
 */
export function describeMemberRestart(acc: Accumulator, b: BundleDiff, cluster: string): void {
  const why = restartReasons(b);
  if (why !== undefined)
    acc.add(
      'member-config',
      `Antrea's member controller restarts in {clusters} (its ${why.join(' and ')} changed)`,
      [cluster],
    );
  // Before the Job, earlier releases' partial Deployment of Antrea's member controller held them.
  const was =
    restartJob(b, 'before')?.before ??
    b.objects.find((x) => x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT)?.before;
  const after = expectedConfig(restartJob(b, 'after')?.after);
  const before = expectedConfig(was);
  if (after === undefined || before === undefined || before === after) return;
  const path = `metadata.annotations["${EXPECTED_MEMBER_CONFIG_ANNOTATION}"]`;
  const fields: FieldChange[] = [];
  diffValues(before, after, path, fields);
  acc.add(
    'member-config',
    `member controller settings change in {clusters}: ${fieldSummary(fields, path, 4)}; Antrea's install holds them (see After merge)`,
    [cluster],
  );
}
