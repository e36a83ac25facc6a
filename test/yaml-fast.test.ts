/**
 * `dumpYaml` (the fast emitter) writes exactly the bytes of `dumpYamlReference` (js-yaml's dump with
 * our options), for every object the compiler renders and for seeded fuzz full of strings, numbers
 * and shapes that YAML treats specially.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { synthetic } from '../bench/synth/model';
import example from '../clusterset';
import { compile } from '../lib/compile';
import type { ClusterSetProps } from '../lib/model';
import { LEADER_APPLIED } from '../lib/render/flux';
import { HEALTH_CHECKS } from '../lib/render/health';
import { dumpYaml, dumpYamlReference, loadYaml } from '../lib/yaml';
import { caseNames, loadCase } from './helpers/golden';
import { prng } from './helpers/shuffle';

/** `dumpYaml(value)` equals the reference, or both throw the same message. */
function assertSame(value: unknown, what: string): string {
  let expected: string;
  try {
    expected = dumpYamlReference(value);
  } catch (e) {
    const message = (e as Error).message;
    assert.throws(
      () => dumpYaml(value),
      (f: Error) => f.message === message,
      `${what}: throws`,
    );
    return '';
  }
  const got = dumpYaml(value);
  if (got !== expected)
    assert.fixture(got, expected, `${what}: ${JSON.stringify(value)?.slice(0, 300) ?? String(value)}`);
  return expected;
}

// ---------------------------------------------------------------- every rendered object

const models: [string, ClusterSetProps][] = [
  ...caseNames().map((n): [string, ClusterSetProps] => [`case ${n}`, loadCase(n)]),
  ['the example clusterset.ts', example],
  ['synthetic(20, 200)', synthetic(20, 200)],
];

for (const [name, model] of models) {
  test(`GIVEN ${name} WHEN every object, emitted file and ConfigMap document is dumped THEN the bytes equal js-yaml's`, () => {
    const r = compile(model);
    assert.equal(r.diagnostics, [], 'compiles');
    const objects = [...r.bundles!.values(), ...r.delivery!.values()].flat();
    assert.ok(objects.length > 0);
    let documents = 0;
    for (const o of objects) {
      assertSame(o, `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
      // ConfigMap data that is itself YAML (Antrea's member controller config, the reconciler's
      // JSON) was dumped too; other values (the Lua of Argo CD's health checks) are text, not YAML.
      if (o.kind !== 'ConfigMap') continue;
      for (const [k, text] of Object.entries((o.data ?? {}) as Record<string, string>)) {
        if (!/\.(ya?ml|json)$/.test(k)) continue;
        const doc = loadYaml(text);
        if (doc === null || typeof doc !== 'object') continue;
        assertSame(doc, `ConfigMap ${o.metadata.name} ${k}`);
        documents++;
      }
    }
    let files = 0;
    for (const [p, text] of r.files) {
      if (!p.endsWith('.yaml')) continue;
      assert.is(assertSame(loadYaml(text), p), text, `${p} reloaded and dumped again`);
      files++;
    }
    assert.ok(files >= objects.length, 'every object file and kustomization.yaml was checked');
    if (name === 'synthetic(20, 200)') assert.ok(documents > 0, 'member controller configs were checked');
  });
}

// ---------------------------------------------------------------- seeded fuzz

const NASTY = [
  // YAML 1.1 / 1.2 words
  ...['yes', 'Yes', 'YES', 'no', 'No', 'NO', 'on', 'On', 'ON', 'off', 'Off', 'OFF', 'y', 'Y', 'n', 'N'],
  ...['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'null', 'Null', 'NULL', '~', '<<', 'tRue'],
  ...['yess', 'nullx', 'falsey', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', 'nan', 'inf', '=', '<'],
  // numbers as strings
  ...['010', '0o10', '0x1F', '0x1f_ff', '0b101', '0b', '0x', '1_000', '1__0', '_1', '1_', '1:30'],
  ...['190:20:30', '1:60', '_1:2', '1:2.5', '-1:30', '.5', '5.', '1e3', '1E3', '1e+3', '12e03'],
  ...['1.5e-3', '+1', '-1', '+0', '-0', '0', '00', '007', '08', '09', '0.', '.', '..', '1.2.3'],
  ...['1_0.5', '+.5', '-.5e+1', '1e', 'e3', '0777', '12345678901234567890', '1e999', '0x_'],
  ...['_12:30:45', '+123456', '.123456', '+1_000_000', '0b1010_1010', '1:20:30.5_', '2001-12-14 1:00:00'],
  // timestamps
  ...['2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '2002-12-14T00:00:00Z'],
  ...['2001-1-1', '2001-12-14T21:59:43', '20011214', '2001-12-14x'],
  // indicators first, inside, last
  ...['- a', '-a', '-', '--', '---', '...', '?a', '? a', '?', ':a', ': a', ':', ',a', '[a]', '{a}', '#a'],
  ...['&a', '*a', '!a', '!!str', '|a', '|', '>a', '>', "'a", '"a', '%a', '@a', '`a', '=a', '\\a', '^a'],
  ...['a: b', 'a:b', 'a :b', 'a:', 'a::', 'a: ', 'a #b', 'a#b', 'a #', '#', 'a,b', 'a[0]', 'a{b}'],
  ...['http://x.example:80/a?b=c#d', 'key=value', '$HOME', '(a)', ';a', '+a', '.a', '_a', '~a', '<a'],
  // quotes and spaces
  ...["it's", "'", "''", '"', 'say "hi"', ' a', 'a ', ' ', '  ', '', 'a  b', "a' b", 'a\\b', 'C:\\x'],
  // control characters, line breaks, tabs
  ...['a\tb', '\t', 'tab\t', '\ta', 'a\nb', 'a\n', 'a\n\n', 'a\n\n\n', '\n', '\n\n', '\na', ' a\nb'],
  ...['\n a', '\n\n  a\n', 'a\r\nb', 'a\rb', 'a\n b\n  c', 'x\n\ny', ' \n ', 'a \nb', 'a: b\nc: d'],
  ...['- a\n- b', '# c\nd', '\x00', '\x07', '\x1b', '\x7f', 'a\x08b', 'a\x0bb', 'a\x0cb'],
  // non-ASCII
  ...['é', 'naïve café', '日本語', '😀', 'a😀b', '\u2028', 'a\u2029b', '\u0085', '\u00a0x', '\u00a1'],
  ...['\ufeffbom', '\ufffd', '\ufffe', '\ud800', 'x\udc00', '\ud83d', 'é\nü', 'é\tü', '\u00a0\n'],
  // long
  'ab '.repeat(700),
  `${'x'.repeat(1030)}`,
  `${'line of text '.repeat(20)}\n`.repeat(5),
  'é'.repeat(600),
  'a\t'.repeat(600),
  // what the compiler renders that is code: Argo CD's Lua health checks, Flux's CEL
  ...HEALTH_CHECKS.flatMap((c) => [c.lua, c.current, c.failed]),
  LEADER_APPLIED,
];

/** Characters the random strings are made of. */
const ALPHABET = [...'aZ01 :#-?\'"\n\t.é_+~<|>!&*%@`,[]{}=\\/\r', '\u2028', '😀', '\x00', '\u00a0'];

const NUMBERS = [
  ...[0, -0, 1, -1, 42, 8080, 1.5, -2.25, 0.1, 1e21, -1e21, 1e-7, 1.5e-7, 1e100, 1.5e300, 5e-324],
  ...[2 ** 53, -(2 ** 53), 123456789012, NaN, Infinity, -Infinity, 100, 1e20, 0.000001],
];

const KEYS = [
  ...['apiVersion', 'kind', 'metadata', 'name', 'namespace', 'spec', 'data', 'a', 'b', 'Kind', 'names'],
  ...['apiversion', 'zz', '10', '9', 'A', '_', '__proto__', 'constructor', 'toString'],
];

function fuzzer(seed: number): () => unknown {
  const rnd = prng(seed);
  const int = (n: number): number => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const randomString = (): string => {
    let s = '';
    for (let n = int(12); n > 0; n--) s += pick(ALPHABET);
    return s;
  };
  const string = (): string => {
    const r = rnd();
    if (r < 0.45) return pick(NASTY);
    if (r < 0.75) return randomString();
    if (r < 0.85) return pick(NASTY) + pick(ALPHABET) + pick(NASTY);
    return pick(['east', 'team-01', 'app.kubernetes.io/name', '10.0.0.0/16', 'a b', 'Ab9']);
  };
  const key = (): string => (rnd() < 0.5 ? pick(KEYS) : string());
  const value = (depth: number): unknown => {
    const r = rnd();
    if (depth > 4 || r < 0.4) return string();
    if (r < 0.5) return pick(NUMBERS);
    if (r < 0.55) return rnd() < 0.5;
    if (r < 0.57) return null;
    if (r < 0.59) return undefined;
    if (r < 0.75) return Array.from({ length: int(5) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let n = int(6); n > 0; n--)
      // defineProperty: `__proto__` becomes an own key, as it is in parsed JSON.
      Object.defineProperty(o, key(), {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return o;
  };
  return () => value(0);
}

test('GIVEN 5,000 seeded random values full of YAML-special strings WHEN dumped THEN the bytes equal js-yaml, and the fuzz reached every style', () => {
  const seen = { plain: 0, single: 0, double: 0, literal: 0, literalDeep: 0, indicator: 0, explicitKey: 0 };
  for (const seed of [1, 2, 3, 4, 5]) {
    const next = fuzzer(seed);
    for (let i = 0; i < 1000; i++) {
      const out = assertSame(next(), `seed ${seed} value ${i}`);
      if (/(^|: |- )[a-z]/m.test(out)) seen.plain++;
      if (/(^|: |- )'/m.test(out)) seen.single++;
      if (/(^|: |- )"/m.test(out)) seen.double++;
      if (/: \|[-+]?\n/.test(out)) seen.literal++;
      if (/^ {4,}\S.*: \|/m.test(out)) seen.literalDeep++;
      if (/\|2[-+]?\n/.test(out)) seen.indicator++;
      if (/^ *\? /m.test(out)) seen.explicitKey++;
    }
  }
  for (const [style, n] of Object.entries(seen)) assert.ok(n > 0, `the fuzz wrote no ${style} scalar`);
});

test('GIVEN every nasty string as a key, and as a value at depths 0 to 4 in mappings and sequences THEN the bytes equal js-yaml', () => {
  for (const s of NASTY) {
    assertSame(s, 'alone');
    assertSame({ [s]: s }, 'key and value');
    assertSame([s, [s], { k: s }], 'in sequences');
    let nested: unknown = s;
    for (let depth = 0; depth < 4; depth++) {
      nested = depth % 2 === 0 ? { a: nested, [s]: 1 } : [nested, nested];
      assertSame(nested, `at depth ${depth + 1}`);
    }
  }
});

test('GIVEN numbers, booleans, nulls, undefined and empty collections THEN the bytes equal js-yaml', () => {
  for (const n of NUMBERS) assertSame({ n, a: [n] }, String(n));
  assertSame({ t: true, f: false, z: null, u: undefined, a: [undefined, null], e: [], o: {} }, 'scalars');
  assertSame({ u: undefined }, 'only undefined');
  assertSame([[], [[]], [{}], {}, [[1, 2], [3]], [{ a: [] }]], 'empties');
  assertSame(undefined, 'undefined');
  assertSame(null, 'null');
  // eslint-disable-next-line no-sparse-arrays
  assertSame([1, , 3], 'sparse');
  assertSame([], 'empty');
  assertSame({}, 'empty object');
});

test('GIVEN values js-yaml writes in its own ways (dates, class instances, null prototypes, typed arrays, long keys) THEN the bytes equal js-yaml', () => {
  class Point {
    x = 1;
    y = 'yes';
  }
  const bare = Object.create(null) as Record<string, unknown>;
  bare.kind = 'K';
  bare.b = 'no';
  assertSame({ when: new Date(0), p: new Point(), bare, bytes: new Uint8Array([1, 2]) }, 'objects');
  assertSame({ ['k'.repeat(1025)]: 'v', small: 1 }, 'a key longer than 1024');
  assertSame({ ['é'.repeat(1025)]: 'v' }, 'a non-ASCII key longer than 1024');
  assertSame({ ['\x01'.repeat(300)]: 'v' }, 'a key whose escapes pass 1024');
  assertSame({ a: [1, { b: new Point() }] }, 'deep instance');
});

test('fails like js-yaml on values js-yaml refuses (functions, symbols, bigints)', () => {
  assert.throws(() => dumpYaml({ f: () => 1 }), /unacceptable kind of an object to dump/);
  assertSame({ f: () => 1 }, 'function');
  assertSame({ s: Symbol('s') }, 'symbol');
  assertSame({ b: 10n }, 'bigint');
  assertSame({ o: { [Symbol.toStringTag]: 'Thing', a: 1 } }, 'an object with its own toString tag');
});

test.run();
