/**
 * The model reference (docs/reference/model.md), written from lib/model.ts itself: the root type
 * (`ClusterSetProps`) and every type it reaches, each field with its type, whether it is required,
 * its `@default` and its doc comment (`@example`, `@see` included). The doc comments are the only
 * text: the reference is never written by hand, and `npm run docs:check` fails when it is stale.
 *
 * Syntax only (TypeScript's parser, no type checker): the model is plain interfaces and type aliases
 * in one file, which is what keeps it readable. A construct this does not know fails loudly, naming
 * it, rather than being left out of the reference.
 */
import * as fs from 'node:fs';
import * as ts from 'typescript';

/** A declaration of the model file, by name. */
type Decl = ts.InterfaceDeclaration | ts.TypeAliasDeclaration;

interface Doc {
  readonly text: string;
  readonly defaults: readonly string[];
  readonly examples: readonly string[];
  readonly sees: readonly string[];
}

function docOf(node: ts.Node): Doc {
  const text: string[] = [];
  const defaults: string[] = [];
  const examples: string[] = [];
  const sees: string[] = [];
  // Only the comment right before the node: the first declaration also carries the file's own.
  for (const d of ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).slice(-1)) {
    const t = ts.getTextOfJSDocComment(d.comment);
    if (t) text.push(t);
    for (const tag of d.tags ?? []) {
      const body = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
      const name = tag.tagName.text;
      if (name === 'default') defaults.push(body);
      else if (name === 'example') examples.push(body);
      else if (name === 'see') sees.push(body);
      else
        throw new Error(
          `model reference: @${name} (on ${firstLine(node)}) is not a tag this reference renders`,
        );
    }
  }
  return { text: text.join('\n\n'), defaults, examples, sees };
}

function firstLine(node: ts.Node): string {
  return node.getText().split('\n')[0] ?? '';
}

/** Paragraphs of a comment, each on one line, with `<` outside code spans made literal. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => escapeProse(p.replace(/\s*\n\s*/g, ' ').trim()))
    .filter((p) => p !== '');
}

/** `<` and `{{` outside backticks would be HTML and Vue on the site: made literal. */
export function escapeProse(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/\{\{/g, '&#123;&#123;')))
    .join('');
}

/** A code span for any text, backticks included. */
function code(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const ticks = t.includes('`') ? '``' : '`';
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${t}${pad}${ticks}`;
}

/** The heading id of a type's section, the same on the site and on GitHub. */
export function anchorOf(name: string): string {
  return name.toLowerCase();
}

/** `'x' - why` → value `'x'`, note `why`; `- why` → note only. */
function splitDefault(d: string): { value?: string; note?: string } {
  if (d.startsWith('- ')) return { note: d.slice(2).trim() };
  const at = d.indexOf(' - ');
  if (at < 0) return { value: d };
  return { value: d.slice(0, at).trim(), note: d.slice(at + 3).trim() };
}

class ModelReference {
  private readonly decls = new Map<string, Decl>();
  /** Types in the order they are written: depth first from the root, in field order. */
  private readonly order: string[] = [];
  /** Where each type is used: `Type.field`. */
  private readonly usedIn = new Map<string, string[]>();

  constructor(
    private readonly sf: ts.SourceFile,
    private readonly root: string,
  ) {
    for (const s of sf.statements)
      if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) this.decls.set(s.name.text, s);
    if (!this.decls.has(root)) throw new Error(`model reference: ${sf.fileName} declares no ${root}`);
    this.visit(root);
  }

  private visit(name: string): void {
    if (this.order.includes(name)) return;
    const d = this.decls.get(name);
    if (!d) return;
    this.order.push(name);
    if (ts.isInterfaceDeclaration(d)) {
      for (const base of this.bases(d)) this.visit(base);
      for (const m of this.ownMembers(d)) {
        for (const ref of this.refs(m.type)) {
          this.use(ref, `${name}.${m.name}`);
          this.visit(ref);
        }
      }
    } else {
      for (const ref of this.refs(d.type)) {
        this.use(ref, name);
        this.visit(ref);
      }
    }
  }

  private use(type: string, where: string): void {
    const list = this.usedIn.get(type) ?? [];
    if (!list.includes(where)) list.push(where);
    this.usedIn.set(type, list);
  }

  /** Names of model types a type node mentions, in order, nested object literals included. */
  private refs(node: ts.TypeNode | undefined): string[] {
    const out: string[] = [];
    const walk = (n: ts.Node): void => {
      if (ts.isTypeReferenceNode(n) && ts.isIdentifier(n.typeName) && this.decls.has(n.typeName.text))
        out.push(n.typeName.text);
      ts.forEachChild(n, walk);
    };
    if (node) walk(node);
    return out;
  }

  private bases(d: ts.InterfaceDeclaration): string[] {
    const out: string[] = [];
    for (const h of d.heritageClauses ?? [])
      for (const t of h.types) {
        if (!ts.isIdentifier(t.expression) || !this.decls.has(t.expression.text))
          throw new Error(
            `model reference: ${d.name.text} extends ${t.getText()}, which is not a model type`,
          );
        out.push(t.expression.text);
      }
    return out;
  }

  private ownMembers(d: ts.InterfaceDeclaration | ts.TypeLiteralNode): Member[] {
    return d.members.map((m) => {
      if (!ts.isPropertySignature(m) || !m.type || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)))
        throw new Error(`model reference: ${firstLine(m)} is not a property this reference renders`);
      return { name: m.name.text, optional: m.questionToken !== undefined, type: m.type, doc: docOf(m) };
    });
  }

  /** Every field of an interface, its bases' first (in `extends` order), with where each comes from. */
  private members(d: ts.InterfaceDeclaration): { member: Member; from?: string }[] {
    const inherited = this.bases(d).flatMap((b) => {
      const base = this.decls.get(b) as Decl;
      if (!ts.isInterfaceDeclaration(base))
        throw new Error(`model reference: ${d.name.text} extends a type alias`);
      return this.members(base).map((m) => ({ member: m.member, from: m.from ?? b }));
    });
    return [...inherited, ...this.ownMembers(d).map((member) => ({ member }))];
  }

  /** A type as markdown: code for what is plain TypeScript, links for model types. */
  private typeText(node: ts.TypeNode): string {
    if (ts.isParenthesizedTypeNode(node)) return this.typeText(node.type);
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)
      return this.typeText(node.type);
    if (ts.isArrayTypeNode(node)) {
      const el = node.elementType;
      const inner = this.typeText(el);
      return ts.isUnionTypeNode(el) && !this.plain(el)
        ? `(${inner})${code('[]')}`
        : this.appendCode(inner, '[]');
    }
    if (ts.isTypeLiteralNode(node)) return 'object';
    if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
      const name = node.typeName.text;
      if (this.decls.has(name)) return `[${name}](#${anchorOf(name)})`;
      const args = node.typeArguments ?? [];
      if ((name === 'Readonly' || name === 'ReadonlyArray') && args.length === 1) {
        const inner = this.typeText(args[0] as ts.TypeNode);
        return name === 'Readonly' ? inner : this.appendCode(inner, '[]');
      }
    }
    if (this.plain(node)) return code(node.getText());
    if (ts.isUnionTypeNode(node)) return node.types.map((t) => this.typeText(t)).join(' | ');
    throw new Error(`model reference: the type ${node.getText()} is not one this reference renders`);
  }

  /** `x` + `[]` as one code span when x is one. */
  private appendCode(md: string, suffix: string): string {
    const m = /^`([^`]+)`$/.exec(md);
    return m ? code(`${m[1]}${suffix}`) : `${md}${code(suffix)}`;
  }

  /** True for a type with no model type and no object literal in it: shown as its source. */
  private plain(node: ts.TypeNode): boolean {
    let plain = true;
    const walk = (n: ts.Node): void => {
      if (ts.isTypeLiteralNode(n)) plain = false;
      if (ts.isTypeReferenceNode(n) && ts.isIdentifier(n.typeName) && this.decls.has(n.typeName.text))
        plain = false;
      ts.forEachChild(n, walk);
    };
    walk(node);
    return plain;
  }

  /** The object literal a field's type holds (`{…}` or `readonly {…}[]`), whose fields nest under it. */
  private literalOf(node: ts.TypeNode): ts.TypeLiteralNode | undefined {
    if (ts.isTypeLiteralNode(node)) return node;
    if (ts.isParenthesizedTypeNode(node)) return this.literalOf(node.type);
    if (ts.isTypeOperatorNode(node)) return this.literalOf(node.type);
    if (ts.isArrayTypeNode(node)) return this.literalOf(node.elementType);
    return undefined;
  }

  private field(m: Member, indent: string, from: string | undefined): string[] {
    const d = m.doc;
    const facts = [this.typeText(m.type)];
    if (!m.optional) facts.push('**required**');
    else if (d.defaults.length === 0) facts.push('optional');
    for (const def of d.defaults) {
      const { value, note } = splitDefault(def);
      facts.push(
        value === undefined
          ? `default: ${escapeProse(note ?? '')}`
          : `default ${code(value)}${note ? ` (${escapeProse(note)})` : ''}`,
      );
    }
    if (from) facts.push(`from [${from}](#${anchorOf(from)})`);
    const out = [`${indent}- **${code(m.name)}** · ${facts.join(' · ')}`];
    const body = [
      ...paragraphs(d.text),
      ...d.examples.map((e) => `Example: ${code(e)}`),
      ...d.sees.map((s) => `See ${s}`),
    ];
    for (const p of body) out.push('', `${indent}  ${p}`);
    const literal = this.literalOf(m.type);
    if (literal) {
      out.push('');
      for (const n of this.ownMembers(literal)) out.push(...this.field(n, `${indent}  `, undefined), '');
      while (out[out.length - 1] === '') out.pop();
    }
    return out;
  }

  private section(name: string): string[] {
    const d = this.decls.get(name) as Decl;
    const doc = docOf(d);
    const out = [`## ${name}`, ''];
    for (const p of paragraphs(doc.text)) out.push(p, '');
    for (const e of doc.examples) out.push(`Example: ${code(e)}`, '');
    for (const s of doc.sees) out.push(`See ${s}`, '');
    if (doc.defaults.length > 0) throw new Error(`model reference: @default on the type ${name}`);
    const used = this.usedIn.get(name);
    if (used) out.push(`Used in: ${used.map((u) => this.whereLink(u)).join(', ')}.`, '');
    if (ts.isTypeAliasDeclaration(d)) {
      out.push(`Type: ${this.typeText(d.type)}.`, '');
      return out;
    }
    const bases = this.bases(d);
    if (bases.length > 0)
      out.push(
        `Has every field of ${bases.map((b) => `[${b}](#${anchorOf(b)})`).join(' and ')}, and its own.`,
        '',
      );
    const members = this.members(d);
    if (members.length === 0) throw new Error(`model reference: ${name} has no fields`);
    for (const { member, from } of members) out.push(...this.field(member, '', from), '');
    return out;
  }

  private whereLink(where: string): string {
    const [type, ...rest] = where.split('.');
    return `[${type}](#${anchorOf(type as string)})${rest.length > 0 ? code(`.${rest.join('.')}`) : ''}`;
  }

  render(shownPath: string, linkToSource: string): string {
    const header = this.moduleDoc();
    const out = [
      '# Model reference',
      '',
      `Generated from the doc comments of [${shownPath}](${linkToSource}) by \`npm run docs:generate\`` +
        ' (`scripts/docs-reference.ts`): edit those comments, never this page. The test command fails when' +
        ' this page is not what they say (`npm run docs:check`).',
      '',
    ];
    for (const p of paragraphs(header.text)) out.push(p, '');
    for (const s of header.sees) out.push(`- See ${s}`);
    if (header.sees.length > 0) out.push('');
    out.push(
      `A model is a value of [${this.root}](#${anchorOf(this.root)}). The types, from the root down:`,
      '',
      ...this.order.map((n) => `- [${n}](#${anchorOf(n)})`),
      '',
    );
    for (const n of this.order) out.push(...this.section(n));
    return `${out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd()}\n`;
  }

  /** The file's own comment: the first JSDoc before any declaration. */
  private moduleDoc(): Doc {
    const first = this.sf.statements[0];
    const text = this.sf.getFullText();
    const ranges = ts.getLeadingCommentRanges(text, first ? first.getFullStart() : 0) ?? [];
    const jsdoc = ranges.filter((r) => text.slice(r.pos, r.pos + 3) === '/**');
    // The first statement's own JSDoc is the last comment before it; the module's is before that.
    if (jsdoc.length < 2) return { text: '', defaults: [], examples: [], sees: [] };
    const raw = text.slice((jsdoc[0] as ts.CommentRange).pos, (jsdoc[0] as ts.CommentRange).end);
    const body = raw
      .replace(/^\/\*\*|\*\/$/g, '')
      .split('\n')
      .map((l) => l.replace(/^\s*\* ?/, ''))
      .join('\n');
    const sees: string[] = [];
    const kept = body
      .split('\n')
      .filter((l) => {
        const m = /^@see\s+(.*)$/.exec(l.trim());
        if (m) sees.push(m[1] as string);
        return !m;
      })
      .join('\n');
    return { text: kept.trim(), defaults: [], examples: [], sees };
  }
}

interface Member {
  readonly name: string;
  readonly optional: boolean;
  readonly type: ts.TypeNode;
  readonly doc: Doc;
}

/**
 * The model reference page for the model file `file`, from the type `root` down.
 * @param shownPath how the page names the file (`lib/model.ts`)
 * @param linkToSource the page's link to it (`../../lib/model.ts`, relative to the page)
 */
export function modelReference(
  file: string,
  opts: { root?: string; shownPath: string; linkToSource: string },
): string {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return new ModelReference(sf, opts.root ?? 'ClusterSetProps').render(opts.shownPath, opts.linkToSource);
}
