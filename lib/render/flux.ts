/**
 * Flux delivery: one GitRepository for the repository holding `out/`, a root Kustomization that
 * keeps `<path>/flux` itself in sync (so a cluster added to the model gets its Kustomization from
 * git, as Argo CD's app-of-apps does), and one Kustomization per cluster bundle.
 *
 * Per cluster: `path: ./<path>/clusters/<id>`, pruning as the model says (namespaces that hold
 * applications carry `kustomize.toolkit.fluxcd.io/prune: disabled`), a `kubeConfig.secretRef` for
 * every cluster but the management cluster (Flux reaches that one in-cluster), and for members
 * `dependsOn` the leader's Kustomization. Every per-cluster Kustomization sets `wait: true`: Flux
 * then marks it Ready only once every object it applied is ready, which is what makes a member wait
 * for the leader to hold its identity, Role and admission policies.
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
      ...(c.isLeader ? {} : { dependsOn: [{ name: deliveryObjectName(plan.clusterSetId, plan.leader.id) }] }),
    },
  });
}
