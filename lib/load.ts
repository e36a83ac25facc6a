/**
 * Load: a model file → the model value. `.ts`/`.js` modules export it as `default` or `clusterSet`
 * (a value, a function returning one, or either of those as a Promise); `.json`, `.yaml` and `.yml`
 * files hold it as data. TypeScript models load because the CLI runs under tsx.
 *
 * A model is user code and user data, so loading guards against what they can do wrong: a thrown
 * value that is not an Error, a call to process.exit, a promised model that never settles (refused
 * at once when nothing could settle it, else after CLUSTERSET_MODEL_TIMEOUT), YAML aliases that
 * expand without bound or refer to themselves. Each becomes an Error whose message says what happened.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { GO_DURATION, durationNanos } from './duration';
import { loadYaml } from './yaml';

/**
 * At most this many nodes once YAML aliases are expanded (each alias counted as a copy of what it
 * names). Models of 1,000 clusters and 16,000 Services stay far below it; alias bombs go far over.
 */
export const MAX_EXPANDED_NODES = 5_000_000;

/** What a model threw, in words, whether it is an Error or not. */
export function describeThrown(e: unknown): string {
  if (e instanceof Error) return e.message;
  const shown = typeof e === 'string' ? JSON.stringify(e) : inspect(e, { depth: 2, breakLength: Infinity });
  return `it threw ${shown.length > 200 ? `${shown.slice(0, 197)}...` : shown}, which is not an Error`;
}

/** Thrown in place of process.exit() while a model loads. */
class ModelExit extends Error {
  constructor(readonly code: unknown) {
    super(`the model called process.exit(${code === undefined ? '' : inspect(code)}) while loading`);
  }
}

/** Runs `f` with process.exit turned into an exception, so a model cannot end the process. */
async function withoutExit<T>(f: () => T | Promise<T>): Promise<T> {
  const real = process.exit;
  process.exit = ((code?: unknown) => {
    throw new ModelExit(code);
  }) as typeof process.exit;
  try {
    return await f();
  } finally {
    process.exit = real;
  }
}

/**
 * The number of nodes of `value` with every shared reference counted as a copy (what a YAML alias
 * expands to), computed once per distinct node. Throws on a cycle or past `limit`.
 */
export function expandedSize(value: unknown, limit = MAX_EXPANDED_NODES): number {
  const size = new Map<object, number>();
  const open = new Set<object>();
  const visit = (v: unknown): number => {
    if (typeof v !== 'object' || v === null) return 1;
    const known = size.get(v);
    if (known !== undefined) return known;
    if (open.has(v))
      throw new Error('a YAML alias refers to a node that contains it (a cycle); write the data out');
    open.add(v);
    let n = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      n += visit(child);
      if (n > limit) {
        throw new Error(
          `its YAML aliases expand to more than ${limit.toLocaleString('en-US')} nodes; ` +
            'a model that size is an alias bomb, not a ClusterSet: write the data out without nested aliases',
        );
      }
    }
    open.delete(v);
    size.set(v, n);
    return n;
  };
  return visit(value);
}

function readData(abs: string, ext: string): unknown {
  const text = fs.readFileSync(abs, 'utf8');
  if (ext === '.json') return JSON.parse(text);
  const value = loadYaml(text);
  expandedSize(value);
  return value;
}

/**
 * TypeScript models load through tsx's CommonJS loader: already there when clusterset runs from its
 * sources, registered here on first use when it runs compiled (the installed package).
 */
function loadTypeScript(abs: string): void {
  if (!/\.[cm]?ts$/.test(abs) || require.extensions['.ts']) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('tsx/cjs');
}

function exported(file: string, abs: string): unknown {
  loadTypeScript(abs);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(abs) as Record<string, unknown>;
  const value = mod.default ?? mod.clusterSet;
  if (value === undefined) {
    throw new Error(
      `${file} exports neither \`default\` nor \`clusterSet\`; export the ClusterSetProps value as one of them`,
    );
  }
  return typeof value === 'function' ? (value as () => unknown)() : value;
}

/** How long a promised model may take to settle by default: 60 s. */
export const DEFAULT_MODEL_TIMEOUT = '60s';

/** The environment variable that sets that bound, as a Go duration (`90s`, `5m`). */
export const MODEL_TIMEOUT_ENV = 'CLUSTERSET_MODEL_TIMEOUT';

/** The bound in milliseconds, from `CLUSTERSET_MODEL_TIMEOUT` or the default; throws on a bad value. */
export function modelTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MODEL_TIMEOUT_ENV] || DEFAULT_MODEL_TIMEOUT;
  const ns = GO_DURATION.test(raw) ? durationNanos(raw) : undefined;
  if (ns === undefined || ns < 1_000_000n)
    throw new Error(
      `${MODEL_TIMEOUT_ENV}=${JSON.stringify(raw)} is not a duration of at least 1ms; set it like ${MODEL_TIMEOUT_ENV}=90s`,
    );
  return Number(ns / 1_000_000n);
}

/**
 * `value` once it settles, or an error saying why it will not: at once when the event loop has
 * nothing left that could settle it (Node would otherwise exit 0, silently, with the promise
 * pending), or after `timeoutMs` while something (a timer, a socket) keeps it waiting.
 */
/** A promised model that did not settle: what it left running may keep the process alive. */
export class ModelSettleError extends Error {}

async function settled(value: unknown, file: string, timeoutMs: number): Promise<unknown> {
  if (!(value instanceof Promise)) return value;
  let timer: NodeJS.Timeout | undefined;
  let onIdle: (() => void) | undefined;
  const never = new Promise<never>((_, reject) => {
    const fail = (why: string): void =>
      reject(
        new ModelSettleError(
          `the model's promise ${why}; make ${file} export a value, or a promise that resolves (${MODEL_TIMEOUT_ENV} sets the bound)`,
        ),
      );
    // Unreferenced: it keeps nothing alive, so an idle loop still reaches beforeExit.
    timer = setTimeout(() => fail(`did not settle within ${timeoutMs} ms`), timeoutMs).unref();
    onIdle = () => fail('can never settle: nothing is left pending that could resolve it');
    process.once('beforeExit', onIdle);
  });
  try {
    return await Promise.race([value, never]);
  } finally {
    clearTimeout(timer);
    if (onIdle) process.off('beforeExit', onIdle);
  }
}

/**
 * The model in `file`, awaited when the module exports it as a Promise or an async function, within
 * `timeoutMs` (modelTimeoutMs: CLUSTERSET_MODEL_TIMEOUT, 60 s by default).
 */
export async function loadModelFile(file: string, timeoutMs = modelTimeoutMs()): Promise<unknown> {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new Error(`model file ${file} does not exist`);
  const ext = path.extname(abs);
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') return readData(abs, ext);
  try {
    return await withoutExit(() => settled(exported(file, abs), file, timeoutMs));
  } catch (e) {
    throw new Error(describeThrown(e), { cause: e });
  }
}

/**
 * The model in `file`, synchronously: for tests and tools that load known-good models. A promised
 * model is refused here; the CLI awaits it (loadModelFile).
 */
export function loadModel(file: string): unknown {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs)) throw new Error(`model file ${file} does not exist`);
  const ext = path.extname(abs);
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') return readData(abs, ext);
  const value = exported(file, abs);
  if (value instanceof Promise)
    throw new Error(`${file} exports a promised model; load it with loadModelFile`);
  return value;
}
