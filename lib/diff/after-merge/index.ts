/**
 * What a change asks of people once it is merged, read from the semantic diff: `afterMerge()`, the
 * manual steps in the order to take them, cut into sections the markdown folds, and the breaking
 * changes that something outside out/ must follow. This file sets the order and writes the Argo CD
 * settings' steps (the AppProject re-applied first or, where a member's Application is deleted with
 * cascade, only once it is gone; the health checks merged); each kind of change writes its own:
 * a joining member, before its first sync and once merged (joining.ts), a delivery tool's
 * bootstrap, wait and retirement (delivery.ts), gateway Nodes (gateways.ts), identity rotations
 * (rotation.ts), members leaving (leaving.ts) or the uninstall (uninstall.ts), Antrea's member
 * controller settings (member-config.ts), the breaking changes (breaking.ts); the Before merge steps
 * are image-steps.ts's. What happens by itself (a member controller restart, by the member bundle's
 * Job) is in the impact summary instead. Pure.
 */
import type { Plan } from '../../plan';
import { ARGOCD_CM, ARGOCD_CONFIG_FOLDER } from '../../render/delivery';
import { joinAnd } from '../describe';
import { beforeMergeSteps } from '../image-steps';
import type { TreeDiff } from '../tree';
import { antreaLeaderStandby, servicePortBreaks } from './breaking';
import { type DeliveryFolders, deliveryChange, deliverySteps, outPath } from './delivery';
import { type GatewayChange, gatewayStep } from './gateways';
import { joinSteps, memberPrerequisites } from './joining';
import { cascades, identityGone, leaving } from './leaving';
import { legacyDeploymentSteps, memberConfigSteps } from './member-config';
import { type IdentityRotation, type LeaderSync, rotationSteps } from './rotation';
import { type Uninstall, uninstallSteps } from './uninstall';
import { deliveryFor } from './util';

export type { DeliveryFolders } from './delivery';
export type { GatewayChange } from './gateways';
export { restartJob, restartReasons } from './member-config';
export type { IdentityNames, IdentityRotation, LeaderSync } from './rotation';
export type { Uninstall } from './uninstall';

export interface AfterMerge {
  /**
   * What must exist before the merge, since the first sync after it pulls it (image-steps.ts): the
   * reconciler image built and pushed, new image pull Secrets created.
   */
  readonly beforeMerge: readonly string[];
  /** Manual steps, in the order to take them. */
  readonly steps: readonly string[];
  /**
   * The steps cut into runs that belong together, in order (a run's `steps` count them), so that a
   * long list can be shown folded without hiding or reordering any: every step is in exactly one.
   */
  readonly sections: readonly AfterMergeSection[];
  /** Changes that something outside out/ must follow. */
  readonly breaking: readonly string[];
}

/** One run of consecutive After merge steps: what they are about, and how many they are. */
export interface AfterMergeSection {
  /** e.g. `before east's first sync`, `delivery`, `east joins`; what the folded run is titled. */
  readonly title: string;
  /** The cluster the run is about, when it is about one. */
  readonly cluster?: string;
  readonly steps: number;
}

/**
 * The After merge block of a change (impact.ts passes what the model says of it: who joins and
 * leaves, the gateways, the uninstall, the delivery folders, the rotations): its steps in order, cut
 * into sections, its Before merge steps and its breaking changes.
 */
export function afterMerge(
  diff: TreeDiff,
  o: {
    readonly leader?: string;
    readonly joined: readonly string[];
    readonly left: readonly string[];
    readonly exporters: (service: string) => readonly string[];
    /** How the summary names a group of clusters (impact.ts `phrase`): bounded, "all 4 members". */
    readonly phrase?: (clusters: readonly string[]) => string;
    /** Members that start exchanging Services across networks, new members first. */
    readonly gateways?: readonly GatewayChange[];
    /** Set when the change uninstalls the ClusterSet: every member leaves, the leader stays. */
    readonly uninstall?: Uninstall;
    /**
     * The plan of the model after the change, when there is one: what a new member needs of the
     * application teams and of Antrea's install, what a new delivery tool needs
     * (explain/prerequisites.ts). No bundle holds those.
     */
    readonly plan?: Plan;
    /** Set when a delivery folder comes or goes: a delivery tool turned on or off. */
    readonly delivery?: DeliveryFolders;
    /** Members that stay while their identity is renamed (memberIdentity). */
    readonly rotations?: readonly IdentityRotation[];
    /** How the leader's bundle is delivered after the change; read only for rotations. */
    readonly leaderSync?: LeaderSync;
  },
): AfterMerge {
  const steps: string[] = [];
  const marks: { title: string; cluster?: string; start: number }[] = [];
  /** The steps pushed from here on, until the next call, are about `title`. */
  const section = (title: string, cluster?: string): void => {
    marks.push({ title, ...(cluster !== undefined ? { cluster } : {}), start: steps.length });
  };
  const phrase = o.phrase ?? joinAnd;

  // A delivery tool that comes or goes (not while uninstalling, which keeps delivery as it was).
  const dc = o.uninstall || !o.delivery ? undefined : deliveryChange(o.delivery);
  // A new tool is bootstrapped whole, every cluster's registration included (deliverySteps), or,
  // beside one that stays, not at all: none of its per-cluster steps, nor the AppProject's.
  const newArgoCd = dc?.added.includes('argocd') ?? false;
  const newFlux = dc?.added.includes('flux') ?? false;
  const switching = (dc?.retired.length ?? 0) > 0;
  const delivery = dc
    ? deliverySteps(diff, dc, { ...(o.plan ? { plan: o.plan } : {}), left: o.left })
    : { steps: [], wait: [], retire: [] };

  // What a joining member needs before its first sync (its Namespaces, Antrea's settings, Antrea's
  // member controller config): before anything registers it, which starts that sync.
  for (const id of o.joined) {
    section(`before ${id}'s first sync`, id);
    steps.push(...memberPrerequisites(diff, id, o.plan));
  }
  const joining = new Set(o.joined);
  section(
    o.joined.length === 1 ? `before ${o.joined[0]!}'s first sync` : "before the joining members' first sync",
    o.joined.length === 1 ? o.joined[0]! : undefined,
  );
  steps.push(...memberConfigSteps(diff, o.left, phrase, (id) => joining.has(id)));

  section('delivery');
  steps.push(...delivery.steps);
  // The AppProject (applied by hand, never from git): Argo CD refuses an Application whose
  // destination or kinds it does not permit, so it is re-applied first; but Argo CD's cascade
  // deletion deletes only what the live project permits (getPermittedAppLiveObjects), so while a
  // departing member's Application is being deleted the project must still permit it: then it is
  // re-applied only once those Applications are gone (test/e2e/removal.test.ts, both orders).
  const argocd = diff.bundles.find((b) => b.type === 'delivery' && b.bundle === 'argocd');
  const projectChanges = argocd?.objects.some((x) => x.kind === 'AppProject' && x.change !== 'removed');
  const cascading = o.left.flatMap((id) => deliveryFor(diff, 'Application', id, 'removed').filter(cascades));
  const apply = `\`kubectl apply -k ${outPath(diff)}/argocd\``;
  if (projectChanges && cascading.length === 0 && !newArgoCd) {
    steps.push(
      `re-apply the AppProject in the management cluster: ${apply} (the root Application does not manage it, and Argo CD refuses an Application whose destination or kinds it does not permit)`,
    );
  }

  // The health checks of Antrea's kinds, merged into Argo CD's own settings (render/health.ts).
  const health = argocd?.objects.find(
    (x) => x.kind === 'ConfigMap' && x.name === ARGOCD_CM && x.change !== 'removed',
  );
  if (health && !newArgoCd) {
    steps.push(
      `merge the health checks of Antrea's kinds into Argo CD's settings in the management cluster: \`kubectl -n ${health.namespace ?? 'argocd'} patch configmap ${ARGOCD_CM} --type merge --patch-file ${outPath(diff)}/${ARGOCD_CONFIG_FOLDER}/ConfigMap.${ARGOCD_CM}.yaml\` (Argo CD's install owns that ConfigMap: the patch sets those keys alone; until then a refused export or a ClusterSet that is not Ready shows as Healthy)`,
    );
  }

  // What an earlier release's partial Deployment of Antrea's member controller left under Argo CD.
  steps.push(...legacyDeploymentSteps(diff, o.left));

  const gateways = new Map((o.gateways ?? []).map((g) => [g.cluster, g]));
  for (const id of o.joined) {
    section(`${id} joins`, id);
    steps.push(...joinSteps(diff, id, { leader: o.leader, newArgoCd, newFlux }));
    const g = gateways.get(id);
    if (g) steps.push(gatewayStep(g));
  }
  for (const g of o.gateways ?? [])
    if (!o.joined.includes(g.cluster)) {
      section('gateways of the members that stay');
      steps.push(gatewayStep(g));
    }
  if (o.leader !== undefined)
    for (const r of o.rotations ?? []) {
      section(`${r.member}'s identity`, r.member);
      steps.push(...rotationSteps(r, o.leader, o.leaderSync));
    }

  if (o.uninstall && o.leader !== undefined) {
    section('uninstall');
    steps.push(...uninstallSteps(diff, o.leader, o.left, o.uninstall));
  }
  // Switching tools while members leave: deliverySteps says to split the change.
  else if (!switching)
    for (const id of o.left) {
      section(`${id} leaves`, id);
      steps.push(...leaving(diff, id), ...identityGone(diff, id, o.leader));
    }
  if (projectChanges && cascading.length > 0 && !switching) {
    section('delivery');
    const ns = cascading[0]!.namespace ?? 'argocd';
    const names = cascading.map((a) => `application/${a.name}`).join(' ');
    steps.push(
      `re-apply the AppProject in the management cluster only once ${joinAnd(cascading.map((a) => a.name))} ${cascading.length > 1 ? 'are' : 'is'} gone (\`kubectl -n ${ns} wait --for=delete ${names} --timeout=15m\`): ${apply}. Not before: Argo CD's cascade deletion deletes only what the live project permits, and the new one no longer lists the departing destination${cascading.length > 1 ? 's' : ''}, so ${cascading.length > 1 ? 'their' : 'its'} namespaced objects and those of kinds no other cluster uses would stay behind${o.joined.length > 0 ? `; until then Argo CD refuses the Application${o.joined.length > 1 ? 's' : ''} of ${joinAnd(o.joined)}, and syncs ${o.joined.length > 1 ? 'them' : 'it'} once the project permits ${o.joined.length > 1 ? 'them' : 'it'}` : ''}`,
    );
  }

  section("Antrea's member controller config");
  steps.push(...memberConfigSteps(diff, o.left, phrase, (id) => !joining.has(id)));

  // A first delivery tool's wait, once every member has what it needs to be healthy (its token).
  section('wait until everything is delivered');
  steps.push(...delivery.wait);
  section('retire the old delivery tool');
  steps.push(...delivery.retire);

  return {
    beforeMerge: o.uninstall ? [] : beforeMergeSteps(diff, o.leader),
    steps,
    sections: sectionsOf(marks, steps.length),
    breaking: [...servicePortBreaks(diff, o.leader, o.exporters), ...antreaLeaderStandby(diff, o.leader)],
  };
}

/** The marked runs, each up to the next mark, the empty ones dropped and equal neighbours joined. */
function sectionsOf(
  marks: readonly { title: string; cluster?: string; start: number }[],
  total: number,
): AfterMergeSection[] {
  const out: AfterMergeSection[] = [];
  marks.forEach((m, i) => {
    const n = (marks[i + 1]?.start ?? total) - m.start;
    if (n === 0) return;
    const last = out[out.length - 1];
    if (last && last.title === m.title) out[out.length - 1] = { ...last, steps: last.steps + n };
    else out.push({ title: m.title, ...(m.cluster !== undefined ? { cluster: m.cluster } : {}), steps: n });
  });
  return out;
}
