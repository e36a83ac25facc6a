/**
 * Diagnostics: what the checks report. Each one names a path into the model (in the model's own
 * property names, e.g. `clusters[2].id`), says what is wrong with the value received, and how to fix
 * it. All diagnostics are collected and reported at once.
 */
import { count } from './plural';

/**
 * `error`: the model or its output is wrong, and nothing is written. `warning`: legal, but almost
 * always a mistake; reported in every format and in the PR comment, never stops a command, unless
 * `--strict` makes it an error.
 */
export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /** ID of the rule that produced it, e.g. `cluster-id-format`; `schema` for shape errors. */
  readonly rule: string;
  /** Path into the model, e.g. `services[3].ports[1].name`; `` for the whole model. */
  readonly path: string;
  /** What is wrong, in the user's terms, quoting the value received. */
  readonly message: string;
  /** How to fix it. */
  readonly fix: string;
  /** Absent for an error: only warnings say so (`severityOf` reads it). */
  readonly severity?: Severity;
}

export function severityOf(d: Diagnostic): Severity {
  return d.severity ?? 'error';
}

export function isWarning(d: Diagnostic): boolean {
  return d.severity === 'warning';
}

/** The diagnostics that stop a command, and the warnings, each in the order given. */
export function bySeverity(ds: readonly Diagnostic[]): {
  readonly errors: Diagnostic[];
  readonly warnings: Diagnostic[];
} {
  return { errors: ds.filter((d) => !isWarning(d)), warnings: ds.filter(isWarning) };
}

/**
 * `services[3].name: "x" is too long (…) — shorten it [service-name-length]`; a warning starts
 * with `warning: `.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const tag = isWarning(d) ? 'warning: ' : '';
  return `${tag}${cut(d.path, 300) || '(model)'}: ${cut(d.message, 2000)}; fix: ${cut(d.fix, 1000)} [${d.rule}]`;
}

/** A backstop for text built from model values: never print more than `max` characters of it. */
function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 40)}... (${s.length} characters in all)`;
}

/** How many diagnostics of one rule a report shows; the rest are counted. */
export const MAX_PER_RULE = 20;

/** What a report shows: at most `perRule` diagnostics of each rule, in order, and the count of the rest. */
export interface Bounded {
  readonly shown: readonly Diagnostic[];
  /** Per rule with more than `perRule`, how many are not shown, by rule ID. */
  readonly omitted: readonly { readonly rule: string; readonly count: number }[];
}

export function bounded(ds: readonly Diagnostic[], perRule = MAX_PER_RULE): Bounded {
  const seen = new Map<string, number>();
  const shown: Diagnostic[] = [];
  for (const d of ds) {
    const n = (seen.get(d.rule) ?? 0) + 1;
    seen.set(d.rule, n);
    if (n <= perRule) shown.push(d);
  }
  const omitted = [...seen]
    .filter(([, n]) => n > perRule)
    .map(([rule, n]) => ({ rule, count: n - perRule }))
    .sort((a, b) => cmp(a.rule, b.rule));
  return { shown, omitted };
}

/** The line that stands for a rule's diagnostics left out: `... and 99,980 more [rule]`. */
export function formatOmitted(o: { readonly rule: string; readonly count: number }): string {
  return `... and ${o.count.toLocaleString('en-US')} more of the same rule, not shown [${o.rule}]`;
}

/** Sorts diagnostics by path, then rule, then message, so reports are stable. */
export function sortDiagnostics(ds: readonly Diagnostic[]): Diagnostic[] {
  return [...ds].sort((a, b) => cmp(a.path, b.path) || cmp(a.rule, b.rule) || cmp(a.message, b.message));
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Thrown by the pipeline when the model or the rendered output is invalid. */
export class DiagnosticsError extends Error {
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const b = bounded(diagnostics);
    super(
      `${count(diagnostics.length, 'problem')}:\n` +
        [...b.shown.map(formatDiagnostic), ...b.omitted.map(formatOmitted)].map((l) => `  ${l}`).join('\n'),
    );
    this.name = 'DiagnosticsError';
  }
}
