/**
 * `clusterset import`'s pure core: a snapshot of a running Antrea ClusterSet (lib/import/snapshot.ts)
 * → the model that compiles to what is there, each assumption commented at its model path, and the
 * findings of the report (lib/import/report.ts). What each field is read from:
 *
 * - clusterSetId, leader, leaderNamespace: the leader's ClusterSet (antrea-mc.md §b) and the members'
 *   `spec.namespace`; memberNamespace: the namespace of each member's ClusterSet;
 * - each cluster: the leader's API server from the members' `leaders[0].server`, a member's from the
 *   kubeconfig it was read through; Service and Pod CIDRs, endpoint IP type, gateway IP precedence
 *   and stretched policy from its `antrea-mc-controller-config` (§e Member); gateway Nodes from the
 *   `multicluster.antrea.io/gateway` annotation (§f); networks from the endpoint types and gateways;
 *   `memberIdentity` from the ServiceAccount annotated with its cluster ID, its RoleBinding to
 *   `antrea-mc-member-cluster-role`, its token Secret (§e, §i) and the member ClusterSet's
 *   `leaders[0].secret`;
 * - Services: the live ServiceImport imports, ports in their order; exporters from the Service
 *   exports (§c.1) and the members' ServiceExports;
 * - baseline policies: the ACNP imports (§c.2); stretched policies, ClusterGroups and Tiers: the
 *   members (§d);
 * - antreaVersion: the oldest `antrea-mc-controller` image tag.
 *
 * Then the model is compiled and what the leader bundle renders is compared with what lives
 * (compare.ts): that comparison, not the reading, decides what the cut-over changes.
 */
import type {
  ClusterGroupProps,
  ClusterProps,
  ClusterSetProps,
  ExportedServiceProps,
  GatewayProps,
  MemberIdentityProps,
  PolicyProps,
  ServicePortProps,
  StretchedPolicyProps,
  TierProps,
} from '../model';
import {
  BUILTIN_TIERS,
  CLUSTER_ID_ANNOTATION,
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  DEFAULT_MEMBER_TOKEN_SECRET,
  IMPORTED_ACNP_ANNOTATION,
  IMPORT_PREFIX,
  MEMBER_CONTROLLER_CONFIG,
  MEMBER_ROLE,
  acnpImportName,
  memberIdentityName,
  serviceExportName,
} from '../names';
import { groupsOf } from '../policy';
import { loadYaml } from '../yaml';
import { compareWithLive } from './compare';
import {
  GATEWAY_ANNOTATION,
  GATEWAY_IP_ANNOTATION,
  MCS_V1ALPHA1,
  MC_CONFIG_KEY,
  MC_CONTROLLER,
  SA_NAME_ANNOTATION,
  SA_TOKEN_TYPE,
  type Json,
  annotation,
  cmp,
  compareVersions,
  find,
  firstCondition,
  imageOf,
  isObject,
  list,
  ref,
  sameJson,
  spec,
  str,
  versionOfImage,
} from './live';
import { clusterGroupFromSpec, isStretched, policyFromSpec } from './policy';
import { type Finding, sortFindings } from './report';
import type { ClusterSnapshot, LiveObject, LiveSnapshot } from './snapshot';

export interface Imported {
  readonly model: ClusterSetProps;
  /** Model path (as the compiler's diagnostics spell paths, e.g. `clusters[1].gateway`) → comment lines: each assumption made, where it came from. */
  readonly comments: ReadonlyMap<string, readonly string[]>;
  readonly findings: readonly Finding[];
}

const MC_ANY = 'multicluster.crd.antrea.io/*';
const CRD_ANY = 'crd.antrea.io/*';

/** The assumptions and findings gathered while reading. */
export class Notes {
  readonly comments = new Map<string, string[]>();
  readonly findings: Finding[] = [];
  comment(path: string, ...lines: string[]): void {
    this.comments.set(path, [...(this.comments.get(path) ?? []), ...lines]);
  }
  add(f: Finding): void {
    this.findings.push(f);
  }
}

/** The most frequent value (ties: the smallest), or undefined for none. */
function mostCommon(values: readonly string[]): string | undefined {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]))[0]?.[0];
}

function leaders0(cs: LiveObject | undefined): Json {
  const ls = spec(cs).leaders;
  return Array.isArray(ls) && isObject(ls[0]) ? ls[0] : {};
}

/** A member's ClusterSet: the one naming the member's ID, else the only one that names a leader server. */
export function memberClusterSet(c: ClusterSnapshot, id: string): LiveObject | undefined {
  const all = list(c, MC_ANY, 'ClusterSet').filter(
    (o) => str(leaders0(o).server) !== undefined || str(leaders0(o).secret) !== undefined,
  );
  return all.find((o) => spec(o).clusterID === id) ?? (all.length === 1 ? all[0] : undefined);
}

/** What a member's `antrea-mc-controller-config` says (Antrea's defaults where it says nothing). */
interface MemberConfig {
  readonly found: boolean;
  readonly serviceCIDR: string | undefined;
  readonly podCIDRs: string[];
  readonly endpointIPType: 'ClusterIP' | 'PodIP';
  readonly gatewayIPPrecedence: GatewayProps['ipPrecedence'];
  readonly enableStretchedNetworkPolicy: boolean;
}

export function readMcConfig(cm: LiveObject | undefined): MemberConfig {
  const data = cm && isObject(cm.data) ? cm.data : {};
  let c: Json = {};
  try {
    const v = typeof data[MC_CONFIG_KEY] === 'string' ? loadYaml(data[MC_CONFIG_KEY] as string) : {};
    c = isObject(v) ? v : {};
  } catch {
    c = {};
  }
  const precedence = str(c.gatewayIPPrecedence)?.toLowerCase();
  return {
    found: cm !== undefined,
    serviceCIDR: str(c.serviceCIDR) || undefined,
    podCIDRs: (Array.isArray(c.podCIDRs) ? c.podCIDRs : []).filter(
      (p): p is string => typeof p === 'string' && p !== '',
    ),
    endpointIPType: c.endpointIPType === 'PodIP' ? 'PodIP' : 'ClusterIP',
    gatewayIPPrecedence: (['private', 'public', 'internal', 'external'] as const).find(
      (p) => p === precedence,
    ),
    enableStretchedNetworkPolicy: c.enableStretchedNetworkPolicy === true,
  };
}

/** The Service CIDR a leader that is no member shows: ServiceCIDR `kubernetes` (K8s ≥ 1.33). */
function clusterServiceCIDR(c: ClusterSnapshot): { cidr: string; from: string } | undefined {
  const sc = find(c, 'networking.k8s.io/*', 'ServiceCIDR', undefined, 'kubernetes');
  const cidrs = Array.isArray(spec(sc).cidrs) ? (spec(sc).cidrs as unknown[]) : [];
  const v4 = cidrs.find((x): x is string => typeof x === 'string' && x.includes('.'));
  if (v4) return { cidr: v4, from: 'ServiceCIDR kubernetes' };
  const svc = find(c, 'v1', 'Service', 'default', 'kubernetes');
  const ip = str(spec(svc).clusterIP);
  if (ip && ip.includes('.'))
    return { cidr: `${ip}/32`, from: 'Service default/kubernetes (its ClusterIP only)' };
  return undefined;
}

interface ServicePort {
  name: string;
  port: number;
  protocol: string;
}

/** Ports as Antrea's SvcPortsConverter keeps them: name ('' for none), port, protocol (TCP by default). */
export function convertPorts(ports: unknown): ServicePort[] | undefined {
  if (!Array.isArray(ports)) return undefined;
  const out: ServicePort[] = [];
  for (const p of ports) {
    if (!isObject(p) || typeof p.port !== 'number') return undefined;
    out.push({ name: str(p.name) ?? '', port: p.port, protocol: str(p.protocol) ?? 'TCP' });
  }
  return out;
}

function portsText(ps: readonly ServicePort[]): string {
  return `[${ps.map((p) => `${p.port}/${p.protocol}${p.name ? ` ${p.name}` : ''}`).join(', ')}]`;
}

const ANTCTL_NOTE = 'multicluster.antrea.io/created-by-antctl';

export function importSet(s: LiveSnapshot): Imported {
  const notes = new Notes();
  const leaderSnap = s.leader;
  const memberIds = Object.keys(s.members).sort(cmp);

  // -------------------------------------------------------------------- ClusterSet, leader, namespaces
  const memberSets = new Map<string, LiveObject | undefined>(
    memberIds.map((id) => [id, memberClusterSet(s.members[id]!, id)]),
  );
  const leaderNsVotes = [...memberSets.values()].flatMap((cs) =>
    str(spec(cs).namespace) ? [spec(cs).namespace as string] : [],
  );
  const leaderSetCandidates = list(leaderSnap, MC_ANY, 'ClusterSet').filter((o) => {
    const l = leaders0(o);
    return l.clusterID === spec(o).clusterID && str(l.secret) === undefined;
  });
  const votedNs = mostCommon(leaderNsVotes);
  const leaderSet =
    leaderSetCandidates.find((o) => o.metadata.namespace === votedNs) ?? leaderSetCandidates[0];
  const leaderNamespace = leaderSet?.metadata.namespace ?? votedNs ?? DEFAULT_LEADER_NAMESPACE;
  if (!leaderSet)
    notes.add({
      class: 'blocker',
      code: 'leader-clusterset-missing',
      message: `no leader ClusterSet (one whose spec.leaders names its own spec.clusterID) was found through context ${leaderSnap.context}`,
      fix: "pass the leader cluster's context as --leader-context (the cluster where `antctl mc init` ran)",
    });
  const clusterSetId =
    leaderSet?.metadata.name ??
    mostCommon([...memberSets.values()].flatMap((cs) => (cs ? [cs.metadata.name] : []))) ??
    'clusterset';
  const leaderId =
    str(spec(leaderSet).clusterID) ??
    mostCommon(
      [...memberSets.values()].flatMap((cs) =>
        str(leaders0(cs).clusterID) ? [leaders0(cs).clusterID as string] : [],
      ),
    ) ??
    'leader';
  if (leaderSet)
    notes.comment(
      'clusterSetId',
      `From ClusterSet ${leaderNamespace}/${clusterSetId} in the leader (context ${leaderSnap.context}).`,
    );
  if (votedNs !== undefined && votedNs !== leaderNamespace)
    notes.add({
      class: 'blocker',
      code: 'leader-namespace-differs',
      message: `members name leader namespace ${votedNs} (ClusterSet spec.namespace), but the leader's ClusterSet is in ${leaderNamespace}`,
      fix: "correct the members' ClusterSet spec.namespace, then import again",
    });

  const memberNsVotes = [...memberSets.values()].flatMap((cs) =>
    cs?.metadata.namespace ? [cs.metadata.namespace] : [],
  );
  const memberNamespace = mostCommon(memberNsVotes) ?? DEFAULT_MEMBER_NAMESPACE;
  for (const [id, cs] of memberSets) {
    if (!cs) {
      notes.add({
        class: 'blocker',
        code: 'member-clusterset-missing',
        path: `member ${id}`,
        message: `no member ClusterSet (one naming a leader server) was found through context ${s.members[id]!.context}`,
        fix: `check --member ${id}=CONTEXT names the member's context, and that \`antctl mc join\` ran there`,
      });
      continue;
    }
    if (cs.metadata.namespace !== memberNamespace)
      notes.add({
        class: 'blocker',
        code: 'member-namespace-differs',
        path: ref(cs),
        message: `member ${id} runs its member controller in ${cs.metadata.namespace}, the others in ${memberNamespace}; the model has one memberNamespace`,
        fix: 'move the member controller of one of them, or adopt them in separate steps',
      });
    if (spec(cs).clusterID !== id)
      notes.add({
        class: 'blocker',
        code: 'member-id-mismatch',
        path: `${ref(cs)} spec.clusterID`,
        message: `--member ${id}=${s.members[id]!.context} reads a cluster whose ClusterSet says clusterID ${JSON.stringify(spec(cs).clusterID)}`,
        fix: 'pass each member as --member <its cluster ID>=<its context>',
      });
    if (cs.metadata.name !== clusterSetId)
      notes.add({
        class: 'blocker',
        code: 'clusterset-id-mismatch',
        path: ref(cs),
        message: `member ${id}'s ClusterSet is named ${cs.metadata.name}, the leader's ${clusterSetId}; Antrea requires one name in every cluster`,
        fix: 'this member belongs to another ClusterSet: leave it out, or join it to this one first',
      });
    if (str(leaders0(cs).clusterID) !== undefined && leaders0(cs).clusterID !== leaderId)
      notes.add({
        class: 'blocker',
        code: 'member-leader-mismatch',
        path: `${ref(cs)} spec.leaders[0].clusterID`,
        message: `member ${id} names leader ${String(leaders0(cs).clusterID)}, the leader context holds ${leaderId}`,
        fix: 'import each ClusterSet from its own leader',
      });
  }
  if (memberNamespace !== DEFAULT_MEMBER_NAMESPACE)
    notes.comment(
      'memberNamespace',
      `Where the members' ClusterSets live (${memberNsVotes.length} of ${memberIds.length} members).`,
    );

  // -------------------------------------------------------------------- identities (leader namespace)
  const serviceAccounts = list(leaderSnap, 'v1', 'ServiceAccount', leaderNamespace);
  const annotated = serviceAccounts.filter((sa) => annotation(sa, CLUSTER_ID_ANNOTATION) !== undefined);
  const saById = new Map<string, LiveObject[]>();
  for (const sa of annotated) {
    const id = annotation(sa, CLUSTER_ID_ANNOTATION)!;
    saById.set(id, [...(saById.get(id) ?? []), sa]);
  }
  const memberBindings = list(
    leaderSnap,
    'rbac.authorization.k8s.io/v1',
    'RoleBinding',
    leaderNamespace,
  ).filter((rb) => {
    const r = isObject(rb.roleRef) ? rb.roleRef : {};
    return r.kind === 'Role' && r.name === MEMBER_ROLE;
  });
  const boundSAs = (rb: LiveObject): string[] =>
    (Array.isArray(rb.subjects) ? rb.subjects : []).flatMap((x) =>
      isObject(x) &&
      x.kind === 'ServiceAccount' &&
      (x.namespace === undefined || x.namespace === leaderNamespace) &&
      typeof x.name === 'string'
        ? [x.name]
        : [],
    );
  const tokenSecrets = list(leaderSnap, 'v1', 'Secret', leaderNamespace).filter(
    (sec) =>
      annotation(sec, SA_NAME_ANNOTATION) !== undefined &&
      (sec.type === undefined || sec.type === SA_TOKEN_TYPE),
  );
  const legacy = serviceAccounts.filter(
    (sa) =>
      annotation(sa, CLUSTER_ID_ANNOTATION) === undefined &&
      (sa.metadata.name === 'antrea-mc-member-access-sa' ||
        memberBindings.some((rb) => boundSAs(rb).includes(sa.metadata.name))),
  );
  for (const sa of legacy)
    notes.add({
      class: 'blocker',
      code: 'shared-member-identity',
      path: ref(sa),
      message:
        `ServiceAccount ${sa.metadata.name} may write as any member: it is bound to ${MEMBER_ROLE} without a ` +
        `${CLUSTER_ID_ANNOTATION} annotation (Antrea before 2.7 shared one such identity, antrea-mc-member-access-sa, among all members)`,
      fix:
        'follow Antrea\'s v2.7 upgrade guide (docs/multicluster/upgrade.md, "Upgrade to v2.7 or later"): for each member create ' +
        `its own ServiceAccount annotated ${CLUSTER_ID_ANNOTATION}: <id>, a RoleBinding to ${MEMBER_ROLE} and a token Secret ` +
        "(`antctl mc create membertoken`), copy that token into the member and point its ClusterSet's leaders[0].secret at it, " +
        'then delete the shared ServiceAccount, its RoleBinding and its token Secret; then import again',
    });
  for (const [id, sas] of [...saById.entries()].sort((a, b) => cmp(a[0], b[0])))
    if (sas.length > 1)
      notes.add({
        class: 'blocker',
        code: 'member-identity-ambiguous',
        path: sas.map(ref).join(', '),
        message: `${sas.length} ServiceAccounts carry ${CLUSTER_ID_ANNOTATION}: ${id}; the model names one identity per member, and which one the member uses cannot be read from the leader`,
        fix: `delete the ServiceAccounts member ${id} does not use (antctl and Antrea's webhook refuse a second identity for one ID)`,
      });

  // -------------------------------------------------------------------- exports, imports, announces
  const exportsAll = list(leaderSnap, MC_ANY, 'ResourceExport', leaderNamespace);
  const importsAll = list(leaderSnap, MC_ANY, 'ResourceImport', leaderNamespace);
  const importsOfKind = (k: string) => importsAll.filter((i) => spec(i).kind === k);
  const exportsOfKind = (k: string) => exportsAll.filter((e) => spec(e).kind === k);

  // -------------------------------------------------------------------- versions
  const versions: { where: string; version: string | undefined; image: string | undefined }[] = [];
  const leaderDeploy = find(leaderSnap, 'apps/v1', 'Deployment', leaderNamespace, MC_CONTROLLER);
  versions.push({
    where: `leader ${leaderId}`,
    image: imageOf(leaderDeploy, MC_CONTROLLER),
    version: versionOfImage(imageOf(leaderDeploy, MC_CONTROLLER)),
  });
  for (const id of memberIds) {
    const d = find(s.members[id], 'apps/v1', 'Deployment', memberNamespace, MC_CONTROLLER);
    versions.push({
      where: `member ${id}`,
      image: imageOf(d, MC_CONTROLLER),
      version: versionOfImage(imageOf(d, MC_CONTROLLER)),
    });
  }
  const known = versions.filter((v) => v.version !== undefined);
  const oldest = [...known].sort((a, b) => compareVersions(a.version!, b.version!))[0];
  let antreaVersion: string | undefined;
  if (oldest) {
    antreaVersion = oldest.version;
    const distinct = [...new Set(known.map((v) => v.version!))].sort(compareVersions);
    notes.comment(
      'antreaVersion',
      distinct.length === 1
        ? `From the antrea-mc-controller image tags (${oldest.image} and the same in ${known.length - 1} more).`
        : `The oldest antrea-mc-controller running: ${known.map((v) => `${v.where} ${v.version}`).join(', ')}.`,
    );
    if (compareVersions(oldest.version!, '2.7.0') < 0)
      notes.add({
        class: 'blocker',
        code: 'antrea-too-old',
        path: 'antreaVersion',
        message: `${oldest.where} runs Antrea ${oldest.version} (${oldest.image}); clusterset's member-writes admission policy knows members by per-member ServiceAccounts, which Antrea requires only from 2.7`,
        fix: "upgrade every cluster to Antrea 2.7 or later as Antrea's upgrade guide says (including the per-member identities), then import again",
      });
  } else {
    notes.comment(
      '',
      'antreaVersion: no antrea-mc-controller image tag could be read; the compiler assumes its default.',
    );
  }
  for (const v of versions)
    if (v.version === undefined)
      notes.add({
        class: 'info',
        code: 'antrea-version-unknown',
        path: v.where,
        message: `the antrea-mc-controller image of ${v.where} (${v.image ?? 'no Deployment found'}) carries no version tag`,
        fix: 'set antreaVersion in the model to the release it runs',
      });

  // -------------------------------------------------------------------- clusters
  const leaderConfig = readMcConfig(
    find(leaderSnap, 'v1', 'ConfigMap', leaderNamespace, MEMBER_CONTROLLER_CONFIG),
  );
  const isMember = new Set(memberIds);
  const clusterIds = [...new Set([leaderId, ...memberIds])].sort(cmp);
  const configs = new Map(
    memberIds.map((id) => [
      id,
      readMcConfig(find(s.members[id], 'v1', 'ConfigMap', memberNamespace, MEMBER_CONTROLLER_CONFIG)),
    ]),
  );
  const gatewaysOf = (id: string): GatewayProps | undefined => {
    const nodes = list(s.members[id], 'v1', 'Node').filter(
      (n) => annotation(n, GATEWAY_ANNOTATION) !== undefined,
    );
    if (nodes.length === 0) return undefined;
    const precedence = configs.get(id)?.gatewayIPPrecedence;
    return {
      nodes: nodes.map((n) => ({
        name: n.metadata.name,
        ...(annotation(n, GATEWAY_IP_ANNOTATION) ? { ip: annotation(n, GATEWAY_IP_ANNOTATION)! } : {}),
      })),
      ...(precedence && precedence !== 'private' ? { ipPrecedence: precedence } : {}),
    };
  };
  const gateways = new Map(memberIds.map((id) => [id, gatewaysOf(id)]));
  const anyGateway = [...gateways.values()].some((g) => g !== undefined);

  const leaderServers = [...memberSets.values()].flatMap((cs) =>
    str(leaders0(cs).server) ? [leaders0(cs).server as string] : [],
  );
  const memberTokenSecrets = new Map(
    memberIds.flatMap((id) =>
      str(leaders0(memberSets.get(id)).secret)
        ? [[id, leaders0(memberSets.get(id)).secret as string] as const]
        : [],
    ),
  );
  // A name that several members share (or the only member's) becomes secrets.memberTokenSecretName;
  // names of their own stay per member (memberIdentity.memberTokenSecret).
  const common = mostCommon([...memberTokenSecrets.values()]);
  const shared =
    common !== undefined &&
    ([...memberTokenSecrets.values()].filter((v) => v === common).length > 1 ||
      memberTokenSecrets.size === 1);
  const memberTokenSecretName = shared ? common : DEFAULT_MEMBER_TOKEN_SECRET;

  const identityNotes = new Map<string, string[]>();
  const clusters: ClusterProps[] = [];
  const clusterComments: [string, string, string][] = []; // id, field, text
  for (const id of clusterIds) {
    const cfg = configs.get(id);
    let apiServer: string;
    if (id === leaderId) {
      const server = mostCommon(leaderServers);
      apiServer = server ?? leaderSnap.server;
      clusterComments.push([
        id,
        'apiServer',
        server
          ? `The leader as members reach it: leaders[0].server of the members' ClusterSets${new Set(leaderServers).size > 1 ? ` (the most common of ${[...new Set(leaderServers)].join(', ')})` : ''}.`
          : `No member names the leader's server: the kubeconfig's (context ${leaderSnap.context}). Members must reach it at this URL.`,
      ]);
    } else {
      apiServer = s.members[id]!.server;
      clusterComments.push([
        id,
        'apiServer',
        `From the kubeconfig (context ${s.members[id]!.context}): Argo CD or Flux must reach the member at this URL; change it if they reach it otherwise.`,
      ]);
    }
    let serviceCIDR = cfg?.serviceCIDR;
    if (serviceCIDR)
      clusterComments.push([
        id,
        'serviceCIDR',
        `From ${memberNamespace}/${MEMBER_CONTROLLER_CONFIG} (${MC_CONFIG_KEY}).`,
      ]);
    if (!serviceCIDR) {
      const ci = exportsAll.find(
        (e) => e.metadata.name === `${id}-clusterinfo` && spec(e).kind === 'ClusterInfo',
      );
      const fromCi =
        ci && isObject(spec(ci).clusterInfo) ? str((spec(ci).clusterInfo as Json).serviceCIDR) : undefined;
      const gw = list(s.members[id], MC_ANY, 'Gateway', memberNamespace)
        .map((g) => str(g.serviceCIDR))
        .find((x) => x);
      const own = clusterServiceCIDR(id === leaderId ? leaderSnap : s.members[id]!);
      if (fromCi) {
        serviceCIDR = fromCi;
        clusterComments.push([
          id,
          'serviceCIDR',
          `Discovered by Antrea (the config leaves it empty): ClusterInfo export ${id}-clusterinfo.`,
        ]);
      } else if (gw) {
        serviceCIDR = gw;
        clusterComments.push([
          id,
          'serviceCIDR',
          `Discovered by Antrea (the config leaves it empty): its Gateway object.`,
        ]);
      } else if (own) {
        serviceCIDR = own.cidr;
        clusterComments.push([
          id,
          'serviceCIDR',
          `From ${own.from}${own.from.includes('only') ? ': the real range could not be read, write it here' : ''}.`,
        ]);
        if (own.from.includes('only'))
          notes.add({
            class: 'info',
            code: 'service-cidr-unknown',
            message: `the Service CIDR of ${id} could not be read; the model carries ${own.cidr}`,
            fix: `write ${id}'s real Service CIDR into the model`,
          });
      } else if (!isMember.has(id)) {
        // A leader that is no member: its Service CIDR is rendered nowhere, but the model requires one.
        serviceCIDR = '0.0.0.0/32';
        clusterComments.push([
          id,
          'serviceCIDR',
          'Unknown (not read): a leader that is no member renders it nowhere, but write its real Service CIDR here.',
        ]);
        notes.add({
          class: 'info',
          code: 'service-cidr-unknown',
          message: `the Service CIDR of leader ${id} could not be read; the model carries the placeholder 0.0.0.0/32, which nothing renders`,
          fix: `write ${id}'s real Service CIDR into the model`,
        });
      } else {
        serviceCIDR = '0.0.0.0/32';
        notes.add({
          class: 'blocker',
          code: 'service-cidr-unknown',
          message: `the Service CIDR of ${id} could not be read from its config, a ClusterInfo export, a Gateway or the cluster`,
          fix: `write ${id}'s Service CIDR into the model (clusters[].serviceCIDR)`,
        });
      }
    }
    const c: Record<string, unknown> = { id, apiServer, serviceCIDR };
    if (cfg && cfg.podCIDRs.length > 0) c.podCIDRs = cfg.podCIDRs;
    if (cfg?.endpointIPType === 'PodIP') c.endpointIPType = 'PodIP';
    const gw = gateways.get(id);
    if (gw) {
      c.gateway = gw;
      clusterComments.push([
        id,
        'gateway',
        `Nodes annotated ${GATEWAY_ANNOTATION}; precedence from its ${MEMBER_CONTROLLER_CONFIG}.`,
      ]);
    }
    if (cfg?.enableStretchedNetworkPolicy) c.enableStretchedNetworkPolicy = true;
    if (cfg && !cfg.found && isMember.has(id))
      notes.add({
        class: 'info',
        code: 'member-config-missing',
        path: `member ${id}`,
        message: `member ${id} has no ${memberNamespace}/${MEMBER_CONTROLLER_CONFIG}: Antrea's defaults are assumed (ClusterIP endpoints, no stretched policy)`,
      });
    if (isMember.has(id)) {
      const identity = identityOf(id);
      if (identity && Object.keys(identity).length > 0) c.memberIdentity = identity;
    }
    clusters.push(c as unknown as ClusterProps);
  }

  function identityOf(id: string): MemberIdentityProps | undefined {
    const sas = saById.get(id) ?? [];
    const sa = sas[0];
    if (!sa) {
      notes.add({
        class: 'blocker',
        code: 'member-identity-missing',
        path: `member ${id}`,
        message: `no ServiceAccount in ${leaderNamespace} carries ${CLUSTER_ID_ANNOTATION}: ${id}, so member ${id} writes through some other (shared) identity`,
        fix: `give member ${id} its own identity (\`antctl mc create membertoken <name> --cluster-id ${id}\`), copy its token into the member and point its ClusterSet's leaders[0].secret at it; then import again`,
      });
      return undefined;
    }
    const saName = sa.metadata.name;
    const rbs = memberBindings.filter((rb) => boundSAs(rb).includes(saName));
    const rb = rbs.find((x) => x.metadata.name === saName) ?? rbs[0];
    const secrets = tokenSecrets.filter((x) => annotation(x, SA_NAME_ANNOTATION) === saName);
    const secret =
      secrets.find((x) => x.metadata.name === saName) ??
      secrets.find((x) => x.metadata.name === `${saName}-token`) ??
      secrets[0];
    const out: Record<string, string> = {};
    if (saName !== memberIdentityName(id)) out.serviceAccount = saName;
    if (rb && rb.metadata.name !== saName) out.roleBinding = rb.metadata.name;
    if (secret && secret.metadata.name !== saName) out.tokenSecret = secret.metadata.name;
    const mts = memberTokenSecrets.get(id);
    if (mts && mts !== memberTokenSecretName) out.memberTokenSecret = mts;
    const how = annotation(sa, ANTCTL_NOTE) === 'true' ? ' (made by `antctl mc create membertoken`)' : '';
    identityNotes.set(id, [
      `The identity as it exists: ServiceAccount ${saName}${how}, RoleBinding ${rb?.metadata.name ?? '(none)'} and token Secret ` +
        `${secret?.metadata.name ?? '(none)'} in ${leaderNamespace}; in the member, Secret ${mts ?? '(unknown)'} (its ClusterSet's leaders[0].secret).`,
    ]);
    if (!rb)
      notes.add({
        class: 'info',
        code: 'member-rolebinding-missing',
        path: ref(sa),
        message: `no RoleBinding binds ${saName} to ${MEMBER_ROLE}; the leader bundle creates ${out.roleBinding ?? saName}`,
      });
    if (!secret)
      notes.add({
        class: 'info',
        code: 'member-token-secret-missing',
        path: ref(sa),
        message: `no token Secret in ${leaderNamespace} is annotated ${SA_NAME_ANNOTATION}: ${saName}; the leader bundle creates ${saName}, with a new token (the member keeps using the one it has until it is replaced)`,
      });
    return out;
  }
  // -------------------------------------------------------------------- networks
  const networkNote: string[] = [];
  if (anyGateway) {
    const podIp = clusters.filter((c) => c.endpointIPType === 'PodIP').map((c) => c.id);
    for (const c of clusters as unknown as Record<string, unknown>[]) {
      const id = c.id as string;
      if (!isMember.has(id)) continue;
      if (c.endpointIPType === 'PodIP') {
        c.network = 'pod-network';
        clusterComments.push([
          id,
          'network',
          `Assumed: PodIP endpoints mean ${podIp.join(', ')} reach each other's Pod IPs directly, on one network.`,
        ]);
      } else if (gateways.get(id)) {
        c.network = id;
        clusterComments.push([
          id,
          'network',
          `Assumed: ${id} runs a Multi-cluster Gateway and exports ClusterIPs, so the others reach it through gateways; a network of its own. Merge networks that share Pod routing.`,
        ]);
      } else {
        clusterComments.push([
          id,
          'network',
          `Unsure: ${id} runs no gateway while others do; left on the default network. Name its network if it is reached through a gateway.`,
        ]);
      }
    }
    // Reorder keys so that network follows apiServer (readability only).
    for (let i = 0; i < clusters.length; i++) {
      const { id, apiServer, network, ...rest } = clusters[i] as unknown as Record<string, unknown>;
      clusters[i] = (network === undefined
        ? { id, apiServer, ...rest }
        : { id, apiServer, network, ...rest }) as unknown as ClusterProps;
    }
  } else {
    networkNote.push(
      'No member runs a Multi-cluster Gateway: every cluster is taken to share one flat network (no `network` declared).',
    );
  }

  // -------------------------------------------------------------------- Services
  const services: ExportedServiceProps[] = [];
  const serviceComments: [string, string, string][] = []; // key, field, text
  const svcKey = (ns: string, name: string) => `${ns}/${name}`;
  for (const ri of importsOfKind('ServiceImport')) {
    const sp = spec(ri);
    const ns = str(sp.namespace);
    const name = str(sp.name);
    const si = isObject(sp.serviceImport) && isObject(sp.serviceImport.spec) ? sp.serviceImport.spec : {};
    const ports = convertPorts(si.ports);
    if (!ns || !name || !ports) {
      notes.add({
        class: 'blocker',
        code: 'import-unreadable',
        path: ref(ri),
        message:
          'a ServiceImport import without spec.namespace, spec.name or serviceImport.spec.ports: the model cannot carry it, and the leader bundle would not render it',
        fix: "find out which controller wrote it; it is none of Antrea's shapes",
      });
      continue;
    }
    if (services.some((x) => x.namespace === ns && x.name === name)) continue;
    const exportedFrom: string[] = [];
    const notesFor: string[] = [];
    for (const id of memberIds) {
      const se = exportsAll.find(
        (e) => e.metadata.name === serviceExportName(id, ns, name, 'service') && spec(e).kind === 'Service',
      );
      if (se) {
        const svc = isObject(spec(se).service) ? (spec(se).service as Json) : {};
        const ePorts = convertPorts(isObject(svc.serviceSpec) ? svc.serviceSpec.ports : undefined);
        const cond = firstCondition(se);
        const failed = cond !== undefined && cond.type === 'Failure';
        const mismatch = ePorts !== undefined && !sameJson(ePorts, ports);
        if (failed || mismatch) {
          notes.add({
            class: 'info',
            code: 'export-failed',
            path: ref(se),
            message:
              `${id}'s export of ${ns}/${name} ` +
              (failed
                ? `failed under Antrea's leader (${String(cond!.reason ?? cond!.type)}: ${String(cond!.message ?? '')})`
                : 'is accepted') +
              (mismatch
                ? `, its ports ${portsText(ePorts!)} differ from the import's ${portsText(ports)}`
                : '') +
              `; the model leaves ${id} out of exportedFrom, so clusterset's reconciler refuses it too`,
            fix: `give ${ns}/${name} in ${id} the ports ${portsText(ports)} (in that order), then add ${id} to exportedFrom`,
          });
          notesFor.push(
            `${id} exports it but is left out: ${failed ? 'its export failed' : "its ports differ from the import's"}.`,
          );
          continue;
        }
        exportedFrom.push(id);
        continue;
      }
      const local = find(s.members[id], MCS_V1ALPHA1, 'ServiceExport', ns, name);
      if (local) {
        exportedFrom.push(id);
        notesFor.push(
          `${id} has a ServiceExport but no export in the leader now (no ready endpoints?): listed as an exporter.`,
        );
      }
    }
    const backed = exportsOfKind('Service').some((e) => spec(e).namespace === ns && spec(e).name === name);
    if (exportedFrom.length === 0) {
      // The model cannot declare a Service no member exports: left out, its import is one the
      // bundle would not render (import-deleted says what that means).
      notes.add({
        class: 'info',
        code: 'orphan-import',
        path: ref(ri),
        message: `no member exports ${ns}/${name}${backed ? " with the import's ports" : ' (no Service export, no ServiceExport)'}: ${ref(ri)} is an orphan, and the model, which declares only exported Services, leaves it out`,
        fix: `export ${ns}/${name} again from a member, or delete the import before the cut-over once no member uses antrea-mc-${name}`,
      });
      continue;
    }
    const modelPorts: ServicePortProps[] = ports.map((p) => ({
      ...(p.name ? { name: p.name } : {}),
      port: p.port,
      ...(p.protocol !== 'TCP' ? { protocol: p.protocol as ServicePortProps['protocol'] } : {}),
    }));
    services.push({ namespace: ns, name, ports: modelPorts, exportedFrom });
    serviceComments.push([svcKey(ns, name), 'ports', `From ${ref(ri)}, in its order.`]);
    for (const n of notesFor) serviceComments.push([svcKey(ns, name), 'exportedFrom', n]);
  }
  for (const e of exportsOfKind('Service')) {
    const ns = str(spec(e).namespace);
    const name = str(spec(e).name);
    if (!ns || !name || services.some((x) => x.namespace === ns && x.name === name)) continue;
    if (!importsOfKind('ServiceImport').some((i) => spec(i).namespace === ns && spec(i).name === name))
      notes.add({
        class: 'info',
        code: 'export-without-import',
        path: ref(e),
        message: `${ref(e)} exports ${ns}/${name}, but no ServiceImport import exists for it (Antrea's leader did not converge it); it stays out of the model and the reconciler refuses it`,
        fix: `add ${ns}/${name} to services with its ports if it should be imported (a new import in every member)`,
      });
  }
  services.sort((a, b) => cmp(svcKey(a.namespace, a.name), svcKey(b.namespace, b.name)));

  // -------------------------------------------------------------------- baseline policies
  const baselinePolicies: PolicyProps[] = [];
  const policyComments: [string, string][] = [];
  for (const ri of importsOfKind('AntreaClusterNetworkPolicy')) {
    const name = str(spec(ri).name);
    const live = isObject(spec(ri).clusternetworkpolicy)
      ? (spec(ri).clusternetworkpolicy as Json)
      : undefined;
    if (!name || !live) {
      notes.add({
        class: 'blocker',
        code: 'import-unreadable',
        path: ref(ri),
        message: 'an ACNP import without spec.name or spec.clusternetworkpolicy: the model cannot carry it',
        fix: "find out which controller wrote it; it is none of Antrea's shapes",
      });
      continue;
    }
    const { policy, unexpressible } = policyFromSpec(name, live);
    for (const u of unexpressible)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `${ref(ri)} spec.clusternetworkpolicy.${u.path}`,
        message: `policy ${name} does not round-trip through the model: ${u.why}; adopting it would change antrea-mc-${name} in every member`,
        fix: `change the ACNP ResourceExport of ${name} so that it uses only what the model can say, or accept the change knowingly`,
      });
    baselinePolicies.push(policy);
    policyComments.push([
      name,
      `From ${ref(ri)}${ri.metadata.name !== acnpImportName(name) ? ` (named otherwise than ${acnpImportName(name)}!)` : ''}.`,
    ]);
    if (!exportsOfKind('AntreaClusterNetworkPolicy').some((e) => spec(e).name === name))
      notes.add({
        class: 'info',
        code: 'orphan-import',
        path: ref(ri),
        message: `no ACNP export backs ${ref(ri)}; the model keeps policy ${name}, now compiled from the model alone`,
      });
  }
  baselinePolicies.sort((a, b) => cmp(a.name, b.name));
  for (const e of exportsOfKind('AntreaClusterNetworkPolicy')) {
    const name = str(spec(e).name);
    if (name && !baselinePolicies.some((p) => p.name === name))
      notes.add({
        class: 'info',
        code: 'export-without-import',
        path: ref(e),
        message: `the ACNP export ${e.metadata.name} (policy ${name}) has no import; it stays out of the model`,
        fix: `add it to baselinePolicies if every member should get it (a new antrea-mc-${name} in every member)`,
      });
  }

  // -------------------------------------------------------------------- stretched policies
  const byName = new Map<string, { id: string; spec: Json }[]>();
  for (const id of memberIds) {
    for (const p of list(s.members[id], CRD_ANY, 'ClusterNetworkPolicy')) {
      if (annotation(p, IMPORTED_ACNP_ANNOTATION) !== undefined || p.metadata.name.startsWith(IMPORT_PREFIX))
        continue;
      if (!isObject(p.spec) || !isStretched(p.spec)) continue;
      byName.set(p.metadata.name, [...(byName.get(p.metadata.name) ?? []), { id, spec: p.spec }]);
    }
  }
  const stretchedPolicies: StretchedPolicyProps[] = [];
  for (const [name, copies] of [...byName.entries()].sort((a, b) => cmp(a[0], b[0]))) {
    const first = copies[0]!;
    const same = copies.filter((c) => sameJson(c.spec, first.spec)).map((c) => c.id);
    const other = copies.filter((c) => !sameJson(c.spec, first.spec)).map((c) => c.id);
    if (other.length > 0)
      notes.add({
        class: 'blocker',
        code: 'stretched-policy-differs',
        path: `ClusterNetworkPolicy ${name}`,
        message: `stretched policy ${name} differs between members (${same.join(', ')} vs ${other.join(', ')}); the model has one spec per name, taken from ${first.id}`,
        fix: `make the copies equal, or rename one of them, then import again`,
      });
    const { policy, unexpressible } = policyFromSpec(name, first.spec);
    for (const u of unexpressible)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `ClusterNetworkPolicy ${name} (member ${first.id}) spec.${u.path}`,
        message: `stretched policy ${name} does not round-trip through the model: ${u.why}`,
        fix: `change ${name} in the members so that it uses only what the model can say, or accept the change knowingly`,
      });
    const all = same.length === memberIds.length;
    stretchedPolicies.push({ ...policy, ...(all ? {} : { members: same }) });
    policyComments.push([name, `From ClusterNetworkPolicy ${name} in ${same.join(', ')}.`]);
  }

  // -------------------------------------------------------------------- Tiers and ClusterGroups
  const usedTiers = [
    ...new Set([...baselinePolicies, ...stretchedPolicies].flatMap((p) => (p.tier ? [p.tier] : []))),
  ]
    .filter((t) => !BUILTIN_TIERS.includes(t))
    .sort(cmp);
  const tiers: TierProps[] = [];
  const tierComments: [string, string][] = [];
  for (const t of usedTiers) {
    const seen = memberIds.flatMap((id) => {
      const o = list(s.members[id], CRD_ANY, 'Tier').find((x) => x.metadata.name === t);
      return o ? [{ id, spec: spec(o) }] : [];
    });
    const first = seen[0];
    if (!first || typeof first.spec.priority !== 'number') {
      notes.add({
        class: 'blocker',
        code: 'tier-unknown',
        path: `Tier ${t}`,
        message: `Tier ${t}, which a policy uses, exists in no member read; its priority is unknown`,
        fix: `declare Tier ${t} in the model's tiers with the priority it has`,
      });
      continue;
    }
    const desc = str(first.spec.description);
    tiers.push({ name: t, priority: first.spec.priority, ...(desc ? { description: desc } : {}) });
    const differ = seen.filter((x) => !sameJson(x.spec, first.spec)).map((x) => x.id);
    tierComments.push([
      t,
      `From Tier ${t} in ${first.id}${differ.length ? `; it differs in ${differ.join(', ')}, whose copy the cut-over changes` : ''}.`,
    ]);
    const missing = memberIds.filter((id) => !seen.some((x) => x.id === id));
    if (missing.length > 0)
      notes.add({
        class: 'change',
        code: 'tier-created',
        path: `Tier ${t}`,
        message: `Tier ${t} is missing in ${missing.join(', ')}; their bundles create it (until then Antrea drops replicated policies of that Tier there)`,
      });
  }
  tiers.sort((a, b) => cmp(a.name, b.name));

  const groupNames = new Set<string>();
  const clusterGroups: ClusterGroupProps[] = [];
  const groupComments: [string, string][] = [];
  const queue = [...baselinePolicies, ...stretchedPolicies].flatMap((p) => groupsOf(p));
  while (queue.length > 0) {
    const g = queue.shift()!;
    if (groupNames.has(g)) continue;
    groupNames.add(g);
    const seen = memberIds.flatMap((id) => {
      const o = list(s.members[id], CRD_ANY, 'ClusterGroup').find((x) => x.metadata.name === g);
      return o ? [{ id, spec: spec(o) }] : [];
    });
    const first = seen[0];
    if (!first) {
      notes.add({
        class: 'blocker',
        code: 'cluster-group-unknown',
        path: `ClusterGroup ${g}`,
        message: `ClusterGroup ${g}, which a policy names, exists in no member read`,
        fix: `declare ClusterGroup ${g} in the model's clusterGroups`,
      });
      continue;
    }
    const { group, dropped } = clusterGroupFromSpec(g, first.spec);
    for (const d of dropped)
      notes.add({
        class: 'blocker',
        code: 'policy-not-expressible',
        path: `ClusterGroup ${g} (member ${first.id}) spec.${d}`,
        message: `ClusterGroup ${g} has a field the model lacks`,
        fix: `change ClusterGroup ${g} to use only what the model can say`,
      });
    clusterGroups.push(group);
    queue.push(...(group.childGroups ?? []));
    groupComments.push([g, `From ClusterGroup ${g} in ${first.id}.`]);
  }
  clusterGroups.sort((a, b) => cmp(a.name, b.name));

  // -------------------------------------------------------------------- the model
  const model: Record<string, unknown> = { clusterSetId };
  if (antreaVersion !== undefined) model.antreaVersion = antreaVersion;
  if (leaderNamespace !== DEFAULT_LEADER_NAMESPACE) model.leaderNamespace = leaderNamespace;
  if (memberNamespace !== DEFAULT_MEMBER_NAMESPACE) model.memberNamespace = memberNamespace;
  model.leader = leaderId;
  model.members = memberIds;
  model.clusters = clusters;
  if (services.length > 0) model.services = services;
  if (tiers.length > 0) model.tiers = tiers;
  if (clusterGroups.length > 0) model.clusterGroups = clusterGroups;
  if (baselinePolicies.length > 0) model.baselinePolicies = baselinePolicies;
  if (stretchedPolicies.length > 0) model.stretchedPolicies = stretchedPolicies;
  if (memberTokenSecretName !== DEFAULT_MEMBER_TOKEN_SECRET) {
    model.secrets = { memberTokenSecretName };
    notes.comment(
      'secrets.memberTokenSecretName',
      "The token Secret name most members' ClusterSets name (leaders[0].secret); members that name another carry memberIdentity.memberTokenSecret.",
    );
  }

  notes.comment(
    '',
    `Imported by \`clusterset import\` from the running ClusterSet ${clusterSetId} (leader context ${leaderSnap.context}, read ${s.readAt}).`,
    'Each comment says where a value came from or what was assumed; check the ones that say "Assumed" or "Unsure".',
    'Add `delivery` (the git repository Argo CD or Flux reads) before the cut-over; see docs/import.md.',
    ...networkNote,
  );
  notes.comment(
    'leader',
    `spec.clusterID of the leader's ClusterSet${isMember.has(leaderId) ? '; it is also a member (a member ClusterSet names it)' : ''}.`,
  );
  notes.comment('members', 'The clusters read with --member ID=CONTEXT.');
  if (leaderConfig.found)
    notes.comment(
      'leader',
      `The leader's ${MEMBER_CONTROLLER_CONFIG} has enableStretchedNetworkPolicy: ${leaderConfig.enableStretchedNetworkPolicy}.`,
    );
  clusters.forEach((c, i) => {
    for (const [id, field, text] of clusterComments)
      if (id === c.id) notes.comment(`clusters[${i}].${field}`, text);
    const idn = identityNotes.get(c.id);
    if (idn && c.memberIdentity) notes.comment(`clusters[${i}].memberIdentity`, ...idn);
    else if (idn) notes.comment(`clusters[${i}]`, ...idn);
  });
  services.forEach((x, i) => {
    for (const [k, field, text] of serviceComments)
      if (k === svcKey(x.namespace, x.name)) notes.comment(`services[${i}].${field}`, text);
  });
  tiers.forEach((t, i) =>
    tierComments.filter(([n]) => n === t.name).forEach(([, text]) => notes.comment(`tiers[${i}]`, text)),
  );
  clusterGroups.forEach((g, i) =>
    groupComments
      .filter(([n]) => n === g.name)
      .forEach(([, text]) => notes.comment(`clusterGroups[${i}]`, text)),
  );
  baselinePolicies.forEach((p, i) =>
    policyComments
      .filter(([n]) => n === p.name)
      .forEach(([, text]) => notes.comment(`baselinePolicies[${i}]`, text)),
  );
  stretchedPolicies.forEach((p, i) =>
    policyComments
      .filter(([n]) => n === p.name)
      .forEach(([, text]) => notes.comment(`stretchedPolicies[${i}]`, text)),
  );

  // Antrea's leader still runs when the model is first synced: the reconciler waits in standby.
  model.reconciler = { waitForAntreaLeader: true };
  notes.comment(
    'reconciler.waitForAntreaLeader',
    "Warm standby: the reconciler leads only once Antrea's leader controller is gone (its Deployment at zero, its webhook configurations deleted; docs/import.md). Set it false in a reviewed change after the cut-over.",
  );

  const typed = model as unknown as ClusterSetProps;
  compareWithLive(s, typed, { leaderNamespace, memberNamespace, leaderConfig, memberSets }, notes);
  return { model: typed, comments: notes.comments, findings: sortFindings(dedupe(notes.findings)) };
}

function dedupe(fs: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return fs.filter((f) => {
    const k = JSON.stringify([f.class, f.code, f.path, f.message]);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type { MemberConfig };
