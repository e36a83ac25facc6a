import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderServiceImport } from '../../lib/render/service-imports';
import { validateObject } from '../../lib/validate';
import { minimalModel, only, planOf, renderInto, service } from '../helpers/models';

function renderAll(m = minimalModel()) {
  const p = planOf(m);
  return renderInto((s) => {
    for (const svc of p.services) renderServiceImport(s, p, svc);
  });
}

test('GIVEN an exported Service WHEN rendered THEN a ResourceImport <ns>-<name>-service exactly as Antrea computes it', () => {
  const ri = only(renderAll(), 'ResourceImport');
  assert.equal(ri, {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'ResourceImport',
    metadata: { name: 'shop-cart-service', namespace: 'antrea-multicluster' },
    spec: {
      name: 'cart',
      namespace: 'shop',
      kind: 'ServiceImport',
      serviceImport: {
        spec: { ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], type: 'ClusterSetIP' },
      },
    },
  });
});

test('GIVEN a multi-port Service THEN ports are {name, port, protocol} in declared order with TCP defaulted', () => {
  const m = minimalModel();
  m.services = [
    service(
      'platform',
      'dns',
      ['east'],
      [
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53 },
        { name: 'sctp', port: 9, protocol: 'SCTP' },
        { name: 'a-last', port: 1 },
      ],
    ),
  ];
  const ri = only(renderAll(m), 'ResourceImport', 'platform-dns-service');
  const spec = (ri.spec as { serviceImport: { spec: Record<string, unknown> } }).serviceImport.spec;
  assert.equal(spec.ports, [
    { name: 'dns-udp', port: 53, protocol: 'UDP' },
    { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    { name: 'sctp', port: 9, protocol: 'SCTP' },
    { name: 'a-last', port: 1, protocol: 'TCP' },
  ]);
  assert.equal(Object.keys(spec).sort(), ['ports', 'type'], 'no ips, no sessionAffinity');
});

test('GIVEN an unnamed port THEN the port carries no name key', () => {
  const m = minimalModel();
  m.services = [service('prod', 'api', ['east'], [{ port: 8080 }])];
  const ri = only(renderAll(m), 'ResourceImport');
  const ports = (ri.spec as { serviceImport: { spec: { ports: unknown[] } } }).serviceImport.spec.ports;
  assert.equal(ports, [{ port: 8080, protocol: 'TCP' }]);
});

test('THEN the ResourceImport has no labels, annotations, clusterID list or status', () => {
  const ri = only(renderAll(), 'ResourceImport');
  assert.equal(Object.keys(ri.metadata).sort(), ['name', 'namespace']);
  assert.equal(Object.keys(ri).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.not.ok('clusterID' in (ri.spec as object));
});

test('GIVEN a custom leader namespace THEN the ResourceImport lives there', () => {
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  assert.is(only(renderAll(m), 'ResourceImport').metadata.namespace, 'mc-leader');
});

test('GIVEN several Services THEN one ResourceImport each, and every one passes the ResourceImport CRD schema', () => {
  const m = minimalModel();
  m.services = [
    service('shop', 'cart', ['east']),
    service(
      'prod',
      'web',
      ['east', 'west'],
      [
        { name: 'http', port: 80 },
        { name: 'https', port: 443 },
      ],
    ),
  ];
  const objs = renderAll(m);
  assert.equal(objs.map((o) => o.metadata.name).sort(), ['prod-web-service', 'shop-cart-service']);
  for (const o of objs) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
