import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderServiceExport } from '../../lib/render/service-exports';
import { validateObject } from '../../lib/validate';
import { minimalModel, only, planOf, renderInto, service } from '../helpers/models';

test('GIVEN a Service a member exports WHEN rendered THEN an MCS ServiceExport of that name in its namespace, with no spec', () => {
  const p = planOf(minimalModel());
  const se = only(
    renderInto((s) => renderServiceExport(s, p.services[0]!)),
    'ServiceExport',
  );
  assert.equal(se, {
    apiVersion: 'multicluster.x-k8s.io/v1alpha1',
    kind: 'ServiceExport',
    metadata: { name: 'cart', namespace: 'shop' },
  });
  assert.equal(validateObject(se, 'se'), []);
});

test('GIVEN members exporting different Services THEN each member bundle gets only its own ServiceExports', () => {
  const m = minimalModel();
  m.services = [service('shop', 'cart', ['east', 'west']), service('prod', 'api', ['west'])];
  const p = planOf(m);
  const names = (id: string) =>
    renderInto((s) => {
      for (const svc of p.exportsByMember.get(id) ?? []) renderServiceExport(s, svc);
    }).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
  assert.equal(names('east'), ['shop/cart']);
  assert.equal(names('west').sort(), ['prod/api', 'shop/cart']);
  assert.equal(names('hub'), []);
});

test.run();
