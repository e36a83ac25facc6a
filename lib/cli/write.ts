/**
 * Write: the only code that touches out/. Given the compiled files it
 * - compares them with what is on disk (so a no-op synth rewrites nothing),
 * - writes new files in place and stages replacements beside their targets, renaming them only when
 *   everything is written (a failure before that removes what was written and leaves out/ as it was),
 * - prunes files that the previous index listed and the new output does not (files we never wrote
 *   are never touched), and writes the new index last.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEX_FILE } from '../emit';

export interface WritePlan {
  readonly write: readonly string[];
  readonly unchanged: readonly string[];
  readonly prune: readonly string[];
}

function readIndex(outDir: string): string[] {
  const p = path.join(outDir, INDEX_FILE);
  if (!fs.existsSync(p)) return [];
  return fs
    .readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Every path below outDir (files and directories), relative, or none when it does not exist. */
function existingPaths(outDir: string): Set<string> {
  if (!fs.existsSync(outDir)) return new Set();
  return new Set(
    fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' }).map((p) => p.split(path.sep).join('/')),
  );
}

function sameContent(file: string, content: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

interface Planned extends WritePlan {
  /** Of `write`: the paths that exist now (replaced through a staged copy) and those that do not. */
  readonly existing: ReadonlySet<string>;
}

function plan(outDir: string, files: ReadonlyMap<string, string>): Planned {
  const existing = existingPaths(outDir);
  const write: string[] = [];
  const unchanged: string[] = [];
  // Only files that exist are read: one listing instead of a failing read per new file.
  for (const [rel, content] of files) {
    (existing.has(rel) && sameContent(path.join(outDir, rel), content) ? unchanged : write).push(rel);
  }
  const prune = readIndex(outDir).filter((rel) => !files.has(rel) && existing.has(rel));
  return { write, unchanged, prune, existing };
}

/** What writing `files` into `outDir` would change. Reads only. */
export function planWrite(outDir: string, files: ReadonlyMap<string, string>): WritePlan {
  const { write, unchanged, prune } = plan(outDir, files);
  return { write, unchanged, prune };
}

/**
 * Writes what changed. New files go straight to their path (exclusive create); files that replace
 * existing ones are staged beside them and renamed into place only once everything is written. If
 * anything fails before that point, the new files, the staged copies and the directories made for
 * them are removed, and out/ is as it was.
 */
export function writeOut(outDir: string, files: ReadonlyMap<string, string>): WritePlan {
  const p = plan(outDir, files);
  const order = [...p.write.filter((r) => r !== INDEX_FILE), ...p.write.filter((r) => r === INDEX_FILE)];
  const staged: [string, string][] = [];
  const created: string[] = [];
  const madeDirs: string[] = [];
  const dirs = new Set<string>();
  try {
    for (const rel of order) {
      const target = path.join(outDir, rel);
      const dir = path.dirname(target);
      if (!dirs.has(dir)) {
        const made = fs.mkdirSync(dir, { recursive: true });
        if (made) madeDirs.push(made);
        dirs.add(dir);
      }
      const content = files.get(rel) ?? '';
      if (p.existing.has(rel) || rel === INDEX_FILE) {
        const tmp = `${target}.clusterset-tmp-${process.pid}`;
        fs.writeFileSync(tmp, content);
        staged.push([tmp, target]);
      } else {
        fs.writeFileSync(target, content, { flag: 'wx' });
        created.push(target);
      }
    }
  } catch (e) {
    for (const [tmp] of staged) fs.rmSync(tmp, { force: true });
    for (const f of created) fs.rmSync(f, { force: true });
    for (const d of madeDirs.reverse()) fs.rmSync(d, { recursive: true, force: true });
    throw e;
  }
  for (const [tmp, target] of staged) if (!target.endsWith(INDEX_FILE)) fs.renameSync(tmp, target);
  for (const rel of p.prune) {
    fs.rmSync(path.join(outDir, rel), { force: true });
    removeEmptyDirs(outDir, path.dirname(path.join(outDir, rel)));
  }
  for (const [tmp, target] of staged) if (target.endsWith(INDEX_FILE)) fs.renameSync(tmp, target);
  return { write: p.write, unchanged: p.unchanged, prune: p.prune };
}

function removeEmptyDirs(root: string, dir: string): void {
  const top = path.resolve(root);
  let d = path.resolve(dir);
  while (d.startsWith(top + path.sep) && fs.existsSync(d) && fs.readdirSync(d).length === 0) {
    fs.rmdirSync(d);
    d = path.dirname(d);
  }
}
