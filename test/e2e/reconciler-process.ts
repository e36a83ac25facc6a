// `clusterset reconcile` as a real process for the end-to-end tests and the benchmark: the CLI
// of docs/cli.md (bin/clusterset), the compiled JavaScript the image runs (dist/), or the image
// itself in a container run as the leader bundle's Deployment runs it; with the reconciler's own
// kubeconfig; its JSON logs are collected, its metrics endpoint found from them.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { RECONCILER_CONFIG_NAME, RECONCILER_NAME } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import {
  podmanCommand,
  podmanRun,
  reapTestContainers,
  removeContainersSync,
  TEST_PID_LABEL,
  type BuiltImage,
} from '../image/image';
import { podmanContainer } from '../image/pod';
import type { ClusterSetFixture } from './fixture';

const ROOT = path.resolve(__dirname, '..', '..');

export interface LogLine {
  time: string;
  level: string;
  msg: string;
  [k: string]: unknown;
}

export interface ReconcilerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logs: LogLine[];
  /** Lines that were not JSON (stderr, or a crash). */
  readonly other: string[];
  /** Resolves with the metrics port once the process says where it listens. */
  readonly port: Promise<number>;
  /** Resolves with the exit code (or the signal name) once it has exited. */
  readonly exited: Promise<number | string>;
  get(path: string): Promise<{ status: number; body: string }>;
  /** Parsed /metrics: `name{labels}` → value. */
  metrics(): Promise<Map<string, number>>;
  kill(signal?: NodeJS.Signals): void;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | string>;
}

const running = new Set<ReconcilerProcess>();
/** Containers started here and not yet exited. */
const containers = new Set<string>();
process.on('exit', () => {
  for (const r of running) r.child.kill('SIGKILL');
  removeContainersSync([...containers]);
});

export interface StartOptions {
  /** Extra CLI arguments. */
  readonly args?: readonly string[];
  /** Run dist/lib/cli/main.js (what the image runs) instead of bin/clusterset. */
  readonly compiled?: boolean;
  /** Run this CLI entry (e.g. another build's dist/lib/cli/main.js) instead. */
  readonly entry?: string;
  /** Echo logs to stderr (debugging). Env: RECONCILER_LOGS=1. */
  readonly echo?: boolean;
  /** NODE_OPTIONS of the process (V8 flags, as a Deployment would set them). */
  readonly nodeOptions?: string;
  /**
   * Run this image (the one the leader bundle's Deployment names) in a podman container with the
   * rendered Deployment's securityContext, limits, env (POD_NAME = `name`) and volumes
   * (test/image/pod.ts), the host's network, the kubeconfig mounted read-only. `nodeOptions` and
   * `compiled` do not apply: the Deployment's env and the image's entrypoint do.
   */
  readonly image?: BuiltImage;
  /** Arguments of node itself, before the entry (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
}

/** Where the container gets the reconciler's kubeconfig. */
export const CONTAINER_KUBECONFIG = '/var/run/clusterset/kubeconfig';

function leaderObject(f: ClusterSetFixture, kind: string, name: string): Record<string, unknown> {
  const file = path.join(f.dir, 'clusters', f.plan.leader.id, f.ns, `${kind}.${name}.yaml`);
  return loadYaml(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** `podman run` of the image as the rendered Deployment runs it, attached, removed on exit. */
function containerCommand(
  f: ClusterSetFixture,
  name: string,
  image: BuiltImage,
  container: string,
  extra: readonly string[],
): [string, string[]] {
  const dep = leaderObject(f, 'Deployment', RECONCILER_NAME) as {
    spec: { template: Record<string, unknown> };
  };
  const cm = leaderObject(f, 'ConfigMap', RECONCILER_CONFIG_NAME) as { data: Record<string, string> };
  const c = podmanContainer(dep.spec.template, 'reconciler', {
    podName: name,
    namespace: f.ns,
    configMaps: new Map([[RECONCILER_CONFIG_NAME, cm.data]]),
    dir: path.join(f.dir, `pod-${name}`),
  });
  if (c.image !== image.tag)
    throw new Error(`the leader bundle's Deployment runs ${c.image}, the image built is ${image.tag}`);
  // The host's network: listen on a free loopback port instead of the Pod's own 0.0.0.0:8080.
  const args = [...c.args];
  const listen = args.indexOf('--listen');
  if (listen < 0) throw new Error(`the Deployment's args have no --listen: ${args.join(' ')}`);
  args[listen + 1] = '127.0.0.1:0';
  return podmanCommand([
    'run',
    '--rm',
    '--replace',
    '--name',
    container,
    '--label',
    `${TEST_PID_LABEL}=${process.pid}`,
    '--network=host',
    ...c.flags,
    '--volume',
    `${f.reconcilerKubeconfig}:${CONTAINER_KUBECONFIG}:ro`,
    image.id,
    ...args,
    '--kubeconfig',
    CONTAINER_KUBECONFIG,
    ...extra,
  ]);
}

function processCommand(f: ClusterSetFixture, name: string, o: StartOptions): [string, string[]] {
  const entry =
    o.entry ??
    (o.compiled ? path.join(ROOT, 'dist', 'lib', 'cli', 'main.js') : path.join(ROOT, 'bin', 'clusterset'));
  if (!fs.existsSync(entry))
    throw new Error(`${entry} does not exist${o.compiled ? ' (npm run build:js)' : ''}`);
  return [
    process.execPath,
    [
      ...(o.nodeArgs ?? []),
      entry,
      'reconcile',
      '--kubeconfig',
      f.reconcilerKubeconfig,
      '--namespace',
      f.ns,
      '--config',
      f.configPath,
      '--listen',
      '127.0.0.1:0',
      '--identity',
      name,
      ...(o.args ?? []),
    ],
  ];
}

let reaped = false;

export function startReconciler(f: ClusterSetFixture, name: string, o: StartOptions = {}): ReconcilerProcess {
  const container = o.image ? `clusterset-test-${name}-${process.pid}` : undefined;
  if (o.image && !reaped) {
    reapTestContainers();
    reaped = true;
  }
  const [cmd, args] =
    o.image && container
      ? containerCommand(f, name, o.image, container, o.args ?? [])
      : processCommand(f, name, o);
  const env = { ...process.env };
  if (o.nodeOptions !== undefined) env.NODE_OPTIONS = o.nodeOptions;
  else delete env.NODE_OPTIONS;
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (container) containers.add(container);
  const logs: LogLine[] = [];
  const other: string[] = [];
  const echo = o.echo ?? process.env.RECONCILER_LOGS === '1';
  let resolvePort: (p: number) => void = () => {};
  let rejectPort: (e: Error) => void = () => {};
  const port = new Promise<number>((res, rej) => {
    resolvePort = res;
    rejectPort = rej;
  });
  port.catch(() => undefined);
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (echo) process.stderr.write(`[${name}] ${line}\n`);
    try {
      const l = JSON.parse(line) as LogLine;
      logs.push(l);
      if (l.msg === 'serving health and metrics') resolvePort(Number(String(l.address).split(':').pop()));
    } catch {
      other.push(line);
    }
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (echo) process.stderr.write(`[${name}!] ${line}\n`);
    other.push(line);
  });
  const exited = new Promise<number | string>((res) =>
    child.once('exit', (code, sig) => {
      running.delete(proc);
      if (container) containers.delete(container);
      rejectPort(
        new Error(`reconciler ${name} exited (${code ?? sig}) before listening:\n${other.join('\n')}`),
      );
      res(code ?? sig ?? -1);
    }),
  );
  const get = async (p: string) => {
    const portNo = await port;
    return new Promise<{ status: number; body: string }>((res, rej) => {
      http
        .get({ host: '127.0.0.1', port: portNo, path: p, agent: false, timeout: 5000 }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        })
        .on('timeout', function (this: http.ClientRequest) {
          this.destroy(new Error(`${name} ${p}: no answer in 5 s`));
        })
        .on('error', rej);
    });
  };
  const proc: ReconcilerProcess = {
    name,
    child,
    logs,
    other,
    port,
    exited,
    get,
    async metrics() {
      return parseMetrics((await get('/metrics')).body);
    },
    kill(signal = 'SIGKILL') {
      if (container) void podmanRun(['kill', '--signal', signal, container]);
      else child.kill(signal);
    },
    async stop() {
      // A container is stopped as the kubelet stops it: SIGTERM, SIGKILL after the grace period.
      if (container) void podmanRun(['stop', '--time', '30', container]);
      else child.kill('SIGTERM');
      return exited;
    },
  };
  running.add(proc);
  return proc;
}

/** The sum of every series of a metric (all label sets) in parsed /metrics; 0 when it has none. */
/** Prometheus text as `name{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    m.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return m;
}

export function metricSum(m: ReadonlyMap<string, number>, name: string): number {
  let n = 0;
  for (const [k, v] of m) if (k === name || k.startsWith(`${name}{`)) n += v;
  return n;
}
