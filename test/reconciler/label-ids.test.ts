import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_LABEL_ID } from '../../lib/reconciler/desired/label';
import { LABEL_ID_BLOCK, LabelIdAllocator, NeedReservation } from '../../lib/reconciler/label-ids';

function started(persisted?: number, adopt: [string, number, string][] = []): LabelIdAllocator {
  const a = new LabelIdAllocator();
  for (const [hash, id, created] of adopt) a.adopt(hash, id, created);
  a.start(persisted);
  return a;
}

test('fails GIVEN no reserved block WHEN an ID is asked for THEN NeedReservation, and nothing is handed out', () => {
  const a = started();
  assert.throws(
    () => a.allocate('h1'),
    (e: unknown) => e instanceof NeedReservation,
  );
  a.reserved();
  assert.is(a.allocate('h1'), 1);
});

test('GIVEN IDs in use WHEN allocating THEN unique IDs past the highest in use, none of the used ones', () => {
  const a = started(undefined, [
    ['a', 1, '2026-01-01T00:00:00Z'],
    ['b', 5, '2026-01-01T00:00:00Z'],
  ]);
  a.reserved();
  assert.equal([a.allocate('c'), a.allocate('d')], [6, 7]);
  assert.is(a.ownerOf(6), 'c');
});

test('GIVEN an ID freed WHEN more IDs are allocated THEN the freed one is not handed out again in this cycle', () => {
  const a = started();
  a.reserved();
  const first = a.allocate('a');
  a.forget('a');
  const next = [a.allocate('b'), a.allocate('c'), a.allocate('d')];
  assert.not.ok(next.includes(first));
  assert.equal(next, [2, 3, 4]);
});

test('GIVEN a persisted cursor (a restart) THEN allocation resumes after every ID the block could have given', () => {
  const before = started();
  const persist = before.reservation();
  before.reserved();
  const given = [before.allocate('a'), before.allocate('b')];
  before.forget('b'); // freed just before the restart
  const after = started(persist, [['a', given[0]!, '2026-01-01T00:00:00Z']]);
  after.reserved();
  const id = after.allocate('c');
  assert.is(id, 1 + LABEL_ID_BLOCK);
  assert.not.ok(given.includes(id), 'a freed ID is not reused across the restart');
});

test('GIVEN the cursor at the top of the space THEN it wraps to 1 and skips IDs still in use', () => {
  const a = started(MAX_LABEL_ID, [['low', 1, '2026-01-01T00:00:00Z']]);
  a.reserved();
  assert.equal([a.allocate('x'), a.allocate('y')], [MAX_LABEL_ID, 2]);
});

test('GIVEN two imports claiming one ID THEN the older owns it; once it goes the other does', () => {
  const a = new LabelIdAllocator();
  a.adopt('young', 9, '2026-02-01T00:00:00Z');
  a.adopt('old', 9, '2026-01-01T00:00:00Z');
  assert.is(a.ownerOf(9), 'old');
  a.forget('old');
  assert.is(a.ownerOf(9), 'young');
});

test('GIVEN an import re-adopted with a new ID THEN its old ID is released', () => {
  const a = new LabelIdAllocator();
  a.adopt('h', 3, 't');
  a.adopt('h', 4, 't');
  assert.is(a.ownerOf(3), undefined);
  assert.is(a.ownerOf(4), 'h');
  assert.is(a.size, 1);
});

test('GIVEN IDs out of range in imports THEN they are not adopted (their labels get fresh ones)', () => {
  const a = new LabelIdAllocator();
  a.adopt('zero', 0, 't');
  a.adopt('huge', MAX_LABEL_ID + 1, 't');
  assert.is(a.size, 0);
});

test.run();
