/** Helpers shared by the render modules. */
import type { ApiObjectMetadata } from 'cdk8s';
import { MANAGED_BY, MANAGED_BY_LABEL, MEMBER_CONTROLLER_CONFIG, PART_OF_LABEL } from '../names';

/** A rendered Kubernetes object, as plain JSON. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
};

/**
 * Argo CD sync-wave annotation: CRDs first (-2), then Namespaces, Tiers and admission policies (-1),
 * then everything else (0, the default). Within a wave Argo CD orders by kind (Namespaces,
 * ServiceAccounts, Secrets, ConfigMaps, Roles, RoleBindings, ..., then kinds it does not know, by
 * name), which already puts a member's ServiceAccount before its token Secret and RoleBinding.
 */
export const SYNC_WAVE = 'argocd.argoproj.io/sync-wave';
/** Argo CD's per-object sync options annotation. */
export const ARGOCD_SYNC_OPTIONS = 'argocd.argoproj.io/sync-options';
/** Flux's per-object switch (label or annotation); `disabled` keeps its garbage collection off the object. */
export const FLUX_PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
export const WAVE_CRDS = '-2';
export const WAVE_NAMESPACES = '-1';
/**
 * ValidatingAdmissionPolicies and their bindings: before the member RoleBindings (wave 0), since
 * Argo CD would otherwise apply them last (kinds it does not know come after RoleBindings), leaving
 * member identities able to write without their guard for the length of a sync.
 */
export const WAVE_GUARDS = '-1';

/**
 * The rendered objects with clusterset's two ownership labels added, so that `kubectl get -l
 * app.kubernetes.io/managed-by=clusterset` (or `part-of=<ClusterSet ID>`) lists exactly what is
 * ours. A label of the same key that an object already carries wins (none does today).
 */
export function withOwnership<T extends { metadata: { labels?: Record<string, string> } }>(
  objects: readonly T[],
  clusterSetId: string,
): T[] {
  return objects.map((o) => {
    return {
      ...o,
      metadata: {
        ...o.metadata,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [PART_OF_LABEL]: clusterSetId, ...o.metadata.labels },
      },
    };
  });
}

/** An object as rendered or as read back from out/: only what {@link sharedWith} looks at. */
export interface OwnedObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly annotations?: unknown };
}

/**
 * Who else owns a rendered object, or undefined when it is clusterset's alone. The one place that
 * says it (explain and diff show it):
 * - Antrea's member controller ConfigMap, when the model takes it over: Antrea's member manifest
 *   ships it too.
 * - A Namespace a member bundle brings, which delivery never prunes (render/namespaces.ts
 *   NEVER_PRUNE): an exported Service's when the model takes them over, where its application runs,
 *   or a custom member namespace, where Antrea's install put its member controller.
 */
export function sharedWith(o: OwnedObject): string | undefined {
  const a = o.metadata.annotations;
  const annotations = typeof a === 'object' && a !== null ? (a as Readonly<Record<string, unknown>>) : {};
  if (o.kind === 'ConfigMap' && o.metadata.name === MEMBER_CONTROLLER_CONFIG)
    return "Antrea's member install, which ships it too";
  if (o.kind === 'Namespace' && annotations[FLUX_PRUNE] === 'disabled')
    return 'the teams whose workloads run in it';
  return undefined;
}

/**
 * Where render modules put the objects of one bundle or delivery folder. Objects are built with the
 * generated bindings' static `manifest()` (typed props, the CRD's field names), not as cdk8s
 * constructs: a construct tree bought nothing here (`App.synth()` is never called) and cost about
 * half of the render stage.
 */
export class Sink {
  readonly objects: K8sObject[] = [];
}

/**
 * Drops null and undefined values at every depth, and in `metadata` also empty maps and lists, as
 * cdk8s's `ApiObject.toJson()` did for the same props (so the output is byte for byte the same).
 */
function sanitize(value: unknown, dropEmpty: boolean): unknown {
  if (value === null || value === undefined || typeof value !== 'object') return value ?? undefined;
  if (Array.isArray(value)) {
    if (dropEmpty && value.length === 0) return undefined;
    return value.map((v) => sanitize(v, dropEmpty));
  }
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(value)) {
    const v = sanitize((value as Record<string, unknown>)[key], dropEmpty);
    if (v !== undefined && v !== null) {
      out[key] = v;
      any = true;
    }
  }
  return dropEmpty && !any ? undefined : out;
}

function toObject(manifest: Record<string, unknown>): K8sObject {
  const { metadata, ...rest } = manifest;
  const o = sanitize(rest, false) as Record<string, unknown>;
  return { ...o, metadata: sanitize(metadata, true) ?? {} } as K8sObject;
}

/** Adds the object that a generated binding's `manifest(props)` builds. */
export function put<P>(sink: Sink, kind: { manifest(props: P): unknown }, props: P): void {
  sink.objects.push(toObject(kind.manifest(props) as Record<string, unknown>));
}

/** Adds an object of a kind without a generated binding (a CRD, a partial object, an import payload). */
export function putObject(
  sink: Sink,
  o: { apiVersion: string; kind: string; metadata: object; [field: string]: unknown },
): void {
  sink.objects.push(toObject(o as unknown as Record<string, unknown>));
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
