/** The one count+noun helper (lib/plural.ts) and the CLI lines that use it. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kindCounts } from '../lib/diff/describe';
import { count, noun, pluralOf } from '../lib/plural';

test('GIVEN one thing WHEN counted THEN the noun is singular; zero and many are plural', () => {
  assert.is(count(1, 'file'), '1 file');
  assert.is(count(0, 'file'), '0 files');
  assert.is(count(2, 'file'), '2 files');
  assert.is(count(1, 'stretched policy'), '1 stretched policy');
  assert.is(count(3, 'stretched policy'), '3 stretched policies');
});

test('GIVEN nouns of every ending WHEN made plural THEN English rules hold', () => {
  assert.is(pluralOf('policy'), 'policies');
  assert.is(pluralOf('ClusterProperty'), 'ClusterProperties');
  assert.is(pluralOf('Gateway'), 'Gateways');
  assert.is(pluralOf('key'), 'keys');
  assert.is(pluralOf('Ingress'), 'Ingresses');
  assert.is(pluralOf('index'), 'indexes');
  assert.is(pluralOf('Service'), 'Services');
});

test('GIVEN an irregular plural WHEN counted THEN the given plural is used', () => {
  assert.is(noun(1, 'carries', 'carry'), 'carries');
  assert.is(noun(2, 'carries', 'carry'), 'carry');
  assert.is(count(2, 'child', 'children'), '2 children');
});

test('GIVEN objects of kinds ending in -y WHEN counted by kind THEN Gateways is not Gatewaies', () => {
  const objs = [
    { kind: 'Gateway' },
    { kind: 'Gateway' },
    { kind: 'ClusterProperty' },
    { kind: 'ClusterProperty' },
  ];
  assert.equal(kindCounts(objs), ['2 ClusterProperties', '2 Gateways']);
});

test.run();
