/**
 * The digest of a compile's inputs, which lets an unchanged synth skip the compile (lib/synth.ts).
 *
 * A compile is a pure function of the model value and of the compiler (no clock, no environment, no
 * file but the vendored CRDs). So the digest covers, and cannot miss a change in:
 * - the model: every value at every depth, in an encoding that is injective (its JSON when JSON
 *   writes it faithfully, else a form where each value is tagged with its type, strings are
 *   JSON-quoted, numbers keep -0, NaN and Infinity apart; object keys keep their order either way),
 *   so two models with one digest are the same value; a model holding anything
 *   but plain data (a function, a class instance, a cycle) has no digest and is always compiled;
 * - the compiler: the bytes of every file under `lib/`, `generated/` and `crds/` (of the sources, or
 *   of `dist/` when running compiled) and of its package.json, the name, version and place of every
 *   installed package in its runtime dependency closure, and the Node.js version;
 *   test/synth-digest.test.ts proves that every module a compile loads is among these.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CRD_DIR } from './crds';

/** The package root: the repository when running from sources, `dist/` when running compiled. */
const ROOT = path.resolve(__dirname, '..');

/** Folders whose every file is an input of the compiler. */
export const COMPILER_DIRS: readonly string[] = [
  path.join(ROOT, 'lib'),
  path.join(ROOT, 'generated'),
  CRD_DIR,
];

class NotPlainData extends Error {}

/** The injective encoding of a plain data value (see the top of this file). */
function encode(value: unknown, out: string[], ancestors: Set<object>): void {
  switch (typeof value) {
    case 'undefined':
      out.push('u');
      return;
    case 'boolean':
      out.push(value ? 't' : 'f');
      return;
    case 'number':
      out.push(`d${Object.is(value, -0) ? '-0' : String(value)};`);
      return;
    case 'string':
      out.push(`s${JSON.stringify(value)}`);
      return;
    case 'object':
      break;
    default:
      throw new NotPlainData(typeof value);
  }
  if (value === null) {
    out.push('n');
    return;
  }
  if (ancestors.has(value)) throw new NotPlainData('cycle');
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) out.push('h');
      else encode(value[i], out, ancestors);
      out.push(',');
    }
    out.push(']');
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length > 0)
      throw new NotPlainData('not a plain object');
    out.push('{');
    for (const key of Object.keys(value)) {
      out.push(`${JSON.stringify(key)}:`);
      encode((value as Record<string, unknown>)[key], out, ancestors);
      out.push(',');
    }
    out.push('}');
  }
  ancestors.delete(value);
}

/**
 * Whether JSON.stringify writes `value` faithfully: only strings, booleans, null, finite numbers
 * other than -0, arrays without holes, and plain objects without symbol keys or undefined values,
 * with no cycle. On such values JSON.stringify is injective (one spelling per string and number,
 * keys in their order), and native, several times faster than `encode`.
 */
function jsonFaithful(value: unknown, ancestors: Set<object>): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  let ok = true;
  if (Array.isArray(value)) {
    for (let i = 0; ok && i < value.length; i++) ok = i in value && jsonFaithful(value[i], ancestors);
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    ok = (proto === Object.prototype || proto === null) && Object.getOwnPropertySymbols(value).length === 0;
    for (const key in value) {
      if (!ok) break;
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      const v = (value as Record<string, unknown>)[key];
      ok = v !== undefined && jsonFaithful(v, ancestors);
    }
  }
  ancestors.delete(value);
  return ok;
}

/**
 * The model's encoding (exported for the tests), or undefined when it is not plain data: `J` and its
 * JSON when JSON writes it faithfully (almost every model), else `E` and the tagged encoding. The
 * two kinds of values are disjoint and each encoding is injective on its own, so the whole is too.
 */
export function encodeModel(model: unknown): string | undefined {
  if (jsonFaithful(model, new Set())) return `J${JSON.stringify(model)}`;
  const out: string[] = ['E'];
  try {
    encode(model, out, new Set());
  } catch (e) {
    if (e instanceof NotPlainData) return undefined;
    throw e;
  }
  return out.join('');
}

function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries
    .map((rel) => path.join(dir, rel))
    .filter((p) => fs.statSync(p).isFile())
    .sort();
}

/** The directory of package `name` as Node would resolve it from `from`, or undefined. */
function packageDir(name: string, from: string): string | undefined {
  for (let d = from; ; d = path.dirname(d)) {
    const dir = path.join(d, 'node_modules', name);
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(d) === d) return undefined;
  }
}

interface PackageJson {
  readonly version: string;
  readonly dependencies?: Record<string, string>;
}

const readPackage = (dir: string): PackageJson =>
  JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;

/**
 * `<name> <version> <dir>` of every installed package in the runtime dependency closure of the
 * package at `root`, sorted: whatever code a compile loads from node_modules is among them.
 */
export function dependencyClosure(root: string = ROOT): string[] {
  const seen = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const name of Object.keys(readPackage(dir).dependencies ?? {})) {
      const depDir = packageDir(name, dir);
      if (depDir === undefined) {
        seen.set(`missing:${name}`, `${name} missing`);
        continue;
      }
      if (seen.has(depDir)) continue;
      seen.set(depDir, `${name} ${readPackage(depDir).version} ${path.relative(root, depDir)}`);
      visit(depDir);
    }
  };
  visit(root);
  return [...seen.values()].sort();
}

let compilerDigestMemo: string | undefined;

/** The digest of the compiler itself (memoized per process). */
export function compilerDigest(): string {
  if (compilerDigestMemo !== undefined) return compilerDigestMemo;
  const h = createHash('sha256');
  h.update(`node ${process.version}\n`);
  h.update(fs.readFileSync(path.join(ROOT, 'package.json')));
  for (const dep of dependencyClosure()) h.update(`${dep}\n`);
  for (const dir of COMPILER_DIRS) {
    for (const file of filesUnder(dir)) {
      const bytes = fs.readFileSync(file);
      h.update(`${path.relative(ROOT, file)} ${bytes.length}\n`);
      h.update(bytes);
    }
  }
  compilerDigestMemo = h.digest('hex');
  return compilerDigestMemo;
}

/** The digest of compiling `model` with this compiler, or undefined when the model is not plain data. */
export function compileDigest(model: unknown): string | undefined {
  const encoded = encodeModel(model);
  if (encoded === undefined) return undefined;
  return createHash('sha256').update(compilerDigest()).update('\n').update(encoded).digest('hex');
}
