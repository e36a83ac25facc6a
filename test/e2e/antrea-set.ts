/**
 * A ClusterSet that Antrea's own leader ran, played on real API servers (test/kube), for the tests of
 * `clusterset import` and of the cut-over from Antrea's leader (issue 33). What each cluster holds is
 * what antrea-mc.md §b, §c, §d, §e and §i say `antctl` and Antrea v2.7's controllers leave there:
 *
 * - the leader as `antctl mc deploy leadercluster` leaves it: its CRDs (the vendored schemas), the
 *   Namespace, the controller's ServiceAccount, Roles and bindings, the member Role
 *   `antrea-mc-member-cluster-role`, ConfigMap `antrea-mc-controller-config`, Service
 *   `antrea-mc-webhook-service`, Deployment `antrea-mc-controller` (no Antrea image exists here: with
 *   no node in the leader its Pod stays Pending, as a leader whose controller went away; with
 *   `leaderRuns` the leader's node holds the played leader's image under Antrea's name, and its Pod
 *   runs the played leader, which waits for the test's start signal: parties/antrea-leader/pod.ts), all
 *   labelled `app: antrea`, created one by one (antctl creates each object, field manager `antctl`);
 *   then `antctl mc init`'s leader ClusterSet;
 * - per member, its identity, the `antctl` way (`antctl mc create membertoken NAME --cluster-id ID`:
 *   ServiceAccount, RoleBinding and token Secret all NAME, annotated
 *   `multicluster.antrea.io/created-by-antctl: "true"`) or the user guide's `kubectl` way
 *   (`member-<id>` and `member-<id>-token`, `kubectl apply`); the token is the one the leader's
 *   kube-controller-manager fills in;
 * - each member as Antrea's member manifest and `antctl mc join` leave it: member CRDs, the member
 *   controller's ConfigMap (stretched policy on) and Deployment, the token Secret copied into the member
 *   namespace under a per-member name (the `antctl` way: created by `join` with the antctl annotation; the
 *   `kubectl` way: `kubectl apply -f` of the file the user guide makes, so its last-applied annotation holds
 *   the token), then the member ClusterSet naming the leader, its server and that Secret;
 * - what Antrea's controllers wrote while they ran: each member's announce and exports with its own token
 *   (test/parties/antrea-member/in-leader.ts, §c.1), an admin's ACNP export as Antrea's mutating webhook
 *   completes it; Antrea's leader, with its ServiceAccount's token and field manager `antrea-mc-controller`,
 *   wrote the announce finalizers, the exports' status, every ResourceImport with Create then Update (no
 *   labels, annotations or finalizers; ServiceImport ports from the first exporter; Endpoints subsets
 *   concatenated; `status.clusterStatuses` only after an update), label identity IDs handed out as its
 *   allocator does (the smallest released first, else the next never used: here 1, 2, 3... in the order the
 *   labels first arrived), the ConfigMap `antrea-mc-ca` and its ClusterSet's status; each member's controller
 *   wrote what it imports (Services `antrea-mc-*`, ServiceImports with their ClusterIP, Endpoints, the ACNP,
 *   ClusterInfoImports, LabelIdentities), its Gateway, its ServiceExports' `Valid` condition and its
 *   ClusterSet's status.
 * - last, Antrea's webhook configurations, with their exact names and labels and `failurePolicy:
 *   Fail`, in the leader (role leader) and in each member (role member). Registered last, and not in
 *   the order Antrea's install registers them, on purpose: with no Pod behind
 *   `antrea-mc-webhook-service` they refuse every write they match (announces, exports, ClusterSets,
 *   Gateways). Every object above they would match was written, in the real set, while Antrea's
 *   Pods ran and admitted it; here no Pod can run, so those objects are written before the
 *   configurations exist. What the set looks like afterwards is the same: the objects, and webhooks
 *   failing closed.
 *
 * Nothing here runs afterwards: no controller refreshes the announces or reconciles anything.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  acnpImportName,
  announceFinalizer,
  CLUSTER_ID_ANNOTATION,
  clusterInfoName,
  endpointsImportName,
  labelIdentityExportName,
  labelIdentityHash,
  MEMBER_ROLE,
  RESOURCE_EXPORT_FINALIZER,
  serviceImportName,
} from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import { memberClusterSetStatus, memberWrites, serviceExportStatus } from '../parties/antrea-member/imports';
import type { Auth, Cluster, Response } from '../kube/cluster';
import { request, startClusters } from '../kube/cluster';
import { eventually } from '../kube/wait';
import {
  ANTREA_DEFAULT_MEMBER_CONFIG,
  antreaMemberConfigMap,
  antreaMemberDeployment,
  kubectlApply,
} from '../parties/antrea-member/install';
import { ANTREA_MEMBER_CRDS } from './crds';
import { tokenFor } from './fixture';
import { playedLeaderImage } from '../parties/antrea-leader/pod';
import { selfSigned } from './certs';
import { SimulatedMember, type ServicePort } from '../parties/antrea-member/in-leader';

const ROOT = path.resolve(__dirname, '..', '..');
type Obj = Record<string, unknown>;

export const CREATED_BY_ANTCTL = 'multicluster.antrea.io/created-by-antctl';
/** The field manager of what antctl creates (its client's user agent). */
export const ANTCTL_MANAGER = 'antctl';
/** The field manager of Antrea's controllers' writes (inference: their client's user agent). */
export const ANTREA_MANAGER = 'antrea-mc-controller';
export const LEADER_WEBHOOKS = {
  mutating: 'antrea-multicluster-antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-multicluster-antrea-mc-validating-webhook-configuration',
};
export const MEMBER_WEBHOOKS = {
  mutating: 'antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-mc-validating-webhook-configuration',
};
const LEADER_CRDS = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.crd.antrea.io_memberclusterannounces.yaml',
  'multicluster.crd.antrea.io_resourceexports.yaml',
  'multicluster.crd.antrea.io_resourceimports.yaml',
];
const MC = 'multicluster.crd.antrea.io';

/** The names of one member's identity, on the leader and (token Secret) on the member. */
export interface PlayedIdentity {
  readonly serviceAccount: string;
  readonly roleBinding: string;
  readonly tokenSecret: string;
  readonly memberTokenSecret: string;
}

export interface AntreaSetOptions {
  /** Prefix of the control planes' names. */
  readonly prefix: string;
  /** How the member identities were made. */
  readonly identities: 'antctl' | 'kubectl';
  /** @default 'prod-set' */
  readonly clusterSetId?: string;
  /** @default 'hub' */
  readonly leader?: string;
  /** @default ['east', 'west'] */
  readonly members?: readonly string[];
  /** Extra kube-apiserver flags of one cluster (audit logs, say). */
  readonly apiserverArgs?: (id: string, dir: string) => string[];
  /** A directory for per-cluster files the flags name (created). */
  readonly dir: string;
  /**
   * Each cluster gets a node (test/kube), for Pods that must run: the reconciler's and the restart
   * Jobs' under the real Argo CD. Antrea's member Deployments then have Pods that cannot start (no
   * Antrea image exists here), as a Pod whose image is gone.
   * @default false
   */
  readonly nodes?: boolean;
  /**
   * Antrea's leader runs over the set: the leader gets a node (when `nodes` gives it none) holding the
   * played leader's image (parties/antrea-leader/pod.ts) under the name its Deployment names, so that its Pod
   * runs it under a real kubelet; it starts working once the test says start (PlayedAntreaLeader).
   * @default false
   */
  readonly leaderRuns?: boolean;
}

export interface PlayedExport {
  readonly namespace: string;
  readonly name: string;
  readonly ports: readonly ServicePort[];
  /** The members that export it, in the order they did. */
  readonly exporters: readonly string[];
}

export interface AntreaSet {
  readonly clusterSetId: string;
  readonly leaderId: string;
  readonly memberIds: readonly string[];
  /** Cluster ID → control plane. */
  readonly clusters: ReadonlyMap<string, Cluster>;
  readonly leader: Cluster;
  readonly leaderNs: string;
  readonly memberNs: string;
  /** Member ID → its identity's names. */
  readonly identities: ReadonlyMap<string, PlayedIdentity>;
  /** Member ID → its token (as the leader filled it). Tests check it never shows. */
  readonly tokens: ReadonlyMap<string, string>;
  readonly exports: readonly PlayedExport[];
  /** Normalized label → the ID Antrea's leader gave it. */
  readonly labelIds: ReadonlyMap<string, number>;
  /** The admin's ACNP export's policy name. */
  readonly policy: string;
}

function ok(what: string, r: Response, ...codes: number[]): Response {
  if (!codes.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 400)}`);
  return r;
}

const md = (o: Obj) => o.metadata as { name: string; namespace?: string; [k: string]: unknown };

function collection(apiVersion: string, plural: string, namespace?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
}

const PLURALS: Record<string, string> = {
  Namespace: 'namespaces',
  ServiceAccount: 'serviceaccounts',
  Secret: 'secrets',
  ConfigMap: 'configmaps',
  Service: 'services',
  Endpoints: 'endpoints',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Deployment: 'deployments',
  CustomResourceDefinition: 'customresourcedefinitions',
  ClusterSet: 'clustersets',
  MemberClusterAnnounce: 'memberclusterannounces',
  ResourceExport: 'resourceexports',
  ResourceImport: 'resourceimports',
  Gateway: 'gateways',
  ClusterInfoImport: 'clusterinfoimports',
  LabelIdentity: 'labelidentities',
  ServiceExport: 'serviceexports',
  ServiceImport: 'serviceimports',
  ClusterNetworkPolicy: 'clusternetworkpolicies',
  Tier: 'tiers',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
};

function pathOf(o: Obj, name?: string): string {
  const c = collection(String(o.apiVersion), PLURALS[String(o.kind)]!, md(o).namespace);
  return name === undefined ? c : `${c}/${name}`;
}

/** Creates `o` as `manager` (Create, as Antrea's and antctl's clients do); returns the object. */
async function create(auth: Auth, o: Obj, manager: string): Promise<Obj> {
  const r = await request(auth, 'POST', `${pathOf(o)}?fieldManager=${manager}`, o);
  return ok(`create ${String(o.kind)} ${md(o).name}`, r, 201).json as Obj;
}

/** Updates `o` (which carries its resourceVersion) as `manager`, or its status. */
async function update(auth: Auth, o: Obj, manager: string, sub = ''): Promise<Obj> {
  const r = await request(auth, 'PUT', `${pathOf(o, md(o).name)}${sub}?fieldManager=${manager}`, o);
  return ok(`update ${String(o.kind)} ${md(o).name}${sub}`, r, 200).json as Obj;
}

async function get(auth: Auth, o: Obj): Promise<Obj> {
  return ok(`get ${String(o.kind)} ${md(o).name}`, await request(auth, 'GET', pathOf(o, md(o).name)), 200)
    .json as Obj;
}

const rfc3339 = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const ANTREA = { app: 'antrea' };

/** A self-signed CA in `dir` (what Antrea's CA controller would generate): the PEM. */
function selfSignedCa(dir: string): string {
  return selfSigned(dir, 'ca', 'antrea-mc-controller-ca', 365).cert;
}

async function installCrdsCreated(
  cluster: Cluster,
  files: readonly string[],
  manager: string,
): Promise<void> {
  for (const file of files) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as Obj;
    await create(cluster.admin, obj, manager);
  }
  for (const file of files) {
    const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as Obj;
    await eventually(`CRD ${md(obj).name} established`, async () => {
      const live = await get(cluster.admin, obj);
      const conds = ((live.status as Obj | undefined)?.conditions ?? []) as {
        type: string;
        status: string;
      }[];
      return conds.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
  }
}

/** The leader's MultiClusterConfig (leader side: stretched policy decides label identities, §i). */
const LEADER_CONFIG = [
  'apiVersion: multicluster.crd.antrea.io/v1alpha1',
  'kind: MultiClusterConfig',
  'health:',
  '  healthProbeBindAddress: :8080',
  'metrics:',
  '  bindAddress: "0"',
  'webhook:',
  '  port: 9443',
  'leaderElection:',
  '  leaderElect: false',
  'enableStretchedNetworkPolicy: true',
  '',
].join('\n');

const CONTROLLER_LABELS = { app: 'antrea', 'control-plane': 'antrea-mc-controller' };

/** What `antctl mc deploy leadercluster` creates (YAMLS/antrea-multicluster-leader.yml), in order. */
function leaderInstall(ns: string): Obj[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const mcResources = ['clustersets', 'memberclusterannounces', 'resourceexports', 'resourceimports'];
  const all = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: ANTREA } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'antrea-mc-controller', namespace: ns, labels: ANTREA },
    },
    {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: 'antrea-mc-controller-role', namespace: ns, labels: ANTREA },
      rules: [
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list'] },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [MC], resources: ['clusterclaims'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [MC], resources: mcResources, verbs: all },
        { apiGroups: [MC], resources: mcResources.map((r) => `${r}/finalizers`), verbs: ['update'] },
        {
          apiGroups: [MC],
          resources: mcResources.map((r) => `${r}/status`),
          verbs: ['get', 'patch', 'update'],
        },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: { name: 'antrea-mc-controller-rolebinding', namespace: ns, labels: ANTREA },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-controller-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-mc-controller', namespace: ns }],
    },
    {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: MEMBER_ROLE, namespace: ns, labels: ANTREA },
      rules: [
        { apiGroups: [''], resources: ['events'], verbs: ['create'] },
        { apiGroups: [MC], resources: ['memberclusterannounces'], verbs: all },
        { apiGroups: [MC], resources: ['memberclusterannounces/status'], verbs: ['get'] },
        { apiGroups: [MC], resources: ['resourceexports'], verbs: all },
        { apiGroups: [MC], resources: ['resourceexports/status'], verbs: ['get', 'patch', 'update'] },
        { apiGroups: [MC], resources: ['resourceimports'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [MC], resources: ['resourceimports/status'], verbs: ['get', 'patch', 'update'] },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: 'antrea-multicluster-antrea-mc-controller-webhook-role', labels: ANTREA },
      rules: [
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
          verbs: ['list', 'update'],
        },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'antrea-multicluster-antrea-mc-controller-webhook-rolebinding', labels: ANTREA },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'antrea-multicluster-antrea-mc-controller-webhook-role',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-mc-controller', namespace: ns }],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'antrea-mc-controller-config', namespace: ns, labels: ANTREA },
      data: { 'controller_manager_config.yaml': LEADER_CONFIG },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'antrea-mc-webhook-service', namespace: ns, labels: ANTREA },
      spec: { ports: [{ port: 443, protocol: 'TCP', targetPort: 9443 }], selector: CONTROLLER_LABELS },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'antrea-mc-controller', namespace: ns, labels: CONTROLLER_LABELS },
      spec: {
        replicas: 1,
        selector: { matchLabels: CONTROLLER_LABELS },
        template: {
          metadata: { labels: CONTROLLER_LABELS },
          spec: {
            serviceAccountName: 'antrea-mc-controller',
            terminationGracePeriodSeconds: 10,
            containers: [
              {
                name: 'antrea-mc-controller',
                image: 'antrea/antrea-mc-controller:v2.7.0',
                command: ['/antrea-mc-controller', 'leader'],
                args: ['--config=/controller_manager_config.yaml'],
                volumeMounts: [
                  {
                    name: 'antrea-mc-controller-config',
                    mountPath: '/controller_manager_config.yaml',
                    subPath: 'controller_manager_config.yaml',
                  },
                ],
              },
            ],
            volumes: [
              { name: 'antrea-mc-controller-config', configMap: { name: 'antrea-mc-controller-config' } },
            ],
          },
        },
      },
    },
  ];
}

function webhook(
  name: string,
  ns: string,
  path: string,
  apiVersion: 'v1alpha1' | 'v1alpha2',
  resource: string,
  operations: string[],
  caBundle: string,
  nsSelector: string,
): Obj {
  return {
    name,
    admissionReviewVersions: ['v1', 'v1beta1'],
    clientConfig: {
      caBundle: Buffer.from(caBundle).toString('base64'),
      service: { name: 'antrea-mc-webhook-service', namespace: ns, path },
    },
    failurePolicy: 'Fail',
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': nsSelector } },
    rules: [{ apiGroups: [MC], apiVersions: [apiVersion], operations, resources: [resource] }],
    sideEffects: 'None',
  };
}

/** The leader's two webhook configurations (§e, §i): labels, names, failurePolicy Fail. */
export function leaderWebhooks(ns: string, ca: string): Obj[] {
  const labels = { app: 'antrea', role: 'leader', 'served-by': 'antrea-mc-controller', 'served-in': ns };
  const cud = ['CREATE', 'UPDATE', 'DELETE'];
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: LEADER_WEBHOOKS.mutating, labels },
      webhooks: [
        webhook(
          'mresourceexport.kb.io',
          ns,
          '/mutate-multicluster-crd-antrea-io-v1alpha1-resourceexport',
          'v1alpha1',
          'resourceexports',
          ['CREATE', 'UPDATE'],
          ca,
          ns,
        ),
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: LEADER_WEBHOOKS.validating, labels },
      webhooks: [
        webhook(
          'vclusterset.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha2-clusterset',
          'v1alpha2',
          'clustersets',
          cud,
          ca,
          ns,
        ),
        webhook(
          'vmemberclusterannounce.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha1-memberclusterannounce',
          'v1alpha1',
          'memberclusterannounces',
          cud,
          ca,
          ns,
        ),
        webhook(
          'vresourceexport.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha1-resourceexport',
          'v1alpha1',
          'resourceexports',
          cud,
          ca,
          ns,
        ),
      ],
    },
  ];
}

/** A member's webhook configurations (§e Member): they carry `role: member` and must stay. */
function memberWebhooks(ns: string, ca: string): Obj[] {
  const labels = { app: 'antrea', role: 'member', 'served-by': 'antrea-mc-controller' };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: MEMBER_WEBHOOKS.mutating, labels },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: MEMBER_WEBHOOKS.validating, labels },
      webhooks: [
        webhook(
          'vclusterset.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha2-clusterset',
          'v1alpha2',
          'clustersets',
          ['CREATE', 'UPDATE', 'DELETE'],
          ca,
          ns,
        ),
        {
          ...webhook(
            'vgateway.kb.io',
            ns,
            '/validate-multicluster-crd-antrea-io-v1alpha1-gateway',
            'v1alpha1',
            'gateways',
            ['CREATE', 'UPDATE'],
            ca,
            ns,
          ),
          namespaceSelector: {},
        },
      ],
    },
  ];
}

/** The names of member `id`'s identity, as each way makes them. */
export function playedIdentity(way: 'antctl' | 'kubectl', id: string, index: number): PlayedIdentity {
  if (way === 'antctl') {
    // `antctl mc create membertoken <NAME> --cluster-id <id>`: NAME is the operator's choice;
    // `antctl mc join --config-file` names the member's Secret after it too.
    const name = `${id}-access-token`;
    return { serviceAccount: name, roleBinding: name, tokenSecret: name, memberTokenSecret: name };
  }
  // The user guide: `member-east`, `member-east-token`; the second member's Secret got a name of its
  // own on the member (each member's is the operator's choice).
  return {
    serviceAccount: `member-${id}`,
    roleBinding: `member-${id}`,
    tokenSecret: `member-${id}-token`,
    memberTokenSecret: index === 0 ? `member-${id}-token` : 'leader-access-token',
  };
}

/** The Services the members export: `shop/cart` from every member, `shop/orders` from the first. */
function servicesOf(
  members: readonly string[],
): { ns: string; name: string; ports: ServicePort[]; from: string[] }[] {
  return [
    {
      ns: 'shop',
      name: 'cart',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }],
      from: [...members],
    },
    {
      ns: 'shop',
      name: 'orders',
      ports: [
        { name: 'grpc', port: 9090, protocol: 'TCP', targetPort: 9090 },
        { name: 'metrics', port: 9100, protocol: 'TCP', targetPort: 9100 },
      ],
      from: [members[0]!],
    },
  ];
}

/** Per member, the normalized labels of its Pods (the first label is shared by all). */
function labelsOf(id: string): string[] {
  return [
    'ns:kubernetes.io/metadata.name=shop&pod:app=cart',
    `ns:kubernetes.io/metadata.name=shop&pod:app=client,region=${id}`,
  ];
}

/** Plays the whole set; see the module comment. */
export async function setUpAntreaSet(o: AntreaSetOptions): Promise<AntreaSet> {
  const clusterSetId = o.clusterSetId ?? 'prod-set';
  const leaderId = o.leader ?? 'hub';
  const memberIds = o.members ?? ['east', 'west'];
  const leaderNs = 'antrea-multicluster';
  const memberNs = 'kube-system';
  const ids = [leaderId, ...memberIds];
  fs.mkdirSync(o.dir, { recursive: true });
  const image = o.leaderRuns ? playedLeaderImage() : undefined;
  // One start per cluster: each may have flags of its own (an audit log file, say).
  const started = await Promise.all(
    ids.map(async (id) => {
      const dir = path.join(o.dir, id);
      fs.mkdirSync(dir, { recursive: true });
      const args = o.apiserverArgs?.(id, dir) ?? [];
      const name = `${o.prefix}-${id}`;
      const node = o.nodes || (o.leaderRuns && id === leaderId);
      const m = await startClusters([name], {
        ...(args.length > 0 ? { apiserverArgs: args } : {}),
        ...(node ? { nodes: [name] } : {}),
      });
      return [id, m.get(name)!] as const;
    }),
  );
  // Before Antrea's leader Deployment exists: its Pod finds the image at once, with no pull back-off.
  if (image)
    for (const n of started.find(([id]) => id === leaderId)![1].nodes) await n.importImage(await image);
  const clusters = new Map(started);
  const leader = clusters.get(leaderId)!;
  const admin = leader.admin;

  // --- antctl mc deploy leadercluster, antctl mc init
  await installCrdsCreated(leader, LEADER_CRDS, ANTCTL_MANAGER);
  for (const obj of leaderInstall(leaderNs)) await create(admin, obj, ANTCTL_MANAGER);
  const leaderSet = await create(
    admin,
    {
      apiVersion: `${MC}/v1alpha2`,
      kind: 'ClusterSet',
      metadata: { name: clusterSetId, namespace: leaderNs },
      spec: { clusterID: leaderId, leaders: [{ clusterID: leaderId }], namespace: leaderNs },
    },
    ANTCTL_MANAGER,
  );

  // --- Antrea's leader controller starts: its CA (ConfigMap antrea-mc-ca), with its own token.
  const ctrl: Auth = {
    ...admin,
    cert: undefined,
    key: undefined,
    token: await tokenFor(leader, leaderNs, 'antrea-mc-controller'),
  };
  const ca = selfSignedCa(path.join(o.dir, leaderId, 'antrea-mc-ca'));
  await create(
    ctrl,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'antrea-mc-ca', namespace: leaderNs },
      data: { 'ca.crt': ca },
    },
    ANTREA_MANAGER,
  );

  // --- Member identities
  const identities = new Map(memberIds.map((id, i) => [id, playedIdentity(o.identities, id, i)]));
  for (const [id, n] of identities) {
    const antctl = o.identities === 'antctl' ? { [CREATED_BY_ANTCTL]: 'true' } : {};
    const objs: Obj[] = [
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: {
          name: n.serviceAccount,
          namespace: leaderNs,
          annotations: { ...antctl, [CLUSTER_ID_ANNOTATION]: id },
        },
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: {
          name: n.roleBinding,
          namespace: leaderNs,
          ...(o.identities === 'antctl' ? { annotations: antctl } : {}),
        },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_ROLE },
        subjects: [{ kind: 'ServiceAccount', name: n.serviceAccount, namespace: leaderNs }],
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: n.tokenSecret,
          namespace: leaderNs,
          annotations: { ...antctl, 'kubernetes.io/service-account.name': n.serviceAccount },
        },
        type: 'kubernetes.io/service-account-token',
      },
    ];
    if (o.identities === 'antctl') for (const x of objs) await create(admin, x, ANTCTL_MANAGER);
    else kubectlApply(leader, objs);
  }
  const tokenData = new Map<string, Record<string, string>>();
  for (const [id, n] of identities)
    tokenData.set(
      id,
      await eventually(`token in Secret ${leaderNs}/${n.tokenSecret}`, async () => {
        const r = await request(admin, 'GET', `/api/v1/namespaces/${leaderNs}/secrets/${n.tokenSecret}`);
        const data = (r.json as { data?: Record<string, string> } | undefined)?.data;
        return data?.token && data['ca.crt'] ? data : undefined;
      }),
    );
  const tokens = new Map(
    [...tokenData].map(([id, d]) => [id, Buffer.from(d.token!, 'base64').toString('utf8')]),
  );

  // --- Members: Antrea's member manifest, then `antctl mc join` (or the user guide's kubectl steps)
  const memberCa = selfSignedCa(path.join(o.dir, 'member-ca'));
  for (const [i, id] of memberIds.entries()) {
    const c = clusters.get(id)!;
    await installCrdsCreated(c, ANTREA_MEMBER_CRDS, ANTCTL_MANAGER);
    kubectlApply(c, [
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'antrea-mc-controller', namespace: memberNs, labels: ANTREA },
      },
      // Stretched policy on, as Antrea's guide has it edited in for members that export label
      // identities (a member exports them only then, §d).
      antreaMemberConfigMap(
        memberNs,
        ANTREA_DEFAULT_MEMBER_CONFIG.replace(
          'enableStretchedNetworkPolicy: false',
          'enableStretchedNetworkPolicy: true',
        ),
      ),
      antreaMemberDeployment(memberNs),
    ]);
    const n = identities.get(id)!;
    const d = tokenData.get(id)!;
    // ConvertMemberTokenSecret: an Opaque Secret with ca.crt, namespace and token.
    const secret: Obj = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: n.memberTokenSecret,
        namespace: memberNs,
        ...(o.identities === 'antctl' ? { annotations: { [CREATED_BY_ANTCTL]: 'true' } } : {}),
      },
      type: 'Opaque',
      data: {
        'ca.crt': d['ca.crt']!,
        namespace: d.namespace ?? Buffer.from(leaderNs).toString('base64'),
        token: d.token!,
      },
    };
    if (o.identities === 'antctl') await create(c.admin, secret, ANTCTL_MANAGER);
    else kubectlApply(c, [secret]);
    const cs: Obj = {
      apiVersion: `${MC}/v1alpha2`,
      kind: 'ClusterSet',
      metadata: { name: clusterSetId, namespace: memberNs },
      spec: {
        clusterID: id,
        leaders: [{ clusterID: leaderId, secret: n.memberTokenSecret, server: leader.server }],
        namespace: leaderNs,
      },
    };
    if (o.identities === 'antctl') await create(c.admin, cs, ANTCTL_MANAGER);
    else kubectlApply(c, [cs]);
    // Antrea's controller creates the built-in Tiers at start (the policy below uses securityops).
    await create(
      c.admin,
      {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'Tier',
        metadata: { name: 'securityops' },
        spec: { priority: 100, description: '[READ-ONLY]: System generated SecurityOps Tier' },
      },
      'antrea-controller',
    );
    void i;
  }

  // --- The application teams' Services and ServiceExports in the members.
  const services = servicesOf(memberIds);
  const svcs = new Map<string, { ports: ServicePort[]; clusterIP: string }>();
  for (const id of memberIds) {
    const c = clusters.get(id)!;
    await create(
      c.admin,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      'application-team',
    );
    for (const s of services.filter((x) => x.from.includes(id))) {
      // No nodes run here: the Service has no selector and its ready endpoint is written by hand.
      const svc = await create(
        c.admin,
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: s.name, namespace: s.ns },
          spec: { ports: s.ports },
        },
        'application-team',
      );
      await create(
        c.admin,
        {
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name: s.name, namespace: s.ns },
          subsets: [
            {
              addresses: [{ ip: '10.244.1.10' }],
              ports: s.ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
            },
          ],
        },
        'application-team',
      );
      await create(
        c.admin,
        {
          apiVersion: 'multicluster.x-k8s.io/v1alpha1',
          kind: 'ServiceExport',
          metadata: { name: s.name, namespace: s.ns },
        },
        'application-team',
      );
      const spec = svc.spec as { ports: ServicePort[]; clusterIP: string };
      svcs.set(`${id}/${s.ns}/${s.name}`, { ports: spec.ports, clusterIP: spec.clusterIP });
    }
  }

  // --- What each member's controller wrote into the leader, with its own token (§c.1, §d, §f).
  const sims = new Map(
    memberIds.map((id) => [
      id,
      new SimulatedMember(
        id,
        leader,
        tokens.get(id)!,
        leaderNs,
        clusterSetId,
        leaderId,
        clusters.get(id),
        memberNs,
      ),
    ]),
  );
  for (const sm of sims.values()) await sm.announce();
  for (const s of services)
    for (const id of s.from)
      await sims.get(id)!.exportService(s.ns, s.name, svcs.get(`${id}/${s.ns}/${s.name}`));
  const cidrs = new Map(
    memberIds.map((id, i) => [id, { service: `10.${96 + i}.0.0/16`, gateway: `172.18.0.${10 + i}` }]),
  );
  for (const [id, sm] of sims) {
    const x = cidrs.get(id)!;
    await sm.upsertExport(
      sm.clusterInfoExport({
        clusterID: id,
        serviceCIDR: x.service,
        gatewayInfos: [{ gatewayIP: x.gateway }],
      }),
    );
  }
  const labelOrder: string[] = [];
  for (const id of memberIds)
    for (const l of labelsOf(id)) {
      await sims.get(id)!.exportLabel(l);
      if (!labelOrder.includes(l)) labelOrder.push(l);
    }
  // An admin's ACNP export, as Antrea's mutating webhook completed it (labels and finalizer).
  const policy = 'isolate-shop';
  const acnpSpec = {
    priority: 10,
    tier: 'securityops',
    appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
    ingress: [
      {
        action: 'Allow',
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
      },
      { action: 'Drop', from: [{ namespaceSelector: {} }] },
    ],
  };
  await create(
    admin,
    {
      apiVersion: `${MC}/v1alpha1`,
      kind: 'ResourceExport',
      metadata: {
        name: policy,
        namespace: leaderNs,
        labels: { sourceName: policy, sourceNamespace: '', sourceKind: 'AntreaClusterNetworkPolicy' },
        finalizers: [RESOURCE_EXPORT_FINALIZER],
      },
      spec: { name: policy, kind: 'AntreaClusterNetworkPolicy', clusterNetworkPolicy: acnpSpec },
    },
    'kubectl-client-side-apply',
  );

  // --- What Antrea's leader wrote (§c.2, §d, §i), with its ServiceAccount's token.
  const ri = (name: string, spec: Obj): Obj => ({
    apiVersion: `${MC}/v1alpha1`,
    kind: 'ResourceImport',
    metadata: { name, namespace: leaderNs },
    spec,
  });
  const re = (name: string): Obj => ({
    apiVersion: `${MC}/v1alpha1`,
    kind: 'ResourceExport',
    metadata: { name, namespace: leaderNs },
  });
  for (const id of memberIds) {
    const a = await get(ctrl, {
      apiVersion: `${MC}/v1alpha1`,
      kind: 'MemberClusterAnnounce',
      metadata: { name: `member-announce-from-${id}`, namespace: leaderNs },
    });
    md(a).finalizers = [announceFinalizer(id)];
    await update(ctrl, a, ANTREA_MANAGER);
  }
  const succeeded = async (name: string) => {
    const x = await get(ctrl, re(name));
    x.status = { conditions: [{ type: 'Succeeded', status: 'True', lastTransitionTime: rfc3339() }] };
    await update(ctrl, x, ANTREA_MANAGER, '/status');
  };
  for (const s of services) {
    const first = svcs.get(`${s.from[0]}/${s.ns}/${s.name}`)!;
    await create(
      ctrl,
      ri(serviceImportName(s.ns, s.name), {
        name: s.name,
        namespace: s.ns,
        kind: 'ServiceImport',
        serviceImport: {
          spec: {
            ports: first.ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
            type: 'ClusterSetIP',
          },
        },
      }),
      ANTREA_MANAGER,
    );
    const subsets = (id: string) =>
      SimulatedMember.clusterIpSubsets(
        svcs.get(`${id}/${s.ns}/${s.name}`)!.clusterIP,
        svcs.get(`${id}/${s.ns}/${s.name}`)!.ports,
      );
    const name = endpointsImportName(s.ns, s.name);
    let live = await create(
      ctrl,
      ri(name, {
        name: s.name,
        namespace: s.ns,
        kind: 'Endpoints',
        endpoints: { subsets: subsets(s.from[0]!) },
      }),
      ANTREA_MANAGER,
    );
    for (const id of s.from) {
      await succeeded(`${id}-${s.ns}-${s.name}-service`);
      await succeeded(`${id}-${s.ns}-${s.name}-endpoints`);
    }
    if (s.from.length > 1) {
      // The second exporter's endpoints: an update (generation 2), then the status of an update.
      live = await update(
        ctrl,
        { ...live, spec: { ...(live.spec as Obj), endpoints: { subsets: s.from.flatMap(subsets) } } },
        ANTREA_MANAGER,
      );
      live.status = {
        clusterStatuses: [
          {
            clusterID: s.from[s.from.length - 1],
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
      };
      await update(ctrl, live, ANTREA_MANAGER, '/status');
    }
  }
  for (const id of memberIds) {
    const x = await get(ctrl, re(clusterInfoName(id)));
    await create(
      ctrl,
      ri(clusterInfoName(id), {
        kind: 'ClusterInfo',
        name: clusterInfoName(id),
        namespace: leaderNs,
        clusterinfo: (x.spec as Obj).clusterInfo,
      }),
      ANTREA_MANAGER,
    );
  }
  const labelIds = new Map<string, number>();
  for (const [i, l] of labelOrder.entries()) {
    labelIds.set(l, i + 1);
    await create(
      ctrl,
      ri(labelIdentityHash(l), { kind: 'LabelIdentity', labelIdentity: { label: l, id: i + 1 } }),
      ANTREA_MANAGER,
    );
  }
  await create(
    ctrl,
    ri(acnpImportName(policy), {
      name: policy,
      kind: 'AntreaClusterNetworkPolicy',
      clusternetworkpolicy: acnpSpec,
    }),
    ANTREA_MANAGER,
  );
  await succeeded(policy);
  const now = rfc3339();
  const cs = await get(ctrl, leaderSet);
  cs.status = {
    observedGeneration: 1,
    totalClusters: memberIds.length,
    readyClusters: memberIds.length,
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
    clusterStatuses: memberIds.map((id) => ({
      clusterID: id,
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
  await update(ctrl, cs, ANTREA_MANAGER, '/status');

  // --- What each member's controller wrote in its own cluster (§c.3, §d, §f).
  const ris = (
    ok(
      'list imports',
      await request(admin, 'GET', collection(`${MC}/v1alpha1`, 'resourceimports', leaderNs)),
      200,
    ).json as { items: Obj[] }
  ).items;
  for (const [i, id] of memberIds.entries()) {
    const c = clusters.get(id)!;
    const w = memberWrites(ris, {
      memberId: id,
      leaderNs,
      memberNs,
      tiers: new Set(['securityops']),
      namespaces: new Set(['shop', memberNs, 'default']),
      now: new Date(),
    });
    for (const s of w.services) await create(c.admin, s, ANTREA_MANAGER);
    for (const si of w.serviceImports) {
      const svc = await get(c.admin, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `antrea-mc-${md(si).name}`, namespace: md(si).namespace },
      });
      await create(
        c.admin,
        { ...si, spec: { ...(si.spec as Obj), ips: [(svc.spec as { clusterIP: string }).clusterIP] } },
        ANTREA_MANAGER,
      );
    }
    for (const x of [...w.endpoints, ...w.policies, ...w.clusterInfoImports, ...w.labelIdentities])
      await create(c.admin, x, ANTREA_MANAGER);
    const x = cidrs.get(id)!;
    await create(
      c.admin,
      {
        apiVersion: `${MC}/v1alpha1`,
        kind: 'Gateway',
        metadata: { name: `${id}-gw-node`, namespace: memberNs },
        gatewayIP: x.gateway,
        internalIP: x.gateway,
        serviceCIDR: x.service,
      },
      ANTREA_MANAGER,
    );
    for (const s of services.filter((y) => y.from.includes(id))) {
      const se = await get(c.admin, {
        apiVersion: 'multicluster.x-k8s.io/v1alpha1',
        kind: 'ServiceExport',
        metadata: { name: s.name, namespace: s.ns },
      });
      se.status = serviceExportStatus(new Date());
      await update(c.admin, se, ANTREA_MANAGER, '/status');
    }
    const mcs = await get(c.admin, {
      apiVersion: `${MC}/v1alpha2`,
      kind: 'ClusterSet',
      metadata: { name: clusterSetId, namespace: memberNs },
    });
    mcs.status = memberClusterSetStatus(leaderId, true, 1, new Date());
    await update(c.admin, mcs, ANTREA_MANAGER, '/status');
    void i;
  }

  // --- Last: the webhook configurations (see the module comment), failing closed from now on.
  for (const w of leaderWebhooks(leaderNs, ca)) await create(admin, w, ANTCTL_MANAGER);
  for (const id of memberIds)
    for (const w of memberWebhooks(memberNs, memberCa))
      await create(clusters.get(id)!.admin, w, ANTCTL_MANAGER);

  const exports: PlayedExport[] = services.map((s) => ({
    namespace: s.ns,
    name: s.name,
    ports: s.ports,
    exporters: s.from,
  }));
  return {
    clusterSetId,
    leaderId,
    memberIds,
    clusters,
    leader,
    leaderNs,
    memberNs,
    identities,
    tokens,
    exports,
    labelIds,
    policy,
  };
}

/** Names of a label identity's export by `id` (for tests that churn labels). */
export const labelExportName = (id: string, label: string) =>
  labelIdentityExportName(id, labelIdentityHash(label));
