/**
 * What a change asks of people once it is merged, read from the semantic diff: the manual steps
 * (re-applying the AppProject: first, or where a member's Application is deleted with cascade, only
 * once it is gone; what a new member needs before its first sync that no bundle holds, the
 * application teams' Namespaces and Antrea's own settings, as `explain` lists them; registering a new
 * member with Argo CD or giving Flux its kubeconfig, its token or what External Secrets needs for it,
 * switching delivery tools: the new one bootstrapped and healthy before the old one's objects are
 * deleted without deleting what they applied; annotating gateway Nodes where a member starts
 * exchanging Services across networks, what removing a member does under each tool, Antrea's member
 * controller settings where Antrea's install owns them, taking an object out of its other owner when
 * clusterset takes it over, rotating a member's identity when its names change), the breaking changes that something outside out/ must follow (a
 * Service's ports). What happens by itself (a member controller restart, by the member bundle's Job)
 * is in the impact summary instead. Pure.
 */
import { MEMBER_CONFIG_KEY } from '../antrea-member-config';
import {
  antreaSettings,
  deliveryPrerequisites,
  serviceNamespaces,
  type DeliveryPrerequisite,
} from '../explain/prerequisites';
import type { GatewayNodeProps } from '../model';
import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_WATCHER_SUFFIX,
  ANTREA_LEADER_WEBHOOKS,
  CLUSTER_ID_ANNOTATION,
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_CONTROLLER_DEPLOYMENT,
  MEMBER_RESTART_NAME,
  announceName,
  memberImportName,
  memberTokenReaderName,
} from '../names';
import { ARGOCD_APPS_FOLDER, CASCADE_FINALIZER, IN_CLUSTER_SERVER } from '../render/argocd';
import type { Plan } from '../plan';
import { ARGOCD_CM, ARGOCD_CONFIG_FOLDER, ARGOCD_FOLDER } from '../render/delivery';
import { FLUX_FOLDER } from '../render/flux';
import {
  EXPECTED_MEMBER_CONFIG_ANNOTATION,
  MEMBER_CONFIG_CHECKSUM_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
} from '../render/member-restart';
import { ARGOCD_SYNC_OPTIONS, FLUX_PRUNE } from '../render/util';
import { joinAnd, kindCounts } from './describe';
import { beforeMergeSteps } from './image-steps';
import type { BundleDiff, DiffObject, ObjectChange, TreeDiff } from './tree';

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

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj.a.b.c`, or undefined. */
function at(obj: unknown, ...keys: string[]): unknown {
  let v: unknown = obj;
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `['http 8080/TCP', 'grpc 9090/TCP']`. */
function portList(v: unknown): string[] {
  const list = Array.isArray(v) ? v.filter(isObj) : [];
  return list.map(
    (p) => `${str(p.name) ? `${String(p.name)} ` : ''}${String(p.port)}/${str(p.protocol) ?? 'TCP'}`,
  );
}

/** The delivery objects of `kind` whose source is `clusters/<id>`, with the change they went through. */
function deliveryFor(
  diff: TreeDiff,
  kind: string,
  id: string,
  change: ObjectChange['change'],
): ObjectChange[] {
  const path = (o: ObjectChange): string | undefined =>
    kind === 'Application'
      ? str(at(o.after ?? o.before, 'spec', 'source', 'path'))
      : str(at(o.after ?? o.before, 'spec', 'path'));
  return diff.bundles
    .filter((b) => b.type === 'delivery')
    .flatMap((b) => b.objects)
    .filter(
      (o) =>
        o.kind === kind &&
        o.change === change &&
        (path(o) ?? '').replace(/\/+$/, '').endsWith(`clusters/${id}`),
    );
}

function clusterBundle(diff: TreeDiff, id: string | undefined): BundleDiff | undefined {
  return id === undefined ? undefined : diff.bundles.find((b) => b.cluster === id);
}

/** Argo CD never deletes a CRD on a cascade, nor an object whose sync-options say `Delete=false`. */
function argoCdKeeps(x: DiffObject | undefined): boolean {
  const options = str(at(x, 'metadata', 'annotations', ARGOCD_SYNC_OPTIONS)) ?? '';
  return (
    x?.kind === 'CustomResourceDefinition' || options.split(',').some((s) => s.trim() === 'Delete=false')
  );
}

/** Flux's garbage collection skips what is labelled or annotated `kustomize.toolkit.fluxcd.io/prune: disabled`. */
function fluxKeeps(x: DiffObject | undefined): boolean {
  return [at(x, 'metadata', 'labels', FLUX_PRUNE), at(x, 'metadata', 'annotations', FLUX_PRUNE)].some(
    (v) => str(v)?.toLowerCase() === 'disabled',
  );
}

interface Tool {
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
function cascades(app: ObjectChange): boolean {
  return ((at(app.before, 'metadata', 'finalizers') as unknown[] | undefined) ?? []).includes(
    CASCADE_FINALIZER,
  );
}

/** The delivery tools that delivered member `id`, from its removed Application and Kustomizations. */
function toolsOf(diff: TreeDiff, id: string): Tool[] {
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
function removedObjects(diff: TreeDiff, id: string): readonly ObjectChange[] {
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
function leaving(diff: TreeDiff, id: string, withToken = true): string[] {
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
function identityGone(diff: TreeDiff, id: string, leader: string | undefined): string[] {
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
function tokenLeaving(diff: TreeDiff, id: string): string[] {
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

/** `spec.source.path` of an Application, `spec.path` of a Kustomization, without a trailing `/`. */
function sourcePath(o: DiffObject): string {
  return (str(at(o, 'spec', 'source', 'path')) ?? str(at(o, 'spec', 'path')) ?? '').replace(/\/+$/, '');
}

const isApplication = (o: DiffObject): boolean =>
  o.kind === 'Application' && o.apiVersion.startsWith('argoproj.io/');
const isKustomization = (o: DiffObject): boolean =>
  o.kind === 'Kustomization' && o.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/');

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
function uninstallSteps(diff: TreeDiff, leader: string, left: readonly string[], u: Uninstall): string[] {
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

/** The object of `kind` (and `name`) that the change adds to `id`'s bundle. */
function added(diff: TreeDiff, id: string | undefined, kind: string, name?: string): DiffObject | undefined {
  return clusterBundle(diff, id)?.objects.find(
    (x) => x.change === 'added' && x.kind === kind && (name === undefined || x.name === name),
  )?.after;
}

const objName = (x: DiffObject): string =>
  `${x.metadata.namespace !== undefined ? `${x.metadata.namespace}/` : ''}${x.metadata.name}`;

/**
 * How long a checklist's `clusterset token` waits for the leader's token Secret: the leader's bundle
 * syncs after the merge or the bootstrap, within a delivery tool's poll (Argo CD's 3 minutes).
 */
const TOKEN_STEP_WAIT_SECONDS = 600;

/**
 * How a new member gets its leader token: `clusterset token`, or, when its bundle brings an
 * ExternalSecret, what External Secrets needs that no bundle can hold (the leader trusting the
 * store's identity, a bootstrap token Secret, a CA ConfigMap).
 */
function tokenSteps(diff: TreeDiff, id: string, leader: string | undefined): string[] {
  const es = added(diff, id, 'ExternalSecret');
  if (es === undefined)
    return [
      `copy ${id}'s token from the leader (it waits until the leader's bundle has created the token Secret and Kubernetes has filled it): \`npx clusterset token ${id} --leader-context <${leader ?? 'leader'}> --member-context <${id}> --wait ${TOKEN_STEP_WAIT_SECONDS}\``,
    ];
  const store = added(diff, id, 'SecretStore', str(at(es, 'spec', 'secretStoreRef', 'name')));
  const k8s = at(store, 'spec', 'provider', 'kubernetes');
  const ns = es.metadata.namespace ?? '';
  const reader = added(diff, leader, 'RoleBinding', memberTokenReaderName(id));
  const subjects = at(reader, 'subjects');
  const user = Array.isArray(subjects) && isObj(subjects[0]) ? str(subjects[0].name) : undefined;
  const as = user !== undefined ? ` as \`${user}\`` : '';
  const steps: string[] = [];
  const sa = str(at(k8s, 'auth', 'serviceAccount', 'name'));
  const bearer = at(k8s, 'auth', 'token', 'bearerToken');
  const via = `${id}'s token comes by External Secrets (ExternalSecret ${objName(es)})`;
  if (sa !== undefined)
    steps.push(
      `${via}: the leader${leader ? ` (${leader})` : ''} must authenticate ${id}'s ServiceAccount ${ns}/${sa}${as} (a JWT authenticator in its AuthenticationConfiguration that trusts ${id}'s ServiceAccount issuer)`,
    );
  else if (isObj(bearer))
    steps.push(
      `${via}: create Secret ${ns}/${String(bearer.name)} in ${id}, key \`${String(bearer.key)}\`: a leader bearer token${user !== undefined ? ` for \`${user}\`` : ''}`,
    );
  else steps.push(`${via}: the leader must authenticate its SecretStore${as}`);
  const ca = at(k8s, 'server', 'caProvider');
  if (isObj(ca) && ca.type === 'ConfigMap')
    steps.push(
      `create ConfigMap ${ns}/${String(ca.name)} in ${id} with the leader's CA certificate under key \`${String(ca.key)}\``,
    );
  return steps;
}

/**
 * Where out/ sits in the repository (the model's `delivery.path`), read from a delivery object the
 * change touches: an Application's `spec.source.path` or a Kustomization's `spec.path` is
 * `<path>/clusters/<id>`, `<path>/argocd/apps` or `<path>/flux`. `out` when none says.
 */
function outPath(diff: TreeDiff): string {
  for (const b of diff.bundles) {
    if (b.type !== 'delivery') continue;
    for (const x of b.objects) {
      const obj = x.after ?? x.before;
      const p = str(at(obj, 'spec', 'source', 'path')) ?? str(at(obj, 'spec', 'path'));
      const m = p === undefined ? null : /^(?:\.\/)?(.+?)\/(?:clusters\/[^/]+|argocd\/apps|flux)\/?$/.exec(p);
      if (m) return m[1]!;
    }
  }
  return 'out';
}

/** A member that starts exchanging Services across networks, and where its peers are. */
export interface GatewayChange {
  readonly cluster: string;
  /** Its network; undefined: the default network. */
  readonly network: string | undefined;
  /** The other networks it exchanges Services with, sorted (undefined: the default network). */
  readonly peers: readonly (string | undefined)[];
  /** A member of the set before the change (its Nodes may be annotated already). */
  readonly existing: boolean;
  /** The model's gateway Nodes, when the caller knows them (no bundle holds them). */
  readonly nodes?: readonly GatewayNodeProps[];
}

/** A cluster on no declared network has none, or `network.k8s.io: default` once some cluster declares one. */
const networkName = (n: string | undefined): string =>
  n === undefined || n === 'default' ? 'the default network' : `network ${n}`;

/**
 * `kubectl annotate` for the gateway candidates: one command for the Nodes without an IP override,
 * one per Node with one (docs/gateways.md).
 */
function annotateCommands(g: GatewayChange): string {
  const ctx = `kubectl --context <${g.cluster}> annotate node`;
  const flag = 'multicluster.antrea.io/gateway=true';
  const nodes = g.nodes ?? [];
  if (nodes.length === 0) return `\`${ctx} <node> ${flag}\` for each Node the model lists in gateway.nodes`;
  const plain = nodes.filter((n) => n.ip === undefined).map((n) => n.name);
  const commands = [
    ...(plain.length > 0 ? [`${ctx} ${plain.join(' ')} ${flag}`] : []),
    ...nodes
      .filter((n) => n.ip !== undefined)
      .map((n) => `${ctx} ${n.name} ${flag} multicluster.antrea.io/gateway-ip=${n.ip!}`),
  ];
  return joinAnd(commands.map((c) => `\`${c}\``));
}

function gatewayStep(g: GatewayChange): string {
  const why = `it is on ${networkName(g.network)} and ${g.existing ? 'now exchanges' : 'exchanges'} Services with ${joinAnd(g.peers.map(networkName))}`;
  return `annotate ${g.cluster}'s gateway Nodes${g.existing ? ' unless they already are' : ''} (${why}): ${annotateCommands(g)}`;
}

/**
 * What joining member `id` needs before its first sync that no bundle of it holds, from the one
 * source `explain` prints it from (explain/prerequisites.ts): the exported Services' Namespaces,
 * which the application teams own unless the model takes them over (and then its bundle renders
 * them: any the bundle renders is left out), and the settings Antrea's agent and controller must
 * have there for the model's features (the member controller's own file is memberConfigSteps's).
 * Needs the plan of the model after the change: no bundle says either.
 */
function memberPrerequisites(diff: TreeDiff, id: string, plan: Plan | undefined): string[] {
  const c = plan?.clusters.find((x) => x.id === id);
  if (!plan || !c) return [];
  const steps: string[] = [];
  const ctx = `kubectl --context <${id}>`;
  const rendered = new Set(
    (clusterBundle(diff, id)?.objects ?? [])
      .filter((x) => x.kind === 'Namespace' && x.after !== undefined)
      .map((x) => x.name),
  );
  const ns = serviceNamespaces(plan, c);
  if (ns && ns.renderedBy === 'application-teams') {
    const forExports = ns.forExports.filter((n) => !rendered.has(n));
    const forImports = ns.forImports.filter((n) => !rendered.has(n));
    const it = (xs: readonly string[], one: string, many: string): string => (xs.length > 1 ? many : one);
    const why = [
      ...(forExports.length > 0
        ? [
            `${joinAnd(forExports)} (its ServiceExports live there: its bundle applies only once ${it(forExports, 'it exists', 'they exist')})`,
          ]
        : []),
      ...(forImports.length > 0
        ? [
            `${joinAnd(forImports)} (imports only: Antrea imports into ${it(forImports, 'it', 'them')} once ${it(forImports, 'it exists', 'they exist')})`,
          ]
        : []),
    ];
    const all = [...forExports, ...forImports];
    if (all.length > 0)
      steps.push(
        `before ${id}'s first sync, create the exported Services' Namespace${all.length > 1 ? 's' : ''} there, which the application teams own (takeOver.serviceNamespaces is off), as \`npx clusterset explain --cluster ${id}\` lists ${all.length > 1 ? 'them' : 'it'}: ${why.join('; ')}: ${joinAnd(all.map((n) => `\`${ctx} create namespace ${n}\``))}`,
      );
  }
  // Antrea's agent and controller read their files only at start.
  const readers = {
    'antrea-agent.conf': 'daemonset antrea-agent',
    'antrea-controller.conf': 'deployment antrea-controller',
  } as const;
  const files = new Map<keyof typeof readers, { configMap: string; settings: string[] }>();
  for (const s of antreaSettings(plan, c)) {
    if (s.file === MEMBER_CONFIG_KEY) continue;
    const f = files.get(s.file) ?? { configMap: s.configMap, settings: [] };
    f.settings.push(`${s.setting}: ${s.value}`);
    files.set(s.file, f);
  }
  if (files.size > 0) {
    const where = [...files].map(
      ([file, f]) => `in ${file} (ConfigMap ${f.configMap}), ${joinAnd(f.settings.map((x) => `\`${x}\``))}`,
    );
    const restarts = [...files].map(([file, f]) => {
      const ns = f.configMap.split('/')[0]!;
      return `\`${ctx} -n ${ns} rollout restart ${readers[file]}\``;
    });
    steps.push(
      `before ${id}'s first sync, enable in Antrea's install there what the model's features need, as \`npx clusterset explain --cluster ${id}\` lists it with the reasons: ${where.join('; ')}; then restart what reads ${files.size > 1 ? 'them' : 'it'}, only at start: ${joinAnd(restarts)}`,
    );
  }
  return steps;
}

type ToolId = 'argocd' | 'flux';
const TOOLS: readonly ToolId[] = ['argocd', 'flux'];
const TOOL_NAME: Record<ToolId, string> = { argocd: 'Argo CD', flux: 'Flux' };
/** The folder of out/ each tool's objects are emitted to (and its bundle in the diff). */
const TOOL_FOLDER: Record<ToolId, string> = { argocd: ARGOCD_FOLDER, flux: FLUX_FOLDER };

/**
 * The delivery folders of out/ (`argocd`, `flux`) before and after a change that adds or removes one,
 * and every delivery object after it, read by impact.ts.
 */
export interface DeliveryFolders {
  readonly before: readonly string[];
  readonly after: readonly string[];
  readonly objects: readonly DiffObject[];
}

/** How the delivery tools change: which leave out/, which come, which are rendered after. */
interface DeliveryChange {
  readonly retired: readonly ToolId[];
  readonly added: readonly ToolId[];
  readonly after: readonly ToolId[];
  /** Every delivery object after the change. */
  readonly objects: readonly DiffObject[];
}

function deliveryChange(f: DeliveryFolders): DeliveryChange {
  const was = (t: ToolId) => f.before.includes(TOOL_FOLDER[t]);
  const is = (t: ToolId) => f.after.includes(TOOL_FOLDER[t]);
  return {
    retired: TOOLS.filter((t) => was(t) && !is(t)),
    added: TOOLS.filter((t) => is(t) && !was(t)),
    after: TOOLS.filter(is),
    objects: f.objects,
  };
}

/** `['east', 'hub', 'west']`: the clusters that per-cluster delivery objects deliver, each once. */
function deliveredClusters(objs: readonly DiffObject[]): string[] {
  return [...new Set(objs.map((o) => /clusters\/([^/]+)$/.exec(sourcePath(o))?.[1] ?? o.metadata.name))];
}

/** A root: the Application of `<path>/argocd/apps`, the Kustomization of `<path>/flux`. */
function isRoot(o: DiffObject): boolean {
  const p = sourcePath(o).replace(/^\.\//, '');
  return isApplication(o)
    ? p.endsWith(ARGOCD_APPS_FOLDER)
    : p === FLUX_FOLDER || p.endsWith(`/${FLUX_FOLDER}`);
}

const names = (objs: readonly DiffObject[]): string => objs.map((o) => o.metadata.name).join(' ');

/** What a delivery tool needs that out/ cannot hold (an ssh origin's credentials), as `explain` prints it. */
function prerequisiteStep(p: DeliveryPrerequisite): string {
  const how = p.how.map((h) => (/^(argocd|flux|kubectl) /.test(h) ? `\`${h}\`` : h));
  return `${p.need}: ${how.join('; ')}`;
}

/** A delivery tool's bootstrap: the steps that start it, and the wait until it delivers everything. */
interface Bootstrap {
  readonly steps: readonly string[];
  readonly wait: readonly string[];
}

/**
 * Bootstrapping `tool` from out/, in the runbook's order: what it needs first (repository
 * credentials), how it reaches the other clusters (Argo CD's registrations, Flux's kubeconfig
 * Secrets, named as render/flux.ts names them) before anything asks it to (so that no Application or
 * Kustomization starts in error and waits for its next retry), its objects applied by hand in the
 * management cluster; apart, the wait until it delivers every bundle, which the caller places after
 * whatever a bundle needs to become healthy (the members' tokens). `unless`: the tool was rendered
 * before this change too, so it may be bootstrapped already.
 */
function bootstrap(
  tool: ToolId,
  dc: DeliveryChange,
  out: string,
  o: { readonly plan?: Plan; readonly unless: boolean; readonly replacing: readonly ToolId[] },
): Bootstrap {
  const steps = (o.plan ? deliveryPrerequisites(o.plan) : [])
    .filter((p) => p.tool === tool)
    .map(prerequisiteStep);
  const mgmt = o.plan?.delivery ? ` (${o.plan.delivery.managementCluster})` : '';
  const verb = `${o.unless ? `unless ${TOOL_NAME[tool]} delivers the bundles already, ` : ''}bootstrap ${TOOL_NAME[tool]} in the management cluster${mgmt}`;
  const both =
    o.replacing.length > 0
      ? `; until ${joinAnd(o.replacing.map((t) => TOOL_NAME[t]))}'s objects are deleted below, both tools apply the same objects, with the same values`
      : '';
  if (tool === 'flux') {
    const kss = dc.objects.filter(isKustomization);
    const ns = kss[0]?.metadata.namespace ?? 'flux-system';
    const root = kss.find(isRoot);
    const clusters = kss.filter((k) => !isRoot(k));
    const repo = dc.objects.find((x) => x.kind === 'GitRepository');
    const secrets = new Map<string, { key: string; ids: string[] }>();
    for (const k of clusters) {
      const ref = at(k, 'spec', 'kubeConfig', 'secretRef');
      const name = str(at(ref, 'name'));
      if (name === undefined) continue;
      const s = secrets.get(name) ?? { key: str(at(ref, 'key')) ?? 'value', ids: [] };
      for (const id of deliveredClusters([k])) if (!s.ids.includes(id)) s.ids.push(id);
      secrets.set(name, s);
    }
    if (secrets.size > 0) {
      const ids = [...secrets.values()].flatMap((s) => s.ids);
      steps.push(
        `give Flux the kubeconfig of ${joinAnd(ids)}, in the management cluster (it reaches every other cluster through one; never in git): ${joinAnd(
          [...secrets].map(
            ([name, s]) =>
              `\`kubectl -n ${ns} create secret generic ${name} --from-file=${s.key}=${s.ids[0]!}.kubeconfig\``,
          ),
        )} (before the bootstrap, so that no Kustomization starts without one and waits out its retry interval)`,
      );
    }
    steps.push(
      `${verb}: \`kubectl apply -k ${out}/${FLUX_FOLDER}\` (${repo ? `GitRepository ${repo.metadata.name}, ` : ''}${root ? `the root Kustomization ${root.metadata.name} and ` : ''}the Kustomizations of ${joinAnd(deliveredClusters(clusters))})${both}`,
    );
    const wait =
      kss.length > 0
        ? [
            `wait until every Kustomization is Ready (its bundle applied and its health checks passing): \`kubectl -n ${ns} wait ${kss.map((k) => `kustomization/${k.metadata.name}`).join(' ')} --for=condition=Ready --timeout=15m\``,
          ]
        : [];
    return { steps, wait };
  }
  const apps = dc.objects.filter(isApplication);
  const ns = apps[0]?.metadata.namespace ?? 'argocd';
  const root = apps.find(isRoot);
  const clusters = apps.filter((a) => !isRoot(a));
  const project = dc.objects.find((x) => x.kind === 'AppProject');
  const cm = dc.objects.find((x) => x.kind === 'ConfigMap' && x.metadata.name === ARGOCD_CM);
  const remote = clusters.filter((a) => at(a, 'spec', 'destination', 'server') !== IN_CLUSTER_SERVER);
  if (remote.length > 0) {
    const ids = deliveredClusters(remote);
    steps.push(
      `register ${joinAnd(ids)} with Argo CD, before the bootstrap, so that no Application starts with an unknown destination: ${joinAnd(ids.map((id) => `\`argocd cluster add <${id}> --name ${id}\``))}`,
    );
  }
  steps.push(
    `${verb}: \`kubectl apply -k ${out}/${ARGOCD_FOLDER}\` (${project ? `the AppProject ${project.metadata.name} and ` : ''}${root ? `the root Application ${root.metadata.name}, which creates ` : ''}the Applications of ${joinAnd(deliveredClusters(clusters))})${
      cm
        ? `, and merge the health checks of Antrea's kinds into its settings: \`kubectl -n ${cm.metadata.namespace ?? ns} patch configmap ${ARGOCD_CM} --type merge --patch-file ${out}/${ARGOCD_CONFIG_FOLDER}/ConfigMap.${ARGOCD_CM}.yaml\``
        : ''
    }${both}`,
  );
  const all = clusters.map((a) => `application/${a.metadata.name}`).join(' ');
  const waitFor = (what: string, path: string, value: string) =>
    `\`kubectl -n ${ns} wait ${what} --for=jsonpath='{${path}}'=${value} --timeout=15m\``;
  const wait =
    clusters.length > 0
      ? [
          `wait until every Application is Synced and Healthy: ${root ? `${waitFor(`application/${root.metadata.name}`, '.status.sync.status', 'Synced')} (the root has created the others), then ` : ''}${waitFor(all, '.status.sync.status', 'Synced')} and ${waitFor(all, '.status.health.status', 'Healthy')}`,
        ]
      : [];
  return { steps, wait };
}

/** Whether deleting a Kustomization makes Flux delete what it applied (kustomize-controller's finalizer). */
function fluxCollects(k: DiffObject): boolean {
  const policy = str(at(k, 'spec', 'deletionPolicy')) ?? 'MirrorPrune';
  if (policy === 'Delete' || policy === 'WaitForTermination') return true;
  return policy === 'MirrorPrune' && at(k, 'spec', 'prune') === true;
}

/**
 * Retiring `tool`, whose objects this change removes from out/, without deleting anything it applied
 * (`successor`, when there is one, delivers it). Nothing happens by itself after the merge: the
 * tool's root no longer finds its path (Argo CD reports an error and never auto-syncs an Application
 * in error; kustomize-controller stops at "kustomization path not found" before applying or pruning),
 * so every cluster's Application or Kustomization stays and keeps delivering. Deleting them is a
 * person's step, and the one place a cascade could delete every bundle: Argo CD's resources finalizer
 * deletes what an Application applied whatever kubectl's `--cascade` says (it is not an ownerReference),
 * so it is removed first; kustomize-controller collects what a Kustomization applied on deletion when
 * its prune is on (deletionPolicy MirrorPrune, the default) or its deletionPolicy says Delete, so
 * that is turned off first. Then what only the management cluster holds.
 */
function retire(diff: TreeDiff, tool: ToolId, successor: ToolId | undefined, out: string): string[] {
  const before = (
    diff.bundles.find((b) => b.type === 'delivery' && b.bundle === TOOL_FOLDER[tool])?.objects ?? []
  ).flatMap((x) => (x.before !== undefined ? [x.before] : []));
  const then = successor ? 'then ' : '';
  const stop = `${then}stop ${TOOL_NAME[tool]} without deleting what it applied${successor ? ` (${TOOL_NAME[successor]} delivers it now)` : ' (nothing delivers clusters/ once it is gone: apply the bundles by hand)'}, in the management cluster`;
  const steps: string[] = [];
  if (tool === 'argocd') {
    const apps = before.filter(isApplication);
    const ns = apps[0]?.metadata.namespace ?? 'argocd';
    const root = apps.find(isRoot);
    const clusters = apps.filter((a) => !isRoot(a));
    const finalized = clusters.filter((a) =>
      ((at(a, 'metadata', 'finalizers') as unknown[] | undefined) ?? []).some((f) =>
        String(f).startsWith('resources-finalizer.argocd.argoproj.io'),
      ),
    );
    if (root)
      steps.push(
        `${stop}: first its root Application, \`kubectl -n ${root.metadata.namespace ?? ns} delete application ${root.metadata.name}\` (it carries no resources finalizer, so the Applications it created stay; since the merge its path ${out}/${ARGOCD_APPS_FOLDER} no longer exists, and Argo CD never auto-syncs an Application in error, so it has pruned none of them)`,
      );
    if (clusters.length > 0) {
      const del = `\`kubectl -n ${ns} delete application ${names(clusters)}\``;
      steps.push(
        `${root ? 'then ' : `${stop}: `}delete the Applications of ${joinAnd(deliveredClusters(clusters))} without cascade: ${
          finalized.length > 0
            ? `${finalized.length === clusters.length ? 'they carry' : `${joinAnd(finalized.map((a) => a.metadata.name))} carry`} Argo CD's resources finalizer (${CASCADE_FINALIZER}), with which deleting an Application first deletes everything it applied in its cluster; remove it, then delete them: \`kubectl -n ${ns} patch application ${names(finalized)} --type merge -p '{"metadata":{"finalizers":null}}'\` and ${del} (\`kubectl delete --cascade=orphan\` would not do: it orphans only what has an ownerReference, and the finalizer still runs)`
            : `they carry no resources finalizer (prune is off), so deleting them deletes nothing in the clusters: ${del}`
        }`,
      );
    }
    const project = before.find((x) => x.kind === 'AppProject');
    const remote = deliveredClusters(
      clusters.filter((a) => at(a, 'spec', 'destination', 'server') !== IN_CLUSTER_SERVER),
    );
    const cleanup = [
      ...(project
        ? [`\`kubectl -n ${project.metadata.namespace ?? ns} delete appproject ${project.metadata.name}\``]
        : []),
      ...remote.map((id) => `\`argocd cluster rm <${id}>\``),
    ];
    if (cleanup.length > 0 && clusters.length > 0)
      steps.push(
        `then, once they are gone (\`kubectl -n ${ns} wait --for=delete ${clusters.map((a) => `application/${a.metadata.name}`).join(' ')} --timeout=15m\`), ${joinAnd(cleanup)}`,
      );
    return steps;
  }
  const kss = before.filter(isKustomization);
  const ns = kss[0]?.metadata.namespace ?? 'flux-system';
  const root = kss.find(isRoot);
  const clusters = kss.filter((k) => !isRoot(k));
  const orphaning = '--type merge -p \'{"spec":{"prune":false,"deletionPolicy":"Orphan"}}\'';
  const collects =
    "deleting a Kustomization makes Flux delete everything it applied when its prune is on (deletionPolicy MirrorPrune, the default) or its deletionPolicy says Delete, whatever kubectl's --cascade says";
  // The root first, so that nothing applies the others again (taking their patched fields back)
  // between their patch and their deletion: its source may still hold out/flux until it is fetched.
  if (root) {
    const rootNs = root.metadata.namespace ?? ns;
    const del = `\`kubectl -n ${rootNs} delete kustomization ${root.metadata.name}\``;
    steps.push(
      `${stop}: first its root Kustomization, ${
        fluxCollects(root)
          ? `whose deletion would delete the others (${collects}): \`kubectl -n ${rootNs} patch kustomization ${root.metadata.name} ${orphaning}\`, then ${del}`
          : `${del} (its deletionPolicy Orphan keeps the Kustomizations it applied, none of which it pruned: since the merge its path ${out}/${FLUX_FOLDER} is gone, and kustomize-controller stops there, before applying or pruning)`
      }`,
    );
  }
  if (clusters.length > 0) {
    const collecting = clusters.filter(fluxCollects);
    const del = `\`kubectl -n ${ns} delete kustomization ${names(clusters)}\``;
    steps.push(
      `${root ? 'then ' : `${stop}: `}delete the Kustomizations of ${joinAnd(deliveredClusters(clusters))} without deleting what they applied: ${
        collecting.length > 0
          ? `${collects}, so turn that off first${collecting.length < clusters.length ? ` on ${joinAnd(collecting.map((k) => k.metadata.name))}` : ''}, then delete them: \`kubectl -n ${ns} patch kustomization ${names(collecting)} ${orphaning}\` and ${del}`
          : `prune is off on every one, so deleting them deletes nothing in the clusters: ${del}`
      }`,
    );
  }
  const repo = before.find((x) => x.kind === 'GitRepository');
  const secrets = [
    ...new Set(kss.flatMap((k) => str(at(k, 'spec', 'kubeConfig', 'secretRef', 'name')) ?? [])),
  ];
  const cleanup = [
    ...(repo
      ? [`\`kubectl -n ${repo.metadata.namespace ?? ns} delete gitrepository ${repo.metadata.name}\``]
      : []),
    ...(secrets.length > 0
      ? [`\`kubectl -n ${ns} delete secret ${secrets.join(' ')}\` (the kubeconfig Secrets)`]
      : []),
  ];
  if (cleanup.length > 0 && kss.length > 0) steps.push(`then, once they are gone, ${joinAnd(cleanup)}`);
  return steps;
}

/**
 * The After merge block of a change of delivery tool (the model's `delivery.argocd` / `delivery.flux`
 * turned on or off), in order: the new tool bootstrapped, given what reaches the other clusters, and
 * healthy; only then the old one's objects deleted without deleting what they applied, and what
 * only the management cluster holds for it. A tool that comes while another stays: bootstrap one
 * only. A first tool: its bootstrap. Members leaving in the same change: split it.
 */
function deliverySteps(
  diff: TreeDiff,
  dc: DeliveryChange,
  o: { readonly plan?: Plan; readonly left: readonly string[] },
): DeliverySteps {
  const out = outPath(diff);
  const only = (steps: string[]): DeliverySteps => ({ steps, wait: [], retire: [] });
  if (dc.retired.length === 0) {
    if (dc.added.length === 0) return only([]);
    const others = dc.after.filter((t) => !dc.added.includes(t));
    // A first tool: its wait comes last, once every member has what it needs to be healthy.
    if (others.length === 0 && dc.added.length === 1)
      return { ...bootstrap(dc.added[0]!, dc, out, { ...o, unless: false, replacing: [] }), retire: [] };
    const added = dc.added.map((t) => `${out}/${TOOL_FOLDER[t]}`);
    return only([
      others.length > 0
        ? `${joinAnd(added)} ${added.length > 1 ? 'are' : 'is'} new beside ${joinAnd(others.map((t) => `${out}/${TOOL_FOLDER[t]}`))}: bootstrap one delivery tool only (two would apply the same objects); to switch to ${TOOL_NAME[dc.added[0]!]}, turn ${TOOL_NAME[others[0]!]} off in the model (\`delivery.${others[0]!}: { enabled: false }\`): that change's After merge block lists the switch, in order`
        : `${joinAnd(added)} are new: bootstrap one delivery tool only (two would apply the same objects), ${dc.added.map((t) => `\`kubectl apply -k ${out}/${TOOL_FOLDER[t]}\``).join(' or ')}, as clusterset's runbook says (docs/runbook.md)`,
    ]);
  }
  const retired = dc.retired.map((t) => TOOL_NAME[t]);
  if (o.left.length > 0)
    return only([
      `split this change: it removes ${joinAnd(o.left)} while it stops delivering with ${joinAnd(retired)}, whose root no longer prunes what ${o.left.length > 1 ? 'they leave' : 'it leaves'} behind, and retiring ${retired.length > 1 ? 'them' : 'it'} keeps what ${retired.length > 1 ? 'they' : 'it'} applied everywhere. Remove ${joinAnd(o.left)} in a change of ${o.left.length > 1 ? 'their' : 'its'} own first and follow its After merge block, then switch`,
    ]);
  // A switch: the new tool delivers everything (a joining member's token given) before the old
  // one's objects go.
  const successor = dc.after.find((t) => !dc.retired.includes(t));
  const b = successor
    ? bootstrap(successor, dc, out, { ...o, unless: !dc.added.includes(successor), replacing: dc.retired })
    : { steps: [], wait: [] };
  return { ...b, retire: dc.retired.flatMap((t) => retire(diff, t, successor, out)) };
}

/** A change of delivery tools: the new one's bootstrap and wait, the old one's retirement. */
interface DeliverySteps extends Bootstrap {
  /** After the wait: the retired tool's objects deleted without deleting what they applied. */
  readonly retire: readonly string[];
}

/** The names of one member's identity as the rendered objects carry them (impact.ts reads them). */
export interface IdentityNames {
  /** The ServiceAccount in the leader annotated with the member's cluster ID. */
  readonly serviceAccount: string;
  /** The RoleBinding binding it to Antrea's member Role. */
  readonly roleBinding: string | undefined;
  /** Its token Secret in the leader. */
  readonly tokenSecret: string | undefined;
  /** The Secret the member's ClusterSet names. */
  readonly memberTokenSecret: string | undefined;
  readonly leaderNamespace: string;
  readonly memberNamespace: string | undefined;
}

/** A member that stays while the names of its identity change. */
export interface IdentityRotation {
  readonly member: string;
  readonly before: IdentityNames;
  readonly after: IdentityNames;
  /** Its token comes by External Secrets after the change (its bundle holds an ExternalSecret). */
  readonly externalSecrets: boolean;
}

/** How the leader's bundle is delivered after the change: by which tools, and whether their syncs prune. */
export interface LeaderSync {
  /** `Argo CD`, `Flux`; empty when nothing delivers it (it is applied by hand). */
  readonly tools: readonly string[];
  /** Every tool that delivers it deletes what leaves the bundle (Argo CD's automated prune, Flux's prune). */
  readonly prunes: boolean;
}

const LEADER_SIDE = [
  ['serviceAccount', 'ServiceAccount', 'serviceaccount'],
  ['roleBinding', 'RoleBinding', 'rolebinding'],
  ['tokenSecret', 'token Secret', 'secret'],
] as const;

/**
 * What renaming a member's identity asks of people. Antrea's upgrade guide rotates an identity
 * without a gap: a new identity beside the old one, its token copied into a new Secret in the
 * member, the member ClusterSet pointed at it (a change of `leaders[0].secret` rebuilds the
 * member's connection; nothing is deleted), and only then the old identity deleted. clusterset
 * renders one identity per member, so one change does it all, and what the member sees depends on
 * which bundle syncs when: the leader's sync creates the new identity and, with prune on, deletes
 * the old one (its token stops working), the member's points its ClusterSet at the new Secret, and
 * no order between the two is set. The member controller reads its token Secret only when it
 * (re)builds its connection (antrea-mc.md §i).
 */
function rotationSteps(r: IdentityRotation, leader: string, sync: LeaderSync | undefined): string[] {
  const { member: id, before: b, after: a } = r;
  const ns = a.memberNamespace ?? b.memberNamespace ?? 'kube-system';
  const lns = a.leaderNamespace;
  const renamed = LEADER_SIDE.filter(([f]) => b[f] !== a[f]);
  const leaderSide = renamed.length > 0;
  const memberSide = b.memberTokenSecret !== a.memberTokenSecret;
  const newSecret = a.memberTokenSecret ?? '<token Secret>';
  const names = [
    ...renamed.map(([f, what]) => `${what} ${b[f] ?? '?'} → ${a[f] ?? '?'}`),
    ...(memberSide ? [`its token Secret in ${id} ${b.memberTokenSecret ?? '?'} → ${newSecret}`] : []),
  ];
  const steps: string[] = [];
  const prunes = sync !== undefined && sync.tools.length > 0 && sync.prunes;
  const how =
    sync === undefined || sync.tools.length === 0
      ? 'applied by hand'
      : `delivered by ${joinAnd([...sync.tools])}`;
  const copy = `\`npx clusterset token ${id} --leader-context <${leader}> --member-context <${id}>\``;
  const restart = `\`kubectl --context <${id}> -n ${ns} rollout restart deployment ${MEMBER_CONTROLLER_DEPLOYMENT}\``;
  const head = `${id}'s identity is renamed (${joinAnd(names)}): clusterset renders one identity per member, so this change rotates it at once, where Antrea's upgrade guide creates the new identity, moves the member onto it and deletes the old one last`;
  if (leaderSide)
    steps.push(
      prunes
        ? `${head}. When ${leader}'s bundle syncs (${how}), the new identity is created and the old one deleted (prune), and with it the token ${id} holds: from then until ${id} uses the new token, it is Disconnected from ${leader} (its exports fail and are not updated, what it imported stays, nothing is deleted). Take the next steps as soon as ${leader} has synced: the reconciler retires a member that stays silent longer than reconciler.retireMembersAfter (24 h by default)`
        : `${head}. When ${leader}'s bundle is applied (${how}${sync !== undefined && sync.tools.length > 0 ? ', prune off' : ''}), the new identity is created and the old one stays, so ${id} keeps working with its old token; but the member-writes admission policy no longer knows the old ServiceAccount, whose writes then pass on RBAC alone until it is deleted (the last step)`,
    );
  else steps.push(`${head}. ${leader}'s side does not change`);

  // The token, into the Secret the member ClusterSet names after the change.
  if (r.externalSecrets)
    steps.push(
      `${id}'s token comes by External Secrets: once both bundles have synced, its ExternalSecret copies ${a.tokenSecret ?? 'its token Secret'} from ${leader} into ${ns}/${newSecret} (until ${leader} has synced, the store may not read ${a.tokenSecret ?? 'it'} yet, and External Secrets retries)`,
    );
  else if (leaderSide)
    steps.push(
      `once ${leader} has synced (its Secret ${lns}/${a.tokenSecret ?? '<token Secret>'} is then filled), copy ${id}'s new token into ${ns}/${newSecret}: ${copy}`,
    );
  else
    steps.push(
      `copy ${id}'s token into its new Secret ${ns}/${newSecret} before ${id}'s bundle syncs if you can (from this change's checkout: ${leader}'s Secret ${lns}/${a.tokenSecret ?? '<token Secret>'} does not change), else right after: ${copy}`,
    );

  // The member onto the new token.
  steps.push(
    memberSide
      ? `once ${id}'s bundle has synced, its ClusterSet names ${newSecret}, and Antrea's member controller rebuilds its connection to ${leader} with the token there (a change of leaders[0].secret does that; nothing is deleted). The two bundles sync each on its own, in no set order: should ${id}'s come first, ${id} is Disconnected until ${newSecret} holds the new token; if it does not reconnect within minutes of that, restart its controller, ${restart} (safe: every import it has still exists in ${leader})`
      : `${id}'s ClusterSet does not change, and Antrea's member controller reads its token only when it (re)builds its connection: once the new token is in ${ns}/${newSecret}, restart it, ${restart} (safe: every import it has still exists in ${leader}). Renaming memberIdentity.memberTokenSecret in the same change spares this restart: a new Secret name makes the controller reconnect by itself`,
  );

  // What is left of the old identity.
  const connected = `once ${id}'s ClusterSet is Ready again (\`kubectl --context <${id}> -n ${ns} get clustersets.multicluster.crd.antrea.io\`)`;
  if (leaderSide && !prunes)
    steps.push(
      `${connected}, delete its old identity in ${leader}: ${joinAnd(renamed.map(([f, , kind]) => `\`kubectl --context <${leader}> -n ${b.leaderNamespace} delete ${kind} ${b[f] ?? '?'}\``))}`,
    );
  if (memberSide && !r.externalSecrets && b.memberTokenSecret !== undefined)
    steps.push(
      `${connected}, delete its old token Secret, which \`clusterset token\` wrote and no tool deletes: \`kubectl --context <${id}> -n ${ns} delete secret ${b.memberTokenSecret}\``,
    );
  return steps;
}

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
  const breaking: string[] = [];
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

  // Earlier releases applied a partial Deployment of Antrea's member controller (now the restart
  // Job does its work): under Argo CD, where it took, its tracking stays on Antrea's Deployment, and
  // the Application would stay OutOfSync for a pruning its Prune=false forbids.
  const legacy = diff.bundles.flatMap((b) =>
    b.type === 'cluster' && b.cluster !== undefined && !o.left.includes(b.cluster)
      ? b.objects
          .filter(
            (x) =>
              x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT && x.change === 'removed',
          )
          .map((x) => ({ id: b.cluster!, ns: x.namespace ?? 'kube-system' }))
      : [],
  );
  if (legacy.length > 0) {
    const one = legacy.length === 1 ? `<${legacy[0]!.id}>` : '<member>';
    const ns = legacy[0]!.ns;
    steps.push(
      `Antrea's member controller Deployment in ${joinAnd(legacy.map((l) => l.id))} is no longer patched by the bundle (a restart Job is): where Argo CD applied the old partial object, drop what it left, so that the Application does not stay OutOfSync: \`kubectl --context ${one} -n ${ns} annotate deployment ${MEMBER_CONTROLLER_DEPLOYMENT} argocd.argoproj.io/tracking-id- argocd.argoproj.io/sync-options- argocd.argoproj.io/sync-wave-\` and \`kubectl --context ${one} -n ${ns} label deployment ${MEMBER_CONTROLLER_DEPLOYMENT} app.kubernetes.io/instance-\` (the label under Argo CD's label tracking)`,
    );
  }

  const gateways = new Map((o.gateways ?? []).map((g) => [g.cluster, g]));
  for (const id of o.joined) {
    section(`${id} joins`, id);
    for (const app of newArgoCd ? [] : deliveryFor(diff, 'Application', id, 'added')) {
      const dest =
        str(at(app.after, 'spec', 'destination', 'server')) ??
        str(at(app.after, 'spec', 'destination', 'name'));
      steps.push(
        `register ${id} with Argo CD${dest ? ` as \`${dest}\`` : ''}: \`argocd cluster add <${id}> --name ${id}\``,
      );
    }
    const secrets = new Map<string, { ns: string; key: string }>();
    for (const ks of newFlux ? [] : deliveryFor(diff, 'Kustomization', id, 'added')) {
      const name = str(at(ks.after, 'spec', 'kubeConfig', 'secretRef', 'name'));
      if (name)
        secrets.set(name, {
          ns: ks.namespace ?? 'flux-system',
          key: str(at(ks.after, 'spec', 'kubeConfig', 'secretRef', 'key')) ?? 'value',
        });
    }
    for (const [name, s] of secrets) {
      steps.push(
        `give Flux ${id}'s kubeconfig, in the management cluster: \`kubectl -n ${s.ns} create secret generic ${name} --from-file=${s.key}=${id}.kubeconfig\``,
      );
    }
    steps.push(...tokenSteps(diff, id, o.leader));
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

  // Ports of a Service: the import follows the model, each exporter's export follows its Service.
  for (const x of clusterBundle(diff, o.leader)?.objects ?? []) {
    if (
      x.kind !== 'ResourceImport' ||
      x.change !== 'changed' ||
      at(x.after, 'spec', 'kind') !== 'ServiceImport'
    )
      continue;
    const before = portList(at(x.before, 'spec', 'serviceImport', 'spec', 'ports'));
    const after = portList(at(x.after, 'spec', 'serviceImport', 'spec', 'ports'));
    if (before.join() === after.join()) continue;
    const ns = String(at(x.after, 'spec', 'namespace'));
    const name = String(at(x.after, 'spec', 'name'));
    const exporters = o.exporters(`${ns}/${name}`);
    const gone = before.filter((p) => !after.includes(p));
    breaking.push(
      `Service ${ns}/${name}: ports ${before.join(', ')} → ${after.join(', ')}. Change the Service ${exporters.length > 0 ? `in ${joinAnd(exporters)} ` : ''}to match: until it does, the leader refuses its export (ResourceExport condition Failure: its ports differ from the model's) and it brings no endpoints` +
        (gone.length > 0
          ? `. Clients follow too: ${ns}/${memberImportName(name)} in every member no longer serves ${joinAnd(gone)}`
          : ''),
    );
  }

  breaking.push(...antreaLeaderStandby(diff, o.leader));

  return {
    beforeMerge: o.uninstall ? [] : beforeMergeSteps(diff, o.leader),
    steps,
    sections: sectionsOf(marks, steps.length),
    breaking,
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

/**
 * `reconciler.waitForAntreaLeader` set false (the warm standby of a cut-over ends): its ClusterRole
 * leaves the leader's bundle. From that sync the reconciler leads whatever runs beside it, and the
 * compiled-imports policy refuses Antrea's leader again: merge only once Antrea's leader is gone.
 */
function antreaLeaderStandby(diff: TreeDiff, leader: string | undefined): string[] {
  const bundle = diff.bundles.find((b) => b.type === 'cluster' && b.cluster === leader);
  const role = bundle?.objects.find(
    (x) =>
      x.kind === 'ClusterRole' && x.name.endsWith(ANTREA_LEADER_WATCHER_SUFFIX) && x.change === 'removed',
  );
  if (!role) return [];
  const ns = role.name.slice(0, -ANTREA_LEADER_WATCHER_SUFFIX.length);
  return [
    `the reconciler stops waiting for Antrea's leader (reconciler.waitForAntreaLeader off): merge only once Antrea's leader controller is gone from ${leader}, Deployment ${ns}/${ANTREA_LEADER_DEPLOYMENT} at 0 replicas (or deleted) and ${ANTREA_LEADER_WEBHOOKS.mutating} and ${ANTREA_LEADER_WEBHOOKS.validating} deleted, else both write; the sync removes the admission exception that let Antrea's leader write the compiled imports and the reconciler's read of those objects (ClusterRole ${role.name}, its binding and a rule of its Role)`,
  ];
}

/**
 * The namespace of the bundle's ClusterSet when the change adds or moves it (a member's own
 * namespace). The member's own Namespace only appears together with it: a new member, or a new
 * `memberNamespace`; so the changed objects suffice.
 */
function clusterSetNamespace(b: BundleDiff): string | undefined {
  const changed = b.objects.find((y) => y.kind === 'ClusterSet' && y.after !== undefined);
  return changed?.namespace;
}

/** Up to this many members, a restart step lists one command per member. */
const MAX_LISTED_RESTARTS = 10;

/**
 * Antrea's member controller settings, per member bundle that stays: where Antrea's install owns the
 * ConfigMap (`takeOver.memberControllerConfig` off), the settings clusterset expects ride in the
 * restart Job's `clusterset/expected-member-config` annotation, and a change of them (a joining
 * member included) must be carried into that install, then the controller restarted, since
 * it reads the file only at start. Where clusterset starts rendering the ConfigMap, the install must
 * stop shipping it. Members grouped per step and namespace, so a change to every member is one line.
 */
function memberConfigSteps(
  diff: TreeDiff,
  left: readonly string[],
  phrase: (clusters: readonly string[]) => string,
  only: (id: string) => boolean,
): string[] {
  const update = new Map<string, string[]>();
  const takeOver = new Map<string, string[]>();
  const namespaces = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, ns: string, id: string) => m.set(ns, [...(m.get(ns) ?? []), id]);
  for (const b of diff.bundles) {
    if (b.type !== 'cluster' || b.cluster === undefined || left.includes(b.cluster) || !only(b.cluster))
      continue;
    const own = clusterSetNamespace(b);
    const expected = expectedMemberConfig(b);
    if (expected.is !== undefined && expected.is !== expected.was) add(update, expected.ns, b.cluster);
    for (const x of b.objects) {
      const ns = x.namespace ?? 'kube-system';
      if (x.kind === 'ConfigMap' && x.name === MEMBER_CONTROLLER_CONFIG && x.change === 'added')
        add(takeOver, ns, b.cluster);
      // A Service's Namespace, never pruned (render/namespaces.ts), and not the member's own one,
      // where its ClusterSet lives: someone else may apply it too (takeOver.serviceNamespaces).
      const options = str(at(x.after, 'metadata', 'annotations', ARGOCD_SYNC_OPTIONS)) ?? '';
      if (x.kind === 'Namespace' && x.change === 'added' && x.name !== own && /Prune=false/.test(options))
        add(namespaces, x.name, b.cluster);
    }
  }
  const steps: string[] = [];
  for (const [ns, ids] of takeOver) {
    steps.push(
      `take ConfigMap ${ns}/${MEMBER_CONTROLLER_CONFIG} out of Antrea's install in ${phrase(ids)}: clusterset applies it now (takeOver.memberControllerConfig), and two owners of one object fight`,
    );
  }
  const byClusters = new Map<string, string[]>();
  for (const [name, ids] of namespaces)
    byClusters.set(phrase(ids), [...(byClusters.get(phrase(ids)) ?? []), name]);
  for (const [where, names] of byClusters) {
    steps.push(
      `take Namespace${names.length > 1 ? 's' : ''} ${joinAnd(names)} out of any other Application or Kustomization that applies ${names.length > 1 ? 'them' : 'it'} in ${where} (the application team's): clusterset applies ${names.length > 1 ? 'them' : 'it'} now (takeOver.serviceNamespaces), and two owners of one object fight`,
    );
  }
  for (const [ns, ids] of update) {
    const one = ids.length === 1 ? ids[0]! : '<member>';
    // One command per member, to follow as printed; a fleet-wide change says it once.
    const each = ids.length <= MAX_LISTED_RESTARTS ? ids : ['member'];
    const restarts = joinAnd(
      each.map(
        (id) =>
          `\`kubectl --context <${id}> -n ${ns} rollout restart deployment ${MEMBER_CONTROLLER_DEPLOYMENT}\``,
      ),
    );
    steps.push(
      `update Antrea's member controller config in ${phrase(ids)}: ConfigMap ${ns}/${MEMBER_CONTROLLER_CONFIG}, key ${MEMBER_CONFIG_KEY}, in Antrea's install, as \`npx clusterset explain --cluster ${one}\` prints it; then restart the controller, which reads it only at start: ${restarts}${each.length < ids.length ? ' in each' : ''}`,
    );
  }
  return steps;
}

/**
 * The member's restart Job (render/member-restart.ts) on one side of its bundle's diff. Named after
 * what it sets, so a change shows as one Job removed and another added.
 */
export function restartJob(b: BundleDiff, side: 'before' | 'after'): ObjectChange | undefined {
  return b.objects.find(
    (x) => x.kind === 'Job' && x.name.startsWith(`${MEMBER_RESTART_NAME}-`) && x[side] !== undefined,
  );
}

/** The Pod template annotations a restart Job sets (its `--annotation KEY=VALUE` arguments). */
function restartAnnotationsOf(job: DiffObject | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const containers = at(job, 'spec', 'template', 'spec', 'containers');
  const args = Array.isArray(containers) ? at(containers[0], 'args') : undefined;
  if (!Array.isArray(args)) return out;
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] !== '--annotation') continue;
    const kv = String(args[i + 1]);
    const eq = kv.indexOf('=');
    if (eq > 0) out.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return out;
}

/**
 * The settings Antrea's install must hold for a member, before and after the change (the restart
 * Job's `clusterset/expected-member-config`; before it, the partial Deployment that earlier releases
 * rendered carried it), and the member namespace.
 */
function expectedMemberConfig(b: BundleDiff): { was?: string; is?: string; ns: string } {
  const before = restartJob(b, 'before')?.before;
  const after = restartJob(b, 'after')?.after;
  const legacy = b.objects.find((x) => x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT);
  const was = str(at(before ?? legacy?.before, 'metadata', 'annotations', EXPECTED_MEMBER_CONFIG_ANNOTATION));
  const is = str(at(after, 'metadata', 'annotations', EXPECTED_MEMBER_CONFIG_ANNOTATION));
  const ns = str(at(after ?? before, 'metadata', 'namespace')) ?? 'kube-system';
  return { ...(was !== undefined ? { was } : {}), ...(is !== undefined ? { is } : {}), ns };
}

/**
 * Why the member's restart Job rolls Antrea's member controller: `['Tiers']`, `['settings']` or
 * both; undefined when what it sets does not change: no Job on either side (a joining or leaving
 * member, whose controller finds its Tiers in place), or the same annotations (another image: the
 * new Job runs and finds them set).
 */
export function restartReasons(b: BundleDiff): string[] | undefined {
  const before = restartJob(b, 'before');
  const after = restartJob(b, 'after');
  if (before === undefined || after === undefined) return undefined;
  const was = restartAnnotationsOf(before.before);
  const is = restartAnnotationsOf(after.after);
  const changed = (k: string) => was.get(k) !== is.get(k);
  const why = [
    ...(changed(TIERS_CHECKSUM_ANNOTATION) ? ['Tiers'] : []),
    ...(changed(MEMBER_CONFIG_CHECKSUM_ANNOTATION) ? ['settings'] : []),
  ];
  return why.length > 0 ? why : undefined;
}
