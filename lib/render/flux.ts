/**
 * Flux delivery: one GitRepository for the repository holding `out/`, a root Kustomization that
 * keeps `<path>/flux` itself in sync (so a cluster added to the model gets its Kustomization from
 * git, as Argo CD's app-of-apps does), and one Kustomization per cluster bundle.
 *
 * Per cluster: `path: ./<path>/clusters/<id>`, pruning as the model says (namespaces that hold
 * applications carry `kustomize.toolkit.fluxcd.io/prune: disabled`), a `kubeConfig.secretRef` for
 * every cluster but the management cluster (Flux reaches that one in-cluster), and `wait: true`:
 * Flux marks a Kustomization Ready only once every object it applied is ready.
 *
 * Order: the leader's Kustomization `dependsOn` every member's. kustomize-controller checks a
 * Kustomization's dependencies on every reconciliation, and, when they read the same source, applies
 * it only once each dependency is Ready with `status.lastAppliedRevision` equal to the source's
 * current revision (`checkDependencies` in kustomize-controller). So every commit reaches the
 * members first: a Tier a member needs exists there before the leader serves the
 * `<policy>-antreaclusternetworkpolicy` import that uses it, which Antrea's member would otherwise
 * drop and never retry (antrea-mc.md §c.3). Members do not wait for the leader: a member cannot
 * connect before the leader holds its identity anyway (its token is copied from the leader's token
 * Secret), and its ClusterSet retries until it can.
 *
 * The cost: a member whose Kustomization is not Ready (its API server unreachable, an object
 * refused) holds back every later change of the leader's bundle, for every member, until it is
 * Ready again or leaves the model (its Kustomization then leaves the leader's `dependsOn`).
 */
import type { Construct } from 'constructs';
import { GitRepository } from '../../generated/gitrepository';
import { Kustomization, KustomizationSpecSourceRefKind } from '../../generated/kustomization';
import { deliveryObjectName } from '../names';
import type { Plan, PlannedCluster, PlannedDelivery, PlannedFlux } from '../plan';
import { repoPath } from './argocd';
import { constructId, meta } from './util';

/** Folder, relative to `<path>`, of the Flux objects (the root Kustomization's own path). */
export const FLUX_FOLDER = 'flux';

function sourceRef(plan: Plan): { kind: KustomizationSpecSourceRefKind; name: string } {
  return { kind: KustomizationSpecSourceRefKind.GIT_REPOSITORY, name: plan.clusterSetId };
}

/** The GitRepository every Kustomization reads, named after the ClusterSet. */
export function renderGitRepository(scope: Construct, plan: Plan, d: PlannedDelivery, f: PlannedFlux): void {
  new GitRepository(scope, constructId('GitRepository', f.namespace, plan.clusterSetId), {
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
export function renderRootKustomization(
  scope: Construct,
  plan: Plan,
  d: PlannedDelivery,
  f: PlannedFlux,
): void {
  new Kustomization(scope, constructId('Kustomization', f.namespace, plan.clusterSetId), {
    metadata: meta(plan.clusterSetId, f.namespace),
    spec: {
      interval: f.interval,
      path: `./${repoPath(d, FLUX_FOLDER)}`,
      prune: f.prune,
      sourceRef: sourceRef(plan),
    },
  });
}

/** The leader's dependencies: every other delivered member's Kustomization, in cluster ID order. */
export function memberDependencies(plan: Plan, leader: PlannedCluster): { name: string }[] {
  return plan.clusters
    .filter((m) => m.isMember && m.id !== leader.id)
    .map((m) => ({ name: deliveryObjectName(plan.clusterSetId, m.id) }));
}

/** The Kustomization that delivers `c`'s bundle. */
export function renderClusterKustomization(
  scope: Construct,
  plan: Plan,
  d: PlannedDelivery,
  f: PlannedFlux,
  c: PlannedCluster,
): void {
  const name = deliveryObjectName(plan.clusterSetId, c.id);
  const kubeConfigSecret = f.kubeConfigSecrets.get(c.id);
  const dependsOn = c.isLeader ? memberDependencies(plan, c) : [];
  new Kustomization(scope, constructId('Kustomization', f.namespace, name), {
    metadata: meta(name, f.namespace),
    spec: {
      interval: f.interval,
      path: `./${repoPath(d, `clusters/${c.id}`)}`,
      prune: f.prune,
      sourceRef: sourceRef(plan),
      wait: true,
      ...(kubeConfigSecret !== undefined
        ? { kubeConfig: { secretRef: { name: kubeConfigSecret, key: f.kubeConfigKey } } }
        : {}),
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
  });
}
