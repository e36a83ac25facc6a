import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizedLabelProblem } from '../../lib/reconciler/normalized-label';

// Antrea's member writes "ns:" + labels.Set(nsLabels).String() + "&pod:" + labels.Set(podLabels).String().
const WELL_FORMED = [
  // antrea-mc.md §d, its examples and the hash test vector.
  'ns:kubernetes.io/metadata.name=test-ns&pod:app=client',
  'ns:kubernetes.io/metadata.name=test-ns,region=west&pod:',
  'ns:kubernetes.io/metadata.name=us-west-1,purpose=test&pod:app=client',
  // Both sides empty; an empty value; several pod labels; prefixed keys; the longest name and value.
  'ns:&pod:',
  'ns:kubernetes.io/metadata.name=demo&pod:app=,tier=web',
  'ns:kubernetes.io/metadata.name=demo&pod:app.kubernetes.io/name=web,app=web,pod-template-hash=5d4f8c9b7',
  `ns:kubernetes.io/metadata.name=demo&pod:${'k'.repeat(63)}=${'v'.repeat(63)}`,
  'ns:kubernetes.io/metadata.name=demo&pod:A_b.c-D=X_y.z-9',
];

for (const label of WELL_FORMED)
  test(`GIVEN the label Antrea's member writes, ${JSON.stringify(label.slice(0, 60))} THEN it is well-formed`, () => {
    assert.is(normalizedLabelProblem(label), undefined);
  });

test("GIVEN keys where sorting by key and by key=value differ THEN labels.Set.String()'s order (by key=value) is the one", () => {
  // '.' sorts before '=', so "a.b=1" comes before "a=2" although the key "a" is shorter.
  assert.is(normalizedLabelProblem('ns:&pod:a.b=1,a=2'), undefined);
  assert.match(normalizedLabelProblem('ns:&pod:a=2,a.b=1') ?? '', /not sorted/);
});

const MALFORMED: [string, string, RegExp][] = [
  ['missing ns:', 'kubernetes.io/metadata.name=demo&pod:app=web', /does not start with "ns:"/],
  [
    'stray characters before ns:',
    ' ns:kubernetes.io/metadata.name=demo&pod:app=web',
    /does not start with "ns:"/,
  ],
  ['missing &pod:', 'ns:kubernetes.io/metadata.name=demo', /has no "&pod:"/],
  ['two &pod:', 'ns:kubernetes.io/metadata.name=demo&pod:app=web&pod:tier=db', /"&pod:" more than once/],
  ['a pair with no =', 'ns:kubernetes.io/metadata.name=demo&pod:app', /the Pod label "app" is not key=value/],
  ['an empty pair (,,)', 'ns:a=1,,b=2&pod:', /the Namespace label "" is not key=value/],
  [
    'a trailing comma',
    'ns:kubernetes.io/metadata.name=demo&pod:app=web,',
    /the Pod label "" is not key=value/,
  ],
  [
    'the pre-#5404 <none>',
    'ns:kubernetes.io/metadata.name=demo&pod:<none>',
    /the Pod label "<none>" is not key=value/,
  ],
  [
    'unsorted keys',
    'ns:region=west,kubernetes.io/metadata.name=demo&pod:',
    /Namespace labels are not sorted/,
  ],
  [
    'a duplicate key',
    'ns:kubernetes.io/metadata.name=demo&pod:app=a,app=b',
    /the Pod label key "app" appears twice/,
  ],
  [
    'an empty key',
    'ns:kubernetes.io/metadata.name=demo&pod:=web',
    /the Pod label key "" has an empty name part/,
  ],
  ['an empty key prefix', 'ns:kubernetes.io/metadata.name=demo&pod:/app=web', /has an empty prefix/],
  [
    'a bad key (space)',
    'ns:kubernetes.io/metadata.name=demo&pod:my app=web',
    /label key "my app" has a name part/,
  ],
  [
    'a bad key (uppercase prefix)',
    'ns:Kubernetes.IO/metadata.name=demo&pod:',
    /prefix that is not a DNS subdomain/,
  ],
  ['a bad key (two slashes)', 'ns:a/b/c=demo&pod:', /label key "a\/b\/c"/],
  ['a key name over 63', `ns:&pod:${'k'.repeat(64)}=v`, /more than 63/],
  ['a bad value (=)', 'ns:kubernetes.io/metadata.name=demo&pod:app=a=b', /label value "a=b" of "app"/],
  ['a bad value (ends in -)', 'ns:kubernetes.io/metadata.name=demo&pod:app=web-', /label value "web-"/],
  ['a value over 63', `ns:&pod:app=${'v'.repeat(64)}`, /more than 63/],
  ['stray characters (newline)', 'ns:kubernetes.io/metadata.name=demo&pod:app=web\n', /label value "web\\n"/],
  ['stray characters (non-ASCII)', 'ns:kubernetes.io/metadata.name=démo&pod:', /label value "démo"/],
  ['stray characters (a colon)', 'ns:kubernetes.io/metadata.name=demo&pod:app:web=x', /label key "app:web"/],
  ['the empty string', '', /does not start with "ns:"/],
];

for (const [what, label, why] of MALFORMED)
  test(`fails GIVEN ${what} THEN the label is malformed, and the reason says where`, () => {
    const problem = normalizedLabelProblem(label);
    assert.ok(problem, `${JSON.stringify(label)} passed`);
    assert.match(problem, why);
  });

test('GIVEN a long malformed label THEN the message quotes it cut short', () => {
  const problem = normalizedLabelProblem(`ns:&pod:${'x'.repeat(500)}`)!;
  assert.ok(problem.length < 200, problem);
  assert.match(problem, /\.\.\."/);
});
test.run();
