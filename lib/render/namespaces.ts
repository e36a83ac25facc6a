/**
 * Namespaces. The leader bundle owns the leader namespace. A member bundle brings the namespaces of
 * the Services exported in the set (its ServiceExports live there, and Antrea imports
 * `antrea-mc-<svc>` into them) but never prunes them: they hold the application too.
 */
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { SYNC_WAVE, WAVE_NAMESPACES, constructId, meta } from './util';

/** Keeps Argo CD and Flux from deleting a namespace the model stops naming. */
export const NEVER_PRUNE: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'Prune=false',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

export function renderNamespace(scope: Construct, name: string, opts: { prune: boolean }): void {
  new k8s.KubeNamespace(scope, constructId('Namespace', undefined, name), {
    metadata: meta(name, undefined, {
      annotations: { [SYNC_WAVE]: WAVE_NAMESPACES, ...(opts.prune ? {} : NEVER_PRUNE) },
    }),
  });
}
