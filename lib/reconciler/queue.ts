/**
 * A work queue keyed by object, as client-go's: a key is queued at most once however many events
 * name it; a key being processed that is added again runs once more afterwards, never twice at the
 * same time; a failing key is retried with its own exponential backoff while the others go on; a
 * key can be scheduled for later (time-driven state). The queue holds keys, not events, so its
 * size is bounded by the number of distinct keys.
 *
 * A key can also be deferred (addDeferred): it waits behind every key added with add(), and is
 * processed (with `deferred` true) once the queue is quiet, or once it has waited `deferMaxMs` (a
 * burst that never goes quiet). Quiet: no key of add()'s is queued or being processed, and none
 * arrived in the last `deferQuietMs`. A key added again while it is processed (most often the echo
 * of its own write) and the rerun that follows are work already under way, not an arrival: they do
 * not restart the quiet period. A key of add()'s is always taken first, and deferred keys never
 * take the last free worker (when there is more than one), so that a key added meanwhile never
 * waits for deferred ones; a burst that keeps every worker busy therefore runs to its end first.
 * The reconciler defers its status writes so: in a burst the imports go first; a change alone has
 * its statuses written as soon as its import is. A key being processed can ask whether it is alone
 * (alone()): then nothing waits for its deferred work, which it can do at once instead.
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
  /**
   * Deferred keys wait until no other key is queued or processed and none arrived for this long.
   * @default DEFER_QUIET_MS (5 ms)
   */
  readonly deferQuietMs?: number;
  /**
   * ... or until they have waited this long, still behind every queued key and never on the last
   * free worker. @default DEFER_MAX_MS (10 s)
   */
  readonly deferMaxMs?: number;
}

/**
 * The quiet period, counted from the last arrival: about one write's round trip on an idle API
 * server. A change alone spends that long writing its import, so its statuses follow at once (the
 * queue adds 0-5 ms where it added 250); members in a burst deliver a key every few milliseconds
 * (4,000 writes in 15-25 s in the benchmark) while the reconciler has keys in flight, so a burst
 * keeps the lane waiting.
 */
export const DEFER_QUIET_MS = 5;
/**
 * The longest wait: the goal for merging all of issue 17's burst (10 s), so that a burst that meets
 * it writes no status before it is over, while in a longer one that leaves a worker free a status
 * waits no more than that (Antrea's leader, which writes a status right after its merge, lands half
 * of that burst's statuses after 15.3 s).
 */
export const DEFER_MAX_MS = 10_000;

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
  /** When each key being processed was taken. */
  private readonly takenAt = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly dirtyDeferred = new Set<string>();
  private activeDeferred = 0;
  /** When a key of add()'s last arrived (not counting one added again while it was processed). */
  private lastAdded = 0;
  /** The timer that pumps when deferred keys may next run, and when it fires. */
  private deferTimer: NodeJS.Timeout | undefined;
  private deferAt = Infinity;
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
    this.enqueue(key, true);
  }

  /** add(), and whether the key counts as an arrival for the deferred lane's quiet period. */
  private enqueue(key: string, arrival: boolean): void {
    if (this.stopped) return;
    const t = this.timers.get(key);
    if (t) {
      clearTimeout(t.timer);
      this.timers.delete(key);
    }
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (arrival) this.lastAdded = Date.now();
    if (this.queued.add(key)) this.pump();
  }

  /**
   * Whether the key, being processed, is alone: no other key of add()'s is queued or processed, and
   * none arrived since it was taken. Work it would defer then delays nothing and is done soonest at
   * once (a change alone); in a burst something is always queued, in flight or arriving.
   */
  alone(key: string): boolean {
    const since = this.takenAt.get(key);
    return (
      since !== undefined &&
      this.queued.keys.size === 0 &&
      this.active - this.activeDeferred === 1 &&
      this.lastAdded <= since
    );
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
    this.disarm();
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
    // Deferred keys never take the last free worker (when there is more than one).
    if (this.active >= Math.max(1, this.o.concurrency - 1)) return undefined;
    const oldest = this.deferredKeys.oldest();
    if (oldest === undefined) return undefined;
    const now = Date.now();
    const busy = this.active > this.activeDeferred;
    const at = Math.min(
      busy ? Infinity : this.lastAdded + (this.o.deferQuietMs ?? DEFER_QUIET_MS),
      oldest + (this.o.deferMaxMs ?? DEFER_MAX_MS),
    );
    if (now < at) {
      // While keys of add()'s are processed only the oldest key's limit is known; the last of them
      // to finish pumps again, which computes the quiet deadline (earlier) and re-arms for it.
      if (at < Infinity) this.arm(at, now);
      return undefined;
    }
    for (;;) {
      const d = this.deferredKeys.take();
      if (d === undefined) return undefined;
      if (this.processing.has(d)) this.dirtyDeferred.add(d);
      else return { key: d, deferred: true };
    }
  }

  /** Pumps at `at`, unless a timer already pumps no later (an earlier one re-arms when it fires). */
  private arm(at: number, now: number): void {
    if (this.deferTimer && this.deferAt <= at) return;
    this.disarm();
    this.deferAt = at;
    this.deferTimer = setTimeout(() => {
      this.deferTimer = undefined;
      this.deferAt = Infinity;
      this.pump();
    }, at - now);
  }

  private disarm(): void {
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = undefined;
    this.deferAt = Infinity;
  }

  private pump(): void {
    while (this.running && this.active < this.o.concurrency) {
      const next = this.take();
      if (next === undefined) break;
      this.active++;
      if (next.deferred) this.activeDeferred++;
      this.processing.add(next.key);
      this.takenAt.set(next.key, Date.now());
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
      this.takenAt.delete(key);
      this.active--;
      if (deferred) this.activeDeferred--;
      if (this.active === 0) for (const w of this.settleWaiters.splice(0)) w();
      if (this.dirty.delete(key)) this.enqueue(key, false);
      if (this.dirtyDeferred.delete(key)) this.addDeferred(key);
      this.pump();
    }
  }
}
