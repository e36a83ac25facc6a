/**
 * The After merge block of a change that uninstalls the ClusterSet (the model's `uninstall`: every
 * member leaves, the leader's bundle stays): each member's delivery deletes what it applied
 * (leaving.ts), the wait until every member has left the leader, the members' token Secrets, then
 * the leader removed by hand under each tool that delivers it, roots first, and last what only the
 * management cluster holds. impact.ts passes the out/ the change leaves (`Uninstall`).
 */
import { announceName } from '../../names';
import { ARGOCD_APPS_FOLDER, CASCADE_FINALIZER, IN_CLUSTER_SERVER } from '../../render/argocd';
import { FLUX_FOLDER } from '../../render/flux';
import { joinAnd, kindCounts } from '../describe';
import type { DiffObject, TreeDiff } from '../tree';
import { type Tool, argoCdKeeps, fluxKeeps, leaving, removedObjects, tokenLeaving, toolsOf } from './leaving';
import { at, isApplication, isKustomization, sourcePath, str } from './util';

/**
 * What the leader's removal needs from the out/ a change leaves when it uninstalls the ClusterSet
 * (every member leaves, the leader's bundle stays: the model's `uninstall`), read by impact.ts.
 */
export interface Uninstall {
  /** The leader bundle after the change. */
  readonly leaderObjects: readonly DiffObject[];
  /** Every delivery object after the change (roots, the leader's, the AppProject, the GitRepository). */
  readonly delivery: readonly DiffObject[];
}

/**
 * The After merge block of a change that uninstalls the ClusterSet, in order: what happens by itself
 * in every member (its delivery deletes what it applied), the wait until every member has left the
 * leader (Antrea's member controller deletes its announce once its ClusterSet is gone; the
 * reconciler deletes the member's exports before it lets the announce go), the members' token
 * Secrets, then the leader's removal by hand, roots first so that nothing brings it back (its
 * delivery deletes the leader namespace with whatever is left in it: were an export's finalizer
 * left there, with the reconciler gone, the namespace would stay Terminating), and last what
 * only the management cluster holds (AppProject, GitRepository, registrations).
 */
export function uninstallSteps(
  diff: TreeDiff,
  leader: string,
  left: readonly string[],
  u: Uninstall,
): string[] {
  const steps: string[] = [];
  for (const id of left) {
    const cs = removedObjects(diff, id).find((x) => x.kind === 'ClusterSet')?.before;
    const byHand = (why: string): string =>
      `${id} leaves only once its ClusterSet is gone, and nothing deletes it (${why}): delete it by hand, \`kubectl --context <${id}> -n ${cs?.metadata.namespace ?? 'kube-system'} delete clustersets.multicluster.crd.antrea.io ${cs?.metadata.name ?? '<set>'}\`, and later whatever else of its bundle you applied, but its CRDs`;
    if (id === leader) {
      // Its bundle stays: the delivery that keeps applying it prunes the member side it no longer holds.
      const pruning = leaderDelivery(u, leader).filter(prunes);
      const gone = removedObjects(diff, id).filter((x) => !argoCdKeeps(x.before) && !fluxKeeps(x.before));
      steps.push(
        ...(pruning.length > 0
          ? [
              `${id} leaves as a member: its ${joinAnd(pruning.map((o) => o.kind))} ${[...new Set(pruning.map((o) => o.metadata.name))].join(', ')} ${pruning.length > 1 ? 'prune' : 'prunes'} what its bundle no longer holds of its member side (${joinAnd(kindCounts(gone))})${toolsOf(diff, id).some((t) => t.cascade && t.name === 'Flux') ? '; under Flux its Tiers go with their own Kustomization, which the root prunes' : ''}`,
            ]
          : [byHand('prune is off')]),
      );
      continue;
    }
    const tools = toolsOf(diff, id);
    steps.push(...leaving(diff, id, false));
    if (!tools.some((t) => t.cascade))
      steps.push(byHand(tools.length > 0 ? 'prune is off' : 'no Application or Kustomization delivers it'));
  }
  // The leader namespace, as every member's ClusterSet names it.
  const named = left
    .map((id) =>
      str(at(removedObjects(diff, id).find((x) => x.kind === 'ClusterSet')?.before, 'spec', 'namespace')),
    )
    .find((n) => n !== undefined);
  const ns =
    named ??
    u.leaderObjects.find((o) => o.kind === 'ClusterSet')?.metadata.namespace ??
    'antrea-multicluster';
  const hub = `kubectl --context <${leader}> -n ${ns}`;
  steps.push(
    `then every member leaves ${leader} by itself: Antrea's member controller, once its ClusterSet is gone, deletes its MemberClusterAnnounce in ${leader} and what it imported (antrea-mc-* Services, ServiceImports, imported policies, label identities), and the reconciler deletes that member's exports before it lets the announce go. Wait until every announce is gone before the leader goes (an export's finalizer left behind would hold the leader namespace in Terminating once the reconciler is deleted): \`${hub} wait --for=delete ${left.map((id) => `memberclusterannounce/${announceName(id)}`).join(' ')} --timeout=15m\`. An announce that stays belongs to a member whose controller no longer reaches ${leader}: delete it by hand (\`${hub} delete memberclusterannounce ${announceName('<id>')}\`); the reconciler deletes its exports first`,
  );
  for (const id of left) steps.push(...tokenLeaving(diff, id));
  steps.push(...leaderRemoval(leader, ns, u));
  steps.push('then clusterset.ts and out/ can leave the repository: nothing delivers from them any more');
  return steps;
}

/** The leader's Applications and Kustomizations after the change. */
function leaderDelivery(u: Uninstall, leader: string): DiffObject[] {
  return u.delivery.filter(
    (o) => (isApplication(o) || isKustomization(o)) && sourcePath(o).endsWith(`clusters/${leader}`),
  );
}

/** Whether a delivery object deletes what it applied: an Application's resources finalizer, a Kustomization's prune. */
function prunes(o: DiffObject): boolean {
  return isApplication(o)
    ? ((at(o, 'metadata', 'finalizers') as unknown[] | undefined) ?? []).includes(CASCADE_FINALIZER)
    : at(o, 'spec', 'prune') === true;
}

/** How the leader goes, under each delivery tool that delivers it, or by hand. */
function leaderRemoval(leader: string, ns: string, u: Uninstall): string[] {
  const steps: string[] = [];
  const mine = (o: DiffObject): boolean => sourcePath(o).endsWith(`clusters/${leader}`);
  const describe = (keeps: Tool['keeps'], who: string): string => {
    const gone = u.leaderObjects.filter((x) => !keeps(x) && x.metadata.namespace !== ns);
    const kept = u.leaderObjects.filter((x) => keeps(x));
    return `what ${who} applied in ${leader} first: the leader namespace ${ns} with everything still in it (the reconciler, the member identities, the compiled imports)${gone.length > 0 ? ` and ${joinAnd(kindCounts(gone.filter((x) => x.kind !== 'Namespace')))}` : ''}${kept.length > 0 ? `, but not its ${joinAnd(kindCounts(kept))}, which ${kept.length === 1 ? 'is' : 'are'} never deleted` : ''}`;
  };
  const byHand = (): string => {
    const cluster = u.leaderObjects.filter(
      (x) => x.metadata.namespace === undefined && x.kind !== 'Namespace' && !argoCdKeeps(x),
    );
    const kinds = [...new Set(cluster.map((x) => x.kind))].sort();
    const commands = [
      `kubectl --context <${leader}> delete namespace ${ns}`,
      ...kinds.map(
        (k) =>
          `kubectl --context <${leader}> delete ${k.toLowerCase()} ${cluster
            .filter((x) => x.kind === k)
            .map((x) => x.metadata.name)
            .join(' ')}`,
      ),
    ];
    return joinAnd(commands.map((c) => `\`${c}\``));
  };

  const apps = u.delivery.filter(isApplication);
  const app = apps.find(mine);
  if (app) {
    const appNs = app.metadata.namespace ?? 'argocd';
    const root = apps.find((a) => sourcePath(a).endsWith(ARGOCD_APPS_FOLDER));
    const first = root
      ? `first the root Application, \`kubectl -n ${root.metadata.namespace ?? appNs} delete application ${root.metadata.name}\` (it carries no resources finalizer: nothing else goes, and it can no longer bring ${app.metadata.name} back), then `
      : '';
    const cascade = prunes(app);
    steps.push(
      `then remove ${leader} under Argo CD: ${first}\`kubectl -n ${appNs} delete application ${app.metadata.name}\`, ${
        cascade
          ? `which deletes ${describe(argoCdKeeps, 'Argo CD')}; kubectl returns once it is gone`
          : `which deletes nothing in ${leader} (prune is off): then delete the rest by hand, ${byHand()}`
      }`,
    );
    const project = u.delivery.find(
      (o) => o.kind === 'AppProject' && o.apiVersion.startsWith('argoproj.io/'),
    );
    const remote = at(app, 'spec', 'destination', 'server') !== IN_CLUSTER_SERVER;
    const cleanup = [
      ...(project
        ? [`\`kubectl -n ${project.metadata.namespace ?? appNs} delete appproject ${project.metadata.name}\``]
        : []),
      ...(remote ? [`\`argocd cluster rm <${leader}>\``] : []),
    ];
    if (cleanup.length > 0)
      steps.push(
        `then, once ${app.metadata.name} is gone (its deletion reads the project${remote ? ' and reaches the cluster through its registration' : ''}), ${joinAnd(cleanup)}`,
      );
  }
  const kss = u.delivery.filter(isKustomization);
  const leaderKs = kss.filter(mine);
  if (leaderKs.length > 0) {
    const ksNs = leaderKs[0]!.metadata.namespace ?? 'flux-system';
    const root = kss.find((k) => sourcePath(k).endsWith(`/${FLUX_FOLDER}`) || sourcePath(k) === FLUX_FOLDER);
    const orphans = str(at(root, 'spec', 'deletionPolicy')) === 'Orphan';
    const first = root
      ? `first the root Kustomization, \`kubectl -n ${root.metadata.namespace ?? ksNs} delete kustomization ${root.metadata.name}\` (${orphans ? 'its deletionPolicy Orphan keeps what it applied' : 'it deletes what it applied: the other Kustomizations and the GitRepository'}, and it can no longer bring ${leaderKs.map((k) => k.metadata.name).join(' and ')} back), then `
      : '';
    steps.push(
      `then remove ${leader} under Flux: ${first}\`kubectl -n ${ksNs} delete kustomization ${leaderKs.map((k) => k.metadata.name).join(' ')}\`, ${
        leaderKs.every(prunes)
          ? `which deletes ${describe(fluxKeeps, 'Flux')}; kubectl returns once ${leaderKs.length > 1 ? 'they are' : 'it is'} gone`
          : `which deletes nothing in ${leader} (prune is off): then delete the rest by hand, ${byHand()}`
      }`,
    );
    const repo = u.delivery.find((o) => o.kind === 'GitRepository');
    const secrets = [
      ...new Set(leaderKs.flatMap((k) => str(at(k, 'spec', 'kubeConfig', 'secretRef', 'name')) ?? [])),
    ];
    const cleanup = [
      ...(repo
        ? [`\`kubectl -n ${repo.metadata.namespace ?? ksNs} delete gitrepository ${repo.metadata.name}\``]
        : []),
      ...secrets.map((name) => `\`kubectl -n ${ksNs} delete secret ${name}\``),
    ];
    if (cleanup.length > 0)
      steps.push(
        `then, once ${leaderKs.map((k) => k.metadata.name).join(' and ')} ${leaderKs.length > 1 ? 'are' : 'is'} gone, ${joinAnd(cleanup)}`,
      );
  }
  if (!app && leaderKs.length === 0)
    steps.push(`then remove ${leader} by hand (no Application or Kustomization delivers it): ${byHand()}`);
  return steps;
}
