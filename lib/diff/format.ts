/**
 * Output formats of `clusterset diff`: text for a terminal, markdown for a pull-request comment, and
 * JSON for tools. All three carry the same facts in the same order; none depends on the clock or the
 * environment, so the same change always prints the same bytes.
 *
 * The markdown form is made for GitHub: a headline saying how many clusters the change touches, the
 * impact bullets, a per-bundle table, a Mermaid picture of who exports what to whom after the change,
 * and the object details in `<details>` blocks. A comment holds at most 65,536 characters: the
 * details are cut to fit (and the cut is said), never the summary above them.
 */
import type { Diagnostic } from '../diagnostics';
import type { GraphCluster } from '../explain/mermaid';
import { renderExportGraph } from '../explain/mermaid';
import { sharedWith } from '../render/util';
import { buildFlows, countFlows, type FlowCount, type FlowSelection } from './flows';
import type { Impact } from './impact';
import type { ImpactCategory, ImpactItem } from './impact/summary';
import { IMPACT_CATEGORIES } from './impact/summary';
import type { BundleDiff, FieldChange, FileChange, ObjectChange, TreeDiff } from './tree';
import { count } from '../plural';
import { clipEnd, clipWindow } from './clip';
import { MARK_STYLE, painter, type Painter } from '../colour';

/** GitHub's limit on the body of an issue or pull-request comment, in characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** What the two sides are, for the headline: e.g. `out/ at origin/main` and `clusterset.ts`. */
export interface DiffLabels {
  readonly before: string;
  readonly after: string;
}

/** The output formats. */
export type DiffFormat = 'text' | 'markdown' | 'json';

/** Field lines shown per object before "and N more" (the JSON form has them all). */
const MAX_FIELDS = 20;
/** Summary lines shown per category before "and N more" (keeps a fleet-wide change readable). */
const MAX_ITEMS_PER_CATEGORY = 12;
/** Edges (exporter → importer pairs) drawn in the Mermaid picture; GitHub refuses more than 500. */
export const MAX_GRAPH_EDGES = 120;
/** Characters of Service names in the picture's edge labels, so the picture stays a small part of a comment. */
export const MAX_GRAPH_LABEL_CHARS = 8_000;

/** Rows of the per-bundle table before one row sums up the rest (1,000 rows would fill a comment). */
const MAX_TABLE_ROWS = 50;

/** The diff found nothing to report. */
export function isEmpty(diff: TreeDiff): boolean {
  return diff.bundles.length === 0;
}

const BOOKKEEPING = /(^|\/)(kustomization\.yaml|\.clusterset-index)$/;

/**
 * Bundles worth showing: a bundle whose only changes are kustomization.yaml or the index follows the
 * objects elsewhere and is left out, unless nothing else changed (then out/ was edited by hand).
 */
function shown(diff: TreeDiff): readonly BundleDiff[] {
  const real = diff.bundles.filter(
    (b) => b.objects.length > 0 || b.files.some((f) => f.formattingOnly || !BOOKKEEPING.test(f.file)),
  );
  return real.length > 0 ? real : diff.bundles;
}

function counts(b: BundleDiff): { added: number; changed: number; removed: number } {
  const c = { added: 0, changed: 0, removed: 0 };
  for (const o of b.objects) c[o.change]++;
  return c;
}

function countText(b: BundleDiff): string {
  const c = counts(b);
  const parts = (['added', 'changed', 'removed'] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  const files = visibleFiles(b).length;
  if (files > 0) parts.push(count(files, 'other file'));
  return parts.join(', ');
}

/** kustomization.yaml and the index follow the objects; they are shown only when nothing else changed. */
function visibleFiles(b: BundleDiff): readonly FileChange[] {
  if (b.objects.length === 0) return b.files;
  return b.files.filter((f) => f.formattingOnly || !BOOKKEEPING.test(f.file));
}

function bundleTitle(b: BundleDiff): string {
  if (b.type === 'root') return 'out/ (root files)';
  const presence =
    b.presence === 'added' ? ' (new bundle)' : b.presence === 'removed' ? ' (bundle removed)' : '';
  return `${b.type === 'cluster' ? b.bundle : `${b.bundle}/`}${presence}`;
}

function objectTitle(o: ObjectChange | FileChange): string {
  if (!('kind' in o)) return o.formattingOnly ? `${o.file} (formatting or comments only)` : o.file;
  return `${o.kind} ${o.namespace !== undefined ? `${o.namespace}/` : ''}${o.name}`;
}

/** Who else owns the object (render/util.ts sharedWith), from whichever side has it. */
function owner(o: ObjectChange | FileChange): string | undefined {
  const obj = 'kind' in o ? (o.after ?? o.before) : undefined;
  return obj === undefined ? undefined : sharedWith(obj);
}

/** ` [shared with …]` behind an object another owner shares, else nothing. */
function sharedMark(o: ObjectChange | FileChange): string {
  const other = owner(o);
  return other === undefined ? '' : ` [shared with ${other}]`;
}

/** A value on one line, cut at a boundary past `max` characters (clip.ts). */
function value(v: unknown, max = 100): string {
  if (v === undefined) return '(none)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  const one = s.replace(/\n/g, '⏎');
  return max === Infinity ? one : clipEnd(one, max);
}

/** Two long strings (CEL expressions, say) shown around their first difference, cut at boundaries. */
function around(a: string, b: string): [string, string] {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 30);
  return [clipWindow(a, from, 90), clipWindow(b, from, 90)];
}

/** `spec.ports[http].port: 80 → 8080`, `spec.podCIDRs: + 10.1.0.0/16`. */
export function fieldLine(f: FieldChange): string {
  const p = f.path === '' ? '(whole document)' : f.path;
  if (
    f.op === 'changed' &&
    typeof f.before === 'string' &&
    typeof f.after === 'string' &&
    f.before.length + f.after.length > 100
  ) {
    const [a, b] = around(f.before, f.after);
    return `${p}: ${value(a, Infinity)} → ${value(b, Infinity)}`;
  }
  if (f.op === 'changed') return `${p}: ${value(f.before)} → ${value(f.after)}`;
  if (f.op === 'added') return `${p}: + ${value(f.after)}`;
  if (f.op === 'removed') return `${p}: - ${value(f.before)}`;
  return `${p}: reordered ${value(f.before)} → ${value(f.after)}`;
}

const MARK = { added: '+', removed: '-', changed: '~' } as const;

/** Clusters with a bundle on either side of the change: a removed one is among those it touches. */
function clustersEitherSide(impact: Impact): number {
  return new Set([...impact.clusters, ...impact.touched]).size;
}

function headline(impact: Impact): string {
  const n = impact.touched.length;
  const of = clustersEitherSide(impact);
  const clusters =
    n === 0 ? 'no cluster bundle' : `${n} of ${count(of, 'cluster')} (${impact.touched.join(', ')})`;
  const delivery =
    impact.delivery.length > 0 ? `; delivery: ${impact.delivery.map((d) => `${d}/`).join(', ')}` : '';
  return `this change touches ${clusters}${delivery}`;
}

/** How the "and N more" line names a category. */
const CATEGORY_NOUN: Readonly<Record<ImpactCategory, string>> = {
  members: 'member',
  services: 'Service',
  exports: 'export',
  'baseline-policies': 'baseline policy',
  'stretched-policies': 'stretched policy',
  tiers: 'Tier',
  identity: 'cluster identity',
  'member-config': 'member controller setting',
  clusterset: 'ClusterSet',
  admission: 'admission',
  namespaces: 'Namespace',
  leader: 'leader',
  crds: 'CRD',
  delivery: 'delivery',
  other: 'other',
};

/** Summary lines per category, at most MAX_ITEMS_PER_CATEGORY each, with what was left out. */
function summaryLines(items: readonly ImpactItem[]): string[] {
  if (items.length === 0)
    return ['nothing in terms of the ClusterSet: only bookkeeping files differ (listed below)'];
  const out: string[] = [];
  for (const c of IMPACT_CATEGORIES) {
    const xs = items.filter((i) => i.category === c);
    for (const i of xs.slice(0, MAX_ITEMS_PER_CATEGORY)) out.push(i.text);
    if (xs.length > MAX_ITEMS_PER_CATEGORY)
      out.push(
        `… and ${xs.length - MAX_ITEMS_PER_CATEGORY} more ${CATEGORY_NOUN[c]} changes (--format json lists them all)`,
      );
  }
  return out;
}

/**
 * The model's warnings in the comment: at most MAX_ITEMS_PER_CATEGORY, each with its path, what is
 * wrong, the fix (each cut past a few hundred characters) and the rule; empty when there are none.
 */
function warningsMarkdown(warnings: readonly Diagnostic[]): string[] {
  if (warnings.length === 0) return [];
  const lines = warnings
    .slice(0, MAX_ITEMS_PER_CATEGORY)
    .map(
      (w) =>
        `- :warning: ${code(clipEnd(w.path, 200) || '(model)')}: ${md(clipEnd(w.message, 600))}; fix: ${md(clipEnd(w.fix, 400))} (${code(w.rule)})`,
    );
  if (warnings.length > MAX_ITEMS_PER_CATEGORY)
    lines.push(
      `- … and ${warnings.length - MAX_ITEMS_PER_CATEGORY} more (\`clusterset validate\` lists them all)`,
    );
  return [
    '#### Warnings',
    '',
    `_Legal, but almost always a mistake (\`--strict\` makes them errors):_`,
    '',
    ...lines,
    '',
  ];
}

function noChanges(labels: DiffLabels): string {
  return `No changes: ${labels.after} renders exactly ${labels.before}.`;
}

/** The terminal form. */
export function formatText(
  diff: TreeDiff,
  impact: Impact,
  labels: DiffLabels,
  paint: Painter = painter(false),
): string {
  if (isEmpty(diff)) return `${noChanges(labels)}\n`;
  const lines = [`clusterset diff ${labels.before} → ${labels.after}: ${headline(impact)}`, '', 'Impact:'];
  for (const l of summaryLines(impact.items)) lines.push(`  - ${l}`);
  // Every step and breaking change, numbered: a checklist that hides one cannot be followed.
  const a = impact.afterMerge;
  if (a.breaking.length > 0)
    lines.push('', 'Breaking:', ...a.breaking.map((l) => `  ${paint[MARK_STYLE['!']](`! ${l}`)}`));
  if (a.beforeMerge.length > 0) lines.push('', 'Before merge:', ...a.beforeMerge.map((l) => `  [ ] ${l}`));
  if (a.steps.length > 0) lines.push('', 'After merge:', ...a.steps.map((l, n) => `  ${n + 1}. [ ] ${l}`));
  for (const b of shown(diff)) {
    lines.push('', `${bundleTitle(b)}: ${countText(b)}`);
    for (const o of [...b.objects, ...visibleFiles(b)]) {
      const mark = MARK[o.change];
      lines.push(`  ${paint[MARK_STYLE[mark]](`${mark} ${objectTitle(o)}`)}${sharedMark(o)}`);
      for (const f of o.fields.slice(0, MAX_FIELDS)) lines.push(`      ${fieldLine(f)}`);
      if (o.fields.length > MAX_FIELDS) lines.push(`      … and ${o.fields.length - MAX_FIELDS} more fields`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The impact summary alone, for `synth --check`. */
export function formatSummaryText(diff: TreeDiff, impact: Impact): string {
  if (isEmpty(diff)) return '';
  return `${[`Impact (${headline(impact)}):`, ...summaryLines(impact.items).map((l) => `  - ${l}`)].join('\n')}\n`;
}

/** At most this many After merge steps are listed flat; more are folded, one section per run. */
const FLAT_STEPS = 8;

/** At most MAX_ITEMS_PER_CATEGORY lines, then one that says how many more `--format json` lists. */
function capped(lines: readonly string[], noun: string): string[] {
  if (lines.length <= MAX_ITEMS_PER_CATEGORY) return [...lines];
  return [
    ...lines.slice(0, MAX_ITEMS_PER_CATEGORY),
    `… and ${lines.length - MAX_ITEMS_PER_CATEGORY} more ${noun} (--format json lists them all)`,
  ];
}

/**
 * The "after merge" block: breaking changes first, then the manual steps as a numbered checklist,
 * every one of them (a checklist that hides a step cannot be followed). Past FLAT_STEPS, each run
 * of steps that belong together (AfterMerge.sections: a member before its first sync, delivery, a
 * member joining, the wait) is folded in a `<details>` titled with what it is about and its step
 * numbers, in order, so the comment stays short and nothing is hidden. Steps keep their `code` spans
 * (commands to copy); the rest is escaped.
 */
function afterMergeMarkdown(impact: Impact): string[] {
  const { beforeMerge, steps, sections } = impact.afterMerge;
  // One per Service whose ports change: a fleet-wide change lists hundreds, so these stay bounded.
  const breaking = capped(impact.afterMerge.breaking, 'breaking changes');
  const out: string[] = [];
  const withCode = (s: string): string =>
    s
      .split(/(`[^`]*`)/)
      .map((part, i) => (i % 2 === 1 ? part : md(part)))
      .join('');
  if (breaking.length > 0)
    out.push('#### Breaking', '', ...breaking.map((l) => `- :warning: ${withCode(l)}`), '');
  if (beforeMerge.length > 0)
    out.push('#### Before merge', '', ...beforeMerge.map((l) => `- [ ] ${withCode(l)}`), '');
  if (steps.length === 0) return out;
  const item = (n: number): string => `${n + 1}. [ ] ${withCode(steps[n]!)}`;
  if (steps.length <= FLAT_STEPS || sections.length < 2) {
    out.push('#### After merge', '', ...steps.map((_, n) => item(n)), '');
    return out;
  }
  out.push(
    `#### After merge: ${steps.length} steps, in order`,
    '',
    `_Folded by what they are about; open each in turn, top to bottom._`,
    '',
  );
  let first = 0;
  for (const sec of sections) {
    const range = sec.steps === 1 ? `step ${first + 1}` : `steps ${first + 1}–${first + sec.steps}`;
    out.push(
      '<details>',
      `<summary>${range}: ${md(sec.title)}</summary>`,
      '',
      ...Array.from({ length: sec.steps }, (_, i) => item(first + i)),
      '',
      '</details>',
      '',
    );
    first += sec.steps;
  }
  return out;
}

/** Markdown-escapes prose (impact sentences hold label selectors, paths and names). */
function md(s: string): string {
  return s.replace(/[\\`*_[\]<>|#~]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : `\\${c}`));
}

/** An inline code span that survives backticks in the value. */
function code(s: string): string {
  const t = s.replace(/`/g, 'ˋ');
  return `\`${t}\``;
}

/** `16,000,000`. */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** Work done drawing the picture, for tests that bound it. */
export interface PictureWork {
  /** Flows (exporter, importer, Service) built as objects. */
  flowsBuilt: number;
}

/**
 * Who exports what to whom, before and after: one edge per exporter and importer (every member
 * imports every exported Service), labelled with the Services; new flows thick, dropped ones dotted.
 * Drawn by the same renderer as `clusterset explain` (lib/explain/mermaid.ts), from the objects of
 * both sides rather than a plan. When the whole picture would be too big for a comment, only the
 * flows that change are drawn, and when even those are too many, none: a line says how many there
 * are. Flows are counted before any is built (flows.ts), so a fleet of tens of millions of flows
 * costs no more than its exports.
 */
export function mermaid(impact: Impact, work?: PictureWork): string {
  const fits = (c: FlowCount): boolean =>
    c.arrows <= MAX_GRAPH_EDGES && c.labelChars <= MAX_GRAPH_LABEL_CHARS;
  const all = countFlows(impact, 'all');
  let selection: FlowSelection = 'all';
  let note = '';
  if (!fits(all)) {
    const changed = countFlows(impact, 'changed');
    const flows = (c: FlowCount): string =>
      `${thousands(c.flows)} flows (a Service from one member to another) on ${thousands(c.arrows)} arrows`;
    if (changed.flows === 0)
      return `_Picture left out: the ClusterSet has ${flows(all)}, too many to draw, and none of them changes._`;
    if (!fits(changed))
      return `_Picture left out: ${flows(changed)} change, too many to draw (the ClusterSet has ${thousands(all.flows)} flows in all); the summary above lists the changes._`;
    selection = 'changed';
    note = `Only the ${thousands(changed.flows)} flows that change are drawn: the ClusterSet has ${flows(all)}, too many for one picture.`;
  }
  const drawn = buildFlows(impact, selection, () => {
    if (work) work.flowsBuilt++;
  });
  if (drawn.length === 0) return '_No Service flows between two different members._';
  const after = new Set(impact.membersAfter);
  const ids = new Set(drawn.flatMap((e) => [e.exporter, e.importer]));
  const clusters: GraphCluster[] = [...ids].sort().map((id) => ({
    id,
    ...(impact.networks[id] !== undefined ? { network: impact.networks[id] } : {}),
    leader: id === impact.leader,
    member: after.has(id),
  }));
  const graph = `\`\`\`mermaid\n${renderExportGraph(clusters, drawn)}\`\`\``;
  return note === '' ? graph : `${graph}\n\n_${md(note)}_`;
}

function detailsBlock(b: BundleDiff, maxChars: number): { text: string; shown: number; total: number } {
  const entries = [...b.objects, ...visibleFiles(b)];
  const head = `<details><summary><code>${bundleTitle(b)}</code>: ${countText(b)}</summary>\n\n`;
  const tail = '\n</details>\n';
  let body = '';
  let shown = 0;
  for (const o of entries) {
    const icon = o.change === 'added' ? '➕' : o.change === 'removed' ? '➖' : '✏️';
    const other = owner(o);
    const lines = [
      `- ${icon} ${code(objectTitle(o))}${other !== undefined ? ` _(shared with ${md(other)})_` : ''}`,
    ];
    for (const f of o.fields.slice(0, MAX_FIELDS)) lines.push(`  - ${code(fieldLine(f))}`);
    if (o.fields.length > MAX_FIELDS) lines.push(`  - … and ${o.fields.length - MAX_FIELDS} more fields`);
    const piece = `${lines.join('\n')}\n`;
    const cut = `- … ${entries.length - shown} more not shown\n`;
    if (head.length + body.length + piece.length + cut.length + tail.length > maxChars) {
      body += shown < entries.length ? `- … ${entries.length - shown} more not shown\n` : '';
      break;
    }
    body += piece;
    shown++;
  }
  return { text: head + body + tail, shown, total: entries.length };
}

/** The per-bundle table: a row per bundle, at most MAX_TABLE_ROWS, then one row for the rest. */
function bundleTable(bundles: readonly BundleDiff[]): string[] {
  const row = (name: string, c: { added: number; changed: number; removed: number }): string =>
    `| ${name} | ${c.added} | ${c.changed} | ${c.removed} |`;
  const rows = bundles.slice(0, MAX_TABLE_ROWS).map((b) => row(code(bundleTitle(b)), counts(b)));
  const rest = bundles.slice(MAX_TABLE_ROWS);
  if (rest.length > 0) {
    const sum = { added: 0, changed: 0, removed: 0 };
    for (const b of rest) for (const [k, n] of Object.entries(counts(b))) sum[k as keyof typeof sum] += n;
    rows.push(row(`… ${rest.length} more bundles (--format json lists them)`, sum));
  }
  return ['| Bundle | Added | Changed | Removed |', '| --- | ---: | ---: | ---: |', ...rows];
}

/**
 * The pull-request comment, at most `limit` characters (GitHub's by default). The summary, table and
 * picture are bounded (at most MAX_ITEMS_PER_CATEGORY lines per category, MAX_TABLE_ROWS rows, a
 * picture that fits or a line instead) and always kept; the details are cut to fit, bundle by
 * bundle, and the cut is said.
 */
export function formatMarkdown(
  diff: TreeDiff,
  impact: Impact,
  labels: DiffLabels,
  limit: number = GITHUB_COMMENT_LIMIT,
  warnings: readonly Diagnostic[] = [],
): string {
  const warned = warningsMarkdown(warnings);
  if (isEmpty(diff))
    return `### clusterset diff: no changes\n\n${md(noChanges(labels))}\n${warned.length > 0 ? `\n${warned.join('\n')}` : ''}`;
  const n = impact.touched.length;
  const head: string[] = [
    `### clusterset diff: ${n} of ${count(clustersEitherSide(impact), 'cluster')} touched` +
      (impact.delivery.length > 0
        ? ` (and delivery: ${impact.delivery.map((d) => `${d}/`).join(', ')})`
        : ''),
    '',
    `${md(labels.before)} → ${md(labels.after)}${n > 0 ? `: ${impact.touched.map(code).join(', ')}` : ''}`,
    '',
    '#### Impact',
    '',
    ...summaryLines(impact.items).map((l) => `- ${md(l)}`),
    '',
    ...warned,
    ...afterMergeMarkdown(impact),
    '#### Per bundle',
    '',
    ...bundleTable(shown(diff)),
    '',
  ];
  if (impact.exports.length > 0)
    head.push(
      '#### Who exports what to whom (thick: new flows, dotted: dropped ones)',
      '',
      mermaid(impact),
      '',
    );
  head.push('#### Details', '', '');
  let text = head.join('\n');
  // Room kept for the note that says what was cut: its fixed words and at most five bundle names.
  const reserve = 800;
  const cut: string[] = [];
  let partial: string | undefined;
  for (const b of shown(diff)) {
    const room = limit - text.length - reserve;
    if (cut.length > 0 || room <= 200) {
      cut.push(bundleTitle(b));
      continue;
    }
    const block = detailsBlock(b, room);
    text += `${block.text}\n`;
    if (block.shown < block.total)
      partial = `${bundleTitle(b)} (${block.total - block.shown} of ${block.total} entries)`;
  }
  if (cut.length > 0 || partial !== undefined) {
    const what = [
      ...(partial !== undefined ? [`part of ${partial}`] : []),
      ...(cut.length > 0
        ? [`${count(cut.length, 'bundle')} (${cut.slice(0, 5).join(', ')}${cut.length > 5 ? ', …' : ''})`]
        : []),
    ];
    const note = `_Details cut to stay under GitHub's ${thousands(GITHUB_COMMENT_LIMIT)}-character comment limit: ${md(what.join(' and '))} not shown. Run \`clusterset diff\` for everything._\n`;
    text += note.length <= limit - text.length ? note : '';
  }
  return text;
}

/**
 * The JSON form: `version` 1, the two labels, `changed`, the ClusterSet facts (`leader`, `clusters`,
 * `membersBefore`, `membersAfter`, `networks`), `touched` cluster IDs and `delivery` folders, the `impact` items
 * (`category`, `text`, `clusters` whose bundles change, `reaches`: the clusters the text names),
 * `afterMerge` (`beforeMerge[]`, `steps[]`, `sections[]` of `title`, `cluster` and `steps`, `breaking[]`), `exports` (`service`, `exporters[]` of `cluster` and `change`),
 * and `bundles` with their `objects` (`change`, `group`, `kind`, `namespace`, `name`, `file`,
 * `sharedWith`: who else owns the object, or null when it is clusterset's alone, `fields[]` of
 * `path`, `op`, `before`, `after`) and other `files`; then, only when the model has warnings,
 * `warnings` (`rule`, `path`, `message`, `fix`). Keys in this order, always.
 */
export function formatJson(
  diff: TreeDiff,
  impact: Impact,
  labels: DiffLabels,
  warnings: readonly Diagnostic[] = [],
): string {
  const doc = {
    version: 1,
    before: labels.before,
    after: labels.after,
    changed: !isEmpty(diff),
    leader: impact.leader ?? null,
    clusters: impact.clusters,
    membersBefore: impact.membersBefore,
    membersAfter: impact.membersAfter,
    networks: impact.networks,
    touched: impact.touched,
    delivery: impact.delivery,
    impact: impact.items,
    afterMerge: impact.afterMerge,
    exports: impact.exports,
    bundles: diff.bundles.map((b) => ({
      bundle: b.bundle,
      type: b.type,
      cluster: b.cluster ?? null,
      presence: b.presence,
      counts: counts(b),
      objects: b.objects.map((o) => ({
        change: o.change,
        group: o.group,
        kind: o.kind,
        namespace: o.namespace ?? null,
        name: o.name,
        file: o.file,
        sharedWith: owner(o) ?? null,
        fields: o.fields.map(jsonField),
      })),
      files: b.files.map((f) => ({ change: f.change, file: f.file, fields: f.fields.map(jsonField) })),
    })),
    ...(warnings.length > 0
      ? { warnings: warnings.map(({ rule, path, message, fix }) => ({ rule, path, message, fix })) }
      : {}),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function jsonField(f: FieldChange) {
  return { path: f.path, op: f.op, before: f.before ?? null, after: f.after ?? null };
}

/**
 * One of the three forms. The model's `warnings` go into the markdown comment and the JSON; the
 * text form leaves them to the report on stderr, which the CLI prints in every format.
 */
export function formatDiff(
  format: DiffFormat,
  diff: TreeDiff,
  impact: Impact,
  labels: DiffLabels,
  paint?: Painter,
  warnings: readonly Diagnostic[] = [],
): string {
  return format === 'json'
    ? formatJson(diff, impact, labels, warnings)
    : format === 'markdown'
      ? formatMarkdown(diff, impact, labels, GITHUB_COMMENT_LIMIT, warnings)
      : formatText(diff, impact, labels, paint);
}
