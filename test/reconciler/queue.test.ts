// The reconciler's work queue (lib/reconciler/queue.ts): one run per key at a time, retries with
// backoff, scheduled keys, pause and resume; and its deferred lane (the export status writes):
// behind every other key in a burst and never on the last free worker, yet run as soon as the
// queue is quiet, a change alone within milliseconds, a burst's statuses without a pause between
// them. Timings are asserted with wide margins (these machines are loaded) that still fail by the
// behaviour they pin.
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

test('GIVEN deferred keys and keys added after them THEN the added ones run first, deferred ones with the flag once none was added for deferQuietMs, never on the last free worker', async () => {
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
    },
    onError: () => {},
    deferQuietMs: 40,
  });
  let firstDeferred = 0;
  for (const k of ['d1', 'd2', 'd3', 'd4']) q.addDeferred(k);
  q.add('a');
  q.add('b');
  const added = Date.now();
  assert.is(q.depth, 6);
  assert.is(q.deferred, 4);
  q.resume();
  const t = setInterval(() => {
    if (deferredRunning > 0 && !firstDeferred) firstDeferred = Date.now();
  }, 1);
  await q.idle();
  clearInterval(t);
  assert.equal(order.slice(0, 2), ['a', 'b'], 'keys added after the deferred ones go first');
  assert.ok(
    firstDeferred - added >= 35,
    `deferred keys waited ${firstDeferred - added} ms from the last add`,
  );
  assert.equal(order.slice(2).sort(), ['d1*', 'd2*', 'd3*', 'd4*']);
  assert.is(maxDeferred, 2, 'one worker of three stays free of deferred keys');
  assert.is(q.depth, 0);
});

test('GIVEN two keys in flight and a deferred key WHEN the queue goes quiet THEN the deferred key runs once quiet, not when it has waited deferMaxMs (bug: the lane timer stayed armed at the oldest key + deferMaxMs)', async () => {
  const deferMaxMs = 5000;
  let ranAt = 0;
  const releases: (() => void)[] = [];
  const q = new WorkQueue({
    concurrency: 4,
    process: async (_k, deferred) => {
      if (deferred) ranAt = Date.now();
      else await new Promise<void>((r) => releases.push(r));
    },
    onError: () => {},
    // Longer than the keys take: the quiet deadline comes after they finish, so the lane must
    // re-arm its timer for it.
    deferQuietMs: 100,
    deferMaxMs,
  });
  q.resume();
  q.add('a');
  q.add('b');
  const added = Date.now();
  q.addDeferred('d');
  assert.is(q.inFlight, 2);
  await tick(20);
  assert.is(ranAt, 0, 'not while the others are processed');
  for (const r of releases) r();
  await q.settled();
  const quietAt = Date.now();
  await Promise.race([q.idle(), tick(deferMaxMs / 2 + 500)]);
  q.shutdown();
  assert.ok(ranAt > 0, `the deferred key had not run ${Date.now() - quietAt} ms after the queue went quiet`);
  assert.ok(ranAt - added >= 95, `it waited ${ranAt - added} ms from the last add (deferQuietMs 100)`);
  assert.ok(
    ranAt - quietAt < deferMaxMs / 2,
    `it ran ${ranAt - quietAt} ms after the queue went quiet, deferMaxMs is ${deferMaxMs}`,
  );
});

test('GIVEN the default options WHEN a deferred key is added alone, or by a change alone whose write echoes THEN it runs within milliseconds, not after a quarter second', async () => {
  const runs: { key: string; deferred: boolean; at: number }[] = [];
  const q = new WorkQueue({
    concurrency: 4,
    process: async (k, deferred) => {
      runs.push({ key: k, deferred, at: Date.now() });
      if (deferred || k !== 'svc') return;
      // As the reconciler: the import write (a round trip), whose cache update adds the key again
      // while it runs; the status writes deferred. The rerun finds nothing to write.
      if (runs.filter((r) => r.key === 'svc').length > 1) return;
      await tick(10);
      q.add(k);
      q.addDeferred(k);
    },
    onError: () => {},
  });
  q.resume();
  q.addDeferred('alone');
  assert.equal(
    runs.map((r) => [r.key, r.deferred]),
    [['alone', true]],
    'an idle queue runs it at once',
  );
  await q.idle();
  await tick(50); // nothing was added for a while: the change below is alone
  const added = Date.now();
  q.add('svc');
  await q.idle();
  const statuses = runs.filter((r) => r.key === 'svc' && r.deferred);
  assert.is(statuses.length, 1);
  assert.equal(
    runs.filter((r) => r.key === 'svc').map((r) => r.deferred),
    [false, false, true],
    'the change, its echo, its status',
  );
  assert.ok(statuses[0]!.at - added < 150, `its status ran ${statuses[0]!.at - added} ms after the change`);
});

test('GIVEN a change whose write echoes while it runs THEN the echo does not restart the quiet period', async () => {
  let statusAt = 0;
  let runs = 0;
  const q = new WorkQueue({
    concurrency: 2,
    process: async (k, deferred) => {
      if (deferred) statusAt = Date.now();
      else if (++runs === 1) {
        await tick(200);
        q.add(k); // the echo of its own write
        q.addDeferred(k);
      }
    },
    onError: () => {},
    deferQuietMs: 300,
  });
  q.resume();
  const added = Date.now();
  q.add('svc');
  await q.idle();
  const waited = statusAt - added;
  assert.ok(waited >= 290, `the status waited ${waited} ms from the change (deferQuietMs 300)`);
  // Counted as an arrival, the echo (at 200 ms) would hold it until 500 ms.
  assert.ok(waited < 450, `the status waited ${waited} ms from the change: the echo restarted the quiet`);
});

test('GIVEN deferred keys whose own writes echo WHEN the queue is quiet THEN they drain without a quiet period between them', async () => {
  const spans: { start: number; end: number }[] = [];
  const q = new WorkQueue({
    concurrency: 4,
    process: async (k, deferred) => {
      if (!deferred) return; // the echo's rerun finds nothing to write
      const start = Date.now();
      await tick(5);
      q.add(k); // the status write's echo, while the key runs
      spans.push({ start, end: Date.now() });
    },
    onError: () => {},
    deferQuietMs: 200,
    deferMaxMs: 60_000,
  });
  q.resume();
  for (let i = 0; i < 12; i++) q.addDeferred(`d${i}`);
  await Promise.race([q.idle(), tick(3000)]);
  q.shutdown();
  assert.is(spans.length, 12);
  const drain = Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start));
  // Four rounds of three keys take some 20 ms; a quiet period after each echo, 600 ms more.
  assert.ok(drain < 150, `12 deferred keys took ${drain} ms, three at a time`);
});

test('GIVEN a burst of keys added at once and while it runs THEN every one of them runs before any deferred key', async () => {
  const order: string[] = [];
  const q = new WorkQueue({
    concurrency: 3,
    process: async (k, deferred) => {
      order.push(`${k}${deferred ? '*' : ''}`);
      await tick(1);
      // Each of the first keys brings another while the burst runs (members still writing).
      const n = Number(k.slice(1));
      if (!deferred && n < 30) q.add(`k${n + 30}`);
    },
    onError: () => {},
    deferQuietMs: 0,
    deferMaxMs: 0,
  });
  for (let i = 0; i < 5; i++) q.addDeferred(`d${i}`);
  for (let i = 0; i < 30; i++) q.add(`k${i}`);
  q.resume();
  await q.idle();
  const firstDeferred = order.findIndex((o) => o.endsWith('*'));
  const lastKey = order.length - 1 - [...order].reverse().findIndex((o) => !o.endsWith('*'));
  assert.is(order.filter((o) => !o.endsWith('*')).length, 60);
  assert.is(order.filter((o) => o.endsWith('*')).length, 5);
  // Even with no quiet period and no wait at all, a queued key goes first (the burst's last keys
  // may still be in flight when the first deferred one starts).
  assert.ok(firstDeferred > 0 && lastKey < firstDeferred, `order: ${order.join(' ')}`);
});

test('GIVEN deferred keys WHEN they run THEN they never take the last free worker, so a key added meanwhile starts at once, and an overdue one waits for a free worker', async () => {
  const started: string[] = [];
  const ended: string[] = [];
  let deferredRunning = 0;
  let maxDeferred = 0;
  const releases: (() => void)[] = [];
  const q = new WorkQueue({
    concurrency: 3,
    process: async (k, deferred) => {
      started.push(`${k}${deferred ? '*' : ''}`);
      if (deferred) maxDeferred = Math.max(maxDeferred, ++deferredRunning);
      if (k.startsWith('long')) await new Promise<void>((r) => releases.push(r));
      else await tick(deferred ? 40 : 1);
      if (deferred) deferredRunning--;
      ended.push(`${k}${deferred ? '*' : ''}`);
    },
    onError: () => {},
    deferQuietMs: 0,
    deferMaxMs: 0,
  });
  q.resume();
  for (let i = 0; i < 6; i++) q.addDeferred(`d${i}`);
  assert.is(deferredRunning, 2, 'two of three workers');
  q.add('x');
  assert.ok(started.includes('x'), 'a key added while deferred keys run starts at once');
  await q.idle();
  assert.is(maxDeferred, 2);
  assert.ok(ended.indexOf('x') < ended.indexOf('d0*'), 'and ends before them');

  // Overdue (deferMaxMs 0) while two keys of add()'s are processed: one worker of three is free,
  // and it stays free.
  started.length = 0;
  q.add('long1');
  q.add('long2');
  q.addDeferred('late');
  await tick(20);
  assert.equal(started, ['long1', 'long2'], 'the deferred key waits: the free worker is the last');
  assert.is(q.deferred, 1);
  for (const r of releases) r();
  await q.idle();
  assert.ok(started.includes('late*'));
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

test('GIVEN a key being processed THEN alone() says whether anything else is queued, in flight or arrived since it was taken', async () => {
  const answers: Record<string, boolean> = {};
  let release: () => void = () => {};
  const q = new WorkQueue({
    concurrency: 4,
    process: async (k) => {
      if (k === 'solo') {
        await tick(5);
        answers.solo = q.alone(k);
      } else if (k === 'first') {
        await new Promise<void>((r) => (release = r));
        answers.first = q.alone(k);
      } else if (k === 'second') {
        answers.second = q.alone(k);
      }
    },
    onError: () => {},
  });
  q.resume();
  q.add('solo');
  await q.idle();
  assert.is(answers.solo, true, 'a change on its own is alone');
  assert.is(q.alone('solo'), false, 'a key not being processed is not');

  q.add('first');
  await tick(5);
  q.add('second'); // arrives (and runs) while 'first' is in flight
  await tick(5);
  release();
  await q.idle();
  assert.is(answers.second, false, 'another key was in flight');
  assert.is(answers.first, false, 'another key arrived after it was taken');

  // Deferred work in flight does not count against being alone.
  let releaseDeferred: () => void = () => {};
  const q2 = new WorkQueue({
    concurrency: 4,
    process: async (k, deferred) => {
      if (deferred) await new Promise<void>((r) => (releaseDeferred = r));
      else answers.besideDeferred = q2.alone(k);
    },
    onError: () => {},
  });
  q2.resume();
  q2.addDeferred('status');
  await tick(5);
  q2.add('change');
  await tick(5);
  releaseDeferred();
  await q2.idle();
  assert.is(answers.besideDeferred, true, 'a status write in flight delays nothing a change does');
});
