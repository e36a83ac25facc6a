/**
 * Label selectors, wherever the model has one (policy appliedTo, peers, and any selector a policy
 * field brings): keys and values judged with Kubernetes' own syntax rules (apimachinery
 * `IsQualifiedName`, `IsValidLabelValue`, `ValidateLabelSelector`) at the model path, so that a bad
 * label is the user's diagnostic and never first caught by the output's schema check.
 *
 * The walk finds every `matchLabels` map and `matchExpressions` list in the model, one pass, so new
 * selector fields are covered without a change here.
 */
import type { ClusterSetProps } from '../model';
import { DNS1123_SUBDOMAIN } from '../names';
import { type Report, type Rule, rule } from './rule';
import { isObject, joinPath, quote, str } from './util';

/** Kubernetes' qualified-name and label-value body: alphanumeric at both ends, `-_.` inside. */
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const NAME_WORDS = "letters, digits, '-', '_' or '.', starting and ending with a letter or digit";

/** What is wrong with a label key, in Kubernetes' terms, if anything. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix === '') return 'has an empty prefix before "/"';
    if (prefix.length > 253) return `has a prefix of ${prefix.length} characters, more than 253`;
    if (!DNS1123_SUBDOMAIN.test(prefix)) {
      return "has a prefix that is not a DNS subdomain (lowercase letters, digits, '-' and '.')";
    }
  }
  if (name === '') return 'has an empty name part';
  if (name.length > 63) return `has a name part of ${name.length} characters, more than 63`;
  if (!NAME_PART.test(name)) return `has a name part that is not made of ${NAME_WORDS}`;
  return undefined;
}

/** What is wrong with a label value, if anything (the empty value is valid). */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return `is ${value.length} characters long, more than 63`;
  if (!NAME_PART.test(value)) return `is not made of ${NAME_WORDS}`;
  return undefined;
}

const KEY_FIX = 'write it as [prefix/]name, e.g. "app" or "app.kubernetes.io/name"';
const VALUE_FIX = `use at most 63 ${NAME_WORDS}, or the empty value`;

interface Selector {
  readonly path: string;
  readonly value: Record<string, unknown>;
}

const found = new WeakMap<object, Selector[]>();

/** Every object in the model that holds `matchLabels` or `matchExpressions`, with its path. */
function selectorsOf(m: ClusterSetProps): Selector[] {
  const cached = found.get(m);
  if (cached) return cached;
  const out: Selector[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((x, i) => walk(x, joinPath(path, String(i), true)));
      return;
    }
    if (!isObject(node)) return;
    if ('matchLabels' in node || 'matchExpressions' in node) out.push({ path, value: node });
    for (const [k, v] of Object.entries(node)) {
      if (k !== 'matchLabels' && (isObject(v) || Array.isArray(v))) walk(v, joinPath(path, k));
    }
  };
  walk(m, '');
  found.set(m, out);
  return out;
}

function checkKey(report: Report, path: string, key: string, what: string): void {
  const problem = labelKeyProblem(key);
  if (problem) report(path, `${what} ${quote(key)} ${problem}`, KEY_FIX);
}

export const labelRules: readonly Rule[] = [
  rule(
    'label-key-syntax',
    'Label keys in selectors follow Kubernetes syntax: an optional DNS-subdomain prefix and a name of at most 63.',
    'The API server refuses the policy (or Antrea ignores the selector): the rule never exists in any member.',
    (m, report) => {
      for (const s of selectorsOf(m)) {
        const labels = s.value.matchLabels;
        if (isObject(labels)) {
          const at = joinPath(s.path, 'matchLabels');
          for (const key of Object.keys(labels)) checkKey(report, joinPath(at, key), key, 'label key');
        }
        const exprs = s.value.matchExpressions;
        if (!Array.isArray(exprs)) continue;
        exprs.forEach((e: unknown, i) => {
          const key = isObject(e) ? str(e.key) : undefined;
          if (key === undefined) return;
          checkKey(report, `${joinPath(s.path, 'matchExpressions')}[${i}].key`, key, 'label key');
        });
      }
    },
  ),
  rule(
    'label-value-syntax',
    'Label values in selectors are empty or at most 63 letters, digits, -, _ or ., alphanumeric at both ends.',
    'The API server refuses the policy: the rule never exists in any member.',
    (m, report) => {
      for (const s of selectorsOf(m)) {
        const labels = s.value.matchLabels;
        if (isObject(labels)) {
          const at = joinPath(s.path, 'matchLabels');
          for (const [key, value] of Object.entries(labels)) {
            const v = str(value);
            const problem = v === undefined ? undefined : labelValueProblem(v);
            if (problem) report(joinPath(at, key), `label value ${quote(v)} ${problem}`, VALUE_FIX);
          }
        }
        const exprs = s.value.matchExpressions;
        if (!Array.isArray(exprs)) continue;
        exprs.forEach((e: unknown, i) => {
          if (!isObject(e) || !Array.isArray(e.values)) return;
          e.values.forEach((value: unknown, j) => {
            const v = str(value);
            const problem = v === undefined ? undefined : labelValueProblem(v);
            if (!problem) return;
            const at = `${joinPath(s.path, 'matchExpressions')}[${i}].values[${j}]`;
            report(at, `label value ${quote(v)} ${problem}`, VALUE_FIX);
          });
        });
      }
    },
  ),
  rule(
    'label-expression-values',
    'Selector expressions with In or NotIn list values; Exists and DoesNotExist list none.',
    "Kubernetes refuses such a selector (\"must be specified when `operator` is 'In' or 'NotIn'\", \"may not be " +
      "specified when `operator` is 'Exists' or 'DoesNotExist'\"): the policy never exists in any member.",
    (m, report) => {
      for (const s of selectorsOf(m)) {
        const exprs = s.value.matchExpressions;
        if (!Array.isArray(exprs)) continue;
        exprs.forEach((e: unknown, i) => {
          if (!isObject(e)) return;
          const op = str(e.operator);
          const values = Array.isArray(e.values) ? e.values : [];
          const at = `${joinPath(s.path, 'matchExpressions')}[${i}]`;
          if ((op === 'In' || op === 'NotIn') && values.length === 0) {
            report(
              `${at}.values`,
              `operator ${quote(op)} needs at least one value`,
              `list the values to match, or use ${op === 'In' ? '"Exists"' : '"DoesNotExist"'}`,
            );
          } else if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
            report(
              `${at}.values`,
              `operator ${quote(op)} takes no values`,
              'remove values, or use "In" / "NotIn"',
            );
          }
        });
      }
    },
  ),
];
