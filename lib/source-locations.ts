/**
 * Where a model path's value is written in the model file: `clusters[1].serviceCIDR` to
 * `clusterset.ts:28:20`, so that a diagnostic points an editor, or a GitHub annotation, at the line.
 * A path to a value that is not written (a required field left out) is located at the object that
 * lacks it.
 *
 * A `.json`, `.yaml` or `.yml` model is parsed again with js-yaml (JSON is YAML; `json: true` lets a
 * later duplicate key win, as JSON.parse does), whose parse events give where each node starts:
 * mappings, sequences, scalars and aliases, each at its first character.
 *
 * The loaded model is a value, with no memory of its source; the source is parsed again here, with
 * TypeScript's own parser (syntax only: no type checking, no program), resolved from the model's
 * directory first (a gitops repository that type-checks its model has it) and then from
 * clusterset's. Without TypeScript, there are no locations and the diagnostics keep their paths.
 * Only failing runs pay: nothing is parsed while a model is valid.
 *
 * What is followed, from the export `load.ts` takes (`default`, or `clusterSet`; `module.exports`):
 * object and array literals, spreads of them, parentheses, `as`/`satisfies`/`!`, `await`, top-level
 * `const`s by name (shorthand properties included), a function's returned value, and a call's first
 * argument (`defineClusterSet({...})`, `Promise.resolve({...})`). Where a value is computed (a
 * `.map`, a call to a function of the model's own), the location is that of the nearest value above
 * it that is written out: the line of the computed expression.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import type * as TS from 'typescript';

export interface SourceLocation {
  /** As the user named the model file. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  readonly column: number;
}

/** A model path as segments: property names and list indexes; undefined where it cannot be read. */
export function parseModelPath(p: string): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  const token = /\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;
  while (token.lastIndex < p.length) {
    const m = token.exec(p);
    if (!m) return out.length > 0 ? out : undefined;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else {
      try {
        out.push(JSON.parse(m[3]!) as string);
      } catch {
        return out;
      }
    }
  }
  return out;
}

function loadTypeScript(modelFile: string): typeof TS | undefined {
  for (const from of [path.resolve(modelFile), __filename]) {
    try {
      return createRequire(from)('typescript') as typeof TS;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/**
 * The locations of the values at `paths` in the model file, for those that can be found. Never
 * throws: a location is a help, and a TypeScript too old for this parser's calls (or a file that
 * changed since it was loaded) must not turn a report of the model's problems into a crash.
 */
export function locateModelPaths(file: string, paths: readonly string[]): Map<string, SourceLocation> {
  try {
    return locate(file, paths);
  } catch {
    return new Map();
  }
}

function locate(file: string, paths: readonly string[]): Map<string, SourceLocation> {
  const found = new Map<string, SourceLocation>();
  if (paths.length === 0) return found;
  if (DATA_FILE.test(file)) return locateInData(file, paths);
  if (!/\.[cm]?[jt]sx?$/.test(file)) return found;
  const ts = loadTypeScript(file);
  if (!ts) return found;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  const kind = /\.[cm]?jsx?$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const finder = new Finder(ts, sf);
  const root = finder.root();
  if (!root) return found;
  for (const p of paths) {
    const segments = parseModelPath(p);
    if (!segments) continue;
    const node = finder.walk(root, segments);
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.set(p, { file, line: line + 1, column: character + 1 });
  }
  return found;
}

/** Follows model paths through the syntax tree of one source file. */
class Finder {
  private readonly consts = new Map<string, TS.Expression>();

  constructor(
    private readonly ts: typeof TS,
    private readonly sf: TS.SourceFile,
  ) {
    for (const st of sf.statements) {
      if (!ts.isVariableStatement(st)) continue;
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.initializer) this.consts.set(d.name.text, d.initializer);
      }
    }
  }

  /** The model's expression: `export default`, `export const clusterSet`, or `module.exports =`. */
  root(): TS.Node | undefined {
    const ts = this.ts;
    let named: TS.Node | undefined;
    for (const st of this.sf.statements) {
      if (ts.isExportAssignment(st)) return st.expression;
      if (ts.isFunctionDeclaration(st) && st.body && hasModifier(ts, st, ts.SyntaxKind.DefaultKeyword))
        return st;
      if (
        ts.isExpressionStatement(st) &&
        ts.isBinaryExpression(st.expression) &&
        st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        st.expression.left.getText(this.sf) === 'module.exports'
      )
        return st.expression.right;
      if (ts.isVariableStatement(st) && hasModifier(ts, st, ts.SyntaxKind.ExportKeyword)) {
        for (const d of st.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.name.text === 'clusterSet' && d.initializer) named = d.initializer;
      }
    }
    return named;
  }

  /**
   * The node of the value at `segments` below `from`; where one cannot be followed (a property left
   * out), the object or list that lacks it, when it is written out (`export default clusterSet`
   * names the const's object literal), else the deepest node that can be followed.
   */
  walk(from: TS.Node, segments: readonly (string | number)[]): TS.Node {
    let at = from;
    for (const s of segments) {
      const next = this.child(this.unwrap(at), s, 0);
      if (!next) return this.written(at);
      at = next;
    }
    return at;
  }

  /**
   * The object or array literal `node` names through parentheses, casts, `await` and consts, or
   * `node` itself: never into a call or a function, whose literal (a `.map` callback's) is not the
   * value itself.
   */
  private written(node: TS.Node): TS.Node {
    const ts = this.ts;
    let at: TS.Node | undefined = node;
    for (let i = 0; at && i < 50; i++) {
      if (ts.isObjectLiteralExpression(at) || ts.isArrayLiteralExpression(at)) return at;
      if (
        ts.isParenthesizedExpression(at) ||
        ts.isAsExpression(at) ||
        ts.isSatisfiesExpression(at) ||
        ts.isNonNullExpression(at) ||
        ts.isTypeAssertionExpression(at) ||
        ts.isAwaitExpression(at)
      )
        at = at.expression;
      else if (ts.isIdentifier(at)) at = this.consts.get(at.text);
      else if (ts.isShorthandPropertyAssignment(at)) at = this.consts.get(at.name.text);
      else break;
    }
    return node;
  }

  /** The literal `node` stands for: through parentheses, casts, consts, returns and calls. */
  private unwrap(node: TS.Node, depth = 0): TS.Node {
    const ts = this.ts;
    if (depth > 50) return node;
    const again = (n: TS.Node | undefined): TS.Node => (n ? this.unwrap(n, depth + 1) : node);
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isAwaitExpression(node)
    )
      return again(node.expression);
    if (ts.isIdentifier(node)) return again(this.consts.get(node.text));
    if (ts.isShorthandPropertyAssignment(node)) return again(this.consts.get(node.name.text));
    if (ts.isCallExpression(node)) return again(node.arguments[0]);
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) {
      const body = node.body;
      if (!body) return node;
      if (!ts.isBlock(body)) return again(body);
      const last = [...body.statements].reverse().find(ts.isReturnStatement);
      return again(last?.expression);
    }
    return node;
  }

  /** The property or element `s` of the literal `lit`, looking into spreads; undefined if unknown. */
  private child(lit: TS.Node, s: string | number, depth: number): TS.Node | undefined {
    const ts = this.ts;
    if (depth > 20) return undefined;
    if (typeof s === 'string' && ts.isObjectLiteralExpression(lit)) {
      // The last property of that name wins, as in JavaScript; a later spread may hold it.
      for (const p of [...lit.properties].reverse()) {
        if (ts.isSpreadAssignment(p)) {
          const inner = this.child(this.unwrap(p.expression), s, depth + 1);
          if (inner) return inner;
        } else if (ts.isPropertyAssignment(p) && nameOf(ts, p.name) === s) {
          return p.initializer;
        } else if (ts.isShorthandPropertyAssignment(p) && p.name.text === s) {
          return p;
        }
      }
      return undefined;
    }
    if (typeof s === 'number' && ts.isArrayLiteralExpression(lit)) {
      let i = 0;
      for (const e of lit.elements) {
        if (ts.isSpreadElement(e)) {
          const inner = this.unwrap(e.expression);
          if (!ts.isArrayLiteralExpression(inner)) return undefined; // its length is not known here
          if (s < i + inner.elements.length) return this.child(inner, s - i, depth + 1);
          i += inner.elements.length;
          continue;
        }
        if (i === s) return e;
        i++;
      }
    }
    return undefined;
  }
}

function hasModifier(ts: typeof TS, node: TS.Node, kind: TS.SyntaxKind): boolean {
  return (
    (ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined)?.some((m) => m.kind === kind) ?? false
  );
}

function nameOf(ts: typeof TS, name: TS.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

// ---- JSON and YAML models ----

const DATA_FILE = /\.(json|ya?ml)$/i;

/** A node of a YAML (or JSON) document: where it starts, what it loaded as, the nodes inside it. */
interface DataNode {
  readonly start: number;
  result: unknown;
  readonly children: DataNode[];
}

/**
 * The document's nodes from js-yaml's parse events: each `open` starts a node inside the one still
 * open, each `close` gives it its value. A mapping's children are its keys and values in turn, a
 * sequence's its items. Undefined when the text does not parse.
 */
function dataTree(text: string, json: boolean): DataNode | undefined {
  const top: DataNode = { start: 0, result: undefined, children: [] };
  const open: DataNode[] = [top];
  try {
    yaml.load(text, {
      json,
      listener(event, state) {
        if (event === 'open') {
          const node: DataNode = { start: state.position, result: undefined, children: [] };
          open[open.length - 1]!.children.push(node);
          open.push(node);
        } else {
          const node = open.pop();
          if (node) node.result = (state as unknown as { result: unknown }).result;
        }
      },
    });
  } catch {
    return undefined;
  }
  return top.children[0];
}

/** js-yaml opens some nodes twice (a flow collection as a block item, the root of a JSON file). */
function inner(node: DataNode): DataNode {
  let n = node;
  while (n.children.length === 1 && Object.is(n.children[0]!.result, n.result)) n = n.children[0]!;
  return n;
}

/** The node at `segments` below `root`, or the mapping or sequence where the path stops. */
function walkData(root: DataNode, segments: readonly (string | number)[]): DataNode {
  let at = inner(root);
  for (const s of segments) {
    const kids = at.children;
    let next: DataNode | undefined;
    if (Array.isArray(at.result)) {
      if (typeof s === 'number' && kids.length === at.result.length) next = kids[s];
    } else if (typeof at.result === 'object' && at.result !== null && kids.length % 2 === 0) {
      // The last key of that name wins, as in the loaded value.
      for (let i = kids.length - 2; i >= 0 && !next; i -= 2) {
        if (String(inner(kids[i]!).result) === String(s)) next = kids[i + 1];
      }
    }
    if (!next) break;
    at = inner(next);
  }
  return at;
}

/** Where a node's text begins: past the spaces, line breaks and comments before it. */
function tokenStart(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
    if (text[i] !== '#') return i;
    while (i < text.length && text[i] !== '\n') i++;
  }
}

function locateInData(file: string, paths: readonly string[]): Map<string, SourceLocation> {
  const found = new Map<string, SourceLocation>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  // js-yaml drops a byte order mark before it counts positions.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const root = dataTree(text, /\.json$/i.test(file));
  if (!root) return found;
  // Line starts, to turn an offset into line and column.
  const lines = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.push(i + 1);
  for (const p of paths) {
    const segments = parseModelPath(p);
    if (!segments) continue;
    const at = tokenStart(text, walkData(root, segments).start);
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lines[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    found.set(p, { file, line: lo + 1, column: at - lines[lo]! + 1 });
  }
  return found;
}
