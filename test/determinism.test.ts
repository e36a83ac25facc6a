/**
 * Determinism: the bytes depend on the model's content, never on the order it lists things in.
 * For every golden case, every list whose order carries no meaning (clusters, members, services,
 * exportedFrom, tiers, baselinePolicies, stretchedPolicies and their `members`) is shuffled with a
 * seeded PRNG several times, and compile() must give byte-identical files. Lists whose order does
 * carry meaning (Service ports, policy rules and peers) are left as written.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../lib/compile';
import type { ClusterSetProps } from '../lib/model';
import { caseNames, loadCase } from './helpers/golden';
import { shuffleModel } from './helpers/shuffle';

/** Files map as one comparable string: paths in emission order and their bytes. */
function bytes(files: ReadonlyMap<string, string>): string {
  return [...files].map(([p, c]) => `=== ${p}\n${c}`).join('\n');
}

const SEEDS = [1, 2, 3, 42, 1337];

for (const name of caseNames()) {
  test(`GIVEN case ${name} WHEN compiled twice THEN identical bytes`, () => {
    const a = compile(loadCase(name));
    const b = compile(loadCase(name));
    assert.equal(a.diagnostics, []);
    assert.ok(a.files.size > 0);
    assert.is(bytes(b.files), bytes(a.files));
  });

  test(`GIVEN case ${name} WHEN its unordered lists are shuffled (seeds ${SEEDS.join(', ')}) THEN identical bytes`, () => {
    const model = loadCase(name);
    const reference = bytes(compile(model).files);
    let changedOrder = false;
    for (const seed of SEEDS) {
      const m = shuffleModel(model, seed);
      if (JSON.stringify(m) !== JSON.stringify(model)) changedOrder = true;
      const r = compile(m);
      assert.equal(r.diagnostics, [], `seed ${seed}: diagnostics`);
      const got = bytes(r.files);
      if (got !== reference) {
        const a = reference.split('\n');
        const b = got.split('\n');
        let i = 0;
        while (a[i] === b[i]) i++;
        assert.unreachable(`seed ${seed}: bytes differ at line ${i + 1}:\n- ${a[i]}\n+ ${b[i]}`);
      }
    }
    assert.ok(changedOrder, 'at least one seed actually reordered the model');
  });
}

test('shuffleModel keeps port, rule and peer order (they carry meaning)', () => {
  const model = loadCase('policies');
  const m = shuffleModel(model, 7);
  const svc = (x: ClusterSetProps, n: string) => x.services!.find((s) => s.name === n)!;
  assert.equal(svc(m, 'cart').ports, svc(model, 'cart').ports);
  const pol = (x: ClusterSetProps, n: string) => x.baselinePolicies!.find((p) => p.name === n)!;
  assert.equal(pol(m, 'payments-guard').ingress, pol(model, 'payments-guard').ingress);
});

test.run();
