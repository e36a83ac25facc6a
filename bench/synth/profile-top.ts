/**
 * Summarizes a V8 CPU profile (`.cpuprofile`, as written by `npm run bench -- --cpu-prof DIR`):
 * the functions and the files with the most self time.
 *
 * Usage: tsx bench/synth/profile-top.ts FILE.cpuprofile... [TOP]
 * Several profiles (e.g. the main thread and a worker thread of one process) are added up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** `node_modules/js-yaml/dist/js-yaml.js` or `lib/cli/write.ts` rather than a file:// URL. */
function shortFile(url: string): string {
  if (url === '') return '(native)';
  const p = url.startsWith('file://') ? new URL(url).pathname : url;
  const nm = p.lastIndexOf('/node_modules/');
  if (nm >= 0) return p.slice(nm + 1);
  return path.relative(process.cwd(), p) || p;
}

function top(m: ReadonlyMap<string, number>, n: number, total: number): string[] {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([k, us]) =>
        `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`,
    );
}

function main(files: readonly string[], n: number): void {
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map<number, number>();
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i]!;
      self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
    for (const [id, us] of self) {
      const f = byId.get(id)!.callFrame;
      const file_ = shortFile(f.url);
      const fn = `${f.functionName || '(anonymous)'}  ${file_}${f.url ? `:${f.lineNumber + 1}` : ''}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
      byFile.set(file_, (byFile.get(file_) ?? 0) + us);
      total += us;
    }
  }
  console.log(`${files.map((f) => path.basename(f)).join(', ')}: ${(total / 1000).toFixed(0)} ms sampled`);
  console.log(`\nTop ${n} functions by self time:`);
  for (const l of top(byFunction, n, total)) console.log(l);
  console.log(`\nTop ${n} files by self time:`);
  for (const l of top(byFile, n, total)) console.log(l);
}

const args = process.argv.slice(2);
const files = args.filter((a) => !/^\d+$/.test(a));
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 15);
if (files.length === 0) {
  console.error('usage: tsx bench/synth/profile-top.ts FILE.cpuprofile... [TOP]');
  process.exit(2);
}
main(files, n);
