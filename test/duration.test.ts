import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { durationNanos, durationSeconds } from '../lib/duration';
import { DEFAULT_RETIRE_MEMBERS_AFTER } from '../lib/names';
import { planReconciler } from '../lib/plan';
import { DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS } from '../lib/reconciler-config';

test('GIVEN Go durations WHEN parsed THEN their exact nanoseconds, as time.ParseDuration gives them', () => {
  for (const [s, ns] of [
    ['24h', 86_400_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['1.5h', 5_400_000_000_000n],
    ['0.1s', 100_000_000n],
    ['1ms', 1_000_000n],
    ['2us', 2_000n],
    ['2µs', 2_000n],
    ['3ns', 3n],
    ['0', undefined],
    ['', undefined],
    ['1 h', undefined],
    ['-1h', undefined],
    ['1d', undefined],
    ['h', undefined],
  ] as const) {
    assert.is(durationNanos(s), ns, s);
  }
});

test('GIVEN Go durations WHEN read as seconds THEN only whole seconds are', () => {
  assert.is(durationSeconds('90m'), 5400);
  assert.is(durationSeconds('30s'), 30);
  assert.is(durationSeconds('1500ms'), undefined);
  assert.is(durationSeconds('1 day'), undefined);
});

test("GIVEN no reconciler settings WHEN planned THEN members retire after Antrea's 24 h, the reconciler's own default", () => {
  assert.is(DEFAULT_RETIRE_MEMBERS_AFTER, '24h');
  assert.is(planReconciler(undefined).retireMembersAfterSeconds, DEFAULT_RETIRE_MEMBERS_AFTER_SECONDS);
  assert.equal(planReconciler(undefined).resources, {
    requests: { cpu: '100m', memory: '128Mi' },
    limits: { memory: '256Mi' },
  });
  assert.is(planReconciler(undefined).replicas, 2);
});

test.run();
