/**
 * What every rule file shares: the Rule row, the report callback and the name judgements.
 */
import type { Diagnostic, Severity } from '../diagnostics';
import type { ClusterProps, ClusterSetProps } from '../model';
import { quote, str } from './util';

export interface Rule {
  /** Stable kebab-case ID, quoted in every diagnostic the rule produces. */
  readonly id: string;
  /** What the rule checks. */
  readonly summary: string;
  /** Which runtime behaviour of Antrea the rule prevents. */
  readonly prevents: string;
  /**
   * `error` for what Antrea, Kubernetes or the delivery tools refuse or silently get wrong;
   * `warning` for what is legal but almost always a mistake (reported, never stops a command but
   * under `--strict`).
   */
  readonly severity: Severity;
  check(model: ClusterSetProps): Diagnostic[];
}

export type Report = (path: string, message: string, fix: string) => void;

/** A rule of `severity`: `body` reports its findings, each a diagnostic of that severity. */
function ruleOf(severity: Severity) {
  return (
    id: string,
    summary: string,
    prevents: string,
    body: (m: ClusterSetProps, report: Report) => void,
  ): Rule => ({
    id,
    summary,
    prevents,
    severity,
    check(m) {
      const out: Diagnostic[] = [];
      body(m, (path, message, fix) =>
        out.push({ rule: id, path, message, fix, ...(severity === 'warning' ? { severity } : {}) }),
      );
      return out;
    },
  });
}

/** A rule whose findings are errors. */
export const rule = ruleOf('error');

/**
 * A rule whose findings are warnings: legal models that almost always carry a mistake. `prevents`
 * says what goes wrong at run time when it is one.
 */
export const warning = ruleOf('warning');

// ---- shared judgements ----

export const LABEL_WORDS = "lowercase letters, digits and '-', starting and ending with a letter or digit";

/** What is wrong with a name that must match `format` and be at most `max` long, if anything. */
export function nameProblem(name: string, max: number, format: RegExp, words: string): string | undefined {
  if (name.length > max) return `is ${name.length} characters long, more than ${max}`;
  if (!format.test(name)) return `is not made of ${words}`;
  return undefined;
}

/** A lowercase, dash-separated rewrite of an invalid name, cut to `max`. */
export function suggestName(name: string, max: number): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .slice(0, max)
      .replace(/^-+|-+$/g, '') || 'a-valid-name'
  );
}

export function checkName(
  report: Report,
  path: string,
  value: unknown,
  what: string,
  max: number,
  format: RegExp,
  words: string,
): void {
  const name = str(value);
  if (name === undefined) return;
  const problem = nameProblem(name, max, format, words);
  if (problem) {
    report(
      path,
      `${what} ${quote(name)} ${problem} (allowed: ${words}, at most ${max})`,
      `rename it, e.g. to ${quote(suggestName(name, max))}`,
    );
  }
}

export function stretchedEnabled(c: ClusterProps): boolean {
  return c.enableStretchedNetworkPolicy === true;
}

export function serviceKey(s: { namespace?: unknown; name?: unknown }): string | undefined {
  const ns = str(s.namespace);
  const name = str(s.name);
  return ns === undefined || name === undefined ? undefined : `${ns}/${name}`;
}
