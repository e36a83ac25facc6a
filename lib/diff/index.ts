/**
 * `clusterset diff` as a library: a semantic diff of two out/ trees (`diffTrees`), its impact in the
 * model's terms (`impact`), and three output forms. Pure: callers read the trees (from disk, from a
 * git revision, from `compile`) and print the result.
 */
export type { BundleDiff, DiffObject, FieldChange, FileChange, ObjectChange, TreeDiff } from './tree';
export { diffTrees, diffObjects } from './tree';
export type { ExporterChange, ExportedService, Impact } from './impact';
export { impact } from './impact';
export type { ImpactCategory, ImpactItem } from './impact/summary';
export { IMPACT_CATEGORIES } from './impact/summary';
export type { DiffFormat, DiffLabels } from './format';
export {
  GITHUB_COMMENT_LIMIT,
  fieldLine,
  formatDiff,
  formatJson,
  formatMarkdown,
  formatSummaryText,
  formatText,
  isEmpty,
  mermaid,
} from './format';
