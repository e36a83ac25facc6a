/**
 * The warm standby of a cut-over from Antrea's own leader controller (ReconcilerProps
 * .waitForAntreaLeader, issue 33): whether Antrea's leader may still write in the leader namespace,
 * decided from what the reconciler observes of it. Pure: the controller (controller.ts) watches the
 * objects by name and asks this on every change; the elector (election.ts) leads only while it
 * answers nothing.
 *
 * Antrea's leader counts as running while its Deployment has a replica, wanted or still there
 * (`spec.replicas` or `status.replicas` above 0: a Pod terminating after a scale to 0 still counts,
 * it may still write), or while either of its leader webhook configurations exists: with its Pod
 * gone they fail closed and refuse the members' announce and export writes, and its validating
 * webhook refuses the reconciler's announce finalizer writes (antrea-mc.md §i).
 */

/** Antrea's leader Deployment (and its ServiceAccount) in the leader namespace (antrea-mc.md §i). */
export const ANTREA_LEADER_DEPLOYMENT = 'antrea-mc-controller';

/**
 * Antrea's leader webhook configurations: cluster-scoped, named with the `antrea-multicluster-`
 * prefix of Antrea's leader manifest whatever the leader namespace (antrea-mc.md §e, §i).
 */
export const ANTREA_LEADER_WEBHOOKS = {
  mutating: 'antrea-multicluster-antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-multicluster-antrea-mc-validating-webhook-configuration',
} as const;

/** What the reconciler observed of Antrea's leader Deployment; undefined when there is none. */
export interface ObservedDeployment {
  /** `spec.replicas`; the API server defaults an absent one to 1. */
  readonly specReplicas: number | undefined;
  /** `status.replicas`: Pods that exist, terminating ones included; absent means 0. */
  readonly statusReplicas: number | undefined;
}

export interface ObservedAntreaLeader {
  readonly namespace: string;
  readonly deployment: ObservedDeployment | undefined;
  readonly mutatingWebhook: boolean;
  readonly validatingWebhook: boolean;
}

/**
 * What of Antrea's leader still runs, one phrase each (for the log and the error), in a fixed
 * order; empty when nothing does, and the reconciler may lead.
 */
export function antreaLeaderRunning(o: ObservedAntreaLeader): string[] {
  const out: string[] = [];
  const d = o.deployment;
  if (d) {
    const spec = d.specReplicas ?? 1;
    const status = d.statusReplicas ?? 0;
    if (spec > 0 || status > 0)
      out.push(
        `Deployment ${o.namespace}/${ANTREA_LEADER_DEPLOYMENT} has replicas (spec.replicas ${spec}, status.replicas ${status})`,
      );
  }
  if (o.mutatingWebhook) out.push(`MutatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.mutating} exists`);
  if (o.validatingWebhook)
    out.push(`ValidatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.validating} exists`);
  return out;
}

/** The replica counts of a Deployment as the API returns it. */
export function observeDeployment(raw: Record<string, unknown>): ObservedDeployment {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const spec = raw.spec as { replicas?: unknown } | undefined;
  const status = raw.status as { replicas?: unknown } | undefined;
  return { specReplicas: num(spec?.replicas), statusReplicas: num(status?.replicas) };
}
