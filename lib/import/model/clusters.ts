/**
 * The model's clusters: each one's API server (the leader's from the members' `leaders[0].server`,
 * a member's from the kubeconfig it was read through), Service and Pod CIDRs, endpoint IP type,
 * gateway IP precedence and stretched policy from its `antrea-mc-controller-config` (antrea-mc.md
 * §e Member), with the Service CIDR discovered elsewhere where the config leaves it empty; gateway
 * Nodes from the `multicluster.antrea.io/gateway` annotation (§f); each member's identity
 * (identities.ts); then the networks, assumed from the endpoint types and gateways. The comments
 * are gathered here and written once the model's order is known (commentClusters). Pure.
 */
import type { ClusterProps, GatewayProps } from '../../model';
import { MEMBER_CONTROLLER_CONFIG } from '../../names';
import type { Notes } from '../findings';
import {
  GATEWAY_ANNOTATION,
  GATEWAY_IP_ANNOTATION,
  MC_CONFIG_KEY,
  type Json,
  annotation,
  cmp,
  find,
  isObject,
  list,
  spec,
  str,
} from '../live';
import { type MemberConfig, leaders0, readMcConfig } from '../mc-config';
import type { ClusterSnapshot } from '../snapshot';
import type { ClusterSetIdentity } from './clusterset';
import { type Context, type LeaderExports, MC_ANY, mostCommon } from './context';
import { type LeaderIdentities, identityOf, memberTokens } from './identities';

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

/** The clusters read, with what their comments need. */
export interface Clusters {
  /** The leader's `antrea-mc-controller-config`. */
  readonly leaderConfig: MemberConfig;
  readonly isMember: Set<string>;
  readonly clusters: ClusterProps[];
  /** id, field, text. */
  readonly clusterComments: [string, string, string][];
  readonly identityNotes: Map<string, string[]>;
  /** The header's note on networks (none when some member runs a gateway). */
  readonly networkNote: string[];
  readonly memberTokenSecretName: string;
}

export function importClusters(
  cx: Context,
  { memberSets, leaderNamespace, memberNamespace, leaderId }: ClusterSetIdentity,
  ids: LeaderIdentities,
  { exportsAll }: LeaderExports,
): Clusters {
  const { s, notes, leaderSnap, memberIds } = cx;
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
  const tokens = memberTokens(cx, memberSets);
  const { memberTokenSecretName } = tokens;

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
      const identity = identityOf(cx, ids, tokens, identityNotes, id);
      if (identity && Object.keys(identity).length > 0) c.memberIdentity = identity;
    }
    clusters.push(c as unknown as ClusterProps);
  }
  const networkNote = networks(clusters, isMember, gateways, anyGateway, clusterComments);
  return {
    leaderConfig,
    isMember,
    clusters,
    clusterComments,
    identityNotes,
    networkNote,
    memberTokenSecretName,
  };
}

/** Each member's network, assumed from its endpoint IP type and gateway; the header's note when no member runs a gateway. */
function networks(
  clusters: ClusterProps[],
  isMember: ReadonlySet<string>,
  gateways: ReadonlyMap<string, GatewayProps | undefined>,
  anyGateway: boolean,
  clusterComments: [string, string, string][],
): string[] {
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
  return networkNote;
}

/** The clusters' comments, at their model paths. */
export function commentClusters(notes: Notes, { clusters, clusterComments, identityNotes }: Clusters): void {
  clusters.forEach((c, i) => {
    for (const [id, field, text] of clusterComments)
      if (id === c.id) notes.comment(`clusters[${i}].${field}`, text);
    const idn = identityNotes.get(c.id);
    if (idn && c.memberIdentity) notes.comment(`clusters[${i}].memberIdentity`, ...idn);
    else if (idn) notes.comment(`clusters[${i}]`, ...idn);
  });
}
