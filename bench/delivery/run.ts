/**
 * The delivery benchmark (`npm run bench:delivery`): the real Argo CD and the real Flux, side by side
 * in one run, each delivering the same ClusterSet from a git server on loopback onto real control
 * planes with a node each (test/e2e/gitops.ts: the leader `hub`, also the management cluster, and the
 * members `east` and `central`, each member's Antrea member controller played as it writes).
 *
 * For each tool:
 * - bootstrap: from `kubectl apply -k out/<tool>` (and registrations, tokens) to every Application
 *   Synced and Healthy, or every Kustomization Ready;
 * - --pushes times: a commit that exports one more Service from `central` (its Service created
 *   first), then the refresh a git webhook causes. Figures: from the push to every Application
 *   Synced and Healthy / Kustomization Ready at that commit, and to the first moment `east`'s
 *   `Endpoints antrea-mc-<svc>` holds central's ClusterIP (delivery, the reconciler's merge, the
 *   member's import);
 * - the delivery controllers' CPU (user + system, from /proc) and peak RSS (VmHWM) over the run:
 *   Argo CD's application controller, repo server and redis; Flux's source-controller and
 *   kustomize-controller.
 *
 * Argo CD polls git every `timeout.reconciliation` and Flux at each interval; both are set to 20 s
 * here, and each push is followed by the refresh a webhook would ask for, so the figures are the
 * tools' own work, not their polling. Not a test: it prints figures and the Flux/Argo CD ratios.
 *
 * Usage: npm run bench:delivery [-- --pushes 5 --tools argocd,flux]
 */
import * as fs from 'node:fs';
import type { ClusterSetProps } from '../../lib/model';
import { request, stopAll } from '../../test/kube/cluster';
import { eventually, sleep } from '../../test/kube/wait';
import { GitOpsWorld, type Tool } from '../../test/e2e/gitops';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const PUSHES = Number(arg('pushes', '5'));
const TOOLS = arg('tools', 'argocd,flux').split(',') as Tool[];
const RESYNC = '20s';
const CLK_TCK = 100;

interface Sample {
  cpuS: number;
  peakMiB: number;
}

/** CPU seconds (user + system) and peak RSS of a process, from /proc. */
function readProc(pid: number): Sample | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuS = (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return { cpuS, peakMiB: Number(hwm ?? 0) / 1024 };
  } catch {
    return undefined;
  }
}

function model(w: GitOpsWorld, services: string[]): ClusterSetProps {
  const ids = ['hub', 'east', 'central'];
  return {
    clusterSetId: `bench-${w.o.tool}`,
    antreaVersion: '2.7.0',
    leader: 'hub',
    members: ['east', 'central'],
    clusters: ids.map((id, i) => ({
      id,
      apiServer: w.cluster(id).server,
      serviceCIDR: `10.${120 + i}.0.0/16`,
      podCIDRs: [`10.${220 + i}.0.0/16`],
    })),
    services: [
      {
        namespace: 'shop',
        name: 'cart',
        ports: [{ name: 'http', port: 8080 }],
        exportedFrom: ['east', 'central'],
      },
      ...services.map((name) => ({
        namespace: 'shop',
        name,
        ports: [{ name: 'http', port: 8080 }],
        exportedFrom: ['central'],
      })),
    ],
    reconciler: { replicas: 1 },
    delivery: {
      repoURL: w.git.url,
      branch: 'main',
      path: 'out',
      managementCluster: 'hub',
      argocd: w.o.tool === 'argocd' ? {} : { enabled: false },
      flux: w.o.tool === 'flux' ? { interval: RESYNC } : { enabled: false },
    },
  } as ClusterSetProps;
}

interface Result {
  tool: Tool;
  bootstrapS: number;
  syncedS: number[];
  endpointsS: number[];
  cpu: Map<string, Sample>;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function runTool(tool: Tool): Promise<Result> {
  const w = new GitOpsWorld({
    tool,
    prefix: `b${tool[0]}`,
    leader: 'hub',
    members: ['east', 'central'],
    resync: RESYNC,
  });
  try {
    await w.start();
    const pids = () =>
      tool === 'argocd' ? Object.entries(w.argocd!.pids()) : Object.entries(w.flux!.pids());
    const base = new Map(pids().map(([k, pid]) => [k, readProc(pid!)?.cpuS ?? 0]));
    let services: string[] = [];
    const first = await w.publish(model(w, services), 'bench: first');
    await w.installAntrea(first.plan);
    for (const id of ['east', 'central']) await w.service(id, 'shop', 'cart', [{ name: 'http', port: 8080 }]);
    const t0 = performance.now();
    await w.bootstrap(first);
    await w.refresh();
    // The token step, once the leader bundle is applied (as the runbook and gitops-loop do it).
    await w.leaderApplied(first);
    await w.tokens(['east', 'central']);
    await w.refresh();
    await w.converged(first, 600_000);
    const bootstrapS = (performance.now() - t0) / 1000;
    const syncedS: number[] = [];
    const endpointsS: number[] = [];
    for (let i = 1; i <= PUSHES; i++) {
      const name = `svc-${i}`;
      await w.service('central', 'shop', name, [{ name: 'http', port: 8080 }]);
      const ip = (
        (await request(w.cluster('central').admin, 'GET', `/api/v1/namespaces/shop/services/${name}`))
          .json as { spec: { clusterIP: string } }
      ).spec.clusterIP;
      services = [...services, name];
      await sleep(2000);
      const p = await w.publish(model(w, services), `bench: export ${name}`);
      const pushed = performance.now();
      await w.refresh();
      const endpoints = eventually(
        `east imports ${name}`,
        async () => {
          const r = await request(
            w.cluster('east').admin,
            'GET',
            `/api/v1/namespaces/shop/endpoints/antrea-mc-${name}`,
          );
          return r.status === 200 && r.body.includes(ip) ? performance.now() : undefined;
        },
        300_000,
        100,
      );
      await w.converged(p, 300_000);
      syncedS.push((performance.now() - pushed) / 1000);
      endpointsS.push(((await endpoints) - pushed) / 1000);
      process.stderr.write(
        `${tool}: push ${i}: synced ${syncedS.at(-1)!.toFixed(1)} s, endpoints ${endpointsS.at(-1)!.toFixed(1)} s\n`,
      );
    }
    const cpu = new Map<string, Sample>();
    for (const [k, pid] of pids()) {
      const s = readProc(pid!);
      if (s) cpu.set(k, { cpuS: s.cpuS - (base.get(k) ?? 0), peakMiB: s.peakMiB });
    }
    return { tool, bootstrapS, syncedS, endpointsS, cpu };
  } finally {
    await w.stop();
    await stopAll();
  }
}

async function main(): Promise<void> {
  const results: Result[] = [];
  for (const tool of TOOLS) results.push(await runTool(tool));
  const f = (x: number) => x.toFixed(1);
  console.log(
    `delivery benchmark: ${PUSHES} pushes per tool, resync ${RESYNC}, refresh on push (as a webhook)\n`,
  );
  console.log(
    'tool     bootstrap→converged  push→synced p50/max  push→endpoints p50/max  CPU s (process)                    peak RSS MiB',
  );
  for (const r of results) {
    const cpu = [...r.cpu].map(([k, s]) => `${k} ${f(s.cpuS)}`).join(', ');
    const rss = [...r.cpu].map(([k, s]) => `${k} ${s.peakMiB.toFixed(0)}`).join(', ');
    console.log(
      `${r.tool.padEnd(8)} ${f(r.bootstrapS).padStart(8)} s           ${f(pct(r.syncedS, 50))}/${f(Math.max(...r.syncedS))} s           ${f(pct(r.endpointsS, 50))}/${f(Math.max(...r.endpointsS))} s              ${cpu.padEnd(34)} ${rss}`,
    );
  }
  const [a, b] = [results.find((r) => r.tool === 'argocd'), results.find((r) => r.tool === 'flux')];
  if (a && b) {
    const total = (r: Result) => [...r.cpu.values()].reduce((s, x) => s + x.cpuS, 0);
    console.log(
      `\nFlux / Argo CD: bootstrap ${f(b.bootstrapS / a.bootstrapS)}x, push→synced p50 ${f(pct(b.syncedS, 50) / pct(a.syncedS, 50))}x, push→endpoints p50 ${f(pct(b.endpointsS, 50) / pct(a.endpointsS, 50))}x, CPU ${f(total(b) / total(a))}x`,
    );
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
