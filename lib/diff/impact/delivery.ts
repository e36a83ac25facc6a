/**
 * Delivery in the model's terms: the delivery folders (Argo CD, Flux, …) described by kind and name;
 * and what after-merge/delivery.ts needs of the delivery objects after the change: a delivery tool turned on
 * or off (the folders on each side), how the leader's bundle is delivered (for a rotation of member
 * identities), and what the leader's removal needs when the ClusterSet is uninstalled.
 */
import type { DeliveryFolders, LeaderSync, Uninstall } from '../after-merge';
import type { BundleDiff, DiffObject } from '../tree';
import { bundleOf } from '../tree';
import { documents, isObj, sorted, spec } from './facts';
import { type Accumulator, fieldSummary, objName } from './summary';

/** Delivery folders (Argo CD, Flux, …): what is added, changed and removed, by kind and name. */
export function describeDelivery(b: BundleDiff, acc: Accumulator): void {
  for (const change of ['added', 'changed', 'removed'] as const) {
    const objs = b.objects.filter((o) => o.change === change);
    if (objs.length === 0) continue;
    const names = objs.map(
      (o) =>
        `${o.kind} ${objName(o)}${change === 'changed' && objs.length <= 3 ? `: ${fieldSummary(o.fields, '', 2)}` : ''}`,
    );
    const shown =
      names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
    acc.add('delivery', `${b.bundle}/: ${objs.length} ${change} (${shown})`, []);
  }
  const files = b.files.filter((f) => !f.file.endsWith('kustomization.yaml'));
  if (b.objects.length === 0 && files.length > 0)
    acc.add('delivery', `${b.bundle}/: ${files.map((f) => `${f.file} ${f.change}`).join(', ')}`, []);
}

/**
 * How the leader's bundle is delivered after the change, from its Applications and Kustomizations:
 * an Application prunes with automated prune, a Kustomization with `prune: true`.
 */
export function leaderSync(after: ReadonlyMap<string, string>, leader: string): LeaderSync {
  const objects = objectsOf(after, (ref) => ref.type === 'delivery').filter(
    (o) =>
      (o.kind === 'Application' || o.kind === 'Kustomization') &&
      (spec(o).path ?? (isObj(spec(o).source) ? (spec(o).source as Record<string, unknown>).path : ''))
        ?.toString()
        .replace(/\/+$/, '')
        .endsWith(`clusters/${leader}`),
  );
  const prunes = (o: DiffObject): boolean => {
    if (o.kind === 'Kustomization') return spec(o).prune === true;
    const policy = spec(o).syncPolicy;
    const automated = isObj(policy) ? policy.automated : undefined;
    return isObj(automated) && automated.prune === true;
  };
  return {
    tools: [
      ...(objects.some((o) => o.kind === 'Application') ? ['Argo CD'] : []),
      ...(objects.some((o) => o.kind === 'Kustomization') ? ['Flux'] : []),
    ],
    prunes: objects.length > 0 && objects.every(prunes),
  };
}

/** The Kubernetes objects of the files of `files` whose bundle `keep` keeps. */
function objectsOf(
  files: ReadonlyMap<string, string>,
  keep: (ref: ReturnType<typeof bundleOf>) => boolean,
): DiffObject[] {
  const out: DiffObject[] = [];
  const isK8s = (d: unknown): d is DiffObject =>
    isObj(d) && typeof d.kind === 'string' && typeof d.apiVersion === 'string' && isObj(d.metadata);
  for (const [file, content] of files) {
    if (!keep(bundleOf(file))) continue;
    // kustomization.yaml files have no metadata: not objects.
    for (const d of documents(content)) if (isK8s(d)) out.push(d);
  }
  return out;
}

/**
 * The delivery folders (`argocd`, `flux`) on each side, with the delivery objects after the change,
 * when a folder comes or goes (a delivery tool turned on or off: after-merge/delivery.ts); none otherwise.
 */
export function deliveryFolders(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): { delivery?: DeliveryFolders } {
  const folders = (files: ReadonlyMap<string, string>): string[] =>
    sorted(
      new Set(
        [...files.keys()].flatMap((f) => (bundleOf(f).type === 'delivery' ? [bundleOf(f).bundle] : [])),
      ),
    );
  const was = folders(before);
  const is = folders(after);
  if (was.join() === is.join()) return {};
  return {
    delivery: { before: was, after: is, objects: objectsOf(after, (ref) => ref.type === 'delivery') },
  };
}

/** What the leader's removal needs, from the out/ an uninstalling change leaves (after-merge/uninstall.ts). */
export function uninstallOf(after: ReadonlyMap<string, string>, leader: string): Uninstall {
  return {
    leaderObjects: objectsOf(after, (ref) => ref.type === 'cluster' && ref.cluster === leader),
    delivery: objectsOf(after, (ref) => ref.type === 'delivery'),
  };
}
