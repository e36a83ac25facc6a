/**
 * Mermaid pictures of who exports what to whom. Pure functions of the plan, shared with other
 * commands (a PR comment can embed {@link exportGraphMermaid}).
 *
 * IDs are built from model names by {@link mermaidId}, which is injective and yields only
 * `[A-Za-z0-9_]` behind a prefix, so no cluster, network or Service name can break the syntax or hit
 * a Mermaid keyword (`end`, `graph`, …); labels are quoted with Mermaid's entity escapes.
 */
import { cmp } from '../diagnostics';
import type { Plan } from '../plan';

/** One import edge: `importer` gets `service` (`ns/name`) from `exporter`. */
export interface ExportEdge {
  readonly exporter: string;
  readonly importer: string;
  readonly service: string;
}

/**
 * Every (exporter, importer, Service) triple between two different members, sorted. A member also
 * imports its own exports; those loops are left out of the pictures (the text report lists them).
 */
export function exportEdges(plan: Plan): ExportEdge[] {
  const edges: ExportEdge[] = [];
  for (const s of plan.services)
    for (const exporter of s.exportedFrom)
      for (const m of plan.members)
        if (m.id !== exporter) edges.push({ exporter, importer: m.id, service: `${s.namespace}/${s.name}` });
  return edges.sort(
    (a, b) => cmp(a.exporter, b.exporter) || cmp(a.importer, b.importer) || cmp(a.service, b.service),
  );
}

/**
 * A Mermaid node ID for any string: `prefix_` followed by the name with every character outside
 * `[A-Za-z0-9]` written as `_<hex>_`. Injective, so `a-b` and `a_b` never share an ID.
 */
export function mermaidId(prefix: string, name: string): string {
  let out = `${prefix}_`;
  for (const ch of name) out += /[A-Za-z0-9]/.test(ch) ? ch : `_${ch.codePointAt(0)!.toString(16)}_`;
  return out;
}

/** A quoted Mermaid label; quotes, angle brackets and `#` become entities, so text stays text. */
export function mermaidLabel(text: string): string {
  const escaped = text.replace(/[#"<>&]/g, (c) => `#${c.codePointAt(0)};`).replace(/\n/g, '<br/>');
  return `"${escaped}"`;
}

/** A cluster as the picture needs it; plain data, so callers without a Plan can draw too. */
export interface GraphCluster {
  readonly id: string;
  /** Undefined: the default network. */
  readonly network?: string;
  readonly leader?: boolean;
  readonly member?: boolean;
}

/** An edge, optionally marked as a change (drawn thick for added, dotted for removed). */
export interface GraphEdge extends ExportEdge {
  readonly change?: 'added' | 'removed';
}

/** Options of the pictures. */
export interface GraphOptions {
  /** Draw only edges touching this cluster, and highlight it. */
  readonly focus?: string;
}

function clusterLabel(c: GraphCluster): string {
  if (c.leader) return `${c.id} (leader)`;
  return c.member === false ? `${c.id} (not a member)` : c.id;
}

const ARROWS = { same: '-->', added: '==>', removed: '-.->' } as const;
const PREFIX = { same: '', added: '+ ', removed: '- ' } as const;

/**
 * Draws clusters grouped by network (the leader as a hexagon) and one edge per (exporter,
 * importer, change) labelled with the Services that flow along it. Clusters named only by edges
 * are drawn outside any network. Deterministic: everything is sorted.
 */
export function renderExportGraph(
  clusters: readonly GraphCluster[],
  edges: readonly GraphEdge[],
  options: GraphOptions = {},
): string {
  const lines = ['flowchart LR'];
  const known = new Set(clusters.map((c) => c.id));
  const byNetwork = new Map<string, GraphCluster[]>();
  for (const c of [...clusters].sort((a, b) => cmp(a.id, b.id))) {
    const key = c.network ?? '';
    byNetwork.set(key, [...(byNetwork.get(key) ?? []), c]);
  }
  const node = (c: GraphCluster): string =>
    c.leader
      ? `${mermaidId('c', c.id)}{{${mermaidLabel(clusterLabel(c))}}}`
      : `${mermaidId('c', c.id)}[${mermaidLabel(clusterLabel(c))}]`;
  for (const network of [...byNetwork.keys()].sort(cmp)) {
    const label = network === '' ? 'default network' : `network ${network}`;
    lines.push(`  subgraph ${mermaidId('net', network)}[${mermaidLabel(label)}]`);
    for (const c of byNetwork.get(network)!) lines.push(`    ${node(c)}`);
    lines.push('  end');
  }
  const shown = edges.filter(
    (e) => options.focus === undefined || e.exporter === options.focus || e.importer === options.focus,
  );
  const strays = [...new Set(shown.flatMap((e) => [e.exporter, e.importer]))].filter((id) => !known.has(id));
  for (const id of strays.sort(cmp)) lines.push(`  ${node({ id })}`);
  const groups = new Map<
    string,
    { exporter: string; importer: string; kind: keyof typeof ARROWS; services: string[] }
  >();
  for (const e of shown) {
    const kind = e.change ?? 'same';
    const key = `${e.exporter}\n${e.importer}\n${kind}`;
    const g = groups.get(key) ?? { exporter: e.exporter, importer: e.importer, kind, services: [] };
    g.services.push(`${PREFIX[kind]}${e.service}`);
    groups.set(key, g);
  }
  const order = { same: 0, added: 1, removed: 2 };
  const sorted = [...groups.values()].sort(
    (a, b) => cmp(a.exporter, b.exporter) || cmp(a.importer, b.importer) || order[a.kind] - order[b.kind],
  );
  for (const g of sorted) {
    const label = mermaidLabel([...g.services].sort(cmp).join('\n'));
    lines.push(`  ${mermaidId('c', g.exporter)} ${ARROWS[g.kind]}|${label}| ${mermaidId('c', g.importer)}`);
  }
  if (options.focus !== undefined) {
    lines.push('  classDef focus stroke-width:3px');
    lines.push(`  class ${mermaidId('c', options.focus)} focus`);
  }
  return `${lines.join('\n')}\n`;
}

/** The clusters of a plan as the picture needs them. */
export function graphClusters(plan: Plan): GraphCluster[] {
  return plan.clusters.map((c) => ({
    id: c.id,
    ...(c.network !== undefined ? { network: c.network } : {}),
    leader: c.isLeader,
    member: c.isMember,
  }));
}

/**
 * Who exports what to whom, from a plan: the set as a flowchart (clusters grouped by network, one
 * edge per exporter and importer, labelled with the Services). With `focus`, one cluster's picture.
 */
export function exportGraphMermaid(plan: Plan, options: GraphOptions = {}): string {
  return renderExportGraph(graphClusters(plan), exportEdges(plan), options);
}
