/**
 * The impact of a change in the model's own terms, derived only from the rendered objects on both
 * sides (so it works for any git revision of out/, without loading the old model): members joining
 * and leaving, Services becoming importable or exported from other members, port changes, baseline
 * and stretched policies with a plain description of whom they admit, Tiers, cluster identity,
 * member controller settings, admission policies and delivery objects.
 *
 * What each object means comes from lib/render/* and lib/names.ts: the leader holds the member
 * identities (a ServiceAccount annotated with the member's cluster ID, its token Secret and its
 * RoleBinding to Antrea's member Role: `member-<id>` unless the model's `memberIdentity` names them
 * otherwise, so they are found by what they say, not by name) and the compiled
 * ResourceImports (`<ns>-<name>-service`, `<policy>-antreaclusternetworkpolicy`) that every member
 * imports; members hold their ClusterSet, controller settings, identity, ServiceExports, Tiers and
 * stretched policies.
 *
 * This file holds the entry and the summary's types; facts.ts reads each side, summary.ts words
 * and merges the lines, and each kind of change has its file: members.ts, services.ts,
 * policies.ts, clusterset.ts, member-controller.ts, leader.ts, admission.ts (objects.ts hands each
 * changed object to its kind), delivery.ts and gateways.ts.
 */
import { type AfterMerge, afterMerge, restartJob } from '../after-merge';
import type { Plan } from '../../plan';
import type { ObjectChange, TreeDiff } from '../tree';
import { diffTrees } from '../tree';
import { countKinds } from '../describe';
import { count, noun } from '../../plural';
import { deliveryFolders, describeDelivery, leaderSync, uninstallOf } from './delivery';
import { factsOf, sorted } from './facts';
import { gatewayChanges } from './gateways';
import { describeMemberRestart, isRestartJob } from './member-controller';
import { describeMembers, describeRotations } from './members';
import { describeObject } from './objects';
import { Accumulator, type ChangeContext, type ImpactItem, phrase } from './summary';

/** One exporter of a Service in the export graph. */
export interface ExporterChange {
  readonly cluster: string;
  /** `same`: exported before and after; `added`/`removed`: by this change. */
  readonly change: 'same' | 'added' | 'removed';
}

/** Who exports a Service, before and after, for the picture of the ClusterSet. */
export interface ExportedService {
  /** `namespace/name` */
  readonly service: string;
  readonly exporters: readonly ExporterChange[];
}

/** The whole impact summary. */
export interface Impact {
  /** The leader after the change (before it, when the change removes everything). */
  readonly leader?: string;
  readonly membersBefore: readonly string[];
  readonly membersAfter: readonly string[];
  /** Every cluster with a bundle after the change. */
  readonly clusters: readonly string[];
  /** Cluster IDs whose bundles change, sorted. */
  readonly touched: readonly string[];
  /** Delivery folders (argocd, flux, …) that change, sorted. */
  readonly delivery: readonly string[];
  /** In category order, then by text. */
  readonly items: readonly ImpactItem[];
  /** Every Service exported before or after, sorted, with its exporters. */
  readonly exports: readonly ExportedService[];
  /** Cluster ID → network, from `network.k8s.io` ClusterProperties (after, else before). */
  readonly networks: Readonly<Record<string, string>>;
  /** What the change asks of people once merged (after-merge/). */
  readonly afterMerge: AfterMerge;
}

/**
 * The impact summary of going from `before` to `after` (relative path → content, as in out/).
 * Pass the tree diff when it is already computed, and the plan of the model `after` was rendered
 * from when there is one: it only names the gateway Nodes to annotate, which no bundle holds.
 */
export function impact(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  diff: TreeDiff = diffTrees(before, after),
  afterPlan?: Plan,
): Impact {
  const fb = factsOf(before);
  const fa = factsOf(after);
  const leader = fa.leader ?? fb.leader;
  const membersBefore = sorted(fb.members);
  const membersAfter = sorted(fa.members);
  const memberSets = [membersAfter, membersBefore];
  const acc = new Accumulator();
  const explained = new Set<ObjectChange>();

  // Members joining and leaving: their identity in the leader and their own bundle.
  const joined = membersAfter.filter((m) => !fb.members.has(m));
  const left = membersBefore.filter((m) => !fa.members.has(m));
  // Uninstalling (the model's `uninstall`): every member leaves and the leader stays. The checks
  // refuse a ClusterSet without members otherwise, so nothing else leaves out/ in that shape.
  const uninstalling =
    leader !== undefined &&
    membersBefore.length > 0 &&
    membersAfter.length === 0 &&
    diff.clustersAfter.includes(leader);
  const bundleOfCluster = new Map(diff.bundles.filter((b) => b.cluster).map((b) => [b.cluster!, b]));
  const leaderBundle = leader !== undefined ? bundleOfCluster.get(leader) : undefined;
  const ctx: ChangeContext = {
    acc,
    fb,
    fa,
    leader,
    membersBefore,
    membersAfter,
    joined,
    left,
    rotations: [],
  };
  describeMembers(ctx, uninstalling, bundleOfCluster, leaderBundle, explained);
  describeRotations(ctx, leaderBundle, explained);
  const { rotations } = ctx;

  for (const b of diff.bundles) {
    if (b.type === 'delivery') {
      describeDelivery(b, acc);
      continue;
    }
    if (b.type === 'root' || b.cluster === undefined) continue;
    const cluster = b.cluster;
    if (b.presence !== 'both' && !joined.includes(cluster) && !left.includes(cluster)) {
      acc.add(
        'other',
        `bundle clusters/${cluster} ${b.presence} (${count(b.objects.length, 'object')}: ${countKinds(b.objects)})`,
        [cluster],
      );
      for (const o of b.objects)
        if (o.kind !== 'ServiceExport' && o.kind !== 'ClusterNetworkPolicy') explained.add(o);
    }
    describeMemberRestart(acc, b, cluster);
    const memberNamespace = (restartJob(b, 'after') ?? restartJob(b, 'before'))?.namespace;
    for (const o of b.objects) {
      if (explained.has(o) || isRestartJob(o, memberNamespace)) continue;
      describeObject(ctx, o, cluster);
    }
    if (b.objects.length === 0 && b.files.length > 0)
      acc.add(
        'other',
        `${b.files.map((f) => f.file).join(', ')} ${noun(b.files.length, 'differs', 'differ')} from what synth writes (edited by hand?)`,
        [cluster],
      );
  }

  const names = sorted(new Set([...fb.exports.keys(), ...fa.exports.keys()]));
  const exports: ExportedService[] = names.map((service) => {
    const was = fb.exports.get(service) ?? new Set<string>();
    const is = fa.exports.get(service) ?? new Set<string>();
    return {
      service,
      exporters: sorted(new Set([...was, ...is])).map((cluster) => ({
        cluster,
        change: was.has(cluster) && is.has(cluster) ? 'same' : is.has(cluster) ? 'added' : 'removed',
      })),
    };
  });

  return {
    ...(leader !== undefined ? { leader } : {}),
    membersBefore,
    membersAfter,
    clusters: diff.clustersAfter,
    touched: sorted(diff.bundles.flatMap((b) => (b.cluster !== undefined ? [b.cluster] : []))),
    delivery: sorted(diff.bundles.filter((b) => b.type === 'delivery').map((b) => b.bundle)),
    items: acc.done(memberSets),
    exports,
    afterMerge: afterMerge(diff, {
      ...(leader !== undefined ? { leader } : {}),
      joined,
      left,
      exporters: (service) => sorted(fa.exports.get(service) ?? []),
      phrase: (ids) => phrase(new Set(ids), memberSets),
      gateways: gatewayChanges(fb, fa, joined, afterPlan),
      ...(uninstalling ? { uninstall: uninstallOf(after, leader) } : {}),
      ...(afterPlan ? { plan: afterPlan } : {}),
      ...deliveryFolders(before, after),
      ...(rotations.length > 0 && leader !== undefined
        ? { rotations, leaderSync: leaderSync(after, leader) }
        : {}),
    }),
    networks: Object.fromEntries(
      sorted(new Set([...fb.networks.keys(), ...fa.networks.keys()])).map((c) => [
        c,
        (fa.networks.get(c) ?? fb.networks.get(c))!,
      ]),
    ),
  };
}
