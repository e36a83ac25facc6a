/**
 * Counts with their noun, for every count+noun the CLI, the PR comment and `explain` print:
 * `count(1, 'file')` is "1 file", `count(2, 'file')` "2 files", `count(2, 'policy')` "2 policies".
 * Pure.
 */

/**
 * The noun's plural: `-y` after a consonant becomes `-ies` (policy, but key stays keys); `-s`, `-x`,
 * `-ch` and `-sh` take `-es` (address, index); anything else takes `-s`. Irregular nouns pass their
 * plural to count().
 */
export function pluralOf(noun: string): string {
  if (/[^aeiou]y$/i.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(s|x|ch|sh)$/i.test(noun)) return `${noun}es`;
  return `${noun}s`;
}

/** The noun for `n` things: singular for exactly 1, the plural otherwise (0 files, 2 files). */
export function noun(n: number, singular: string, plural = pluralOf(singular)): string {
  return n === 1 ? singular : plural;
}

/** `n` and its noun: "1 file", "0 files", "3 policies". */
export function count(n: number, singular: string, plural?: string): string {
  return `${n} ${noun(n, singular, plural)}`;
}
