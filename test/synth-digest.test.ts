/**
 * The skipped compile (lib/synth.ts, lib/digest.ts): the digest cannot miss a change of the model or
 * of the compiler, and a skip happens only when out/ is exactly as the last write left it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JOURNAL_FILE } from '../lib/fs/write';
import { COMPILER_DIRS, compileDigest, dependencyClosure, encodeModel } from '../lib/digest';
import { INDEX_FILE } from '../lib/emit';
import { loadModelFile } from '../lib/load';
import { CACHE_FILE, modelOf, synthInto } from '../lib/synth';
import { minimalModel } from './helpers/models';

const ROOT = path.resolve(__dirname, '..');

test('the model encoding tells apart values that JSON does not', () => {
  const distinct: unknown[] = [
    0,
    -0,
    NaN,
    null,
    undefined,
    Infinity,
    -Infinity,
    '0',
    '',
    false,
    [],
    {},
    [undefined],
    // eslint-disable-next-line no-sparse-arrays
    [, 1],
    [undefined, 1],
    { a: undefined },
    { a: null },
    { a: 1, b: 2 },
    { b: 2, a: 1 },
    [1, [2]],
    [[1], 2],
    ['a,b'],
    ['a', 'b'],
    { 'a:s"b': 1 },
    { a: 's"b:1' },
    1e21,
    1e-7,
    '\u0435',
    'e',
  ];
  const codes = distinct.map((v) => encodeModel(v));
  for (const c of codes) assert.type(c, 'string');
  assert.is(new Set(codes).size, distinct.length, codes.join('\n'));
});

test('a model holding anything but plain data has no digest (it is always compiled)', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const v of [{ f: () => 1 }, { d: new Date(0) }, { m: new Map() }, cyclic, { [Symbol('s')]: 1 }, 1n]) {
    assert.is(encodeModel(v), undefined);
    assert.is(compileDigest(v), undefined);
  }
  // Shared (not cyclic) references are plain data.
  const shared = { x: 1 };
  assert.type(encodeModel({ a: shared, b: shared }), 'string');
});

/** Every leaf and every container of `v`, as a mutation that changes it. */
function* mutations(v: unknown): Generator<{ where: string; apply: (root: unknown) => unknown }> {
  const at = (root: unknown, p: readonly (string | number)[]): unknown =>
    p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], root);
  function* walk(
    node: unknown,
    p: (string | number)[],
  ): Generator<{ where: string; apply: (root: unknown) => unknown }> {
    const where = p.join('.') || '(root)';
    const edit = (f: (parent: Record<string | number, unknown>, key: string | number) => void) => ({
      where,
      apply: (root: unknown) => {
        const copy = structuredClone(root);
        f(at(copy, p.slice(0, -1)) as Record<string | number, unknown>, p[p.length - 1]!);
        return copy;
      },
    });
    if (typeof node === 'string') yield edit((o, k) => (o[k] = `${o[k] as string}x`));
    else if (typeof node === 'number') yield edit((o, k) => (o[k] = (o[k] as number) + 1));
    else if (typeof node === 'boolean') yield edit((o, k) => (o[k] = !(o[k] as boolean)));
    else if (Array.isArray(node)) {
      if (p.length > 0) yield edit((o, k) => (o[k] as unknown[]).pop());
      for (let i = 0; i < node.length; i++) yield* walk(node[i], [...p, i]);
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        yield {
          where: `${where}.${key} (deleted)`,
          apply: (root: unknown) => {
            const copy = structuredClone(root);
            delete (at(copy, p) as Record<string, unknown>)[key];
            return copy;
          },
        };
        yield* walk((node as Record<string, unknown>)[key], [...p, key]);
      }
    }
  }
  yield* walk(v, []);
}

test('every edit of the example model, at every path, changes the digest', async () => {
  const model = await loadModelFile(path.join(ROOT, 'clusterset.ts'));
  const base = compileDigest(model);
  assert.type(base, 'string');
  assert.ok(encodeModel(model)!.startsWith('J'), 'the example takes the JSON path');
  assert.ok(
    encodeModel({ ...(model as object), extra: undefined })!.startsWith('E'),
    'an undefined value takes the tagged path',
  );
  assert.is(compileDigest(structuredClone(model)), base, 'a copy has the same digest');
  let n = 0;
  for (const m of mutations({ root: model })) {
    const edited = (m.apply({ root: model }) as { root: unknown }).root;
    if (encodeModel(edited) === encodeModel(model)) continue; // deleting an undefined-valued key etc.
    n++;
    assert.is.not(compileDigest(edited), base, `edit at ${m.where} kept the digest`);
  }
  assert.ok(n > 100, `only ${n} edits tried`);
});

test('every module and file a compile loads is covered by the compiler digest', () => {
  // In a fresh process, so that only what a compile needs is loaded.
  const script = [
    "const { compile } = require('./lib/compile');",
    "const { minimalModel } = require('./test/helpers/models');",
    'const r = compile(minimalModel());',
    'if (r.diagnostics.length > 0) throw new Error(JSON.stringify(r.diagnostics));',
    'process.stdout.write(JSON.stringify(Object.keys(require.cache)));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['-r', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const loaded = JSON.parse(run.stdout) as string[];
  const closure = dependencyClosure().map((line) => path.join(ROOT, line.split(' ')[2] ?? '/nowhere'));
  const inDirs = (f: string) => COMPILER_DIRS.some((d) => f.startsWith(d + path.sep));
  const inClosure = (f: string) => closure.some((d) => f.startsWith(d + path.sep));
  const covered = (f: string) => inDirs(f) || inClosure(f) || f === path.join(ROOT, 'package.json');
  const uncovered = loaded.filter(
    (f) => !covered(f) && f !== path.join(ROOT, 'test', 'helpers', 'models.ts'),
  );
  assert.equal(uncovered, []);
  // Not vacuous: the compile loaded the compiler's own modules and its dependencies.
  assert.ok(loaded.filter(inDirs).length > 20, loaded.join('\n'));
  assert.ok(loaded.some((f) => f.includes(`${path.sep}node_modules${path.sep}js-yaml${path.sep}`)));
});

function tmpOut(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-digest-')), 'out');
}

test('an unchanged synth compiles nothing and writes nothing; a changed model compiles', () => {
  const out = tmpOut();
  const model = minimalModel();
  const first = synthInto(model, out);
  assert.ok(first.result, 'the first synth compiles');
  assert.ok(fs.existsSync(path.join(out, CACHE_FILE)));
  const second = synthInto(model, out);
  assert.is(second.result, undefined, 'skipped');
  assert.is(second.write.length, 0);
  assert.is(second.unchanged.length, first.write.length);
  const edited = minimalModel();
  edited.clusterSetId = 'other-set';
  const third = synthInto(edited, out);
  assert.ok(third.result, 'a changed model compiles');
  assert.ok(third.write.length > 0);
  assert.ok(synthInto(edited, out, { force: true }).result, '--force compiles');
});

test('a skip never hides an edited, removed or half-written out/', () => {
  const out = tmpOut();
  const model = minimalModel();
  synthInto(model, out);
  const rel = [...fs.readFileSync(path.join(out, INDEX_FILE), 'utf8').split('\n')].find((l) =>
    l.endsWith('.yaml'),
  )!;
  const file = path.join(out, rel);
  const original = fs.readFileSync(file, 'utf8');

  // Same size, other bytes, written right after the cache: its timestamp is not older than the cache's.
  fs.writeFileSync(file, original.replace(/a/, 'b'));
  const again = synthInto(model, out);
  assert.ok(again.result, 'an edited file makes synth compile');
  assert.equal(again.write, [rel]);
  assert.is(fs.readFileSync(file, 'utf8'), original);

  fs.rmSync(file);
  const restored = synthInto(model, out);
  assert.ok(restored.result, 'a removed file makes synth compile');
  assert.is(fs.readFileSync(file, 'utf8'), original);

  fs.writeFileSync(path.join(out, JOURNAL_FILE), JSON.stringify({ version: 1, rename: [], prune: [] }));
  assert.ok(synthInto(model, out).result, 'an interrupted write makes synth compile (and complete it)');
  assert.not.ok(fs.existsSync(path.join(out, JOURNAL_FILE)));

  fs.writeFileSync(path.join(out, CACHE_FILE), '{ not json');
  assert.ok(synthInto(model, out).result, 'a broken cache makes synth compile');
  assert.is(synthInto(model, out).result, undefined, 'and the next one skips again');
});

test('a skip never hides a file no synth wrote in a folder synth owns, even in a folder of its own; the write prunes it', () => {
  const out = tmpOut();
  const model = minimalModel();
  synthInto(model, out);
  const stray = path.join(out, 'clusters', 'gone', 'kube-system', 'Job.old.yaml');
  fs.mkdirSync(path.dirname(stray), { recursive: true });
  fs.writeFileSync(stray, 'kind: Job\n');
  const again = synthInto(model, out);
  assert.ok(again.result, 'a new folder in clusters/ makes synth compile');
  assert.equal(again.foreign, ['clusters/gone/kube-system/Job.old.yaml']);
  assert.not.ok(fs.existsSync(path.join(out, 'clusters', 'gone')));
  assert.is(synthInto(model, out).result, undefined, 'and the next one skips again');
});

test('the cache records the model file that last wrote out/, even through a skip', () => {
  const out = tmpOut();
  const model = minimalModel();
  assert.is(modelOf(out), undefined);
  synthInto(model, out, { modelFile: 'a.json' });
  assert.is(modelOf(out), path.resolve('a.json'));
  assert.is(synthInto(model, out, { modelFile: 'b.json' }).result, undefined, 'skipped');
  assert.is(modelOf(out), path.resolve('b.json'));
  assert.is(synthInto(model, out).result, undefined, 'the cache still says out/ is up to date');
});

test.run();
