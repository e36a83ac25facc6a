/**
 * The explain report as text (terminal), markdown (tables and ```mermaid blocks, e.g. for a PR or
 * a wiki), JSON, or the bare Mermaid picture. Pure; same report, same bytes.
 *
 * JSON shape (`format: "clusterset.explain/v1"`; keys in this order, lists sorted as described):
 * ```
 * { format, clusterSetId, leader, leaderNamespace, memberNamespace,
 *   cluster: string | null,                       // set by --cluster
 *   summary: { clusters, members, networks[], services, exports, baselinePolicies,
 *              stretchedPolicies, reachability: { allowed, denied, depends } },
 *   clusters: [ { id, role: leader|member|leader+member|unused, network: string|null,
 *                 endpointIPType, stretchedNetworkPolicy, gatewayNodes[],
 *                 exports: [ { service: "ns/name", ports[], importedBy[] } ],
 *                 imports: [ { service, importedAs: "ns/antrea-mc-name", ports[],
 *                              from: [ { cluster, endpoints: ClusterIP|PodIP,
 *                                        path: local|same network|via gateways } ] } ],
 *                 policies: [ { name, object, kind, tier, tierPriority, priority, appliesTo,
 *                               ingressRules[], egressRules[], tiedWith[] } ],   // in evaluation order
 *                 ownership: { labelled, command,                 // null for a cluster without a bundle
 *                              shared: [ { object, labelled, with } ] } | null,
 *                 antrea: [ { file: antrea-agent.conf|antrea-controller.conf|controller_manager_config.yaml,
 *                             configMap, setting, value, because } ],   // what Antrea must enable there
 *                 memberControllerConfig: { configMap: "ns/antrea-mc-controller-config",
 *                     key: "controller_manager_config.yaml", renderedBy: clusterset|antrea-install,
 *                     content } | null,                 // members only
 *                 serviceNamespaces: { renderedBy: clusterset|application-teams,
 *                     forExports[], forImports[] } | null,   // members only
 *                 image: { image, default, runBy[], pullSecrets[], build } | null } ],   // the
 *                     // reconciler image where the bundle runs it; clusters by id
 *   namespaces: [ ..., "*" ],                      // "*" = any other Namespace
 *   reachability: [ { service, exporter, source, namespace, verdict: allowed|denied|depends,
 *                     ports: [ { port: "http 8080/TCP", verdict, by[],
 *                                allowedIf: [ [ { condition, holds } ] ],   // OR of ANDs, when depends
 *                                truncated } ] } ],   // by service, exporter, source, namespace
 *   delivery: [ { tool: argocd|flux, need, how[] } ],   // repository credentials for an ssh origin
 *   notes: [] }
 * ```
 */
import { literalText, type Decision } from './conditions';
import { exportGraphMermaid } from './mermaid';
import type { Plan } from '../plan';
import { OTHER_NAMESPACE, portLabel, type Reachability } from './reachability';
import { imageLines } from './image';
import type { ClusterOwnership } from './ownership';
import type { ClusterReport, ExplainReport } from './report';
import { count, noun } from '../plural';

/** Output formats of `clusterset explain`. */
export type ExplainFormat = 'text' | 'markdown' | 'json' | 'mermaid';

/** The version tag of the JSON shape. */
export const JSON_FORMAT = 'clusterset.explain/v1';

/** Renders a report; `plan` is needed for the pictures. */
export function formatReport(report: ExplainReport, plan: Plan, format: ExplainFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(toJson(report), null, 2)}\n`;
    case 'mermaid':
      return exportGraphMermaid(plan, report.cluster === null ? {} : { focus: report.cluster });
    case 'markdown':
      return markdown(report, plan);
    default:
      return text(report);
  }
}

function decisionJson(d: Decision) {
  return {
    verdict: d.verdict,
    by: d.by,
    allowedIf: d.allowedIf.map((t) => t.map((l) => ({ condition: l.atom.yes, holds: l.holds }))),
    truncated: d.truncated,
  };
}

/** The report as plain JSON, in the documented shape. */
export function toJson(r: ExplainReport): unknown {
  return {
    format: JSON_FORMAT,
    clusterSetId: r.clusterSetId,
    leader: r.leader,
    leaderNamespace: r.leaderNamespace,
    memberNamespace: r.memberNamespace,
    cluster: r.cluster,
    summary: r.summary,
    clusters: r.clusters,
    namespaces: r.namespaces,
    reachability: r.reachability.map((x) => ({
      service: x.service,
      exporter: x.exporter,
      source: x.source,
      namespace: x.namespace,
      verdict: x.verdict,
      ports: x.ports.map((p) => ({ port: portLabel(p.port), ...decisionJson(p.decision) })),
    })),
    delivery: r.delivery,
    notes: r.notes,
  };
}

function decisionText(d: Decision): string {
  if (d.verdict === 'allowed') return 'allowed';
  if (d.verdict === 'denied') return `denied by ${d.by.join(' / ')}`;
  const ifs = d.allowedIf.map((t) => t.map(literalText).join(' and ')).join('; or if ');
  return `allowed only if ${ifs}${d.truncated ? ' (too many open questions to enumerate: each may matter)' : ''}`;
}

/** The footnote of a table cell, or undefined for a plain "allowed". */
function cellNote(x: Reachability): string | undefined {
  if (x.verdict === 'allowed') return undefined;
  const texts = x.ports.map((p) => decisionText(p.decision));
  if (texts.every((t) => t === texts[0])) return texts[0];
  return x.ports.map((p, i) => `port ${portLabel(p.port)}: ${texts[i]}`).join('. ');
}

function nsLabel(ns: string): string {
  return ns === OTHER_NAMESPACE ? '(any other)' : ns;
}

interface Table {
  readonly service: string;
  readonly ports: string;
  readonly exporters: readonly string[];
  readonly rows: readonly { readonly source: string; readonly cells: readonly string[] }[];
  readonly notes: readonly string[];
}

/** The reachability entries as one table per Service: rows source cluster/Namespace, columns exporters. */
function tables(r: ExplainReport): Table[] {
  const byService = new Map<string, Reachability[]>();
  for (const x of r.reachability) byService.set(x.service, [...(byService.get(x.service) ?? []), x]);
  const out: Table[] = [];
  for (const [service, entries] of byService) {
    const exporters = [...new Set(entries.map((x) => x.exporter))];
    const notes: string[] = [];
    const rows = new Map<string, string[]>();
    const rowKey = (x: Reachability) => `${x.source}/${nsLabel(x.namespace)}`;
    for (const x of entries)
      if (!rows.has(rowKey(x)))
        rows.set(
          rowKey(x),
          exporters.map(() => '-'),
        );
    for (const x of entries) {
      const note = cellNote(x);
      let cell: string = x.verdict;
      if (note !== undefined) {
        let n = notes.indexOf(note);
        if (n < 0) n = notes.push(note) - 1;
        cell = `${x.verdict} [${n + 1}]`;
      }
      rows.get(rowKey(x))![exporters.indexOf(x.exporter)] = cell;
    }
    out.push({
      service,
      ports: entries[0]!.ports.map((p) => portLabel(p.port)).join(', '),
      exporters,
      rows: [...rows].map(([source, cells]) => ({ source, cells })),
      notes,
    });
  }
  return out;
}

function clusterHeadline(c: ClusterReport): string {
  const bits = [c.role, c.network === null ? 'default network' : `network ${c.network}`];
  // Endpoint type and stretched NetworkPolicy are member controller settings.
  if (c.role === 'member' || c.role === 'leader+member') {
    bits.push(
      `${c.endpointIPType} endpoints`,
      `stretched NetworkPolicy ${c.stretchedNetworkPolicy ? 'on' : 'off'}`,
    );
  }
  if (c.gatewayNodes.length > 0) bits.push(`gateway nodes ${c.gatewayNodes.join(', ')}`);
  return `cluster ${c.id} (${bits.join(', ')})`;
}

function importFrom(i: ClusterReport['imports'][number]): string {
  return i.from.map((f) => `${f.cluster} (${f.endpoints}, ${f.path})`).join(', ');
}

function policyLine(p: ClusterReport['policies'][number], i: number): string {
  const tie =
    p.tiedWith.length > 0 ? `; same Tier and priority as ${p.tiedWith.join(', ')}: order undefined` : '';
  return `${i + 1}. Tier ${p.tier} (${p.tierPriority}), priority ${p.priority}: ${p.kind} policy ${p.name} as ${p.object}, applies to ${p.appliesTo}${tie}`;
}

/** The ownership section's lines, unindented: what carries our labels, how to list it, what is shared. */
function ownershipLines(o: ClusterOwnership): { head: string; command: string; shared: string[] } {
  return {
    head: `${count(o.labelled, 'object')} ${noun(o.labelled, 'carries', 'carry')} clusterset's labels; list them with`,
    command: o.command,
    shared: o.shared.map((x) => `${x.object}${x.labelled ? '' : ' (no labels)'}: ${x.with}`),
  };
}

function summaryLines(r: ExplainReport): string[] {
  const s = r.summary;
  return [
    `ClusterSet ${r.clusterSetId}: leader ${r.leader}, ${count(s.members, 'member')} of ${count(s.clusters, 'cluster')}, networks ${s.networks.join(', ')}`,
    `${count(s.services, 'exported Service')} (${count(s.exports, 'export')}), ${s.baselinePolicies} baseline and ${count(s.stretchedPolicies, 'stretched policy')}`,
    `reachability${r.cluster === null ? '' : ` to and from ${r.cluster}`}: ${s.reachability.allowed} allowed, ${s.reachability.denied} denied, ${s.reachability.depends} depending on what the model does not say`,
  ];
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => c.padEnd(widths[i]!))
    .join('  ')
    .trimEnd();
}

/**
 * What a member's bundle relies on and who provides it: the exported Services' Namespaces and
 * Antrea's member controller config, printed in full when Antrea's install must ship it.
 */
function othersProvide(c: ClusterReport): { lines: string[]; config?: string } {
  const lines: string[] = [];
  const ns = c.serviceNamespaces;
  if (ns && ns.forExports.length + ns.forImports.length > 0) {
    if (ns.renderedBy === 'clusterset') {
      const all = [...ns.forExports, ...ns.forImports].sort();
      lines.push(`Namespaces ${all.join(', ')}: rendered by clusterset (takeOver.serviceNamespaces)`);
    } else {
      const parts = [
        ...(ns.forExports.length > 0
          ? [
              `${ns.forExports.join(', ')} (its ServiceExports live there: its bundle applies only once they exist)`,
            ]
          : []),
        ...(ns.forImports.length > 0
          ? [`${ns.forImports.join(', ')} (imports only: Antrea imports into them once they exist)`]
          : []),
      ];
      lines.push(`Namespaces the application teams own, which must exist: ${parts.join('; ')}`);
    }
  }
  const cfg = c.memberControllerConfig;
  if (!cfg) return { lines };
  if (cfg.renderedBy === 'clusterset') {
    lines.push(
      `member controller config ${cfg.configMap}: rendered by clusterset (takeOver.memberControllerConfig)`,
    );
    return { lines };
  }
  lines.push(
    `member controller config: Antrea's install ships ${cfg.configMap}, whose ${cfg.key} must be exactly`,
  );
  return { lines, config: cfg.content };
}

/**
 * What Antrea must have enabled in a cluster: lines to print as they are, then one group of
 * settings per file (`setting: value  # because`), unindented.
 */
function antreaLines(c: ClusterReport): { lines: string[]; groups: { file: string; settings: string[] }[] } {
  const lines: string[] = [];
  if (c.role === 'leader' || c.role === 'leader+member')
    lines.push(
      "Antrea's Multi-cluster leader controller must not run here: the clusterset reconciler takes its place",
    );
  if (c.role === 'member' || c.role === 'leader+member')
    lines.push(
      c.antrea.length === 0
        ? 'Antrea: its Multi-cluster member controller; nothing else to enable for the features the model uses here'
        : 'Antrea must have enabled, for the features the model uses here:',
    );
  const groups: { file: string; settings: string[] }[] = [];
  for (const s of c.antrea) {
    const file = `${s.file} (ConfigMap ${s.configMap})`;
    let g = groups.find((x) => x.file === file);
    if (!g) groups.push((g = { file, settings: [] }));
    g.settings.push(`${s.setting}: ${s.value}  # ${s.because}`);
  }
  return { lines, groups };
}

function text(r: ExplainReport): string {
  const out: string[] = [...summaryLines(r), ''];
  for (const c of r.clusters) {
    out.push(clusterHeadline(c));
    if (c.role === 'leader')
      out.push('  not a member: imports nothing, holds no policies; runs the clusterset reconciler');
    if (c.exports.length > 0) {
      out.push('  exports:');
      for (const e of c.exports)
        out.push(`    ${e.service} (${e.ports.join(', ')}) to ${e.importedBy.join(', ')}`);
    }
    if (c.imports.length > 0) {
      out.push('  imports:');
      for (const i of c.imports)
        out.push(`    ${i.importedAs} (${i.ports.join(', ')}) from ${importFrom(i)}`);
    }
    if (c.policies.length > 0) {
      out.push('  policies, in evaluation order:');
      c.policies.forEach((p, i) => {
        out.push(`    ${policyLine(p, i)}`);
        if (p.ingressRules.length > 0) out.push(`       ingress: ${p.ingressRules.join(', ')}`);
        if (p.egressRules.length > 0) out.push(`       egress: ${p.egressRules.join(', ')}`);
      });
    }
    if (c.ownership !== null) {
      const o = ownershipLines(c.ownership);
      out.push(`  ownership: ${o.head}`, `    ${o.command}`);
      if (o.shared.length > 0) out.push('  shared with another owner:', ...o.shared.map((l) => `    ${l}`));
    }
    const own = othersProvide(c);
    for (const l of own.lines) out.push(`  ${l}`);
    if (own.config !== undefined) for (const l of own.config.trimEnd().split('\n')) out.push(`    ${l}`);
    const antrea = antreaLines(c);
    for (const l of antrea.lines) out.push(`  ${l}`);
    for (const g of antrea.groups) out.push(`    ${g.file}:`, ...g.settings.map((l) => `      ${l}`));
    if (c.image !== null) {
      const i = imageLines(c.image);
      out.push(`  ${i.need}:`, `    ${i.command}`);
      if (i.secrets !== undefined) out.push(`  ${i.secrets}`);
    }
    out.push('');
  }
  if (r.delivery.length > 0) {
    out.push('delivery needs:');
    for (const d of r.delivery) out.push(`  ${d.need}:`, ...d.how.map((l) => `    ${l}`));
    out.push('');
  }
  for (const t of tables(r)) {
    out.push(`reachability of ${t.service} (${t.ports}): rows are callers, columns exporting clusters`);
    const head = ['from \\ to', ...t.exporters];
    const body = t.rows.map((row) => [row.source, ...row.cells]);
    const widths = head.map((_, i) => Math.max(...[head, ...body].map((cells) => cells[i]!.length)));
    out.push(`  ${pad(head, widths)}`);
    for (const b of body) out.push(`  ${pad(b, widths)}`);
    t.notes.forEach((n, i) => out.push(`  [${i + 1}] ${n}`));
    out.push('');
  }
  out.push('notes:');
  for (const n of r.notes) out.push(`  - ${n}`);
  return `${out.join('\n')}\n`;
}

function md(cell: string): string {
  return cell.replace(/\|/g, '\\|');
}

function markdown(r: ExplainReport, plan: Plan): string {
  const out: string[] = [
    `# ClusterSet ${r.clusterSetId}${r.cluster === null ? '' : `: cluster ${r.cluster}`}`,
    '',
  ];
  for (const l of summaryLines(r)) out.push(`- ${l}`);
  out.push(
    '',
    '```mermaid',
    exportGraphMermaid(plan, r.cluster === null ? {} : { focus: r.cluster }).trimEnd(),
    '```',
    '',
  );
  for (const c of r.clusters) {
    out.push(`## ${md(clusterHeadline(c))}`, '');
    if (c.role === 'leader')
      out.push('Not a member: imports nothing, holds no policies; runs the clusterset reconciler.', '');
    if (c.exports.length > 0) {
      out.push('| exports | ports | imported by |', '|---|---|---|');
      for (const e of c.exports)
        out.push(`| ${e.service} | ${e.ports.join(', ')} | ${e.importedBy.join(', ')} |`);
      out.push('');
    }
    if (c.imports.length > 0) {
      out.push('| imports | as | ports | from |', '|---|---|---|---|');
      for (const i of c.imports)
        out.push(`| ${i.service} | ${i.importedAs} | ${i.ports.join(', ')} | ${md(importFrom(i))} |`);
      out.push('');
    }
    if (c.policies.length > 0) {
      out.push(
        '| # | Tier (priority) | priority | policy | object | applies to | ingress | egress |',
        '|---|---|---|---|---|---|---|---|',
      );
      c.policies.forEach((p, i) => {
        const tie = p.tiedWith.length > 0 ? ` (ties with ${p.tiedWith.join(', ')})` : '';
        out.push(
          `| ${i + 1} | ${p.tier} (${p.tierPriority}) | ${p.priority}${tie} | ${p.kind} ${p.name} | ${p.object} | ${md(p.appliesTo)} | ${p.ingressRules.join(', ')} | ${p.egressRules.join(', ')} |`,
        );
      });
      out.push('');
    }
    if (c.ownership !== null) {
      const o = ownershipLines(c.ownership);
      out.push(`Ownership: ${o.head}`, '', '```sh', o.command, '```', '');
      if (o.shared.length > 0)
        out.push('Shared with another owner:', '', ...o.shared.map((l) => `- ${l}`), '');
    }
    const own = othersProvide(c);
    for (const l of own.lines) out.push(`- ${l}`);
    if (own.lines.length > 0) out.push('');
    if (own.config !== undefined) out.push('```yaml', own.config.trimEnd(), '```', '');
    const antrea = antreaLines(c);
    for (const l of antrea.lines) out.push(l, '');
    for (const g of antrea.groups) out.push(`\`${g.file}\`:`, '', '```yaml', ...g.settings, '```', '');
    if (c.image !== null) {
      const i = imageLines(c.image);
      out.push(`${md(i.need)}:`, '', '```sh', i.command, '```', '');
      if (i.secrets !== undefined) out.push(i.secrets, '');
    }
  }
  if (r.delivery.length > 0) {
    out.push('## Delivery needs', '');
    for (const d of r.delivery) out.push(`- ${md(d.need)}:`, ...d.how.map((l) => `  - \`${l}\``));
    out.push('');
  }
  out.push(
    '## Reachability',
    '',
    'Rows are callers (cluster/Namespace), columns the clusters exporting the Service.',
    '',
  );
  for (const t of tables(r)) {
    out.push(`### ${t.service} (${t.ports})`, '');
    out.push(`| from \\ to | ${t.exporters.join(' | ')} |`, `|---|${t.exporters.map(() => '---|').join('')}`);
    for (const row of t.rows) out.push(`| ${row.source} | ${row.cells.join(' | ')} |`);
    out.push('');
    t.notes.forEach((n, i) => out.push(`${i + 1}. ${md(n)}`));
    if (t.notes.length > 0) out.push('');
  }
  out.push('## Notes', '');
  for (const n of r.notes) out.push(`- ${n}`);
  return `${out.join('\n')}\n`;
}
