import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LEADER_CRDS, MEMBER_CRDS, renderCrds } from '../../lib/render/crds';
import { validateObject } from '../../lib/validate';
import { renderInto } from '../helpers/models';

test('GIVEN the leader WHEN its CRDs are rendered THEN exactly the four Antrea MC CRDs the leader serves', () => {
  const objs = renderInto((s) => renderCrds(s, LEADER_CRDS));
  assert.equal(objs.map((o) => o.metadata.name).sort(), [
    'clustersets.multicluster.crd.antrea.io',
    'memberclusterannounces.multicluster.crd.antrea.io',
    'resourceexports.multicluster.crd.antrea.io',
    'resourceimports.multicluster.crd.antrea.io',
  ]);
  for (const o of objs) {
    assert.is(o.apiVersion, 'apiextensions.k8s.io/v1');
    assert.is(o.kind, 'CustomResourceDefinition');
    assert.is(o.metadata.namespace, undefined);
    assert.is(o.metadata.annotations?.['argocd.argoproj.io/sync-wave'], '-2', 'CRDs are applied first');
    assert.equal(validateObject(o, o.metadata.name), []);
  }
});

test('THEN no ClusterClaim CRD and no member-only CRD is brought by the leader', () => {
  const names = renderInto((s) => renderCrds(s, LEADER_CRDS)).map((o) => o.metadata.name);
  for (const n of ['clusterclaims', 'gateways', 'clusterinfoimports', 'labelidentities']) {
    assert.not.ok(names.includes(`${n}.multicluster.crd.antrea.io`), n);
  }
});

test('GIVEN a member THEN only the About API ClusterProperty CRD, serving v1beta1', () => {
  const objs = renderInto((s) => renderCrds(s, MEMBER_CRDS));
  assert.equal(
    objs.map((o) => o.metadata.name),
    ['clusterproperties.about.k8s.io'],
  );
  const versions = (objs[0]!.spec as { versions: { name: string; served: boolean }[] }).versions;
  assert.ok(versions.some((v) => v.name === 'v1beta1' && v.served));
});

test('pins the missing api-approved annotation: a CRD in a protected *.k8s.io group must carry api-approved.kubernetes.io', () => {
  // kube-apiserver (verified on v1.34.4) refuses clusterproperties.about.k8s.io as rendered:
  // `metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have
  // approval annotation`. Every member bundle then fails to install the CRD and its ClusterProperties.
  const objs = [
    ...renderInto((s) => renderCrds(s, LEADER_CRDS)),
    ...renderInto((s) => renderCrds(s, MEMBER_CRDS)),
  ];
  for (const o of objs) {
    const group = (o.spec as { group: string }).group;
    if (!/(^|\.)(k8s\.io|kubernetes\.io)$/.test(group)) continue;
    const v = o.metadata.annotations?.['api-approved.kubernetes.io'];
    assert.ok(
      typeof v === 'string' && v.length > 0,
      `${o.metadata.name} (group ${group}) has no api-approved.kubernetes.io annotation`,
    );
  }
});

test('THEN the ClusterSet CRD serves v1alpha2 as storage version', () => {
  const cs = renderInto((s) => renderCrds(s, LEADER_CRDS)).find((o) =>
    o.metadata.name.startsWith('clustersets.'),
  )!;
  const versions = (cs.spec as { versions: { name: string; served: boolean; storage: boolean }[] }).versions;
  assert.ok(versions.some((v) => v.name === 'v1alpha2' && v.served && v.storage));
});

test.run();
