/**
 * What `clusterset import` reads from a running Antrea ClusterSet: plain Kubernetes objects, as the
 * API servers return them, read-only. The edge (lib/import/read.ts) fills it from kubeconfig
 * contexts; the pure core (lib/import/model/, report.ts) turns it into a model and a report, so
 * that both can be tested from a snapshot file without a cluster.
 *
 * Secrets are read as metadata only (PartialObjectMetadata, kind rewritten to `Secret`): no data
 * ever leaves the API servers.
 */

/** One object as the API server returned it (Secrets: metadata only). */
export interface LiveObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly generation?: number;
    readonly resourceVersion?: string;
    readonly creationTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers?: readonly string[];
    readonly ownerReferences?: readonly unknown[];
    readonly managedFields?: readonly unknown[];
  };
  readonly [field: string]: unknown;
}

/** What was read from one cluster. */
export interface ClusterSnapshot {
  /** The kubeconfig context it was read through. */
  readonly context: string;
  /** The API server URL that context reaches (the kubeconfig's `cluster.server`). */
  readonly server: string;
  /** Every object read, in no particular order (consumers sort). */
  readonly objects: readonly LiveObject[];
}

/** A running ClusterSet as `clusterset import` read it. */
export interface LiveSnapshot {
  /** RFC 3339 time the read began. */
  readonly readAt: string;
  readonly leader: ClusterSnapshot;
  /** Member ID (from `--member ID=CONTEXT`) → what was read there. A leader that is also a member appears in both. */
  readonly members: Readonly<Record<string, ClusterSnapshot>>;
}

/** The objects of one apiVersion and kind, sorted by namespace and name. */
export function objectsOf(c: ClusterSnapshot, apiVersion: string, kind: string): LiveObject[] {
  return c.objects
    .filter((o) => o.apiVersion === apiVersion && o.kind === kind)
    .sort((a, b) =>
      `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
        `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
      ),
    );
}
