/**
 * A healthy live ClusterSet, built in memory for the status report's unit tests: every bundle object
 * as Argo CD's server-side apply leaves it, what the members write into the leader (announces,
 * exports with the reconciler's statuses), and what Antrea's member writes into its own cluster for
 * the leader's imports (test/parties/antrea-member/imports.ts). Scenarios then break one thing each.
 */
import { compile } from '../../lib/compile';
import {
  announceName,
  BUILTIN_TIERS,
  clusterInfoName,
  endpointsImportName,
  labelIdentityExportName,
  labelIdentityHash,
  RECONCILER_NAME,
  RESTART_RECORD_ANNOTATION,
  serviceExportName,
  TOUCH_TS_ANNOTATION,
} from '../../lib/names';
import type { Plan } from '../../lib/plan';
import { plan as makePlan } from '../../lib/plan';
import {
  bundleKey,
  bundlesFromFiles,
  isUnread,
  kindKey,
  RESTART_POD_SELECTOR,
  SERVICE_EXPORTS_ALL,
  type BundleObject,
  type ClusterRead,
  type Obj,
} from '../../lib/status/live';
import type { ClusterSetProps } from '../../lib/model';
import { memberClusterSetStatus, memberWrites, serviceExportStatus } from '../parties/antrea-member/imports';

export const NOW = Date.parse('2026-12-04T12:00:00Z');
const at = (msAgo: number) => new Date(NOW - msAgo).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface LiveSet {
  readonly plan: Plan;
  readonly bundles: Map<string, BundleObject[]>;
  /** Cluster ID → collection key → items (mutable, for scenarios). */
  readonly lists: Map<string, Map<string, Obj[]>>;
  readonly unreachable: Map<string, string>;
}

/** A fake ClusterIP per (cluster, Service), stable. */
export function clusterIp(cluster: string, ns: string, name: string): string {
  let h = 0;
  for (const ch of `${cluster}/${ns}/${name}`) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `10.${(h >>> 16) & 255}.${(h >>> 8) & 255}.${h & 255 || 1}`;
}

const applied = (o: Obj): Obj => {
  const copy = structuredClone(o);
  const md = (copy.metadata ?? {}) as Obj;
  md.managedFields = [
    { manager: 'argocd-controller', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} },
  ];
  copy.metadata = md;
  return copy;
};

export function liveSet(model: ClusterSetProps): LiveSet {
  const r = compile(model);
  if (r.diagnostics.length > 0) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  const plan = makePlan(model);
  const bundles = bundlesFromFiles(r.files, plan);
  const lists = new Map<string, Map<string, Obj[]>>();
  const put = (cluster: string, key: string, o: Obj) => {
    const m = lists.get(cluster) ?? new Map<string, Obj[]>();
    lists.set(cluster, m);
    const l = m.get(key) ?? [];
    m.set(key, l);
    l.push(o);
  };
  const touch = (cluster: string, key: string) => {
    const m = lists.get(cluster) ?? new Map<string, Obj[]>();
    lists.set(cluster, m);
    if (!m.has(key)) m.set(key, []);
  };
  for (const [id, objs] of bundles)
    for (const o of objs) if (!isUnread(o)) put(id, bundleKey(o)!, applied(o.object));
  const L = plan.leader.id;
  const lns = plan.leaderNamespace;
  for (const kind of ['MemberClusterAnnounce', 'ResourceExport', 'ResourceImport', 'Lease'])
    touch(L, kindKey(kind, lns));
  touch(L, kindKey('Event', lns, 'reason=ACNPImportFailed'));
  const leaderList = (kind: string) => lists.get(L)!.get(kindKey(kind, lns))!;
  // The reconciler creates its Lease (lib/reconciler/election.ts); no bundle holds it.
  put(L, kindKey('Lease', lns), {
    metadata: { name: RECONCILER_NAME, namespace: lns },
    spec: {
      holderIdentity: 'clusterset-reconciler-7c9f-x2x8q',
      leaseDurationSeconds: 15,
      renewTime: `${at(2000).slice(0, -1)}.000000Z`,
    },
  });
  const cs = leaderList('ClusterSet').find((o) => (o.metadata as Obj).name === plan.clusterSetId)!;
  cs.status = {
    clusterStatuses: plan.members.map((m) => ({
      clusterID: m.id,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Connected', message: 'Member Connected' }],
    })),
    conditions: [{ type: 'Ready', status: 'True' }],
  };
  for (const m of plan.members) {
    put(L, kindKey('MemberClusterAnnounce', lns), {
      metadata: {
        name: announceName(m.id),
        namespace: lns,
        annotations: { [TOUCH_TS_ANNOTATION]: at(4000) },
      },
      clusterID: m.id,
      clusterSetID: plan.clusterSetId,
      leaderClusterID: L,
    });
    const info = {
      clusterID: m.id,
      serviceCIDR: m.serviceCIDR ?? '',
      gatewayInfos: [{ gatewayIP: clusterIp(m.id, 'gw', 'gw') }],
    };
    put(L, kindKey('ResourceExport', lns), {
      metadata: { name: clusterInfoName(m.id), namespace: lns },
      spec: {
        kind: 'ClusterInfo',
        clusterID: m.id,
        name: m.id,
        namespace: plan.memberNamespace,
        clusterInfo: info,
      },
      status: { conditions: [{ type: 'Succeeded', status: 'True' }] },
    });
    put(L, kindKey('ResourceImport', lns), {
      metadata: { name: clusterInfoName(m.id), namespace: lns },
      spec: { kind: 'ClusterInfo', name: clusterInfoName(m.id), namespace: lns, clusterinfo: info },
    });
  }
  const label = 'ns:kubernetes.io/metadata.name=shop&pod:app=cart';
  const hash = labelIdentityHash(label);
  for (const m of plan.members)
    put(L, kindKey('ResourceExport', lns), {
      metadata: { name: labelIdentityExportName(m.id, hash), namespace: lns },
      spec: { kind: 'LabelIdentity', clusterID: m.id, labelIdentity: { normalizedLabel: label } },
    });
  put(L, kindKey('ResourceImport', lns), {
    metadata: { name: hash, namespace: lns },
    spec: { kind: 'LabelIdentity', labelIdentity: { label, id: 1 } },
  });
  for (const s of plan.services) {
    const subsets: Obj[] = [];
    for (const id of s.exportedFrom) {
      const ports = s.ports.map((p) => ({
        ...(p.name ? { name: p.name } : {}),
        port: p.port,
        protocol: p.protocol,
      }));
      put(L, kindKey('ResourceExport', lns), {
        metadata: { name: serviceExportName(id, s.namespace, s.name, 'service'), namespace: lns },
        spec: {
          clusterID: id,
          name: s.name,
          namespace: s.namespace,
          kind: 'Service',
          service: { serviceSpec: { ports } },
        },
        status: { conditions: [{ type: 'Succeeded', status: 'True' }] },
      });
      const subset = { addresses: [{ ip: clusterIp(id, s.namespace, s.name) }], ports };
      subsets.push(subset);
      put(L, kindKey('ResourceExport', lns), {
        metadata: { name: serviceExportName(id, s.namespace, s.name, 'endpoints'), namespace: lns },
        spec: {
          clusterID: id,
          name: s.name,
          namespace: s.namespace,
          kind: 'Endpoints',
          endpoints: { subsets: [subset] },
        },
      });
    }
    if (subsets.length > 0)
      put(L, kindKey('ResourceImport', lns), {
        metadata: { name: endpointsImportName(s.namespace, s.name), namespace: lns },
        spec: { name: s.name, namespace: s.namespace, kind: 'Endpoints', endpoints: { subsets } },
      });
  }
  const ris = leaderList('ResourceImport');
  for (const m of plan.members) {
    const mine = lists.get(m.id) ?? new Map<string, Obj[]>();
    lists.set(m.id, mine);
    const tiers = new Set([
      ...BUILTIN_TIERS,
      ...(mine.get(kindKey('Tier')) ?? []).map((t) => String((t.metadata as Obj).name)),
    ]);
    const w = memberWrites(ris, {
      memberId: m.id,
      leaderNs: lns,
      memberNs: plan.memberNamespace,
      tiers,
      namespaces: new Set(plan.serviceNamespaces),
      now: new Date(NOW),
    });
    for (const kind of ['ClusterNetworkPolicy', 'Tier', 'LabelIdentity']) touch(m.id, kindKey(kind));
    touch(m.id, kindKey('ClusterInfoImport', plan.memberNamespace));
    touch(m.id, kindKey('ClusterSet', plan.memberNamespace));
    for (const ns of plan.serviceNamespaces)
      for (const kind of ['Service', 'Endpoints', 'ServiceImport', 'ServiceExport'])
        touch(m.id, kindKey(kind, ns));
    for (const o of w.services) put(m.id, kindKey('Service', (o.metadata as Obj).namespace as string), o);
    for (const o of w.serviceImports) {
      const md = o.metadata as { name: string; namespace: string };
      put(m.id, kindKey('ServiceImport', md.namespace), {
        ...o,
        spec: { ...(o.spec as Obj), ips: [clusterIp(m.id, md.namespace, `antrea-mc-${md.name}`)] },
      });
    }
    for (const o of w.endpoints) put(m.id, kindKey('Endpoints', (o.metadata as Obj).namespace as string), o);
    for (const o of w.policies) put(m.id, kindKey('ClusterNetworkPolicy'), o);
    for (const o of w.clusterInfoImports) put(m.id, kindKey('ClusterInfoImport', plan.memberNamespace), o);
    if (m.enableStretchedNetworkPolicy)
      for (const o of w.labelIdentities) put(m.id, kindKey('LabelIdentity'), o);
    for (const o of w.events) put(L, kindKey('Event', lns, 'reason=ACNPImportFailed'), o);
    for (const o of mine.get(kindKey('ClusterSet', plan.memberNamespace)) ?? [])
      o.status = memberClusterSetStatus(L, true, 1, new Date(NOW - 20_000));
    for (const ns of plan.serviceNamespaces)
      for (const o of mine.get(kindKey('ServiceExport', ns)) ?? [])
        o.status = serviceExportStatus(new Date(NOW - 60_000));
    // Every ServiceExport again, as the all-namespace list reads them.
    touch(m.id, SERVICE_EXPORTS_ALL);
    for (const ns of plan.serviceNamespaces)
      for (const o of mine.get(kindKey('ServiceExport', ns)) ?? []) put(m.id, SERVICE_EXPORTS_ALL, o);
    // The restart Job ran: complete, its record `done` on the ClusterSet; its Pod is gone (Succeeded).
    touch(m.id, kindKey('Pod', plan.memberNamespace, RESTART_POD_SELECTOR));
    for (const o of mine.get(kindKey('Job', plan.memberNamespace)) ?? []) {
      o.status = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
      for (const cs of mine.get(kindKey('ClusterSet', plan.memberNamespace)) ?? []) {
        const md = cs.metadata as { annotations?: Record<string, string> };
        md.annotations = {
          ...md.annotations,
          [RESTART_RECORD_ANNOTATION]: `${String((o.metadata as Obj).name)} done`,
        };
      }
    }
  }
  return { plan, bundles, lists, unreachable: new Map() };
}

export function readsOf(s: LiveSet): Map<string, ClusterRead> {
  return new Map(
    s.plan.clusters.map((c): [string, ClusterRead] => {
      const why = s.unreachable.get(c.id);
      if (why !== undefined) return [c.id, { lists: new Map(), errors: new Map(), unreachable: why }];
      return [c.id, { lists: new Map(s.lists.get(c.id) ?? []), errors: new Map() }];
    }),
  );
}
