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

/** `app.kubernetes.io/managed-by`: every object clusterset renders says so. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'clusterset';
/** `app.kubernetes.io/part-of`: the ClusterSet ID, on every object clusterset renders. */
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';

/**
 * Marks a partial object: a few fields applied server-side onto an object another tool installed
 * (Antrea's member controller Deployment, member-restart.ts). It is not ours, so it gets no
 * ownership labels; the marker itself is stripped from the output.
 */
export const PARTIAL_OBJECT = 'clusterset/partial-object';

/**
 * The rendered objects with clusterset's two ownership labels added, so that `kubectl get -l
 * app.kubernetes.io/managed-by=clusterset` (or `part-of=<ClusterSet ID>`) lists exactly what is
 * ours; partial objects (PARTIAL_OBJECT) are left without them. A label of the same key that an
 * object already carries wins (none does today).
 */
export function withOwnership<
  T extends { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } },
>(objects: readonly T[], clusterSetId: string): T[] {
  return objects.map((o) => {
    if (o.metadata.annotations?.[PARTIAL_OBJECT] !== undefined) {
      const annotations = { ...o.metadata.annotations };
      delete annotations[PARTIAL_OBJECT];
      return { ...o, metadata: { ...o.metadata, annotations } };
    }
    return {
      ...o,
      metadata: {
        ...o.metadata,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [PART_OF_LABEL]: clusterSetId, ...o.metadata.labels },
      },
    };
  });
}

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
