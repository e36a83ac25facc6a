// The member side of the reconciler tests: writes into the leader exactly what Antrea v2.7's member
// controller writes (antrea-mc.md §c.1, §d, §f, §h), with the member's real token: names, the bare
// source* labels, the export finalizer, the payloads, announces refreshed with an RFC 3339 touch-ts,
// updates that reuse resourceVersion and finalizers, and deletions left to the leader's finalizer
// handling. Antrea's own member controller cannot be built here; nothing friendlier is written.

import {
  announceName,
  clusterInfoName,
  labelIdentityExportName,
  labelIdentityHash,
  RESOURCE_EXPORT_FINALIZER,
  serviceExportName,
  TOUCH_TS_ANNOTATION,
} from '../../../lib/names';
import * as https from 'node:https';
import type { Auth, Cluster, Response } from '../../kube/cluster';
import { request } from '../../kube/cluster';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

/** A Service port as a real Service holds it (after API server defaulting). */
export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  appProtocol?: string;
  nodePort?: number;
}

export interface ClusterInfo {
  clusterID: string;
  serviceCIDR?: string;
  podCIDRs?: string[];
  gatewayInfos?: { gatewayIP: string }[];
  wireGuard?: { publicKey: string };
}

function fail(what: string, r: Response): never {
  throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 500)}`);
}

export class SimulatedMember {
  private timer: NodeJS.Timeout | undefined;
  private readonly auth: Auth;
  /**
   * The member's connections to the leader, kept alive between requests as its client (client-go)
   * keeps them: a TLS handshake per request would cost the leader's API server more than the
   * request.
   */
  private readonly agent: https.Agent;

  constructor(
    readonly id: string,
    leader: Cluster,
    token: string,
    readonly leaderNs: string,
    readonly clusterSetId: string,
    readonly leaderId: string,
    /** The member's own control plane, where its Services live (for ClusterIPs and ports). */
    readonly cluster?: Cluster,
    /** The member controller's namespace (ClusterInfo exports name it). */
    readonly memberNs = 'kube-system',
  ) {
    this.auth = { server: leader.server, ca: leader.caPem, token };
    this.agent = new https.Agent({ keepAlive: true, ca: leader.caPem });
  }

  /** A request to the leader with this member's token, over its kept-alive connections. */
  req(method: string, path: string, body?: unknown, contentType?: string): Promise<Response> {
    return request(this.auth, method, path, body, contentType, 30_000, this.agent);
  }

  private exportsPath(name?: string): string {
    return `${MC}/${this.leaderNs}/resourceexports${name ? `/${name}` : ''}`;
  }

  /**
   * Creates the export, or updates it reusing resourceVersion and finalizers, as the member does;
   * a conflict (the leader wrote its status meanwhile) is retried, as the member's requeue does.
   */
  async upsertExport(
    obj: {
      metadata: { name: string; [k: string]: unknown };
      [k: string]: unknown;
    },
    /** Called just before each write (after the read that stands for the member's cache). */
    beforeWrite?: () => void,
  ): Promise<Response> {
    const name = obj.metadata.name;
    for (let attempt = 1; ; attempt++) {
      const cur = await this.req('GET', this.exportsPath(name));
      let r: Response;
      if (cur.status === 404) {
        beforeWrite?.();
        r = await this.req('POST', this.exportsPath(), obj);
        if (r.status === 201) return r;
      } else {
        if (cur.status !== 200) fail(`member ${this.id}: get ResourceExport ${name}`, cur);
        const md = (cur.json as { metadata: Record<string, unknown> }).metadata;
        if (md.deletionTimestamp) {
          // Still being withdrawn: the member's create fails with AlreadyExists and it requeues.
          if (attempt >= 100) fail(`member ${this.id}: ResourceExport ${name} stays in deletion`, cur);
          await new Promise((res) => setTimeout(res, 200));
          continue;
        }
        beforeWrite?.();
        r = await this.req('PUT', this.exportsPath(name), {
          ...obj,
          metadata: { ...obj.metadata, resourceVersion: md.resourceVersion, finalizers: md.finalizers },
        });
        if (r.status === 200) return r;
      }
      if ((r.status !== 409 && r.status !== 404) || attempt >= 120)
        fail(`member ${this.id}: write ResourceExport ${name}`, r);
    }
  }

  /**
   * Creates an export the member's cache of the leader does not hold, with one request, as the
   * member does (its reads come from that cache); one that exists after all (AlreadyExists) takes
   * the update path of upsertExport.
   */
  async createExport(obj: {
    metadata: { name: string; [k: string]: unknown };
    [k: string]: unknown;
  }): Promise<Response> {
    const r = await this.req('POST', this.exportsPath(), obj);
    if (r.status === 201) return r;
    if (r.status === 409) return this.upsertExport(obj);
    fail(`member ${this.id}: create ResourceExport ${obj.metadata.name}`, r);
  }

  /** Deletes an export; the leader's finalizer keeps it until the leader has withdrawn its data. */
  async deleteExport(name: string): Promise<void> {
    const r = await this.req('DELETE', this.exportsPath(name));
    if (r.status !== 200 && r.status !== 202 && r.status !== 404)
      fail(`member ${this.id}: delete ${name}`, r);
  }

  /** The Service export (§c.1): ports verbatim from the Service. */
  serviceExport(ns: string, name: string, ports: ServicePort[]) {
    return {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceExport',
      metadata: {
        name: serviceExportName(this.id, ns, name, 'service'),
        namespace: this.leaderNs,
        labels: { sourceName: name, sourceNamespace: ns, sourceClusterID: this.id, sourceKind: 'Service' },
        finalizers: [RESOURCE_EXPORT_FINALIZER],
      },
      spec: { clusterID: this.id, name, namespace: ns, kind: 'Service', service: { serviceSpec: { ports } } },
    };
  }

  /** The Endpoints export in ClusterIP mode (§c.1): one subset, the ClusterIP, the Service ports. */
  endpointsExport(ns: string, name: string, subsets: unknown[]) {
    return {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceExport',
      metadata: {
        name: serviceExportName(this.id, ns, name, 'endpoints'),
        namespace: this.leaderNs,
        labels: { sourceName: name, sourceNamespace: ns, sourceClusterID: this.id, sourceKind: 'Endpoints' },
        finalizers: [RESOURCE_EXPORT_FINALIZER],
      },
      spec: { clusterID: this.id, name, namespace: ns, kind: 'Endpoints', endpoints: { subsets } },
    };
  }

  /** ClusterIP mode: `{addresses: [{ip: <ClusterIP>}], ports: [{name, port, protocol}]}`. */
  static clusterIpSubsets(clusterIP: string, ports: ServicePort[]): unknown[] {
    return [
      {
        addresses: [{ ip: clusterIP }],
        ports: ports.map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' })),
      },
    ];
  }

  /**
   * Exports a Service the way the member does for a ServiceExport in ClusterIP mode. With a member
   * control plane the Service is read from it (its real ClusterIP and defaulted ports); otherwise
   * the given ports and ClusterIP are used.
   */
  async exportService(
    ns: string,
    name: string,
    given?: { ports: ServicePort[]; clusterIP: string },
  ): Promise<{ ports: ServicePort[]; clusterIP: string }> {
    let svc = given;
    if (!svc) {
      if (!this.cluster) throw new Error('exportService needs a member cluster or explicit ports');
      const r = await request(this.cluster.admin, 'GET', `/api/v1/namespaces/${ns}/services/${name}`);
      if (r.status !== 200) fail(`member ${this.id}: get Service ${ns}/${name}`, r);
      const spec = (r.json as { spec: { ports: ServicePort[]; clusterIP: string } }).spec;
      svc = { ports: spec.ports, clusterIP: spec.clusterIP };
    }
    await this.upsertExport(this.serviceExport(ns, name, svc.ports));
    await this.upsertExport(
      this.endpointsExport(ns, name, SimulatedMember.clusterIpSubsets(svc.clusterIP, svc.ports)),
    );
    return svc;
  }

  /**
   * The ServiceExport went away (or the Service lost its endpoints): both exports are deleted, as
   * the member's cleanup does it (handleServiceDeleteEvent, then handleEndpointDeleteEvent): the
   * Service export first, the Endpoints export 20-40 ms later (`gapMs`, random in that range by
   * default), each kept by the leader's finalizer until the leader has withdrawn its data.
   */
  async withdrawService(ns: string, name: string, gapMs = 20 + Math.random() * 20): Promise<void> {
    await this.deleteExport(serviceExportName(this.id, ns, name, 'service'));
    await new Promise((res) => setTimeout(res, gapMs));
    await this.deleteExport(serviceExportName(this.id, ns, name, 'endpoints'));
  }

  /** The ClusterInfo export (§f). */
  clusterInfoExport(info: ClusterInfo) {
    return {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceExport',
      metadata: {
        name: clusterInfoName(this.id),
        namespace: this.leaderNs,
        labels: { sourceKind: 'ClusterInfo', sourceClusterID: this.id },
        finalizers: [RESOURCE_EXPORT_FINALIZER],
      },
      spec: {
        kind: 'ClusterInfo',
        clusterID: this.id,
        name: this.id,
        namespace: this.memberNs,
        clusterInfo: info,
      },
    };
  }

  /** A LabelIdentity export (§d): no finalizer. */
  labelExport(normalizedLabel: string) {
    return {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceExport',
      metadata: {
        name: labelIdentityExportName(this.id, labelIdentityHash(normalizedLabel)),
        namespace: this.leaderNs,
        labels: { sourceKind: 'LabelIdentity', sourceClusterID: this.id },
      },
      spec: { clusterID: this.id, kind: 'LabelIdentity', labelIdentity: { normalizedLabel } },
    };
  }

  async exportLabel(normalizedLabel: string): Promise<void> {
    await this.upsertExport(this.labelExport(normalizedLabel));
  }

  async withdrawLabel(normalizedLabel: string): Promise<void> {
    await this.deleteExport(labelIdentityExportName(this.id, labelIdentityHash(normalizedLabel)));
  }

  /** Creates or refreshes `member-announce-from-<id>` with touch-ts = `at` (RFC 3339). */
  async announce(at = new Date()): Promise<void> {
    const path = `${MC}/${this.leaderNs}/memberclusterannounces`;
    const name = announceName(this.id);
    const touch = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const cur = await this.req('GET', `${path}/${name}`);
    if (cur.status === 404) {
      const r = await this.req('POST', path, {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
        kind: 'MemberClusterAnnounce',
        metadata: { name, namespace: this.leaderNs, annotations: { [TOUCH_TS_ANNOTATION]: touch } },
        clusterID: this.id,
        clusterSetID: this.clusterSetId,
        leaderClusterID: this.leaderId,
      });
      if (r.status !== 201) fail(`member ${this.id}: create announce`, r);
      return;
    }
    if (cur.status !== 200) fail(`member ${this.id}: get announce`, cur);
    const obj = cur.json as { metadata: { annotations?: Record<string, string> } };
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TOUCH_TS_ANNOTATION]: touch };
    const r = await this.req('PUT', `${path}/${name}`, obj);
    if (r.status !== 200 && r.status !== 409) fail(`member ${this.id}: refresh announce`, r);
  }

  /**
   * What the member controller does in the leader once its ClusterSet is deleted
   * (member/clusterset_controller.go cleanUpResources, Antrea v2.7): it deletes its announce with
   * its token, leaving its exports to the leader ("Any ResourceExports belong to this member cluster
   * will be cleaned up by the leader cluster when the MemberClusterAnnounce is deleted"), and stops
   * its common area, whose refresh of the announce stops with it. NotFound counts as done; any other
   * answer is returned, and the member's reconcile retries (controller-runtime's requeue).
   */
  async deleteAnnounce(): Promise<Response> {
    this.stopAnnouncing();
    return this.req('DELETE', `${MC}/${this.leaderNs}/memberclusterannounces/${announceName(this.id)}`);
  }

  /** Refreshes the announce every `ms` (Antrea: 10 s) until stopAnnouncing(). */
  startAnnouncing(ms = 10_000): void {
    this.stopAnnouncing();
    this.timer = setInterval(() => void this.announce().catch(() => undefined), ms);
  }

  stopAnnouncing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
