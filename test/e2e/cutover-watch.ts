/**
 * Watchers for the cut-over tests (issue 33): a real watch (`?watch=1`, resumed from the last
 * resourceVersion when the API server ends it) on every leader ResourceImport and every member-side
 * imported object (Services and Endpoints `antrea-mc-*`, ServiceImports, ACNPs `antrea-mc-*`,
 * LabelIdentities, ClusterInfoImports). Each records, with the object and the time:
 * - a deletion;
 * - a UID change (an object of the same name seen again with another UID);
 * - a ClusterIP change (Service `spec.clusterIP`, ServiceImport `spec.ips`);
 * - a label ID change (LabelIdentity `spec.id`, a LabelIdentity import's `spec.labelIdentity.id`);
 * - an empty endpoint set (Endpoints or an Endpoints import without an address);
 * - a label ID held by two labels at once (two allocators at work).
 *
 * A label identity of a churned label (`isChurn`) that goes away is not an anomaly: the churn
 * withdraws labels no Pod carries any more, and never uses a label twice. Everything else is.
 */
import type * as http from 'node:http';
import * as https from 'node:https';
import { createInterface } from 'node:readline';
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';

type Obj = Record<string, unknown>;
const md = (o: Obj) =>
  (o.metadata ?? {}) as { name: string; namespace?: string; uid?: string; resourceVersion?: string };
const spec = (o: Obj) => (o.spec ?? {}) as Obj;

export interface Anomaly {
  readonly at: number;
  readonly cluster: string;
  readonly kind: string;
  readonly name: string;
  readonly what:
    | 'deleted'
    | 'uid-changed'
    | 'clusterip-changed'
    | 'label-id-changed'
    | 'label-id-duplicate'
    | 'empty-endpoints';
  readonly detail: string;
}

interface Target {
  readonly cluster: string;
  readonly c: Cluster;
  readonly kind: string;
  readonly path: string;
  readonly keep: (o: Obj) => boolean;
}

const mcPrefix = (o: Obj) => md(o).name.startsWith('antrea-mc-');

function labelOf(kind: string, o: Obj): string | undefined {
  if (kind === 'LabelIdentity') return spec(o).label as string | undefined;
  if (kind === 'ResourceImport') return (spec(o).labelIdentity as { label?: string } | undefined)?.label;
  return undefined;
}

function idOf(kind: string, o: Obj): number | undefined {
  if (kind === 'LabelIdentity') return spec(o).id as number | undefined;
  if (kind === 'ResourceImport') return (spec(o).labelIdentity as { id?: number } | undefined)?.id;
  return undefined;
}

function clusterIpOf(kind: string, o: Obj): string | undefined {
  if (kind === 'Service') return spec(o).clusterIP as string | undefined;
  if (kind === 'ServiceImport') return JSON.stringify(spec(o).ips ?? []);
  return undefined;
}

function emptyEndpoints(kind: string, o: Obj): boolean {
  const subsets =
    kind === 'Endpoints'
      ? ((o.subsets as Obj[] | undefined) ?? [])
      : kind === 'ResourceImport' && spec(o).kind === 'Endpoints'
        ? (((spec(o).endpoints as { subsets?: Obj[] } | undefined)?.subsets ?? []) as Obj[])
        : undefined;
  if (subsets === undefined) return false;
  return !subsets.some((s) => ((s.addresses as unknown[] | undefined) ?? []).length > 0);
}

export class ImportWatchers {
  readonly anomalies: Anomaly[] = [];
  /** Every event seen, for the report: `<cluster> <kind> <type> <name>`. */
  readonly events: string[] = [];
  private readonly seen = new Map<string, Obj>();
  private readonly gone = new Map<string, Obj>();
  private readonly streams = new Set<http.ClientRequest>();
  private stopped = false;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly targets: readonly Target[],
    private readonly isChurn: (label: string) => boolean,
  ) {}

  /** The watchers of issue 33 on a leader (its namespace) and members. */
  static forSet(
    leader: Cluster,
    leaderNs: string,
    members: ReadonlyMap<string, Cluster>,
    memberNs: string,
    isChurn: (label: string) => boolean,
  ): ImportWatchers {
    const t: Target[] = [
      {
        cluster: 'leader',
        c: leader,
        kind: 'ResourceImport',
        path: `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${leaderNs}/resourceimports`,
        keep: () => true,
      },
    ];
    for (const [id, c] of members) {
      t.push(
        { cluster: id, c, kind: 'Service', path: '/api/v1/services', keep: mcPrefix },
        { cluster: id, c, kind: 'Endpoints', path: '/api/v1/endpoints', keep: mcPrefix },
        {
          cluster: id,
          c,
          kind: 'ServiceImport',
          path: '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports',
          keep: () => true,
        },
        {
          cluster: id,
          c,
          kind: 'ClusterNetworkPolicy',
          path: '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies',
          keep: mcPrefix,
        },
        {
          cluster: id,
          c,
          kind: 'LabelIdentity',
          path: '/apis/multicluster.crd.antrea.io/v1alpha1/labelidentities',
          keep: () => true,
        },
        {
          cluster: id,
          c,
          kind: 'ClusterInfoImport',
          path: `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${memberNs}/clusterinfoimports`,
          keep: () => true,
        },
      );
    }
    return new ImportWatchers(t, isChurn);
  }

  /** Lists each target (the objects as they are now) and starts watching from there. */
  async start(): Promise<void> {
    for (const t of this.targets) {
      const r = await request(t.c.admin, 'GET', t.path);
      if (r.status !== 200) throw new Error(`list ${t.cluster} ${t.path}: HTTP ${r.status}`);
      const list = r.json as { items: Obj[]; metadata: { resourceVersion: string } };
      for (const o of list.items) if (t.keep(o)) this.seen.set(this.key(t, o), o);
      this.loops.push(this.watch(t, list.metadata.resourceVersion));
    }
  }

  /** Objects currently seen, per `<cluster>/<kind>`. */
  count(cluster: string, kind: string): number {
    return [...this.seen.keys()].filter((k) => k.startsWith(`${cluster}/${kind}/`)).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.streams) s.destroy();
    await Promise.allSettled(this.loops);
  }

  private key(t: Target, o: Obj): string {
    return `${t.cluster}/${t.kind}/${md(o).namespace ?? ''}/${md(o).name}`;
  }

  private note(t: Target, o: Obj, what: Anomaly['what'], detail: string): void {
    const name = `${md(o).namespace ? `${md(o).namespace}/` : ''}${md(o).name}`;
    this.anomalies.push({ at: Date.now(), cluster: t.cluster, kind: t.kind, name, what, detail });
  }

  private onEvent(t: Target, type: string, o: Obj): void {
    if (!t.keep(o)) return;
    const k = this.key(t, o);
    this.events.push(
      `${new Date().toISOString()} ${t.cluster} ${t.kind} ${type} ${md(o).namespace ?? ''}/${md(o).name}`,
    );
    const prev = this.seen.get(k) ?? this.gone.get(k);
    if (type === 'DELETED') {
      this.seen.delete(k);
      this.gone.set(k, o);
      const label = labelOf(t.kind, o);
      if (!(label !== undefined && this.isChurn(label))) this.note(t, o, 'deleted', `uid ${md(o).uid}`);
      return;
    }
    if (prev && md(prev).uid !== md(o).uid)
      this.note(t, o, 'uid-changed', `uid ${md(prev).uid} -> ${md(o).uid}`);
    if (prev) {
      const a = clusterIpOf(t.kind, prev);
      const b = clusterIpOf(t.kind, o);
      if (a !== undefined && a !== b && a !== '[]' && a !== '')
        this.note(t, o, 'clusterip-changed', `${a} -> ${b}`);
      const ia = idOf(t.kind, prev);
      const ib = idOf(t.kind, o);
      if (ia !== undefined && ia !== ib) this.note(t, o, 'label-id-changed', `${ia} -> ${ib}`);
    }
    const id = idOf(t.kind, o);
    if (id !== undefined) {
      // Two labels with one ID: what two allocators writing at once leave (each ID must be unique).
      for (const [k2, o2] of this.seen)
        if (k2 !== k && k2.startsWith(`${t.cluster}/${t.kind}/`) && idOf(t.kind, o2) === id)
          this.note(t, o, 'label-id-duplicate', `id ${id} also held by ${md(o2).name}`);
    }
    if (emptyEndpoints(t.kind, o))
      this.note(t, o, 'empty-endpoints', JSON.stringify(o.subsets ?? spec(o).endpoints));
    this.seen.set(k, o);
    this.gone.delete(k);
  }

  private async watch(t: Target, from: string): Promise<void> {
    let rv = from;
    while (!this.stopped) {
      const status = await new Promise<number>((resolve) => {
        const url = new URL(
          `${t.path}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
          t.c.admin.server,
        );
        const req = https.request(
          url,
          { method: 'GET', ca: t.c.admin.ca, cert: t.c.admin.cert, key: t.c.admin.key, agent: false },
          (res) => {
            if (res.statusCode !== 200) {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
              return;
            }
            res.on('error', () => resolve(0));
            createInterface({ input: res, crlfDelay: Infinity })
              .on('line', (line) => {
                if (!line.trim()) return;
                const ev = JSON.parse(line) as { type: string; object: Obj };
                if (ev.type === 'ERROR') {
                  rv = ''; // expired: relist below
                  return;
                }
                const v = md(ev.object).resourceVersion;
                if (v) rv = v;
                if (ev.type !== 'BOOKMARK') this.onEvent(t, ev.type, ev.object);
              })
              .on('error', () => undefined);
            res.on('end', () => resolve(200));
          },
        );
        this.streams.add(req);
        req.on('close', () => this.streams.delete(req));
        req.on('error', () => resolve(0));
        req.end();
      });
      if (this.stopped) return;
      if (rv === '' || status === 410) {
        // Expired: relist, and compare what is there with what was seen (a gap must not hide a change).
        const r = await request(t.c.admin, 'GET', t.path);
        if (r.status === 200) {
          const list = r.json as { items: Obj[]; metadata: { resourceVersion: string } };
          const now = new Set<string>();
          for (const o of list.items) {
            if (!t.keep(o)) continue;
            now.add(this.key(t, o));
            this.onEvent(t, 'MODIFIED', o);
          }
          for (const [k, o] of [...this.seen])
            if (k.startsWith(`${t.cluster}/${t.kind}/`) && !now.has(k)) this.onEvent(t, 'DELETED', o);
          rv = list.metadata.resourceVersion;
        }
      }
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A text summary of anomalies, one a line. */
export function describeAnomalies(a: readonly Anomaly[], t0: number): string {
  return a
    .map(
      (x) => `+${((x.at - t0) / 1000).toFixed(1)}s ${x.cluster} ${x.kind} ${x.name}: ${x.what} (${x.detail})`,
    )
    .join('\n');
}
