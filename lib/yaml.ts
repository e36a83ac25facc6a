/**
 * YAML output. js-yaml writes YAML 1.2 and already quotes the YAML 1.1 booleans, nulls, octals,
 * floats and sexagesimals that Kubernetes tooling (YAML 1.1 parsers) would misread; the one gap is
 * 1.1's underscore digit groups (`1_000`), which an extra implicit type here makes it quote too.
 * Keys are written in one documented total order (`compareKeys`), whatever order objects were built in.
 */
import * as yaml from 'js-yaml';

const yaml11Numbers = new yaml.Type('tag:clusterset/yaml11-number', {
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

export function dumpYaml(value: unknown): string {
  return yaml.dump(value, DUMP_OPTIONS);
}

export function loadYaml(text: string): unknown {
  return yaml.load(text);
}
