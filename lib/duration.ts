/**
 * Go durations, as the model writes intervals and ages (`'24h'`, `'90m'`, `'1h30m'`): what Go's
 * `time.ParseDuration` accepts, without a sign (a negative interval or age means nothing here).
 */

/** A Go duration of unsigned parts: numbers, each followed by ns, us, µs, ms, s, m or h. */
export const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

const NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/**
 * The nanoseconds of a Go duration, exactly (fractions of a nanosecond are dropped, as Go drops
 * them), or undefined when `s` is not one.
 */
export function durationNanos(s: string): bigint | undefined {
  if (!GO_DURATION.test(s)) return undefined;
  let total = 0n;
  for (const [, whole, fraction, unit] of s.matchAll(/(\d+)(?:\.(\d+))?(ns|us|µs|ms|s|m|h)/g)) {
    const per = NANOS[unit!]!;
    total += BigInt(whole!) * per;
    if (fraction) total += (BigInt(fraction) * per) / 10n ** BigInt(fraction.length);
  }
  return total;
}

/** The whole seconds of a Go duration, or undefined when it is not one or not whole seconds. */
export function durationSeconds(s: string): number | undefined {
  const ns = durationNanos(s);
  if (ns === undefined || ns % 1_000_000_000n !== 0n) return undefined;
  return Number(ns / 1_000_000_000n);
}
