/**
 * The After merge steps of a change of delivery tool (the model's `delivery.argocd` /
 * `delivery.flux` turned on or off), and where out/ sits in the repository (`outPath`). A first
 * tool: its bootstrap, in the runbook's order (what it needs that out/ cannot hold, the other
 * clusters given to it before anything asks it to reach them, its objects applied by hand in the
 * management cluster), and apart the wait until it delivers every bundle, which index.ts places
 * last. A switch: the new tool bootstrapped and healthy before the old one is retired, and retiring
 * never cascades: nothing happens by itself after the merge (the old root no longer finds its path
 * and stops there), so a person deletes its objects root first, Argo CD's resources finalizer
 * removed and Flux's prune turned off before, then what only the management cluster holds for it.
 */
import { deliveryPrerequisites, type DeliveryPrerequisite } from '../../explain/prerequisites';
import type { Plan } from '../../plan';
import { ARGOCD_APPS_FOLDER, CASCADE_FINALIZER, IN_CLUSTER_SERVER } from '../../render/argocd';
import { ARGOCD_CM, ARGOCD_CONFIG_FOLDER, ARGOCD_FOLDER } from '../../render/delivery';
import { FLUX_FOLDER } from '../../render/flux';
import { joinAnd } from '../describe';
import type { DiffObject, TreeDiff } from '../tree';
import { at, isApplication, isKustomization, sourcePath, str } from './util';

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

export function deliveryChange(f: DeliveryFolders): DeliveryChange {
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

/**
 * Where out/ sits in the repository (the model's `delivery.path`), read from a delivery object the
 * change touches: an Application's `spec.source.path` or a Kustomization's `spec.path` is
 * `<path>/clusters/<id>`, `<path>/argocd/apps` or `<path>/flux`. `out` when none says.
 */
export function outPath(diff: TreeDiff): string {
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
export function deliverySteps(
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
