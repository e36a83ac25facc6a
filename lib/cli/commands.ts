/**
 * Every command of the CLI: synth and validate (here), diff, explain, init, status, import, token,
 * reconcile, restart-member-controller, image and version (completion is main.ts's). main.ts loads this module
 * for every command but the two the image runs (`reconcile`, `restart-member-controller`) and the
 * light ones (`image`, `version`, `completion`), which need none of the compiler's modules.
 */
import * as path from 'node:path';
import type { Argv } from 'yargs';
import type { CompileResult } from '../compile';
import { diffCommand, staleSummary } from './diff';
import { explainCommand } from './explain';
import { imageCommand } from './image';
import { importCommand } from './import';
import { initCommand } from './init';
import { reconcileCommand } from './reconcile';
import { restartCommand } from './restart';
import { statusCommand } from './status';
import { tokenCommand } from './token';
import { versionCommand } from './version';
import {
  REPORT_FORMATS,
  STRICT_OPTION,
  annotation,
  compileModelFile,
  jsonWarnings,
  loadReported,
  reportProblems,
  reportWarnings,
  type ReportFormat,
} from './model';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type * as Synth from '../synth';
import { faultPoint, planWrite } from './write';
import { count } from '../plural';

const FORMAT_OPTION = {
  choices: REPORT_FORMATS,
  default: 'text' as ReportFormat,
  describe: 'how problems are reported: text, json (stdout) or github (annotations on stdout)',
} as const;

function progress(enabled: boolean): (stage: string) => void {
  const t0 = performance.now();
  return (stage) => {
    if (enabled) process.stderr.write(`  ${((performance.now() - t0) / 1000).toFixed(2)}s ${stage}…\n`);
  };
}

/** At most this many GitHub annotations for the files of a stale out/; the rest are counted. */
const MAX_FILE_ANNOTATIONS = 20;

/**
 * `synth --check`: out/ against what the model renders, in the chosen format; exit 1 when it is
 * stale or holds what an interrupted synth left. Files are `added` (rendered, not in out/),
 * `changed` or `removed` (in out/, no longer rendered).
 */
function reportCheck(
  model: string,
  shown: string,
  outDir: string,
  r: CompileResult,
  format: ReportFormat,
): void {
  const p = planWrite(outDir, r.files);
  const added = p.write.filter((f) => !fs.existsSync(path.join(outDir, f)));
  const changed = p.write.filter((f) => fs.existsSync(path.join(outDir, f)));
  const removed = p.prune;
  const stale = added.length + changed.length + removed.length > 0;
  const ok = p.strays.length === 0 && !stale;
  if (!ok) process.exitCode = 1;
  if (format === 'json') {
    const files = { added, changed, removed, unchanged: p.unchanged.length };
    process.stdout.write(
      `${JSON.stringify({ ok, ...jsonWarnings(model, r.warnings), interrupted: p.strays, files })}\n`,
    );
    return;
  }
  const notes: { file: string; text: string }[] = [];
  if (p.strays.length > 0) {
    const text =
      `${shown}/ holds what an interrupted synth left (${p.strays.join(', ')}): ` +
      'run `npm run synth` to complete or drop it, and commit the result.';
    process.stderr.write(`clusterset: ${text}\n`);
    notes.push({ file: shown, text });
  } else if (stale) {
    process.stderr.write(`clusterset: ${shown}/ is stale: run \`npm run synth\` and commit the result.\n`);
    process.stderr.write(staleSummary(outDir, r.files));
    const lists: [string, readonly string[], string][] = [
      ['added:  ', added, 'the model renders this file; out/ does not have it'],
      ['changed:', changed, 'the model renders this file differently'],
      ['removed:', removed, 'the model no longer renders this file'],
    ];
    for (const [label, files, why] of lists)
      for (const f of files) {
        process.stderr.write(`  ${label} ${f}\n`);
        notes.push({
          file: path.join(shown, f),
          text: `${why}: run \`npm run synth\` and commit the result`,
        });
      }
  } else {
    process.stdout.write(`${shown}/ is up to date (${summary(r)}, ${count(p.unchanged.length, 'file')}).\n`);
  }
  if (format === 'github') {
    for (const n of notes.slice(0, MAX_FILE_ANNOTATIONS))
      process.stdout.write(`${annotation(n.file, 'out-stale', n.text)}\n`);
    if (notes.length > MAX_FILE_ANNOTATIONS)
      process.stdout.write(
        `${annotation(shown, 'out-stale', `... and ${count(notes.length - MAX_FILE_ANNOTATIONS, 'more file')} not up to date`)}\n`,
      );
  }
}

/** The signals a person or a supervisor stops synth with; each exits 128 + its number. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Makes SIGINT, SIGTERM and SIGHUP leave out/ old or new. Node runs a signal's handler only between
 * synchronous stretches of code, and the write is one (lib/cli/write.ts): a signal that arrives
 * while it runs is handled once it has finished, out/ new; one that arrives before it, at the
 * latest at `yieldForSignals`, ends synth with out/ untouched. The handlers stay until the process
 * exits: removed right after the write, they would drop a signal that came during it.
 */
function stopOnSignals(shown: string, written: () => boolean): void {
  const stop = (signal: NodeJS.Signals): void => {
    process.stderr.write(
      `clusterset: stopped by ${signal}; ${written() ? `${shown}/ was written in full first` : `nothing was written to ${shown}/`}.\n`,
    );
    process.exit(128 + os.constants.signals[signal]);
  };
  for (const s of STOP_SIGNALS) process.on(s, stop);
}

/**
 * Lets the handler of a signal that arrived during synchronous code run. Two turns of the event loop:
 * the first may end before libuv polls, the second starts after its poll, where signals are read.
 */
async function yieldForSignals(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
}

function summary(r: CompileResult): string {
  const objects = [...r.objectCounts.values()].reduce((a, b) => a + b, 0);
  const delivery = [...(r.delivery?.values() ?? [])].reduce((a, b) => a + b.length, 0);
  return `${count(r.objectCounts.size, 'cluster')}, ${count(objects, 'object')}${delivery > 0 ? ` (+${count(delivery, 'delivery object')})` : ''}`;
}

/** Registers every command on `y` (which has the global `--progress` option). */
export function withCommands(y: Argv<{ progress: boolean }>) {
  return y
    .command(
      'synth [model]',
      'render the ClusterSet into one bundle per cluster',
      (y) =>
        y
          .positional('model', {
            type: 'string',
            default: 'clusterset.ts',
            describe: 'model file (.ts, .js, .json, .yaml)',
          })
          .option('out', { type: 'string', default: 'out', describe: 'output directory' })
          .option('check', {
            type: 'boolean',
            default: false,
            describe: 'write nothing; exit 1 if the output directory is stale',
          })
          .option('force', {
            type: 'boolean',
            default: false,
            describe: 'compile and compare every file even when out/ is up to date with the model',
          })
          .option('format', FORMAT_OPTION)
          .option('strict', STRICT_OPTION)
          .example('$0 synth', 'render clusterset.ts into out/')
          .example('$0 synth --check', 'in CI: exit 1 when out/ is not what the model renders')
          .example('$0 synth --format github', 'in GitHub Actions: model problems as annotations'),
      async (a) => {
        const format = a.format as ReportFormat;
        const outDir = path.resolve(a.out);
        const modelOptions = {
          consequence: 'nothing was written',
          format,
          onStage: progress(a.progress),
          strict: a.strict,
        };
        if (a.check) {
          const r = await compileModelFile(a.model, modelOptions);
          if (!r) return;
          reportCheck(a.model, a.out, outDir, r, format);
          return;
        }
        let written = false;
        stopOnSignals(a.out, () => written);
        const loaded = await loadReported(a.model, modelOptions);
        if (!loaded) return;
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { compileForSynth } = require('../synth') as typeof Synth;
        const c = compileForSynth(loaded.input, outDir, { force: a.force, onStage: modelOptions.onStage });
        let s: Synth.SynthOutcome;
        if ('outcome' in c) s = c.outcome;
        else if (a.strict && c.result.warnings.length > 0) {
          // --strict: warnings stop synth before anything is written.
          reportProblems(a.model, c.result.warnings, modelOptions);
          return;
        } else {
          faultPoint('compiled');
          await yieldForSignals();
          s = c.write();
          written = true;
          // Else a signal that came during the write would be lost: with nothing left to wait for,
          // the process would exit without reading it.
          await yieldForSignals();
        }
        if ((s.result && s.result.diagnostics.length > 0) || (a.strict && s.warnings.length > 0)) {
          reportProblems(a.model, [...(s.result?.diagnostics ?? []), ...s.warnings], modelOptions);
          return;
        }
        reportWarnings(a.model, s.warnings, modelOptions);
        if (s.recovered) process.stderr.write(`clusterset: ${a.out}/: ${s.recovered}.\n`);
        if (format === 'json') {
          const counts = { written: s.write.length, unchanged: s.unchanged.length, pruned: s.prune.length };
          process.stdout.write(
            `${JSON.stringify({ ok: true, ...jsonWarnings(a.model, s.warnings), compiled: s.result !== undefined, files: counts })}\n`,
          );
          return;
        }
        process.stdout.write(
          s.result
            ? `${summary(s.result)}: ${count(s.write.length, 'file')} written, ${s.unchanged.length} unchanged, ${s.prune.length} pruned (${a.out}/)\n`
            : `${a.out}/ is up to date: the model and clusterset are unchanged since the last synth; nothing compiled or written (${count(s.unchanged.length, 'file')}; --force compiles and compares anyway)\n`,
        );
      },
    )
    .command(
      'validate [model]',
      'check the model and the rendered output without writing anything',
      (y) =>
        y
          .positional('model', { type: 'string', default: 'clusterset.ts' })
          .option('format', FORMAT_OPTION)
          .option('strict', STRICT_OPTION)
          .example('$0 validate --format json', 'every diagnostic as JSON on stdout')
          .example('$0 validate --strict', 'in CI: warnings fail the check too (exit 2)'),
      async (a) => {
        const format = a.format as ReportFormat;
        const r = await compileModelFile(a.model, {
          consequence: 'nothing was checked',
          format,
          onStage: progress(a.progress),
          strict: a.strict,
        });
        if (!r) return;
        const warned = r.warnings.length > 0 ? ` (${count(r.warnings.length, 'warning')})` : '';
        if (format === 'json')
          process.stdout.write(`${JSON.stringify({ ok: true, ...jsonWarnings(a.model, r.warnings) })}\n`);
        else
          process.stdout.write(
            `${a.model} is valid${warned}: ${summary(r)}, ${count(r.files.size, 'file')}.\n`,
          );
      },
    )
    .command(diffCommand)
    .command(explainCommand)
    .command(initCommand)
    .command(statusCommand)
    .command(importCommand)
    .command(tokenCommand)
    .command(reconcileCommand)
    .command(restartCommand)
    .command(imageCommand())
    .command(versionCommand);
}
