import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { K8sObject } from '../../lib/render';
import { renderStretchedPolicy } from '../../lib/render/stretched-policies';
import { validateObject } from '../../lib/validate';
import { only, planOf, policiesModel, renderInto } from '../helpers/models';

function renderAll(m = policiesModel()) {
  const p = planOf(m);
  return renderInto((s) => {
    for (const pol of p.stretchedPolicies) renderStretchedPolicy(s, pol);
  });
}

type Peer = Record<string, unknown>;
type Spec = {
  tier: string;
  priority: number;
  appliedTo: unknown[];
  ingress: { name: string; action: string; from: Peer[]; ports: unknown[] }[];
  egress: { name: string; action: string; to?: Peer[]; ports?: unknown[]; toServices?: Peer[] }[];
};
const specOf = (o: K8sObject) => o.spec as Spec;

test('GIVEN a stretched policy WHEN rendered THEN a cluster-scoped crd.antrea.io/v1beta1 ClusterNetworkPolicy named as the model names it', () => {
  const cnp = only(renderAll(), 'ClusterNetworkPolicy');
  assert.is(cnp.apiVersion, 'crd.antrea.io/v1beta1');
  assert.equal(cnp.metadata, { name: 'cart-stretched' });
  assert.not.ok(cnp.metadata.name.startsWith('antrea-mc-'), 'never the prefix Antrea imports under');
});

test('THEN ingress peers carry scope: ClusterSet and ports keep their numbers', () => {
  const spec = specOf(only(renderAll(), 'ClusterNetworkPolicy'));
  assert.equal(spec.ingress, [
    {
      name: 'from-web',
      action: 'Allow',
      from: [{ podSelector: { matchLabels: { app: 'web' } }, scope: 'ClusterSet' }],
      ports: [{ port: 8080, protocol: 'TCP' }],
    },
  ]);
});

test('THEN egress uses toServices with scope: ClusterSet and neither to, ports nor protocols', () => {
  const spec = specOf(only(renderAll(), 'ClusterNetworkPolicy'));
  assert.equal(spec.egress, [
    {
      name: 'to-cart',
      action: 'Allow',
      toServices: [{ name: 'cart', namespace: 'shop', scope: 'ClusterSet' }],
    },
  ]);
});

test('GIVEN an egress rule with `to` peers THEN no scope key appears under egress to', () => {
  const m = policiesModel();
  m.stretchedPolicies![0]!.egress = [
    {
      name: 'to-pods',
      action: 'Allow',
      to: [{ podSelector: { matchLabels: { app: 'db' } } }],
      ports: [{ port: 5432 }],
    },
  ];
  const cnp = only(renderAll(m), 'ClusterNetworkPolicy');
  const egress = specOf(cnp).egress;
  assert.equal(egress[0]!.to, [{ podSelector: { matchLabels: { app: 'db' } } }]);
  assert.equal(egress[0]!.ports, [{ port: 5432, protocol: 'TCP' }]);
  assert.equal(validateObject(cnp, 'cnp'), []);
});

test('THEN the explicit tier, priority and appliedTo are kept', () => {
  const spec = specOf(only(renderAll(), 'ClusterNetworkPolicy'));
  assert.is(spec.tier, 'mc-stretched');
  assert.is(spec.priority, 20);
  assert.equal(spec.appliedTo, [{ podSelector: { matchLabels: { app: 'cart' } } }]);
});

test('THEN the object passes the ClusterNetworkPolicy CRD schema with no unknown fields', () => {
  for (const o of renderAll()) assert.equal(validateObject(o, o.metadata.name), []);
});

test('fails validation: scope under an egress `to` peer is reported as an unknown field (output-schema)', () => {
  const cnp = only(renderAll(), 'ClusterNetworkPolicy');
  const bad = JSON.parse(JSON.stringify(cnp)) as K8sObject;
  (bad.spec as Spec).egress = [
    { name: 'x', action: 'Allow', to: [{ podSelector: {}, scope: 'ClusterSet' }] },
  ];
  const ds = validateObject(bad, 'clusters/east/_cluster/ClusterNetworkPolicy.cart-stretched');
  assert.ok(ds.length >= 1, 'a diagnostic');
  assert.ok(ds.every((d) => d.rule === 'output-schema'));
  const d = ds.find((x) => x.message.includes('"scope"'));
  assert.ok(d, `a diagnostic names the field: ${JSON.stringify(ds)}`);
  assert.match(d!.path, '/spec/egress/0/to/0');
});

test('fails validation: a rule without action is reported', () => {
  const cnp = JSON.parse(JSON.stringify(only(renderAll(), 'ClusterNetworkPolicy'))) as K8sObject;
  delete (cnp.spec as { ingress: Record<string, unknown>[] }).ingress[0]!.action;
  const ds = validateObject(cnp, 'cnp');
  assert.ok(
    ds.some((d) => d.rule === 'output-schema' && /action/.test(d.message)),
    JSON.stringify(ds),
  );
});

test.run();
