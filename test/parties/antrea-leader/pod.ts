// Antrea's leader as a process in its Pod (issue 39): the image that runs the played leader
// (process.ts) under the name and command of Antrea's leader Deployment, and the tests'
// handle on it, which follows each Pod's process through its log.
//
// The image: `docker.io/antrea/antrea-mc-controller:v2.7.0`, the reconciler image (test/image, which
// holds Node at /nodejs/bin/node) with one file more, `/antrea-mc-controller`: process.ts
// bundled by esbuild into one script that Node runs (`#!/nodejs/bin/node`), so the Deployment's own
// `command: [/antrea-mc-controller, leader]` starts it, as root's kernel starts any script. Built with
// podman, cached under .cache/image/antrea-leader/<digest of the script and the base image>/, and
// imported into the leader's node, whose real kubelet then runs it: SIGTERM when its Pod is marked
// for deletion, SIGKILL at the end of the grace period, a finalizer holding the Pod object after that.
//
// The handle (PlayedAntreaLeader): writes ConfigMap `played-antrea-leader` (start, the exit delay, the
// webhook certificate for the node's Pod CIDR), then follows every Pod of ServiceAccount
// `antrea-mc-controller`: one LeaderProcess per container start, with what it printed (writes,
// refusals, label ID decisions, passes, SIGTERM, exit) and, when it printed no exit (killed), the
// kubelet's `finishedAt`.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';
import { buildImage, podman } from '../../image/image';
import type { Cluster } from '../../kube/cluster';
import { request } from '../../kube/cluster';
import { followLines } from '../../kube/http';
import { eventually } from '../../kube/wait';
import { PLAYED_LEADER_CONFIG, type PlayerError, type PlayerEvent } from './player';
import { ANTREA_LEADER_POD_SELECTOR } from '../../../lib/names';

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** The image Antrea's leader Deployment names (antrea-set.ts), as containerd stores it. */
export const PLAYED_LEADER_IMAGE = 'docker.io/antrea/antrea-mc-controller:v2.7.0';
const CONTAINER = 'antrea-mc-controller';

let archive: Promise<string> | undefined;

/** The image archive (`ctr images import` takes it), built once per test process. */
export function playedLeaderImage(): Promise<string> {
  archive ??= (async () => {
    const base = await buildImage();
    const bundled = await build({
      entryPoints: [path.join(__dirname, 'process.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
      banner: { js: '#!/nodejs/bin/node' },
    });
    const script = bundled.outputFiles[0]!.text;
    const digest = crypto.createHash('sha256').update(base.id).update(script).digest('hex').slice(0, 16);
    const cache = path.join(ROOT, '.cache', 'image', 'antrea-leader');
    const dir = path.join(cache, digest);
    const out = path.join(dir, 'image.tar');
    if (fs.existsSync(out)) return out;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'antrea-mc-controller'), script, { mode: 0o755 });
    fs.writeFileSync(
      path.join(dir, 'Containerfile'),
      `FROM ${base.tag}\nCOPY --chmod=755 antrea-mc-controller /antrea-mc-controller\n`,
    );
    await podman(['build', '--pull=never', '--quiet', '--tag', PLAYED_LEADER_IMAGE, dir]);
    const tmp = `${out}.${process.pid}.tmp`;
    await podman(['save', '--quiet', '--format', 'docker-archive', '--output', tmp, PLAYED_LEADER_IMAGE]);
    fs.renameSync(tmp, out);
    for (const old of fs.readdirSync(cache))
      if (old !== digest) fs.rmSync(path.join(cache, old), { recursive: true, force: true });
    return out;
  })();
  return archive;
}

/** Every address of an IPv4 CIDR (a node's Pod CIDR: /24 to /28), for a certificate's SANs. */
export function addressesOf(cidr: string): string[] {
  const [ip, bits] = cidr.split('/') as [string, string];
  const base = ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  const out: string[] = [];
  for (let i = 0; i < size; i++) {
    const n = base + i;
    out.push([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
  }
  return out;
}

/** One process of Antrea's leader: one start of the container in one Pod. */
export interface LeaderProcess {
  readonly pod: string;
  readonly uid: string;
  /** Epoch ms: when it said it started (after the test's start signal). */
  startedAt?: number;
  sigtermAt?: number;
  /** Epoch ms: when it exited (its own `exit` line, or the kubelet's finishedAt when it was killed). */
  exitedAt?: number;
  /** Its exit as the kubelet reported it (`137` for a SIGKILL). */
  exitCode?: number;
  readonly writes: { readonly t: number; readonly what: string }[];
  readonly errors: PlayerError[];
  readonly allocations: string[];
  readonly denied: string[];
  passes: number;
  /** Lines that were not events (a crash's stack, say). */
  readonly other: string[];
}

interface PodView {
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[] };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    containerStatuses?: {
      name: string;
      restartCount?: number;
      state?: { running?: object; terminated?: { exitCode: number; finishedAt?: string } };
    }[];
  };
}

export interface PlayedLeaderOptions {
  /** How long it goes on after SIGTERM before it exits. @default 1000 (Antrea's leader: about 1 s) */
  readonly exitAfterSigtermMs?: number;
}

/**
 * The tests' handle on the played Antrea leader: the start signal and settings, and every process
 * that ran in a Pod of Antrea's leader ServiceAccount, followed through its log.
 */
export class PlayedAntreaLeader {
  readonly processes: LeaderProcess[] = [];
  private readonly byKey = new Map<string, LeaderProcess>();
  private readonly ac = new AbortController();
  private watching: Promise<void> | undefined;

  private constructor(
    readonly leader: Cluster,
    readonly ns: string,
  ) {}

  /**
   * Says start (with `o`'s settings and a webhook certificate for `node`'s Pod CIDR), follows the
   * Pods and waits for the first process to start.
   */
  static async start(
    leader: Cluster,
    ns: string,
    tls: { cert: string; key: string },
    o: PlayedLeaderOptions = {},
  ): Promise<PlayedAntreaLeader> {
    const p = new PlayedAntreaLeader(leader, ns);
    const data = {
      start: 'true',
      exitAfterSigtermMs: String(o.exitAfterSigtermMs ?? 1000),
      'tls.crt': tls.cert,
      'tls.key': tls.key,
    };
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: PLAYED_LEADER_CONFIG, namespace: ns },
      data,
    };
    const put = await request(
      leader.admin,
      'PUT',
      `/api/v1/namespaces/${ns}/configmaps/${PLAYED_LEADER_CONFIG}`,
      cm,
    );
    if (put.status === 404) {
      const r = await request(leader.admin, 'POST', `/api/v1/namespaces/${ns}/configmaps`, cm);
      if (r.status !== 201)
        throw new Error(`create ConfigMap ${PLAYED_LEADER_CONFIG}: HTTP ${r.status} ${r.body}`);
    } else if (put.status !== 200)
      throw new Error(`update ConfigMap ${PLAYED_LEADER_CONFIG}: HTTP ${put.status}`);
    p.watching = p.watchPods();
    await p.waitStarted(120_000);
    return p;
  }

  /** The process that started last. */
  get current(): LeaderProcess | undefined {
    return [...this.processes].reverse().find((x) => x.startedAt !== undefined);
  }

  /** The current process has exited. */
  get stopped(): boolean {
    return this.current?.exitedAt !== undefined;
  }

  get stoppedAt(): number | undefined {
    return this.current?.exitedAt;
  }

  /** Every process's refused writes, in order. */
  get errors(): PlayerError[] {
    return this.processes.flatMap((x) => x.errors);
  }

  get writes(): { t: number; what: string }[] {
    return this.processes.flatMap((x) => x.writes);
  }

  get passes(): number {
    return this.processes.reduce((n, x) => n + x.passes, 0);
  }

  get denied(): string[] {
    return this.processes.flatMap((x) => x.denied);
  }

  /** Resolves once a process other than those in `before` has started; rejects after `ms`. */
  async waitStarted(ms = 60_000, before: readonly LeaderProcess[] = []): Promise<LeaderProcess> {
    return eventually(
      "Antrea's leader process started",
      async () => this.processes.find((x) => x.startedAt !== undefined && !before.includes(x)),
      ms,
      100,
    );
  }

  /** Resolves once the current process has exited or `ms` passed; true if it exited. */
  async waitStopped(ms = 15_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!this.stopped && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    return this.stopped;
  }

  /** Stops following (the test's teardown: the cluster goes with it). */
  async stop(): Promise<void> {
    this.ac.abort();
    await this.watching;
  }

  private async pods(): Promise<PodView[]> {
    const q = encodeURIComponent(ANTREA_LEADER_POD_SELECTOR);
    const r = await request(
      this.leader.admin,
      'GET',
      `/api/v1/namespaces/${this.ns}/pods?fieldSelector=${q}`,
    );
    if (r.status !== 200) throw new Error(`list Pods: HTTP ${r.status}`);
    return (r.json as { items: PodView[] }).items;
  }

  private async watchPods(): Promise<void> {
    const following = new Set<string>();
    while (!this.ac.signal.aborted) {
      try {
        for (const p of await this.pods()) {
          const st = p.status?.containerStatuses?.find((c) => c.name === CONTAINER);
          if (!st) continue;
          const key = `${p.metadata.uid}/${st.restartCount ?? 0}`;
          const proc = this.byKey.get(key);
          const done = st.state?.terminated;
          if (proc && done && proc.exitedAt === undefined) {
            // Killed, or its exit line is still on the way: the kubelet's time, to the second.
            proc.exitCode = done.exitCode;
            if (done.exitCode !== 0 && done.finishedAt) proc.exitedAt = Date.parse(done.finishedAt) + 999;
          }
          if (proc && done) proc.exitCode = done.exitCode;
          if (following.has(key) || !(st.state?.running || done)) continue;
          following.add(key);
          const fresh: LeaderProcess = {
            pod: p.metadata.name,
            uid: p.metadata.uid,
            writes: [],
            errors: [],
            allocations: [],
            denied: [],
            passes: 0,
            other: [],
          };
          this.byKey.set(key, fresh);
          this.processes.push(fresh);
          void this.follow(p.metadata.name, fresh);
        }
      } catch {
        // the API server restarting: list again
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** `kubectl logs -f` of one container start, into its LeaderProcess. */
  private async follow(pod: string, proc: LeaderProcess): Promise<void> {
    const onLine = (line: string) => {
      let e: Omit<PlayerEvent, 'ev'> & { ev: string };
      try {
        e = JSON.parse(line) as typeof e;
      } catch {
        proc.other.push(line);
        return;
      }
      switch (e.ev) {
        case 'started':
          proc.startedAt = e.t;
          break;
        case 'write':
          proc.writes.push({ t: e.t, what: e.what ?? '' });
          break;
        case 'error':
          proc.errors.push({ at: e.t, what: e.what ?? '', status: e.status ?? 0, message: e.message ?? '' });
          break;
        case 'allocation':
          proc.allocations.push(e.what ?? '');
          break;
        case 'pass':
          proc.passes++;
          break;
        case 'deny':
          proc.denied.push(`${e.what}: ${e.message}`);
          break;
        case 'sigterm':
          proc.sigtermAt = e.t;
          break;
        case 'exit':
          proc.exitedAt = e.t;
          break;
        default:
          proc.other.push(line);
      }
    };
    await followLines(
      this.leader.admin,
      `/api/v1/namespaces/${this.ns}/pods/${pod}/log?container=${CONTAINER}&follow=true`,
      onLine,
      this.ac.signal,
    ).catch(() => 0);
  }
}
