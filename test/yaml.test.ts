import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareKeys, dumpYaml, loadYaml } from '../lib/yaml';

test('GIVEN strings YAML 1.1 would read as booleans, octals or floats WHEN dumped THEN they are quoted', () => {
  const risky = [
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    'true',
    'null',
    '~',
    '010',
    '0o10',
    '1e3',
    '12e3',
    '1.5',
    '0x1F',
    '1_000',
    '1:30',
    '190:20:30',
    '0b101',
    '.5',
    '+1',
  ];
  for (const s of risky) {
    const out = dumpYaml({ v: s });
    assert.ok(/^v: ['"]/.test(out), `${s} dumped unquoted: ${out}`);
    assert.equal((loadYaml(out) as { v: string }).v, s);
  }
});

test('GIVEN ordinary strings WHEN dumped THEN they stay plain', () => {
  for (const s of ['east', 'east-1', 'antrea-multicluster', '10.96.0.0/16', 'https://a.example.com:6443']) {
    assert.equal(dumpYaml({ v: s }), `v: ${s}\n`);
  }
});

test('GIVEN keys in any order WHEN dumped THEN apiVersion, kind, metadata, name, namespace lead and the rest sort', () => {
  const out = dumpYaml({
    spec: { z: 1, name: 'nm', a: 2 },
    metadata: { namespace: 'ns', name: 'x' },
    kind: 'K',
    apiVersion: 'v1',
  });
  assert.equal(
    out,
    'apiVersion: v1\nkind: K\nmetadata:\n  name: x\n  namespace: ns\nspec:\n  name: nm\n  a: 2\n  z: 1\n',
  );
  assert.ok(compareKeys('metadata', 'apiVersion') > 0);
});

test.run();
