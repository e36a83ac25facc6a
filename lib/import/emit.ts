/**
 * The imported model as a file: a `clusterset.ts` (a typed model importing its type from
 * 'clusterset', as `clusterset init` scaffolds it) or a YAML model (plain data, as lib/load.ts reads
 * it), with each comment of the import placed right above the value its model path names (`''`, the
 * whole model, becomes the file's header). Keys are written in the model's own order, so the file
 * reads like the model's interfaces; the same import always gives the same bytes. Pure.
 */
import { dumpYaml } from '../yaml';
import type { Imported } from './findings';

type Comments = ReadonlyMap<string, readonly string[]>;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Comment lines of one path, each split on newlines. */
function linesAt(comments: Comments, path: string): string[] {
  return (comments.get(path) ?? []).flatMap((l) => l.split(/\r?\n/));
}

/** Whether any comment sits strictly below `path`. */
function commentedBelow(comments: Comments, path: string): boolean {
  for (const k of comments.keys()) {
    if (path === '' ? k !== '' : k.startsWith(`${path}.`) || k.startsWith(`${path}[`)) return true;
  }
  return false;
}

const childPath = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

// -------------------------------------------------------------------------- TypeScript

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function tsString(s: string): string {
  return `'${s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}'`;
}

function tsKey(k: string): string {
  return IDENTIFIER.test(k) ? k : tsString(k);
}

function tsInline(v: unknown): string {
  if (typeof v === 'string') return tsString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.map(tsInline).join(', ')}]`;
  if (isObject(v)) {
    const ks = Object.keys(v).filter((k) => v[k] !== undefined);
    return ks.length === 0 ? '{}' : `{ ${ks.map((k) => `${tsKey(k)}: ${tsInline(v[k])}`).join(', ')} }`;
  }
  return 'undefined';
}

const WIDTH = 110;

function tsValue(v: unknown, path: string, indent: string, lead: number, comments: Comments): string {
  const inline = tsInline(v);
  if (!Array.isArray(v) && !isObject(v)) return inline;
  if (!commentedBelow(comments, path) && lead + inline.length + 1 <= WIDTH) return inline;
  const inner = `${indent}  `;
  const out: string[] = [];
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    v.forEach((item, i) => {
      const p = `${path}[${i}]`;
      for (const l of linesAt(comments, p)) out.push(`${inner}// ${l}`);
      out.push(`${inner}${tsValue(item, p, inner, inner.length, comments)},`);
    });
    return `[\n${out.join('\n')}\n${indent}]`;
  }
  const o = v as Record<string, unknown>;
  const ks = Object.keys(o).filter((k) => o[k] !== undefined);
  if (ks.length === 0) return '{}';
  for (const k of ks) {
    const p = childPath(path, k);
    for (const l of linesAt(comments, p)) out.push(`${inner}// ${l}`);
    const head = `${inner}${tsKey(k)}: `;
    out.push(`${head}${tsValue(o[k], p, inner, head.length, comments)},`);
  }
  return `{\n${out.join('\n')}\n${indent}}`;
}

function emitTs(i: Imported): string {
  const header = linesAt(i.comments, '').map((l) => ` * ${l.replace(/\*\//g, '*\\/')}`.trimEnd());
  return [
    '/**',
    ...header,
    ' */',
    "import type { ClusterSetProps } from 'clusterset';",
    '',
    `const clusterSet: ClusterSetProps = ${tsValue(i.model, '', '', 36, new Map([...i.comments].filter(([k]) => k !== '')))};`,
    '',
    'export default clusterSet;',
    '',
  ].join('\n');
}

// -------------------------------------------------------------------------- YAML

function yamlScalar(v: unknown): string {
  return dumpYaml(v).replace(/\n$/, '');
}

/** The lines of a mapping or list at `indent`; `first` are comment lines owed to the first line. */
function yamlBlock(v: unknown, path: string, indent: string, comments: Comments): string[] {
  const out: string[] = [];
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      const p = `${path}[${i}]`;
      for (const l of linesAt(comments, p)) out.push(`${indent}# ${l}`);
      if (isObject(item) && Object.keys(item).length > 0) {
        const lines = yamlBlock(item, p, `${indent}  `, comments);
        // The item's first key goes on the dash line; its comments go above the dash.
        const firstKey = lines.findIndex((l) => !l.trimStart().startsWith('#'));
        out.push(...lines.slice(0, firstKey).map((l) => `${indent}${l.trimStart()}`));
        out.push(`${indent}- ${lines[firstKey]!.slice(indent.length + 2)}`);
        out.push(...lines.slice(firstKey + 1));
      } else if (Array.isArray(item) && item.length > 0) {
        out.push(`${indent}-`);
        out.push(...yamlBlock(item, p, `${indent}  `, comments));
      } else {
        out.push(`${indent}- ${yamlInline(item)}`);
      }
    });
    return out;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (o[k] === undefined) continue;
    const p = childPath(path, k);
    for (const l of linesAt(comments, p)) out.push(`${indent}# ${l}`);
    const val = o[k];
    const key = yamlScalar(k);
    if ((isObject(val) && Object.keys(val).length > 0) || (Array.isArray(val) && val.length > 0)) {
      out.push(`${indent}${key}:`);
      out.push(...yamlBlock(val, p, `${indent}  `, comments));
    } else {
      out.push(`${indent}${key}: ${yamlInline(val)}`);
    }
  }
  return out;
}

function yamlInline(v: unknown): string {
  if (Array.isArray(v)) return '[]';
  if (isObject(v)) return '{}';
  return yamlScalar(v);
}

function emitYaml(i: Imported): string {
  const header = linesAt(i.comments, '').map((l) => `# ${l}`);
  const body = yamlBlock(i.model, '', '', new Map([...i.comments].filter(([k]) => k !== '')));
  return `${[...header, ...body].join('\n')}\n`;
}

export function emitModel(i: Imported, format: 'ts' | 'yaml'): string {
  return format === 'ts' ? emitTs(i) : emitYaml(i);
}
