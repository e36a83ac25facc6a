/**
 * The diff benchmark (`npm run bench:diff`): how long `clusterset diff` takes on top of a compile,
 * on synthetic ClusterSets of growing size (bench/synth/model.ts), for three shapes of change:
 * - `none`: out/ is up to date (every file has the same bytes, so nothing is parsed);
 * - `pr`: a typical pull request: one member joins, one Service changes a port, one Service gains an
 *   exporter;
 * - `all`: out/ is empty (every object is new: the worst case, every file parsed).
 * Each is timed as diffTrees + impact + the markdown comment, best of `--reps` (default 3). The cost
 * per file of the `all` case at each size shows whether the diff stays linear.
 *
 * Usage: npm run bench:diff [-- --sizes 10x100,50x500,200x1000 --reps 3]
 */
import { synthetic } from '../synth/model';
import { compile } from '../../lib/compile';
import { diffTrees, formatMarkdown, impact } from '../../lib/diff';
import type { ClusterSetProps } from '../../lib/model';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const sizes = arg('sizes', '10x100,50x500,200x1000')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number]);
const reps = Number(arg('reps', '3'));

function files(model: ClusterSetProps): ReadonlyMap<string, string> {
  const r = compile(model);
  if (r.diagnostics.length > 0) throw new Error(`model has problems: ${r.diagnostics[0]!.message}`);
  return r.files;
}

/** A typical pull request against the synthetic model. */
function edited(clusters: number, services: number): ClusterSetProps {
  const m = JSON.parse(JSON.stringify(synthetic(clusters, services))) as {
    members: string[];
    clusters: Record<string, unknown>[];
    services: { ports: { port: number }[]; exportedFrom: string[] }[];
  };
  const last = m.clusters[m.clusters.length - 1]!;
  // A member that is a copy of the last one with its own ID and CIDRs (outside the model's scheme).
  m.clusters.push({
    ...last,
    id: 'new-member',
    serviceCIDR: '10.255.0.0/16',
    podCIDRs: ['100.127.192.0/18'],
  });
  m.members.push('new-member');
  m.services[0]!.ports[0]!.port += 1;
  const s = m.services[1]!;
  if (!s.exportedFrom.includes('new-member')) s.exportedFrom.push('new-member');
  return m as unknown as ClusterSetProps;
}

function best(f: () => void): number {
  let min = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const rows: string[][] = [['size', 'files', 'case', 'parsed', 'ms', 'µs/file', 'markdown chars']];
for (const [c, s] of sizes) {
  const base = files(synthetic(c, s));
  const same = new Map([...base].map(([k, v]) => [k, `${v}`]));
  const pr = files(edited(c, s));
  for (const [name, before, after] of [
    ['none', base, same],
    ['pr', base, pr],
    ['all', new Map<string, string>(), base],
  ] as const) {
    let parsed = 0;
    let chars = 0;
    const ms = best(() => {
      const d = diffTrees(before, after);
      const md = formatMarkdown(d, impact(before, after, d), { before: 'out/', after: 'model' });
      parsed = d.stats.parsed;
      chars = md.length;
    });
    rows.push([
      `${c}x${s}`,
      String(after.size),
      name,
      String(parsed),
      ms.toFixed(1),
      ((ms * 1000) / after.size).toFixed(1),
      String(chars),
    ]);
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) process.stdout.write(`${r.map((x, i) => x.padStart(widths[i]!)).join('  ')}\n`);
