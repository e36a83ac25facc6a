/**
 * The reconciler benchmark's shapes (bench/reconciler/run.ts), shared with the in-cluster test that
 * holds the reconciler's memory limit at the largest one (test/e2e/in-cluster.test.ts).
 *
 * `MxS/E`: M members, S Services `app/svc-<i>`, each exported by E of the members, Service i by
 * m(i mod M) and the E-1 after it.
 */
export interface Shape {
  readonly members: number;
  readonly services: number;
  readonly exporters: number;
  readonly name: string;
}

export function parseShape(s: string): Shape {
  const m = /^(\d+)x(\d+)(?:\/(\d+))?$/.exec(s);
  if (!m) throw new Error(`--shapes: ${s} is not MEMBERSxSERVICES[/EXPORTERS]`);
  const members = Number(m[1]);
  const exporters = Math.min(members, Number(m[3] ?? m[1]));
  return { members, services: Number(m[2]), exporters, name: `${members}x${m[2]}/${exporters}` };
}

/** The burst of issue 17: 3 members, 1,000 Services, each exported by 2 of the 3. */
export const BURST = '3x1000/2';
/** The largest shape the benchmark runs by default: 20,000 exports. */
export const LARGEST = '10x1000/10';
export const DEFAULT_SHAPES = [BURST, LARGEST];

export const memberIds = (n: number): string[] => Array.from({ length: n }, (_, i) => `m${i + 1}`);

/** The members exporting Service i. */
export function exportersOf(shape: Shape, i: number): string[] {
  const ids = memberIds(shape.members);
  return Array.from({ length: shape.exporters }, (_, k) => ids[(i + k) % shape.members]!);
}
