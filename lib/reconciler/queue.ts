/**
 * A work queue keyed by object, as client-go's: a key is queued at most once however many events
 * name it; a key being processed that is added again runs once more afterwards, never twice at the
 * same time; a failing key is retried with its own exponential backoff while the others go on; a
 * key can be scheduled for later (time-driven state). The queue holds keys, not events, so its
 * size is bounded by the number of distinct keys.
 *
 * A key can also be deferred (addDeferred): it waits behind every key added with add(), and is
 * processed (with `deferred` true) only once those have let the queue be for `deferQuietMs` (a
 * burst is over), or once it has waited `deferMaxMs` (a burst that never ends), by all workers but
 * one, so that a key added meanwhile never waits for deferred ones. The reconciler defers its
 * status writes so.
 */
export interface QueueOptions {
  /** Keys processed at the same time. */
  readonly concurrency: number;
  readonly process: (key: string, deferred: boolean) => Promise<{ requeueAfterMs?: number } | void>;
  readonly onError: (key: string, error: unknown, retryInMs: number, failures: number) => void;
  /** First retry delay; doubles per failure. @default 200 */
  readonly baseDelayMs?: number;
  /** @default 60000 */
  readonly maxDelayMs?: number;
  /** Deferred keys wait until no other key was added or processed for this long. @default 250 */
  readonly deferQuietMs?: number;
  /** ... or until they have waited this long. @default 30000 */
  readonly deferMaxMs?: number;
}

/** Keys in the order they were added, each at most once. */
class Lane {
  private readonly order: string[] = [];
  private head = 0;
  readonly keys = new Set<string>();

  /** When each key was added. */
  private readonly since = new Map<string, number>();

  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.order.push(key);
    this.since.set(key, Date.now());
    return true;
  }

  /** When the key that has waited longest was added. */
  oldest(): number | undefined {
    while (this.head < this.order.length && !this.keys.has(this.order[this.head]!)) this.head++;
    const key = this.order[this.head];
    return key === undefined ? undefined : this.since.get(key);
  }

  take(): string | undefined {
    while (this.head < this.order.length) {
      const key = this.order[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.order.length) {
        this.order.splice(0, this.head);
        this.head = 0;
      }
      if (this.keys.delete(key)) {
        this.since.delete(key);
        return key;
      }
    }
    return undefined;
  }
}

export class WorkQueue {
  private readonly queued = new Lane();
  private readonly deferredKeys = new Lane();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly dirtyDeferred = new Set<string>();
  private activeDeferred = 0;
  /** When a key other than a deferred one was last added or finished. */
  private lastBusy = 0;
  private deferTimer: NodeJS.Timeout | undefined;
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private active = 0;
  private running = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private settleWaiters: (() => void)[] = [];

  constructor(private readonly o: QueueOptions) {}

  /** Keys waiting to be processed, deferred ones included (not counting scheduled ones). */
  get depth(): number {
    return this.queued.keys.size + this.deferredKeys.keys.size;
  }

  /** Deferred keys waiting. */
  get deferred(): number {
    return this.deferredKeys.keys.size;
  }

  get scheduled(): number {
    return this.timers.size;
  }

  get inFlight(): number {
    return this.active;
  }

  add(key: string): void {
    if (this.stopped) return;
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t.timer);
      this.timers.delete(key);
    }
    this.lastBusy = Date.now();
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.add(key)) this.pump();
  }

  /** Adds the key behind every key add() queues (see the class comment). */
  addDeferred(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirtyDeferred.add(key);
      return;
    }
    if (this.deferredKeys.add(key)) this.pump();
  }

  /** Adds the key after `ms`, unless it is already due sooner. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const t = this.timers.get(key);
    if (t && t.at <= at) return;
    if (t) clearTimeout(t.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Starts (or resumes) processing. */
  resume(): void {
    this.running = true;
    this.pump();
  }

  /** Stops taking keys; keys keep accumulating (deduplicated) until resume(). */
  pause(): void {
    this.running = false;
  }

  /** Stops for good: clears timers, takes no more keys. */
  shutdown(): void {
    this.stopped = true;
    this.running = false;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
  }

  /** Resolves when nothing is queued (deferred included) or in flight (scheduled keys do not count). */
  idle(): Promise<void> {
    if (this.depth === 0 && this.active === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Resolves when no key is being processed (queued ones may wait, e.g. while paused). */
  settled(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((r) => this.settleWaiters.push(r));
  }

  /** The next key, and whether it is a deferred one. */
  private take(): { key: string; deferred: boolean } | undefined {
    const key = this.queued.take();
    if (key !== undefined) return { key, deferred: false };
    // Deferred keys take all workers but one (when there is more than one), once the others let
    // the queue be (or the oldest has waited long enough); else the pump is called again then.
    if (this.activeDeferred >= Math.max(1, this.o.concurrency - 1)) return undefined;
    const oldest = this.deferredKeys.oldest();
    if (oldest === undefined) return undefined;
    const now = Date.now();
    const busy = this.active > this.activeDeferred;
    const at = Math.min(
      busy ? Infinity : this.lastBusy + (this.o.deferQuietMs ?? 250),
      oldest + (this.o.deferMaxMs ?? 30_000),
    );
    if (now < at) {
      if (!this.deferTimer && at < Infinity) {
        this.deferTimer = setTimeout(() => {
          this.deferTimer = undefined;
          this.pump();
        }, at - now);
      }
      return undefined;
    }
    for (;;) {
      const d = this.deferredKeys.take();
      if (d === undefined) return undefined;
      if (this.processing.has(d)) this.dirtyDeferred.add(d);
      else return { key: d, deferred: true };
    }
  }

  private pump(): void {
    while (this.running && this.active < this.o.concurrency) {
      const next = this.take();
      if (next === undefined) break;
      this.active++;
      if (next.deferred) this.activeDeferred++;
      this.processing.add(next.key);
      void this.run(next.key, next.deferred);
    }
    if (this.depth === 0 && this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async run(key: string, deferred: boolean): Promise<void> {
    try {
      const r = await this.o.process(key, deferred);
      this.failures.delete(key);
      if (r && r.requeueAfterMs !== undefined) this.addAfter(key, r.requeueAfterMs);
    } catch (e) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const base = this.o.baseDelayMs ?? 200;
      const delay = Math.min(this.o.maxDelayMs ?? 60_000, base * 2 ** (n - 1));
      this.o.onError(key, e, delay, n);
      this.addAfter(key, delay);
    } finally {
      this.processing.delete(key);
      this.active--;
      if (deferred) this.activeDeferred--;
      else this.lastBusy = Date.now();
      if (this.active === 0) for (const w of this.settleWaiters.splice(0)) w();
      if (this.dirty.delete(key)) this.add(key);
      if (this.dirtyDeferred.delete(key)) this.addDeferred(key);
      this.pump();
    }
  }
}
