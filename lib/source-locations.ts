/**
 * Where a model path's value is written in a `.ts`/`.js` model: `clusters[1].serviceCIDR` to
 * `clusterset.ts:28:20`, so that a diagnostic points an editor, or a GitHub annotation, at the line.
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
  if (!/\.[cm]?[jt]sx?$/.test(file) || paths.length === 0) return found;
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

  /** The node of the value at `segments` below `from`, or the deepest one that can be followed. */
  walk(from: TS.Node, segments: readonly (string | number)[]): TS.Node {
    let at = from;
    for (const s of segments) {
      const next = this.child(this.unwrap(at), s, 0);
      if (!next) break;
      at = next;
    }
    return at;
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
