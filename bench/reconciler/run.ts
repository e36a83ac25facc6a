/**
 * The reconciler benchmark (`npm run bench:reconciler`), on real API servers (test/kube): for each
 * shape MEMBERSxSERVICES, a leader control plane with the compiled bundle, the reconciler as the
 * image runs it (`node dist/lib/cli/main.js reconcile`, built first with `npm run build:js`) under
 * its own ServiceAccount, and members writing what Antrea's member writes (test/e2e/member.ts):
 *
 * - load: every member exports every Service (a Service and an Endpoints export each), members in
 *   parallel, as fast as the API server takes them: a cold start of the whole ClusterSet;
 * - steady: members change one Service's endpoints (a new ClusterIP) at a steady rate, the way
 *   rollouts and restarts do.
 *
 * Latency is from the start of a member's Endpoints export write to the moment a watch on the
 * leader's ResourceImports shows the import holding it (and no longer the member's previous IP).
 * CPU (user + system) and peak RSS (VmHWM) are the reconciler process's, read from /proc. Not a
 * test: it prints figures and judges them against the goal (p99 < 1 s at 1,000 Services, < 100 MB).
 *
 * Usage: npm run bench:reconciler [-- --shapes 3x10,3x100,3x1000,10x10,10x100,10x1000 --rate 20
 *        --steady 15]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../lib/reconciler/kube';
import { RECONCILER_NODE_OPTIONS } from '../../lib/render/reconciler';
import { cluster, service, type ModelDraft } from '../../test/helpers/models';
import { stopAll } from '../../test/kube/cluster';
import { eventually, sleep } from '../../test/kube/wait';
import { setUpClusterSet, type ClusterSetFixture } from '../../test/e2e/fixture';
import { SimulatedMember } from '../../test/e2e/member';
import { startReconciler } from '../../test/e2e/reconciler-process';

const ROOT = path.resolve(__dirname, '..', '..');

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
}

const shapes = arg('shapes', '3x10,3x100,3x1000,10x10,10x100,10x1000')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number]);
const RATE = Number(arg('rate', '20'));
const STEADY_S = Number(arg('steady', '15'));
/** NODE_OPTIONS of the reconciler: the Deployment's by default; '' for Node's defaults. */
const NODE_OPTIONS = arg('node-options', RECONCILER_NODE_OPTIONS);
const PORTS = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }];

function model(members: number, services: number): ModelDraft {
  const ids = Array.from({ length: members }, (_, i) => `m${i + 1}`);
  return {
    clusterSetId: 'bench',
    leader: 'hub',
    members: ids,
    clusters: [cluster('hub', 0), ...ids.map((id, i) => cluster(id, i + 1))],
    services: Array.from({ length: services }, (_, i) =>
      service('app', `svc-${i}`, ids, [{ name: 'http', port: 80 }]),
    ),
  };
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

function procStat(pid: number): { cpuS: number; hwmMB: number; rssMB: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]); // utime + stime
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuS: ticks / 100, hwmMB: kb('VmHWM') / 1024, rssMB: kb('VmRSS') / 1024 };
}

/** Watches the leader's ResourceImports and settles expectations "import of svc holds ip, not old". */
class ImportWatch {
  private readonly ips = new Map<string, Set<string>>();
  private readonly waiting: {
    svc: string;
    ip: string;
    old?: string;
    t0: number;
    done: (ms: number) => void;
  }[] = [];
  private readonly ac = new AbortController();

  constructor(
    private readonly client: KubeClient,
    private readonly ns: string,
  ) {}

  async start(): Promise<void> {
    const path = `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${this.ns}/resourceimports`;
    const loop = async () => {
      let rv = '';
      while (!this.ac.signal.aborted) {
        try {
          if (!rv) {
            const l = await this.client.request<{
              metadata: { resourceVersion: string };
              items: Record<string, unknown>[];
            }>('GET', path);
            for (const i of l.items) this.seen(i, false);
            rv = l.metadata.resourceVersion;
          }
          await this.client.watch(
            `${path}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=600`,
            (e) => {
              rv = String(
                (e.object.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? rv,
              );
              if (e.type === 'ERROR') rv = '';
              else if (e.type !== 'BOOKMARK') this.seen(e.object, e.type === 'DELETED');
            },
            this.ac.signal,
          );
        } catch {
          rv = '';
          await sleep(200);
        }
      }
    };
    void loop();
  }

  stop(): void {
    this.ac.abort();
  }

  private seen(o: Record<string, unknown>, deleted: boolean): void {
    const spec = o.spec as {
      kind?: string;
      name?: string;
      endpoints?: { subsets?: { addresses?: { ip: string }[] }[] };
    };
    if (spec?.kind !== 'Endpoints' || !spec.name) return;
    const ips = new Set(
      deleted ? [] : (spec.endpoints?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)),
    );
    this.ips.set(spec.name, ips);
    const now = performance.now();
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = this.waiting[i]!;
      if (w.svc === spec.name && ips.has(w.ip) && (!w.old || !ips.has(w.old))) {
        this.waiting.splice(i, 1);
        w.done(now - w.t0);
      }
    }
  }

  /** Resolves with ms from t0 to the import holding `ip` (and not `old`) for `svc`. */
  expect(svc: string, ip: string, old: string | undefined, t0: number): Promise<number> {
    const have = this.ips.get(svc);
    if (have?.has(ip) && (!old || !have.has(old))) return Promise.resolve(performance.now() - t0);
    return new Promise((done) => this.waiting.push({ svc, ip, ...(old ? { old } : {}), t0, done }));
  }

  get pending(): number {
    return this.waiting.length;
  }
}

interface Result {
  shape: string;
  loadS: number;
  load: number[];
  steady: number[];
  cpuS: number;
  idleMB: number;
  hwmMB: number;
  rssMB: number;
  heapMB: number;
}

async function runShape(members: number, services: number): Promise<Result> {
  const f: ClusterSetFixture = await setUpClusterSet(
    model(members, services),
    `bench-${members}x${services}`,
  );
  const kc = new KubeConfig();
  kc.loadFromFile(f.leader.kubeconfigPath);
  const watch = new ImportWatch(new KubeClient(kc, { userAgent: 'bench' }), f.ns);
  await watch.start();
  const ms = f.plan.members.map(
    (m) =>
      new SimulatedMember(m.id, f.leader, f.tokens.get(m.id)!, f.ns, f.plan.clusterSetId, f.plan.leader.id),
  );
  for (const m of ms) await m.announce();
  const rec = startReconciler(f, 'bench', { compiled: true, nodeOptions: NODE_OPTIONS });
  const pid = rec.child.pid!;
  await eventually('leader', async () =>
    (await rec.metrics()).get('clusterset_reconciler_leader') === 1 ? true : undefined,
  );
  const idle = procStat(pid);
  const cpu0 = idle.cpuS;
  const ip = new Map<string, string>();
  let version = 0;
  const nextIp = (mi: number) => {
    version++;
    return `10.${mi + 1}.${Math.floor(version / 250) % 250}.${version % 250}`;
  };

  // Load: every member exports every Service.
  const load: Promise<number>[] = [];
  const t0 = performance.now();
  await Promise.all(
    ms.map(async (m, mi) => {
      for (let s = 0; s < services; s++) {
        const svc = `svc-${s}`;
        const addr = nextIp(mi);
        await m.upsertExport(m.serviceExport('app', svc, PORTS));
        const start = performance.now();
        await m.upsertExport(m.endpointsExport('app', svc, SimulatedMember.clusterIpSubsets(addr, PORTS)));
        ip.set(`${svc}/${m.id}`, addr);
        load.push(watch.expect(svc, addr, undefined, start));
      }
    }),
  );
  const loadLat = await Promise.all(load);
  const loadS = (performance.now() - t0) / 1000;

  // Steady: RATE endpoint changes a second for STEADY_S seconds.
  const steady: Promise<number>[] = [];
  const n = RATE * STEADY_S;
  const begin = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const due = begin + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const mi = i % ms.length;
    const m = ms[mi]!;
    const svc = `svc-${(i * 7919) % services}`;
    const old = ip.get(`${svc}/${m.id}`);
    const addr = nextIp(mi);
    ip.set(`${svc}/${m.id}`, addr);
    inFlight.push(
      (async () => {
        const start = performance.now();
        await m.upsertExport(m.endpointsExport('app', svc, SimulatedMember.clusterIpSubsets(addr, PORTS)));
        steady.push(watch.expect(svc, addr, old, start));
      })(),
    );
  }
  await Promise.all(inFlight);
  const steadyLat = await Promise.all(steady);
  const st = procStat(pid);
  const heapMB = ((await rec.metrics()).get('process_heap_bytes') ?? NaN) / 2 ** 20;
  watch.stop();
  await rec.stop();
  await stopAll();
  fs.rmSync(f.dir, { recursive: true, force: true });
  return {
    shape: `${members}x${services}`,
    loadS,
    load: loadLat,
    steady: steadyLat,
    cpuS: st.cpuS - cpu0,
    idleMB: idle.rssMB,
    hwmMB: st.hwmMB,
    rssMB: st.rssMB,
    heapMB,
  };
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'lib', 'cli', 'main.js')))
    throw new Error(
      'run `npm run build:js` first (the benchmark runs the compiled reconciler, as the image does)',
    );
  const results: Result[] = [];
  for (const [m, s] of shapes) {
    process.stderr.write(`shape ${m} members x ${s} services…\n`);
    results.push(await runShape(m, s));
  }
  const fmt = (x: number) => (Number.isNaN(x) ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
  const rows = [
    [
      'shape',
      'load s',
      'load p50 ms',
      'load p99 ms',
      'steady p50 ms',
      'steady p99 ms',
      'cpu s',
      'peak RSS MB',
    ],
    ...results.map((r) => [
      r.shape,
      r.loadS.toFixed(1),
      fmt(percentile(r.load, 50)),
      fmt(percentile(r.load, 99)),
      fmt(percentile(r.steady, 50)),
      fmt(percentile(r.steady, 99)),
      r.cpuS.toFixed(1),
      r.idleMB.toFixed(0),
      r.hwmMB.toFixed(0),
      r.rssMB.toFixed(0),
      r.heapMB.toFixed(0),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) process.stdout.write(r.map((c, i) => c.padStart(widths[i]!)).join('  ') + '\n');
  process.stdout.write(
    `steady rate ${RATE}/s for ${STEADY_S} s; load = every member exports every Service at once (cold start); NODE_OPTIONS=${JSON.stringify(NODE_OPTIONS)}\n`,
  );
  for (const r of results.filter((x) => x.shape.endsWith('x1000'))) {
    const p99 = percentile(r.steady, 99);
    process.stdout.write(
      `${r.shape}: steady p99 ${fmt(p99)} ms ${p99 < 1000 ? 'MET' : 'NOT MET'} (< 1000); peak RSS ${r.hwmMB.toFixed(0)} MB ${r.hwmMB < 100 ? 'MET' : 'NOT MET'} (< 100)\n`,
    );
  }
}

main().catch(async (e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  await stopAll();
  process.exitCode = 1;
});
