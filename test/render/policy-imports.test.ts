import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acnpSpecJson } from '../../lib/policy';
import type { K8sObject } from '../../lib/render';
import { renderPolicyImport } from '../../lib/render/policy-imports';
import { renderStretchedPolicy } from '../../lib/render/stretched-policies';
import { validateObject } from '../../lib/validate';
import { baselinePolicy, only, planOf, policiesModel, renderInto } from '../helpers/models';

function renderAll(m = policiesModel()) {
  const p = planOf(m);
  return {
    p,
    objs: renderInto((s) => {
      for (const pol of p.baselinePolicies) renderPolicyImport(s, p, pol);
    }),
  };
}

type AcnpSpec = {
  tier?: string;
  priority: number;
  ingress?: { ports?: { port?: number; endPort?: number; protocol?: string }[] }[];
  egress?: { ports?: { port?: number; protocol?: string }[]; to?: Record<string, unknown>[] }[];
};

const payload = (ri: K8sObject) => (ri.spec as { clusternetworkpolicy: AcnpSpec }).clusternetworkpolicy;

test('GIVEN a baseline policy WHEN rendered THEN ResourceImport <policy>-antreaclusternetworkpolicy with kind AntreaClusterNetworkPolicy', () => {
  const { objs } = renderAll();
  const ri = only(objs, 'ResourceImport');
  assert.is(ri.apiVersion, 'multicluster.crd.antrea.io/v1alpha1');
  assert.equal(ri.metadata, {
    name: 'guard-rails-antreaclusternetworkpolicy',
    namespace: 'antrea-multicluster',
  });
  const spec = ri.spec as Record<string, unknown>;
  assert.is(spec.name, 'guard-rails');
  assert.is(spec.kind, 'AntreaClusterNetworkPolicy');
  assert.equal(
    Object.keys(spec).sort(),
    ['clusternetworkpolicy', 'kind', 'name'],
    'lower-case clusternetworkpolicy key, no namespace',
  );
  assert.not.ok('clusterNetworkPolicy' in spec);
  assert.not.ok('namespace' in spec);
});

test('THEN the ResourceImport has no labels or annotations', () => {
  const ri = only(renderAll().objs, 'ResourceImport');
  assert.equal(Object.keys(ri.metadata).sort(), ['name', 'namespace']);
});

test('pins the dropped-ports bug: the payload keeps every port number, endPort and protocol', () => {
  const ri = only(renderAll().objs, 'ResourceImport');
  const cnp = payload(ri);
  assert.equal(cnp.ingress?.[0]?.ports, [
    { port: 8443, protocol: 'TCP' },
    { port: 9000, endPort: 9100, protocol: 'TCP' },
  ]);
  assert.equal(cnp.egress?.[0]?.ports, [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ]);
});

test('THEN the payload is deep-equal to the spec of the same policy rendered directly as an ACNP', () => {
  const { p, objs } = renderAll();
  const ri = only(objs, 'ResourceImport');
  const direct = only(
    renderInto((s) => renderStretchedPolicy(s, p.baselinePolicies[0]!)),
    'ClusterNetworkPolicy',
  );
  assert.equal(payload(ri), direct.spec);
  assert.equal(payload(ri), acnpSpecJson(baselinePolicy()));
});

test('THEN the payload carries the explicit tier and priority, and no scope on egress peers', () => {
  const cnp = payload(only(renderAll().objs, 'ResourceImport'));
  assert.is(cnp.tier, 'mc-baseline');
  assert.is(cnp.priority, 10);
  for (const r of cnp.egress ?? []) for (const peer of r.to ?? []) assert.not.ok('scope' in peer);
});

test('THEN the ResourceImport passes the ResourceImport CRD schema with no unknown fields', () => {
  for (const o of renderAll().objs) assert.equal(validateObject(o, o.metadata.name), []);
});

test('GIVEN two baseline policies THEN one ResourceImport each', () => {
  const m = policiesModel();
  m.baselinePolicies = [baselinePolicy(), { ...baselinePolicy(), name: 'other', ingress: undefined }];
  assert.equal(
    renderAll(m)
      .objs.map((o) => o.metadata.name)
      .sort(),
    ['guard-rails-antreaclusternetworkpolicy', 'other-antreaclusternetworkpolicy'],
  );
});

test.run();
