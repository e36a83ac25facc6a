/**
 * What a member that leaves asks of people, under each delivery tool that delivered it (read from
 * its removed Application and Kustomizations): with prune on, what the tool deletes and what it
 * never does (CRDs, `Delete=false`, Flux's `prune: disabled`), then its registration or kubeconfig;
 * with prune off, its delivery object deleted by hand; the token Secret `clusterset token` wrote;
 * and Antrea's member controller restarted where the change also removes its identity from the
 * leader. uninstall.ts reuses these for every member at once.
 */
import { CLUSTER_ID_ANNOTATION, MEMBER_CONTROLLER_DEPLOYMENT } from '../../names';
import { CASCADE_FINALIZER, IN_CLUSTER_SERVER } from '../../render/argocd';
import { ARGOCD_SYNC_OPTIONS, FLUX_PRUNE } from '../../render/util';
import { joinAnd, kindCounts } from '../describe';
import type { DiffObject, ObjectChange, TreeDiff } from '../tree';
import { at, clusterBundle, deliveryFor, isObj, str } from './util';

/** Argo CD never deletes a CRD on a cascade, nor an object whose sync-options say `Delete=false`. */
export function argoCdKeeps(x: DiffObject | undefined): boolean {
  const options = str(at(x, 'metadata', 'annotations', ARGOCD_SYNC_OPTIONS)) ?? '';
  return (
    x?.kind === 'CustomResourceDefinition' || options.split(',').some((s) => s.trim() === 'Delete=false')
  );
}

/** Flux's garbage collection skips what is labelled or annotated `kustomize.toolkit.fluxcd.io/prune: disabled`. */
export function fluxKeeps(x: DiffObject | undefined): boolean {
  return [at(x, 'metadata', 'labels', FLUX_PRUNE), at(x, 'metadata', 'annotations', FLUX_PRUNE)].some(
    (v) => str(v)?.toLowerCase() === 'disabled',
  );
}

export interface Tool {
  readonly name: string;
  /** `its Application`, `its Kustomizations`. */
  readonly object: string;
  /** Deleting the delivery object deletes what it applied (Argo CD's resources finalizer, Flux's prune). */
  readonly cascade: boolean;
  readonly keeps: (x: DiffObject | undefined) => boolean;
  /** The command that deletes the delivery object. */
  readonly deleteCommand: string;
  /** What to do once the delivery object is gone. */
  readonly cleanup: readonly string[];
}

/** Whether deleting the Application deletes what it applied first (its resources finalizer). */
export function cascades(app: ObjectChange): boolean {
  return ((at(app.before, 'metadata', 'finalizers') as unknown[] | undefined) ?? []).includes(
    CASCADE_FINALIZER,
  );
}

/** The delivery tools that delivered member `id`, from its removed Application and Kustomizations. */
export function toolsOf(diff: TreeDiff, id: string): Tool[] {
  const tools: Tool[] = [];
  const apps = deliveryFor(diff, 'Application', id, 'removed');
  if (apps.length > 0)
    tools.push({
      name: 'Argo CD',
      object: 'its Application',
      cascade: apps.every(cascades),
      keeps: argoCdKeeps,
      deleteCommand: `kubectl -n ${apps[0]!.namespace ?? 'argocd'} delete application ${apps.map((a) => a.name).join(' ')}`,
      // The management cluster (in-cluster) is never registered, so never removed.
      cleanup: apps.some((a) => at(a.before, 'spec', 'destination', 'server') === IN_CLUSTER_SERVER)
        ? []
        : [`\`argocd cluster rm <${id}>\``],
    });
  const kss = deliveryFor(diff, 'Kustomization', id, 'removed');
  if (kss.length > 0) {
    const ns = kss[0]!.namespace ?? 'flux-system';
    const secrets = new Set(
      kss.flatMap((k) => str(at(k.before, 'spec', 'kubeConfig', 'secretRef', 'name')) ?? []),
    );
    tools.push({
      name: 'Flux',
      object: kss.length === 1 ? 'its Kustomization' : 'its Kustomizations',
      cascade: kss.every((k) => at(k.before, 'spec', 'prune') === true),
      keeps: fluxKeeps,
      deleteCommand: `kubectl -n ${ns} delete kustomization ${kss.map((k) => k.name).join(' ')}`,
      cleanup: [...secrets].map((name) => `\`kubectl -n ${ns} delete secret ${name}\``),
    });
  }
  return tools;
}

/**
 * The objects the change removes from `id`'s bundle: all of them when the bundle goes, the member
 * side when a leader that is also a member stops being one.
 */
export function removedObjects(diff: TreeDiff, id: string): readonly ObjectChange[] {
  return (clusterBundle(diff, id)?.objects ?? []).filter((x) => x.change === 'removed');
}

/**
 * What removing member `id` from the model does under each delivery tool, and what is left to a
 * person. With prune on, the root prunes the member's delivery object, which first deletes what it
 * applied in the member but what is never deleted (one sentence when both tools keep the same); its
 * cluster registration or kubeconfig goes only after that, or the tool could no longer reach the
 * member to delete anything. With prune off, the root prunes nothing and nothing is deleted. The
 * token Secret's step follows unless `withToken` is false (uninstalling lists it after the wait).
 */
export function leaving(diff: TreeDiff, id: string, withToken = true): string[] {
  const objects = removedObjects(diff, id);
  const tools = toolsOf(diff, id);
  const deletes = (keeps: Tool['keeps'], who: string): string => {
    const gone = objects.filter((x) => !keeps(x.before));
    const kept = objects.filter((x) => keeps(x.before));
    if (objects.length === 0) return `what ${who} applied in ${id}`;
    return `what ${who} applied in ${id} (${joinAnd(kindCounts(gone))})${kept.length > 0 ? ` but not its ${joinAnd(kindCounts(kept))}, which ${kept.length === 1 ? 'is' : 'are'} never deleted` : ''}`;
  };
  // Not before: deleting needs the registration or kubeconfig to reach the member.
  const then = (cleanup: readonly string[], they: string): string =>
    cleanup.length > 0 ? `; only once ${they} gone, ${joinAnd(cleanup)}` : '';
  const steps: string[] = [];
  const cascading = tools.filter((t) => t.cascade);
  const [a, b] = cascading;
  if (a && b && objects.every((x) => a.keeps(x.before) === b.keeps(x.before))) {
    steps.push(
      `${id} leaves: ${a.name} and ${b.name} delete ${a.object} and ${b.object.replace(/^its /, '')}, each after deleting ${deletes(a.keeps, 'they')}${then([...a.cleanup, ...b.cleanup], 'both are')}`,
    );
  } else {
    for (const t of cascading)
      steps.push(
        `${id} leaves: ${t.name} deletes ${t.object} after deleting ${deletes(t.keeps, 'it')}${then(t.cleanup, t.object.endsWith('s') ? 'they are' : 'it is')}`,
      );
  }
  for (const t of tools.filter((x) => !x.cascade))
    steps.push(
      `${id} leaves: prune is off, so ${t.name} keeps ${t.object} and deletes nothing in ${id}; delete ${t.object.endsWith('s') ? 'them' : 'it'} by hand (\`${t.deleteCommand}\`, nothing cascades)${t.cleanup.length > 0 ? `, then ${joinAnd(t.cleanup)}` : ''}`,
    );
  if (withToken) steps.push(...tokenLeaving(diff, id));
  return steps;
}

/**
 * A member that leaves while the same change removes its identity from the leader (every removal but
 * the uninstall, which keeps the identities until the members have left) cannot finish its own
 * clean-up: Antrea's member controller, its ClusterSet gone, first deletes its announce in the leader
 * with its token, and retries for as long as the leader refuses the token, never reaching what it
 * imported (member/clusterset_controller.go cleanUpResources); started with no ClusterSet, its stale
 * clean-up deletes everything it imported (member/stale_controller.go). So it is restarted once its
 * delivery has deleted its ClusterSet. The reconciler retires its announce and exports by itself.
 */
export function identityGone(diff: TreeDiff, id: string, leader: string | undefined): string[] {
  // The member's ServiceAccount, whatever its name (memberIdentity): the one annotated with its ID.
  const identity = clusterBundle(diff, leader)?.objects.some(
    (x) =>
      x.kind === 'ServiceAccount' &&
      x.change === 'removed' &&
      at(x.before, 'metadata', 'annotations', CLUSTER_ID_ANNOTATION) === id,
  );
  const clusterSet = removedObjects(diff, id).find((x) => x.kind === 'ClusterSet')?.before;
  if (!identity || !clusterSet) return [];
  const ns = clusterSet.metadata.namespace ?? 'kube-system';
  const cascading = toolsOf(diff, id).filter((t) => t.cascade);
  const when =
    cascading.length === 2
      ? 'only once both are gone'
      : cascading.length === 1
        ? `only once ${cascading[0]!.object} ${cascading[0]!.object.endsWith('s') ? 'are' : 'is'} gone`
        : 'once its ClusterSet is deleted';
  return [
    `${id} leaves: ${when}, restart Antrea's member controller there, so that it deletes what it imported (this change also removes its identity from ${leader ?? 'the leader'}, and its own clean-up, which first deletes its announce there with its token, stops at that; started with no ClusterSet, it deletes everything it imported; the reconciler retires its announce and exports): \`kubectl --context <${id}> -n ${ns} rollout restart deployment ${MEMBER_CONTROLLER_DEPLOYMENT}\``,
  ];
}

/**
 * The member's token Secret is written by `clusterset token`, not by a tool (External Secrets
 * writes it when the bundle holds an ExternalSecret, and owns it): deleting it is a person's step.
 */
export function tokenLeaving(diff: TreeDiff, id: string): string[] {
  const objects = removedObjects(diff, id);
  const steps: string[] = [];
  const clusterSet = objects.find((x) => x.kind === 'ClusterSet')?.before;
  const leaders = at(clusterSet, 'spec', 'leaders');
  const token = str(Array.isArray(leaders) && isObj(leaders[0]) ? leaders[0].secret : undefined);
  if (token !== undefined && clusterSet && !objects.some((x) => x.kind === 'ExternalSecret')) {
    const ns = clusterSet.metadata.namespace ?? 'kube-system';
    steps.push(
      `${id} leaves: its token Secret ${ns}/${token} was written by \`clusterset token\`, not by a tool; delete it: \`kubectl --context <${id}> -n ${ns} delete secret ${token}\``,
    );
  }
  return steps;
}
