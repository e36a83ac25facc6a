/**
 * "Delivered": each object of a cluster's bundle against the live one, in the fields the bundle
 * renders. The live object may hold more (defaults, status, other owners' fields); a rendered field
 * that is missing or different is drift. Lists are compared item by item and must have the rendered
 * length. Who changed a drifted field comes from `metadata.managedFields` (server-side apply field
 * ownership): the manager whose fieldsV1 holds it. Who applied the object comes from there too: the
 * managers that hold a rendered field that matches. Whether that is a problem is the report's call
 * (report/clusters.ts): only when the model's `delivery` names the tools that must have applied
 * it.
 */
import type { Plan } from '../plan';
import type { BundleObject, Obj } from './live';

/** The field managers of the delivery tools clusterset renders for (Argo CD server-side apply, Flux). */
export const DELIVERY_MANAGERS: readonly string[] = ['argocd-controller', 'kustomize-controller'];

/** The delivery tools' field managers by the tools' names, for people. */
export const DELIVERY_TOOL_NAMES: Readonly<Record<string, string>> = {
  'argocd-controller': 'Argo CD',
  'kustomize-controller': 'Flux',
};

/**
 * The field managers of the tools the model's `delivery` renders for (Argo CD unless
 * `argocd.enabled: false`, Flux unless `flux.enabled: false`); undefined when the model has no
 * `delivery` (or turns both off): the bundles then reach the clusters some other way (kubectl from
 * CI, say), and who applied an object is information only.
 */
export function deliveryManagers(plan: Pick<Plan, 'delivery'>): readonly string[] | undefined {
  const d = plan.delivery;
  const managers = [
    ...(d?.argocd ? ['argocd-controller'] : []),
    ...(d?.flux ? ['kustomize-controller'] : []),
  ];
  return managers.length > 0 ? managers : undefined;
}

export interface DriftedField {
  /** e.g. `spec.replicas`, `metadata.labels["app"]`, `spec.ports[0].port`. */
  readonly path: string;
  /** JSON of the rendered value and of the live one (undefined: absent). */
  readonly want: string;
  readonly have: string | undefined;
  /** Field managers that own the field live, other than the delivery tools. */
  readonly changedBy: readonly string[];
}

export interface ObjectState {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly state: 'ok' | 'missing' | 'drifted' | 'unread';
  readonly drifted?: readonly DriftedField[];
  /**
   * Set when none of the delivery tools' field managers (the model's, or both when it names none)
   * manages any of its fields: every manager that does, sorted. A problem only when the model's
   * `delivery` names the tools (report/clusters.ts).
   */
  readonly otherOwners?: readonly string[];
  /**
   * Who applied it, live: the field managers that hold a field the bundle renders with the rendered
   * value (server-side apply's `kubectl`, `argocd-controller`, or an Update such as
   * `kubectl-client-side-apply`), sorted; every manager when managedFields say no more. A manager
   * that holds only drifted fields changed them (`changedBy`) and is not counted. Absent when missing.
   */
  readonly appliedBy?: readonly string[];
}

const json = (v: unknown): string => JSON.stringify(v) ?? 'undefined';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function keyPath(base: string, k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? (base ? `${base}.${k}` : k) : `${base}[${JSON.stringify(k)}]`;
}

/** Segments as managedFields spells them (`f:<key>` for map keys, `i:<n>` positional). */
type Segment = { readonly key: string } | { readonly index: number };

function compare(
  want: unknown,
  have: unknown,
  path: string,
  segs: Segment[],
  out: [string, Segment[], unknown, unknown][],
) {
  if (isObj(want)) {
    if (!isObj(have)) {
      out.push([path, segs, want, have]);
      return;
    }
    for (const k of Object.keys(want).sort())
      compare(want[k], have[k], keyPath(path, k), [...segs, { key: k }], out);
    return;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) {
      out.push([path, segs, want, have]);
      return;
    }
    want.forEach((w, i) => compare(w, have[i], `${path}[${i}]`, [...segs, { index: i }], out));
    return;
  }
  if (want !== have && !(typeof want === 'number' && typeof have === 'string' && String(want) === have))
    out.push([path, segs, want, have]);
}

interface ManagedEntry {
  readonly manager?: string;
  readonly fieldsV1?: Obj;
  readonly subresource?: string;
}

/** Whether `fields` (a fieldsV1 tree) holds the path, or the whole list/map at a prefix of it. */
function owns(fields: Obj | undefined, segs: readonly Segment[]): boolean {
  let cur: Obj | undefined = fields;
  for (const s of segs) {
    if (!cur) return false;
    if ('key' in s) {
      const next = cur[`f:${s.key}`];
      if (!isObj(next)) return false;
      cur = next;
    } else {
      // List items are keyed (`k:{...}`, `v:...`) or positional: owning any item of the list is
      // counted as owning the one that drifted.
      return Object.keys(cur).some((k) => k !== '.');
    }
  }
  return cur !== undefined;
}

/** Every leaf the bundle renders (a scalar, an empty map, or a whole list), as segments. */
function leaves(want: unknown, segs: Segment[], out: Segment[][]): void {
  if (isObj(want) && Object.keys(want).length > 0) {
    for (const k of Object.keys(want)) leaves(want[k], [...segs, { key: k }], out);
    return;
  }
  out.push(segs);
}

const isPrefix = (p: readonly Segment[], of: readonly Segment[]): boolean =>
  p.length <= of.length &&
  p.every((s, i) => {
    const o = of[i]!;
    return 'key' in s ? 'key' in o && o.key === s.key : 'index' in o && o.index === s.index;
  });

function managers(live: Obj): ManagedEntry[] {
  const mf = (live.metadata as Obj | undefined)?.managedFields;
  return Array.isArray(mf) ? (mf as ManagedEntry[]) : [];
}

/**
 * One bundle object against its live self. `tools`: the field managers whose management makes an
 * object delivered (otherOwners is set when none of them manages it).
 */
export function compareObject(
  o: BundleObject,
  live: Obj | undefined,
  tools: readonly string[] = DELIVERY_MANAGERS,
): ObjectState {
  const id = { kind: o.kind, name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) };
  if (!live) return { ...id, state: 'missing' };
  const diffs: [string, Segment[], unknown, unknown][] = [];
  // apiVersion and kind name the object; a bundle may render a version other than the stored one.
  const rendered = Object.fromEntries(
    Object.entries(o.object).filter(([k]) => k !== 'apiVersion' && k !== 'kind'),
  );
  compare(rendered, live, '', [], diffs);
  const entries = managers(live).filter((m) => !m.subresource);
  const delivered = entries.some((m) => m.manager !== undefined && tools.includes(m.manager));
  const others = [...new Set(entries.map((m) => m.manager ?? '(unnamed)'))].filter((m) => !tools.includes(m));
  // Who applied it: the managers holding a rendered field that is as rendered.
  const renderedLeaves: Segment[][] = [];
  leaves(rendered, [], renderedLeaves);
  const unchanged = renderedLeaves.filter((l) => !diffs.some(([, segs]) => isPrefix(segs, l)));
  const holders = entries.filter((m) => unchanged.some((l) => owns(m.fieldsV1, l)));
  const appliedBy = [
    ...new Set((holders.length > 0 ? holders : entries).map((m) => m.manager ?? '(unnamed)')),
  ].sort();
  const drifted = diffs.map(([path, segs, want, have]) => ({
    path,
    want: o.kind === 'Secret' ? '(not shown)' : json(want),
    have: have === undefined ? undefined : o.kind === 'Secret' ? '(not shown)' : json(have),
    changedBy: entries
      .filter((m) => m.manager && !DELIVERY_MANAGERS.includes(m.manager) && owns(m.fieldsV1, segs))
      .map((m) => m.manager!)
      .sort(),
  }));
  return {
    ...id,
    state: drifted.length > 0 ? 'drifted' : 'ok',
    ...(drifted.length > 0 ? { drifted } : {}),
    ...(delivered ? {} : { otherOwners: others.sort() }),
    appliedBy,
  };
}
