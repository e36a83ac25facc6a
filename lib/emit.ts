/**
 * Emit: rendered bundles → files (path → bytes). Pure.
 *
 * The output contract (DESIGN.md "Output contract"):
 * - one object per file at `clusters/<cluster>/<namespace or _cluster>/<Kind>.<name>.yaml`; when two
 *   kinds of one bundle share a name across API groups, their files become `<Kind>.<group>.<name>.yaml`;
 * - two objects with one path are an error reported before anything is written;
 * - objects in a total order: CustomResourceDefinitions, then Namespaces, then by kind, namespace,
 *   name; keys at every level in `compareKeys` order (lib/yaml.ts: apiVersion, kind, metadata, name,
 *   namespace first, the rest by code unit); so the bytes do not depend on the order the model lists
 *   things in;
 * - `clusters/<cluster>/kustomization.yaml` lists the bundle's files in that order;
 * - delivery objects (Argo CD, Flux) go outside the bundles, to `<folder>/<Kind>.<name>.yaml` with a
 *   `<folder>/kustomization.yaml` each (folders `argocd`, `argocd/apps`, `flux`), but for the folders
 *   of partial objects (`argocd/config`, render/delivery.ts PATCH_FOLDERS), which get none;
 * - `.clusterset-index` lists every emitted file, so that the writer prunes what the model no longer
 *   produces; beside it, the writer prunes any file no synth wrote in the folders it renders into, and
 *   touches nothing outside them (lib/fs/write.ts). The index's header line ("files not listed
 *   here are never touched") holds outside those folders; it is kept as it is because every
 *   committed out/ holds it.
 */
import { cmp } from './diagnostics';
import type { Diagnostic } from './diagnostics';
import type { Bundles, K8sObject } from './render';
import { PATCH_FOLDERS, type DeliveryFolders } from './render/delivery';
import { dumpYaml } from './yaml';

export const INDEX_FILE = '.clusterset-index';

export interface Emitted {
  /** Relative path → file content, in emission order. */
  readonly files: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
  /** Per cluster: object count. */
  readonly objectCounts: ReadonlyMap<string, number>;
}

function group(o: K8sObject): string {
  const i = o.apiVersion.lastIndexOf('/');
  return i < 0 ? '' : o.apiVersion.slice(0, i);
}

function rank(o: K8sObject): number {
  return o.kind === 'CustomResourceDefinition' ? 0 : o.kind === 'Namespace' ? 1 : 2;
}

/** The documented total order of objects in a bundle. */
export function compareObjects(a: K8sObject, b: K8sObject): number {
  return (
    rank(a) - rank(b) ||
    cmp(a.kind, b.kind) ||
    cmp(group(a), group(b)) ||
    cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
    cmp(a.metadata.name, b.metadata.name)
  );
}

function checkStringMap(
  o: K8sObject,
  field: 'labels' | 'annotations',
  where: string,
  out: Diagnostic[],
): void {
  for (const [k, v] of Object.entries(o.metadata[field] ?? {})) {
    if (typeof v !== 'string') {
      out.push({
        rule: 'output-metadata-strings',
        path: where,
        message: `${field} value of "${k}" on ${o.kind} ${o.metadata.name} is a ${typeof v}, not a string`,
        fix: 'render label and annotation values as strings (this is a compiler bug)',
      });
    }
  }
}

/**
 * Emits one folder of objects (a cluster bundle or a delivery folder): one file per object at
 * `<folder>/<relOf(o)>`, in the documented total order, a collision check, and a
 * `kustomization.yaml` listing the files. Returns how many objects were emitted.
 */
function emitObjects(
  folder: string,
  unordered: readonly K8sObject[],
  relOf: (o: K8sObject) => string,
  files: Map<string, string>,
  diagnostics: Diagnostic[],
  dumped: WeakMap<K8sObject, string>,
  listed = true,
): number {
  const seen = new Map<string, K8sObject>();
  const resources: string[] = [];
  for (const o of [...unordered].sort(compareObjects)) {
    const rel = relOf(o);
    const where = `${folder}/${rel}`;
    const prior = seen.get(rel);
    if (prior) {
      diagnostics.push({
        rule: 'output-path-collision',
        path: where,
        message: `${prior.apiVersion} ${prior.kind} and ${o.apiVersion} ${o.kind} "${o.metadata.name}" would both be written to ${where}`,
        fix: 'rename one of the two objects in the model',
      });
      continue;
    }
    seen.set(rel, o);
    checkStringMap(o, 'labels', where, diagnostics);
    checkStringMap(o, 'annotations', where, diagnostics);
    // Objects shared by several bundles (render/index.ts `Shared`) are dumped once.
    let text = dumped.get(o);
    if (text === undefined) {
      text = dumpYaml(o);
      dumped.set(o, text);
    }
    files.set(where, text);
    resources.push(rel);
  }
  if (listed)
    files.set(
      `${folder}/kustomization.yaml`,
      dumpYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources }),
    );
  return unordered.length;
}

/** `<Kind>.<name>.yaml`, with the group in it for kinds that two API groups of the bundle share. */
function bundlePaths(objects: readonly K8sObject[]): (o: K8sObject) => string {
  const groupsByKind = new Map<string, Set<string>>();
  for (const o of objects) {
    const s = groupsByKind.get(o.kind) ?? new Set<string>();
    s.add(group(o));
    groupsByKind.set(o.kind, s);
  }
  return (o) => {
    const kindPart = (groupsByKind.get(o.kind)?.size ?? 0) > 1 ? `${o.kind}.${group(o) || 'core'}` : o.kind;
    return `${o.metadata.namespace ?? '_cluster'}/${kindPart}.${o.metadata.name}.yaml`;
  };
}

export function emit(bundles: Bundles, delivery: DeliveryFolders = new Map()): Emitted {
  const files = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  const objectCounts = new Map<string, number>();
  const dumped = new WeakMap<K8sObject, string>();
  const clusterIds = [...bundles.keys()].sort(cmp);

  for (const clusterId of clusterIds) {
    const objects = bundles.get(clusterId) ?? [];
    objectCounts.set(
      clusterId,
      emitObjects(`clusters/${clusterId}`, objects, bundlePaths(objects), files, diagnostics, dumped),
    );
  }
  // Delivery objects live outside the bundles, one folder each, named `<Kind>.<name>.yaml`.
  for (const folder of [...delivery.keys()].sort(cmp)) {
    const objects = delivery.get(folder) ?? [];
    const rel = (o: K8sObject) => `${o.kind}.${o.metadata.name}.yaml`;
    emitObjects(folder, objects, rel, files, diagnostics, dumped, !PATCH_FOLDERS.has(folder));
  }
  const index = [...files.keys()];
  files.set(
    INDEX_FILE,
    ['# Files written by clusterset synth; files not listed here are never touched.', ...index, ''].join(
      '\n',
    ),
  );
  return { files, diagnostics, objectCounts };
}
