/**
 * Namespaces. The ClusterSet's own are always ours: the leader bundle owns the leader namespace, and
 * a member bundle its custom member controller namespace. The namespaces of the Services exported in
 * the set (a member's ServiceExports live there, and Antrea imports `antrea-mc-<svc>` into them in
 * every member) usually belong to the application teams: a member bundle renders them only with
 * `takeOver.serviceNamespaces`, and then never prunes them, since they hold the application too.
 */
import { k8s } from 'cdk8s-plus-33';
import { ARGOCD_SYNC_OPTIONS, FLUX_PRUNE, SYNC_WAVE, WAVE_NAMESPACES, meta, put, type Sink } from './util';

/**
 * Keeps Argo CD and Flux from ever deleting the object: not when the model stops naming it
 * (Argo CD `Prune=false`, Flux prune disabled), and not when its Application is deleted with
 * cascade, as `argocd app delete` does by default (`Delete=false`). For objects that hold or
 * carry other owners' data: Namespaces of applications, CRDs (deleting one deletes every object of
 * its kind), Antrea's member controller ConfigMap.
 */
export const NEVER_PRUNE: Readonly<Record<string, string>> = {
  [ARGOCD_SYNC_OPTIONS]: 'Prune=false,Delete=false',
  [FLUX_PRUNE]: 'disabled',
};

export function renderNamespace(scope: Sink, name: string, opts: { prune: boolean }): void {
  put(scope, k8s.KubeNamespace, {
    metadata: meta(name, undefined, {
      annotations: { [SYNC_WAVE]: WAVE_NAMESPACES, ...(opts.prune ? {} : NEVER_PRUNE) },
    }),
  });
}
