/**
 * Long values in the diff's lines (CEL expressions, JSON of whole list items, URLs) cut at a
 * boundary near the limit and never inside a URL when that can be avoided, saying how much was
 * left out: `https://a.example.com/x, … (312 more characters)`. Pure.
 *
 * Boundaries, best first: before whitespace and after `,` `;` `&&` `||` `⏎` (between words, list items,
 * conditions), as far back as half the limit; then after `/` `)` `]` `}` `:` `=` `.` (between path
 * segments and terms), in the limit's last quarter; failing both, the cut is where the limit says.
 * A URL (`scheme://…` up to whitespace or a quote) the cut would split is kept whole when it ends
 * within SLACK characters past the limit, else dropped whole when it starts in the second half of
 * the limit; only a URL that cannot be kept or dropped so is split.
 */
import { count } from '../plural';

/** How far past the limit a URL may run to be kept whole. */
const SLACK = 24;

const STRONG = /[\s,;⏎]|&&|\|\|/;
const WEAK = /[/)\]}:=.]/;

/** `[start, end)` of every URL in `s`. */
function urlSpans(s: string): [number, number][] {
  return [...s.matchAll(/[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]+/gi)].map((m) => [m.index, m.index + m[0].length]);
}

/** Whether cutting `s` before index `p` falls between tokens of the kind `re` names. */
function boundaryAt(s: string, p: number, re: RegExp): boolean {
  if (p <= 0 || p >= s.length) return true;
  const two = s.slice(p - 2, p);
  return (
    (re === STRONG && (/\s/.test(s[p]!) || /[,;⏎]/.test(s[p - 1]!) || two === '&&' || two === '||')) ||
    (re === WEAK && WEAK.test(s[p - 1]!))
  );
}

/**
 * The index to cut `s` before, at most `max`: the last strong boundary in the second half of the
 * limit, else the last weak one in its last quarter, else `max`; then URL-aware.
 */
export function cutIndex(s: string, max: number): number {
  if (s.length <= max) return s.length;
  let p = max;
  const min = Math.floor(max * 0.75);
  found: for (const [re, lowest] of [
    [STRONG, Math.floor(max / 2)],
    [WEAK, min],
  ] as const) {
    for (let q = max; q >= lowest; q--) {
      if (boundaryAt(s, q, re)) {
        p = q;
        break found;
      }
    }
  }
  const url = urlSpans(s).find(([a, b]) => a < p && p < b);
  if (url) {
    const [a, b] = url;
    if (b <= max + SLACK) p = b;
    else if (a >= max / 2) p = a;
  }
  return p;
}

/** `s` if it fits in `max`, else its head cut at a boundary and `… (N more characters)`. */
export function clipEnd(s: string, max: number): string {
  if (s.length <= max) return s;
  const p = cutIndex(s, max);
  return `${s.slice(0, p).trimEnd()}… (${count(s.length - p, 'more character')})`;
}

/**
 * The part of `s` from about `from` on, at most `max` long, both ends at boundaries: the start
 * moves back to the start of its token (or URL), and each cut end says what it left out.
 */
export function clipWindow(s: string, from: number, max: number): string {
  let start = Math.max(0, from);
  if (start > 0) {
    // Back to the token's start: the first boundary at or before `from` (at most max/4 back).
    let q = start;
    while (q > 0 && start - q < max / 4 && !boundaryAt(s, q, STRONG) && !boundaryAt(s, q, WEAK)) q--;
    start = q;
    const url = urlSpans(s).find(([a, b]) => a < start && start < b);
    if (url && start - url[0] <= max / 4) start = url[0];
  }
  const rest = s.slice(start);
  const head = start > 0 ? `(${count(start, 'character')} before) …` : '';
  return `${head}${clipEnd(rest.trimStart(), max)}`;
}
