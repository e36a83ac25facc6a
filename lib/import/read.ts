/**
 * The edge of `clusterset import`: reads a running Antrea ClusterSet, the leader and each member
 * named, into a LiveSnapshot (snapshot.ts), with GET and LIST only. Nothing is written, watched or
 * cached.
 *
 * Secrets never leave the API server with their data, and metadata alone is not enough for that:
 * `kubectl apply` of a Secret (the user guide's way to copy the token into a member) writes the whole
 * object, data included, into its `kubectl.kubernetes.io/last-applied-configuration` annotation,
 * which a metadata-only list returns. So:
 * - in the leader, only ServiceAccount token Secrets are listed (field selector
 *   `type=kubernetes.io/service-account-token`), as metadata only
 *   (`application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`): their data is the token
 *   controller's, never applied by anyone, so no last-applied annotation of theirs holds it; the
 *   items are given back kind `Secret`, apiVersion `v1` and the type they were selected by;
 * - in a member, Secrets are listed as a Table without objects (`as=Table`, `includeObject=None`):
 *   names and types only, no annotations at all;
 * - a last-applied annotation on a Secret is replaced all the same before anything else sees it.
 * Nodes are listed as metadata only too: their annotations are all import needs of them.
 *
 * What is read is a closed table (below), not discovery, decided from antrea-mc.md §b, §c, §e, §f
 * and §i: in the leader, every ClusterSet (to find the leader namespace: the one whose own
 * `spec.clusterID` is among its leaders and that names no token Secret), then in that namespace the
 * announces, exports, imports, the member identities (ServiceAccounts, RoleBindings, Roles, Secret
 * metadata), Antrea's leader install (Deployments, ConfigMaps, Services, Endpoints) and the
 * `ACNPImportFailed` Events members post there; cluster-wide, Antrea's webhook configurations (label
 * `served-by=antrea-mc-controller`), its ClusterRoles and ClusterRoleBindings (label `app=antrea`),
 * Namespaces and ClusterProperties. In each member: every ClusterSet (the member's is the one whose
 * `spec.clusterID` is the member's ID and that names a token Secret), the member controller's
 * ConfigMap and Deployment and the Secret metadata in its namespace, Antrea's own `antrea-config`,
 * Gateways, ClusterInfoImports, ServiceExports and ServiceImports (all namespaces), LabelIdentities,
 * ClusterNetworkPolicies, Tiers, ClusterGroups, Namespaces, Node metadata, ClusterProperties and
 * ClusterClaims, its webhook configurations, and in every namespace holding a ServiceExport or
 * ServiceImport the Services and Endpoints that are imported (`antrea-mc-*` with Antrea's
 * annotation) or exported.
 *
 * A kind whose CRD is not installed reads as none. A cluster that does not answer (or answers 401
 * or 5xx) and a read that is forbidden are errors naming the context, the API server and, for a
 * refusal, the verb and resource to grant (`importRbac()` is the ClusterRole that grants them all).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type * as ClientNode from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { closest } from '../check/util';
import {
  DEFAULT_MEMBER_NAMESPACE,
  IMPORT_PREFIX,
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_CONTROLLER_DEPLOYMENT,
} from '../names';
import { collectionPath, RESOURCES, resourceOf, type Resource } from '../status/resources';
import { readOnlyIdentity, type Rule } from '../status/rbac';
import { dumpYaml } from '../yaml';
import type { ClusterSnapshot, LiveObject, LiveSnapshot } from './snapshot';

const MC1 = 'multicluster.crd.antrea.io/v1alpha1';
const MC2 = 'multicluster.crd.antrea.io/v1alpha2';
const R = (apiVersion: string, kind: string, plural: string, namespaced: boolean): Resource => ({
  apiVersion,
  kind,
  plural,
  namespaced,
});

/** Every collection import reads, by kind. */
export const IMPORT_RESOURCES = {
  ClusterSet: R(MC2, 'ClusterSet', 'clustersets', true),
  MemberClusterAnnounce: R(MC1, 'MemberClusterAnnounce', 'memberclusterannounces', true),
  ResourceExport: R(MC1, 'ResourceExport', 'resourceexports', true),
  ResourceImport: R(MC1, 'ResourceImport', 'resourceimports', true),
  ClusterClaim: R(MC2, 'ClusterClaim', 'clusterclaims', true),
  Gateway: R(MC1, 'Gateway', 'gateways', true),
  ClusterInfoImport: R(MC1, 'ClusterInfoImport', 'clusterinfoimports', true),
  LabelIdentity: R(MC1, 'LabelIdentity', 'labelidentities', false),
  ServiceExport: R('multicluster.x-k8s.io/v1alpha1', 'ServiceExport', 'serviceexports', true),
  ServiceImport: R('multicluster.x-k8s.io/v1alpha1', 'ServiceImport', 'serviceimports', true),
  ClusterNetworkPolicy: R('crd.antrea.io/v1beta1', 'ClusterNetworkPolicy', 'clusternetworkpolicies', false),
  Tier: R('crd.antrea.io/v1beta1', 'Tier', 'tiers', false),
  ClusterGroup: R('crd.antrea.io/v1beta1', 'ClusterGroup', 'clustergroups', false),
  ClusterProperty: R('about.k8s.io/v1beta1', 'ClusterProperty', 'clusterproperties', false),
  // The leader's Service CIDR (Kubernetes 1.33+; older API servers do not serve it: none).
  ServiceCIDR: R('networking.k8s.io/v1', 'ServiceCIDR', 'servicecidrs', false),
  Namespace: R('v1', 'Namespace', 'namespaces', false),
  Node: R('v1', 'Node', 'nodes', false),
  ServiceAccount: R('v1', 'ServiceAccount', 'serviceaccounts', true),
  Secret: R('v1', 'Secret', 'secrets', true),
  ConfigMap: R('v1', 'ConfigMap', 'configmaps', true),
  Service: R('v1', 'Service', 'services', true),
  Endpoints: R('v1', 'Endpoints', 'endpoints', true),
  Event: R('v1', 'Event', 'events', true),
  Deployment: R('apps/v1', 'Deployment', 'deployments', true),
  Role: R('rbac.authorization.k8s.io/v1', 'Role', 'roles', true),
  RoleBinding: R('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true),
  ClusterRole: R('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  ClusterRoleBinding: R('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  ValidatingWebhookConfiguration: R(
    'admissionregistration.k8s.io/v1',
    'ValidatingWebhookConfiguration',
    'validatingwebhookconfigurations',
    false,
  ),
  MutatingWebhookConfiguration: R(
    'admissionregistration.k8s.io/v1',
    'MutatingWebhookConfiguration',
    'mutatingwebhookconfigurations',
    false,
  ),
} as const;
type Kind = keyof typeof IMPORT_RESOURCES;

/** Kinds listed as metadata only (PartialObjectMetadataList). */
const METADATA_ONLY: ReadonlySet<string> = new Set(['Secret', 'Node']);
/** The Secrets the leader's member identities hold. */
export const SA_TOKEN_TYPE = 'kubernetes.io/service-account-token';
/** Groups served by CRDs that may not be installed: a 404 there is "none". */
const CRD_GROUPS = new Set([
  'multicluster.crd.antrea.io',
  'multicluster.x-k8s.io',
  'crd.antrea.io',
  'about.k8s.io',
]);
const OPTIONAL = (r: Resource) => CRD_GROUPS.has(r.apiVersion.split('/')[0]!) || r.kind === 'ServiceCIDR';

/** The Accept header of a metadata-only list. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** The Accept header of a list as a Table (with `includeObject=None`: its cells only). */
export const TABLE_ACCEPT = 'application/json;as=Table;g=meta.k8s.io;v=v1';
/** Antrea's webhook configurations carry this label (antrea-mc.md §0.7, §i). */
const WEBHOOK_SELECTOR = 'served-by=antrea-mc-controller';
/** kubectl's record of an applied object: for a Secret, its data. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const REDACTED = '(removed by clusterset import: it holds the Secret as applied, data included)';
const IMPORTED_SERVICE = 'multicluster.antrea.io/imported-service';
/** The User-Agent of every request (what an API server's audit log shows). */
export const IMPORT_USER_AGENT = 'clusterset-import';

/** A cluster that cannot be read: the message names the context, the server and what to do. */
export class ImportReadError extends Error {
  override name = 'ImportReadError';
  constructor(
    message: string,
    /** A problem of the command line or kubeconfig (exit 2), not of a cluster. */
    readonly usage = false,
  ) {
    super(message);
  }
}

class HttpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One read-only connection to the API server of one context. */
export class ClusterReader {
  readonly server: string;
  private agent: http.Agent | undefined;
  /** Every request made, `METHOD path Accept`, for tests and `--verbose` (no bodies). */
  readonly requests: string[] = [];

  constructor(
    private readonly kc: KubeConfig,
    readonly context: string,
    private readonly timeoutMs: number,
  ) {
    this.server = (kc.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  }

  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** A GET of `path`; resolves with the JSON body, rejects with HttpError or a network error. */
  async get(path: string, accept = 'application/json'): Promise<Record<string, unknown>> {
    const o: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(o);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k] = String(v);
    if (o.auth) headers.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    headers.Accept = accept;
    headers['User-Agent'] = IMPORT_USER_AGENT;
    const url = new URL(this.server + path);
    const plain = url.protocol === 'http:';
    if (this.kc.getCurrentCluster()?.proxyUrl) {
      // Through a proxy: client-node's own agent.
    } else if (!this.agent) {
      this.agent = plain
        ? new http.Agent({ keepAlive: true, maxSockets: 4 })
        : new https.Agent({
            keepAlive: true,
            maxSockets: 4,
            ca: o.ca,
            cert: o.cert,
            key: o.key,
            pfx: o.pfx,
            passphrase: o.passphrase,
            servername: o.servername,
            ...(o.rejectUnauthorized !== undefined ? { rejectUnauthorized: o.rejectUnauthorized } : {}),
          });
    }
    const agent = this.kc.getCurrentCluster()?.proxyUrl ? (o.agent as http.Agent) : this.agent;
    this.requests.push(`GET ${path} ${accept}`);
    const mod = plain ? http : https;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { method: 'GET', headers, agent, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let json: Record<string, unknown> | undefined;
          try {
            json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
          } catch {
            json = undefined;
          }
          if (status >= 200 && status < 300 && json) resolve(json);
          else
            reject(
              new HttpError(
                status,
                typeof json?.message === 'string' ? json.message : `HTTP ${status} ${text.slice(0, 200)}`,
              ),
            );
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end();
    });
  }
}

/** Sets apiVersion and kind on a list item (the API server leaves them off built-in kinds' items). */
function asLive(r: Resource, item: Record<string, unknown>, extra: Record<string, unknown> = {}): LiveObject {
  const metadata = { ...((item.metadata ?? {}) as LiveObject['metadata']) };
  if (r.kind === 'Secret' && metadata.annotations && LAST_APPLIED in metadata.annotations)
    metadata.annotations = { ...metadata.annotations, [LAST_APPLIED]: REDACTED };
  return { ...item, ...extra, apiVersion: r.apiVersion, kind: r.kind, metadata } as LiveObject;
}

function what(r: Resource, namespace: string | undefined): string {
  const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0]! : '';
  const res = group ? `${r.plural}.${group}` : r.plural;
  return r.namespaced ? `${res} in namespace ${namespace ?? '(all)'}` : res;
}

/** Turns a failure into the error the user reads (unreachable, forbidden, other). */
function failure(
  c: ClusterReader,
  e: unknown,
  r: Resource,
  namespace: string | undefined,
  verb: 'get' | 'list' = 'list',
): ImportReadError {
  const where = `context ${JSON.stringify(c.context)} (${c.server})`;
  if (e instanceof HttpError && e.code === 403) {
    return new ImportReadError(
      `${where}: forbidden to ${verb} ${what(r, namespace)}: ${e.message}; grant ${verb} on ${what(r, undefined).replace(/ in namespace.*/, '')}` +
        ` (\`clusterset import --print-rbac\` prints a read-only ClusterRole with every permission import needs)`,
    );
  }
  if (e instanceof HttpError && e.code === 401)
    return new ImportReadError(
      `${where}: unauthorized (401): the credentials of this context are not accepted`,
    );
  if (e instanceof HttpError)
    return new ImportReadError(
      `${where}: ${verb === 'get' ? 'reading' : 'listing'} ${what(r, namespace)} failed: HTTP ${e.code}: ${e.message}`,
    );
  return new ImportReadError(`${where} cannot be reached: ${(e as Error).message}`);
}

/** Every item of one collection (paged), or none when its kind is not served. */
async function list(
  c: ClusterReader,
  r: Resource,
  opts: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
): Promise<LiveObject[]> {
  const meta = METADATA_ONLY.has(r.kind);
  const out: LiveObject[] = [];
  let cont: string | undefined;
  // A namespaced kind without a namespace: every namespace.
  const base =
    r.namespaced && opts.namespace === undefined
      ? collectionPath({ ...r, namespaced: false }, undefined)
      : collectionPath(r, opts.namespace);
  do {
    const q = new URLSearchParams({ limit: '500' });
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) q.set('fieldSelector', opts.fieldSelector);
    if (cont) q.set('continue', cont);
    let body: Record<string, unknown>;
    try {
      body = await c.get(`${base}?${q}`, meta ? METADATA_LIST_ACCEPT : 'application/json');
    } catch (e) {
      if (e instanceof HttpError && e.code === 404 && OPTIONAL(r)) return [];
      throw failure(c, e, r, opts.namespace);
    }
    if (meta && body.kind !== 'PartialObjectMetadataList')
      // An API server that ignored the Accept header: nothing of it is kept.
      throw new ImportReadError(
        `context ${JSON.stringify(c.context)} (${c.server}): asked for ${r.plural} as metadata only and got ${String(body.kind)}; nothing of it was kept`,
      );
    const extra =
      r.kind === 'Secret' && opts.fieldSelector === `type=${SA_TOKEN_TYPE}` ? { type: SA_TOKEN_TYPE } : {};
    for (const item of (body.items ?? []) as Record<string, unknown>[]) out.push(asLive(r, item, extra));
    cont = ((body.metadata ?? {}) as { continue?: string }).continue || undefined;
  } while (cont);
  return out;
}

/** The names and types of the Secrets of `namespace`, from a Table without objects: nothing else. */
async function secretNames(c: ClusterReader, namespace: string): Promise<LiveObject[]> {
  const r = IMPORT_RESOURCES.Secret;
  const out: LiveObject[] = [];
  let cont: string | undefined;
  do {
    const q = new URLSearchParams({ limit: '500', includeObject: 'None' });
    if (cont) q.set('continue', cont);
    let body: Record<string, unknown>;
    try {
      body = await c.get(`${collectionPath(r, namespace)}?${q}`, TABLE_ACCEPT);
    } catch (e) {
      throw failure(c, e, r, namespace);
    }
    if (body.kind !== 'Table')
      throw new ImportReadError(
        `context ${JSON.stringify(c.context)} (${c.server}): asked for the Secrets of ${namespace} as a Table and got ${String(body.kind)}; nothing of it was kept`,
      );
    const cols = ((body.columnDefinitions ?? []) as { name?: string }[]).map((x) => x.name);
    const at = (cells: unknown[], col: string) => {
      const i = cols.indexOf(col);
      return i < 0 ? undefined : cells[i];
    };
    for (const row of (body.rows ?? []) as { cells?: unknown[] }[]) {
      const cells = row.cells ?? [];
      const name = at(cells, 'Name');
      const type = at(cells, 'Type');
      if (typeof name !== 'string') continue;
      out.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace },
        ...(typeof type === 'string' ? { type } : {}),
      });
    }
    cont = ((body.metadata ?? {}) as { continue?: string }).continue || undefined;
  } while (cont);
  return out;
}

const spec = (o: LiveObject) => (o.spec ?? {}) as Record<string, unknown>;
const leadersOf = (o: LiveObject) =>
  ((spec(o).leaders ?? []) as { clusterID?: string; secret?: string; server?: string }[]) ?? [];

/**
 * The leader namespaces among `sets`: ClusterSets whose own clusterID is among their leaders and
 * that name no token Secret (a leader that is also a member has its member ClusterSet too, which
 * names one); failing that, any whose clusterID is among its leaders.
 */
export function leaderNamespaces(sets: readonly LiveObject[]): string[] {
  const leads = sets.filter((s) => leadersOf(s).some((l) => l.clusterID === spec(s).clusterID));
  const pure = leads.filter((s) => leadersOf(s).every((l) => !l.secret));
  return [...new Set((pure.length > 0 ? pure : leads).map((s) => s.metadata.namespace ?? ''))].sort();
}

/** The member controller namespace of member `id`: where its ClusterSet (naming a token Secret) is. */
export function memberNamespace(sets: readonly LiveObject[], id: string): string | undefined {
  const mine = sets.filter((s) => spec(s).clusterID === id);
  const joined = mine.find((s) => leadersOf(s).some((l) => !!l.secret));
  return (joined ?? mine[0])?.metadata.namespace;
}

/** Runs `fns` a few at a time. */
async function all<T>(fns: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const out: T[] = new Array<T>(fns.length);
  let next = 0;
  const worker = async () => {
    while (next < fns.length) {
      const i = next++;
      out[i] = await fns[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, fns.length) }, worker));
  return out;
}

const K = IMPORT_RESOURCES;

/** What is read in the leader. */
export async function readLeader(c: ClusterReader): Promise<ClusterSnapshot> {
  // The first request alone: a cluster that does not answer costs one timeout.
  const sets = await list(c, K.ClusterSet);
  const namespaces = leaderNamespaces(sets);
  const lists: (() => Promise<LiveObject[]>)[] = [
    () => list(c, K.Namespace),
    () => list(c, K.ValidatingWebhookConfiguration, { labelSelector: WEBHOOK_SELECTOR }),
    () => list(c, K.MutatingWebhookConfiguration, { labelSelector: WEBHOOK_SELECTOR }),
    () => list(c, K.ClusterRole, { labelSelector: 'app=antrea' }),
    () => list(c, K.ClusterRoleBinding, { labelSelector: 'app=antrea' }),
    () => list(c, K.ClusterProperty),
    () => list(c, K.ServiceCIDR, { fieldSelector: 'metadata.name=kubernetes' }),
  ];
  for (const namespace of namespaces) {
    lists.push(() => list(c, K.Secret, { namespace, fieldSelector: `type=${SA_TOKEN_TYPE}` }));
    for (const kind of [
      'MemberClusterAnnounce',
      'ResourceExport',
      'ResourceImport',
      'ClusterClaim',
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'Deployment',
      'ConfigMap',
      'Service',
      'Endpoints',
    ] as Kind[])
      lists.push(() => list(c, K[kind], { namespace }));
    lists.push(() => list(c, K.Event, { namespace, fieldSelector: 'reason=ACNPImportFailed' }));
  }
  const read = await all(lists);
  return { context: c.context, server: c.server, objects: [...sets, ...read.flat()] };
}

/** One object a bundle renders: what `readRendered` looks up. */
export interface RenderedRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
}

/**
 * For `import --check`: the live object under each name a bundle renders, read with GET (a 404, or a
 * kind whose CRD is not installed, is "not there"). Secrets are never got (a GET returns the data):
 * each is looked up in a Table of names and types, as a member's Secrets are listed. Collections of
 * more than 20 rendered names are listed once instead.
 */
export async function readRendered(c: ClusterReader, objects: readonly RenderedRef[]): Promise<LiveObject[]> {
  const groups = new Map<string, { r: Resource; namespace: string | undefined; names: string[] }>();
  for (const o of objects) {
    const r = resourceOf(o.apiVersion, o.kind);
    if (!r)
      throw new ImportReadError(
        `the bundle renders ${o.apiVersion} ${o.kind}, which import --check cannot read (not in lib/status/resources.ts)`,
      );
    const namespace = r.namespaced ? o.metadata.namespace : undefined;
    const k = `${r.apiVersion}/${r.kind}/${namespace ?? ''}`;
    if (!groups.has(k)) groups.set(k, { r, namespace, names: [] });
    groups.get(k)!.names.push(o.metadata.name);
  }
  const fns: (() => Promise<LiveObject[]>)[] = [];
  for (const { r, namespace, names } of groups.values()) {
    if (r.kind === 'Secret') {
      fns.push(async () => {
        const all = await secretNames(c, namespace ?? 'default');
        return all.filter((x) => names.includes(x.metadata.name));
      });
    } else if (names.length > 20) {
      fns.push(async () => {
        const all = await list(c, r, { namespace });
        return all.filter((x) => names.includes(x.metadata.name));
      });
    } else {
      for (const name of names)
        fns.push(async () => {
          try {
            const body = await c.get(`${collectionPath(r, namespace)}/${encodeURIComponent(name)}`);
            return [asLive(r, body)];
          } catch (e) {
            if (e instanceof HttpError && e.code === 404) return [];
            throw failure(c, e, r, namespace, 'get');
          }
        });
    }
  }
  return (await all(fns)).flat();
}

/** What is read in member `id`. */
export async function readMember(c: ClusterReader, id: string): Promise<ClusterSnapshot> {
  const sets = await list(c, K.ClusterSet);
  const ns = memberNamespace(sets, id) ?? DEFAULT_MEMBER_NAMESPACE;
  const byName = (name: string) => `metadata.name=${name}`;
  const lists: (() => Promise<LiveObject[]>)[] = [
    () => list(c, K.ConfigMap, { namespace: ns, fieldSelector: byName(MEMBER_CONTROLLER_CONFIG) }),
    () => list(c, K.ConfigMap, { namespace: 'kube-system', fieldSelector: byName('antrea-config') }),
    () => list(c, K.Deployment, { namespace: ns, fieldSelector: byName(MEMBER_CONTROLLER_DEPLOYMENT) }),
    () => secretNames(c, ns),
    () => list(c, K.Gateway),
    () => list(c, K.ClusterInfoImport),
    () => list(c, K.LabelIdentity),
    () => list(c, K.ServiceExport),
    () => list(c, K.ServiceImport),
    () => list(c, K.ClusterNetworkPolicy),
    () => list(c, K.Tier),
    () => list(c, K.ClusterGroup),
    () => list(c, K.Namespace),
    () => list(c, K.Node),
    () => list(c, K.ClusterProperty),
    () => list(c, K.ClusterClaim),
    () => list(c, K.ValidatingWebhookConfiguration, { labelSelector: WEBHOOK_SELECTOR }),
    () => list(c, K.MutatingWebhookConfiguration, { labelSelector: WEBHOOK_SELECTOR }),
  ];
  const read = (await all(lists)).flat();
  // The Services and Endpoints of the namespaces that export or import: the imported ones
  // (`antrea-mc-<name>`, annotated) and the exported ones.
  const exported = new Set(
    read.filter((o) => o.kind === 'ServiceExport').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
  );
  const spaces = [
    ...new Set(
      read
        .filter((o) => o.kind === 'ServiceExport' || o.kind === 'ServiceImport')
        .map((o) => o.metadata.namespace ?? ''),
    ),
  ].sort();
  const keep = (o: LiveObject) =>
    (o.metadata.name.startsWith(IMPORT_PREFIX) && IMPORTED_SERVICE in (o.metadata.annotations ?? {})) ||
    (o.kind === 'Service' && exported.has(`${o.metadata.namespace}/${o.metadata.name}`));
  const svc = await all(
    spaces.flatMap((namespace) => [
      () => list(c, K.Service, { namespace }),
      () => list(c, K.Endpoints, { namespace }),
    ]),
  );
  return { context: c.context, server: c.server, objects: [...sets, ...read, ...svc.flat().filter(keep)] };
}

export interface ReadOptions {
  /** The kubeconfig (lib/kubeconfig.ts resolves files, $KUBECONFIG and ~/.kube/config). */
  readonly kubeconfig: KubeConfig;
  readonly leaderContext: string;
  /** Member ID → context. */
  readonly members: ReadonlyMap<string, string>;
  /** Per request. @default 30000 */
  readonly timeoutMs?: number;
  /** The time of the read. @default now */
  readonly now?: Date;
}

/** A reader for `context` of `base`, or a usage error naming the contexts there are. */
export function readerFor(base: KubeConfig, context: string, timeoutMs: number): ClusterReader {
  if (!base.getContextObject(context)) {
    const names = base.getContexts().map((x) => x.name);
    const near = closest(context, names);
    throw new ImportReadError(
      `no context ${JSON.stringify(context)} in the kubeconfig${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (it has: ${names.join(', ')})`,
      true,
    );
  }
  // @kubernetes/client-node is loaded only by the commands that reach a cluster.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeConfig: KC } = require('@kubernetes/client-node') as typeof ClientNode;
  const kc = new KC();
  kc.loadFromOptions({
    clusters: base.clusters,
    users: base.users,
    contexts: base.contexts,
    currentContext: context,
  });
  return new ClusterReader(kc, context, timeoutMs);
}

/** Reads the leader and every member (in parallel); throws ImportReadError for the first that fails. */
export async function readLiveSet(o: ReadOptions): Promise<LiveSnapshot> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const readAt = (o.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const leader = readerFor(o.kubeconfig, o.leaderContext, timeoutMs);
  const members = [...o.members].map(([id, ctx]) => [id, readerFor(o.kubeconfig, ctx, timeoutMs)] as const);
  try {
    const [l, ...ms] = await Promise.all([
      readLeader(leader),
      ...members.map(([id, r]) => readMember(r, id)),
    ]);
    if (!l!.objects.some((x) => x.kind === 'ClusterSet' && leaderNamespaces([x]).length > 0))
      throw new ImportReadError(
        `context ${JSON.stringify(o.leaderContext)} (${leader.server}) holds no leader ClusterSet ` +
          `(${MC2} ClusterSet whose spec.clusterID is among its spec.leaders): is it the leader of an Antrea ClusterSet?`,
      );
    return {
      readAt,
      leader: l!,
      members: Object.fromEntries(members.map(([id], i) => [id, ms[i]!])),
    };
  } finally {
    leader.close();
    for (const [, r] of members) r.close();
  }
}

// -------------------------------------------------------------------------------------------------
// RBAC

/** The identity `clusterset import --print-rbac` prints. */
export const IMPORT_IDENTITY = 'clusterset-import';

/** The rules: one per API group, get and list only; Secrets and Nodes list only. */
export function importRules(): Rule[] {
  const byGroup = new Map<string, Map<string, string[]>>();
  // What import reads, and what `import --check` reads by name: every kind a bundle renders.
  for (const r of [...Object.values(IMPORT_RESOURCES), ...RESOURCES]) {
    const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0]! : '';
    // Secrets: never get (a GET of a Secret returns its data); list, asked as metadata or a Table.
    const verbs = METADATA_ONLY.has(r.kind) ? ['list'] : ['get', 'list'];
    if (!byGroup.has(group)) byGroup.set(group, new Map());
    byGroup.get(group)!.set(r.plural, verbs);
  }
  const rules: Rule[] = [];
  for (const [group, resources] of [...byGroup].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const verbs of [['get', 'list'], ['list']]) {
      const rs = [...resources].filter(([, v]) => v.join() === verbs.join()).map(([p]) => p);
      if (rs.length > 0) rules.push({ apiGroups: [group], resources: rs.sort(), verbs });
    }
  }
  return rules;
}

/** ServiceAccount, ClusterRole and ClusterRoleBinding for the import identity in `namespace`. */
export function importRbac(namespace: string): Record<string, unknown>[] {
  return readOnlyIdentity(IMPORT_IDENTITY, namespace, importRules());
}

/** The YAML `--print-rbac` prints, with what RBAC cannot express said first. */
export function importRbacYaml(namespace: string): string {
  return (
    [
      '# The read-only identity `clusterset import` needs in the leader and in every member: get and',
      '# list only, cluster-wide (the kinds live in namespaces the set chose, some are cluster-scoped).',
      "# Secrets and Nodes: list only. Import asks for the metadata of the leader's ServiceAccount token",
      `# Secrets (Accept: ${METADATA_LIST_ACCEPT})`,
      "# and for the names and types of a member's Secrets (a Table without objects), never their data.",
      '# RBAC cannot restrict a grant to metadata: `list` on secrets lets whoever holds this role read',
      "# every Secret's data with another request. Bind it to a short-lived identity, or drop the",
      '# secrets rule: import then fails naming it, and the member identities are not read.',
      '',
    ].join('\n') +
    importRbac(namespace)
      .map((o) => dumpYaml(o))
      .join('---\n')
  );
}
