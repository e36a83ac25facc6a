/**
 * Argo CD AppProject: the least-privilege project of the ClusterSet's Applications.
 *
 * Argo CD's built-in `default` project permits any source, any destination and any kind. The
 * rendered project permits only what the ClusterSet's Applications need, computed from the model and
 * the rendered bundles, so it follows the model without a hand-kept list:
 * - `sourceRepos`: the delivery `repoURL`;
 * - `destinations`: every delivered cluster (by server URL or by name, as `destinationBy` says; the
 *   management cluster in-cluster), any namespace, plus the Argo CD namespace of the management
 *   cluster, where the root Application puts the per-cluster Applications;
 * - `clusterResourceWhitelist`: exactly the cluster-scoped group/kinds of the delivered bundles;
 * - `namespaceResourceWhitelist`: exactly their namespaced group/kinds, plus Argo CD's Application
 *   (the root Application's children).
 * A kind missing from a whitelist makes Argo CD refuse to sync the Application that holds it, so the
 * whitelists are computed from the same bundles that are emitted.
 *
 * The project lives in `out/argocd/` beside the root Application and is applied with it by hand
 * (`kubectl apply -k out/argocd`), never from git: an Application that may write AppProjects could
 * widen its own project, so no Application here is permitted that kind. A model change that widens
 * the project (a new cluster, a new kind in a bundle) therefore needs that command again before the
 * new Application or kind syncs; one that narrows it because a member leaves needs it only once
 * that member's Application is gone, since Argo CD's cascade deletion deletes only what the live
 * project permits (diff/after-merge/index.ts prints both; test/e2e/removal.test.ts runs both orders).
 */
import {
  AppProject,
  type AppProjectSpecClusterResourceWhitelist,
  type AppProjectSpecDestinations,
  type AppProjectSpecNamespaceResourceWhitelist,
} from '../../generated/appproject';
import { cmp } from '../diagnostics';
import type { Plan, PlannedArgoCd, PlannedCluster, PlannedDelivery } from '../plan';
import { argoCdDestination, IN_CLUSTER_SERVER } from './argocd';
import type { Bundles, K8sObject } from './index';
import { meta, put, type Sink } from './util';

/** A Kubernetes group and kind, as AppProject whitelists list them (`''` is the core group). */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** The API group of an object (`''` for the core group). */
export function groupOf(o: K8sObject): string {
  const i = o.apiVersion.lastIndexOf('/');
  return i < 0 ? '' : o.apiVersion.slice(0, i);
}

/**
 * Whether an object is namespaced: every namespaced object we render names its namespace (the
 * emitter files it under that namespace), and no cluster-scoped one does.
 */
export function isNamespaced(o: K8sObject): boolean {
  return o.metadata.namespace !== undefined;
}

function sortedUnique(gks: Iterable<GroupKind>): GroupKind[] {
  const byKey = new Map<string, GroupKind>();
  for (const gk of gks) byKey.set(`${gk.group}/${gk.kind}`, { group: gk.group, kind: gk.kind });
  return [...byKey.values()].sort((a, b) => cmp(a.group, b.group) || cmp(a.kind, b.kind));
}

/** The cluster-scoped and namespaced group/kinds of the given bundles, sorted, without repeats. */
export function bundleKinds(
  bundles: Bundles,
  clusterIds: readonly string[],
): { cluster: GroupKind[]; namespaced: GroupKind[] } {
  const objects = clusterIds.flatMap((id) => bundles.get(id) ?? []);
  const gk = (o: K8sObject): GroupKind => ({ group: groupOf(o), kind: o.kind });
  return {
    cluster: sortedUnique(objects.filter((o) => !isNamespaced(o)).map(gk)),
    namespaced: sortedUnique(objects.filter(isNamespaced).map(gk)),
  };
}

/** What the root Application creates in Argo CD's namespace: the per-cluster Applications. */
export const ROOT_CHILD_KIND: GroupKind = { group: 'argoproj.io', kind: 'Application' };

/** The AppProject of the ClusterSet's Applications, in `out/argocd/` next to the root Application. */
export function renderAppProject(
  scope: Sink,
  plan: Plan,
  d: PlannedDelivery,
  a: PlannedArgoCd,
  delivered: readonly PlannedCluster[],
  bundles: Bundles,
): void {
  const kinds = bundleKinds(
    bundles,
    delivered.map((c) => c.id),
  );
  const clusters = [...delivered].sort((x, y) => cmp(x.id, y.id));
  const destinations: AppProjectSpecDestinations[] = [
    // The root Application's children, in Argo CD's own namespace.
    { server: IN_CLUSTER_SERVER, namespace: a.namespace },
    // A bundle spans several namespaces and cluster-scoped objects; Argo CD matches an Application
    // without a destination namespace only against `*`.
    ...clusters.map((c) => ({ ...argoCdDestination(d, a, c), namespace: '*' })),
  ];
  const clusterResourceWhitelist: AppProjectSpecClusterResourceWhitelist[] = kinds.cluster;
  const namespaceResourceWhitelist: AppProjectSpecNamespaceResourceWhitelist[] = sortedUnique([
    ...kinds.namespaced,
    ROOT_CHILD_KIND,
  ]);
  put(scope, AppProject, {
    metadata: meta(a.project, a.namespace),
    spec: {
      description: `Antrea Multi-cluster ClusterSet ${plan.clusterSetId}, compiled by clusterset`,
      sourceRepos: [d.repoURL],
      destinations,
      clusterResourceWhitelist,
      namespaceResourceWhitelist,
    },
  });
}
