/**
 * A semantic diff of two `out/` trees (relative path → file content), object by object.
 *
 * Objects are matched by identity (bundle, API group, kind, namespace, name), never by file path, so
 * a change of the path scheme is not an add and a remove. Files whose bytes are unchanged at the same
 * path are skipped without parsing: on a fleet of thousands of files only the changed ones cost
 * anything, and the whole diff stays linear in the number of files.
 *
 * Bundles are the `clusters/<id>/` folders of lib/emit.ts; any other top-level folder (Argo CD,
 * Flux, …) is a "delivery" bundle diffed the same way; root files (`.clusterset-index`) and files
 * that hold no Kubernetes object (`kustomization.yaml`, unparseable text) are compared as files.
 */
import * as yaml from 'js-yaml';
import { cmp } from '../diagnostics';
import { INDEX_FILE } from '../emit';
import { compareKeys } from '../yaml';

/** A parsed Kubernetes object, as loaded from YAML. */
export interface DiffObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [key: string]: unknown;
}

/** One changed field. `path` reads like `spec.ports[http].port`; list items are named by identity key. */
export interface FieldChange {
  readonly path: string;
  /** `reordered`: the same items (or keys of items) in another order, which matters for rules. */
  readonly op: 'added' | 'removed' | 'changed' | 'reordered';
  readonly before?: unknown;
  readonly after?: unknown;
}

/** One object added, removed or changed within a bundle. */
export interface ObjectChange {
  readonly change: 'added' | 'removed' | 'changed';
  /** The API group ('' for core). */
  readonly group: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Path of the file on the side that has the object (the new one when both do). */
  readonly file: string;
  readonly before?: DiffObject;
  readonly after?: DiffObject;
  /** Changed fields (only for `changed`), in document order. */
  readonly fields: readonly FieldChange[];
}

/** A file that holds no Kubernetes object (kustomization.yaml, the index, unparseable text). */
export interface FileChange {
  readonly change: 'added' | 'removed' | 'changed';
  readonly file: string;
  /** Field changes when both sides parse as YAML, otherwise empty. */
  readonly fields: readonly FieldChange[];
  /** The bytes differ but the content does not (comments, quoting, indentation). */
  readonly formattingOnly?: boolean;
}

/** Changes within one bundle: a cluster's folder, a delivery folder, or the root files. */
export interface BundleDiff {
  /** `clusters/<id>`, a delivery folder name (e.g. `argocd`), or `` for root files. */
  readonly bundle: string;
  readonly type: 'cluster' | 'delivery' | 'root';
  /** The cluster ID for `cluster` bundles. */
  readonly cluster?: string;
  /** The bundle exists on one side only. */
  readonly presence: 'both' | 'added' | 'removed';
  /** Sorted by kind, namespace, name. */
  readonly objects: readonly ObjectChange[];
  /** Sorted by path. */
  readonly files: readonly FileChange[];
}

/** The whole semantic diff. */
export interface TreeDiff {
  /** Bundles with at least one change: clusters (by ID), then delivery folders, then root files. */
  readonly bundles: readonly BundleDiff[];
  /** Cluster IDs with a bundle before and after. */
  readonly clustersBefore: readonly string[];
  readonly clustersAfter: readonly string[];
  /** How many files were compared and how many had to be parsed. */
  readonly stats: { readonly filesBefore: number; readonly filesAfter: number; readonly parsed: number };
}

interface BundleRef {
  readonly bundle: string;
  readonly type: BundleDiff['type'];
  readonly cluster?: string;
}

/** Which bundle a path of out/ belongs to. */
export function bundleOf(file: string): BundleRef {
  const parts = file.split('/');
  if (parts.length >= 3 && parts[0] === 'clusters')
    return { bundle: `clusters/${parts[1]}`, type: 'cluster', cluster: parts[1] };
  if (parts.length >= 2) return { bundle: parts[0]!, type: 'delivery' };
  return { bundle: '', type: 'root' };
}

/** The API group of an apiVersion (`''` for the core group). */
export function apiGroup(apiVersion: string): string {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isK8sObject(v: unknown): v is DiffObject {
  return (
    isObject(v) &&
    typeof v.apiVersion === 'string' &&
    typeof v.kind === 'string' &&
    isObject(v.metadata) &&
    typeof v.metadata.name === 'string'
  );
}

type Parsed = { objects: DiffObject[]; rest: unknown; ok: boolean };

function parse(file: string, text: string): Parsed {
  // The index is a list of paths with a comment on top: compare it as a list.
  if (file === INDEX_FILE)
    return { objects: [], rest: text.split('\n').filter((l) => l !== '' && !l.startsWith('#')), ok: true };
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text).filter((d) => d !== null && d !== undefined);
  } catch {
    return { objects: [], rest: undefined, ok: false };
  }
  const objects = docs.filter(isK8sObject);
  const others = docs.filter((d) => !isK8sObject(d));
  return {
    objects,
    rest: others.length === 0 ? undefined : others.length === 1 ? others[0] : others,
    ok: true,
  };
}

function objectKey(o: DiffObject): string {
  return `${o.kind}\u0000${apiGroup(o.apiVersion)}\u0000${o.metadata.namespace ?? ''}\u0000${o.metadata.name}`;
}

/** Field paths: `a.b`, `a["x.y/z"]` for keys that are not plain words, `a[name]` for list items. */
function keyPath(base: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Keys that identify list items in the Kubernetes and Antrea types we render, tried in order. */
const IDENTITY_KEYS = ['name', 'id', 'clusterID', 'key'] as const;

type Identity = (x: Record<string, unknown>) => string | undefined;

/**
 * Identities tried in order: a single key, or `kind/name` for lists that mix kinds under one name
 * (Argo CD `ignoreDifferences`, RBAC subjects).
 */
const IDENTITIES: readonly Identity[] = [
  ...IDENTITY_KEYS.map((k) => (x: Record<string, unknown>) => (typeof x[k] === 'string' ? x[k] : undefined)),
  (x) => (typeof x.kind === 'string' && typeof x.name === 'string' ? `${x.kind}/${x.name}` : undefined),
];

function identityKey(a: readonly unknown[], b: readonly unknown[]): Identity | undefined {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every(isObject)) return undefined;
  const unique = (id: Identity, xs: readonly unknown[]): boolean => {
    const seen = new Set<string>();
    for (const x of xs) {
      const v = id(x as Record<string, unknown>);
      if (v === undefined || seen.has(v)) return false;
      seen.add(v);
    }
    return true;
  };
  return IDENTITIES.find((id) => unique(id, a) && unique(id, b));
}

/** A string that holds a YAML or JSON document (ConfigMap data), parsed; otherwise undefined. */
function embedded(s: string): Record<string, unknown> | unknown[] | undefined {
  if (!s.includes('\n')) return undefined;
  try {
    const v = yaml.load(s);
    return isObject(v) || Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

/** Appends the changes from `a` to `b` below `path`. */
export function diffValues(a: unknown, b: unknown, path: string, out: FieldChange[]): void {
  if (a === b) return;
  if (a === undefined) {
    out.push({ path, op: 'added', after: b });
    return;
  }
  if (b === undefined) {
    out.push({ path, op: 'removed', before: a });
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareKeys);
    for (const k of keys) diffValues(a[k], b[k], keyPath(path, k), out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    diffArrays(a, b, path, out);
    return;
  }
  if (typeof a === 'string' && typeof b === 'string') {
    const ea = embedded(a);
    const eb = embedded(b);
    if (ea !== undefined && eb !== undefined) {
      diffValues(ea, eb, path, out);
      return;
    }
  }
  out.push({ path, op: 'changed', before: a, after: b });
}

function diffArrays(a: readonly unknown[], b: readonly unknown[], path: string, out: FieldChange[]): void {
  if (a.every(isPrimitive) && b.every(isPrimitive)) {
    const sa = a.map((x) => JSON.stringify(x));
    const sb = b.map((x) => JSON.stringify(x));
    if (sa.join('\u0000') === sb.join('\u0000')) return;
    const inB = new Set(sb);
    const inA = new Set(sa);
    const removed = a.filter((_, i) => !inB.has(sa[i]!));
    const added = b.filter((_, i) => !inA.has(sb[i]!));
    for (const x of removed) out.push({ path, op: 'removed', before: x });
    for (const x of added) out.push({ path, op: 'added', after: x });
    if (removed.length === 0 && added.length === 0) out.push({ path, op: 'reordered', before: a, after: b });
    return;
  }
  const key = identityKey(a, b);
  if (key === undefined) {
    // Same length: items edited in place, compared by index. Otherwise items were inserted or
    // removed: those found on one side only are reported, so one insertion is not N changes.
    if (a.length === b.length) {
      for (let i = 0; i < a.length; i++) diffValues(a[i], b[i], `${path}[${i}]`, out);
      return;
    }
    const ja = a.map((x) => JSON.stringify(x));
    const jb = b.map((x) => JSON.stringify(x));
    const inA = new Set(ja);
    const inB = new Set(jb);
    a.forEach((x, i) => {
      if (!inB.has(ja[i]!)) out.push({ path: `${path}[${i}]`, op: 'removed', before: x });
    });
    b.forEach((x, i) => {
      if (!inA.has(jb[i]!)) out.push({ path: `${path}[${i}]`, op: 'added', after: x });
    });
    return;
  }
  const id = (x: unknown): string => key(x as Record<string, unknown>)!;
  const byA = new Map(a.map((x) => [id(x), x]));
  const byB = new Map(b.map((x) => [id(x), x]));
  for (const x of a) if (!byB.has(id(x))) out.push({ path: `${path}[${id(x)}]`, op: 'removed', before: x });
  for (const x of b) {
    const k = id(x);
    const before = byA.get(k);
    if (before === undefined) out.push({ path: `${path}[${k}]`, op: 'added', after: x });
    else diffValues(before, x, `${path}[${k}]`, out);
  }
  const orderA = a.map(id).filter((k) => byB.has(k));
  const orderB = b.map(id).filter((k) => byA.has(k));
  if (orderA.join('\u0000') !== orderB.join('\u0000'))
    out.push({ path, op: 'reordered', before: orderA, after: orderB });
}

const REDACTED = '(redacted)';

/** Secret values never reach the terminal or a PR comment, even from a hand-edited out/. */
function redact(kind: string, fields: FieldChange[]): FieldChange[] {
  if (kind !== 'Secret') return fields;
  return fields.map((f) =>
    /^(data|stringData)\b/.test(f.path)
      ? {
          path: f.path,
          op: f.op,
          ...(f.before !== undefined ? { before: REDACTED } : {}),
          ...(f.after !== undefined ? { after: REDACTED } : {}),
        }
      : f,
  );
}

/** The changed fields of one object, metadata included; `[]` when they are equal. */
export function diffObjects(a: unknown, b: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  diffValues(a, b, '', out);
  return out;
}

interface Side {
  objects: Map<string, { object: DiffObject; file: string }>;
  files: Map<string, unknown>;
  unparseable: Set<string>;
}

function emptySide(): Side {
  return { objects: new Map(), files: new Map(), unparseable: new Set() };
}

/** The file an object was read from on the `before` side. */
function objectFile(side: Side, o: ObjectChange): string {
  const key = `${o.kind}\u0000${o.group}\u0000${o.namespace ?? ''}\u0000${o.name}`;
  return side.objects.get(key)?.file ?? o.file;
}

function compareChanges(a: ObjectChange, b: ObjectChange): number {
  return (
    cmp(a.kind, b.kind) ||
    cmp(a.group, b.group) ||
    cmp(a.namespace ?? '', b.namespace ?? '') ||
    cmp(a.name, b.name)
  );
}

/**
 * The semantic diff from `before` to `after` (relative path → content). Pure and linear in the
 * number of files: identical bytes at the same path are never parsed.
 */
export function diffTrees(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): TreeDiff {
  const sides = new Map<string, { ref: BundleRef; before: Side; after: Side }>();
  const clustersBefore = new Set<string>();
  const clustersAfter = new Set<string>();
  let parsed = 0;
  /** Paths on both sides with different bytes. */
  const dirty = new Map<string, string[]>();

  const sideOf = (file: string, which: 'before' | 'after'): Side => {
    const ref = bundleOf(file);
    let s = sides.get(ref.bundle);
    if (!s) {
      s = { ref, before: emptySide(), after: emptySide() };
      sides.set(ref.bundle, s);
    }
    return s[which];
  };
  const load = (file: string, content: string, which: 'before' | 'after'): void => {
    parsed++;
    const side = sideOf(file, which);
    const p = parse(file, content);
    if (!p.ok) {
      side.unparseable.add(file);
      side.files.set(file, content);
      return;
    }
    for (const o of p.objects) side.objects.set(objectKey(o), { object: o, file });
    if (p.rest !== undefined || p.objects.length === 0) side.files.set(file, p.rest);
  };

  for (const [file, content] of before) {
    const ref = bundleOf(file);
    if (ref.cluster !== undefined) clustersBefore.add(ref.cluster);
    const other = after.get(file);
    if (other === content) continue;
    if (other !== undefined) {
      const bundle = bundleOf(file).bundle;
      const list = dirty.get(bundle) ?? [];
      list.push(file);
      dirty.set(bundle, list);
    }
    load(file, content, 'before');
  }
  for (const [file, content] of after) {
    const ref = bundleOf(file);
    if (ref.cluster !== undefined) clustersAfter.add(ref.cluster);
    if (before.get(file) === content) continue;
    load(file, content, 'after');
  }

  const bundles: BundleDiff[] = [];
  for (const { ref, before: b, after: a } of sides.values()) {
    const objects: ObjectChange[] = [];
    for (const [key, { object, file }] of b.objects) {
      const next = a.objects.get(key);
      const base = {
        group: apiGroup(object.apiVersion),
        kind: object.kind,
        ...(object.metadata.namespace !== undefined ? { namespace: object.metadata.namespace } : {}),
        name: object.metadata.name,
      };
      if (!next) {
        objects.push({ change: 'removed', ...base, file, before: object, fields: [] });
        continue;
      }
      const fields = redact(object.kind, diffObjects(object, next.object));
      if (fields.length > 0)
        objects.push({
          change: 'changed',
          ...base,
          file: next.file,
          before: object,
          after: next.object,
          fields,
        });
    }
    for (const [key, { object, file }] of a.objects) {
      if (b.objects.has(key)) continue;
      objects.push({
        change: 'added',
        group: apiGroup(object.apiVersion),
        kind: object.kind,
        ...(object.metadata.namespace !== undefined ? { namespace: object.metadata.namespace } : {}),
        name: object.metadata.name,
        file,
        after: object,
        fields: [],
      });
    }
    const files: FileChange[] = [];
    for (const file of [...new Set([...b.files.keys(), ...a.files.keys()])].sort(cmp)) {
      const inB = b.files.has(file);
      const inA = a.files.has(file);
      if (inB && inA) {
        const textual = b.unparseable.has(file) || a.unparseable.has(file);
        const fields = textual ? [] : diffObjects(b.files.get(file), a.files.get(file));
        if (textual || fields.length > 0) files.push({ change: 'changed', file, fields });
      } else files.push({ change: inA ? 'added' : 'removed', file, fields: [] });
    }
    const explained = new Set([...objects.map((o) => o.file), ...files.map((f) => f.file)]);
    for (const o of objects) if (o.before) explained.add(objectFile(b, o));
    for (const file of dirty.get(ref.bundle) ?? []) {
      if (explained.has(file)) continue;
      files.push({ change: 'changed', file, fields: [], formattingOnly: true });
    }
    files.sort((x, y) => cmp(x.file, y.file));
    if (objects.length === 0 && files.length === 0) continue;
    const presence =
      ref.cluster === undefined
        ? 'both'
        : !clustersBefore.has(ref.cluster)
          ? 'added'
          : !clustersAfter.has(ref.cluster)
            ? 'removed'
            : 'both';
    bundles.push({ ...ref, presence, objects: objects.sort(compareChanges), files });
  }
  const rank = (t: BundleDiff['type']): number => (t === 'cluster' ? 0 : t === 'delivery' ? 1 : 2);
  bundles.sort((x, y) => rank(x.type) - rank(y.type) || cmp(x.bundle, y.bundle));
  return {
    bundles,
    clustersBefore: [...clustersBefore].sort(cmp),
    clustersAfter: [...clustersAfter].sort(cmp),
    stats: { filesBefore: before.size, filesAfter: after.size, parsed },
  };
}
