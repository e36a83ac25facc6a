/**
 * Leader election through a coordination.k8s.io Lease, with client-go's rules (leaderelection.go):
 * a candidate takes the Lease when it is free, its own, or not renewed for `leaseDurationS` as
 * measured on the candidate's own clock from when it last saw the record change (no trust in other
 * clocks); the holder renews every `retryPeriodMs` and counts as leader only while its last
 * successful renewal is younger than `renewDeadlineMs` (< leaseDuration), so that it stops writing
 * before anyone else may start. Every write is a compare-and-swap on resourceVersion.
 *
 * The reconciler creates the Lease when there is none, as client-go's elector does (taking it in
 * the same write), and re-creates it if it is deleted; it is not rendered in the leader bundle,
 * since Argo CD 3 never applies a Lease (coordination.k8s.io/Lease is in its hard-coded resource
 * exclusions). Its Role may create Leases (RBAC cannot name the object of a create) and get and
 * update this one; the reconciler-writes admission policy lets it create this name only. The
 * Lease's annotations also carry state that must survive restarts (the label ID cursor); a Lease
 * created afresh has none, and the allocator starts past the highest ID in use.
 */
import { isApiError, type KubeClient } from './kube';
import type { Logger } from './log';

export interface ElectorOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly fieldManager: string;
  readonly log: Logger;
  /** @default 15 */
  readonly leaseDurationS?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
  readonly now?: () => number;
  /** Labels of a Lease this elector creates. */
  readonly labels?: Readonly<Record<string, string>>;
  /** On shutdown, before the Lease is released: let writes in flight finish. */
  readonly beforeRelease?: () => Promise<void>;
  /**
   * Why this replica may not lead now, one phrase each; empty (or no function) when it may. Asked
   * before every round and on `wake()`. Held back, it does not take the Lease; held back while
   * leading, it stops leading at once and releases the Lease (after `beforeRelease`). Used for the
   * warm standby beside Antrea's leader (antrea-leader.ts).
   */
  readonly holdBack?: () => readonly string[];
}

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** MicroTime, as the Lease API wants it: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  private lease: Lease | undefined;
  /** The record (holder + renewTime) we last saw, and when we saw it change, on our clock. */
  private observedRecord = '';
  private observedAt = 0;
  /** The holder of the Lease as last read ('' when free or never read). */
  private lastHolder = '';
  private leading = false;
  private lastRenewMs = 0;
  /** We took the Lease and have not released it since (held back, it must be released). */
  private holding = false;
  /** Ends the current wait between rounds early (wake()). */
  private wakeUp: (() => void) | undefined;
  /** wake() was called during a round: the next wait ends at once. */
  private woken = false;
  private readonly now: () => number;
  private readonly path: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: ElectorOptions) {
    this.now = o.now ?? Date.now;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${o.namespace}/leases/${o.name}`;
  }

  private get renewDeadlineMs(): number {
    return this.o.renewDeadlineMs ?? 10_000;
  }

  /** True while this process holds the Lease and renewed it recently enough to act on it. */
  isLeader(): boolean {
    return this.leading && this.now() - this.lastRenewMs < this.renewDeadlineMs;
  }

  get holder(): string | undefined {
    return this.lease?.spec?.holderIdentity || undefined;
  }

  /** An annotation of the Lease as last read or written. */
  annotation(key: string): string | undefined {
    return this.lease?.metadata.annotations?.[key];
  }

  /**
   * Writes annotations on the Lease while leading, renewing it at the same time; resolves once
   * stored. Serialized with renewals.
   */
  setAnnotations(annotations: Record<string, string>): Promise<void> {
    const run = this.chain.then(async () => {
      for (let attempt = 0; ; attempt++) {
        if (!this.isLeader()) throw new Error('not the leader: the Lease cannot be written');
        try {
          await this.write(annotations);
          return;
        } catch (e) {
          if (!isApiError(e, 409) || attempt >= 3) throw e;
          await this.read();
        }
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<Lease> {
    const lease = await this.o.client.request<Lease>('GET', this.path, undefined, {
      timeoutMs: this.renewDeadlineMs / 2,
    });
    this.lease = lease;
    this.lastHolder = lease.spec?.holderIdentity ?? '';
    const record = `${lease.spec?.holderIdentity ?? ''}|${lease.spec?.renewTime ?? ''}`;
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = this.now();
    }
    return lease;
  }

  /**
   * Creates the Lease with our identity as holder (client-go's elector does the same when its GET
   * finds none). Another replica creating it first answers 409; the next round reads theirs.
   */
  private async create(): Promise<void> {
    const now = this.now();
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.o.name,
        namespace: this.o.namespace,
        ...(this.o.labels ? { labels: { ...this.o.labels } } : {}),
      },
      spec: {
        holderIdentity: this.o.identity,
        leaseDurationSeconds: this.o.leaseDurationS ?? 15,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    };
    const collection = this.path.slice(0, this.path.lastIndexOf('/'));
    await this.send('POST', collection, body, now, true);
    this.o.log.info('created the Lease', { lease: `${this.o.namespace}/${this.o.name}` });
  }

  /** PUT with our identity as holder (acquire or renew), plus annotations; compare-and-swap. */
  private async write(annotations: Record<string, string> = {}, release = false): Promise<void> {
    const cur = this.lease;
    if (!cur) throw new Error('Lease not read yet');
    const now = this.now();
    const spec = cur.spec ?? {};
    const mine = spec.holderIdentity === this.o.identity;
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...cur.metadata,
        annotations: { ...(cur.metadata.annotations ?? {}), ...annotations },
      },
      spec: release
        ? { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now) }
        : {
            ...spec,
            holderIdentity: this.o.identity,
            leaseDurationSeconds: this.o.leaseDurationS ?? 15,
            acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
            renewTime: microTime(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + (mine || !spec.holderIdentity ? 0 : 1),
          },
    };
    if (Object.keys(body.metadata.annotations!).length === 0) delete body.metadata.annotations;
    await this.send('PUT', this.path, body, now, !release);
  }

  /** Writes the Lease (POST to create, PUT to update) and records what the server stored. */
  private async send(method: 'POST' | 'PUT', path: string, body: Lease, now: number, renewed: boolean) {
    const stored = await this.o.client.request<Lease>(
      method,
      `${path}?fieldManager=${encodeURIComponent(this.o.fieldManager)}`,
      body,
      { timeoutMs: this.renewDeadlineMs / 2 },
    );
    this.lease = stored;
    this.lastHolder = stored.spec?.holderIdentity ?? '';
    this.observedRecord = `${stored.spec?.holderIdentity ?? ''}|${stored.spec?.renewTime ?? ''}`;
    this.observedAt = now;
    if (renewed) this.lastRenewMs = now;
  }

  private heldBack(): readonly string[] {
    return this.o.holdBack?.() ?? [];
  }

  /**
   * Something `holdBack` reads has changed: stop leading at once if it now holds us back (no write
   * starts after this returns), and run the next round now instead of after the retry period.
   */
  wake(): void {
    const held = this.heldBack();
    if (held.length > 0 && this.leading) this.stopLeading(`held back: ${held.join('; ')}`);
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** Waits `ms`, or less if the signal aborts or wake() is called. */
  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted || this.woken) {
        this.woken = false;
        return resolve();
      }
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const t = setTimeout(done, ms);
      signal.addEventListener('abort', done);
      this.wakeUp = done;
    });
  }

  /**
   * Held back: not leading, and the Lease released if we still hold it (after the writes in flight
   * finished), so that the Lease says nobody leads rather than a replica that does not write.
   */
  private async standBy(held: readonly string[]): Promise<void> {
    if (this.leading) this.stopLeading(`held back: ${held.join('; ')}`);
    if (!this.holding) return;
    await this.o.beforeRelease?.();
    await this.read();
    if (this.lease?.spec?.holderIdentity === this.o.identity) {
      await this.write({}, true);
      this.o.log.info('released the Lease', { lease: this.o.name, why: 'held back' });
    }
    this.holding = false;
  }

  private stopLeading(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.o.log.warn('stopped leading', { lease: this.o.name, identity: this.o.identity, why });
    this.o.onStoppedLeading();
  }

  /** Runs until the signal aborts; then releases the Lease if held. */
  async run(signal: AbortSignal): Promise<void> {
    const retry = this.o.retryPeriodMs ?? 2000;
    while (!signal.aborted) {
      const held = this.heldBack();
      const step = this.chain.then(() => (held.length > 0 ? this.standBy(held) : this.tryAcquireOrRenew()));
      this.chain = step.catch(() => undefined);
      try {
        await step;
      } catch (e) {
        if (!isApiError(e, 409)) {
          this.o.log.warn('Lease read or write failed', { error: (e as Error).message });
        }
      }
      if (this.leading && !this.isLeader())
        this.stopLeading(`no successful renewal for ${this.renewDeadlineMs} ms`);
      await this.pause(retry, signal);
    }
    await this.chain;
    if (this.leading) {
      await this.o.beforeRelease?.();
      this.leading = false;
      try {
        await this.read();
        if (this.lease?.spec?.holderIdentity === this.o.identity) await this.write({}, true);
        this.o.log.info('released the Lease', { lease: this.o.name });
      } catch (e) {
        this.o.log.warn('could not release the Lease', { error: (e as Error).message });
      }
      this.o.onStoppedLeading();
    } else if (this.holding) {
      // Held back, and stopped before a round released it: release it now, quietly.
      try {
        await this.read();
        if (this.lease?.spec?.holderIdentity === this.o.identity) await this.write({}, true);
      } catch (e) {
        this.o.log.warn('could not release the Lease', { error: (e as Error).message });
      }
    }
    this.holding = false;
  }

  private async tryAcquireOrRenew(): Promise<void> {
    let lease: Lease;
    try {
      lease = await this.read();
    } catch (e) {
      if (!isApiError(e, 404)) throw e;
      // None (a first start, or deleted). Another replica that held it may still act on its last
      // renewal until its renew deadline: a candidate that saw it held waits a lease duration from
      // when it last saw the record change (as for an expired Lease) before taking it; the holder
      // itself takes it again at once.
      const heldByOther = this.lastHolder !== '' && this.lastHolder !== this.o.identity;
      const duration = (this.lease?.spec?.leaseDurationSeconds ?? this.o.leaseDurationS ?? 15) * 1000;
      if (!this.leading && heldByOther && this.now() <= this.observedAt + duration) return;
      this.lease = undefined;
      if (this.leading) this.stopLeading('the Lease was deleted');
      await this.create();
      this.becomeLeader();
      return;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const now = this.now();
    if (holder === this.o.identity) {
      await this.write();
      if (!this.leading) this.becomeLeader();
      return;
    }
    this.holding = false;
    if (this.leading) this.stopLeading(`the Lease is held by ${holder || 'nobody'}`);
    const duration = (lease.spec?.leaseDurationSeconds ?? this.o.leaseDurationS ?? 15) * 1000;
    const free = holder === '' || now > this.observedAt + duration;
    if (!free) return;
    await this.write();
    this.becomeLeader();
  }

  private becomeLeader(): void {
    this.holding = true;
    // Held back while the write was in flight: the next round (woken now) releases the Lease.
    if (this.heldBack().length > 0) {
      this.woken = true;
      return;
    }
    this.leading = true;
    this.o.log.info('started leading', { lease: this.o.name, identity: this.o.identity });
    this.o.onStartedLeading();
  }
}
