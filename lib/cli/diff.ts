/**
 * `clusterset diff`: what the model renders, compared object by object with the committed out/ (on
 * disk, or at a git revision with `--base`), with an impact summary in the model's own terms. The
 * markdown form is made to be posted as a pull-request comment.
 *
 * This is the CLI edge: it reads out/ (from disk, or from git in two processes whatever the number of
 * files) and prints; the comparison itself is lib/diff, pure.
 *
 * The model's warnings are printed on stderr in every format, and listed in the markdown comment (a
 * "Warnings" block) and the json (`warnings`); with `--strict` they are errors, and nothing is
 * compared.
 *
 * Exit status: 0 when compared (with `--exit-code`: only when nothing differs), 1 with `--exit-code`
 * when something differs (as `git diff --exit-code`), 2 when nothing could be compared (the model
 * does not load or has problems, or warnings under `--strict`; the revision cannot be read).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandModule } from 'yargs';
import type { DiffFormat } from '../diff';
import type * as Diff from '../diff';
import { INDEX_FILE } from '../emit';
import { STRICT_OPTION, compileModelFile } from './model';
import { count } from '../plural';
import { paintFor } from '../colour';
import { strays } from '../fs/write';

/** An out/ tree read from disk or git, and what was read, for the user. */
export interface OutTree {
  readonly files: ReadonlyMap<string, string>;
  /** `index`: only files listed in `.clusterset-index`; `all`: no index, every file; `none`: no out/. */
  readonly source: 'index' | 'all' | 'none';
}

function indexed(index: string): string[] {
  return index.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

/** Keeps only the files the index lists (and the index), when there is one. */
function restrict(files: Map<string, string>): OutTree {
  const index = files.get(INDEX_FILE);
  if (files.size === 0) return { files, source: 'none' };
  if (index === undefined) return { files, source: 'all' };
  const keep = new Map<string, string>([[INDEX_FILE, index]]);
  for (const rel of indexed(index)) {
    const c = files.get(rel);
    if (c !== undefined) keep.set(rel, c);
  }
  return { files: keep, source: 'index' };
}

/**
 * out/ on disk: the files `.clusterset-index` lists (those synth wrote and would prune), or every
 * file under out/ when there is no index.
 */
export function readOutDir(outDir: string): OutTree {
  // What a killed synth left is neither the old out/ nor the new one: never compared as either.
  const left = strays(outDir);
  if (left.length > 0) {
    throw new Error(
      `it holds what an interrupted synth left (${left.join(', ')}); run \`clusterset synth\` to complete or drop it, then compare`,
    );
  }
  const files = new Map<string, string>();
  if (!fs.existsSync(outDir)) return { files, source: 'none' };
  const indexPath = path.join(outDir, INDEX_FILE);
  if (fs.existsSync(indexPath)) {
    const index = fs.readFileSync(indexPath, 'utf8');
    files.set(INDEX_FILE, index);
    for (const rel of indexed(index)) {
      const p = path.join(outDir, rel);
      if (fs.existsSync(p)) files.set(rel, fs.readFileSync(p, 'utf8'));
    }
    return { files, source: 'index' };
  }
  for (const rel of fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' }).sort()) {
    const abs = path.join(outDir, rel);
    if (fs.statSync(abs).isFile()) files.set(rel.split(path.sep).join('/'), fs.readFileSync(abs, 'utf8'));
  }
  return { files, source: files.size > 0 ? 'all' : 'none' };
}

function git(cwd: string, args: string[], input?: Buffer): Buffer {
  const r = spawnSync('git', args, { cwd, input, maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`cannot run git: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr.toString().trim()}`);
  return r.stdout;
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest. */
function realish(p: string): string {
  const abs = path.resolve(p);
  if (fs.existsSync(abs)) return fs.realpathSync(abs);
  return path.join(realish(path.dirname(abs)), path.basename(abs));
}

/**
 * out/ as committed at git revision `ref`: `git ls-tree` lists its blobs and one `git cat-file
 * --batch` reads them all, so the cost does not grow with a process per file.
 */
export function readOutAtRevision(outDir: string, ref: string): OutTree {
  const abs = realish(outDir);
  let dir = abs;
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  const top = git(dir, ['rev-parse', '--show-toplevel']).toString().trim();
  const rel = path.relative(fs.realpathSync(top), abs).split(path.sep).join('/');
  if (rel.startsWith('..') || path.isAbsolute(rel))
    throw new Error(`${outDir} is not inside the git repository at ${top}`);
  try {
    git(top, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`"${ref}" is not a commit of the repository at ${top}`);
  }
  const listing = git(top, ['ls-tree', '-r', '-z', '--full-tree', ref, '--', rel === '' ? '.' : `${rel}/`])
    .toString()
    .split('\0')
    .filter(Boolean);
  const blobs: { sha: string; file: string }[] = [];
  for (const entry of listing) {
    const tab = entry.indexOf('\t');
    const [, type, sha] = entry.slice(0, tab).split(' ');
    const file = entry.slice(tab + 1);
    if (type !== 'blob' || sha === undefined) continue;
    blobs.push({ sha, file: rel === '' ? file : file.slice(rel.length + 1) });
  }
  const files = new Map<string, string>();
  if (blobs.length > 0) {
    const out = git(top, ['cat-file', '--batch'], Buffer.from(blobs.map((b) => b.sha).join('\n') + '\n'));
    let at = 0;
    for (const b of blobs) {
      const nl = out.indexOf(10, at);
      const header = out.subarray(at, nl).toString();
      const size = Number(header.split(' ')[2]);
      if (!Number.isFinite(size))
        throw new Error(`git cat-file: unexpected answer "${header}" for ${b.file}`);
      files.set(b.file, out.subarray(nl + 1, nl + 1 + size).toString('utf8'));
      at = nl + 1 + size + 1;
    }
  }
  return restrict(files);
}

function describeSource(label: string, t: OutTree): string {
  if (t.source === 'none') return `${label} does not exist: every object is new`;
  if (t.source === 'all')
    return `${label} has no ${INDEX_FILE}: comparing with all ${count(t.files.size, 'file')} under it`;
  return `comparing with the ${count(t.files.size - 1, 'file')} listed in ${INDEX_FILE} of ${label}`;
}

/** The impact summary of a stale out/ (text), for `synth --check`; empty when nothing differs. */
export function staleSummary(outDir: string, files: ReadonlyMap<string, string>): string {
  const before = readOutDir(outDir).files;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { diffTrees, formatSummaryText, impact } = require('../diff') as typeof Diff;
  const d = diffTrees(before, files);
  return formatSummaryText(d, impact(before, files, d));
}

interface DiffArgs {
  model: string;
  out: string;
  base?: string;
  format: DiffFormat;
  'exit-code': boolean;
  strict: boolean;
}

/** `clusterset diff [model] [--out out] [--base REF] [--format text|markdown|json] [--exit-code]` */
export const diffCommand: CommandModule<object, DiffArgs> = {
  command: 'diff [model]',
  describe: 'compare what the model renders with out/ (or out/ at a git revision), object by object',
  builder: (y) =>
    y
      .positional('model', {
        type: 'string',
        default: 'clusterset.ts',
        describe: 'model file (.ts, .js, .json, .yaml)',
      })
      .option('out', { type: 'string', default: 'out', describe: 'output directory to compare with' })
      .option('base', {
        type: 'string',
        describe: 'compare with the output directory as committed at this git revision instead of on disk',
      })
      .option('format', {
        choices: ['text', 'markdown', 'json'] as const,
        default: 'text' as DiffFormat,
        describe: 'text for a terminal, markdown for a pull-request comment, json for tools',
      })
      .option('exit-code', {
        type: 'boolean',
        default: false,
        describe: 'exit 1 when something differs, 0 when nothing does',
      })
      .option('strict', STRICT_OPTION),
  handler: async (a) => {
    // Exit 2 when nothing could be compared, so that 1 (with --exit-code) always means changes.
    const r = await compileModelFile(a.model, { consequence: 'nothing was compared', strict: a.strict });
    if (!r) return;
    const label = `${a.out.replace(/\/+$/, '')}/`;
    let before: OutTree;
    try {
      before = a.base !== undefined ? readOutAtRevision(a.out, a.base) : readOutDir(path.resolve(a.out));
    } catch (e) {
      process.stderr.write(
        `clusterset: cannot read ${label}${a.base ? ` at ${a.base}` : ''}: ${(e as Error).message}\n`,
      );
      process.exitCode = 2;
      return;
    }
    const beforeLabel = a.base !== undefined ? `${label} at ${a.base}` : label;
    process.stderr.write(`clusterset: ${describeSource(beforeLabel, before)}\n`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { diffTrees, formatDiff, impact, isEmpty } = require('../diff') as typeof Diff;
    const d = diffTrees(before.files, r.files);
    const i = impact(before.files, r.files, d, r.plan);
    // The text form is coloured on a terminal only (colour.ts); markdown and json never are.
    process.stdout.write(
      formatDiff(
        a.format,
        d,
        i,
        { before: beforeLabel, after: a.model },
        paintFor(process.stdout),
        r.warnings,
      ),
    );
    if (a['exit-code'] && !isEmpty(d)) process.exitCode = 1;
  },
};
