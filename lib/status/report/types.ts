/**
 * The types of the status report: per cluster (delivered objects, membership, the reconciler's
 * Lease, identities, the restart Job, what is left of a leaving member), per Service, per policy,
 * the label identities and ClusterInfos, and the report as a whole; and StatusInput, what the report
 * is made of.
 *
 * The JSON form of StatusReport is the documented, stable output of `status --format json`
 * (docs/day-two.md, "clusterset status"): fields are added, never renamed or removed, within
 * `version: 1`.
 */
import type { Plan } from '../../plan';
import type { ObjectState } from '../delivered';
import type { BundleObject, ClusterRead } from '../live';

export interface Condition {
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface ClusterReport {
  readonly id: string;
  readonly role: 'leader' | 'member';
  readonly reachable: boolean;
  readonly error?: string;
  /** Collections that could not be listed, with why. */
  readonly unreadable: readonly { readonly collection: string; readonly error: string }[];
  readonly delivered: {
    readonly total: number;
    /**
     * Objects as they should be: equal to the bundle in the fields it renders and, when the model's
     * `delivery` names the tools, applied by one of them.
     */
    readonly ok: number;
    /** Objects equal to the bundle in the fields it renders, whoever applied them. */
    readonly matching: number;
    /** Objects not compared: Secrets (never read) and objects whose collection could not be read. */
    readonly unread: number;
    /**
     * Who applied the objects that are there (ObjectState.appliedBy), as information: each field
     * manager with the number of objects it applied; most objects first, then by name.
     */
    readonly appliedBy: readonly { readonly manager: string; readonly objects: number }[];
    /**
     * Every object that is missing or drifted and, when the model's `delivery` names the tools,
     * every object none of them applied (its `otherOwners` say who did).
     */
    readonly objects: readonly ObjectState[];
  };
  /** Members only. */
  readonly membership?: {
    readonly announce: { readonly present: boolean; readonly ageSeconds?: number };
    /** The leader ClusterSet's `status.clusterStatuses[].conditions[type=Ready]` for this member. */
    readonly leaderView?: Condition;
    /** This member's own ClusterSet `status.conditions[type=Ready]`. */
    readonly ready?: Condition;
  };
  /** The leader only: the reconciler's Lease. */
  readonly reconciler?: {
    readonly holder?: string;
    readonly renewedSecondsAgo?: number;
    readonly leaseDurationSeconds?: number;
    readonly healthy: boolean;
    /**
     * With `reconciler.waitForAntreaLeader`, while no one holds the Lease: what of Antrea's leader
     * still runs, as the reconciler's standby log names it (its Deployment's replicas; status does
     * not read webhook configurations). The reconciler waits for it: not a problem.
     */
    readonly waitingForAntreaLeader?: readonly string[];
  };
  /** Members only: label identities and ClusterInfo imports held. */
  readonly identities?: { readonly labelIdentities: number; readonly clusterInfoImports: number };
  /**
   * Members only: the restart Job the bundle holds (render/member-restart.ts), as far as it got:
   * `done`; `waiting` (for the restarted controller to connect, say); `running`; `failed` with the
   * cause it recorded on the member's ClusterSet; `cannot start` with what its Pod waits for (an
   * image that cannot be pulled, say: the Job cannot say so itself); `missing` when it is not there.
   */
  readonly restart?: {
    readonly job: string;
    readonly state: 'done' | 'waiting' | 'running' | 'failed' | 'cannot start' | 'missing';
    readonly detail?: string;
  };
  /**
   * Members only, while the ClusterSet is uninstalled (`uninstalling`): what is left of it, each
   * count undefined when its cluster could not be read. It has left once all are zero.
   */
  readonly leaving?: {
    /** Its own ClusterSet (0 or 1): the delivery tool deletes it. */
    readonly clusterSet?: number;
    /** Its MemberClusterAnnounce in the leader (0 or 1): Antrea's member deletes it once its ClusterSet is gone. */
    readonly announce?: number;
    /** Its ResourceExports in the leader: the reconciler deletes them before it lets the announce go. */
    readonly exports?: number;
    /** What Antrea imported into it (ServiceImports, imported policies, label identities, ClusterInfo imports). */
    readonly imported?: number;
  };
}

export interface ExporterReport {
  readonly cluster: string;
  /** Whether the exporting member could be read (its ServiceExport is unknown otherwise). */
  readonly reachable: boolean;
  /** ServiceExport `status.conditions[type=Valid]` in the exporting member. */
  readonly serviceExport?: Condition;
  readonly serviceExportPresent: boolean;
  /**
   * The Service ResourceExport's status on the leader: `Succeeded`, or the failure's reason;
   * `known` is false when the leader could not be read.
   */
  readonly export: {
    readonly known: boolean;
    readonly present: boolean;
    readonly condition?: Condition & { readonly type: string };
  };
  /** Endpoint addresses the member exports (its `-endpoints` ResourceExport). */
  readonly endpoints: number;
}

export interface ImporterReport {
  readonly cluster: string;
  readonly present: boolean;
  readonly endpoints: number;
  /** Exporters those endpoints come from (sorted); `unknown` for an address no export carries. */
  readonly from: readonly string[];
}

export interface ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly exporters: readonly ExporterReport[];
  readonly importers: readonly ImporterReport[];
  /** Some member holds endpoints for it (false too when no member could be read: see importers). */
  readonly reachable: boolean;
}

export interface PolicyMemberReport {
  readonly cluster: string;
  readonly present: boolean;
  readonly tier: string;
  readonly tierPresent: boolean;
  /** Antrea's ACNPImportFailed events for this member (baseline policies), while it is not held. */
  readonly events: readonly string[];
}

export interface PolicyReport {
  readonly name: string;
  readonly kind: 'baseline' | 'stretched';
  /** The object members hold: `antrea-mc-<name>` (imported) or `<name>` (delivered). */
  readonly object: string;
  readonly members: readonly PolicyMemberReport[];
}

export interface IdentityReport {
  readonly labelIdentities: { readonly exports: number; readonly imports: number };
  readonly clusterInfos: { readonly exports: number; readonly imports: number };
  /** ResourceExports of those kinds whose status is a failure: `name: message`. */
  readonly refused: readonly string[];
}

export interface StatusReport {
  readonly version: 1;
  /** Set when the model says `uninstall`: members are reported leaving, not serving. */
  readonly uninstalling?: true;
  readonly clusterSet: string;
  readonly leader: string;
  /**
   * The field managers of the delivery tools the model's `delivery` names (`argocd-controller`,
   * `kustomize-controller`): an object none of them applied is a problem. Absent when the model
   * has no `delivery`: who applied an object is then information only.
   */
  readonly deliveryManagers?: readonly string[];
  /** RFC 3339: when the report was made. */
  readonly at: string;
  readonly ok: boolean;
  readonly clusters: readonly ClusterReport[];
  readonly services: readonly ServiceReport[];
  readonly policies: readonly PolicyReport[];
  readonly identities?: IdentityReport;
  /** Every mismatch, one line each, prefixed by what it concerns. */
  readonly problems: readonly string[];
}

export interface StatusInput {
  readonly plan: Plan;
  /** Cluster ID → its bundle's objects in out/. */
  readonly bundles: ReadonlyMap<string, readonly BundleObject[]>;
  /** Cluster ID → what was read (every cluster of the plan). */
  readonly reads: ReadonlyMap<string, ClusterRead>;
  readonly nowMs: number;
}
