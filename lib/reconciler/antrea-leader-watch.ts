/**
 * The warm standby's caches of Antrea's leader, kept only with `waitForAntreaLeader`: its Deployment
 * and its two webhook configurations (one object each, by name), and the Pods of its ServiceAccount
 * in the leader namespace (a process of Antrea's leader runs on after its Pod is marked for deletion,
 * until the kubelet reports it stopped). Every change of them asks antrea-leader.ts whether Antrea's
 * leader may still write, and wakes the elector, which leads only while nothing of it can.
 */
import { ANTREA_LEADER_DEPLOYMENT, ANTREA_LEADER_POD_SELECTOR, ANTREA_LEADER_WEBHOOKS } from '../names';
import {
  antreaLeaderRunning,
  observeDeployment,
  observePod,
  type ObservedDeployment,
  type ObservedPod,
} from './antrea-leader';
import { Informer, type InformerOptions } from './informer';
import type { Logger } from './log';

/**
 * An object of Antrea's leader the standby watches: its name, its replicas for the Deployment, what
 * may still run for a Pod.
 */
interface CachedAntreaObject {
  readonly name: string;
  readonly resourceVersion: string;
  readonly deployment?: ObservedDeployment;
  readonly pod?: ObservedPod;
}

function trimAntreaObject(
  raw: Record<string, unknown>,
  what: 'deployment' | 'pod' | 'webhook',
): CachedAntreaObject {
  const md = (raw.metadata ?? {}) as { name?: string; resourceVersion?: string };
  return {
    name: md.name ?? '',
    resourceVersion: md.resourceVersion ?? '',
    ...(what === 'deployment' ? { deployment: observeDeployment(raw) } : {}),
    ...(what === 'pod' ? { pod: observePod(raw) } : {}),
  };
}

export interface AntreaLeaderWatchOptions {
  /** What every informer shares: the client, log, metrics and watch timeout. */
  readonly common: Pick<InformerOptions<never>, 'client' | 'log' | 'metrics' | 'watchTimeoutSeconds'>;
  /** The leader namespace. */
  readonly ns: string;
  readonly log: Logger;
  /** The elector: whether this replica leads, and a wake-up for its next round. */
  readonly elector: { isLeader(): boolean; wake(): void };
}

export class AntreaLeaderWatch {
  readonly deployment: Informer<CachedAntreaObject>;
  readonly pods: Informer<CachedAntreaObject>;
  readonly mutating: Informer<CachedAntreaObject>;
  readonly validating: Informer<CachedAntreaObject>;
  /** What of Antrea's leader ran at the last change seen (joined), to log each change once. */
  private antreaSeen: string | undefined;
  private readonly ns: string;
  private readonly elector: AntreaLeaderWatchOptions['elector'];

  constructor(private readonly o: AntreaLeaderWatchOptions) {
    this.ns = o.ns;
    this.elector = o.elector;
    const common = o.common;
    const watch = (
      path: string,
      resource: string,
      fieldSelector: string,
      what: 'deployment' | 'pod' | 'webhook',
    ) =>
      new Informer<CachedAntreaObject>({
        ...common,
        path,
        resource,
        fieldSelector,
        trim: (raw) => trimAntreaObject(raw, what),
        onChange: () => this.onChange(),
      });
    const admission = '/apis/admissionregistration.k8s.io/v1';
    this.deployment = watch(
      `/apis/apps/v1/namespaces/${this.ns}/deployments`,
      'deployments',
      `metadata.name=${ANTREA_LEADER_DEPLOYMENT}`,
      'deployment',
    );
    this.pods = watch(`/api/v1/namespaces/${this.ns}/pods`, 'pods', ANTREA_LEADER_POD_SELECTOR, 'pod');
    this.mutating = watch(
      `${admission}/mutatingwebhookconfigurations`,
      'mutatingwebhookconfigurations',
      `metadata.name=${ANTREA_LEADER_WEBHOOKS.mutating}`,
      'webhook',
    );
    this.validating = watch(
      `${admission}/validatingwebhookconfigurations`,
      'validatingwebhookconfigurations',
      `metadata.name=${ANTREA_LEADER_WEBHOOKS.validating}`,
      'webhook',
    );
  }

  /** The four caches. */
  get informers(): Pick<Informer<never>, 'run' | 'waitSynced' | 'synced'>[] {
    return [this.deployment, this.pods, this.mutating, this.validating];
  }

  /** All four caches hold their first list. */
  get synced(): boolean {
    return this.deployment.synced && this.pods.synced && this.mutating.synced && this.validating.synced;
  }

  /**
   * What of Antrea's leader still runs (antrea-leader.ts), or that its caches have not synced yet;
   * empty when the reconciler may lead.
   */
  running(): string[] {
    if (!this.synced)
      return ["the caches of Antrea's leader Deployment, Pods and webhook configurations have not synced"];
    return antreaLeaderRunning({
      namespace: this.ns,
      deployment: this.deployment.store.get(ANTREA_LEADER_DEPLOYMENT)?.deployment,
      pods: [...this.pods.store.values()].flatMap((o) => (o.pod ? [o.pod] : [])),
      mutatingWebhook: this.mutating.store.has(ANTREA_LEADER_WEBHOOKS.mutating),
      validatingWebhook: this.validating.store.has(ANTREA_LEADER_WEBHOOKS.validating),
    });
  }

  /**
   * A change of Antrea's leader objects (or their first sync): log what runs when that changed,
   * as an error when it came back under a leading reconciler, then wake the elector, which stops
   * leading at once or takes the Lease within its next round.
   */
  onChange(): void {
    if (!this.synced) return;
    const running = this.running();
    const seen = running.join('\n');
    if (seen !== this.antreaSeen) {
      const first = this.antreaSeen === undefined;
      this.antreaSeen = seen;
      if (running.length === 0)
        this.o.log.info(
          first
            ? "Antrea's leader controller is not running: this reconciler may lead"
            : "Antrea's leader controller is gone: this reconciler may lead",
          { namespace: this.ns },
        );
      else if (this.elector.isLeader())
        this.o.log.error(
          "Antrea's leader controller came back while this reconciler leads: it stops writing and releases the Lease until Antrea's leader is gone again (two leader writers must never run at once)",
          { namespace: this.ns, running },
        );
      else
        this.o.log.warn("standby: waiting for Antrea's leader controller to stop before leading", {
          namespace: this.ns,
          running,
        });
    }
    this.elector.wake();
  }

  /** For /readyz: which of the four caches have not synced yet. */
  notSynced(): string[] {
    const out: string[] = [];
    if (!this.deployment.synced) out.push('deployments');
    if (!this.pods.synced) out.push('pods');
    if (!this.mutating.synced) out.push('mutatingwebhookconfigurations');
    if (!this.validating.synced) out.push('validatingwebhookconfigurations');
    return out;
  }
}
