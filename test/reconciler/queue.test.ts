import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkQueue } from '../../lib/reconciler/queue';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

test('GIVEN one key added many times while queued THEN it is processed once', async () => {
  const seen: string[] = [];
  const q = new WorkQueue({ concurrency: 2, process: async (k) => void seen.push(k), onError: () => {} });
  for (let i = 0; i < 5; i++) q.add('a');
  q.add('b');
  q.resume();
  await q.idle();
  assert.equal(seen.sort(), ['a', 'b']);
});

test('GIVEN a key added while it is processed THEN it runs once more afterwards, never twice at once', async () => {
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  let release: () => void = () => {};
  const q = new WorkQueue({
    concurrency: 4,
    process: async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
      running--;
    },
    onError: () => {},
  });
  q.resume();
  q.add('k');
  await tick();
  q.add('k');
  q.add('k');
  release();
  await tick(5);
  await q.idle();
  assert.is(runs, 2);
  assert.is(maxRunning, 1);
});

test('GIVEN a failing key THEN it is retried with growing delays while other keys go on', async () => {
  const times: number[] = [];
  let ok = 0;
  const errors: number[] = [];
  const q = new WorkQueue({
    concurrency: 1,
    baseDelayMs: 20,
    process: async (k) => {
      if (k === 'bad') {
        times.push(Date.now());
        if (times.length < 4) throw new Error('boom');
      } else ok++;
    },
    onError: (_k, _e, delay) => errors.push(delay),
  });
  q.resume();
  q.add('bad');
  q.add('good1');
  q.add('good2');
  await tick(400);
  assert.is(ok, 2);
  assert.is(times.length, 4);
  assert.equal(errors, [20, 40, 80]);
  assert.ok(times[3]! - times[2]! >= 75, 'the third retry waited for its backoff');
});

test('GIVEN a paused queue THEN keys accumulate deduplicated and run on resume', async () => {
  const seen: string[] = [];
  const q = new WorkQueue({ concurrency: 1, process: async (k) => void seen.push(k), onError: () => {} });
  q.add('x');
  q.add('y');
  q.add('x');
  await tick(10);
  assert.equal(seen, []);
  assert.is(q.depth, 2);
  q.resume();
  await q.idle();
  assert.equal(seen, ['x', 'y']);
});

test('GIVEN a result asking for a later run THEN the key comes back after that delay', async () => {
  const at: number[] = [];
  const q = new WorkQueue({
    concurrency: 1,
    process: async () => {
      at.push(Date.now());
      return at.length === 1 ? { requeueAfterMs: 50 } : {};
    },
    onError: () => {},
  });
  q.resume();
  q.add('t');
  await tick(120);
  assert.is(at.length, 2);
  assert.ok(at[1]! - at[0]! >= 45);
});

test('GIVEN a key in flight and keys queued WHEN paused THEN settled() resolves once the one in flight is done', async () => {
  let release: () => void = () => {};
  const seen: string[] = [];
  const q = new WorkQueue({
    concurrency: 1,
    process: async (k) => {
      seen.push(k);
      if (k === 'a') await new Promise<void>((r) => (release = r));
    },
    onError: () => {},
  });
  q.resume();
  q.add('a');
  q.add('b');
  await tick();
  q.pause();
  let settled = false;
  void q.settled().then(() => (settled = true));
  await tick(5);
  assert.not.ok(settled);
  release();
  await tick(5);
  assert.ok(settled);
  assert.equal(seen, ['a'], 'the queued key waits for resume');
});

test('GIVEN deferred keys and keys added after them THEN the added ones run first, deferred ones with the flag once the others let the queue be, never on the last free worker', async () => {
  const order: string[] = [];
  let deferredRunning = 0;
  let maxDeferred = 0;
  const q = new WorkQueue({
    concurrency: 3,
    process: async (k, deferred) => {
      order.push(`${k}${deferred ? '*' : ''}`);
      if (deferred) maxDeferred = Math.max(maxDeferred, ++deferredRunning);
      await tick(5);
      if (deferred) deferredRunning--;
      else lastDone = Date.now();
    },
    onError: () => {},
    deferQuietMs: 40,
  });
  let lastDone = 0;
  let firstDeferred = 0;
  for (const k of ['d1', 'd2', 'd3', 'd4']) q.addDeferred(k);
  q.add('a');
  q.add('b');
  assert.is(q.depth, 6);
  assert.is(q.deferred, 4);
  q.resume();
  const t = setInterval(() => {
    if (deferredRunning > 0 && !firstDeferred) firstDeferred = Date.now();
  }, 1);
  await q.idle();
  clearInterval(t);
  assert.equal(order.slice(0, 2), ['a', 'b'], 'keys added after the deferred ones go first');
  assert.ok(firstDeferred - lastDone >= 35, `deferred keys waited ${firstDeferred - lastDone} ms of quiet`);
  assert.equal(order.slice(2).sort(), ['d1*', 'd2*', 'd3*', 'd4*']);
  assert.is(maxDeferred, 2, 'one worker of three stays free of deferred keys');
  assert.is(q.depth, 0);
});

test('GIVEN a key deferred while it runs THEN it runs once more afterwards, deferred', async () => {
  const runs: string[] = [];
  const q = new WorkQueue({
    concurrency: 2,
    process: async (k, deferred) => {
      runs.push(`${k}${deferred ? '*' : ''}`);
      if (!deferred) q.addDeferred(k);
    },
    onError: () => {},
    deferQuietMs: 5,
  });
  q.resume();
  q.add('k');
  await q.idle();
  assert.equal(runs, ['k', 'k*']);
});

test('GIVEN keys added without pause THEN a deferred key still runs once it has waited deferMaxMs', async () => {
  const runs: string[] = [];
  const q = new WorkQueue({
    concurrency: 2,
    process: async (k, deferred) => {
      runs.push(`${k}${deferred ? '*' : ''}`);
      await tick(2);
    },
    onError: () => {},
    deferQuietMs: 1000,
    deferMaxMs: 60,
  });
  q.resume();
  q.addDeferred('d');
  const t0 = Date.now();
  while (Date.now() - t0 < 150) {
    q.add(`k${runs.length}`);
    await tick(5);
  }
  await q.idle();
  assert.ok(runs.includes('d*'), 'the deferred key ran within the busy stream');
  assert.ok(runs.indexOf('d*') < runs.length - 1, 'before the stream ended');
});

test.run();
