/**
 * What a reconcile of the reconciler's pure core (lib/reconciler/desired/) returns: the actions the
 * edge must take, in order, the exports refused and why, and when to look again. The core goes from
 * what is (the config, the exports, announces and imports the caches hold, and the time) to what must
 * be done, one file per kind of key; nothing in it reads the cluster or a clock: the edge
 * (controller.ts) feeds it and applies its actions in order (writes.ts). Each function reconciles
 * one key and is safe to repeat: computed from the present state alone, never from the history of
 * events. Antrea's leader controller is the reference for every shape and message (antrea-mc.md
 * §c.2, §d, §h; leader/*.go); where the model decides instead of "first writer wins", the difference
 * is said where it is made.
 */
import type { CachedImport, ClusterSetStatus, Condition, ImportClusterStatus } from '../objects';

/** What the edge must do, in order. A failed action stops the rest; the key is retried. */
export type Action =
  | { readonly op: 'createImport'; readonly name: string; readonly spec: ImportSpec }
  | { readonly op: 'replaceImport'; readonly name: string; readonly uid: string; readonly spec: ImportSpec }
  | { readonly op: 'deleteImport'; readonly name: string; readonly uid: string }
  | {
      readonly op: 'importStatus';
      readonly name: string;
      readonly uid: string;
      readonly clusterStatuses: readonly ImportClusterStatus[];
    }
  | {
      readonly op: 'exportStatus';
      readonly name: string;
      readonly uid: string;
      readonly condition: Condition;
    }
  | {
      readonly op: 'releaseExport';
      readonly name: string;
      readonly resourceVersion: string;
      readonly finalizers: readonly string[];
    }
  | { readonly op: 'deleteExport'; readonly name: string; readonly uid: string }
  | {
      readonly op: 'announceFinalizers';
      readonly name: string;
      readonly resourceVersion: string;
      readonly finalizers: readonly string[];
    }
  | { readonly op: 'deleteAnnounce'; readonly name: string; readonly uid: string }
  | { readonly op: 'clusterSetStatus'; readonly name: string; readonly status: ClusterSetStatus };

/** The spec of a dynamic ResourceImport. */
export type ImportSpec =
  | {
      readonly name: string;
      readonly namespace: string;
      readonly kind: 'Endpoints';
      readonly endpoints: { readonly subsets: readonly unknown[] };
    }
  | {
      readonly kind: 'ClusterInfo';
      readonly name: string;
      readonly namespace: string;
      readonly clusterinfo: unknown;
    }
  | {
      readonly kind: 'LabelIdentity';
      readonly labelIdentity: { readonly label: string; readonly id: number };
    };

/** An export the reconciler refuses, and why (also written to its status). */
export interface Refusal {
  readonly export: string;
  readonly why: string;
}

export interface Outcome {
  readonly actions: readonly Action[];
  readonly refused: readonly Refusal[];
  /** Reconcile the key again after this long (time-driven state: retirement, readiness). */
  readonly requeueAfterMs?: number;
}

/** Whether a stored import already holds a desired spec (the edge knows what the server stores). */
export type SameSpec = (existing: CachedImport, desired: ImportSpec) => boolean;
