/**
 * decide(): enumerating open questions, dropping those that change nothing, and stating the rest
 * as a short sum of products.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, literalText, MAX_ATOMS, type Atom } from '../../lib/explain/conditions';

const atom = (k: string): Atom => ({ key: k, yes: k, no: `not ${k}` });

test('GIVEN an answer that needs no question THEN it is definite and names who decided', () => {
  const d = decide(() => ({ allowed: false, by: 'rule x' }));
  assert.equal(d, { verdict: 'denied', by: ['rule x'], allowedIf: [], truncated: false });
});

test('GIVEN allowed = A or (B and not C), with D asked but irrelevant THEN allowedIf is exactly that', () => {
  const d = decide((ask) => {
    const dAns = ask(atom('D'));
    const allowed = ask(atom('A')) || (ask(atom('B')) && !ask(atom('C')));
    return { allowed, by: dAns ? 'd' : 'e' };
  });
  assert.is(d.verdict, 'depends');
  assert.equal(
    d.allowedIf.map((t) => t.map(literalText)),
    [['A'], ['B', 'not C']],
  );
});

test('GIVEN an answer that is the same under every assignment THEN the questions asked do not make it depend', () => {
  const d = decide((ask) => ({ allowed: ask(atom('A')) || !ask(atom('A')), by: 'x' }));
  assert.is(d.verdict, 'allowed');
});

test('GIVEN more open questions than can be enumerated THEN the verdict is depends and marked truncated', () => {
  const d = decide((ask) => {
    let all = true;
    for (let i = 0; i <= MAX_ATOMS; i++) all = ask(atom(`q${i}`)) && all;
    return { allowed: all, by: 'x' };
  });
  assert.is(d.verdict, 'depends');
  assert.ok(d.truncated);
});

test.run();
