/**
 * Every command of the CLI: synth, check and validate (here), diff, explain, init, status, import,
 * token, reconcile, restart-member-controller, image and version (completion is main.ts's). main.ts
 * loads this module for every command but the two the image runs (`reconcile`,
 * `restart-member-controller`) and the light ones (`image`, `version`, `completion`), which need none
 * of the compiler's modules.
 *
 * The default out/ belongs to one model: `clusterset.ts` when there is one (the project's model, what
 * `npm run synth` renders), else the model that last wrote it (recorded in its cache). synth writes it
 * from no other model unless `--out` names it: a scratch model never rewrites the project's out/.
 *
 * Exit 0 when out/ is written (synth), up to date (check, synth --check) or the model valid
 * (validate). Exit 1 when out/ is stale (check, synth --check): a file the model renders differently
 * or no longer renders, a file it renders that is missing, a file no synth wrote in a folder synth
 * owns (`clusters/`, and `argocd/` or `flux/` when the model delivers with them), or what an
 * interrupted synth left. Exit 2 for a model that cannot be loaded or has problems (warnings too,
 * under `--strict`), and for usage errors, among them synth asked to write the default out/ from a
 * model other than the one it belongs to (nothing is written; pass `--out`). Exit 74 when out/
 * cannot be written (out/ is left as it was).
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
  EXIT_MODEL,
  type ModelOptions,
  type ReportFormat,
} from './model';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type * as Synth from '../synth';
import { faultPoint, ownedFolders, planWrite } from '../fs/write';
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

/** The model of synth, check, validate, diff, explain and status when none is named: the project's. */
const DEFAULT_MODEL = 'clusterset.ts';
/** The output directory of synth and check when --out is not given. */
const DEFAULT_OUT = 'out';

/** `out/clusters/, out/argocd/ and out/flux/`: the folders of out/ synth owns, for messages. */
function ownedList(shown: string, files: Iterable<string>): string {
  const names = [...ownedFolders(files)].sort().map((f) => `${shown}/${f}/`);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** `p` resolved, through symbolic links when it exists: one file, one string. */
function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The model the default out/ belongs to, when it is not `model`: ./clusterset.ts when it exists (the
 * project's model), else the model that last wrote out/ (its cache records it) while that file
 * exists; undefined when `model` is that one, or out/ belongs to none.
 */
function otherOwner(model: string, outDir: string): { file: string; what: string } | undefined {
  const mine = realPath(model);
  if (fs.existsSync(DEFAULT_MODEL)) {
    return realPath(DEFAULT_MODEL) === mine
      ? undefined
      : { file: DEFAULT_MODEL, what: "the project's model" };
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const recorded = (require('../synth') as typeof Synth).modelOf(outDir);
  if (recorded === undefined || !fs.existsSync(recorded) || realPath(recorded) === mine) return undefined;
  return { file: path.relative(process.cwd(), recorded) || recorded, what: 'the model that last wrote it' };
}

/**
 * Refuses, exit 2, a synth that would write the default out/ from a model it does not belong to
 * (otherOwner): `clusterset synth mistakes/m.ts` must not rewrite the project's out/. Says how to
 * render it elsewhere, check it without writing, or replace out/ on purpose. True when it refused.
 */
function refuseOtherOwner(model: string, format: ReportFormat): boolean {
  const owner = otherOwner(model, path.resolve(DEFAULT_OUT));
  if (!owner) return false;
  const dir = path.dirname(model);
  const elsewhere =
    dir === '.' ? `out-${path.basename(model).replace(/\.[^.]*$/, '')}` : path.join(dir, DEFAULT_OUT);
  const message = `${DEFAULT_OUT}/ belongs to ${owner.file} (${owner.what}), not to ${model}; nothing was written`;
  const fixes = [
    `render ${model} into a folder of its own: clusterset synth ${model} --out ${elsewhere}`,
    `check it without writing anything: clusterset validate ${model}`,
    `replace ${DEFAULT_OUT}/ with its rendering on purpose: clusterset synth ${model} --out ${DEFAULT_OUT}`,
  ];
  process.exitCode = EXIT_MODEL;
  if (format === 'json') {
    const d = { rule: 'out-owner', path: '', message, fix: fixes.join('; or '), severity: 'error' };
    process.stdout.write(`${JSON.stringify({ ok: false, diagnostics: [d] })}\n`);
    return true;
  }
  process.stderr.write(`clusterset: synth ${model}: ${message}.\n${fixes.map((f) => `  ${f}\n`).join('')}`);
  if (format === 'github')
    process.stdout.write(`${annotation(model, 'out-owner', `${message}: ${fixes[0]}`)}\n`);
  return true;
}

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
  const extra = p.foreign;
  const foreign = new Set(extra);
  const removed = p.prune.filter((f) => !foreign.has(f));
  const stale = added.length + changed.length + removed.length + extra.length > 0;
  const ok = p.strays.length === 0 && !stale;
  if (!ok) process.exitCode = 1;
  if (format === 'json') {
    const files = { added, changed, removed, extra, unchanged: p.unchanged.length };
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
      ['extra:  ', extra, 'no synth wrote this file, in a folder synth owns'],
    ];
    for (const [label, files, why] of lists)
      for (const f of files) {
        process.stderr.write(`  ${label} ${f}\n`);
        notes.push({
          file: path.join(shown, f),
          text: `${why}: run \`npm run synth\` and commit the result`,
        });
      }
    if (extra.length > 0)
      process.stderr.write(
        `(synth removes the extra files: ${ownedList(shown, r.files.keys())} hold only what the model renders; keep files of your own outside them)\n`,
      );
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

/** `check` and `synth --check`: compiles the model and reports out/ against it (reportCheck). */
async function checkModelOut(model: string, out: string, o: ModelOptions): Promise<void> {
  const r = await compileModelFile(model, o);
  if (!r) return;
  reportCheck(model, out, path.resolve(out), r, o.format ?? 'text');
}

/** The signals a person or a supervisor stops synth with; each exits 128 + its number. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Makes SIGINT, SIGTERM and SIGHUP leave out/ old or new. Node runs a signal's handler only between
 * synchronous stretches of code, and the write is one (lib/fs/write.ts): a signal that arrives
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
            default: DEFAULT_MODEL,
            describe: 'model file (.ts, .js, .json, .yaml)',
          })
          .option('out', {
            type: 'string',
            describe:
              'output directory; default: out, which synth writes only from its own model (./clusterset.ts, else the one that last wrote it)',
          })
          .option('check', {
            type: 'boolean',
            default: false,
            describe: 'write nothing; exit 1 if the output directory is stale (as `clusterset check`)',
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
          .example('$0 synth --format github', 'in GitHub Actions: model problems as annotations')
          .example(
            '$0 synth scratch/try.ts --out scratch/out',
            'render another model into a folder of its own (out/ is the project model’s)',
          ),
      async (a) => {
        const format = a.format as ReportFormat;
        const out = a.out ?? DEFAULT_OUT;
        const outDir = path.resolve(out);
        const modelOptions = {
          consequence: 'nothing was written',
          format,
          onStage: progress(a.progress),
          strict: a.strict,
        };
        if (a.check) {
          await checkModelOut(a.model, out, modelOptions);
          return;
        }
        if (a.out === undefined && refuseOtherOwner(a.model, format)) return;
        let written = false;
        stopOnSignals(out, () => written);
        const loaded = await loadReported(a.model, modelOptions);
        if (!loaded) return;
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { compileForSynth } = require('../synth') as typeof Synth;
        const c = compileForSynth(loaded.input, outDir, {
          force: a.force,
          onStage: modelOptions.onStage,
          modelFile: a.model,
        });
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
        if (s.recovered) process.stderr.write(`clusterset: ${out}/: ${s.recovered}.\n`);
        if (s.foreign.length > 0 && s.result) {
          const shownFiles = s.foreign.slice(0, MAX_FILE_ANNOTATIONS).map((f) => `  ${out}/${f}\n`);
          const more = s.foreign.length - shownFiles.length;
          process.stderr.write(
            `clusterset: removed ${count(s.foreign.length, 'file')} no synth wrote from ${ownedList(out, s.result.files.keys())}, which hold only what the model renders (keep files of your own outside them):\n` +
              `${shownFiles.join('')}${more > 0 ? `  ... and ${count(more, 'more file')}\n` : ''}`,
          );
        }
        if (format === 'json') {
          const counts = {
            written: s.write.length,
            unchanged: s.unchanged.length,
            pruned: s.prune.length,
            foreign: s.foreign.length,
          };
          process.stdout.write(
            `${JSON.stringify({ ok: true, ...jsonWarnings(a.model, s.warnings), compiled: s.result !== undefined, files: counts })}\n`,
          );
          return;
        }
        process.stdout.write(
          s.result
            ? `${summary(s.result)}: ${count(s.write.length, 'file')} written, ${s.unchanged.length} unchanged, ${s.prune.length} pruned (${out}/)\n`
            : `${out}/ is up to date: the model and clusterset are unchanged since the last synth; nothing compiled or written (${count(s.unchanged.length, 'file')}; --force compiles and compares anyway)\n`,
        );
      },
    )
    .command(
      'check [model]',
      'check that out/ is what the model renders, writing nothing (as `synth --check`; for CI)',
      (y) =>
        y
          .positional('model', {
            type: 'string',
            default: DEFAULT_MODEL,
            describe: 'model file (.ts, .js, .json, .yaml)',
          })
          .option('out', { type: 'string', default: DEFAULT_OUT, describe: 'output directory' })
          .option('format', FORMAT_OPTION)
          .option('strict', STRICT_OPTION)
          .example('$0 check', 'exit 1 when out/ is not what clusterset.ts renders, naming each file')
          .example('$0 check --format github', 'in GitHub Actions: each stale file as an annotation'),
      async (a) => {
        await checkModelOut(a.model, a.out, {
          consequence: 'nothing was checked',
          format: a.format as ReportFormat,
          onStage: progress(a.progress),
          strict: a.strict,
        });
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
