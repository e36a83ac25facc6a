/**
 * Prometheus metrics in the text exposition format (version 0.0.4), written by hand: a handful of
 * counters, gauges and one histogram do not justify a client library.
 */
type Labels = Readonly<Record<string, string>>;

function labelText(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '';
  const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
  return `{${keys.map((k) => `${k}="${esc(labels[k]!)}"`).join(',')}}`;
}

abstract class Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
  ) {}
  abstract lines(): string[];
  header(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
  }
}

export class Counter extends Metric {
  private readonly values = new Map<string, number>();
  constructor(name: string, help: string) {
    super(name, help, 'counter');
  }
  inc(labels: Labels = {}, n = 1): void {
    const k = labelText(labels);
    this.values.set(k, (this.values.get(k) ?? 0) + n);
  }
  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels)) ?? 0;
  }
  lines(): string[] {
    return [...this.values].sort().map(([k, v]) => `${this.name}${k} ${v}`);
  }
}

export class Gauge extends Metric {
  private readonly values = new Map<string, number>();
  constructor(
    name: string,
    help: string,
    private readonly collect?: () => ReadonlyArray<[Labels, number]>,
    /** 'counter' for a total read from elsewhere (process CPU time). */
    type: 'gauge' | 'counter' = 'gauge',
  ) {
    super(name, help, type);
  }
  set(labels: Labels, v: number): void {
    this.values.set(labelText(labels), v);
  }
  lines(): string[] {
    if (this.collect) {
      this.values.clear();
      for (const [l, v] of this.collect()) this.set(l, v);
    }
    return [...this.values].sort().map(([k, v]) => `${this.name}${k} ${v}`);
  }
}

export class Histogram extends Metric {
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();
  constructor(
    name: string,
    help: string,
    private readonly buckets: readonly number[],
  ) {
    super(name, help, 'histogram');
  }
  observe(labels: Labels, v: number): void {
    const k = labelText(labels);
    let s = this.series.get(k);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(k, s);
    }
    for (const [i, b] of this.buckets.entries()) if (v <= b) s.counts[i]!++;
    s.sum += v;
    s.count++;
  }
  lines(): string[] {
    const out: string[] = [];
    for (const [, s] of [...this.series].sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const [i, b] of this.buckets.entries())
        out.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(b) })} ${s.counts[i]}`);
      out.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

const P = 'clusterset_reconciler_';

/** Every metric the reconciler exports. Gauges read from the controller are wired by it. */
export class Metrics {
  readonly reconcileSeconds = new Histogram(
    `${P}reconcile_duration_seconds`,
    'Time to reconcile one key (compute and writes), by key type.',
    [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  readonly reconciles = new Counter(`${P}reconciles_total`, 'Keys reconciled, by key type and result.');
  readonly writes = new Counter(`${P}writes_total`, 'Writes to the API server, by action and result.');
  readonly watchRestarts = new Counter(
    `${P}watch_restarts_total`,
    'Watches that ended, by resource and reason (closed, expired, error, stalled, restarted).',
  );
  readonly relists = new Counter(`${P}relists_total`, 'Full lists of a resource (start and after expiry).');
  readonly refusals = new Counter(
    `${P}refused_exports_total`,
    'Exports newly refused (Failure written), by kind.',
  );
  private readonly extra: Metric[] = [];

  gauge(name: string, help: string, collect: () => ReadonlyArray<[Labels, number]>): void {
    this.extra.push(new Gauge(`${P}${name}`, help, collect));
  }

  render(): string {
    const all: Metric[] = [
      this.reconcileSeconds,
      this.reconciles,
      this.writes,
      this.watchRestarts,
      this.relists,
      this.refusals,
      ...this.extra,
      new Gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => [
        [{}, process.memoryUsage.rss()],
      ]),
      new Gauge('process_heap_bytes', 'V8 heap in use, in bytes.', () => [
        [{}, process.memoryUsage().heapUsed],
      ]),
      new Gauge(
        'process_cpu_seconds_total',
        'User and system CPU time spent, in seconds.',
        () => {
          const u = process.cpuUsage();
          return [[{}, (u.user + u.system) / 1e6]];
        },
        'counter',
      ),
    ];
    return all.map((m) => [...m.header(), ...m.lines()].join('\n')).join('\n') + '\n';
  }
}
