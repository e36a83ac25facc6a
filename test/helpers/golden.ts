/**
 * Golden files: compare a files map (relative path → content) with a folder, or rewrite the folder
 * when `UPDATE_GOLDEN=1`. Reports missing, extra and different files, each different file with the
 * first differing lines. Deliberately tiny: uvu has no file snapshots.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { ClusterSetProps } from '../../lib/model';

export const UPDATE = process.env.UPDATE_GOLDEN === '1';

const REPO_ROOT = path.join(__dirname, '..', '..');

/**
 * `examples/`: one folder per example, each a golden case: `<name>/clusterset.ts` (the model, written
 * as a user writes it), `<name>/README.md` (what it shows) and `<name>/out/` (what it renders).
 */
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/** What every example folder must hold. */
export const EXAMPLE_FILES = ['clusterset.ts', 'README.md', 'out'] as const;

/** The rendered bundles of example `name`, as `clusterset synth --out` writes them. */
export function caseOut(name: string): string {
  return path.join(EXAMPLES_DIR, name, 'out');
}

/**
 * Every folder under `dir` (`examples/` unless told), sorted. Each is a golden case: none is skipped
 * for missing its model, so such a folder fails the tests that load it (and `exampleProblems`).
 */
export function caseNames(dir: string = EXAMPLES_DIR): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** What each folder under `dir` lacks of EXAMPLE_FILES, as `<name>: no <file>`; empty when none. */
export function exampleProblems(dir: string = EXAMPLES_DIR): string[] {
  return caseNames(dir).flatMap((name) =>
    EXAMPLE_FILES.filter((f) => !fs.existsSync(path.join(dir, name, f))).map((f) => `${name}: no ${f}`),
  );
}

/** The default export of `examples/<name>/clusterset.ts`. */
export function loadCase(name: string): ClusterSetProps {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(EXAMPLES_DIR, name, 'clusterset.ts')) as { default: ClusterSetProps };
  return mod.default;
}

/** Every file under `dir`, as sorted relative paths with '/' separators (dot files included). */
export function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk('');
  return out.sort();
}

/** A short unified-ish diff: the first `max` differing lines around the first difference. */
export function shortDiff(expected: string, actual: string, max = 6): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const lines = [`@@ line ${i + 1} @@`];
  if (i > 0) lines.push(`  ${a[i - 1]}`);
  for (let k = i; k < Math.min(a.length, i + max); k++) lines.push(`- ${a[k]}`);
  for (let k = i; k < Math.min(b.length, i + max); k++) lines.push(`+ ${b[k]}`);
  return lines.join('\n');
}

/**
 * Differences between a files map and a folder; empty when they hold exactly the same bytes. Files
 * named in `ignore` (relative paths) are not looked at on disk: what a CLI run leaves beside what it
 * renders, such as synth's `.clusterset-cache`.
 */
export function compareWithFolder(
  files: ReadonlyMap<string, string>,
  dir: string,
  ignore: readonly string[] = [],
): string[] {
  const onDisk = new Set(listFiles(dir).filter((rel) => !ignore.includes(rel)));
  const shown = `${path.relative(REPO_ROOT, dir).split(path.sep).join('/')}/`;
  const problems: string[] = [];
  for (const [rel, content] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!onDisk.has(rel)) {
      problems.push(`missing from ${shown}: ${rel}`);
      continue;
    }
    const expected = fs.readFileSync(path.join(dir, rel), 'utf8');
    if (expected !== content) problems.push(`different: ${rel}\n${shortDiff(expected, content)}`);
  }
  for (const rel of onDisk)
    if (!files.has(rel)) problems.push(`extra in ${shown} (no longer produced): ${rel}`);
  return problems;
}

/** Replaces the folder's content with exactly the files map. */
export function writeFolder(files: ReadonlyMap<string, string>, dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [rel, content] of files) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

/**
 * THEN the files equal the folder. With `UPDATE_GOLDEN=1` the folder is rewritten instead and the
 * check passes. Returns the problems (empty on success) so the caller can assert with a message.
 */
export function matchGolden(
  files: ReadonlyMap<string, string>,
  dir: string,
  ignore: readonly string[] = [],
): string[] {
  if (UPDATE) {
    writeFolder(files, dir);
    return [];
  }
  return compareWithFolder(files, dir, ignore);
}
