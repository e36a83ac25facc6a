/**
 * Write: the only code that touches out/. Given the compiled files it
 * - compares them with what is on disk (so a no-op synth rewrites nothing),
 * - stages every changed file beside its target first, and only when all are staged renames them
 *   into place (a failure while staging removes the staged files and leaves out/ as it was),
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

function sameContent(file: string, content: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

/** What writing `files` into `outDir` would change. Reads only. */
export function planWrite(outDir: string, files: ReadonlyMap<string, string>): WritePlan {
  const write: string[] = [];
  const unchanged: string[] = [];
  for (const [rel, content] of files)
    (sameContent(path.join(outDir, rel), content) ? unchanged : write).push(rel);
  const prune = readIndex(outDir).filter((rel) => !files.has(rel) && fs.existsSync(path.join(outDir, rel)));
  return { write, unchanged, prune };
}

export function writeOut(outDir: string, files: ReadonlyMap<string, string>): WritePlan {
  const p = planWrite(outDir, files);
  const staged: [string, string][] = [];
  const order = [...p.write.filter((r) => r !== INDEX_FILE), ...p.write.filter((r) => r === INDEX_FILE)];
  try {
    for (const rel of order) {
      const target = path.join(outDir, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const tmp = `${target}.clusterset-tmp-${process.pid}`;
      fs.writeFileSync(tmp, files.get(rel) ?? '');
      staged.push([tmp, target]);
    }
  } catch (e) {
    for (const [tmp] of staged) fs.rmSync(tmp, { force: true });
    throw e;
  }
  for (const [tmp, target] of staged) if (!target.endsWith(INDEX_FILE)) fs.renameSync(tmp, target);
  for (const rel of p.prune) {
    fs.rmSync(path.join(outDir, rel), { force: true });
    removeEmptyDirs(outDir, path.dirname(path.join(outDir, rel)));
  }
  for (const [tmp, target] of staged) if (target.endsWith(INDEX_FILE)) fs.renameSync(tmp, target);
  return p;
}

function removeEmptyDirs(root: string, dir: string): void {
  const top = path.resolve(root);
  let d = path.resolve(dir);
  while (d.startsWith(top + path.sep) && fs.existsSync(d) && fs.readdirSync(d).length === 0) {
    fs.rmdirSync(d);
    d = path.dirname(d);
  }
}
