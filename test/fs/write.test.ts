import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeOut } from '../../lib/fs/write';
import { INDEX_FILE } from '../../lib/emit';

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'cs-write-'));
const files = (entries: Record<string, string>): Map<string, string> => {
  const m = new Map(Object.entries(entries));
  m.set(INDEX_FILE, ['#', ...Object.keys(entries), ''].join('\n'));
  return m;
};

test('GIVEN an empty directory WHEN written twice THEN the second write rewrites nothing', () => {
  const dir = tmp();
  const f = files({ 'clusters/a/x.yaml': 'x: 1\n', 'clusters/a/y.yaml': 'y: 1\n' });
  assert.equal(writeOut(dir, f).write.length, 3);
  const mtime = fs.statSync(path.join(dir, 'clusters/a/x.yaml')).mtimeMs;
  const again = writeOut(dir, f);
  assert.equal(again.write, []);
  assert.equal(again.unchanged.length, 3);
  assert.equal(fs.statSync(path.join(dir, 'clusters/a/x.yaml')).mtimeMs, mtime);
});

test('GIVEN a file the model no longer produces WHEN written THEN it is pruned, and files we never wrote stay', () => {
  const dir = tmp();
  writeOut(dir, files({ 'clusters/a/x.yaml': 'x\n', 'clusters/b/y.yaml': 'y\n' }));
  fs.writeFileSync(path.join(dir, 'README.md'), 'mine');
  const r = writeOut(dir, files({ 'clusters/a/x.yaml': 'x\n' }));
  assert.equal(r.prune, ['clusters/b/y.yaml']);
  assert.not.ok(fs.existsSync(path.join(dir, 'clusters/b')));
  assert.ok(fs.existsSync(path.join(dir, 'README.md')));
});

test('GIVEN files no synth wrote in the folders synth owns (a stale Job, a whole folder, a dangling link) WHEN written THEN they are pruned and reported as foreign; files at the top of out/ and in folders the model renders nothing into stay', () => {
  const dir = tmp();
  writeOut(dir, files({ 'clusters/a/x.yaml': 'x\n', 'flux/k.yaml': 'k\n' }));
  const foreign = ['clusters/a/Job.old.yaml', 'clusters/gone/ns/y.yaml', 'flux/link.yaml'];
  fs.writeFileSync(path.join(dir, foreign[0]!), 'old\n');
  fs.mkdirSync(path.join(dir, 'clusters/gone/ns'), { recursive: true });
  fs.writeFileSync(path.join(dir, foreign[1]!), 'y\n');
  fs.symlinkSync('/nonexistent', path.join(dir, foreign[2]!));
  fs.writeFileSync(path.join(dir, 'README.md'), 'mine');
  fs.mkdirSync(path.join(dir, 'argocd'));
  fs.writeFileSync(path.join(dir, 'argocd/Application.ours.yaml'), 'the team’s own\n');
  const r = writeOut(dir, files({ 'clusters/a/x.yaml': 'x\n', 'flux/k.yaml': 'k\n' }));
  assert.equal(r.write, []);
  assert.equal(r.prune, foreign);
  assert.equal(r.foreign, foreign);
  for (const f of foreign) assert.not.ok(fs.existsSync(path.join(dir, f)) || isLink(path.join(dir, f)), f);
  assert.not.ok(fs.existsSync(path.join(dir, 'clusters/gone')), 'the folders they leave empty go too');
  assert.ok(fs.existsSync(path.join(dir, 'README.md')));
  assert.ok(fs.existsSync(path.join(dir, 'argocd/Application.ours.yaml')));
  assert.equal(writeOut(dir, files({ 'clusters/a/x.yaml': 'x\n', 'flux/k.yaml': 'k\n' })).prune, []);
});

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

test('fails without touching out/ GIVEN a write that cannot be staged', () => {
  const dir = tmp();
  writeOut(dir, files({ 'clusters/a/x.yaml': 'old\n' }));
  const before = fs.readFileSync(path.join(dir, 'clusters/a/x.yaml'), 'utf8');
  // A regular file where a directory must go makes staging fail part-way.
  fs.writeFileSync(path.join(dir, 'clusters/b'), 'blocker');
  assert.throws(() => writeOut(dir, files({ 'clusters/a/x.yaml': 'new\n', 'clusters/b/y.yaml': 'y\n' })));
  assert.equal(fs.readFileSync(path.join(dir, 'clusters/a/x.yaml'), 'utf8'), before);
  assert.equal(fs.readdirSync(path.join(dir, 'clusters/a')), ['x.yaml']);
});

test('fails leaving no new file or directory behind GIVEN a failure after new files were written', () => {
  const dir = tmp();
  writeOut(dir, files({ 'clusters/a/x.yaml': 'old\n' }));
  fs.writeFileSync(path.join(dir, 'clusters/b'), 'blocker');
  const before = fs.readdirSync(dir, { recursive: true }).sort();
  assert.throws(() => writeOut(dir, files({ 'clusters/c/d/z.yaml': 'z\n', 'clusters/b/y.yaml': 'y\n' })));
  assert.equal(fs.readdirSync(dir, { recursive: true }).sort(), before);
});

test.run();
