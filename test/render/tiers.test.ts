import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderTier } from '../../lib/render/tiers';
import { validateObject } from '../../lib/validate';
import { only, renderInto } from '../helpers/models';

test('GIVEN a custom Tier WHEN rendered THEN a cluster-scoped crd.antrea.io/v1beta1 Tier with its priority and description, in the early sync wave', () => {
  const t = only(
    renderInto((s) => renderTier(s, { name: 'mc-baseline', priority: 101, description: 'guard rails' })),
    'Tier',
  );
  assert.equal(t, {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Tier',
    // Before the ClusterSet connects the member: a replicated ACNP whose Tier is missing is dropped.
    metadata: { name: 'mc-baseline', annotations: { 'argocd.argoproj.io/sync-wave': '-1' } },
    spec: { priority: 101, description: 'guard rails' },
  });
  assert.equal(validateObject(t, 't'), []);
});

test('GIVEN no description THEN spec has only the priority', () => {
  const t = only(
    renderInto((s) => renderTier(s, { name: 'mc-stretched', priority: 100 })),
    'Tier',
  );
  assert.equal(t.spec, { priority: 100 });
});

test.run();
