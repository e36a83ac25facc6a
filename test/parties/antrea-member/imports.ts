/**
 * What Antrea v2.7's member controller writes into its own cluster for the leader's ResourceImports,
 * and the Events it posts into the leader namespace (antrea-mc.md §c.3; member/resourceimport_controller.go,
 * acnp_resourceimport_controller.go, clusterinfo_importer.go, labelidentity_import_controller.go):
 * pure, so the unit tests build a live cluster from it and the e2e tests write exactly it.
 *
 * - ServiceImport RI `<ns>-<svc>-service` → Service `<ns>/antrea-mc-<svc>` (annotation
 *   `multicluster.antrea.io/imported-service: "true"`, type ClusterIP, ports {name, port, protocol},
 *   no selector) and ServiceImport `<ns>/<svc>` (the RI's spec plus `ips: [<that Service's ClusterIP>]`);
 * - Endpoints RI → Endpoints `<ns>/antrea-mc-<svc>` (same annotation, the RI's subsets verbatim);
 * - ACNP RI → ClusterNetworkPolicy `antrea-mc-<name>` (annotation `multicluster.antrea.io/imported-acnp`,
 *   the RI's spec verbatim) when its Tier exists; otherwise a Warning Event `ACNPImportFailed` in the
 *   leader namespace, involvedObject the RI, and no policy;
 * - ClusterInfo RI of another cluster → ClusterInfoImport `<src>-clusterinfo` in the member namespace;
 * - LabelIdentity RI `<hash>` → LabelIdentity `<hash>` {label, id}.
 */
import { IMPORTED_ACNP_ANNOTATION } from '../../../lib/names';

type Obj = Record<string, unknown>;

export const IMPORTED_SERVICE = 'multicluster.antrea.io/imported-service';
export const IMPORTED_ACNP = IMPORTED_ACNP_ANNOTATION;

export interface MemberWrites {
  /** Services first (their ClusterIP goes into the ServiceImport's `ips`). */
  readonly services: Obj[];
  /** ServiceImports without `ips`: the writer adds the ClusterIP of `antrea-mc-<name>`. */
  readonly serviceImports: Obj[];
  readonly endpoints: Obj[];
  readonly policies: Obj[];
  readonly clusterInfoImports: Obj[];
  readonly labelIdentities: Obj[];
  /** Events for the leader namespace. */
  readonly events: Obj[];
}

export interface MemberContext {
  readonly memberId: string;
  readonly leaderNs: string;
  readonly memberNs: string;
  /** Tier names present in the member (built-in ones included). */
  readonly tiers: ReadonlySet<string>;
  /** Namespaces that exist in the member: imports into a missing one fail. */
  readonly namespaces: ReadonlySet<string>;
  readonly now: Date;
}

const spec = (o: Obj): Obj => (o.spec as Obj | undefined) ?? {};
const nameOf = (o: Obj): string => ((o.metadata as Obj | undefined)?.name as string | undefined) ?? '';

export function memberWrites(ris: readonly Obj[], c: MemberContext): MemberWrites {
  const w: MemberWrites = {
    services: [],
    serviceImports: [],
    endpoints: [],
    policies: [],
    clusterInfoImports: [],
    labelIdentities: [],
    events: [],
  };
  const sorted = [...ris].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
  for (const ri of sorted) {
    const s = spec(ri);
    const riName = nameOf(ri);
    switch (s.kind) {
      case 'ServiceImport': {
        const ns = String(s.namespace);
        if (!c.namespaces.has(ns)) break;
        const si = ((s.serviceImport as Obj | undefined)?.spec as Obj | undefined) ?? {};
        const ports = ((si.ports as Obj[] | undefined) ?? []).map((p) => ({
          ...(p.name !== undefined ? { name: p.name } : {}),
          port: p.port,
          protocol: p.protocol,
        }));
        w.services.push({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: `antrea-mc-${String(s.name)}`,
            namespace: ns,
            annotations: { [IMPORTED_SERVICE]: 'true' },
          },
          spec: { type: 'ClusterIP', ports },
        });
        w.serviceImports.push({
          apiVersion: 'multicluster.x-k8s.io/v1alpha1',
          kind: 'ServiceImport',
          metadata: { name: String(s.name), namespace: ns },
          spec: si,
        });
        break;
      }
      case 'Endpoints': {
        const ns = String(s.namespace);
        if (!c.namespaces.has(ns)) break;
        w.endpoints.push({
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: {
            name: `antrea-mc-${String(s.name)}`,
            namespace: ns,
            annotations: { [IMPORTED_SERVICE]: 'true' },
          },
          subsets: (s.endpoints as Obj | undefined)?.subsets ?? [],
        });
        break;
      }
      case 'AntreaClusterNetworkPolicy': {
        const policy = s.clusternetworkpolicy as Obj | undefined;
        if (!policy) break;
        const tier = String(policy.tier ?? 'application');
        if (c.tiers.has(tier)) {
          w.policies.push({
            apiVersion: 'crd.antrea.io/v1beta1',
            kind: 'ClusterNetworkPolicy',
            metadata: { name: `antrea-mc-${String(s.name)}`, annotations: { [IMPORTED_ACNP]: 'true' } },
            spec: policy,
          });
        } else {
          const nanos = BigInt(c.now.getTime()) * 1_000_000n;
          const micro = c.now.toISOString().replace(/Z$/, '000Z');
          w.events.push({
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name: `${riName}.${nanos.toString(16)}`, namespace: c.leaderNs },
            involvedObject: {
              apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
              kind: 'ResourceImport',
              name: riName,
              namespace: c.leaderNs,
              uid: ((ri.metadata as Obj | undefined)?.uid as string | undefined) ?? '',
            },
            type: 'Warning',
            reason: 'ACNPImportFailed',
            message: `ACNP Tier ${tier} does not exist in importing cluster ${c.memberId}`,
            action: 'synced',
            reportingComponent: 'resourceimport-controller',
            reportingInstance: 'antrea-mc-controller',
            eventTime: micro,
          });
        }
        break;
      }
      case 'ClusterInfo': {
        const info = s.clusterinfo as Obj | undefined;
        if (!info || info.clusterID === c.memberId) break;
        w.clusterInfoImports.push({
          apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
          kind: 'ClusterInfoImport',
          metadata: { name: riName, namespace: c.memberNs },
          spec: info,
        });
        break;
      }
      case 'LabelIdentity': {
        const li = s.labelIdentity as Obj | undefined;
        if (!li) break;
        w.labelIdentities.push({
          apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
          kind: 'LabelIdentity',
          metadata: { name: riName },
          spec: { label: li.label, id: li.id },
        });
        break;
      }
    }
  }
  return w;
}

/**
 * The status Antrea's member writes on its own ClusterSet every 30 s (member/clusterset_controller.go
 * updateStatus; commonarea/remote_common_area.go): the leader's Ready and IsLeader conditions, one
 * overall Ready, totalClusters 1. `since` is when the connection last changed, which is each
 * condition's lastTransitionTime (the remote common area sets it then, and the process that starts
 * sets it anew): not the time of the write.
 */
export function memberClusterSetStatus(
  leaderId: string,
  connected: boolean,
  generation: number,
  since: Date,
): Obj {
  const t = since.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const ready = connected
    ? { type: 'Ready', status: 'True', message: '', reason: '', lastTransitionTime: t }
    : {
        type: 'Ready',
        status: 'False',
        message: 'connection refused',
        reason: 'Disconnected',
        lastTransitionTime: t,
      };
  return {
    observedGeneration: generation,
    clusterStatuses: [
      {
        clusterID: leaderId,
        conditions: [
          ready,
          {
            type: 'IsLeader',
            status: 'True',
            message: 'This leader cluster is the leader for local cluster',
            reason: '',
            lastTransitionTime: t,
          },
        ],
      },
    ],
    conditions: [
      connected
        ? { type: 'Ready', status: 'True', message: '', reason: '', lastTransitionTime: t }
        : {
            type: 'Ready',
            status: 'False',
            message: 'Disconnected from leader',
            reason: '',
            lastTransitionTime: t,
          },
    ],
    totalClusters: 1,
    readyClusters: connected ? 1 : 0,
  };
}

/** ServiceExport `status.conditions[type=Valid]` as the member writes it (antrea-mc.md §c.1). */
export function serviceExportStatus(now: Date, failure?: { reason: string; message: string }): Obj {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    conditions: [
      failure
        ? {
            type: 'Valid',
            status: 'False',
            reason: failure.reason,
            message: failure.message,
            lastTransitionTime: t,
          }
        : {
            type: 'Valid',
            status: 'True',
            reason: 'Succeed',
            message: 'The Service is exported successfully',
            lastTransitionTime: t,
          },
    ],
  };
}
