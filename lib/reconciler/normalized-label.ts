/**
 * The form of a label identity, as Antrea's member writes it into a LabelIdentity export
 * (antrea-mc.md §d; GetNormalizedLabel in member/labelidentity_controller.go):
 *
 *     "ns:" + labels.Set(nsLabels).String() + "&pod:" + labels.Set(podLabels).String()
 *
 * `labels.Set.String()` joins the `key=value` pairs with ',' after sorting them as strings, and is
 * empty for no labels (a Pod without labels ends in `&pod:`).
 *
 * Antrea's leader relays the label to every member unchecked, and antrea-controller in each member
 * decomposes it (pkg/controller/labelidentity/label_group_index.go) with an unanchored
 * `ns:(.*)&pod:(.*)` and a split on ',' then '=', indexing the results blindly: a label the pattern
 * does not match, or a non-empty side with a pair that has no '=' (an empty pair from ",," or a
 * trailing ',' included), panics it (antrea-io/antrea#8385). A label with '&pod:' twice, or a key or
 * value Kubernetes would refuse, does not panic but is silently misread (the greedy pattern moves
 * the second '&pod:' into the Namespace labels; a value holding '=' loses its tail). Releases
 * before antrea-io/antrea#5404 panic on any empty side, and their members wrote a Pod without labels
 * as `&pod:<none>`, which later controllers tolerate and no member writes any more. So the check is
 * the form itself, not just what panics today: what the member writes and nothing else.
 */
import { labelKeyProblem, labelValueProblem } from '../check/labels';

const NS = 'ns:';
const POD = '&pod:';

/** A piece of the label in a message: JSON-quoted, and cut short when long. */
function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}...` : s);
}

/** What is wrong with one side's `labels.Set.String()`, if anything. */
function sideProblem(side: 'Namespace' | 'Pod', s: string): string | undefined {
  if (s === '') return undefined;
  const keys = new Set<string>();
  let previous: string | undefined;
  for (const pair of s.split(',')) {
    const eq = pair.indexOf('=');
    if (eq < 0) return `the ${side} label ${quote(pair)} is not key=value`;
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) return `the ${side} label key ${quote(key)} ${keyProblem}`;
    const valueProblem = labelValueProblem(value);
    if (valueProblem) return `the ${side} label value ${quote(value)} of ${quote(key)} ${valueProblem}`;
    if (keys.has(key)) return `the ${side} label key ${quote(key)} appears twice`;
    // Keys and values are ASCII by now, so JavaScript's order is Go's byte order.
    if (previous !== undefined && pair < previous)
      return `the ${side} labels are not sorted as labels.Set.String() writes them: ${quote(pair)} comes after ${quote(previous)}`;
    keys.add(key);
    previous = pair;
  }
  return undefined;
}

/**
 * What keeps `label` from being a normalized label as Antrea's member writes it, if anything:
 * `ns:` first, exactly one `&pod:`, and on each side nothing or `key=value` pairs joined by ',',
 * with keys and values Kubernetes accepts, in `labels.Set.String()`'s order (sorted as `key=value`
 * strings, each key once).
 */
export function normalizedLabelProblem(label: string): string | undefined {
  if (!label.startsWith(NS)) return `it does not start with ${quote(NS)}`;
  const at = label.indexOf(POD);
  if (at < 0) return `it has no ${quote(POD)}`;
  if (label.indexOf(POD, at + 1) >= 0) return `it has ${quote(POD)} more than once`;
  return (
    sideProblem('Namespace', label.slice(NS.length, at)) ?? sideProblem('Pod', label.slice(at + POD.length))
  );
}
