/**
 * Loading and checking the model for every command, so that each one reports a broken model the
 * same way: `clusterset: cannot load …`, or every diagnostic at once with what the command did not
 * do because of them; exit 2 either way (EXIT_MODEL).
 *
 * Warnings (severity `warning`: legal, almost always a mistake) never stop a command: they are
 * reported the same way, headed as warnings, and the command goes on; with `--strict` (validate,
 * synth, diff) they count as errors, exit 2.
 *
 * Formats: `text` (stderr), `json` (one object on stdout: `{ok, total, diagnostics: [{rule, path,
 * message, fix, severity, location?}], omitted: [{rule, count}]}`; a command that succeeds lists its
 * warnings in its own object's `diagnostics`), `github` (the text on stderr, plus one `::error` or
 * `::warning` workflow command per diagnostic on stdout, which GitHub Actions shows as annotations
 * on the model file). Each shows at most MAX_PER_RULE diagnostics of a rule, and counts the rest.
 */
import type { CompileResult } from '../compile';
import type * as Compile from '../compile';
import type * as Check from '../check';
import type { Diagnostic } from '../diagnostics';
import { bounded, bySeverity, formatDiagnostic, formatOmitted, isWarning, severityOf } from '../diagnostics';
import { loadModelFile, ModelSettleError } from '../load';
import type { ClusterSetProps } from '../model';
import type { Plan } from '../plan';
import { plan as makePlan } from '../plan';
import { count } from '../plural';
import { paintFor } from '../colour';
import type { SourceLocation } from '../source-locations';
import type * as SourceLocations from '../source-locations';

/** Exit status of a model that cannot be loaded or has problems (warnings too, under `--strict`). */
export const EXIT_MODEL = 2;

export type ReportFormat = 'text' | 'json' | 'github';
export const REPORT_FORMATS: readonly ReportFormat[] = ['text', 'json', 'github'];

export interface ModelOptions {
  /** What the command did not do, e.g. "nothing was written". */
  readonly consequence: string;
  /** How diagnostics are reported. @default 'text' */
  readonly format?: ReportFormat;
  /** Called at each compile stage (for --progress). */
  readonly onStage?: (stage: string) => void;
  /** Warnings are errors (`--strict`): they stop the command, exit EXIT_MODEL. @default false */
  readonly strict?: boolean;
}

/** The `--strict` option of validate, synth and diff. */
export const STRICT_OPTION = {
  type: 'boolean',
  default: false,
  describe: 'treat warnings (legal, but almost always a mistake) as errors: exit 2, as for any problem',
} as const;

/** The loaded model, or undefined after reporting why it cannot be loaded. */
export async function loadReported(file: string, o: ModelOptions): Promise<{ input: unknown } | undefined> {
  try {
    return { input: await loadModelFile(file) };
  } catch (e) {
    const message = (e as Error).message;
    if (o.format === 'json') {
      const d = { rule: 'model-load', path: '', message, fix: 'make the model file load', severity: 'error' };
      process.stdout.write(`${JSON.stringify({ ok: false, diagnostics: [d] })}\n`);
    } else {
      process.stderr.write(`clusterset: cannot load ${file}: ${message}\n`);
      if (o.format === 'github') process.stdout.write(`${annotation(file, 'model-load', message)}\n`);
    }
    process.exitCode = EXIT_MODEL;
    // A model that never settled may have left timers or sockets running that would keep the
    // process alive forever: end it now that the report is written (stdout and stderr are
    // synchronous on files and pipes).
    if ((e as Error).cause instanceof ModelSettleError) process.exit(EXIT_MODEL);
    return undefined;
  }
}

/** GitHub's workflow-command escaping: `%`, CR and LF in data; also `:` and `,` in properties. */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `::error file=<model>,title=<rule>::<text>`: an annotation on the model file; `level` `warning`
 * makes it `::warning`.
 */
export function annotation(
  file: string,
  rule: string,
  text: string,
  at?: SourceLocation,
  level: 'error' | 'warning' = 'error',
): string {
  const where = at ? `,line=${at.line},col=${at.column}` : '';
  return `::${level} file=${escapeProperty(file)}${where},title=${escapeProperty(rule)}::${escapeData(text)}`;
}

/** What a report shows: at most MAX_PER_RULE of each rule (errors first), each with its location. */
interface Shown {
  readonly total: number;
  readonly shown: readonly Diagnostic[];
  readonly omitted: readonly { readonly rule: string; readonly count: number }[];
  readonly where: ReadonlyMap<string, SourceLocation>;
}

function show(file: string, ds: readonly Diagnostic[]): Shown {
  const { errors, warnings } = bySeverity(ds);
  const { shown, omitted } = bounded([...errors, ...warnings]);
  // Where each shown value is written; loaded only when there is something to report.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { locateModelPaths } = require('../source-locations') as typeof SourceLocations;
  const where = locateModelPaths(file, [...new Set(shown.map((d) => d.path))]);
  return { total: ds.length, shown, omitted, where };
}

/** The diagnostics as the json format lists them: severity always said, the location when known. */
function jsonList(s: Shown): object[] {
  return s.shown.map((d) => {
    const at = s.where.get(d.path);
    const { rule, path, message, fix } = d;
    const base = { rule, path, message, fix, severity: severityOf(d) };
    return at ? { ...base, location: { file: at.file, line: at.line, column: at.column } } : base;
  });
}

/**
 * The warnings of a model that succeeds, for a command's own json object: `diagnostics`, and
 * `omitted` when some were left out.
 */
export function jsonWarnings(
  file: string,
  warnings: readonly Diagnostic[],
): { diagnostics: object[]; omitted?: Shown['omitted'] } {
  if (warnings.length === 0) return { diagnostics: [] };
  const s = show(file, warnings);
  return { diagnostics: jsonList(s), ...(s.omitted.length > 0 ? { omitted: s.omitted } : {}) };
}

/** The report's lines on stderr, and for github its annotations on stdout. */
function writeReport(file: string, s: Shown, headline: string, o: ModelOptions): void {
  const prefix = (d: Diagnostic): string => {
    const at = s.where.get(d.path);
    return at ? `${at.file}:${at.line}:${at.column}: ` : '';
  };
  process.stderr.write(`clusterset: ${headline}:\n`);
  // Colour on a terminal only (colour.ts): each rule ID dim.
  const paint = paintFor(process.stderr);
  const lines = [...s.shown.map((d) => prefix(d) + formatDiagnostic(d)), ...s.omitted.map(formatOmitted)];
  for (const l of lines)
    process.stderr.write(`  ${l.replace(/ (\[[^\]]+\])$/, (_, r: string) => ` ${paint.dim(r)}`)}\n`);
  if (o.format === 'github') {
    const level = (d: Diagnostic) => (isWarning(d) && !o.strict ? 'warning' : 'error');
    for (const d of s.shown)
      process.stdout.write(
        `${annotation(file, d.rule, formatDiagnostic(d), s.where.get(d.path), level(d))}\n`,
      );
    for (const x of s.omitted) {
      const warned = !o.strict && s.shown.some((d) => d.rule === x.rule && isWarning(d));
      process.stdout.write(
        `${annotation(file, x.rule, formatOmitted(x), undefined, warned ? 'warning' : 'error')}\n`,
      );
    }
  }
}

/**
 * Reports the model's diagnostics in the chosen format; exit status EXIT_MODEL. `ds` holds the
 * errors and the warnings; errors come first. Every format shows at most MAX_PER_RULE of each rule
 * and counts the rest (json: `total` and `omitted`), so a model with 100,000 mistakes of one kind
 * gets a readable report, not megabytes.
 */
export function reportProblems(file: string, ds: readonly Diagnostic[], o: ModelOptions): void {
  process.exitCode = EXIT_MODEL;
  const s = show(file, ds);
  if (o.format === 'json') {
    process.stdout.write(
      `${JSON.stringify({ ok: false, total: s.total, diagnostics: jsonList(s), omitted: s.omitted })}\n`,
    );
    return;
  }
  const w = ds.filter(isWarning).length;
  const e = ds.length - w;
  const paint = paintFor(process.stderr);
  const what = o.strict
    ? `${count(ds.length, 'problem')}${w > 0 ? ` (${count(w, 'warning')}, ${w === 1 ? 'an error' : 'errors'} under --strict)` : ''}`
    : `${count(e, 'problem')}${w > 0 ? ` and ${count(w, 'warning')}` : ''}`;
  // The headline red on a terminal.
  writeReport(file, s, `${paint.red(paint.bold(`${what} in ${file}`))}; ${o.consequence}`, o);
}

/**
 * Reports the warnings of a model that has no errors, in text and github formats (json lists them in
 * the command's own object: jsonWarnings); the command goes on, its exit status untouched.
 */
export function reportWarnings(file: string, warnings: readonly Diagnostic[], o: ModelOptions): void {
  if (warnings.length === 0 || o.format === 'json') return;
  const paint = paintFor(process.stderr);
  const headline = paint.yellow(paint.bold(`${count(warnings.length, 'warning')} in ${file}`));
  writeReport(
    file,
    show(file, warnings),
    `${headline} (legal, but almost always a mistake; --strict makes warnings errors)`,
    o,
  );
}

/** The compiled model, or undefined after reporting why there is none. */
export async function compileModelFile(file: string, o: ModelOptions): Promise<CompileResult | undefined> {
  const loaded = await loadReported(file, o);
  if (!loaded) return undefined;
  // Loaded when a command needs it, so that --help and light commands start fast.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { compile } = require('../compile') as typeof Compile;
  const r = compile(loaded.input, o.onStage);
  if (r.diagnostics.length === 0 && (r.warnings.length === 0 || !o.strict)) {
    reportWarnings(file, r.warnings, o);
    return r;
  }
  reportProblems(file, [...r.diagnostics, ...r.warnings], o);
  return undefined;
}

/**
 * The checked model's plan without rendering, or undefined after reporting why there is none: for
 * commands that explain the model rather than its output.
 */
export async function planModelFile(file: string, o: ModelOptions): Promise<Plan | undefined> {
  const loaded = await loadReported(file, o);
  if (!loaded) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { checkModel } = require('../check') as typeof Check;
  const ds = checkModel(loaded.input);
  const { errors, warnings } = bySeverity(ds);
  if (errors.length === 0 && (warnings.length === 0 || !o.strict)) {
    reportWarnings(file, warnings, o);
    return makePlan(loaded.input as ClusterSetProps);
  }
  reportProblems(file, ds, o);
  return undefined;
}
