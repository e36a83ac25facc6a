import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { backoff, newerVersion } from '../../lib/reconciler/informer';
import { jsonLogger } from '../../lib/reconciler/log';
import { Metrics } from '../../lib/reconciler/metrics';

test('GIVEN etcd resourceVersions THEN newer ones are recognized numerically, not as text', () => {
  assert.ok(newerVersion('10', '9'));
  assert.not.ok(newerVersion('9', '10'));
  assert.not.ok(newerVersion('12', '12'));
  assert.ok(newerVersion('abc', 'abd'), 'opaque versions: different counts as newer');
});

test('GIVEN repeated failures THEN backoff grows to 30 s and no further', () => {
  assert.ok(backoff(1) >= 400 && backoff(1) <= 600);
  assert.ok(backoff(4) >= 3200 && backoff(4) <= 4800);
  assert.ok(backoff(50) <= 36_000);
});

test('GIVEN metrics THEN the text format has HELP, TYPE, escaped labels and cumulative buckets', () => {
  const m = new Metrics();
  m.writes.inc({ action: 'createImport', result: 'ok' }, 2);
  m.reconcileSeconds.observe({ key: 'svc' }, 0.02);
  m.reconcileSeconds.observe({ key: 'svc' }, 3);
  m.gauge('queue_depth', 'Keys waiting.', () => [[{}, 7]]);
  m.gauge('imports', 'Imports.', () => [[{ kind: 'a"b' }, 1]]);
  const text = m.render();
  assert.match(
    text,
    /# TYPE clusterset_reconciler_writes_total counter\nclusterset_reconciler_writes_total\{action="createImport",result="ok"\} 2\n/,
  );
  assert.match(text, /clusterset_reconciler_reconcile_duration_seconds_bucket\{key="svc",le="0.025"\} 1\n/);
  assert.match(text, /clusterset_reconciler_reconcile_duration_seconds_bucket\{key="svc",le="5"\} 2\n/);
  assert.match(text, /clusterset_reconciler_reconcile_duration_seconds_count\{key="svc"\} 2\n/);
  assert.match(text, /clusterset_reconciler_queue_depth 7\n/);
  assert.match(text, /clusterset_reconciler_imports\{kind="a\\"b"\} 1\n/);
  assert.match(text, /process_resident_memory_bytes \d+\n/);
});

test('GIVEN a logger THEN one JSON object per line, below the level dropped', () => {
  const lines: string[] = [];
  const log = jsonLogger(
    'info',
    (l) => lines.push(l),
    () => Date.parse('2026-12-02T00:00:00Z'),
  );
  log.debug('hidden');
  log.warn('export refused', { export: 'x', why: 'y' });
  assert.equal(
    lines.map((l) => JSON.parse(l)),
    [{ time: '2026-12-02T00:00:00.000Z', level: 'warn', msg: 'export refused', export: 'x', why: 'y' }],
  );
  assert.ok(lines[0]!.endsWith('\n'));
});

test.run();
