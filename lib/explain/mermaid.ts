/**
 * Mermaid pictures of who exports what to whom. Pure functions of the plan, shared with other
 * commands (a PR comment can embed {@link exportGraphMermaid}).
 *
 * IDs are built from model names by {@link mermaidId}, which is injective and yields only
 * `[A-Za-z0-9_]` behind a prefix, so no cluster, network or Service name can break the syntax or hit
 * a Mermaid keyword (`end`, `graph`, …); labels are quoted with Mermaid's entity escapes.
 */
import { cmp } from '../diagnostics';
import type { Plan, PlannedCluster } from '../plan';

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

function clusterLabel(c: PlannedCluster): string {
  const roles = [c.isLeader ? 'leader' : '', c.isMember ? '' : c.isLeader ? '' : 'unused'].filter(Boolean);
  return roles.length ? `${c.id} (${roles.join(', ')})` : c.id;
}

interface GraphOptions {
  /** Draw only edges touching this cluster, and highlight it. */
  readonly focus?: string;
}

/**
 * The set as a flowchart: clusters grouped by network, the leader drawn as a hexagon, and one edge
 * per (exporter, importer) pair labelled with the Services that flow along it.
 */
export function exportGraphMermaid(plan: Plan, options: GraphOptions = {}): string {
  const lines = ['flowchart LR'];
  const byNetwork = new Map<string, PlannedCluster[]>();
  for (const c of plan.clusters) {
    const key = c.network ?? '';
    byNetwork.set(key, [...(byNetwork.get(key) ?? []), c]);
  }
  const node = (c: PlannedCluster): string =>
    c.isLeader
      ? `${mermaidId('c', c.id)}{{${mermaidLabel(clusterLabel(c))}}}`
      : `${mermaidId('c', c.id)}[${mermaidLabel(clusterLabel(c))}]`;
  for (const network of [...byNetwork.keys()].sort(cmp)) {
    const label = network === '' ? 'default network' : `network ${network}`;
    lines.push(`  subgraph ${mermaidId('net', network)}[${mermaidLabel(label)}]`);
    for (const c of byNetwork.get(network)!) lines.push(`    ${node(c)}`);
    lines.push('  end');
  }
  const pairs = new Map<string, { exporter: string; importer: string; services: string[] }>();
  for (const e of exportEdges(plan)) {
    if (options.focus !== undefined && e.exporter !== options.focus && e.importer !== options.focus) continue;
    const key = `${e.exporter}\n${e.importer}`;
    const pair = pairs.get(key) ?? { exporter: e.exporter, importer: e.importer, services: [] };
    pair.services.push(e.service);
    pairs.set(key, pair);
  }
  for (const p of pairs.values()) {
    lines.push(
      `  ${mermaidId('c', p.exporter)} -->|${mermaidLabel(p.services.join('\n'))}| ${mermaidId('c', p.importer)}`,
    );
  }
  if (options.focus !== undefined) {
    lines.push('  classDef focus stroke-width:3px');
    lines.push(`  class ${mermaidId('c', options.focus)} focus`);
  }
  return `${lines.join('\n')}\n`;
}
