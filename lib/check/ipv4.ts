/**
 * IPv4 addresses and CIDRs, just enough for the network rules. Antrea Multi-cluster is IPv4-only
 * (antrea-mc.md §f), so IPv6 is rejected like any other malformed value.
 */

/** An IPv4 CIDR as the range of addresses it covers, both ends included. */
export interface Ipv4Range {
  readonly first: number;
  readonly last: number;
}

const OCTET = /^(0|[1-9][0-9]{0,2})$/;

/** The address as a number, or undefined. Leading zeros are refused, as Go's net.ParseIP does. */
export function parseIpv4(s: string): number | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => OCTET.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** `a.b.c.d/n` as a range, or undefined. Host bits may be set (Go's net.ParseCIDR masks them). */
export function parseIpv4Cidr(s: string): Ipv4Range | undefined {
  const m = /^([0-9.]+)\/(0|[1-9][0-9]?)$/.exec(s);
  if (!m) return undefined;
  const ip = parseIpv4(m[1]!);
  const prefix = Number(m[2]);
  if (ip === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const first = Math.floor(ip / size) * size;
  return { first, last: first + size - 1 };
}

export function rangesOverlap(a: Ipv4Range, b: Ipv4Range): boolean {
  return a.first <= b.last && b.first <= a.last;
}

/**
 * Every pair of items whose ranges overlap, as `[i, j]` indexes into `items` with `i < j`, in that
 * order. Sort and sweep: n log n plus the number of pairs found, never all pairs.
 */
export function overlappingPairs<T>(items: readonly T[], range: (t: T) => Ipv4Range): [number, number][] {
  const order = items
    .map((_, i) => i)
    .sort((a, b) => range(items[a]!).first - range(items[b]!).first || a - b);
  const out: [number, number][] = [];
  for (let x = 0; x < order.length; x++) {
    const a = order[x]!;
    const last = range(items[a]!).last;
    // Sorted by start: every later range that starts before `a` ends overlaps it, and no other does.
    for (let y = x + 1; y < order.length && range(items[order[y]!]!).first <= last; y++) {
      const b = order[y]!;
      out.push(a < b ? [a, b] : [b, a]);
    }
  }
  return out.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}
