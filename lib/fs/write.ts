/**
 * Write: the only code that touches out/. out/ is old or new after any interruption, SIGKILL
 * included, through a small transaction:
 *
 * 1. recover: a journal left by an interrupted run is completed (roll forward); a staging
 *    directory without a journal is removed (roll back); strays of older versions are removed;
 * 2. plan: compare the compiled files with what is on disk (a no-op synth rewrites nothing) and list
 *    what to prune: what the previous index listed that the new output does not, and every other
 *    file in the folders synth owns (ownedFolders: `clusters/`, and `argocd/` or `flux/` when the
 *    model delivers with them) that the model does not render, such as a file a branch switch left;
 *    anything else in out/ (a README at its top, a folder of the team's) is never touched;
 * 3. stage: every target directory is checked (a file in the way, no write permission) before
 *    anything else; `out/.clusterset-pending` lists the files that do not exist yet (written under a
 *    temporary name and renamed into place), which are then written straight to their place; every
 *    file that replaces one (the new index among them) is written under `out/.clusterset-txn/`. A
 *    failure here removes the new files, the staging directory and the list, leaving out/ as it was;
 * 4. commit: `out/.clusterset-journal` (the renames and removals planned) is written under a
 *    temporary name and renamed into place, the one atomic step; from then on the change happens;
 * 5. apply: each file a staged one replaces is first moved to `out/.clusterset-old/`, then the staged
 *    one renamed into place (the index last); pruned files (foreign ones too) are moved there too,
 *    and the directories they leave empty removed. Only when everything is in place are the staging
 *    directory, the old files, the pending list and then the journal removed;
 * 6. roll back, when any step of the apply fails (a file made immutable, a full disk): the journal
 *    is removed first (from then on the write is being undone), the old files moved back, the new
 *    files of the pending list removed, then the staging directory, the list and the old files. The
 *    error is reported with out/ as it was.
 *
 * Recovery: a journal means committed (complete it; if that fails, roll back); no journal means not
 * committed or being rolled back (move back what `.clusterset-old/` holds, remove the files the
 * pending list names, which did not exist before). Every step of recover, apply and roll back can be
 * repeated, so a run killed in the middle of any is completed by the next. New files are not staged
 * because a rename per file was half the cost of writing a fresh out/. Durability across power loss
 * (fsync) is not attempted: a killed process loses nothing the kernel already has.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEX_FILE } from '../emit';
import { count } from '../plural';

/** Staged copies of the files being written, by their path relative to out/. */
export const TXN_DIR = '.clusterset-txn';
/** The committed plan of a write in progress. Its presence means: complete me. */
export const JOURNAL_FILE = '.clusterset-journal';
const JOURNAL_TMP = `${JOURNAL_FILE}.tmp`;
/** The files an apply replaced or pruned, kept until it has finished, to roll back to. */
export const OLD_DIR = '.clusterset-old';
/** Files an uncommitted write created in place; removed if the write is dropped. */
export const PENDING_FILE = '.clusterset-pending';
const PENDING_TMP = `${PENDING_FILE}.tmp`;
/** Our bookkeeping in out/, never content. */
export const BOOKKEEPING = [JOURNAL_FILE, JOURNAL_TMP, PENDING_FILE, PENDING_TMP, TXN_DIR, OLD_DIR];
/** What versions before the journal left beside their targets when interrupted. */
export const LEGACY_STRAY = /\.clusterset-tmp-\d+$/;

export interface WritePlan {
  readonly write: readonly string[];
  readonly unchanged: readonly string[];
  /** Every file to remove: those the index listed, then the foreign ones. */
  readonly prune: readonly string[];
  /**
   * The files of `prune` that no synth wrote (the index does not list them) in a folder synth owns:
   * left by a branch switch, an older clusterset, a hand.
   */
  readonly foreign: readonly string[];
}

interface Pending {
  readonly version: 1;
  /** Relative paths written in place that did not exist before. */
  readonly create: readonly string[];
}

interface Journal {
  readonly version: 1;
  /** Relative paths staged under TXN_DIR, to rename into place in this order. */
  readonly rename: readonly string[];
  /** Relative paths to remove. */
  readonly prune: readonly string[];
}

/** A write that failed for a reason the user can fix: one line, the path, the cause, the fix. */
export class WriteError extends Error {
  constructor(
    readonly file: string,
    readonly cause: string,
    readonly fix: string,
  ) {
    super(`cannot write ${file}: ${cause}; fix: ${fix}`);
    this.name = 'WriteError';
  }
}

/** The WriteError for a failed file-system call on `file`, or the error itself when unexpected. */
function explain(e: unknown, file: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  const dir = path.dirname(file);
  switch (code) {
    case 'EACCES':
      return new WriteError(
        file,
        'permission denied',
        `make ${dir} writable for this user, or choose another --out`,
      );
    case 'EPERM':
      return new WriteError(
        file,
        'operation not permitted (an immutable or append-only file, or a directory this user may not change)',
        `check \`lsattr ${file}\` (\`chattr -i\` or \`-a\` to clear) and that ${dir} is writable for this user`,
      );
    case 'EROFS':
      return new WriteError(
        file,
        'the file system is read-only',
        'choose an --out on a writable file system',
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new WriteError(file, 'no space left on the device', 'free some space and run synth again');
    case 'ENOTDIR':
      return new WriteError(
        file,
        'a file is in the way of a directory',
        `remove that file, or choose another --out`,
      );
    case 'EISDIR':
      return new WriteError(file, 'a directory is in the way of a file', 'remove that directory');
    default:
      return e;
  }
}

/** Runs `f`, turning a file-system failure on `file` into a WriteError. */
function io<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw explain(e, file);
  }
}

/**
 * Fault injection for the interruption tests (test/cli/interrupt.test.ts): with
 * `CLUSTERSET_FAULT=<point>`, the writer stops at that point, says so on stderr and blocks, busy as
 * synchronous code is, until it is killed. Points: created-half, staged-half, journal-tmp,
 * committed, applied-half, pruned (lib/cli/commands.ts adds compiled). `CLUSTERSET_FAULT=<point>:pause`
 * blocks it for two seconds instead, then goes on: for a signal that arrives while synchronous code
 * runs, whose handler runs only once that code is done.
 */
export function faultPoint(point: string): void {
  const fault = process.env.CLUSTERSET_FAULT;
  if (fault !== point && fault !== `${point}:pause`) return;
  process.stderr.write(`clusterset: fault point ${point} reached\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, fault === point ? undefined : 2000);
}

// ---------------------------------------------------------------------------------------------------
// Reading out/

function readIndex(outDir: string): string[] {
  const p = path.join(outDir, INDEX_FILE);
  let text: string;
  try {
    text = fs.readFileSync(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw explain(e, p);
  }
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

const isOurs = (rel: string): boolean =>
  BOOKKEEPING.includes(rel) || rel.startsWith(`${TXN_DIR}/`) || rel.startsWith(`${OLD_DIR}/`);

/**
 * The folders of out/ that synth owns whole: the top folders of the files it renders (`clusters/`,
 * and `argocd/` or `flux/` when the model delivers with them). A file in them that the model does
 * not render is pruned, whoever put it there; a folder the model renders nothing into is not synth's
 * (a team may keep its own Argo CD objects in `out/argocd/` when clusterset delivers with Flux).
 */
export function ownedFolders(files: Iterable<string>): Set<string> {
  const owned = new Set<string>();
  for (const rel of files) {
    const i = rel.indexOf('/');
    if (i > 0) owned.add(rel.slice(0, i));
  }
  return owned;
}

/** What is below outDir, relative, without our own bookkeeping. */
interface Listing {
  /** Files and directories. */
  readonly paths: Set<string>;
  /** Everything but directories (files, symbolic links). */
  readonly files: Set<string>;
}

function existingPaths(outDir: string): Listing {
  if (!fs.existsSync(outDir)) return { paths: new Set(), files: new Set() };
  const stat = fs.statSync(outDir);
  if (!stat.isDirectory()) {
    throw new WriteError(
      outDir,
      'it is a file, not a directory',
      'pass --out a directory (it is created if missing)',
    );
  }
  const all = io(outDir, () => fs.readdirSync(outDir, { recursive: true, withFileTypes: true }));
  const paths = new Set<string>();
  const files = new Set<string>();
  for (const e of all) {
    // parentPath starts with outDir as given: the relative path without path.relative's cost.
    const sub = e.parentPath.slice(outDir.length + 1);
    const rel = (sub === '' ? e.name : `${sub}${path.sep}${e.name}`).split(path.sep).join('/');
    if (isOurs(rel)) continue;
    paths.add(rel);
    if (!e.isDirectory()) files.add(rel);
  }
  return { paths, files };
}

function sameContent(file: string, content: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

interface Planned extends WritePlan {
  readonly existing: ReadonlySet<string>;
}

function plan(outDir: string, files: ReadonlyMap<string, string>): Planned {
  const { paths: existing, files: onDisk } = existingPaths(outDir);
  const write: string[] = [];
  const unchanged: string[] = [];
  // Only files that exist are read: one listing instead of a failing read per new file.
  for (const [rel, content] of files) {
    (existing.has(rel) && sameContent(path.join(outDir, rel), content) ? unchanged : write).push(rel);
  }
  const indexed = readIndex(outDir).filter((rel) => !files.has(rel) && onDisk.has(rel));
  const listed = new Set(indexed);
  const owned = ownedFolders(files.keys());
  const foreign = [...onDisk]
    .filter((rel) => {
      const i = rel.indexOf('/');
      return i > 0 && owned.has(rel.slice(0, i)) && !files.has(rel) && !listed.has(rel);
    })
    .sort();
  return { write, unchanged, prune: [...indexed, ...foreign], foreign, existing };
}

/** What an interrupted run left in out/: a journal to complete, staged files, older strays. */
export function strays(outDir: string): string[] {
  if (!fs.existsSync(outDir) || !fs.statSync(outDir).isDirectory()) return [];
  const out: string[] = [];
  for (const name of BOOKKEEPING) {
    if (fs.existsSync(path.join(outDir, name))) out.push(name);
  }
  for (const rel of fs.readdirSync(outDir, { recursive: true, encoding: 'utf8' })) {
    const p = rel.split(path.sep).join('/');
    if (LEGACY_STRAY.test(p) && !isOurs(p)) out.push(p);
  }
  return out.sort();
}

/** What writing `files` into `outDir` would change, and what an interrupted run left. Reads only. */
export function planWrite(
  outDir: string,
  files: ReadonlyMap<string, string>,
): WritePlan & { strays: string[] } {
  const { write, unchanged, prune, foreign } = plan(outDir, files);
  return { write, unchanged, prune, foreign, strays: strays(outDir) };
}

// ---------------------------------------------------------------------------------------------------
// Recovering, staging, applying

/** Removes the directories in `dirs` (and their parents below `root`) that are empty. Linear. */
function removeEmptyDirs(root: string, dirs: Iterable<string>): void {
  const top = path.resolve(root);
  const all = new Set<string>();
  for (const dir of dirs) {
    for (let d = path.resolve(dir); d.startsWith(top + path.sep) && !all.has(d); d = path.dirname(d))
      all.add(d);
  }
  // Deepest first, so that a parent is tried after its children. rmdir fails on a non-empty
  // directory: no listing is read.
  for (const d of [...all].sort((a, b) => b.length - a.length || (a < b ? -1 : 1))) {
    try {
      fs.rmdirSync(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw explain(e, d);
    }
  }
}

/** Whether `p` exists, itself: a symbolic link whose target is gone (a foreign one, say) counts. */
function present(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Renames `from` to `to`, making `to`'s directory first unless `made` says it exists. */
function move(from: string, to: string, made: Set<string>): void {
  const dir = path.dirname(to);
  if (!made.has(dir)) {
    io(dir, () => fs.mkdirSync(dir, { recursive: true }));
    made.add(dir);
  }
  io(to, () => fs.renameSync(from, to));
}

/**
 * Completes a committed write: every step can be repeated, and each file a staged one replaces, or
 * that is pruned, is kept under OLD_DIR until all are in place. Throws on the first failure, with
 * what is needed to roll back still in place.
 */
function applyForward(outDir: string, j: Journal): void {
  const txn = path.join(outDir, TXN_DIR);
  const old = path.join(outDir, OLD_DIR);
  const made = new Set<string>();
  let renamed = 0;
  for (const rel of j.rename) {
    const from = path.join(txn, rel);
    if (!fs.existsSync(from)) continue; // renamed by the run this one completes
    const to = path.join(outDir, rel);
    const kept = path.join(old, rel);
    if (fs.existsSync(to) && !fs.existsSync(kept)) move(to, kept, made);
    move(from, to, made);
    if (++renamed === Math.ceil(j.rename.length / 2)) faultPoint('applied-half');
  }
  for (const rel of j.prune) {
    const file = path.join(outDir, rel);
    const kept = path.join(old, rel);
    if (!present(file)) continue;
    if (present(kept)) io(file, () => fs.rmSync(file, { force: true }));
    else move(file, kept, made);
  }
  removeEmptyDirs(
    outDir,
    j.prune.map((rel) => path.dirname(path.join(outDir, rel))),
  );
  faultPoint('pruned');
}

/**
 * Ends a write whose files are all in place. The old files go before the journal: with a journal,
 * completing finds nothing left to do, and without one, OLD_DIR would be moved back.
 */
function finish(outDir: string): void {
  io(outDir, () => fs.rmSync(path.join(outDir, TXN_DIR), { recursive: true, force: true }));
  io(outDir, () => fs.rmSync(path.join(outDir, OLD_DIR), { recursive: true, force: true }));
  // The pending list goes before the journal: a pending list alone means "roll back".
  io(outDir, () => fs.rmSync(path.join(outDir, PENDING_FILE), { force: true }));
  io(outDir, () => fs.rmSync(path.join(outDir, JOURNAL_FILE), { force: true }));
}

/** Completes a committed write; when that fails, rolls it back and rethrows, out/ as it was. */
function apply(outDir: string, j: Journal): void {
  try {
    applyForward(outDir, j);
  } catch (e) {
    try {
      rollBack(outDir);
    } catch {
      // The first failure is the one to report; the next run rolls back what is left.
    }
    throw e;
  }
  finish(outDir);
}

/**
 * Undoes a write: committed (the journal goes first, so that an interrupted roll back is resumed,
 * not completed) or not. Moves back the files OLD_DIR keeps, removes the files the pending list says
 * it created, then the staging directory, the lists and OLD_DIR. Returns the number of new files
 * removed and of old ones put back.
 */
function rollBack(outDir: string): { removed: number; restored: number } {
  io(outDir, () => fs.rmSync(path.join(outDir, JOURNAL_FILE), { force: true }));
  const old = path.join(outDir, OLD_DIR);
  let restored = 0;
  if (fs.existsSync(old)) {
    const made = new Set<string>();
    const kept = io(old, () => fs.readdirSync(old, { recursive: true, withFileTypes: true }));
    for (const e of kept) {
      if (e.isDirectory()) continue;
      const from = path.join(e.parentPath, e.name);
      move(from, path.join(outDir, path.relative(old, from)), made);
      restored++;
    }
  }
  const pendingFile = path.join(outDir, PENDING_FILE);
  let created: readonly string[] = [];
  if (fs.existsSync(pendingFile)) {
    created = (JSON.parse(io(pendingFile, () => fs.readFileSync(pendingFile, 'utf8'))) as Pending).create;
    for (const rel of created) {
      const file = path.join(outDir, rel);
      io(file, () => fs.rmSync(file, { force: true }));
    }
    removeEmptyDirs(
      outDir,
      created.map((rel) => path.dirname(path.join(outDir, rel))),
    );
  }
  io(outDir, () => fs.rmSync(path.join(outDir, TXN_DIR), { recursive: true, force: true }));
  io(outDir, () => fs.rmSync(path.join(outDir, PENDING_TMP), { force: true }));
  io(outDir, () => fs.rmSync(pendingFile, { force: true }));
  io(outDir, () => fs.rmSync(path.join(outDir, JOURNAL_TMP), { force: true }));
  io(outDir, () => fs.rmSync(old, { recursive: true, force: true }));
  return { removed: created.length, restored };
}

/**
 * Brings out/ back to old-or-new after an interrupted run: completes a committed write, drops an
 * uncommitted one, removes strays of older versions. Returns what it did, for the user.
 */
export function recover(outDir: string): string | undefined {
  if (!fs.existsSync(outDir) || !fs.statSync(outDir).isDirectory()) return undefined;
  const journal = path.join(outDir, JOURNAL_FILE);
  const found = strays(outDir);
  if (found.length === 0) return undefined;
  let did: string;
  if (fs.existsSync(journal)) {
    const j = JSON.parse(io(journal, () => fs.readFileSync(journal, 'utf8'))) as Journal;
    apply(outDir, j);
    did = `completed an interrupted synth (${count(j.rename.length, 'file')} replaced, ${j.prune.length} pruned)`;
    io(outDir, () => fs.rmSync(path.join(outDir, JOURNAL_TMP), { force: true }));
    io(outDir, () => fs.rmSync(path.join(outDir, PENDING_TMP), { force: true }));
  } else {
    const { removed, restored } = rollBack(outDir);
    did = `dropped the staged files of an interrupted synth`;
    if (restored > 0) did += `, put back the ${count(restored, 'file')} it had replaced or pruned`;
    if (removed > 0) did += ` and removed the ${count(removed, 'new file')} it had written`;
  }
  const legacy = found.filter((p) => LEGACY_STRAY.test(p));
  for (const rel of legacy) io(outDir, () => fs.rmSync(path.join(outDir, rel), { force: true }));
  if (legacy.length > 0) did += `; removed ${legacy.length} temporary files of an older clusterset`;
  return did;
}

/** Fails, before anything is committed, where a target cannot be put in place. */
function checkTargets(outDir: string, rels: readonly string[], existing: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const rel of rels) {
    const target = path.join(outDir, rel);
    if (existing.has(rel) && fs.statSync(target).isDirectory()) {
      throw new WriteError(target, 'a directory is in the way of a file', 'remove that directory');
    }
    // The nearest existing ancestor must be a writable directory.
    for (let d = path.dirname(target); !seen.has(d); d = path.dirname(d)) {
      seen.add(d);
      let st: fs.Stats;
      try {
        st = fs.statSync(d);
      } catch {
        continue; // created on apply; its parent is checked next
      }
      if (!st.isDirectory()) {
        throw new WriteError(
          d,
          'it is a file where synth needs a directory',
          'remove that file, or choose another --out',
        );
      }
      io(d, () => fs.accessSync(d, fs.constants.W_OK));
      break;
    }
  }
}

/**
 * Writes what changed, as a transaction (see the top of this file). Throws a WriteError with out/
 * as it was when anything fails, before the commit or after it.
 */
export function writeOut(
  outDir: string,
  files: ReadonlyMap<string, string>,
): WritePlan & { recovered?: string } {
  const recovered = recover(outDir);
  const p = plan(outDir, files);
  const planned = { write: p.write, unchanged: p.unchanged, prune: p.prune, foreign: p.foreign };
  if (p.write.length === 0 && p.prune.length === 0)
    return { ...planned, ...(recovered ? { recovered } : {}) };
  // New files go straight to their place; files that replace one are staged and renamed, the index last.
  const create = p.write.filter((r) => r !== INDEX_FILE && !p.existing.has(r));
  const rename = [
    ...p.write.filter((r) => r !== INDEX_FILE && p.existing.has(r)),
    ...p.write.filter((r) => r === INDEX_FILE),
  ];
  const madeOut = io(outDir, () => fs.mkdirSync(outDir, { recursive: true }));
  const txn = path.join(outDir, TXN_DIR);
  try {
    checkTargets(outDir, p.write, p.existing);
    const made = new Set<string>();
    const put = (file: string, rel: string): void => {
      const dir = path.dirname(file);
      if (!made.has(dir)) {
        io(dir, () => fs.mkdirSync(dir, { recursive: true }));
        made.add(dir);
      }
      io(file, () => fs.writeFileSync(file, files.get(rel) ?? ''));
    };
    if (create.length > 0) {
      const pending: Pending = { version: 1, create };
      const tmp = path.join(outDir, PENDING_TMP);
      io(tmp, () => fs.writeFileSync(tmp, JSON.stringify(pending)));
      io(tmp, () => fs.renameSync(tmp, path.join(outDir, PENDING_FILE)));
      const half = create[Math.floor(create.length / 2)];
      for (const rel of create) {
        put(path.join(outDir, rel), rel);
        if (rel === half) faultPoint('created-half');
      }
    }
    const half = rename[Math.floor(rename.length / 2)];
    for (const rel of rename) {
      put(path.join(txn, rel), rel);
      if (rel === half) faultPoint('staged-half');
    }
    const journal: Journal = { version: 1, rename, prune: p.prune };
    const tmp = path.join(outDir, JOURNAL_TMP);
    io(tmp, () => fs.writeFileSync(tmp, JSON.stringify(journal)));
    faultPoint('journal-tmp');
    io(tmp, () => fs.renameSync(tmp, path.join(outDir, JOURNAL_FILE)));
    faultPoint('committed');
  } catch (e) {
    try {
      rollBack(outDir);
    } catch {
      // The first failure is the one to report; the next synth drops what is left.
    }
    if (madeOut) fs.rmSync(madeOut, { recursive: true, force: true });
    throw e;
  }
  apply(outDir, { version: 1, rename, prune: p.prune });
  return { ...planned, ...(recovered ? { recovered } : {}) };
}
