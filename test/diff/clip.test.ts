/** Long values in the diff cut at a boundary, never inside a URL when avoidable, saying how much was cut (lib/diff/clip.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clipEnd, clipWindow, cutIndex } from '../../lib/diff/clip';

test('GIVEN a value that fits WHEN clipped THEN it is unchanged', () => {
  assert.is(clipEnd('short', 10), 'short');
  assert.is(clipEnd('x'.repeat(10), 10), 'x'.repeat(10));
});

test('GIVEN a CEL expression past the limit WHEN clipped THEN it is cut after && or a comma and says how many characters were left out', () => {
  const cel =
    "request.userInfo.username in ['a', 'b'] && object.spec.clusterID == 'west' && has(object.metadata)";
  const out = clipEnd(cel, 60);
  const kept = out.slice(0, out.indexOf('…'));
  assert.ok(cel.startsWith(kept), out);
  // Cut between words: what follows the kept part in the value is whitespace, or it ends in , ; && ||.
  assert.ok(/^\s/.test(cel.slice(kept.length)) || /(,|;|&&|\|\|)$/.test(kept), out);
  // The count is exact: what is kept plus what is said to be left out is the whole value.
  const n = Number(/\((\d+) more characters?\)$/.exec(out)![1]);
  assert.is(cel.slice(0, cel.length - n).trimEnd(), kept);
});

test('GIVEN a JSON value with a URL across the limit WHEN clipped THEN the URL is kept whole or left out whole', () => {
  const json = JSON.stringify({
    namespace: '*',
    server: 'https://north.example.com:6443',
    name: 'x'.repeat(40),
  });
  const at = json.indexOf('https://');
  for (const max of [at + 5, at + 12, at + 20]) {
    const out = clipEnd(json, max);
    const kept = out.slice(0, out.indexOf('…'));
    assert.ok(
      !/https?:\/\/\S*$/.test(kept) || kept.includes('https://north.example.com:6443'),
      `${max}: ${out}`,
    );
  }
});

test('GIVEN a URL longer than the window WHEN clipped THEN it is cut anyway (unavoidable), and the cut is said', () => {
  const url = `https://example.com/${'a'.repeat(200)}`;
  const out = clipEnd(url, 50);
  assert.match(out, /… \(\d+ more characters\)$/);
  assert.ok(cutIndex(url, 50) <= 50);
});

test('GIVEN one character cut WHEN clipped THEN the note says "1 more character"', () => {
  assert.is(clipEnd('aaaaaaaaaaaaa bbbb', 16), 'aaaaaaaaaaaaa… (5 more characters)');
  assert.is(clipEnd('abcdefghi', 8), 'abcdefgh… (1 more character)');
});

test('GIVEN a window into a long expression WHEN clipped THEN it starts at a token and names what is before and after', () => {
  const s =
    "{'system:serviceaccount:antrea-multicluster:member-east': 'east', 'system:serviceaccount:antrea-multicluster:member-west': 'west'}";
  const out = clipWindow(s, 70, 40);
  assert.match(out, /^\(\d+ characters before\) …/);
  const before = Number(/^\((\d+) characters before\)/.exec(out)![1]);
  // The window starts after a boundary (a space or a comma), not mid-word.
  assert.match(s.slice(before - 1, before), /[\s,:]/);
  assert.match(out, /… \(\d+ more characters\)$/);
});

test.run();
