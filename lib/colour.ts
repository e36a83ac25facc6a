/**
 * Colour in the CLI's output only where a person reads it: on a terminal, unless `NO_COLOR` is set
 * to anything but the empty string (https://no-color.org). A pipe, a file or `TERM=dumb` gets plain
 * text. `FORCE_COLOR` is deliberately not honoured: test runners (uvu sets it for every child) and
 * CI set it for their own output, and what clusterset prints to a pipe is read by tools and tests. Pure but for the defaults (process.env and the stream passed). Used by the CLI (diagnostics
 * on stderr, `diff`'s text on stdout); the library formats take a Painter, plain by default.
 */

/** What decides: the stream's `isTTY` and the environment. */
export function colourEnabled(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** SGR codes: the one that starts the style and the one that ends it. */
const STYLES = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  bold: [1, 22],
  dim: [2, 22],
} as const;

export type Style = keyof typeof STYLES;
export type Painter = Readonly<Record<Style, (s: string) => string>>;

/** Style functions: ANSI escapes when `enabled`, the text unchanged otherwise. */
export function painter(enabled: boolean): Painter {
  const entries = Object.entries(STYLES).map(([name, [on, off]]) => [
    name,
    enabled ? (s: string) => `\u001b[${on}m${s}\u001b[${off}m` : (s: string) => s,
  ]);
  return Object.fromEntries(entries) as Painter;
}

/** The painter for a stream: `painter(colourEnabled(stream))`. */
export function paintFor(stream: { readonly isTTY?: boolean }): Painter {
  return painter(colourEnabled(stream));
}

/** The change marks of `clusterset diff`'s text and their colours. */
export const MARK_STYLE = { '+': 'green', '-': 'red', '~': 'yellow', '!': 'red' } as const satisfies Record<
  string,
  Style
>;
