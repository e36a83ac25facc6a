/**
 * The lines of the impact summary and how they are worded: the kinds of impact in the order the
 * summary lists them, one item, the Accumulator that merges items naming the same change in several
 * clusters, how a set of clusters is phrased (`both members`, `east and west`), how an object and a
 * few of its field changes are named, and the ChangeContext every kind's describer reads.
 */
import type { IdentityRotation } from '../after-merge';
import { cmp } from '../../diagnostics';
import { joinAnd } from '../describe';
import type { FieldChange } from '../tree';
import { clipEnd } from '../clip';
import { type Facts, sorted } from './facts';

/** Kinds of impact, in the order the summary lists them. */
export const IMPACT_CATEGORIES = [
  'members',
  'services',
  'exports',
  'baseline-policies',
  'stretched-policies',
  'tiers',
  'identity',
  'member-config',
  'clusterset',
  'admission',
  'namespaces',
  'leader',
  'crds',
  'delivery',
  'other',
] as const;

/** One kind of impact. */
export type ImpactCategory = (typeof IMPACT_CATEGORIES)[number];

/** One line of the summary. */
export interface ImpactItem {
  readonly category: ImpactCategory;
  /** A sentence in the model's terms, naming the clusters it reaches. */
  readonly text: string;
  /** IDs of the clusters whose bundles this item changes, sorted. */
  readonly clusters: readonly string[];
  /**
   * IDs of the clusters the change reaches, as the text names them, sorted: a Service or baseline
   * policy changes only the leader's bundle but reaches every member through its import.
   */
  readonly reaches: readonly string[];
}

function sameSet(a: ReadonlySet<string>, b: readonly string[]): boolean {
  return a.size === b.length && b.every((x) => a.has(x));
}

/**
 * `all 4 members`, `east and west`, `12 clusters (a, b, c, d, e and 7 more)`. "both" and "all" only
 * when the clusters are every member of the set after the change, or before it when the set stays
 * the same: two of three members are named, never "both members".
 */
export function phrase(ids: ReadonlySet<string>, memberSets: readonly (readonly string[])[]): string {
  const xs = sorted(ids);
  const [after, before] = memberSets;
  const everyMember =
    (after !== undefined && sameSet(ids, after)) ||
    (before !== undefined && after !== undefined && sameSet(new Set(after), before) && sameSet(ids, before));
  if (xs.length === 2 && everyMember) return 'both members';
  if (xs.length > 1 && everyMember) return `all ${xs.length} members`;
  if (xs.length <= 6) return joinAnd(xs);
  return `${xs.length} clusters (${xs.slice(0, 5).join(', ')} and ${xs.length - 5} more)`;
}

/** `member a`, `both members (a, b)`, `all 3 members (a, b, c)`: every member of one side, by name while few. */
export const all = (m: readonly string[]): string =>
  m.length === 1
    ? `member ${m[0]}`
    : m.length === 2
      ? `both members (${m.join(', ')})`
      : m.length <= 6
        ? `all ${m.length} members (${m.join(', ')})`
        : `all ${m.length} members`;

/** `metadata.name` with namespace: `shop/cart`, or just `name` for cluster-scoped objects. */
export function objName(c: { namespace?: string; name: string }): string {
  return c.namespace !== undefined ? `${c.namespace}/${c.name}` : c.name;
}

export function fmt(v: unknown): string {
  if (v === undefined) return '(none)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return clipEnd(s, 60);
}

/** `a.b: 1 → 2`, `+ x`, `- y` for a few field changes, stripping a common prefix. */
export function fieldSummary(fields: readonly FieldChange[], strip = '', max = 3): string {
  const shown = fields.slice(0, max).map((f) => {
    const p = f.path.startsWith(strip) ? f.path.slice(strip.length).replace(/^\./, '') : f.path;
    if (f.op === 'changed') return `${p} ${fmt(f.before)} → ${fmt(f.after)}`;
    if (f.op === 'added') return `${p} + ${fmt(f.after)}`;
    if (f.op === 'removed') return `${p} - ${fmt(f.before)}`;
    return `${p} reordered`;
  });
  return fields.length > max ? `${shown.join('; ')}; and ${fields.length - max} more` : shown.join('; ');
}

export class Accumulator {
  private readonly items = new Map<
    string,
    { category: ImpactCategory; template: string; clusters: Set<string>; reaches: Set<string> }
  >();

  /**
   * Adds an item; items with the same template merge their clusters (`{clusters}` is filled in
   * later). `reaches` defaults to the clusters whose bundles change.
   */
  add(
    category: ImpactCategory,
    template: string,
    clusters: Iterable<string>,
    reaches?: Iterable<string>,
  ): void {
    const key = `${category}\u0000${template}`;
    const item = this.items.get(key) ?? {
      category,
      template,
      clusters: new Set<string>(),
      reaches: new Set<string>(),
    };
    const bundles = [...clusters];
    for (const c of bundles) item.clusters.add(c);
    for (const c of reaches ?? bundles) item.reaches.add(c);
    this.items.set(key, item);
  }

  done(memberSets: readonly (readonly string[])[]): ImpactItem[] {
    const rank = (c: ImpactCategory): number => IMPACT_CATEGORIES.indexOf(c);
    return [...this.items.values()]
      .map((i) => ({
        category: i.category,
        text: i.template.replace('{clusters}', phrase(i.clusters, memberSets)),
        clusters: sorted(i.clusters),
        reaches: sorted(i.reaches),
      }))
      .sort((a, b) => rank(a.category) - rank(b.category) || cmp(a.text, b.text));
  }
}

export const verbOf = { added: 'added in', removed: 'removed from', changed: 'changes in' } as const;

/**
 * The change as a whole, as every kind's describer reads it: the summary it adds to, the facts of
 * both sides, the leader, the members before and after, who joins and leaves, and the members
 * whose identity is renamed (members.ts fills `rotations` in before the objects are described).
 */
export interface ChangeContext {
  readonly acc: Accumulator;
  readonly fb: Facts;
  readonly fa: Facts;
  readonly leader: string | undefined;
  readonly membersBefore: readonly string[];
  readonly membersAfter: readonly string[];
  readonly joined: readonly string[];
  readonly left: readonly string[];
  readonly rotations: IdentityRotation[];
}
