/**
 * The small readers every After merge file shares: a path into an object (`at`, `str`, `isObj`),
 * a cluster's bundle and what the change adds to it (`clusterBundle`, `added`, `objName`), the
 * delivery objects of a cluster (`deliveryFor`), and what an Application or a Kustomization
 * delivers (`sourcePath`, `isApplication`, `isKustomization`). Pure; no step is written here.
 */
import type { BundleDiff, DiffObject, ObjectChange, TreeDiff } from '../tree';

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj.a.b.c`, or undefined. */
export function at(obj: unknown, ...keys: string[]): unknown {
  let v: unknown = obj;
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return v;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function clusterBundle(diff: TreeDiff, id: string | undefined): BundleDiff | undefined {
  return id === undefined ? undefined : diff.bundles.find((b) => b.cluster === id);
}

/** The delivery objects of `kind` whose source is `clusters/<id>`, with the change they went through. */
export function deliveryFor(
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

/** The object of `kind` (and `name`) that the change adds to `id`'s bundle. */
export function added(
  diff: TreeDiff,
  id: string | undefined,
  kind: string,
  name?: string,
): DiffObject | undefined {
  return clusterBundle(diff, id)?.objects.find(
    (x) => x.change === 'added' && x.kind === kind && (name === undefined || x.name === name),
  )?.after;
}

export const objName = (x: DiffObject): string =>
  `${x.metadata.namespace !== undefined ? `${x.metadata.namespace}/` : ''}${x.metadata.name}`;

/** `spec.source.path` of an Application, `spec.path` of a Kustomization, without a trailing `/`. */
export function sourcePath(o: DiffObject): string {
  return (str(at(o, 'spec', 'source', 'path')) ?? str(at(o, 'spec', 'path')) ?? '').replace(/\/+$/, '');
}

export const isApplication = (o: DiffObject): boolean =>
  o.kind === 'Application' && o.apiVersion.startsWith('argoproj.io/');
export const isKustomization = (o: DiffObject): boolean =>
  o.kind === 'Kustomization' && o.apiVersion.startsWith('kustomize.toolkit.fluxcd.io/');
