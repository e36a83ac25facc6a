/**
 * A work queue keyed by object, as client-go's: a key is queued at most once however many events
 * name it; a key being processed that is added again runs once more afterwards, never twice at the
 * same time; a failing key is retried with its own exponential backoff while the others go on; a
 * key can be scheduled for later (time-driven state). The queue holds keys, not events, so its
 * size is bounded by the number of distinct keys.
 */
export interface QueueOptions {
  /** Keys processed at the same time. */
  readonly concurrency: number;
  readonly process: (key: string) => Promise<{ requeueAfterMs?: number } | void>;
  readonly onError: (key: string, error: unknown, retryInMs: number, failures: number) => void;
  /** First retry delay; doubles per failure. @default 200 */
  readonly baseDelayMs?: number;
  /** @default 60000 */
  readonly maxDelayMs?: number;
}

export class WorkQueue {
  private readonly order: string[] = [];
  private head = 0;
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private active = 0;
  private running = false;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private settleWaiters: (() => void)[] = [];

  constructor(private readonly o: QueueOptions) {}

  /** Keys waiting to be processed (not counting scheduled ones). */
  get depth(): number {
    return this.queued.size;
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
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.pump();
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
  }

  /** Resolves when nothing is queued or in flight (scheduled keys do not count). */
  idle(): Promise<void> {
    if (this.queued.size === 0 && this.active === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Resolves when no key is being processed (queued ones may wait, e.g. while paused). */
  settled(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((r) => this.settleWaiters.push(r));
  }

  private take(): string | undefined {
    while (this.head < this.order.length) {
      const key = this.order[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.order.length) {
        this.order.splice(0, this.head);
        this.head = 0;
      }
      if (this.queued.delete(key)) return key;
    }
    return undefined;
  }

  private pump(): void {
    while (this.running && this.active < this.o.concurrency) {
      const key = this.take();
      if (key === undefined) break;
      this.active++;
      this.processing.add(key);
      void this.run(key);
    }
    if (this.queued.size === 0 && this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private async run(key: string): Promise<void> {
    try {
      const r = await this.o.process(key);
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
      if (this.active === 0) for (const w of this.settleWaiters.splice(0)) w();
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
