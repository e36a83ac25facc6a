/**
 * Kubernetes quantities (k8s.io/apimachinery resource.ParseQuantity): a non-negative number and an
 * optional suffix, binary (Ki … Ei), decimal (n … E) or an exponent (`e3`). One reading for the
 * checks, the render (the reconciler's V8 heap from its memory limit) and the tests.
 */
const QUANTITY = /^\+?(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?\d+)?$/;
const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity (bytes for memory, CPUs for cpu), or undefined when it is none. */
export function quantityValue(q: string): number | undefined {
  const m = QUANTITY.exec(q);
  if (!m) return undefined;
  const suffix = m[3] ?? '';
  const scale = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix]!;
  return Number(m[1]) * scale;
}

/** A memory quantity in bytes (whole bytes, as the kubelet rounds it up); throws on anything else. */
export function memoryBytes(q: string): number {
  const v = quantityValue(q);
  if (v === undefined) throw new Error(`memory quantity ${JSON.stringify(q)} is not a Kubernetes quantity`);
  return Math.ceil(v);
}
