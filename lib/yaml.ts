/**
 * YAML output. js-yaml writes YAML 1.2 and already quotes the YAML 1.1 booleans, nulls, octals,
 * floats and sexagesimals that Kubernetes tooling (YAML 1.1 parsers) would misread; the one gap is
 * 1.1's underscore digit groups (`1_000`), which an extra implicit type here makes it quote too.
 * Keys are written in one documented total order (`compareKeys`), whatever order objects were built in.
 *
 * `dumpYaml` writes exactly the bytes of `dumpYamlReference` (js-yaml's `dump` with `DUMP_OPTIONS`),
 * several times faster: a small emitter for the plain JSON data the renderers produce that mirrors
 * js-yaml 4's block style for these options (2-space indent, `- ` items with a mapping's first key on
 * the dash line, `[]`/`{}` when empty, js-yaml's spelling of numbers). It styles printable ASCII
 * strings itself: on one line, plain when js-yaml's character rules allow it and neither an implicit
 * type of YAML_SCHEMA nor js-yaml's YAML 1.1 compatibility rules would read the text as something
 * else, single-quoted otherwise; over several lines, a literal block (`|`) indented for its depth.
 * Any other string (tabs, control characters, non-ASCII) is styled by js-yaml itself, alone; values
 * js-yaml writes its own way (dates, class instances, typed arrays, keys over 1024 characters) send the
 * whole value to js-yaml. test/yaml-fast.test.ts proves the bytes equal for every rendered object of
 * the golden cases, the example and a synthetic model, and for seeded fuzz.
 */
import * as yaml from 'js-yaml';

const YAML11_NUMBER_TAG = 'tag:clusterset/yaml11-number';
const yaml11Numbers = new yaml.Type(YAML11_NUMBER_TAG, {
  kind: 'scalar',
  // YAML 1.1 ints and floats with `_` separators, binary ints, and base-60 numbers.
  resolve: (s: string | null) =>
    s !== null &&
    (/^[-+]?(0b[01_]+|0[0-7_]+|(0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(:[0-5]?[0-9])+)$/.test(s) ||
      /^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$/.test(s)) &&
    /[_:b]|^[-+]?0[0-7]/.test(s),
  construct: (s: string) => s,
});

export const YAML_SCHEMA = yaml.DEFAULT_SCHEMA.extend({ implicit: [yaml11Numbers] });

/** Keys that come first, in this order, wherever they appear; all other keys follow by code unit. */
const FIRST_KEYS = ['apiVersion', 'kind', 'metadata', 'name', 'namespace'];
const FIRST_RANK = new Map(FIRST_KEYS.map((k, i) => [k, i]));

/** The documented total order of keys at every level of every object. */
export function compareKeys(a: string, b: string): number {
  const ra = FIRST_RANK.get(a) ?? FIRST_KEYS.length;
  const rb = FIRST_RANK.get(b) ?? FIRST_KEYS.length;
  return ra - rb || (a < b ? -1 : a > b ? 1 : 0);
}

const DUMP_OPTIONS: yaml.DumpOptions = {
  schema: YAML_SCHEMA,
  noRefs: true,
  lineWidth: -1,
  sortKeys: compareKeys,
};

/** js-yaml's own dump with our options: what `dumpYaml` must equal byte for byte. */
export function dumpYamlReference(value: unknown): string {
  return yaml.dump(value, DUMP_OPTIONS);
}

export function dumpYaml(value: unknown): string {
  try {
    const text = node(value, 0, true);
    return text === undefined ? '' : `${text}\n`;
  } catch (e) {
    if (e === NOT_FAST) return dumpYamlReference(value);
    throw e;
  }
}

export function loadYaml(text: string): unknown {
  return yaml.load(text);
}

// ---------------------------------------------------------------- the fast emitter

/** Thrown (preallocated) when a value needs js-yaml as a whole; `dumpYaml` then calls it. */
const NOT_FAST = new Error('not on the fast YAML path');

/**
 * The implicit types js-yaml tries on a string before writing it plain. js-yaml's schema objects
 * carry them at run time; the types (@types/js-yaml) do not say so. `ambiguous` below knows which
 * first characters these can match: a new implicit type must be added there, hence the check.
 */
const IMPLICIT: readonly yaml.Type[] = (() => {
  const implicit = (YAML_SCHEMA as unknown as { implicit?: unknown }).implicit;
  const known = ['null', 'bool', 'int', 'float', 'timestamp', 'merge']
    .map((t) => `tag:yaml.org,2002:${t}`)
    .concat(YAML11_NUMBER_TAG);
  if (
    !Array.isArray(implicit) ||
    implicit.map((t: { tag?: unknown }) => t.tag).join() !== known.join() ||
    !implicit.every((t) => t instanceof yaml.Type)
  )
    throw new Error("lib/yaml.ts: YAML_SCHEMA's implicit types changed: update `ambiguous` and this list");
  return implicit as yaml.Type[];
})();

/** js-yaml quotes these for YAML 1.1 readers before asking the schema (its `noCompatMode` off). */
const DEPRECATED_BOOLEANS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON']);
for (const s of ['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']) DEPRECATED_BOOLEANS.add(s);
const DEPRECATED_BASE60 = /^[-+]?[0-9_]+(?::[0-9_]+)+(?:\.[0-9_]*)?$/;

/** Printable ASCII on one line (space included): js-yaml writes such a string plain or single-quoted. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/**
 * Printable ASCII that js-yaml's character rules let stand plain in block context: a first character
 * that is not an indicator (`-?:,[]{}#&*!|=>'"%@\``) or a space, a last character that is not a space
 * or `:`, and (checked apart) no `: ` and no ` #` inside.
 */
const PLAIN_CHARS = /^[A-Za-z0-9$()+./;<\\^_~](?:[\x20-\x7e]*[\x21-\x39\x3b-\x7e])?$/;
/** First characters with which some implicit type or compatibility rule can match a string. */
const MAYBE_TYPED_FIRST = /^[-+._0-9~<]/;

/**
 * Whether js-yaml would read `s` back as something other than a string, so it must quote it. Longer
 * than 5 characters (the longest word: `false`), only a string starting with a sign, digit, `.`, `_`
 * (base 60), `~` or `<` (merge) can match one of IMPLICIT or the compatibility rules.
 */
function ambiguous(s: string): boolean {
  if (s.length > 5 && !MAYBE_TYPED_FIRST.test(s)) return false;
  if (DEPRECATED_BOOLEANS.has(s) || DEPRECATED_BASE60.test(s)) return true;
  for (const t of IMPLICIT) if (t.resolve(s)) return true;
  return false;
}

/**
 * Printable one-line ASCII strings already written (the same text as key or value, at any depth):
 * names, labels and keys repeat across objects. Short ones only, and at most MAX_SCALARS.
 */
const SCALARS = new Map<string, string>();
const MAX_SCALARS = 50_000;
const MAX_SCALAR_LENGTH = 100;

function remember(s: string, text: string): string {
  if (s.length <= MAX_SCALAR_LENGTH) {
    if (SCALARS.size >= MAX_SCALARS) SCALARS.clear();
    SCALARS.set(s, text);
  }
  return text;
}

/** A printable one-line ASCII string as js-yaml writes it, key or value, at any depth. */
function asciiScalar(s: string): string {
  return PLAIN_CHARS.test(s) && !s.includes(': ') && !s.includes(' #') && !ambiguous(s)
    ? s
    : `'${s.replace(/'/g, "''")}'`;
}

/** Printable ASCII over several lines: js-yaml writes such a value as a literal block. */
const PRINTABLE_ASCII_LINES = /^[\x20-\x7e\n]*$/;

/**
 * A value string at `level` (js-yaml's writeNode level). Printable ASCII on one line or several is
 * written here; any other string by js-yaml itself, alone at the top level, which differs from
 * `level` only in the indentation of a literal block.
 */
function valueScalar(s: string, level: number): string {
  const cached = SCALARS.get(s);
  if (cached !== undefined) return cached;
  if (PRINTABLE_ASCII.test(s)) return remember(s, asciiScalar(s));
  if (PRINTABLE_ASCII_LINES.test(s)) return literal(s, level);
  const text = dumpYamlReference(s).slice(0, -1);
  return text.charCodeAt(0) === 0x7c /* | */ ? literal(s, level) : text;
}

/**
 * js-yaml's literal block (`|`) for a value with line breaks at `level`: an indentation indicator
 * when the text starts with a space (after any empty lines), strip (`-`), clip or keep (`+`)
 * chomping after the final line breaks, and every non-empty line indented by 2 x max(1, level).
 */
function literal(s: string, level: number): string {
  const indent = ' '.repeat(2 * Math.max(1, level));
  const clip = s.endsWith('\n');
  const keep = clip && (s === '\n' || s.charCodeAt(s.length - 2) === 0x0a);
  const header = `|${/^\n* /.test(s) ? '2' : ''}${keep ? '+' : clip ? '' : '-'}\n`;
  const lines = s.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i] !== '') lines[i] = indent + lines[i];
  const body = lines.join('\n');
  return header + (clip ? body.slice(0, -1) : body);
}

/** Longest key js-yaml writes as a simple `key: value` (longer ones become `? key` pairs). */
const MAX_SIMPLE_KEY = 1024;

function keyScalar(k: string): string {
  let text = SCALARS.get(k);
  if (text !== undefined) return text;
  if (PRINTABLE_ASCII.test(k)) text = remember(k, asciiScalar(k));
  else {
    // js-yaml writes it as a key; `{ [k]: 0 }` dumps to `<key>: 0\n`, or `? <key>\n: 0\n` when long.
    const pair = dumpYamlReference({ [k]: 0 });
    if (pair.charCodeAt(0) === 0x3f /* ? */) throw NOT_FAST;
    text = pair.slice(0, -4);
  }
  if (text.length > MAX_SIMPLE_KEY) throw NOT_FAST;
  return text;
}

/** js-yaml's spelling of a number: its int type for integers, its float type otherwise. */
function numberScalar(n: number): string {
  if (n % 1 === 0 && !Object.is(n, -0)) return n.toString(10);
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  if (Object.is(n, -0)) return '-0.0';
  const s = n.toString(10);
  return /^[-+]?[0-9]+e/.test(s) ? s.replace('e', '.e') : s;
}

const NEWLINES: string[] = [];
/** A line break and the indentation of `level`. */
function newline(level: number): string {
  return (NEWLINES[level] ??= `\n${' '.repeat(2 * level)}`);
}

/**
 * js-yaml's writeNode in block context: the text of `value` at `level`, or undefined for
 * `undefined` (a mapping drops the pair, a sequence writes null). `compact`: a collection's first
 * entry goes on the current line (sequence items and the document itself) rather than the next.
 */
function node(value: unknown, level: number, compact: boolean): string | undefined {
  switch (typeof value) {
    case 'string':
      return valueScalar(value, level);
    case 'number':
      return numberScalar(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return undefined;
    case 'object': {
      if (value === null) return 'null';
      const kind = Object.prototype.toString.call(value);
      if (kind === '[object Array]') return sequence(value as readonly unknown[], level, compact);
      const proto = Object.getPrototypeOf(value) as unknown;
      if (kind === '[object Object]' && (proto === Object.prototype || proto === null))
        return mapping(value as Record<string, unknown>, level, compact);
      throw NOT_FAST;
    }
    default:
      throw NOT_FAST;
  }
}

function sequence(items: readonly unknown[], level: number, compact: boolean): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const text = node(items[i], level + 1, true) ?? 'null';
    if (!compact || out !== '') out += newline(level);
    out += text.charCodeAt(0) === 0x0a ? `-${text}` : `- ${text}`;
  }
  return out === '' ? '[]' : out;
}

/** FIRST_KEYS, spelled out: faster than a Map lookup per key (checked against FIRST_KEYS below). */
function isFirstKey(k: string): boolean {
  return k === 'apiVersion' || k === 'kind' || k === 'metadata' || k === 'name' || k === 'namespace';
}
if (!FIRST_KEYS.every((k, i) => isFirstKey(k) && (i === 0 || FIRST_KEYS[i - 1]! < k)))
  throw new Error('lib/yaml.ts: isFirstKey must list FIRST_KEYS, and FIRST_KEYS be in code-unit order');

/** Whether `keys` already are in compareKeys order (objects are often built that way). */
function inOrder(keys: readonly string[]): boolean {
  let prev = keys[0]!;
  let prevFirst = isFirstKey(prev);
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    const first = isFirstKey(k);
    if (!(first ? prevFirst && prev < k : prevFirst || prev < k)) return false;
    prev = k;
    prevFirst = first;
  }
  return true;
}

/**
 * `Object.keys(o).sort(compareKeys)`, faster: FIRST_KEYS are themselves in code-unit order, so the
 * order is the code-unit sort with the FIRST_KEYS present moved to the front, keeping their order.
 */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  if (keys.length < 2 || inOrder(keys)) return keys;
  keys.sort();
  let firsts = 0;
  for (let i = 0; i < keys.length; i++) if (isFirstKey(keys[i]!)) firsts++;
  if (firsts === 0) return keys;
  const front: string[] = [];
  const rest: string[] = [];
  for (const k of keys) (isFirstKey(k) ? front : rest).push(k);
  return front.concat(rest);
}

function mapping(o: Record<string, unknown>, level: number, compact: boolean): string {
  const keys = sortedKeys(o);
  let out = '';
  for (const k of keys) {
    const text = node(o[k], level + 1, false);
    if (text === undefined) continue;
    if (!compact || out !== '') out += newline(level);
    out += keyScalar(k) + (text.charCodeAt(0) === 0x0a ? ':' : ': ') + text;
  }
  return out === '' ? '{}' : out;
}
