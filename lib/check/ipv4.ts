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
