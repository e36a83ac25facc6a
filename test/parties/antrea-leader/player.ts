/**
 * Antrea v2.7's LEADER controller, played, for the cut-over tests (issue 33, test/e2e/cutover.test.ts
 * and cutover-gitops.test.ts). Antrea's own controller cannot be built here, so this plays what
 * antrea-mc.md §c.2, §d, §e and §i say it does. It runs as a process of its own in the Pod of
 * Antrea's leader Deployment, under a real kubelet (process.ts is that process's main,
 * pod.ts builds its image and follows it from the tests): it starts when its Pod
 * starts, authenticated as its Pod's ServiceAccount `antrea-mc-controller`, and stops as a process in
 * a Pod stops (issue 39): after `kubectl scale --replicas=0` the kubelet sends it SIGTERM and it goes
 * on writing until it exits, about a second later (what Antrea's real leader was seen to do), or as
 * long as a test sets, up to its terminationGracePeriodSeconds, when the kubelet kills it. Every
 * write is a Create or an Update (PUT) with field manager `antrea-mc-controller` (operation Update),
 * never an apply:
 *
 * - Service exports → ServiceImport imports `<ns>-<svc>-service`: created from the first live
 *   export's ports (name, port, protocol); an export whose ports differ is accepted only while it is
 *   the only one, otherwise it gets `Failure`/`ConvergeFailure`; deleted with the last export;
 * - Endpoints exports → Endpoints imports `<ns>-<svc>-endpoints`: the subsets of every live export
 *   concatenated in list order (Antrea: informer order; either way not sorted by cluster ID), once
 *   the sibling Service export is `Succeeded`; updated when they change, deleted with the last one;
 * - ClusterInfo exports → imports of the same name; an ACNP export → `<name>-antreaclusternetworkpolicy`
 *   (the first export of a name wins);
 * - label identity exports `<id>-<hash16>` → imports `<hash16>` with an ID from Antrea's allocator:
 *   at start every existing import's ID is re-adopted (the import is the only store), then the
 *   smallest released ID first, else the next never used (1..16777214); the import is deleted, and
 *   its ID released, when no export of that label is left;
 * - imports carry no labels, annotations or finalizers; `status.clusterStatuses` only after an update;
 * - export status (`Succeeded`, or `Failure`/`ConvergeFailure`) on Service, Endpoints and ACNP
 *   exports; the export finalizer released once an export being deleted has been withdrawn;
 * - announce finalizer `memberclusterannounce.finalizer.antrea.io/<id>`, released once that
 *   member's exports are gone after its announce was deleted;
 * - the leader ClusterSet's status every 30 s.
 *
 * Its webhooks: the same process serves Antrea's leader webhooks (AntreaWebhookServer below, which
 * the tests also run in their own process for the members' `vclusterset`/`vgateway`, which Antrea's
 * member controller serves), allowing and denying as antrea-mc.md §g says. WHAT DIFFERS FROM THE REAL
 * INSTALL: at start it points the webhook configurations' `clientConfig` at its own Pod IP
 * (`url: https://<Pod IP>:9443/<path>`) instead of `service: antrea-mc-webhook-service` (and their
 * caBundle at its certificate, which Antrea's CA controller also rewrites at run time), because the
 * test API servers reach Pods but not Service IPs. Names, labels, rules, namespaceSelector and
 * `failurePolicy: Fail` stay as Antrea registers them: once the process exits the API server gets
 * connection refused and refuses every write they match, as it does when the Service has no
 * endpoints.
 *
 * Everything here takes its API access as a function (`Api`), so that the same code runs in the Pod
 * (with the Pod's token) and in the tests (with a cluster's admin or a ServiceAccount's token).
 */
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { announceFinalizer, CLUSTER_ID_ANNOTATION, RESOURCE_EXPORT_FINALIZER } from '../../../lib/names';
import type { Api, Response } from '../../kube/http';

type Obj = Record<string, unknown>;
const MC = '/apis/multicluster.crd.antrea.io/v1alpha1';
export const ANTREA_LEADER_SA = 'antrea-mc-controller';
export const ANTREA_LEADER_MANAGER = 'antrea-mc-controller';
/**
 * The test's settings for the played leader's process, a ConfigMap in its namespace
 * (process.ts reads it, pod.ts writes it).
 */
export const PLAYED_LEADER_CONFIG = 'played-antrea-leader';

/** The port Antrea's webhook server listens on (its Service targets it). */
export const ANTREA_WEBHOOK_PORT = 9443;

/** One thing the played leader did, as it reports it (its process prints one JSON line each). */
export interface PlayerEvent {
  /** Epoch ms. */
  readonly t: number;
  readonly ev: 'write' | 'error' | 'allocation' | 'pass' | 'deny';
  readonly what?: string;
  readonly status?: number;
  readonly message?: string;
}
const LABEL_ID_MAX = 16777214;

const md = (o: Obj) =>
  (o.metadata ?? {}) as {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    generation?: number;
    [k: string]: unknown;
  };
const spec = (o: Obj) => (o.spec ?? {}) as Obj;
const rfc3339 = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One refused or failed write of the player (what a real controller would log and retry). */
export interface PlayerError {
  readonly at: number;
  readonly what: string;
  readonly status: number;
  readonly message: string;
}

/** The order Antrea's allocator hands IDs out in (LEADER/labelidentity_export_controller.go). */
export class AntreaLabelIdAllocator {
  private next = 1;
  private readonly released = new Set<number>();
  private readonly taken = new Set<number>();
  /** Re-adopts an ID an existing import holds (setAllocated); false when it is already taken. */
  adopt(id: number): boolean {
    if (this.taken.has(id)) return false;
    this.taken.add(id);
    this.released.delete(id);
    for (let i = this.next; i < id; i++) if (!this.taken.has(i)) this.released.add(i);
    if (id >= this.next) this.next = id + 1;
    return true;
  }
  allocate(): number {
    if (this.released.size > 0) {
      const id = Math.min(...this.released);
      this.released.delete(id);
      this.taken.add(id);
      return id;
    }
    if (this.next > LABEL_ID_MAX) throw new Error('label identity IDs exhausted');
    const id = this.next++;
    this.taken.add(id);
    return id;
  }
  release(id: number): void {
    if (this.taken.delete(id)) this.released.add(id);
  }
}

function subsetsOf(e: Obj): unknown[] {
  return ((spec(e).endpoints as { subsets?: unknown[] } | undefined)?.subsets ?? []) as unknown[];
}

function siPorts(e: Obj): { name: string; port: number; protocol: string }[] {
  const ports = ((spec(e).service as { serviceSpec?: { ports?: Obj[] } } | undefined)?.serviceSpec?.ports ??
    []) as Obj[];
  return ports.map((p) => ({
    name: String(p.name ?? ''),
    port: Number(p.port),
    protocol: String(p.protocol ?? 'TCP'),
  }));
}

/** Canonical JSON (keys sorted): the API server keeps an object's key order as it was written. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as Obj)
      .sort()
      .map((k) => [k, canonical((v as Obj)[k])]),
  );
}
/** Semantic equality, as Antrea compares (DeepEqual on Go structs: key order does not exist there). */
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

export interface LeaderPlayerOptions {
  /** The leader's API server, as Antrea's leader ServiceAccount. */
  readonly api: Api;
  readonly leaderNs: string;
  /** @default 300 */
  readonly periodMs?: number;
  /** Each write, refused write, label ID decision and pass, as it happens. */
  readonly onEvent?: (e: PlayerEvent) => void;
}

export interface WebhookServerOptions {
  /**
   * `leader` or a member ID → its API server, as the identity that serves the webhooks (Antrea's
   * leader ServiceAccount in its Pod; the admin in the tests): whose Antrea webhook configurations it
   * points at itself, and where it looks up ServiceAccounts, ClusterSets and announces.
   */
  readonly clusters: ReadonlyMap<string, Api>;
  readonly leaderNs: string;
  readonly clusterSetId: string;
  /** Its serving certificate and key (PEM), valid for `advertise`. */
  readonly tls: { readonly key: string; readonly cert: string };
  /** The address it listens on. @default '127.0.0.1' */
  readonly listen?: string;
  /** The address the webhook configurations name. @default listen */
  readonly advertise?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  readonly onEvent?: (e: PlayerEvent) => void;
}

/**
 * One process of Antrea's leader: it re-adopts the label IDs the imports hold, then makes a pass of
 * every leader reconciler every `periodMs` until `stop()` (the process exits).
 */
export class AntreaLeaderPlayer {
  private readonly ids = new AntreaLabelIdAllocator();
  /** Label hash → the ID its import holds. */
  private readonly labelIds = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private lastStatus = 0;
  readonly errors: PlayerError[] = [];
  /** Writes made, `<verb> <kind> <name>` (for the report). */
  readonly writes: string[] = [];
  /** Label ID decisions, `<hash> <id>` in the order made. */
  readonly allocations: string[] = [];
  passes = 0;

  constructor(readonly o: LeaderPlayerOptions) {}

  private emit(e: Omit<PlayerEvent, 't'>): void {
    this.o.onEvent?.({ t: Date.now(), ...e });
  }

  /** Starts Antrea's leader: the IDs re-adopted, then the loop. */
  async start(): Promise<void> {
    // Re-adopt the IDs the `<hash16>` imports hold (the import is the only store).
    for (const ri of await this.list('resourceimports')) {
      const li = spec(ri).labelIdentity as { id?: number } | undefined;
      if (spec(ri).kind !== 'LabelIdentity' || li?.id === undefined) continue;
      if (this.ids.adopt(li.id)) this.labelIds.set(md(ri).name, li.id);
      else await this.del('resourceimports', md(ri).name); // a clash: deleted, re-allocated later
    }
    const tick = async () => {
      try {
        await this.pass();
        this.passes++;
        this.emit({ ev: 'pass' });
      } catch (e) {
        this.errors.push({ at: Date.now(), what: 'pass', status: 0, message: (e as Error).message });
        this.emit({ ev: 'error', what: 'pass', status: 0, message: (e as Error).message });
      }
      if (!this.stopping) this.timer = setTimeout(() => void (this.running = tick()), this.o.periodMs ?? 300);
    };
    this.running = tick();
  }

  /** Stops the loop once the pass in flight is done. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private req(method: string, p: string, body?: unknown): Promise<Response> {
    return this.o.api(method, p, body);
  }

  private path(plural: string, name?: string, sub = ''): string {
    const group = plural === 'clustersets' ? '/apis/multicluster.crd.antrea.io/v1alpha2' : MC;
    return `${group}/namespaces/${this.o.leaderNs}/${plural}${name ? `/${name}` : ''}${sub}`;
  }

  private async list(plural: string): Promise<Obj[]> {
    const r = await this.req('GET', this.path(plural));
    if (r.status !== 200) throw new Error(`list ${plural}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    return ((r.json as { items?: Obj[] }).items ?? []) as Obj[];
  }

  private record(what: string, r: Response, ...okCodes: number[]): boolean {
    if (okCodes.includes(r.status)) {
      this.writes.push(what);
      this.emit({ ev: 'write', what });
      return true;
    }
    const message = ((r.json as { message?: string } | undefined)?.message ?? r.body).slice(0, 300);
    this.errors.push({ at: Date.now(), what, status: r.status, message });
    this.emit({ ev: 'error', what, status: r.status, message });
    return false;
  }

  private async create(plural: string, o: Obj): Promise<boolean> {
    const r = await this.req('POST', `${this.path(plural)}?fieldManager=${ANTREA_LEADER_MANAGER}`, o);
    return this.record(`create ${plural} ${md(o).name}`, r, 201);
  }

  private async update(plural: string, o: Obj, sub = ''): Promise<Obj | undefined> {
    const r = await this.req(
      'PUT',
      `${this.path(plural, md(o).name, sub)}?fieldManager=${ANTREA_LEADER_MANAGER}`,
      o,
    );
    return this.record(`update ${plural}${sub} ${md(o).name}`, r, 200) ? (r.json as Obj) : undefined;
  }

  private async del(plural: string, name: string): Promise<boolean> {
    const r = await this.req('DELETE', this.path(plural, name));
    if (r.status === 404) return true; // gone already: nothing written
    return this.record(`delete ${plural} ${name}`, r, 200, 202);
  }

  private ri(name: string, s: Obj): Obj {
    return {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceImport',
      metadata: { name, namespace: this.o.leaderNs },
      spec: s,
    };
  }

  /** Creates the import, or updates its spec (then writes the update's status, as Antrea does). */
  private async putImport(imports: Map<string, Obj>, name: string, s: Obj, from?: string): Promise<boolean> {
    const cur = imports.get(name);
    if (!cur) return this.create('resourceimports', this.ri(name, s));
    if (same(spec(cur), s)) return true;
    const next = await this.update('resourceimports', { ...cur, spec: s });
    if (!next) return false;
    if (from)
      await this.update(
        'resourceimports',
        {
          ...next,
          status: {
            clusterStatuses: [
              {
                clusterID: from,
                conditions: [
                  {
                    type: 'Succeeded',
                    status: 'True',
                    message: 'update is successful',
                    lastTransitionTime: rfc3339(),
                  },
                ],
              },
            ],
          },
        },
        '/status',
      );
    return true;
  }

  private async setStatus(e: Obj, ok: boolean): Promise<Obj> {
    const cond = ((e.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ??
      [])[0];
    const want = ok ? { type: 'Succeeded', status: 'True' } : { type: 'Failure', status: 'False' };
    if (cond?.type === want.type && cond.status === want.status) return e;
    const status = ok
      ? { conditions: [{ ...want, lastTransitionTime: rfc3339() }] }
      : {
          conditions: [
            {
              ...want,
              reason: 'ConvergeFailure',
              message: "ResourceExport can't be converged to ResourceImport",
              lastTransitionTime: rfc3339(),
            },
          ],
        };
    return (await this.update('resourceexports', { ...e, status }, '/status')) ?? e;
  }

  private async releaseExport(e: Obj): Promise<void> {
    const f = md(e).finalizers ?? [];
    if (!f.includes(RESOURCE_EXPORT_FINALIZER) && !f.includes('resourceexport.finalizers.antrea.io')) return;
    const finalizers = f.filter(
      (x) => x !== RESOURCE_EXPORT_FINALIZER && x !== 'resourceexport.finalizers.antrea.io',
    );
    await this.update('resourceexports', { ...e, metadata: { ...md(e), finalizers } });
  }

  /** One pass of every leader reconciler. */
  async pass(): Promise<void> {
    const exports = await this.list('resourceexports');
    const imports = new Map((await this.list('resourceimports')).map((ri) => [md(ri).name, ri]));
    const live = exports.filter((e) => !md(e).deletionTimestamp);
    const kindOf = (e: Obj) => String(spec(e).kind ?? '');

    // Service and Endpoints (§c.2), grouped by `<ns>/<name>`.
    const services = new Map<string, { svc: Obj[]; eps: Obj[] }>();
    for (const e of exports) {
      if (kindOf(e) !== 'Service' && kindOf(e) !== 'Endpoints') continue;
      const k = `${String(spec(e).namespace)}/${String(spec(e).name)}`;
      const g = services.get(k) ?? { svc: [], eps: [] };
      (kindOf(e) === 'Service' ? g.svc : g.eps).push(e);
      services.set(k, g);
    }
    for (const [k, g] of services) {
      const [ns, name] = k.split('/') as [string, string];
      const siName = `${ns}-${name}-service`;
      const epName = `${ns}-${name}-endpoints`;
      const liveSvc = g.svc.filter((e) => !md(e).deletionTimestamp);
      const statusBySvc = new Map<string, boolean>();
      if (liveSvc.length === 0) {
        if (imports.has(siName) && (await this.del('resourceimports', siName))) imports.delete(siName);
      } else {
        const cur = imports.get(siName);
        const first = liveSvc[0]!;
        if (!cur) {
          await this.putImport(imports, siName, {
            name,
            namespace: ns,
            kind: 'ServiceImport',
            serviceImport: { spec: { ports: siPorts(first), type: 'ClusterSetIP' } },
          });
        }
        const curPorts = cur
          ? (spec(cur).serviceImport as { spec?: { ports?: unknown } } | undefined)?.spec?.ports
          : siPorts(first);
        for (const e of liveSvc) {
          let okPorts = same(siPorts(e), curPorts);
          if (!okPorts && liveSvc.length === 1 && cur) {
            okPorts = await this.putImport(
              imports,
              siName,
              {
                ...spec(cur),
                serviceImport: { spec: { ports: siPorts(e), type: 'ClusterSetIP' } },
              },
              md(e).labels?.sourceClusterID,
            );
          }
          statusBySvc.set(md(e).labels?.sourceClusterID ?? '', okPorts);
          await this.setStatus(e, okPorts);
        }
      }
      for (const e of g.svc.filter((x) => md(x).deletionTimestamp)) await this.releaseExport(e);

      // Endpoints: concatenated, deduplicated per cluster, once the sibling Service export converged.
      const seen = new Set<string>();
      const subsets: unknown[] = [];
      let from: string | undefined;
      for (const e of g.eps) {
        if (md(e).deletionTimestamp) continue;
        const c = String(spec(e).clusterID ?? '');
        if (seen.has(c) || statusBySvc.get(c) !== true) continue;
        seen.add(c);
        subsets.push(...subsetsOf(e));
        from = c;
      }
      if (subsets.length === 0) {
        if (imports.has(epName) && (await this.del('resourceimports', epName))) imports.delete(epName);
      } else {
        const okWrite = await this.putImport(
          imports,
          epName,
          { name, namespace: ns, kind: 'Endpoints', endpoints: { subsets } },
          from,
        );
        for (const e of g.eps.filter((x) => !md(x).deletionTimestamp && seen.has(String(spec(x).clusterID))))
          if (okWrite) await this.setStatus(e, true);
      }
      for (const e of g.eps.filter((x) => md(x).deletionTimestamp)) await this.releaseExport(e);
    }

    // ClusterInfo: the import of the same name (§c.2).
    const infos = new Set<string>();
    for (const e of exports.filter((x) => kindOf(x) === 'ClusterInfo')) {
      if (md(e).deletionTimestamp) {
        if (await this.del('resourceimports', md(e).name)) await this.releaseExport(e);
        continue;
      }
      infos.add(md(e).name);
      await this.putImport(imports, md(e).name, {
        kind: 'ClusterInfo',
        name: md(e).name,
        namespace: this.o.leaderNs,
        clusterinfo: spec(e).clusterInfo,
      });
    }
    for (const [name, ri] of imports)
      if (spec(ri).kind === 'ClusterInfo' && !infos.has(name)) await this.del('resourceimports', name);

    // ACNP: the first export of a name wins (§c.2).
    const policies = new Set<string>();
    for (const e of exports.filter((x) => kindOf(x) === 'AntreaClusterNetworkPolicy')) {
      const name = `${String(spec(e).name)}-antreaclusternetworkpolicy`;
      if (md(e).deletionTimestamp) {
        await this.releaseExport(e);
        continue;
      }
      if (policies.has(name)) continue;
      policies.add(name);
      const okWrite = await this.putImport(imports, name, {
        name: spec(e).name,
        kind: 'AntreaClusterNetworkPolicy',
        clusternetworkpolicy: spec(e).clusterNetworkPolicy,
      });
      if (okWrite) await this.setStatus(e, true);
    }

    // Label identities (§d): reference counts over the live exports, IDs from the allocator.
    const labels = new Map<string, string>();
    for (const e of live.filter((x) => kindOf(x) === 'LabelIdentity')) {
      const n = md(e).name;
      const hash = n.slice(n.lastIndexOf('-') + 1);
      labels.set(hash, String((spec(e).labelIdentity as { normalizedLabel?: string }).normalizedLabel));
    }
    for (const [hash, label] of labels) {
      const cur = imports.get(hash);
      if (cur) {
        const id = (spec(cur).labelIdentity as { id?: number } | undefined)?.id;
        if (id !== undefined && !this.labelIds.has(hash) && this.ids.adopt(id)) this.labelIds.set(hash, id);
        continue;
      }
      let id = this.labelIds.get(hash);
      if (id === undefined) {
        id = this.ids.allocate();
        this.labelIds.set(hash, id);
        this.allocations.push(`${hash} ${id}`);
        this.emit({ ev: 'allocation', what: `${hash} ${id}` });
      }
      if (
        !(await this.create(
          'resourceimports',
          this.ri(hash, { kind: 'LabelIdentity', labelIdentity: { label, id } }),
        ))
      )
        if (this.errors.at(-1)?.status === 409) continue; // written by someone else meanwhile: re-read next pass
    }
    for (const [name, ri] of imports) {
      if (spec(ri).kind !== 'LabelIdentity' || labels.has(name)) continue;
      if (await this.del('resourceimports', name)) {
        const id = this.labelIds.get(name);
        if (id !== undefined) this.ids.release(id);
        this.labelIds.delete(name);
      }
    }

    // Announces: the finalizer on each; a deleted one releases it once that member's exports are gone.
    for (const a of await this.list('memberclusterannounces')) {
      const id = String(a.clusterID ?? '');
      const f = announceFinalizer(id);
      const fins = md(a).finalizers ?? [];
      if (md(a).deletionTimestamp) {
        const mine = exports.filter((e) => md(e).labels?.sourceClusterID === id);
        for (const e of mine) if (!md(e).deletionTimestamp) await this.del('resourceexports', md(e).name);
        if (mine.length === 0 && fins.includes(f))
          await this.update('memberclusterannounces', {
            ...a,
            metadata: { ...md(a), finalizers: fins.filter((x) => x !== f) },
          });
      } else if (!fins.includes(f)) {
        await this.update('memberclusterannounces', {
          ...a,
          metadata: { ...md(a), finalizers: [...fins, f] },
        });
      }
    }

    if (Date.now() - this.lastStatus >= 30_000) await this.writeClusterSetStatus();
  }

  private async writeClusterSetStatus(): Promise<void> {
    const sets = await this.list('clustersets');
    const cs = sets[0];
    if (!cs) return;
    const members = (await this.list('memberclusterannounces')).map((a) => String(a.clusterID));
    const status = leaderClusterSetStatus(md(cs).generation ?? 1, members, rfc3339());
    if (await this.update('clustersets', { ...cs, status }, '/status')) this.lastStatus = Date.now();
  }
}

/** The status Antrea's leader writes on its ClusterSet: every member (`members`) connected and Ready. */
export function leaderClusterSetStatus(generation: number, members: readonly string[], now: string): Obj {
  return {
    observedGeneration: generation,
    totalClusters: members.length,
    readyClusters: members.length,
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
    clusterStatuses: members.map((clusterID) => ({
      clusterID,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Connected',
          message: 'Member Connected',
          lastTransitionTime: now,
        },
      ],
    })),
  };
}

// -------------------------------------------------------------------------------------------------
// The webhooks

interface Review {
  uid: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username: string };
  object?: Obj;
  oldObject?: Obj;
  namespace?: string;
}

/**
 * Antrea's multi-cluster webhooks as its leader (and members') controller serves them
 * (antrea-mc.md §g): see the module comment for what differs (clientConfig).
 */
export class AntreaWebhookServer {
  private server: https.Server | undefined;
  private repoint: NodeJS.Timeout | undefined;
  port = 0;
  /** Every denial, `<webhook>: <message>`. */
  readonly denied: string[] = [];

  constructor(private readonly o: WebhookServerOptions) {}

  async start(): Promise<void> {
    const { key, cert } = this.o.tls;
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: Review };
          let out: Obj;
          try {
            out = await this.handle(req.url ?? '', review.request);
          } catch (e) {
            out = {
              uid: review.request.uid,
              allowed: false,
              status: { code: 500, message: (e as Error).message },
            };
          }
          const body = JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: out,
          });
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(body);
        })();
      });
    });
    const listen = this.o.listen ?? '127.0.0.1';
    await new Promise<void>((r) => this.server!.listen(this.o.port ?? 0, listen, r));
    this.port = (this.server.address() as AddressInfo).port;
    const caBundle = Buffer.from(cert).toString('base64');
    const pointAll = async () => {
      for (const [id, api] of this.o.clusters) await this.point(api, id, caBundle);
    };
    await pointAll();
    // As Antrea's CA controller keeps the caBundles it owns: a configuration re-created later (the
    // way back after a cut-over) is pointed here too.
    this.repoint = setInterval(() => void pointAll().catch(() => undefined), 2000);
    this.repoint.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.repoint);
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  /**
   * Points the Antrea webhook configurations of a cluster (labelled `served-by: antrea-mc-controller`)
   * at this server: `clientConfig.url` instead of `clientConfig.service` (the one difference from the
   * real install), caBundle this server's (as Antrea's CA controller rewrites it).
   */
  private async point(api: Api, cluster: string, caBundle: string): Promise<void> {
    const host = this.o.advertise ?? this.o.listen ?? '127.0.0.1';
    for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
      const base = `/apis/admissionregistration.k8s.io/v1/${kind}`;
      const r = await api('GET', `${base}?labelSelector=served-by%3Dantrea-mc-controller`);
      if (r.status !== 200) throw new Error(`list ${kind}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
      for (const w of ((r.json as { items?: Obj[] }).items ?? []) as Obj[]) {
        const before = JSON.stringify(w.webhooks);
        const hooks = ((w.webhooks as Obj[] | undefined) ?? []).map((h) => {
          const cc = h.clientConfig as { service?: { path?: string } };
          const p =
            cc.service?.path ??
            new URL(String((cc as { url?: string }).url)).pathname.replace(/^\/[^/]+(?=\/)/, '');
          // A webhook URL may carry no query: the cluster it serves goes first in the path.
          return {
            ...h,
            clientConfig: { url: `https://${host}:${this.port}/${cluster}${p}`, caBundle },
          };
        });
        if (JSON.stringify(hooks) === before) continue;
        const u = await api('PUT', `${base}/${md(w).name}?fieldManager=${ANTREA_LEADER_MANAGER}`, {
          ...w,
          webhooks: hooks,
        });
        if (u.status !== 200)
          throw new Error(`point ${md(w).name} here: HTTP ${u.status} ${u.body.slice(0, 200)}`);
      }
    }
  }

  private deny(uid: string, hook: string, message: string): Obj {
    this.denied.push(`${hook}: ${message}`);
    this.o.onEvent?.({ t: Date.now(), ev: 'deny', what: hook, message });
    return { uid, allowed: false, status: { code: 403, reason: 'Forbidden', message } };
  }

  private async handle(url: string, r: Review): Promise<Obj> {
    const u = new URL(url, 'https://x');
    const cluster = u.pathname.split('/')[1] ?? '';
    const api = this.o.clusters.get(cluster);
    if (!api) return { uid: r.uid, allowed: true };
    const allow = { uid: r.uid, allowed: true };
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(r.userInfo.username);
    const saAnnotation = async (): Promise<string | undefined> => {
      if (!sa || sa[1] !== this.o.leaderNs) return undefined;
      const g = await api('GET', `/api/v1/namespaces/${sa[1]}/serviceaccounts/${sa[2]}`);
      if (g.status !== 200) return undefined;
      return (md(g.json as Obj).annotations ?? {})[CLUSTER_ID_ANNOTATION];
    };
    const obj = r.object ?? {};
    const old = r.oldObject ?? {};
    switch (u.pathname.slice(cluster.length + 1)) {
      case '/mutate-multicluster-crd-antrea-io-v1alpha1-resourceexport': {
        if (!spec(obj).clusterNetworkPolicy) return allow;
        const labels = {
          ...(md(obj).labels ?? {}),
          sourceName: String(spec(obj).name ?? ''),
          sourceNamespace: '',
          sourceKind: 'AntreaClusterNetworkPolicy',
        };
        const fins = md(obj).finalizers ?? [];
        const patch = [
          { op: 'add', path: '/metadata/labels', value: labels },
          {
            op: 'add',
            path: '/metadata/finalizers',
            value: fins.includes(RESOURCE_EXPORT_FINALIZER) ? fins : [...fins, RESOURCE_EXPORT_FINALIZER],
          },
        ];
        return {
          ...allow,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        };
      }
      case '/validate-multicluster-crd-antrea-io-v1alpha2-clusterset': {
        const hook = 'vclusterset.kb.io';
        const ns = r.namespace ?? md(obj).namespace ?? md(old).namespace;
        if (r.operation === 'CREATE') {
          const l = await api(
            'GET',
            `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${ns}/clustersets`,
          );
          if (((l.json as { items?: unknown[] }).items ?? []).length > 0)
            return this.deny(r.uid, hook, 'multiple ClusterSets in a Namespace are not allowed');
        } else if (r.operation === 'UPDATE') {
          const a = spec(old);
          const b = spec(obj);
          if (a.clusterID && a.clusterID !== b.clusterID)
            return this.deny(r.uid, hook, 'the field spec.clusterID is immutable');
          const la = ((a.leaders as Obj[] | undefined) ?? [])[0]?.clusterID;
          const lb = ((b.leaders as Obj[] | undefined) ?? [])[0]?.clusterID;
          if (la !== lb) return this.deny(r.uid, hook, 'the field spec.leaders[0].clusterID is immutable');
        } else if (r.operation === 'DELETE' && cluster === 'leader') {
          const l = await api('GET', `${MC}/namespaces/${ns}/memberclusterannounces`);
          if (((l.json as { items?: unknown[] }).items ?? []).length > 0)
            return this.deny(
              r.uid,
              hook,
              'the ClusterSet cannot be deleted while MemberClusterAnnounces exist',
            );
        }
        return allow;
      }
      case '/validate-multicluster-crd-antrea-io-v1alpha1-memberclusterannounce': {
        const hook = 'vmemberclusterannounce.kb.io';
        if (r.operation === 'DELETE') return allow;
        // Antrea's own leader (its ServiceAccount) writes the announce finalizers (inference: it
        // must be let through, or no announce would ever get one).
        if (sa && sa[1] === this.o.leaderNs && sa[2] === ANTREA_LEADER_SA) return allow;
        const id = await saAnnotation();
        if (id === undefined || id !== String(obj.clusterID))
          return this.deny(
            r.uid,
            hook,
            `Member cluster ${String(obj.clusterID)} is not authorized: user ${r.userInfo.username} has no ServiceAccount with annotation ${CLUSTER_ID_ANNOTATION}=${String(obj.clusterID)}`,
          );
        if (r.operation === 'CREATE' && md(obj).name !== `member-announce-from-${String(obj.clusterID)}`)
          return this.deny(
            r.uid,
            hook,
            'the MemberClusterAnnounce name must be member-announce-from-<clusterID>',
          );
        if (r.operation === 'UPDATE')
          for (const f of ['clusterID', 'clusterSetID', 'leaderClusterID'])
            if (obj[f] !== old[f]) return this.deny(r.uid, hook, `the field ${f} is immutable`);
        if (r.operation === 'CREATE' && obj.clusterSetID !== this.o.clusterSetId)
          return this.deny(r.uid, hook, 'the clusterSetID does not match the leader ClusterSet');
        return allow;
      }
      case '/validate-multicluster-crd-antrea-io-v1alpha1-resourceexport': {
        const hook = 'vresourceexport.kb.io';
        if (sa && sa[1] === this.o.leaderNs && sa[2] === ANTREA_LEADER_SA && r.operation !== 'CREATE')
          return allow;
        const id = await saAnnotation();
        if (id === undefined) return allow; // not a member: admins, other namespaces, unannotated
        const o = r.operation === 'DELETE' ? old : obj;
        const s = spec(o);
        const kind = String(s.kind ?? '');
        const labels = md(o).labels ?? {};
        if (r.operation === 'DELETE' || r.operation === 'UPDATE')
          if (String(spec(old).clusterID ?? md(old).labels?.sourceClusterID) !== id)
            return this.deny(r.uid, hook, `member ${id} may only update or delete its own ResourceExports`);
        if (r.operation === 'DELETE') return allow;
        if (!['Service', 'Endpoints', 'ClusterInfo', 'LabelIdentity'].includes(kind))
          return this.deny(r.uid, hook, `kind ${kind} is not allowed for a member`);
        if (String(s.clusterID) !== id || labels.sourceClusterID !== id)
          return this.deny(r.uid, hook, `spec.clusterID and label sourceClusterID must be ${id}`);
        if (labels.sourceKind !== kind)
          return this.deny(r.uid, hook, 'label sourceKind must equal spec.kind');
        const n = md(o).name;
        if (kind === 'Service' || kind === 'Endpoints') {
          if (labels.sourceName !== s.name || labels.sourceNamespace !== s.namespace)
            return this.deny(r.uid, hook, 'labels sourceName and sourceNamespace must match the spec');
          if (n !== `${id}-${String(s.namespace)}-${String(s.name)}-${kind.toLowerCase()}`)
            return this.deny(
              r.uid,
              hook,
              `the name must be <clusterID>-<namespace>-<name>-${kind.toLowerCase()}`,
            );
          const payload = kind === 'Service' ? s.service : s.endpoints;
          if (!payload) return this.deny(r.uid, hook, `the ${kind} payload is missing`);
        }
        if (kind === 'ClusterInfo') {
          if (n !== `${id}-clusterinfo`)
            return this.deny(r.uid, hook, 'the name must be <clusterID>-clusterinfo');
          if ((s.clusterInfo as { clusterID?: string } | undefined)?.clusterID !== id)
            return this.deny(r.uid, hook, `clusterInfo.clusterID must be ${id}`);
        }
        if (kind === 'LabelIdentity' && !new RegExp(`^${id}-[0-9a-f]{16}$`).test(n))
          return this.deny(r.uid, hook, 'the name must be <clusterID>-<hash16>');
        const fins = md(o).finalizers ?? [];
        if (r.operation === 'CREATE' && kind !== 'LabelIdentity' && !fins.includes(RESOURCE_EXPORT_FINALIZER))
          return this.deny(r.uid, hook, `the finalizer ${RESOURCE_EXPORT_FINALIZER} is required`);
        if (r.operation === 'UPDATE') {
          if (
            (md(old).finalizers ?? []).includes(RESOURCE_EXPORT_FINALIZER) &&
            !fins.includes(RESOURCE_EXPORT_FINALIZER)
          )
            return this.deny(r.uid, hook, `the finalizer ${RESOURCE_EXPORT_FINALIZER} may not be removed`);
          const t = (x: Obj) => [spec(x).namespace, spec(x).name, spec(x).kind].join('/');
          if (t(old) !== t(obj))
            return this.deny(r.uid, hook, 'the (namespace, name, kind) of a ResourceExport is immutable');
        }
        return allow;
      }
      case '/validate-multicluster-crd-antrea-io-v1alpha1-gateway': {
        if (r.operation === 'DELETE') return allow;
        if (sa && (sa[2] === 'antrea-mc-controller' || sa[2] === 'antrea-agent')) return allow;
        // Antrea answers 400 here; a denial is what the API server reports either way.
        return this.deny(
          r.uid,
          'vgateway.kb.io',
          `user ${r.userInfo.username} may not create or update a Gateway`,
        );
      }
      default:
        return allow;
    }
  }
}
