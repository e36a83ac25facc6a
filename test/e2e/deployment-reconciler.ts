// The reconciler as a leader cluster runs it: the Pods of the leader bundle's Deployment
// `clusterset-reconciler`, scheduled on a real node (test/kube, ClusterOptions.nodes), from the built
// image, with in-cluster credentials. What a person would use to follow it: the Pods' logs through
// the API server (`kubectl logs -f`), their health and metrics port on the Pod IP (as Prometheus
// scrapes it), the Lease for who writes, `kubectl scale` to stop and start it, and the exit codes the
// kubelet reports.

import * as http from 'node:http';
import { RECONCILER_NAME } from '../../lib/names';
import { RECONCILER_PORT } from '../../lib/render/reconciler';
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';
import { followLines } from '../kube/http';
import type { PodStatus } from '../kube/objects';
import { eventually } from '../kube/wait';
import type { RunningReconciler } from './reconciler-flows';
import { parseMetrics, type LogLine } from './reconciler-process';

export const SELECTOR = `app.kubernetes.io/name=${RECONCILER_NAME}`;

export interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string; resourceVersion: string };
  spec: Record<string, unknown> & { nodeName?: string; containers: Record<string, unknown>[] };
  status: PodStatus;
}

/** A log line of one Pod: the reconciler's JSON, with the Pod it came from. */
export type PodLogLine = LogLine & { pod: string };

/** The reconciler's container status in a Pod. */
export function reconcilerStatus(p: Pod) {
  return p.status.containerStatuses?.find((c) => c.name === 'reconciler');
}

export class DeploymentReconciler implements RunningReconciler {
  readonly logs: PodLogLine[] = [];
  /** Lines of the Pods' logs that were not JSON. */
  readonly other: string[] = [];
  /** Pod name → the last state seen of it (kept after the Pod is gone). */
  readonly seen = new Map<string, Pod>();
  /** Pod name → exit code of its reconciler container, once the kubelet reported it. */
  readonly exitCodes = new Map<string, number>();
  private readonly followed = new Map<string, number>();
  private readonly ac = new AbortController();
  private readonly base: string;
  private watching: Promise<void> | undefined;

  constructor(
    readonly leader: Cluster,
    readonly ns: string,
  ) {
    this.base = `/api/v1/namespaces/${ns}/pods`;
  }

  /** Starts following the Deployment's Pods (list, then watch, again on every end). */
  begin(): void {
    this.watching ??= this.watchPods();
  }

  private record(p: Pod): void {
    this.seen.set(p.metadata.name, p);
    const st = reconcilerStatus(p);
    const done = st?.state?.terminated ?? st?.lastState?.terminated;
    if (done) this.exitCodes.set(p.metadata.name, done.exitCode);
    const count = st?.restartCount ?? 0;
    if ((st?.state?.running || st?.state?.terminated) && this.followed.get(p.metadata.name) !== count) {
      this.followed.set(p.metadata.name, count);
      void this.followLogs(p.metadata.name);
    }
  }

  private async watchPods(): Promise<void> {
    while (!this.ac.signal.aborted) {
      try {
        const l = await request(this.leader.admin, 'GET', `${this.base}?labelSelector=${SELECTOR}`);
        const list = l.json as { metadata: { resourceVersion: string }; items: Pod[] };
        for (const p of list.items) this.record(p);
        await followLines(
          this.leader.admin,
          `${this.base}?labelSelector=${SELECTOR}&watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=60`,
          (line) => {
            const e = JSON.parse(line) as { type: string; object: Pod };
            if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') this.record(e.object);
          },
          this.ac.signal,
        );
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** `kubectl logs -f`: the container's log through the API server (kubelet), into `logs`. */
  private async followLogs(pod: string): Promise<void> {
    const onLine = (line: string) => {
      try {
        this.logs.push({ ...(JSON.parse(line) as LogLine), pod });
      } catch {
        this.other.push(`${pod}: ${line}`);
      }
    };
    // The log of the current container from its start; a restarted container is followed anew.
    const status = await followLines(
      this.leader.admin,
      `${this.base}/${pod}/log?container=reconciler&follow=true`,
      onLine,
      this.ac.signal,
    ).catch(() => 0);
    if (status !== 200 && !this.ac.signal.aborted) this.followed.delete(pod);
  }

  async pods(): Promise<Pod[]> {
    const r = await request(this.leader.admin, 'GET', `${this.base}?labelSelector=${SELECTOR}`);
    if (r.status !== 200) throw new Error(`list Pods: HTTP ${r.status} ${r.body}`);
    return (r.json as { items: Pod[] }).items;
  }

  /** The Lease holder's identity: its Pod name (POD_NAME). */
  async holder(): Promise<string | undefined> {
    const r = await request(
      this.leader.admin,
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${this.ns}/leases/${RECONCILER_NAME}`,
    );
    return (r.json as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity || undefined;
  }

  /** The Pod that holds the Lease, running and Ready. */
  async leaderPod(timeoutMs = 60_000): Promise<Pod> {
    return eventually(
      'a Ready reconciler Pod holds the Lease',
      async () => {
        const [pods, holder] = await Promise.all([this.pods(), this.holder()]);
        const p = pods.find((x) => x.metadata.name === holder && !x.metadata.deletionTimestamp);
        const ready = p?.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (!p || !ready || !p.status.podIP) return undefined;
        const m = await this.podMetrics(p);
        return m.get('clusterset_reconciler_leader') === 1 ? p : undefined;
      },
      timeoutMs,
      250,
    );
  }

  /** GET on a Pod's health and metrics port, on its Pod IP (the host routes the Pod CIDR to the node). */
  podGet(p: Pod, path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      http
        .get({ host: p.status.podIP, port: RECONCILER_PORT, path, agent: false, timeout: 5000 }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () =>
            resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
        })
        .on('timeout', function (this: http.ClientRequest) {
          this.destroy(new Error(`${p.metadata.name} ${path}: no answer in 5 s`));
        })
        .on('error', reject);
    });
  }

  async podMetrics(p: Pod): Promise<Map<string, number>> {
    return parseMetrics((await this.podGet(p, '/metrics')).body);
  }

  async get(path: string): Promise<{ status: number; body: string }> {
    return this.podGet(await this.leaderPod(), path);
  }

  async metrics(): Promise<Map<string, number>> {
    return this.podMetrics(await this.leaderPod());
  }

  /** `kubectl scale deployment clusterset-reconciler --replicas=N`. */
  async scale(replicas: number): Promise<void> {
    const r = await request(
      this.leader.admin,
      'PATCH',
      `/apis/apps/v1/namespaces/${this.ns}/deployments/${RECONCILER_NAME}/scale`,
      { spec: { replicas } },
      'application/merge-patch+json',
    );
    if (r.status !== 200) throw new Error(`scale to ${replicas}: HTTP ${r.status} ${r.body}`);
  }

  /**
   * Scales the Deployment to 0: the kubelet sends every reconciler SIGTERM. Resolves, once no Pod is
   * left, with 0 if every container the kubelet stopped exited 0, else the first other exit code;
   * then stops following (start a new DeploymentReconciler to follow the next Pods).
   */
  async stop(): Promise<number | string> {
    const before = (await this.pods()).map((p) => p.metadata.name);
    await this.scale(0);
    await eventually(
      'every reconciler Pod gone',
      async () => ((await this.pods()).length === 0 ? true : undefined),
      90_000,
    );
    const codes = await eventually(
      'the exit code of every stopped reconciler',
      async () =>
        before.every((n) => this.exitCodes.has(n)) ? before.map((n) => this.exitCodes.get(n)!) : undefined,
      10_000,
    ).catch(() => before.map((n) => this.exitCodes.get(n) ?? `no exit code seen for ${n}`));
    await this.close();
    return codes.find((c) => c !== 0) ?? 0;
  }

  /** Scales the Deployment to `replicas` and resolves once one of its Pods leads. */
  async start(replicas: number): Promise<void> {
    await this.scale(replicas);
    await this.leaderPod(120_000);
  }

  /** Stops following (the Pods keep running). */
  async close(): Promise<void> {
    this.ac.abort();
    await this.watching;
  }
}
