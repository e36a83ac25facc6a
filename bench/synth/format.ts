/** Number formats and plain-text tables for the synth benchmark's reports. */

export const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
export const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
export const ratio = (x: number): string => `${x.toFixed(2)}x`;

/** Largest over smallest. */
export const spread = (xs: readonly number[]): number => Math.max(...xs) / Math.min(...xs);

/** Columns aligned: the first to the left, the others to the right. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Least-squares slope of log(y) against log(x): 1 = linear, 2 = quadratic. */
export function logLogSlope(points: readonly (readonly [number, number])[]): number {
  const xs = points.map(([x]) => Math.log(x));
  const ys = points.map(([, y]) => Math.log(y));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}
