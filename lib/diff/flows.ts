/**
 * The flows of the PR comment's export picture: every member imports every exported Service, so a
 * flow is one (exporter, importer, Service) triple between two different members, before and after
 * the change. At 1,000 clusters x 16,000 Services there are tens of millions of them and the
 * picture draws at most a hundred or so arrows, so flows are counted first, arithmetically, and
 * built only when the count says they fit: memory and time stay O(exports + clusters + what is
 * drawn), never O(flows).
 *
 * Which flows a pair yields depends only on how the exporter's export changes (`same`, `added`,
 * `removed`) and on the importer's membership (`both` sides, `joined`, `left`): {@link KIND}.
 */
import type { GraphEdge } from '../explain/mermaid';
import type { Impact } from './impact';

/** How a flow changes: drawn plain, thick (added) or dotted (removed). */
export type FlowKind = 'same' | 'added' | 'removed';

type ExportChange = 'same' | 'added' | 'removed';
type Membership = 'both' | 'joined' | 'left';

/** The flow from an exporter whose export went through `change` to a member of `membership`, if any. */
const KIND: Readonly<Record<ExportChange, Readonly<Record<Membership, FlowKind | undefined>>>> = {
  same: { both: 'same', joined: 'added', left: 'removed' },
  added: { both: 'added', joined: 'added', left: undefined },
  removed: { both: 'removed', joined: undefined, left: 'removed' },
};

const CHANGES: readonly ExportChange[] = ['same', 'added', 'removed'];
const MEMBERSHIPS: readonly Membership[] = ['both', 'joined', 'left'];

/** How big a set of flows is, as the picture would draw it. */
export interface FlowCount {
  /** (exporter, importer, Service) triples. */
  readonly flows: number;
  /** Arrows: distinct (exporter, importer, kind). */
  readonly arrows: number;
  /** Characters of the arrows' labels: each Service name plus 4 (line break and `+ `/`- `). */
  readonly labelChars: number;
}

/** Which flows: all of them, or only those that change (added or removed). */
export type FlowSelection = 'all' | 'changed';

function wanted(kind: FlowKind | undefined, selection: FlowSelection): kind is FlowKind {
  return kind !== undefined && (selection === 'all' || kind !== 'same');
}

/** Members by side of the change, sorted as the impact lists them. */
function memberships(impact: Impact): Record<Membership, readonly string[]> {
  const before = new Set(impact.membersBefore);
  const after = new Set(impact.membersAfter);
  return {
    both: impact.membersAfter.filter((m) => before.has(m)),
    joined: impact.membersAfter.filter((m) => !before.has(m)),
    left: impact.membersBefore.filter((m) => !after.has(m)),
  };
}

/** Per exporter and kind of export change: how many Services and how many label characters. */
function exportTotals(impact: Impact): Map<string, Record<ExportChange, { n: number; chars: number }>> {
  const totals = new Map<string, Record<ExportChange, { n: number; chars: number }>>();
  for (const s of impact.exports)
    for (const e of s.exporters) {
      let t = totals.get(e.cluster);
      if (t === undefined) {
        t = { same: { n: 0, chars: 0 }, added: { n: 0, chars: 0 }, removed: { n: 0, chars: 0 } };
        totals.set(e.cluster, t);
      }
      t[e.change].n++;
      t[e.change].chars += s.service.length + 4;
    }
  return totals;
}

/** Counts the flows without building one: O(exports + clusters). */
export function countFlows(impact: Impact, selection: FlowSelection): FlowCount {
  const ms = memberships(impact);
  const sets = { both: new Set(ms.both), joined: new Set(ms.joined), left: new Set(ms.left) };
  let flows = 0;
  let arrows = 0;
  let labelChars = 0;
  for (const [exporter, t] of exportTotals(impact)) {
    for (const m of MEMBERSHIPS) {
      // Importers of this membership other than the exporter itself (its own imports are not drawn).
      const importers = ms[m].length - (sets[m].has(exporter) ? 1 : 0);
      if (importers === 0) continue;
      const kinds = new Set<FlowKind>();
      for (const c of CHANGES) {
        const kind = KIND[c][m];
        if (t[c].n === 0 || !wanted(kind, selection)) continue;
        kinds.add(kind);
        flows += importers * t[c].n;
        labelChars += importers * t[c].chars;
      }
      arrows += importers * kinds.size;
    }
  }
  return { flows, arrows, labelChars };
}

/**
 * Builds the selected flows, calling `onBuilt` once per flow built. Only for a selection that
 * {@link countFlows} found small: it builds exactly that many.
 */
export function buildFlows(impact: Impact, selection: FlowSelection, onBuilt?: () => void): GraphEdge[] {
  const ms = memberships(impact);
  const edges: GraphEdge[] = [];
  for (const s of impact.exports)
    for (const e of s.exporters)
      for (const m of MEMBERSHIPS) {
        const kind = KIND[e.change][m];
        if (!wanted(kind, selection)) continue;
        for (const importer of ms[m]) {
          if (importer === e.cluster) continue;
          onBuilt?.();
          edges.push({
            exporter: e.cluster,
            importer,
            service: s.service,
            ...(kind === 'same' ? {} : { change: kind }),
          });
        }
      }
  return edges;
}
