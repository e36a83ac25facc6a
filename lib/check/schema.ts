/**
 * The shape check: the model against its JSON Schema (generated/model.schema.json, generated from
 * lib/model.ts), so a model written in JSON, YAML or plain JavaScript is checked like a typed one.
 *
 * ajv's errors are never shown as they are: each becomes a Diagnostic with a path in the model's
 * own terms (`clusters[2].serviceCIDR`), the value received, and a fix. Unknown properties get a
 * "did you mean" when a known one is close; the branch errors of anyOf/oneOf collapse into one.
 */
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import modelSchema from '../../generated/model.schema.json';
import type { Diagnostic } from '../diagnostics';
import { closest, isObject, joinPath, quote, quoteList } from './util';

type SchemaNode = Record<string, unknown>;

/** Compiles a schema once into a check returning diagnostics. Exported for tests of the mapping. */
export function compileSchemaCheck(schema: object): (input: unknown) => Diagnostic[] {
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (input) => {
    if (validate(input)) return [];
    const seen = new Set<string>();
    return collapseAlternatives(validate.errors ?? [])
      .map((e) => toDiagnostic(e, input))
      .filter((d) => {
        const key = `${d.path}\n${d.message}`;
        return !seen.has(key) && (seen.add(key), true);
      });
  };
}

/** Checks the shape of a model against generated/model.schema.json. */
export const checkSchema: (input: unknown) => Diagnostic[] = compileSchemaCheck(modelSchema);

// ---- paths ----

/** `/clusters/2/serviceCIDR` → `clusters[2].serviceCIDR`, walking `root` to tell lists from maps. */
export function modelPath(instancePath: string, root: unknown): string {
  if (instancePath === '') return '';
  let path = '';
  let node: unknown = root;
  for (const raw of instancePath.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = joinPath(path, key, Array.isArray(node));
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

// ---- messages ----

function typeWords(t: unknown): string {
  const words: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    integer: 'an integer',
    boolean: 'true or false',
    object: 'an object',
    array: 'a list',
    null: 'null',
  };
  const ts = Array.isArray(t) ? t : String(t).split(',');
  return ts.map((x) => words[String(x)] ?? String(x)).join(' or ');
}

function received(data: unknown): string {
  if (Array.isArray(data)) return `a list (${quote(data)})`;
  if (isObject(data)) return `an object (${quote(data)})`;
  return quote(data);
}

/** The first sentence of a property's description, as a hint of what to add. */
function describeProperty(parentSchema: unknown, prop: string): string {
  const props = isObject(parentSchema) && isObject(parentSchema.properties) ? parentSchema.properties : {};
  const p = props[prop];
  const description = isObject(p) && typeof p.description === 'string' ? p.description : '';
  const sentence = /^[^]*?\.(\s|$)/.exec(description)?.[0].trim() ?? description;
  const example = isObject(p) && Array.isArray(p.examples) ? ` (e.g. ${quote(p.examples[0])})` : '';
  return sentence ? `: ${sentence}${example}` : example;
}

function knownProperties(parentSchema: unknown): string[] {
  return isObject(parentSchema) && isObject(parentSchema.properties)
    ? Object.keys(parentSchema.properties)
    : [];
}

function toDiagnostic(e: ErrorObject, root: unknown): Diagnostic {
  const path = modelPath(e.instancePath, root);
  const p = e.params as SchemaNode;
  const d = (at: string, message: string, fix: string): Diagnostic => ({
    rule: 'schema',
    path: at,
    message,
    fix,
  });
  const value = received(e.data);
  switch (e.keyword) {
    case 'required': {
      const prop = String(p.missingProperty);
      return d(
        joinPath(path, prop),
        `${quote(prop)} is required but missing`,
        `add ${prop}${describeProperty(e.parentSchema, prop)}`,
      );
    }
    case 'additionalProperties': {
      const prop = String(p.additionalProperty);
      const known = knownProperties(e.parentSchema);
      const near = closest(prop, known);
      return d(
        joinPath(path, prop),
        `unknown property ${quote(prop)}`,
        near !== undefined
          ? `did you mean ${quote(near)}? Rename it`
          : `remove it; the properties allowed here are ${quoteList(known)}`,
      );
    }
    case 'type':
      return d(path, `expected ${typeWords(p.type)}, received ${value}`, `set it to ${typeWords(p.type)}`);
    case 'enum':
    case 'const': {
      const allowed = (e.keyword === 'enum' ? p.allowedValues : [p.allowedValue]) as unknown[];
      const near = typeof e.data === 'string' ? closest(e.data, allowed.map(String)) : undefined;
      return d(
        path,
        `${value} is not one of the allowed values ${quoteList(allowed)}`,
        near !== undefined ? `did you mean ${quote(near)}?` : `use one of ${quoteList(allowed)}`,
      );
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return d(
        path,
        `${value} must be ${p.comparison} ${p.limit}`,
        `use a number ${p.comparison} ${p.limit}`,
      );
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties': {
      const atLeast = e.keyword.startsWith('min');
      const unit = e.keyword.endsWith('Length')
        ? 'characters'
        : e.keyword.endsWith('Items')
          ? 'items'
          : 'properties';
      return d(
        path,
        `${value} has ${atLeast ? 'fewer' : 'more'} than ${p.limit} ${unit}`,
        `give it ${atLeast ? 'at least' : 'at most'} ${p.limit} ${unit}`,
      );
    }
    case 'pattern':
      return d(path, `${value} does not have the expected form (${String(p.pattern)})`, 'correct the value');
    case 'format':
      return d(path, `${value} is not a valid ${String(p.format)}`, `write a valid ${String(p.format)}`);
    case 'uniqueItems':
      return d(path, `${value} lists the same item twice (items ${p.j} and ${p.i})`, 'remove the duplicate');
    case 'anyOf':
    case 'oneOf':
      return d(
        path,
        `${value} does not match any of the allowed forms${alternativesHint(e)}`,
        'change it to one of the allowed forms',
      );
    default:
      return d(path, `${value} is not valid here (${e.keyword} constraint)`, 'correct the value');
  }
}

// ---- anyOf / oneOf ----

/** The branch errors an anyOf/oneOf error explains, stored so its message can summarise them. */
const branchErrors = new WeakMap<ErrorObject, ErrorObject[]>();

/**
 * ajv reports every failing branch of an anyOf/oneOf before the anyOf/oneOf error itself. Those
 * branch errors (at or under the same place, listed before it) are folded into that one error.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  const dropped = new Set<number>();
  errors.forEach((alt, i) => {
    if (alt.keyword !== 'anyOf' && alt.keyword !== 'oneOf') return;
    const branches: ErrorObject[] = [];
    for (let j = i - 1; j >= 0; j--) {
      const e = errors[j]!;
      if (dropped.has(j)) continue;
      if (!isUnder(e.instancePath, alt.instancePath)) break;
      dropped.add(j);
      branches.unshift(e);
    }
    branchErrors.set(alt, branches);
  });
  return errors.filter((_, i) => !dropped.has(i));
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** `: expected a number, or one of "a" and "b"` from the branch errors at the same place. */
function alternativesHint(alt: ErrorObject): string {
  const here = (branchErrors.get(alt) ?? []).filter((e) => e.instancePath === alt.instancePath);
  const options = here.flatMap((e) => {
    const p = e.params as SchemaNode;
    if (e.keyword === 'type') return [typeWords(p.type)];
    if (e.keyword === 'enum') return [`one of ${quoteList(p.allowedValues as unknown[])}`];
    if (e.keyword === 'const') return [quote(p.allowedValue)];
    if (e.keyword === 'required') return [`an object with ${quote(p.missingProperty)}`];
    return [];
  });
  const unique = [...new Set(options)];
  return unique.length ? `: expected ${unique.join(', or ')}` : '';
}
