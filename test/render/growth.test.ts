/**
 * Render stays linear in the model: what is the same in every member (CRDs, Namespaces, Tiers,
 * ClusterGroups, stretched policies) is built once per compile and shared, checked by counting the
 * objects built, never by timing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterNetworkPolicy } from '../../generated/clusternetworkpolicy';
import { Tier } from '../../generated/tier';
import { compile } from '../../lib/compile';
import { render } from '../../lib/render';
import { cluster, planOf, policiesModel, stretchedPolicy, type ModelDraft } from '../helpers/models';

/** `policiesModel` with `members` members, all with stretched NetworkPolicy, and `policies` stretched policies each targeting all of them. */
function fleet(members: number, policies: number): ModelDraft {
  const m = policiesModel();
  const ids = Array.from({ length: members }, (_, i) => `m${i}`);
  m.members = ids;
  m.clusters = [
    m.clusters[0]!,
    ...ids.map((id, i) => cluster(id, i + 1, { enableStretchedNetworkPolicy: true })),
  ];
  m.services = [
    { namespace: 'shop', name: 'cart', ports: [{ name: 'http', port: 80 }], exportedFrom: [ids[0]!] },
  ];
  m.stretchedPolicies = Array.from({ length: policies }, (_, i) => ({ ...stretchedPolicy(), name: `p${i}` }));
  return m;
}

test('GIVEN 20 members and 30 stretched policies that target all of them WHEN rendered THEN each policy and Tier is built once, and every member holds the same object', () => {
  const p = planOf(fleet(20, 30));
  let cnp = 0;
  let tiers = 0;
  const originalCnp = ClusterNetworkPolicy.manifest;
  const originalTier = Tier.manifest;
  ClusterNetworkPolicy.manifest = (props) => {
    cnp++;
    return originalCnp.call(ClusterNetworkPolicy, props);
  };
  Tier.manifest = (props) => {
    tiers++;
    return originalTier.call(Tier, props);
  };
  let bundles: ReturnType<typeof render>;
  try {
    bundles = render(p);
  } finally {
    ClusterNetworkPolicy.manifest = originalCnp;
    Tier.manifest = originalTier;
  }
  assert.is(cnp, 30, 'one build per policy, not per policy and member (600)');
  assert.is(tiers, 2);
  const of = (member: string, name: string) =>
    bundles.get(member)!.find((o) => o.kind === 'ClusterNetworkPolicy' && o.metadata.name === name);
  for (let i = 1; i < 20; i++) {
    assert.ok(of(`m${i}`, 'p7'), `m${i} holds p7`);
    assert.ok(of(`m${i}`, 'p7') === of('m0', 'p7'), 'the same object, so emit dumps it once');
  }
});

test('GIVEN a shared object WHEN compiled THEN every member file holding it has the same bytes as rendering it alone', () => {
  const r = compile(fleet(3, 2));
  assert.equal(r.diagnostics, []);
  const texts = ['m0', 'm1', 'm2'].map((m) =>
    r.files.get(`clusters/${m}/_cluster/ClusterNetworkPolicy.p1.yaml`),
  );
  assert.type(texts[0], 'string');
  assert.ok(texts.every((t) => t === texts[0]));
  assert.match(texts[0]!, /name: p1\n/);
});

test.run();
