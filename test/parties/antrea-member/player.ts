/**
 * Antrea v2.7's member controller, played continuously in one member control plane, for the GitOps
 * loop tests where Argo CD or Flux deliver the bundles: what it reads and writes, and when, as
 * antrea-mc.md §b, §c.1, §c.3, §e, §h and §i say. Antrea's own controller cannot be built here.
 *
 * Each pass (every second, as its informers would react):
 * - its ClusterSet, in its own namespace: none means not joined (and, after having been joined, it
 *   cleans up as cleanUpResources does: deletes its announce in the leader with its token, then what
 *   it imported). It connects with what `leaders[0]` names: the server, the token Secret in its own
 *   namespace (`ca.crt`, `token`), read only when the connection is (re)built;
 * - the announce `member-announce-from-<id>`, refreshed every 10 s;
 * - every ServiceExport of the member, reconciled on each event its controller gets: a change of the
 *   ServiceExport, its Service or one of its EndpointSlices (a new resourceVersion of any; the first
 *   list at start is an event for each), or its deletion. A reconcile that comes while the member is
 *   not connected to the leader is dropped and not retried (Antrea v2.7.0,
 *   MEMBER/serviceexport_controller.go:141-144, `Skip reconciling ServiceExports since there is no
 *   connection to the leader`): at every start the first list is seen before the connection is up,
 *   so nothing is known to be exported. A connected reconcile decides from the Service and its ready
 *   endpoints the `Valid` condition (rewritten only when the reason changes) and the two
 *   ResourceExports (ClusterIP mode), written when what they hold changes; a deleted ServiceExport is
 *   withdrawn only if this process exported it (`if svcInstalled`), so a withdrawal after a restart
 *   is lost until something makes the ServiceExport reconciled while connected (`events.lost`);
 * - every ResourceImport of the leader namespace: the Services, ServiceImports, Endpoints and
 *   policies it imports, and, when its configuration enables stretched policy
 *   (`enableStretchedNetworkPolicy`, read at each start), the cluster-scoped LabelIdentity `<hash>`
 *   of each label identity import with its `label` and `id` (§d step 3), written only when they
 *   differ from what the member holds. A policy whose
 *   Tier is missing is dropped with a Warning Event in the leader and never retried until the import
 *   changes (generation) or the controller restarts, as acnp_resourceimport_controller.go does;
 * - a restart of the controller (its Deployment's Pod template changed: `kubectl rollout restart`
 *   or the restart Job's annotations): a new process, which knows nothing; once connected, its stale
 *   cleanup deletes every imported object with no import left and every ResourceExport of this
 *   member whose ServiceExport is gone (MEMBER/stale_controller.go), and every import is reconciled
 *   again;
 * - its ClusterSet's status every 30 s from the process's start (not when the connection changes),
 *   each condition's lastTransitionTime the time the connection last changed in this process.
 */
import * as https from 'node:https';
import { readMcConfig } from '../../../lib/import/mc-config';
import type { LiveObject } from '../../../lib/import/snapshot';
import { BUILTIN_TIERS, MEMBER_CONTROLLER_CONFIG, MEMBER_CONTROLLER_DEPLOYMENT } from '../../../lib/names';
import { collectionPath, resource } from '../../../lib/status/resources';
import {
  IMPORTED_ACNP,
  IMPORTED_SERVICE,
  memberClusterSetStatus,
  memberWrites,
  serviceExportStatus,
} from './imports';
import type { Auth, Cluster, Response } from '../../kube/cluster';
import { request } from '../../kube/cluster';
import { withClusterIp } from './import-sync';
import { SimulatedMember, type ServicePort } from './in-leader';
import { expectStatus } from '../../kube/objects';
import { repeat, type Repeating } from '../../kube/wait';

type Obj = Record<string, unknown>;
const md = (o: Obj) => (o.metadata ?? {}) as { name: string; namespace?: string; [k: string]: unknown };
const spec = (o: Obj) => (o.spec ?? {}) as Obj;

async function items(auth: Auth, path: string, agent?: https.Agent): Promise<Obj[]> {
  const r = expectStatus(
    `list ${path}`,
    await request(auth, 'GET', path, undefined, undefined, 30_000, agent),
    200,
  );
  return ((r.json as { items?: Obj[] }).items ?? []) as Obj[];
}

/** Drops empty strings and empty maps, as the API server leaves out empty `omitempty` fields. */
function pruned(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruned);
  if (v === null || typeof v !== 'object') return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj)) {
    const y = pruned(x);
    if (
      y === '' ||
      y === undefined ||
      (typeof y === 'object' && y !== null && !Array.isArray(y) && Object.keys(y).length === 0)
    )
      continue;
    out[k] = y;
  }
  return out;
}

/** What Antrea writes of an object of its kind, to compare the desired with the live one. */
function written(o: Obj): string {
  const m = md(o);
  const s = spec(o);
  const what =
    o.kind === 'Service'
      ? {
          type: s.type ?? 'ClusterIP',
          ports: ((s.ports as Obj[] | undefined) ?? []).map((p) => [
            p.name ?? '',
            p.port,
            p.protocol ?? 'TCP',
          ]),
        }
      : o.kind === 'Endpoints'
        ? o.subsets
        : s;
  return JSON.stringify(pruned({ labels: m.labels, annotations: m.annotations, what }));
}

/** A Service has a ready endpoint (what the ClusterIP mode asks before it exports). */
function hasReadyEndpoints(slices: readonly Obj[]): boolean {
  return slices.some((s) =>
    ((s.endpoints as Obj[] | undefined) ?? []).some(
      (e) => (e.conditions as { ready?: boolean } | undefined)?.ready !== false,
    ),
  );
}

interface Connection {
  readonly key: string;
  readonly leaderNs: string;
  readonly member: SimulatedMember;
  readonly auth: Auth;
  readonly agent: https.Agent;
}

export interface PlayerEvents {
  /** Policy imports dropped for a missing Tier, `<epoch>:<import>`. */
  readonly dropped: string[];
  /** Controller starts seen (1 at the first pass). */
  epochs: number;
  /** Deletions by the stale cleanup, `<kind> <ns>/<name>`. */
  readonly staleDeleted: string[];
  /** ServiceExport reconciles dropped because the member was not connected, `<epoch>:<ns>/<name>`. */
  readonly skipped: string[];
  /** ServiceExports deleted while connected that this process had not exported: not withdrawn. */
  readonly lost: string[];
}

export class AntreaMemberPlayer {
  private conn: Connection | undefined;
  /** The UID of each leader import at the last pass. */
  private importUids = new Map<string, string>();
  private lastAnnounce = 0;
  private lastStatus = 0;
  private connected = false;
  /** When the connection last changed in this process (each condition's lastTransitionTime). */
  private connectionSince = new Date();
  /** Its stale cleanup of exports is still to run (once connected after a start). */
  private stalePending = false;
  /** ServiceExport `<ns>/<name>` → the resourceVersions of it, its Service and its EndpointSlices last seen. */
  private readonly seen = new Map<string, string>();
  private joined = false;
  private templateKey: string | undefined;
  /** Its configuration enables stretched policy (read at each start): label identities are imported. */
  private stretched = false;
  /** Import name → generation dropped at, in this epoch. */
  private readonly dropped = new Map<string, number>();
  /** ResourceExport name → what was last written. */
  private readonly exported = new Map<string, string>();
  /** Services exported, `<ns>/<name>`. */
  private readonly services = new Set<string>();
  /** ServiceExport `<ns>/<name>` → reason last written. */
  private readonly reasons = new Map<string, string>();
  private loop: Repeating | undefined;
  /** The last error of a pass, until one succeeds (what a timeout reports). */
  lastError: string | undefined;
  readonly events: PlayerEvents = { dropped: [], epochs: 0, staleDeleted: [], skipped: [], lost: [] };

  constructor(
    readonly id: string,
    readonly cluster: Cluster,
    /** Antrea's member controller namespace, where its ClusterSet and token Secret live. */
    readonly memberNs = 'kube-system',
  ) {}

  start(periodMs = 1000): void {
    this.loop = repeat(async () => {
      try {
        await this.pass();
        this.lastError = undefined;
      } catch (e) {
        this.lastError = (e as Error).message;
      }
    }, periodMs);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.conn?.agent.destroy();
  }

  get isConnected(): boolean {
    return this.connected;
  }

  private get admin(): Auth {
    return this.cluster.admin;
  }

  /** One pass of every reconciler. */
  async pass(): Promise<void> {
    await this.watchRestart();
    const sets = await items(this.admin, collectionPath(resource('ClusterSet'), this.memberNs));
    const cs = sets[0];
    if (!cs || md(cs).deletionTimestamp) {
      if (this.joined) await this.leave();
      await this.exportServices(undefined); // no connection: every event dropped
      return;
    }
    this.joined = true;
    const conn = await this.connect(cs);
    this.setConnected(conn !== undefined);
    if (conn) {
      if (Date.now() - this.lastAnnounce >= 10_000) {
        await conn.member.announce();
        this.lastAnnounce = Date.now();
      }
      if (this.stalePending) {
        const ris = await items(
          conn.auth,
          collectionPath(resource('ResourceImport'), conn.leaderNs),
          conn.agent,
        );
        await this.cleanUpImported(new Set(ris.map((ri) => md(ri).name)));
        await this.cleanUpStaleExports(conn);
        this.stalePending = false;
      }
    }
    await this.exportServices(conn);
    if (conn) await this.importAll(conn);
    if (Date.now() - this.lastStatus >= 30_000) await this.writeStatus(cs);
  }

  private setConnected(connected: boolean): void {
    if (connected !== this.connected) this.connectionSince = new Date();
    this.connected = connected;
  }

  /** The connection `leaders[0]` names; rebuilt when it changes; undefined without a token. */
  private async connect(cs: Obj): Promise<Connection | undefined> {
    const leader = ((spec(cs).leaders as Obj[] | undefined) ?? [])[0] ?? {};
    const key = JSON.stringify([leader.clusterID, leader.server, leader.secret, spec(cs).namespace]);
    if (this.conn?.key === key) return this.conn;
    const s = await request(
      this.admin,
      'GET',
      `/api/v1/namespaces/${this.memberNs}/secrets/${String(leader.secret)}`,
    );
    if (s.status === 404) return undefined;
    const data =
      (expectStatus('get token Secret', s, 200).json as { data?: Record<string, string> }).data ?? {};
    if (!data.token || !data['ca.crt']) return undefined;
    const token = Buffer.from(data.token, 'base64').toString('utf8');
    const ca = Buffer.from(data['ca.crt'], 'base64').toString('utf8');
    const server = String(leader.server);
    const leaderNs = String(spec(cs).namespace);
    this.conn?.agent.destroy();
    const member = new SimulatedMember(
      this.id,
      { server, caPem: ca } as Cluster,
      token,
      leaderNs,
      md(cs).name,
      String(leader.clusterID),
      this.cluster,
      this.memberNs,
    );
    this.conn = {
      key,
      leaderNs,
      member,
      auth: { server, ca, token },
      agent: new https.Agent({ keepAlive: true, ca }),
    };
    this.lastAnnounce = 0;
    return this.conn;
  }

  private async writeStatus(cs: Obj): Promise<void> {
    const p = `${collectionPath(resource('ClusterSet'), this.memberNs)}/${md(cs).name}`;
    const leader = String((((spec(cs).leaders as Obj[] | undefined) ?? [])[0] ?? {}).clusterID);
    const generation = Number(md(cs).generation ?? 1);
    const next = {
      ...cs,
      status: memberClusterSetStatus(leader, this.connected, generation, this.connectionSince),
    };
    const r = await request(this.admin, 'PUT', `${p}/status`, next);
    expectStatus('update member ClusterSet status', r, 200, 409, 404);
    // Every 30 s from its start, whatever the write did (a timer, not a retry).
    this.lastStatus = Date.now();
  }

  /** What cleanUpResources does once the ClusterSet is gone: the announce, then what was imported. */
  private async leave(): Promise<void> {
    if (this.conn) {
      const r = await this.conn.member.deleteAnnounce();
      expectStatus(`member ${this.id}: delete announce`, r, 200, 202, 404);
    }
    await this.cleanUpImported(new Set());
    this.conn?.agent.destroy();
    this.conn = undefined;
    this.joined = false;
    this.setConnected(false);
    this.exported.clear();
    this.services.clear();
    this.reasons.clear();
  }

  // -----------------------------------------------------------------------------------------------
  // Exports (§c.1)

  /**
   * The ServiceExport controller: one reconcile per event (see the top of this file), dropped while
   * not connected (`conn` undefined), never retried.
   */
  private async exportServices(conn: Connection | undefined): Promise<void> {
    const base = `/apis/multicluster.x-k8s.io/v1alpha1`;
    const exports = await items(this.admin, `${base}/serviceexports`);
    const live = new Map<string, Obj>();
    for (const se of exports) {
      const { name, namespace } = md(se) as { name: string; namespace: string };
      if (!md(se).deletionTimestamp) live.set(`${namespace}/${name}`, se);
    }
    for (const [at, se] of live) {
      const [namespace, name] = at.split('/') as [string, string];
      const svc = await request(this.admin, 'GET', `/api/v1/namespaces/${namespace}/services/${name}`);
      const slices = await this.slices(namespace, name);
      const version = JSON.stringify([
        md(se).resourceVersion,
        svc.status === 200 ? md(svc.json as Obj).resourceVersion : '',
        slices.map((x) => md(x).resourceVersion).sort(),
      ]);
      if (this.seen.get(at) === version) continue; // no event
      this.seen.set(at, version);
      if (!conn) {
        this.events.skipped.push(`${this.events.epochs}:${at}`);
        continue;
      }
      await this.reconcileExport(conn, se, svc, slices);
    }
    // ServiceExports that went away: a delete event each.
    for (const at of [...this.seen.keys()]) {
      if (live.has(at)) continue;
      this.seen.delete(at);
      if (!conn) {
        this.events.skipped.push(`${this.events.epochs}:${at}`);
        continue;
      }
      const [ns, name] = at.split('/') as [string, string];
      // `if svcInstalled { cleanup() }`: what this process did not export it does not withdraw.
      if (this.services.has(at)) await this.withdraw(conn, ns, name);
      else this.events.lost.push(`${this.events.epochs}:${at}`);
    }
  }

  /** One connected reconcile of a live ServiceExport (§c.1). */
  private async reconcileExport(conn: Connection, se: Obj, svc: Response, slices: Obj[]): Promise<void> {
    const base = `/apis/multicluster.x-k8s.io/v1alpha1`;
    const { name, namespace } = md(se) as { name: string; namespace: string };
    const at = `${namespace}/${name}`;
    let failure: { reason: string; message: string } | undefined;
    let ports: ServicePort[] = [];
    let clusterIP = '';
    if (svc.status === 404) failure = { reason: 'ServiceNotFound', message: 'Service does not exist' };
    else {
      const s = expectStatus(`get Service ${at}`, svc, 200).json as Obj;
      const annotations = (md(s).annotations ?? {}) as Record<string, string>;
      ports = (spec(s).ports as ServicePort[] | undefined) ?? [];
      clusterIP = String(spec(s).clusterIP ?? '');
      if (IMPORTED_SERVICE in annotations)
        failure = { reason: 'ImportedService', message: 'The Service is imported, not allowed to export' };
      else if (!hasReadyEndpoints(slices))
        failure = { reason: 'ServiceWithoutEndpoints', message: 'Service has no Endpoints' };
    }
    const reason = failure?.reason ?? 'Succeed';
    if (this.reasons.get(at) !== reason) {
      const p = `${base}/namespaces/${namespace}/serviceexports/${name}/status`;
      const r = await request(this.admin, 'PUT', p, {
        ...se,
        status: serviceExportStatus(new Date(), failure),
      });
      expectStatus(`ServiceExport ${at} status`, r, 200, 409);
      if (r.status === 200) this.reasons.set(at, reason);
    }
    if (failure) {
      // Cleaned up whether or not this process exported it (Antrea: "try to clean up anyway").
      await this.withdraw(conn, namespace, name, true);
      return;
    }
    const sExport = conn.member.serviceExport(namespace, name, ports);
    const eExport = conn.member.endpointsExport(
      namespace,
      name,
      SimulatedMember.clusterIpSubsets(clusterIP, ports),
    );
    for (const x of [sExport, eExport]) {
      const text = JSON.stringify(x.spec);
      if (this.exported.get(x.metadata.name) === text) continue;
      await conn.member.upsertExport(x);
      this.exported.set(x.metadata.name, text);
    }
    this.services.add(at);
  }

  private async withdraw(conn: Connection, ns: string, name: string, anyway = false): Promise<void> {
    const s = `${this.id}-${ns}-${name}-service`;
    const e = `${this.id}-${ns}-${name}-endpoints`;
    if (!anyway && !this.services.has(`${ns}/${name}`)) return;
    await conn.member.withdrawService(ns, name);
    this.exported.delete(s);
    this.exported.delete(e);
    this.services.delete(`${ns}/${name}`);
  }

  private slices(ns: string, name: string): Promise<Obj[]> {
    return items(
      this.admin,
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${name}`,
    );
  }

  /**
   * The stale cleanup's export half, once connected after a start (MEMBER/stale_controller.go
   * cleanUpServiceResourceExports): this member's Service and Endpoints ResourceExports whose
   * ServiceExport is gone are deleted.
   */
  private async cleanUpStaleExports(conn: Connection): Promise<void> {
    const exports = await items(this.admin, '/apis/multicluster.x-k8s.io/v1alpha1/serviceexports');
    const have = new Set(exports.map((se) => `${md(se).namespace}/${md(se).name}`));
    const res = await items(
      conn.auth,
      `${collectionPath(resource('ResourceExport'), conn.leaderNs)}?labelSelector=sourceClusterID%3D${this.id}`,
      conn.agent,
    );
    for (const re of res) {
      const k = String(spec(re).kind);
      if (k !== 'Service' && k !== 'Endpoints') continue;
      if (have.has(`${String(spec(re).namespace)}/${String(spec(re).name)}`)) continue;
      const r = await request(
        conn.auth,
        'DELETE',
        `${collectionPath(resource('ResourceExport'), conn.leaderNs)}/${md(re).name}`,
        undefined,
        undefined,
        30_000,
        conn.agent,
      );
      expectStatus(`delete stale ResourceExport ${md(re).name}`, r, 200, 202, 404);
      if (r.status !== 404) this.events.staleDeleted.push(`ResourceExport ${md(re).name}`);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Imports (§c.3) and the controller's restarts (§i)

  /**
   * A new Pod template of Antrea's Deployment is a restart: a new process (nothing kept in memory:
   * no connection, no exports written, no policy dropped), whose stale clean-up deletes every
   * imported object with no import of that name in the leader, or, with no ClusterSet, all of them.
   */
  private async watchRestart(): Promise<void> {
    const r = await request(
      this.admin,
      'GET',
      `/apis/apps/v1/namespaces/${this.memberNs}/deployments/${MEMBER_CONTROLLER_DEPLOYMENT}`,
    );
    if (r.status !== 200) return;
    const template = (spec(r.json as Obj).template ?? {}) as Obj;
    const key = JSON.stringify((template.metadata as Obj | undefined)?.annotations ?? {});
    if (this.templateKey === key) return;
    this.templateKey = key;
    this.events.epochs++;
    this.importUids = new Map(); // a controller that starts knows no UIDs: its stale cleanup goes by name
    this.conn?.agent.destroy();
    this.conn = undefined;
    this.joined = false;
    this.setConnected(false);
    this.lastAnnounce = 0;
    this.lastStatus = Date.now(); // its status timer starts with the process
    this.dropped.clear();
    this.exported.clear();
    this.services.clear();
    this.reasons.clear();
    this.seen.clear();
    this.stalePending = true;
    // Its informers list every ServiceExport at once, and each is reconciled before the connection
    // to the leader is up: dropped (the race Antrea's member loses at every start).
    await this.exportServices(undefined);
    const cfg = await request(
      this.admin,
      'GET',
      `/api/v1/namespaces/${this.memberNs}/configmaps/${MEMBER_CONTROLLER_CONFIG}`,
    );
    this.stretched = cfg.status === 200 && readMcConfig(cfg.json as LiveObject).enableStretchedNetworkPolicy;
    const cs = (await items(this.admin, collectionPath(resource('ClusterSet'), this.memberNs)))[0];
    // Started with no ClusterSet, it deletes everything it imported; with one, its stale cleanup
    // waits until it is connected (pass(), retried as Antrea retries it).
    if (!cs || md(cs).deletionTimestamp) {
      this.stalePending = false;
      await this.cleanUpImported(new Set());
    }
  }

  /**
   * Deletes what this member imported for which no import of that name remains (`keep`): the
   * stale cleanup at start (MEMBER/stale_controller.go), or everything (`keep` empty) when leaving.
   */
  private async cleanUpImported(keep: ReadonlySet<string>): Promise<void> {
    const del = async (path: string, what: string) => {
      const r = await request(this.admin, 'DELETE', path);
      expectStatus(`delete ${what}`, r, 200, 202, 404);
      if (r.status !== 404) this.events.staleDeleted.push(what);
    };
    const everywhere = (kind: string) => {
      const res = resource(kind);
      const base = res.apiVersion.includes('/') ? `/apis/${res.apiVersion}` : `/api/${res.apiVersion}`;
      return items(this.admin, `${base}/${res.plural}`);
    };
    for (const si of await everywhere('ServiceImport')) {
      const { name, namespace } = md(si) as { name: string; namespace: string };
      if (keep.has(`${namespace}-${name}-service`)) continue;
      await del(
        `/api/v1/namespaces/${namespace}/services/antrea-mc-${name}`,
        `Service ${namespace}/antrea-mc-${name}`,
      );
      await del(
        `${collectionPath(resource('ServiceImport'), namespace)}/${name}`,
        `ServiceImport ${namespace}/${name}`,
      );
    }
    for (const kind of ['LabelIdentity', 'ClusterInfoImport']) {
      for (const o of await everywhere(kind)) {
        const { name, namespace } = md(o) as { name: string; namespace?: string };
        if (!keep.has(name))
          await del(`${collectionPath(resource(kind), namespace)}/${name}`, `${kind} ${name}`);
      }
    }
    for (const p of await everywhere('ClusterNetworkPolicy')) {
      const a = (md(p).annotations ?? {}) as Record<string, string>;
      const imported = md(p).name.replace(/^antrea-mc-/, '');
      if (!(IMPORTED_ACNP in a) || keep.has(`${imported}-antreaclusternetworkpolicy`)) continue;
      await del(
        `${collectionPath(resource('ClusterNetworkPolicy'))}/${md(p).name}`,
        `ClusterNetworkPolicy ${md(p).name}`,
      );
    }
  }

  private async importAll(conn: Connection): Promise<void> {
    const ris = await items(conn.auth, collectionPath(resource('ResourceImport'), conn.leaderNs), conn.agent);
    // Antrea's import reconcilers act on an informer's delete event (MEMBER/resourceimport_controller.go);
    // a poll sees an import deleted and re-created between two passes only as a new UID. Either way
    // what it brought is deleted before it is imported again: an outage, and a new ClusterIP (§i).
    const uids = new Map(ris.map((ri) => [md(ri).name, String(md(ri).uid)]));
    const recreated = new Set(
      [...uids].filter(([n, u]) => this.importUids.has(n) && this.importUids.get(n) !== u).map(([n]) => n),
    );
    if (recreated.size > 0)
      await this.cleanUpImported(new Set([...uids.keys()].filter((n) => !recreated.has(n))));
    this.importUids = uids;
    // Imports that went away: what they brought goes too (the import reconcilers' delete events),
    // before anything new is written, as those events come first: Antrea's leader releases a label's
    // ID when it deletes its import, and may give it to the next label at once; a member that wrote
    // the new LabelIdentity first would hold that ID twice for a moment.
    await this.cleanUpImported(new Set(ris.map((ri) => md(ri).name)));
    const admin = this.admin;
    const tiers = new Set([
      ...BUILTIN_TIERS,
      ...(await items(admin, collectionPath(resource('Tier')))).map((t) => md(t).name),
    ]);
    const namespaces = new Set((await items(admin, '/api/v1/namespaces')).map((n) => md(n).name));
    // A policy dropped in this epoch is not retried until its import changes.
    const considered = ris.filter((ri) => {
      const d = this.dropped.get(md(ri).name);
      return d === undefined || d !== Number(md(ri).generation ?? 0);
    });
    const w = memberWrites(considered, {
      memberId: this.id,
      leaderNs: conn.leaderNs,
      memberNs: this.memberNs,
      tiers,
      namespaces,
      now: new Date(),
    });
    for (const svc of w.services) await this.upsert(svc);
    for (const si of w.serviceImports) await this.upsert(await withClusterIp(admin, si));
    for (const e of w.endpoints) await this.upsert(e);
    for (const p of w.policies) await this.upsert(p);
    if (this.stretched) for (const li of w.labelIdentities) await this.upsert(li);
    for (const e of w.events) {
      const riName = (e.involvedObject as { name: string }).name;
      const ri = ris.find((r) => md(r).name === riName)!;
      this.dropped.set(riName, Number(md(ri).generation ?? 0));
      this.events.dropped.push(`${this.events.epochs}:${riName}`);
      const name = `antrea-mc-${String(spec(ri).name ?? '')}`;
      expectStatus(
        `delete ClusterNetworkPolicy ${name}`,
        await request(admin, 'DELETE', `${collectionPath(resource('ClusterNetworkPolicy'))}/${name}`),
        200,
        404,
      );
      const path = `${collectionPath(resource('Event'), conn.leaderNs)}`;
      expectStatus(
        `post Event ${md(e).name}`,
        await request(conn.auth, 'POST', path, e, undefined, 30_000, conn.agent),
        201,
      );
    }
    for (const ep of await items(admin, '/api/v1/endpoints')) {
      const a = (md(ep).annotations ?? {}) as Record<string, string>;
      const { name, namespace } = md(ep) as { name: string; namespace: string };
      if (!(IMPORTED_SERVICE in a) || !name.startsWith('antrea-mc-')) continue;
      if (!ris.some((ri) => md(ri).name === `${namespace}-${name.slice('antrea-mc-'.length)}-endpoints`))
        expectStatus(
          `delete Endpoints ${namespace}/${name}`,
          await request(admin, 'DELETE', `/api/v1/namespaces/${namespace}/endpoints/${name}`),
          200,
          404,
        );
    }
  }

  /** Creates `o`, or updates it when what Antrea writes differs from what the member holds. */
  private async upsert(o: Obj): Promise<void> {
    const res = resource(String(o.kind));
    const m = md(o);
    const path = `${collectionPath(res, m.namespace)}/${m.name}`;
    const cur = await request(this.admin, 'GET', path);
    if (cur.status === 404) {
      expectStatus(
        `create ${String(o.kind)} ${m.name}`,
        await request(this.admin, 'POST', collectionPath(res, m.namespace), o),
        201,
        409,
      );
      return;
    }
    const live = expectStatus(`get ${String(o.kind)} ${m.name}`, cur, 200).json as Obj;
    const merged: Obj = { ...live, ...o, metadata: { ...md(live), ...m } };
    if (written(merged) === written(live)) return;
    if (o.kind === 'Service') merged.spec = { ...spec(live), ...spec(o) };
    expectStatus(
      `update ${String(o.kind)} ${m.name}`,
      await request(this.admin, 'PUT', path, merged),
      200,
      409,
    );
  }
}
