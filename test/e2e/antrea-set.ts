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
 * The parties' own acts are in test/parties/ (antctl.ts with antrea-manifests.ts, kubectl.ts,
 * antrea-member/, antrea-leader/); this world puts them together, with the history of what Antrea's
 * controllers wrote while they ran. Nothing here runs afterwards: no controller refreshes the
 * announces or reconciles anything.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  acnpImportName,
  announceFinalizer,
  clusterInfoName,
  endpointsImportName,
  labelIdentityExportName,
  labelIdentityHash,
  RESOURCE_EXPORT_FINALIZER,
  serviceImportName,
} from '../../lib/names';
import type { Auth, Cluster } from '../kube/cluster';
import { request, startClusters } from '../kube/cluster';
import { create, expectStatus, get, pathOf, update } from '../kube/objects';
import { eventually } from '../kube/wait';
import {
  ANTCTL_MANAGER,
  createCrds,
  createMemberToken,
  deployLeaderCluster,
  initLeaderClusterSet,
  joinMember,
  playedIdentity,
  type PlayedIdentity,
} from '../parties/antctl';
import {
  ANTREA_MEMBER_CRDS,
  leaderWebhooks,
  memberWebhooks,
  multiClusterConfig,
} from '../parties/antrea-manifests';
import { leaderClusterSetStatus } from '../parties/antrea-leader/player';
import { playedLeaderImage } from '../parties/antrea-leader/pod';
import { withClusterIp } from '../parties/antrea-member/import-sync';
import { applyAntreaMemberManifest } from '../parties/antrea-member/install';
import { memberClusterSetStatus, memberWrites, serviceExportStatus } from '../parties/antrea-member/imports';
import { SimulatedMember, type ServicePort } from '../parties/antrea-member/in-leader';
import { selfSigned } from './certs';
import { tokenFor } from './fixture';

type Obj = Record<string, unknown>;

/** The field manager of Antrea's controllers' writes (inference: their client's user agent). */
export const ANTREA_MANAGER = 'antrea-mc-controller';
const MC = 'multicluster.crd.antrea.io';

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

const md = (o: Obj) => o.metadata as { name: string; namespace?: string; [k: string]: unknown };

const rfc3339 = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A self-signed CA in `dir` (what Antrea's CA controller would generate): the PEM. */
function selfSignedCa(dir: string): string {
  return selfSigned(dir, 'ca', 'antrea-mc-controller-ca', 365).cert;
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

/** Member `id` of the set writing into its leader as Antrea's member does, with its own token. */
export function simulatedMember(
  set: Pick<
    AntreaSet,
    'clusterSetId' | 'leaderId' | 'clusters' | 'leader' | 'leaderNs' | 'memberNs' | 'tokens'
  >,
  id: string,
): SimulatedMember {
  return new SimulatedMember(
    id,
    set.leader,
    set.tokens.get(id)!,
    set.leaderNs,
    set.clusterSetId,
    set.leaderId,
    set.clusters.get(id),
    set.memberNs,
  );
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
  await deployLeaderCluster(leader, leaderNs);
  const leaderSet = await initLeaderClusterSet(leader, clusterSetId, leaderId, leaderNs);

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
  for (const [id, n] of identities) await createMemberToken(o.identities, leader, leaderNs, id, n);
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
  for (const id of memberIds) {
    const c = clusters.get(id)!;
    await createCrds(c, ANTREA_MEMBER_CRDS, ANTCTL_MANAGER);
    // Stretched policy on, as Antrea's guide has it edited in for members that export label
    // identities (a member exports them only then, §d).
    applyAntreaMemberManifest(c, memberNs, multiClusterConfig({ stretched: true, serviceCIDR: '' }));
    await joinMember(o.identities, c, {
      clusterSetId,
      memberId: id,
      memberNs,
      leader,
      leaderId,
      leaderNs,
      identity: identities.get(id)!,
      tokenData: tokenData.get(id)!,
    });
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
  const played = { clusterSetId, leaderId, clusters, leader, leaderNs, memberNs, tokens };
  const sims = new Map(memberIds.map((id) => [id, simulatedMember(played, id)]));
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
  const cs = await get(ctrl, leaderSet);
  cs.status = leaderClusterSetStatus(1, memberIds, rfc3339());
  await update(ctrl, cs, ANTREA_MANAGER, '/status');

  // --- What each member's controller wrote in its own cluster (§c.3, §d, §f).
  const imports = { apiVersion: `${MC}/v1alpha1`, kind: 'ResourceImport', metadata: { namespace: leaderNs } };
  const ris = (
    expectStatus('list imports', await request(admin, 'GET', pathOf(imports)), 200).json as { items: Obj[] }
  ).items;
  for (const id of memberIds) {
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
    for (const si of w.serviceImports)
      await create(c.admin, await withClusterIp(c.admin, si), ANTREA_MANAGER);
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
