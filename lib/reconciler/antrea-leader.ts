/**
 * The warm standby of a cut-over from Antrea's own leader controller (ReconcilerProps
 * .waitForAntreaLeader, issue 33): whether Antrea's leader may still write in the leader namespace,
 * decided from what the reconciler observes of it. Pure: the controller watches the objects
 * (antrea-leader-watch.ts) and asks this on every change; the elector (election.ts) leads only while
 * it answers nothing.
 *
 * Antrea's leader counts as running while any of these holds (antrea-mc.md §i):
 * - its Deployment wants a replica (`spec.replicas` above 0) or counts one (`status.replicas`, or
 *   `status.terminatingReplicas` where the API server has that field);
 * - a Pod of its ServiceAccount `antrea-mc-controller` in the leader namespace may still run a
 *   process. This is the decisive one: after `kubectl scale --replicas=0` the ReplicaSet controller
 *   counts only Pods without a deletionTimestamp, so `status.replicas` reads 0 at once, while the
 *   Pod's process gets SIGTERM and goes on writing until it exits (about a second for Antrea's
 *   leader, up to its terminationGracePeriodSeconds of 10 s). A Pod's process is gone once the
 *   kubelet reports every container of a Pod being deleted terminated (or the Pod in a terminal
 *   phase), or the Pod object is gone; a Pod held by a finalizer after that no longer counts. A Pod
 *   being deleted that was never bound to a node never ran anything. A Pod whose node stopped
 *   reporting stays Terminating and keeps counting: its process may still run there, and only its
 *   owner can tell (docs/reconciler.md says how to release it);
 * - either of its leader webhook configurations exists: with its Pod gone they fail closed and
 *   refuse the members' announce and export writes, and its validating webhook refuses the
 *   reconciler's announce finalizer writes.
 */
import { ANTREA_LEADER_DEPLOYMENT, ANTREA_LEADER_SERVICE_ACCOUNT, ANTREA_LEADER_WEBHOOKS } from '../names';

/** What the reconciler observed of Antrea's leader Deployment; undefined when there is none. */
export interface ObservedDeployment {
  /** `spec.replicas`; the API server defaults an absent one to 1. */
  readonly specReplicas: number | undefined;
  /** `status.replicas`: Pods without a deletionTimestamp; absent means 0. */
  readonly statusReplicas: number | undefined;
  /** `status.terminatingReplicas` (Kubernetes 1.33 and later, behind a feature gate); absent: unknown. */
  readonly terminatingReplicas?: number | undefined;
}

/** The state of one container, as the kubelet last reported it. */
export type ContainerState = 'waiting' | 'running' | 'terminated';

/** What the reconciler observed of one Pod of Antrea's leader ServiceAccount. */
export interface ObservedPod {
  readonly name: string;
  /** `status.phase`; absent until the scheduler or the kubelet writes one. */
  readonly phase: string | undefined;
  /** `spec.nodeName`: the node it is bound to, if any. */
  readonly nodeName: string | undefined;
  /** `metadata.deletionTimestamp`: it is being deleted. */
  readonly deletionTimestamp: string | undefined;
  /** `metadata.deletionGracePeriodSeconds`. */
  readonly gracePeriodSeconds: number | undefined;
  /** Init and regular containers, in the order the kubelet lists them. */
  readonly containers: readonly { readonly name: string; readonly state: ContainerState }[];
}

export interface ObservedAntreaLeader {
  readonly namespace: string;
  readonly deployment: ObservedDeployment | undefined;
  /** The Pods of ServiceAccount `antrea-mc-controller` in the leader namespace; absent: not read. */
  readonly pods?: readonly ObservedPod[];
  readonly mutatingWebhook: boolean;
  readonly validatingWebhook: boolean;
}

/**
 * Whether a process of the Pod may still run (see the top of this file): false for a terminal
 * phase, for a Pod being deleted whose every container the kubelet reports terminated, and for a
 * Pod being deleted that no node ever took.
 */
export function podMayRun(p: ObservedPod): boolean {
  if (p.phase === 'Succeeded' || p.phase === 'Failed') return false;
  if (p.deletionTimestamp === undefined) return true;
  if (!p.nodeName) return false;
  return p.containers.length === 0 || p.containers.some((c) => c.state !== 'terminated');
}

/** One phrase for a Pod that may still run: its phase, containers, and deletion. */
function describePod(namespace: string, p: ObservedPod): string {
  const running = p.containers.filter((c) => c.state === 'running').map((c) => c.name);
  const what = [
    p.phase ?? 'no phase yet',
    ...(running.length > 0 ? [`container ${running.join(', ')} running`] : []),
    ...(p.deletionTimestamp !== undefined
      ? [
          `being deleted since ${p.deletionTimestamp}` +
            (p.gracePeriodSeconds !== undefined ? ` (grace period ${p.gracePeriodSeconds} s)` : '') +
            `: its process runs until the kubelet on ${p.nodeName} reports it stopped`,
        ]
      : p.nodeName
        ? [`on node ${p.nodeName}`]
        : ['not scheduled yet']),
  ];
  return `Pod ${namespace}/${p.name} (ServiceAccount ${ANTREA_LEADER_SERVICE_ACCOUNT}) may still run: ${what.join(', ')}`;
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
    const terminating = d.terminatingReplicas ?? 0;
    if (spec > 0 || status > 0 || terminating > 0)
      out.push(
        `Deployment ${o.namespace}/${ANTREA_LEADER_DEPLOYMENT} has replicas (spec.replicas ${spec}, status.replicas ${status}` +
          (d.terminatingReplicas !== undefined ? `, status.terminatingReplicas ${terminating}` : '') +
          ')',
      );
  }
  for (const p of [...(o.pods ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    if (podMayRun(p)) out.push(describePod(o.namespace, p));
  if (o.mutatingWebhook) out.push(`MutatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.mutating} exists`);
  if (o.validatingWebhook)
    out.push(`ValidatingWebhookConfiguration ${ANTREA_LEADER_WEBHOOKS.validating} exists`);
  return out;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** The replica counts of a Deployment as the API returns it. */
export function observeDeployment(raw: Record<string, unknown>): ObservedDeployment {
  const spec = raw.spec as { replicas?: unknown } | undefined;
  const status = raw.status as { replicas?: unknown; terminatingReplicas?: unknown } | undefined;
  const terminating = num(status?.terminatingReplicas);
  return {
    specReplicas: num(spec?.replicas),
    statusReplicas: num(status?.replicas),
    ...(terminating !== undefined ? { terminatingReplicas: terminating } : {}),
  };
}

interface RawContainerStatus {
  name?: unknown;
  state?: { running?: unknown; terminated?: unknown; waiting?: unknown };
}

/** What matters of a Pod as the API returns it (init containers first, then the others). */
export function observePod(raw: Record<string, unknown>): ObservedPod {
  const md = (raw.metadata ?? {}) as {
    name?: unknown;
    deletionTimestamp?: unknown;
    deletionGracePeriodSeconds?: unknown;
  };
  const spec = (raw.spec ?? {}) as { nodeName?: unknown };
  const status = (raw.status ?? {}) as {
    phase?: unknown;
    initContainerStatuses?: unknown;
    containerStatuses?: unknown;
  };
  const statuses = (v: unknown) => (Array.isArray(v) ? (v as RawContainerStatus[]) : []);
  const state = (s: RawContainerStatus): ContainerState =>
    s.state?.terminated ? 'terminated' : s.state?.running ? 'running' : 'waiting';
  return {
    name: str(md.name) ?? '',
    phase: str(status.phase),
    nodeName: str(spec.nodeName),
    deletionTimestamp: str(md.deletionTimestamp),
    gracePeriodSeconds: num(md.deletionGracePeriodSeconds),
    containers: [...statuses(status.initContainerStatuses), ...statuses(status.containerStatuses)].map(
      (s) => ({
        name: str(s.name) ?? '',
        state: state(s),
      }),
    ),
  };
}
