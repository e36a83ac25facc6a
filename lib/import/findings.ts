/**
 * What `clusterset import` hands on, below everything that makes or reads it: the findings of the
 * report, classed by what they mean for the migration (`blocker`, `change`, `info`; report.ts says
 * what each means) and kept in one order; the Notes every step of the import (model/, compare.ts,
 * check.ts) adds its assumptions and findings to; and the Imported result, the model with its
 * comments and findings, that emit.ts and report.ts print. Pure, types and small helpers only.
 */
import type { ClusterSetProps } from '../model';

export type FindingClass = 'blocker' | 'change' | 'info';

export interface Finding {
  readonly class: FindingClass;
  /** A stable identifier of the kind of finding, e.g. `import-deleted`. */
  readonly code: string;
  readonly message: string;
  /** A model path (`clusters[1].gateway`) or a live object and field (`ResourceImport ns/x spec.name`). */
  readonly path?: string;
  readonly fix?: string;
}

export const CLASS_ORDER: readonly FindingClass[] = ['blocker', 'change', 'info'];

/** Findings in one order: class, code, path, message. */
export function sortFindings(fs: readonly Finding[]): Finding[] {
  const c = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...fs].sort(
    (a, b) =>
      CLASS_ORDER.indexOf(a.class) - CLASS_ORDER.indexOf(b.class) ||
      c(a.code, b.code) ||
      c(a.path ?? '', b.path ?? '') ||
      c(a.message, b.message),
  );
}

export interface Imported {
  readonly model: ClusterSetProps;
  /** Model path (as the compiler's diagnostics spell paths, e.g. `clusters[1].gateway`) → comment lines: each assumption made, where it came from. */
  readonly comments: ReadonlyMap<string, readonly string[]>;
  readonly findings: readonly Finding[];
}

/** The assumptions and findings gathered while reading. */
export class Notes {
  readonly comments = new Map<string, string[]>();
  readonly findings: Finding[] = [];
  comment(path: string, ...lines: string[]): void {
    this.comments.set(path, [...(this.comments.get(path) ?? []), ...lines]);
  }
  add(f: Finding): void {
    this.findings.push(f);
  }
}
