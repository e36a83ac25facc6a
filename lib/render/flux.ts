/**
 * Flux delivery: one GitRepository for the repository holding `out/`, a root Kustomization that
 * keeps `<path>/flux` itself in sync (so a cluster added to the model gets its Kustomization from
 * git, as Argo CD's app-of-apps does), and one Kustomization per cluster bundle.
 *
 * The root Kustomization prunes a removed cluster's Kustomization but has `deletionPolicy: Orphan`
 * (kustomize-controller 1.5, Flux 2.5): deleting the root itself must not cascade into every
 * cluster's Kustomization and so into every cluster's objects, as Argo CD's root Application
 * carries no resources finalizer (argocd.ts).
 *
 * Per cluster: `path: ./<path>/clusters/<id>`, pruning as the model says (namespaces that hold
 * applications carry `kustomize.toolkit.fluxcd.io/prune: disabled`), a `kubeConfig.secretRef` for
 * every cluster but the management cluster (Flux reaches that one in-cluster), and for members
 * `dependsOn` the leader's Kustomization. Every per-cluster Kustomization sets `wait: true`: Flux
 * then marks it Ready only once every object it applied is ready, by the health checks of the kinds
 * it holds (`healthCheckExprs`, health.ts): the leader's ClusterSet Ready and its compiled imports
 * with no refused export, a member's ClusterSet connected and its ServiceExports valid, its restart
 * Job complete.
 *
 * A member depends on the leader's bundle being applied, not on its health (`readyExpr`: the
 * leader's Kustomization is Ready, or failed its health checks alone): the leader's health says
 * what the members do (one disconnected, one export refused), and one member's refused export must
 * not stop delivery to every other member. Flux otherwise waits for the dependency to be Ready at
 * the same revision; the readyExpr cannot see the revision (Flux gives it the two Kustomizations
 * only), so a member may apply a revision before the leader does, which nothing depends on: a new
 * member's ClusterSet only connects once its token is copied, after the leader holds its identity.
 *
 * Tiers first: a bundle with custom Tiers is delivered by two Kustomizations over the same path.
 * `<set>-<id>.tiers` keeps only the Tiers (patches delete every other kind of the bundle) and the
 * bundle's own Kustomization keeps everything else (a patch deletes the Tiers) and `dependsOn` it.
 * kustomize-controller has no sync waves: it dry-runs a whole Kustomization before applying, and
 * antrea-controller's webhook refuses a ClusterNetworkPolicy whose Tier does not exist yet, so a new
 * Tier and a policy in it in one Kustomization would fail on every retry. Split, the Tier is applied
 * and Ready at the same revision before the policy is tried. The two inventories never overlap, so
 * the two Kustomizations never fight over an object.
 *
 * Antrea's member controller is restarted by the member bundle's Job (member-restart.ts), which the
 * bundle's own Kustomization applies after the Tiers' one and `wait`s for, as any other object.
 */
import { GitRepository } from '../../generated/gitrepository';
import {
  Kustomization,
  KustomizationSpecDeletionPolicy,
  KustomizationSpecSourceRefKind,
} from '../../generated/kustomization';
import { deliveryObjectName, tiersDeliveryObjectName } from '../names';
import type { Plan, PlannedCluster, PlannedDelivery, PlannedFlux } from '../plan';
import type { K8sObject } from './index';
import { repoPath } from './argocd';
import { fluxHealthCheckExprs } from './health';
import { meta, put, type Sink } from './util';

/** Folder, relative to `<path>`, of the Flux objects (the root Kustomization's own path). */
export const FLUX_FOLDER = 'flux';

function sourceRef(plan: Plan): { kind: KustomizationSpecSourceRefKind; name: string } {
  return { kind: KustomizationSpecSourceRefKind.GIT_REPOSITORY, name: plan.clusterSetId };
}

/** The GitRepository every Kustomization reads, named after the ClusterSet. */
export function renderGitRepository(scope: Sink, plan: Plan, d: PlannedDelivery, f: PlannedFlux): void {
  put(scope, GitRepository, {
    metadata: meta(plan.clusterSetId, f.namespace),
    spec: {
      url: d.repoURL,
      ref: { branch: d.branch },
      interval: f.interval,
      ...(f.gitSecretName !== undefined ? { secretRef: { name: f.gitSecretName } } : {}),
    },
  });
}

/** The root Kustomization: applies `<path>/flux` (this folder) in the management cluster. */
export function renderRootKustomization(scope: Sink, plan: Plan, d: PlannedDelivery, f: PlannedFlux): void {
  put(scope, Kustomization, {
    metadata: meta(plan.clusterSetId, f.namespace),
    spec: {
      interval: f.interval,
      path: `./${repoPath(d, FLUX_FOLDER)}`,
      prune: f.prune,
      deletionPolicy: KustomizationSpecDeletionPolicy.ORPHAN,
      sourceRef: sourceRef(plan),
    },
  });
}

const TIER_GROUP = 'crd.antrea.io';

function groupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

const isTier = (o: K8sObject): boolean =>
  o.kind === 'Tier' && groupVersion(o.apiVersion).group === TIER_GROUP;

interface DeletePatch {
  readonly patch: string;
  readonly target: Record<string, string>;
}

/** A Kustomization patch that deletes from what the Kustomization applies every object of one kind. */
function deletePatch(apiVersion: string, kind: string): DeletePatch {
  const { group, version } = groupVersion(apiVersion);
  return {
    patch: `$patch: delete\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: any\n`,
    // An empty group would select the kind in every group: the core group is named by version alone.
    target: { ...(group ? { group } : {}), version, kind },
  };
}

/**
 * A member's readiness check of the leader's Kustomization (`dependsOn[].readyExpr`, CEL over `self`
 * and `dep`): it is Ready with its status current, or failed its health checks only (its objects
 * are applied; what they report is the members' doing). See the top of this file. A failed health
 * check needs no current status: kustomize-controller records `status.observedGeneration` only once
 * it is Ready, so a leader Kustomization whose first reconcile at a generation fails its health
 * checks (a new one, or a spec change) keeps the old one, and would hold every member back.
 */
export const LEADER_APPLIED =
  "dep.status.conditions.exists(c, c.type == 'Ready' && ((c.status == 'True' && dep.metadata.generation == dep.status.observedGeneration) || c.reason == 'HealthCheckFailed'))";

/**
 * The Kustomizations that deliver `c`'s bundle: one, or, when the bundle has custom Tiers, the
 * Tiers' and the rest's (see the top of this file).
 */
export function renderClusterKustomization(
  scope: Sink,
  plan: Plan,
  d: PlannedDelivery,
  f: PlannedFlux,
  c: PlannedCluster,
  bundle: readonly K8sObject[],
): void {
  const name = deliveryObjectName(plan.clusterSetId, c.id);
  const kubeConfigSecret = f.kubeConfigSecrets.get(c.id);
  const common = {
    interval: f.interval,
    path: `./${repoPath(d, `clusters/${c.id}`)}`,
    prune: f.prune,
    sourceRef: sourceRef(plan),
    wait: true,
    ...(kubeConfigSecret !== undefined
      ? { kubeConfig: { secretRef: { name: kubeConfigSecret, key: f.kubeConfigKey } } }
      : {}),
  };
  const tiers = bundle.filter(isTier);
  const dependsOn = [
    ...(c.isLeader
      ? []
      : [{ name: deliveryObjectName(plan.clusterSetId, plan.leader.id), readyExpr: LEADER_APPLIED }]),
    ...(tiers.length > 0 ? [{ name: tiersDeliveryObjectName(plan.clusterSetId, c.id) }] : []),
  ];
  if (tiers.length > 0) {
    const others = new Map<string, { apiVersion: string; kind: string }>();
    for (const o of bundle) if (!isTier(o)) others.set(`${o.apiVersion} ${o.kind}`, o);
    const tiersName = tiersDeliveryObjectName(plan.clusterSetId, c.id);
    put(scope, Kustomization, {
      metadata: meta(tiersName, f.namespace),
      spec: {
        ...common,
        patches: [...others.keys()]
          .sort()
          .map((k) => deletePatch(others.get(k)!.apiVersion, others.get(k)!.kind)),
      },
    });
  }
  const patches = tiers.length > 0 ? [deletePatch(tiers[0]!.apiVersion, 'Tier')] : [];
  const healthCheckExprs = fluxHealthCheckExprs(bundle, c.isLeader && plan.reconciler.waitForAntreaLeader);
  put(scope, Kustomization, {
    metadata: meta(name, f.namespace),
    spec: {
      ...common,
      ...(healthCheckExprs.length > 0 ? { healthCheckExprs } : {}),
      ...(patches.length > 0 ? { patches } : {}),
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
  });
}
