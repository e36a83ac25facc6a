/** Helpers shared by the render modules. */
import type { ApiObjectMetadata } from 'cdk8s';

/**
 * Argo CD sync-wave annotation: CRDs first (-2), then Namespaces, Tiers and admission policies (-1),
 * then everything else (0, the default). Within a wave Argo CD orders by kind (Namespaces,
 * ServiceAccounts, Secrets, ConfigMaps, Roles, RoleBindings, ..., then kinds it does not know, by
 * name), which already puts a member's ServiceAccount before its token Secret and RoleBinding.
 */
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const WAVE_CRDS = '-2';
export const WAVE_NAMESPACES = '-1';
/**
 * ValidatingAdmissionPolicies and their bindings: before the member RoleBindings (wave 0), since
 * Argo CD would otherwise apply them last (kinds it does not know come after RoleBindings), leaving
 * member identities able to write without their guard for the length of a sync.
 */
export const WAVE_GUARDS = '-1';
/**
 * The partial Deployment that restarts Antrea's member controller (member-restart.ts): after
 * everything else, so the restarted controller finds the Tiers, ClusterSet and settings in place.
 */
export const WAVE_RESTART = '1';

/** Construct IDs are derived from object identity, never used as names. */
export function constructId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}.${namespace ?? '_cluster'}.${name}`;
}

export function meta(
  name: string,
  namespace?: string,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): ApiObjectMetadata {
  return {
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(extra.labels && Object.keys(extra.labels).length > 0 ? { labels: extra.labels } : {}),
    ...(extra.annotations && Object.keys(extra.annotations).length > 0
      ? { annotations: extra.annotations }
      : {}),
  };
}
