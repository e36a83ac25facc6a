/**
 * Running ClusterSets as snapshots, built exactly as Antrea v2.7's leader and member controllers,
 * `antctl` and the user guide leave their objects (antrea-mc.md §b, §c, §d, §e, §i): names, labels,
 * annotations, finalizers; imports written by `antrea-mc-controller` with Update (managedFields), no
 * labels, annotations, finalizers or ownerReferences on them; Secrets as metadata only.
 *
 * GIVEN set: leader `hub` (no member), members `east` and `west`, each behind a Multi-cluster Gateway
 * with ClusterIP endpoints; `shop/cart` exported from both; baseline policy `guard-rails` in custom
 * Tier `mc-baseline`, replicated through the leader; stretched policy `cart-stretched` in `east`
 * naming ClusterGroup `cart-pods`; one label identity exported by `east`.
 */
import { labelIdentityHash } from '../../lib/names';
import type { LiveObject, LiveSnapshot } from '../../lib/import/snapshot';
import { multiClusterConfig } from '../parties/antrea-manifests';

export const READ_AT = '2026-09-01T12:00:00Z';
const CREATED = '2026-08-01T09:00:00Z';
const MC1 = 'multicluster.crd.antrea.io/v1alpha1';
const MC2 = 'multicluster.crd.antrea.io/v1alpha2';
const LNS = 'antrea-multicluster';
const MNS = 'kube-system';

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string };
  [k: string]: unknown;
};

export interface Fixture {
  leader: Obj[];
  members: Record<string, Obj[]>;
  servers: Record<string, string>;
  readAt: string;
}

let uid = 0;
function meta(name: string, namespace?: string, extra: Record<string, unknown> = {}): Obj['metadata'] {
  uid++;
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: `00000000-0000-4000-8000-${String(uid).padStart(12, '0')}`,
    resourceVersion: String(1000 + uid),
    creationTimestamp: CREATED,
    ...extra,
  };
}

/** A ResourceImport as Antrea's leader writes it: Create/Update by its client, nothing but name and namespace. */
export function resourceImport(name: string, spec: Record<string, unknown>): Obj {
  return {
    apiVersion: MC1,
    kind: 'ResourceImport',
    metadata: meta(name, LNS, {
      generation: 1,
      managedFields: [
        {
          manager: 'antrea-mc-controller',
          operation: 'Update',
          apiVersion: MC1,
          time: CREATED,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': {} },
        },
      ],
    }),
    spec,
  };
}

const succeeded = { conditions: [{ type: 'Succeeded', status: 'True', lastTransitionTime: CREATED }] };

/** A member's Service export (§c.1), with the leader's status. */
export function serviceExport(
  id: string,
  ns: string,
  name: string,
  ports: unknown[],
  status: unknown = succeeded,
): Obj {
  return {
    apiVersion: MC1,
    kind: 'ResourceExport',
    metadata: meta(`${id}-${ns}-${name}-service`, LNS, {
      labels: { sourceName: name, sourceNamespace: ns, sourceClusterID: id, sourceKind: 'Service' },
      finalizers: ['resourceexport.antrea.io/finalizer'],
    }),
    spec: { clusterID: id, name, namespace: ns, kind: 'Service', service: { serviceSpec: { ports } } },
    status,
  };
}

export function endpointsExport(id: string, ns: string, name: string, ip: string): Obj {
  return {
    apiVersion: MC1,
    kind: 'ResourceExport',
    metadata: meta(`${id}-${ns}-${name}-endpoints`, LNS, {
      labels: { sourceName: name, sourceNamespace: ns, sourceClusterID: id, sourceKind: 'Endpoints' },
      finalizers: ['resourceexport.antrea.io/finalizer'],
    }),
    spec: {
      clusterID: id,
      name,
      namespace: ns,
      kind: 'Endpoints',
      endpoints: {
        subsets: [{ addresses: [{ ip }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
      },
    },
    status: succeeded,
  };
}

export function subsets(...ips: string[]): unknown[] {
  return ips.map((ip) => ({ addresses: [{ ip }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }));
}

function clusterInfo(id: string, n: number): Record<string, unknown> {
  return {
    clusterID: id,
    serviceCIDR: `10.${100 + n}.0.0/16`,
    gatewayInfos: [{ gatewayIP: `192.0.2.${n}` }],
    podCIDRs: [''],
  };
}

export const LABEL = 'ns:kubernetes.io/metadata.name=shop&pod:app=cart';
export const LABEL_HASH = labelIdentityHash(LABEL);

export function labelExport(id: string, label: string): Obj {
  return {
    apiVersion: MC1,
    kind: 'ResourceExport',
    metadata: meta(`${id}-${labelIdentityHash(label)}`, LNS, {
      labels: { sourceKind: 'LabelIdentity', sourceClusterID: id },
    }),
    spec: { clusterID: id, kind: 'LabelIdentity', labelIdentity: { normalizedLabel: label } },
  };
}

/** The baseline policy as an admin wrote it into the ACNP ResourceExport (ports with their protocol). */
export function guardRails(): Record<string, unknown> {
  return {
    tier: 'mc-baseline',
    priority: 10,
    appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
    ingress: [
      {
        name: 'allow-shop',
        action: 'Allow',
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
        ports: [{ protocol: 'TCP', port: 8443 }],
      },
    ],
    egress: [
      {
        name: 'dns',
        action: 'Allow',
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
        ports: [{ protocol: 'UDP', port: 53 }],
      },
    ],
  };
}

function stretched(): Record<string, unknown> {
  return {
    tier: 'application',
    priority: 20,
    appliedTo: [{ group: 'cart-pods' }],
    ingress: [
      {
        name: 'from-web',
        action: 'Allow',
        from: [{ scope: 'ClusterSet', podSelector: { matchLabels: { app: 'web' } } }],
        ports: [{ protocol: 'TCP', port: 8080 }],
      },
    ],
    egress: [
      {
        name: 'to-cart',
        action: 'Allow',
        toServices: [{ name: 'cart', namespace: 'shop', scope: 'ClusterSet' }],
      },
    ],
  };
}

function mcConfig(n: number, stretchedOn: boolean, leader = false): string {
  return multiClusterConfig({
    stretched: stretchedOn,
    ...(leader ? {} : { serviceCIDR: `10.${100 + n}.0.0/16` }),
  });
}

function deployment(ns: string, role: 'leader' | 'member', version: string): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta('antrea-mc-controller', ns, {
      labels: { app: 'antrea', component: 'antrea-mc-controller' },
    }),
    spec: {
      replicas: 1,
      template: {
        spec: {
          serviceAccountName: 'antrea-mc-controller',
          terminationGracePeriodSeconds: 10,
          containers: [
            {
              name: 'antrea-mc-controller',
              image: `antrea/antrea-mc-controller:v${version}`,
              args: [role, '--config=/controller_manager_config.yaml', '-v=0'],
            },
          ],
        },
      },
    },
  };
}

function configMap(ns: string, text: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta('antrea-mc-controller-config', ns, { labels: { app: 'antrea' } }),
    data: { 'controller_manager_config.yaml': text },
  };
}

/** A member identity the antctl way (`antctl mc create membertoken NAME --cluster-id ID`) or the user guide's kubectl way. */
export function identity(id: string, way: 'antctl' | 'kubectl'): Obj[] {
  const antctl = way === 'antctl' ? { 'multicluster.antrea.io/created-by-antctl': 'true' } : {};
  const sa = way === 'antctl' ? `${id}-membertoken` : `member-${id}`;
  const secret = way === 'antctl' ? sa : `member-${id}-token`;
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta(sa, LNS, { annotations: { ...antctl, 'multicluster.antrea.io/cluster-id': id } }),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(sa, LNS, Object.keys(antctl).length ? { annotations: antctl } : {}),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-member-cluster-role' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: LNS }],
    },
    {
      // Metadata only, as `clusterset import` reads Secrets.
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(secret, LNS, {
        annotations: {
          ...antctl,
          'kubernetes.io/service-account.name': sa,
          'kubernetes.io/service-account.uid': 'x',
        },
      }),
    },
  ];
}

/** The token Secret name in the member (antctl join writes the membertoken file's name). */
export function memberSecretName(id: string, way: 'antctl' | 'kubectl'): string {
  return way === 'antctl' ? `${id}-membertoken` : `member-${id}-token`;
}

function announce(id: string, touch: string): Obj {
  return {
    apiVersion: MC1,
    kind: 'MemberClusterAnnounce',
    metadata: meta(`member-announce-from-${id}`, LNS, {
      annotations: { 'touch-ts': touch },
      finalizers: [`memberclusterannounce.finalizer.antrea.io/${id}`],
    }),
    clusterID: id,
    clusterSetID: 'test-set',
    leaderClusterID: 'hub',
  };
}

function member(id: string, n: number, way: 'antctl' | 'kubectl', version: string): Obj[] {
  const out: Obj[] = [
    {
      apiVersion: MC2,
      kind: 'ClusterSet',
      metadata: meta('test-set', MNS, { generation: 1 }),
      spec: {
        clusterID: id,
        leaders: [
          { clusterID: 'hub', secret: memberSecretName(id, way), server: 'https://hub.example.com:6443' },
        ],
        namespace: LNS,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(
        memberSecretName(id, way),
        MNS,
        way === 'antctl' ? { annotations: { 'multicluster.antrea.io/created-by-antctl': 'true' } } : {},
      ),
    },
    configMap(MNS, mcConfig(n, true)),
    deployment(MNS, 'member', version),
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: meta(`${id}-node-1`, undefined, {
        annotations: { 'multicluster.antrea.io/gateway': 'true' },
      }),
    },
    { apiVersion: 'v1', kind: 'Node', metadata: meta(`${id}-node-2`) },
    {
      apiVersion: MC1,
      kind: 'Gateway',
      metadata: meta(`${id}-node-1`, MNS),
      gatewayIP: `192.0.2.${n}`,
      internalIP: `192.0.2.${n}`,
      serviceCIDR: `10.${100 + n}.0.0/16`,
    },
    {
      apiVersion: 'multicluster.x-k8s.io/v1alpha1',
      kind: 'ServiceExport',
      metadata: meta('cart', 'shop'),
      status: { conditions: [{ type: 'Valid', status: 'True', reason: 'Succeed' }] },
    },
    {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Tier',
      metadata: meta('mc-baseline'),
      spec: { priority: 101, description: 'ClusterSet-wide guard rails' },
    },
    {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: meta('antrea-mc-guard-rails', undefined, {
        annotations: { 'multicluster.antrea.io/imported-acnp': 'true' },
      }),
      spec: guardRails(),
    },
  ];
  if (id === 'east')
    out.push(
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: meta('cart-stretched'),
        spec: stretched(),
      },
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterGroup',
        metadata: meta('cart-pods'),
        spec: { podSelector: { matchLabels: { app: 'cart' } } },
      },
    );
  return out;
}

/** GIVEN the clean set, with identities made `way`, every controller at `version`. */
export function cleanSet(way: 'antctl' | 'kubectl', version = '2.7.0'): Fixture {
  const leader: Obj[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: meta(LNS) },
    {
      apiVersion: MC2,
      kind: 'ClusterSet',
      metadata: meta('test-set', LNS, { generation: 1 }),
      spec: { clusterID: 'hub', leaders: [{ clusterID: 'hub' }], namespace: LNS },
    },
    deployment(LNS, 'leader', version),
    configMap(LNS, mcConfig(0, true, true)),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta('antrea-mc-member-cluster-role', LNS, { labels: { app: 'antrea' } }),
      rules: [],
    },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta('antrea-mc-controller', LNS, { labels: { app: 'antrea' } }),
    },
    ...identity('east', way),
    ...identity('west', way),
    announce('east', '2026-09-01T11:59:55Z'),
    announce('west', '2026-09-01T11:59:58Z'),
    serviceExport('east', 'shop', 'cart', [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }]),
    serviceExport('west', 'shop', 'cart', [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }]),
    endpointsExport('east', 'shop', 'cart', '10.101.0.10'),
    endpointsExport('west', 'shop', 'cart', '10.102.0.10'),
    ...['east', 'west'].map((id, i) => ({
      apiVersion: MC1,
      kind: 'ResourceExport',
      metadata: meta(`${id}-clusterinfo`, LNS, {
        labels: { sourceKind: 'ClusterInfo', sourceClusterID: id },
        finalizers: ['resourceexport.antrea.io/finalizer'],
      }),
      spec: {
        clusterID: id,
        name: id,
        namespace: MNS,
        kind: 'ClusterInfo',
        clusterInfo: clusterInfo(id, i + 1),
      },
    })),
    labelExport('east', LABEL),
    {
      apiVersion: MC1,
      kind: 'ResourceExport',
      metadata: meta('guard-rails-for-test-set', LNS, {
        labels: { sourceName: 'guard-rails', sourceNamespace: '', sourceKind: 'AntreaClusterNetworkPolicy' },
        finalizers: ['resourceexport.antrea.io/finalizer'],
      }),
      spec: { kind: 'AntreaClusterNetworkPolicy', name: 'guard-rails', clusterNetworkPolicy: guardRails() },
      status: succeeded,
    },
    resourceImport('shop-cart-service', {
      name: 'cart',
      namespace: 'shop',
      kind: 'ServiceImport',
      serviceImport: {
        spec: { ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], type: 'ClusterSetIP' },
      },
    }),
    resourceImport('shop-cart-endpoints', {
      name: 'cart',
      namespace: 'shop',
      kind: 'Endpoints',
      endpoints: { subsets: subsets('10.101.0.10', '10.102.0.10') },
    }),
    ...['east', 'west'].map((id, i) =>
      resourceImport(`${id}-clusterinfo`, {
        kind: 'ClusterInfo',
        name: `${id}-clusterinfo`,
        namespace: LNS,
        clusterinfo: clusterInfo(id, i + 1),
      }),
    ),
    resourceImport(LABEL_HASH, { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 1 } }),
    resourceImport('guard-rails-antreaclusternetworkpolicy', {
      name: 'guard-rails',
      kind: 'AntreaClusterNetworkPolicy',
      clusternetworkpolicy: guardRails(),
    }),
  ];
  return {
    leader,
    members: { east: member('east', 1, way, version), west: member('west', 2, way, version) },
    servers: {
      hub: 'https://hub.example.com:6443',
      east: 'https://east.example.com:6443',
      west: 'https://west.example.com:6443',
    },
    readAt: READ_AT,
  };
}

export function snapshot(f: Fixture): LiveSnapshot {
  return {
    readAt: f.readAt,
    leader: { context: 'hub-admin', server: f.servers.hub!, objects: f.leader as unknown as LiveObject[] },
    members: Object.fromEntries(
      Object.entries(f.members).map(([id, objects]) => [
        id,
        { context: `${id}-admin`, server: f.servers[id]!, objects: objects as unknown as LiveObject[] },
      ]),
    ),
  };
}

/** The object of `kind` named `name` in a list (throws when missing, so a fixture edit cannot silently miss). */
export function obj(objects: Obj[], kind: string, name: string): Obj {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`fixture has no ${kind} ${name}`);
  return o;
}

/** A deterministic shuffle (seeded), so that the determinism test is itself reproducible. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * GIVEN `f`, each member also holds what its member controller imported from the leader's imports
 * (antrea-mc.md §i): Service `shop/antrea-mc-cart` (annotated, its own ClusterIP), ServiceImport
 * `shop/cart` with that IP in `spec.ips`, Endpoints `shop/antrea-mc-cart` with the import's
 * addresses, the LabelIdentity with its ID, and the other member's ClusterInfoImport.
 */
export function withMemberImports(f: Fixture): Fixture {
  const annotations = { 'multicluster.antrea.io/imported-service': 'true' };
  for (const [i, id] of ['east', 'west'].entries()) {
    const other = id === 'east' ? 'west' : 'east';
    const ip = `10.${101 + i}.200.1`;
    f.members[id]!.push(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta('antrea-mc-cart', 'shop', { annotations }),
        spec: { type: 'ClusterIP', clusterIP: ip, ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
      },
      {
        apiVersion: 'multicluster.x-k8s.io/v1alpha1',
        kind: 'ServiceImport',
        metadata: meta('cart', 'shop'),
        spec: { type: 'ClusterSetIP', ips: [ip], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: meta('antrea-mc-cart', 'shop', { annotations }),
        subsets: subsets('10.101.0.10', '10.102.0.10'),
      },
      { apiVersion: MC1, kind: 'LabelIdentity', metadata: meta(LABEL_HASH), spec: { label: LABEL, id: 1 } },
      {
        apiVersion: MC1,
        kind: 'ClusterInfoImport',
        metadata: meta(`${other}-clusterinfo`, MNS),
        spec: clusterInfo(other, other === 'east' ? 1 : 2),
      },
    );
  }
  return f;
}
