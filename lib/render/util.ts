/** Helpers shared by the render modules. */
import type { ApiObjectMetadata } from 'cdk8s';

/** Argo CD sync-wave annotation: CRDs first, then Namespaces and Tiers, then everything else. */
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
export const WAVE_CRDS = '-2';
export const WAVE_NAMESPACES = '-1';

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
