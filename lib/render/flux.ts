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
 * then marks it Ready only once every object it applied is ready, which is what makes a member wait
 * for the leader to hold its identity, Role and admission policies.
 *
 * Tiers first: a bundle with custom Tiers is delivered by two Kustomizations over the same path.
 * `<set>-<id>.tiers` keeps only the Tiers (patches delete every other kind of the bundle) and the
 * bundle's own Kustomization keeps everything else (a patch deletes the Tiers) and `dependsOn` it.
 * kustomize-controller has no sync waves: it dry-runs a whole Kustomization before applying, and
 * antrea-controller's webhook refuses a ClusterNetworkPolicy whose Tier does not exist yet, so a new
 * Tier and a policy in it in one Kustomization would fail on every retry. Split, the Tier is applied
 * and Ready at the same revision before the policy is tried. The two inventories never overlap, so
 * the two Kustomizations never fight over an object.
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

/** A Kustomization patch that deletes every object of one kind from what the Kustomization applies. */
function deleteKind(apiVersion: string, kind: string): { patch: string; target: Record<string, string> } {
  const { group, version } = groupVersion(apiVersion);
  return {
    patch: `$patch: delete\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: any\n`,
    // An empty group would select the kind in every group: the core group is named by version alone.
    target: { ...(group ? { group } : {}), version, kind },
  };
}

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
    ...(c.isLeader ? [] : [{ name: deliveryObjectName(plan.clusterSetId, plan.leader.id) }]),
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
          .map((k) => deleteKind(others.get(k)!.apiVersion, others.get(k)!.kind)),
      },
    });
  }
  put(scope, Kustomization, {
    metadata: meta(name, f.namespace),
    spec: {
      ...common,
      ...(tiers.length > 0 ? { patches: [deleteKind(tiers[0]!.apiVersion, 'Tier')] } : {}),
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
  });
}
