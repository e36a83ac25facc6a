/**
 * Loading and checking the model for every command, so that each one reports a broken model the
 * same way: `clusterset: cannot load …`, or every diagnostic at once with what the command did not
 * do because of them; exit 2 either way (EXIT_MODEL).
 *
 * Formats: `text` (stderr), `json` (one object on stdout: `{ok, total, diagnostics: [{rule, path,
 * message, fix}], omitted: [{rule, count}]}`), `github` (the text on stderr, plus one `::error`
 * workflow command per diagnostic on stdout, which GitHub Actions shows as annotations on the
 * model file). Each shows at most MAX_PER_RULE diagnostics of a rule, and counts the rest.
 */
import type { CompileResult } from '../compile';
import type * as Compile from '../compile';
import type * as Check from '../check';
import type { Diagnostic } from '../diagnostics';
import { bounded, formatDiagnostic, formatOmitted } from '../diagnostics';
import { loadModelFile, ModelSettleError } from '../load';
import type { ClusterSetProps } from '../model';
import type { Plan } from '../plan';
import { plan as makePlan } from '../plan';
import { count } from '../plural';
import { paintFor } from '../colour';
import type { SourceLocation } from '../source-locations';
import type * as SourceLocations from '../source-locations';

/** Exit status of a model that cannot be loaded or has problems. */
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
}

/** The loaded model, or undefined after reporting why it cannot be loaded. */
export async function loadReported(file: string, o: ModelOptions): Promise<{ input: unknown } | undefined> {
  try {
    return { input: await loadModelFile(file) };
  } catch (e) {
    const message = (e as Error).message;
    if (o.format === 'json') {
      const d: Diagnostic = { rule: 'model-load', path: '', message, fix: 'make the model file load' };
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

/** `::error file=<model>,title=<rule>::<text>`: an annotation on the model file. */
export function annotation(file: string, rule: string, text: string, at?: SourceLocation): string {
  const where = at ? `,line=${at.line},col=${at.column}` : '';
  return `::error file=${escapeProperty(file)}${where},title=${escapeProperty(rule)}::${escapeData(text)}`;
}

/**
 * Reports the model's diagnostics in the chosen format; exit status EXIT_MODEL. Every format shows
 * at most MAX_PER_RULE of each rule and counts the rest (json: `total` and `omitted`), so a model
 * with 100,000 mistakes of one kind gets a readable report, not megabytes.
 */
export function reportProblems(file: string, ds: readonly Diagnostic[], o: ModelOptions): void {
  process.exitCode = EXIT_MODEL;
  const { shown, omitted } = bounded(ds);
  // Where each shown value is written, for a .ts/.js model; loaded only when there are problems.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { locateModelPaths } = require('../source-locations') as typeof SourceLocations;
  const where = locateModelPaths(file, [...new Set(shown.map((d) => d.path))]);
  if (o.format === 'json') {
    const located = shown.map((d) => {
      const at = where.get(d.path);
      return at ? { ...d, location: { file: at.file, line: at.line, column: at.column } } : d;
    });
    process.stdout.write(
      `${JSON.stringify({ ok: false, total: ds.length, diagnostics: located, omitted })}\n`,
    );
    return;
  }
  const prefix = (d: Diagnostic): string => {
    const at = where.get(d.path);
    return at ? `${at.file}:${at.line}:${at.column}: ` : '';
  };
  // Colour on a terminal only (colour.ts): the headline red, each rule ID dim.
  const paint = paintFor(process.stderr);
  const headline = paint.red(paint.bold(`${count(ds.length, 'problem')} in ${file}`));
  process.stderr.write(`clusterset: ${headline}; ${o.consequence}:\n`);
  const lines = [...shown.map((d) => prefix(d) + formatDiagnostic(d)), ...omitted.map(formatOmitted)];
  for (const l of lines)
    process.stderr.write(`  ${l.replace(/ (\[[^\]]+\])$/, (_, r: string) => ` ${paint.dim(r)}`)}\n`);
  if (o.format === 'github') {
    for (const d of shown)
      process.stdout.write(`${annotation(file, d.rule, formatDiagnostic(d), where.get(d.path))}\n`);
    for (const x of omitted) process.stdout.write(`${annotation(file, x.rule, formatOmitted(x))}\n`);
  }
}

/** The compiled model, or undefined after reporting why there is none. */
export async function compileModelFile(file: string, o: ModelOptions): Promise<CompileResult | undefined> {
  const loaded = await loadReported(file, o);
  if (!loaded) return undefined;
  // Loaded when a command needs it, so that --help and light commands start fast.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { compile } = require('../compile') as typeof Compile;
  const r = compile(loaded.input, o.onStage);
  if (r.diagnostics.length === 0) return r;
  reportProblems(file, r.diagnostics, o);
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
  if (ds.length === 0) return makePlan(loaded.input as ClusterSetProps);
  reportProblems(file, ds, o);
  return undefined;
}
