/**
 * Conditions the model cannot decide, and the small amount of Boolean algebra needed to say under
 * which of them traffic is allowed.
 *
 * The reachability evaluator is concrete: given the truth of every open question ("do the calling
 * Pods carry app=frontend?", "does port 8080 target container port 8080?") it answers allowed or
 * denied. An open question is an {@link Atom}. {@link decide} runs the evaluator over every
 * assignment of the atoms it meets (discovering them as it goes), keeps only the atoms that change
 * the answer, and states the answer as a short sum of products (Quine–McCluskey), so the output says
 * "allowed if A and not B", never a guess.
 */
import { cmp } from '../diagnostics';

/** One question the model cannot answer, with the words for both answers. */
export interface Atom {
  /** Identity: the same question asked twice (egress and ingress side) is one atom. */
  readonly key: string;
  /** The statement when true, e.g. `the calling Pods in east/web match app=frontend`. */
  readonly yes: string;
  /** The statement when false. */
  readonly no: string;
}

/** A literal of a condition: an atom and the truth it needs. */
export interface Literal {
  readonly atom: Atom;
  readonly holds: boolean;
}

/** The words of a literal. */
export function literalText(l: Literal): string {
  return l.holds ? l.atom.yes : l.atom.no;
}

/** Asks the truth of an atom; the evaluator calls it for every open question it meets. */
export type Ask = (atom: Atom) => boolean;

/** What the concrete evaluator returns for one assignment. */
export interface Outcome {
  readonly allowed: boolean;
  /** Who decided, in words (e.g. `ingress rule drop-rest of baseline policy deny-all in east`). */
  readonly by: string;
}

/** The answer over every assignment. */
export interface Decision {
  /** `depends` when the answer changes with one of the open questions. */
  readonly verdict: 'allowed' | 'denied' | 'depends';
  /** Who decides, sorted and distinct (one entry when the verdict is definite and uniform). */
  readonly by: readonly string[];
  /** When `depends`: allowed exactly when one of these conjunctions holds. */
  readonly allowedIf: readonly (readonly Literal[])[];
  /** True when the open questions were too many to enumerate; the verdict is then `depends`. */
  readonly truncated: boolean;
}

/** At most this many open questions per flow are enumerated (2^n evaluations). */
export const MAX_ATOMS = 10;

/**
 * Runs `evaluate` over every assignment of the atoms it asks about and summarises the answers.
 * Atoms met for the first time are taken as false in that run; the loop repeats until no new atom
 * appears, so every reachable combination is covered.
 */
export function decide(evaluate: (ask: Ask) => Outcome): Decision {
  const atoms: Atom[] = [];
  const index = new Map<string, number>();
  let results: Outcome[] = [];
  for (;;) {
    const known = atoms.length;
    results = [];
    for (let bits = 0; bits < 2 ** known; bits++) {
      results.push(
        evaluate((atom) => {
          let i = index.get(atom.key);
          if (i === undefined) {
            i = atoms.length;
            index.set(atom.key, i);
            atoms.push(atom);
          }
          return i < known ? ((bits >> i) & 1) === 1 : false;
        }),
      );
    }
    if (atoms.length === known) break;
    if (atoms.length > MAX_ATOMS) {
      return {
        verdict: 'depends',
        by: distinct(results.map((r) => r.by)),
        allowedIf: [atoms.map((atom) => ({ atom, holds: true }))],
        truncated: true,
      };
    }
  }
  const allowed = results.map((r) => r.allowed);
  if (allowed.every((a) => a === allowed[0])) {
    return {
      verdict: allowed[0] ? 'allowed' : 'denied',
      by: distinct(results.map((r) => r.by)),
      allowedIf: [],
      truncated: false,
    };
  }
  // Keep the atoms that change the answer somewhere; project the others out.
  const n = atoms.length;
  const relevant = [...Array(n).keys()].filter((i) =>
    allowed.some((a, bits) => a !== allowed[bits ^ (1 << i)]),
  );
  const minterms = new Set<number>();
  allowed.forEach((a, bits) => {
    if (!a) return;
    let m = 0;
    relevant.forEach((atomIndex, j) => {
      if ((bits >> atomIndex) & 1) m |= 1 << j;
    });
    minterms.add(m);
  });
  const terms = minimise([...minterms], relevant.length);
  const allowedIf = terms
    .map((t) =>
      relevant
        .map((atomIndex, j) =>
          (t.mask >> j) & 1 ? { atom: atoms[atomIndex]!, holds: ((t.value >> j) & 1) === 1 } : undefined,
        )
        .filter((l): l is Literal => l !== undefined)
        .sort((a, b) => cmp(a.atom.key, b.atom.key) || Number(b.holds) - Number(a.holds)),
    )
    .sort((a, b) => cmp(a.map(literalText).join('\n'), b.map(literalText).join('\n')));
  return { verdict: 'depends', by: distinct(results.map((r) => r.by)), allowedIf, truncated: false };
}

function distinct(xs: readonly string[]): string[] {
  return [...new Set(xs)].sort(cmp);
}

/** A product term: `mask` says which variables it constrains, `value` their truth. */
interface Term {
  readonly mask: number;
  readonly value: number;
}

/** Quine–McCluskey prime implicants, then a greedy cover of the minterms. Fine for n ≤ 10. */
function minimise(minterms: readonly number[], n: number): Term[] {
  const full = (1 << n) - 1;
  let current = new Map<string, Term>(minterms.map((m) => [`${full}:${m}`, { mask: full, value: m }]));
  const primes = new Map<string, Term>();
  while (current.size > 0) {
    const next = new Map<string, Term>();
    const combined = new Set<string>();
    const list = [...current.entries()];
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [ka, a] = list[i]!;
        const [kb, b] = list[j]!;
        if (a.mask !== b.mask) continue;
        const diff = a.value ^ b.value;
        if (diff === 0 || (diff & (diff - 1)) !== 0) continue;
        const t = { mask: a.mask & ~diff, value: a.value & ~diff };
        next.set(`${t.mask}:${t.value}`, t);
        combined.add(ka);
        combined.add(kb);
      }
    }
    for (const [k, t] of current) if (!combined.has(k)) primes.set(k, t);
    current = next;
  }
  const covers = (t: Term, m: number): boolean => (m & t.mask) === t.value;
  const left = new Set(minterms);
  const chosen: Term[] = [];
  const candidates = [...primes.values()].sort(
    (a, b) => popcount(a.mask) - popcount(b.mask) || a.mask - b.mask || a.value - b.value,
  );
  while (left.size > 0) {
    let best = candidates[0]!;
    let bestCount = -1;
    for (const t of candidates) {
      const count = [...left].filter((m) => covers(t, m)).length;
      if (count > bestCount) {
        best = t;
        bestCount = count;
      }
    }
    chosen.push(best);
    for (const m of [...left]) if (covers(best, m)) left.delete(m);
  }
  return chosen;
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x; v; v &= v - 1) c++;
  return c;
}
