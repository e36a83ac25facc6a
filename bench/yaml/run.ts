/**
 * The YAML benchmark (`npm run bench:yaml`): the time to dump every object of a synthetic ClusterSet
 * (`compile(synthetic(clusters, services)).bundles`, deep-copied) with js-yaml (`dumpYamlReference`),
 * with the fast emitter (`dumpYaml`) and, for scale, with `JSON.stringify`. It first checks that the
 * two dumps give the same bytes for every object.
 *
 * After one warm-up pass of each, `--reps` rounds each time all three in turn (garbage collected
 * before each when run with --expose-gc, which the npm script does); best and median wall time and
 * least CPU time (user + system, less moved by other processes on a shared machine) per dumper.
 * The fast emitter's cache of written scalars stays warm across rounds; its first pass (cold JIT and
 * cache) is printed too.
 *
 * Usage: npm run bench:yaml [-- --size 200x1000 --reps 10]
 */
import * as os from 'node:os';
import { compile } from '../../lib/compile';
import { dumpYaml, dumpYamlReference } from '../../lib/yaml';
import { synthetic } from '../synth/model';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const size = /^(\d+)x(\d+)$/.exec(arg('size', '200x1000'));
if (!size) throw new Error('--size: CLUSTERSxSERVICES, e.g. 200x1000');
const reps = Number(arg('reps', '10'));

const r = compile(synthetic(Number(size[1]), Number(size[2])));
if (!r.bundles) throw new Error(`the synthetic model does not compile: ${r.diagnostics[0]?.message}`);
const objects: unknown[] = structuredClone([...r.bundles.values()].flat());

const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => {});

/** Wall time and CPU time (user + system) of one pass over all objects, in ms. */
function pass(dump: (o: unknown) => string): { wall: number; cpu: number } {
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const o of objects) dump(o);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

const firstFast = pass(dumpYaml).wall;
let bytes = 0;
for (const o of objects) {
  const fast = dumpYaml(o);
  if (fast !== dumpYamlReference(o)) throw new Error(`dumpYaml differs from js-yaml on ${JSON.stringify(o)}`);
  bytes += Buffer.byteLength(fast);
}
pass(dumpYamlReference);
pass(JSON.stringify);

const dumpers: [string, (o: unknown) => string][] = [
  ['js-yaml (dumpYamlReference)', dumpYamlReference],
  ['fast (dumpYaml)', dumpYaml],
  ['JSON.stringify', JSON.stringify],
];
const runs = dumpers.map((): number[] => []);
const cpu = dumpers.map((): number[] => []);
for (let i = 0; i < reps; i++)
  dumpers.forEach(([, dump], d) => {
    const t = pass(dump);
    runs[d]!.push(t.wall);
    cpu[d]!.push(t.cpu);
  });

const best = (xs: readonly number[]): number => Math.min(...xs);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `YAML dump of ${objects.length} objects (${(bytes / 1024 / 1024).toFixed(1)} MB of YAML) from ${size[0]}: ` +
    `node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs, ${reps} rounds`,
);
for (const [d, [name]] of dumpers.entries())
  console.log(
    `  ${name.padEnd(28)} best ${best(runs[d]!).toFixed(1).padStart(6)} ms   median ${median(runs[d]!).toFixed(1).padStart(6)} ms` +
      `   least CPU ${best(cpu[d]!).toFixed(1).padStart(6)} ms`,
  );
console.log(`  fast first pass (cold): ${firstFast.toFixed(1)} ms`);
console.log(
  `  fast vs js-yaml: x${(best(runs[0]!) / best(runs[1]!)).toFixed(1)} faster (best), ` +
    `x${(median(runs[0]!) / median(runs[1]!)).toFixed(1)} (median); identical bytes for all ${objects.length} objects`,
);
