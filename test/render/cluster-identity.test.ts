import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { K8sObject } from '../../lib/render';
import { renderClusterIdentity } from '../../lib/render/cluster-identity';
import { validateObject } from '../../lib/validate';
import {
  memberOf,
  minimalModel,
  planOf,
  renderInto,
  twoNetworkModel,
  type ModelDraft,
} from '../helpers/models';

function identity(m: ModelDraft, id: string): K8sObject[] {
  const p = planOf(m);
  return renderInto((s) => renderClusterIdentity(s, p, memberOf(p, id)));
}

const props = (objs: K8sObject[]) =>
  Object.fromEntries(
    objs
      .filter((o) => o.kind === 'ClusterProperty')
      .map((o) => [o.metadata.name, (o.spec as { value: string }).value]),
  );

test('GIVEN no declared networks WHEN rendered THEN cluster.clusterset.k8s.io and clusterset.k8s.io ClusterProperties only', () => {
  const objs = identity(minimalModel(), 'east');
  assert.equal(props(objs), { 'cluster.clusterset.k8s.io': 'east', 'clusterset.k8s.io': 'test-set' });
  for (const o of objs) {
    assert.is(o.apiVersion, 'about.k8s.io/v1beta1');
    assert.is(o.metadata.namespace, undefined, 'ClusterProperty is cluster-scoped');
  }
});

test('GIVEN declared networks THEN network.k8s.io names the cluster network', () => {
  assert.equal(props(identity(twoNetworkModel(), 'west')), {
    'cluster.clusterset.k8s.io': 'west',
    'clusterset.k8s.io': 'test-set',
    'network.k8s.io': 'dc2',
  });
});

test('GIVEN networks declared for some clusters only THEN a cluster without one gets network.k8s.io "default"', () => {
  const m = minimalModel();
  m.clusters[1]!.network = 'dc1';
  assert.is(props(identity(m, 'west'))['network.k8s.io'], 'default');
});

test('GIVEN Antrea 1.13 or newer THEN no ClusterClaims', () => {
  for (const v of ['1.13', '1.13.0', '2.7.0']) {
    const m = minimalModel();
    m.antreaVersion = v;
    assert.not.ok(
      identity(m, 'east').some((o) => o.kind === 'ClusterClaim'),
      v,
    );
  }
  assert.not.ok(
    identity(minimalModel(), 'east').some((o) => o.kind === 'ClusterClaim'),
    'default version',
  );
});

test('GIVEN Antrea older than 1.13 THEN legacy ClusterClaims id.k8s.io and clusterset.k8s.io in the member namespace', () => {
  const m = minimalModel();
  m.antreaVersion = '1.12.1';
  const claims = identity(m, 'east').filter((o) => o.kind === 'ClusterClaim');
  assert.equal(
    claims.map((o) => ({
      apiVersion: o.apiVersion,
      name: o.metadata.name,
      ns: o.metadata.namespace,
      value: o.value,
    })),
    [
      {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
        name: 'id.k8s.io',
        ns: 'kube-system',
        value: 'east',
      },
      {
        apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
        name: 'clusterset.k8s.io',
        ns: 'kube-system',
        value: 'test-set',
      },
    ],
  );
});

test('THEN every object passes its CRD schema', () => {
  const m = twoNetworkModel();
  m.antreaVersion = '1.12';
  for (const o of identity(m, 'east')) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
