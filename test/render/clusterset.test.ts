import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderLeaderClusterSet, renderMemberClusterSet } from '../../lib/render/clusterset';

const JOB = 'clusterset-restart-0123456789';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, memberOf, minimalModel, only, planOf, renderInto } from '../helpers/models';

test('GIVEN the leader WHEN its ClusterSet is rendered THEN v1alpha2 named by the ClusterSet ID with spec.clusterID = leader', () => {
  const p = planOf(minimalModel());
  const cs = only(
    renderInto((s) => renderLeaderClusterSet(s, p)),
    'ClusterSet',
  );
  assert.equal(cs, {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
    kind: 'ClusterSet',
    metadata: { name: 'test-set', namespace: 'antrea-multicluster' },
    spec: { clusterID: 'hub', leaders: [{ clusterID: 'hub' }], namespace: 'antrea-multicluster' },
  });
});

test('THEN the leader ClusterSet lists no members and its own ID appears in leaders', () => {
  const p = planOf(minimalModel());
  const spec = only(
    renderInto((s) => renderLeaderClusterSet(s, p)),
    'ClusterSet',
  ).spec as Record<string, unknown>;
  assert.not.ok('members' in spec);
  assert.not.ok('clusterId' in spec, 'the JSON spelling is clusterID');
});

test('GIVEN a member WHEN its ClusterSet is rendered THEN it names the leader, its server and the token Secret, in the member namespace', () => {
  const p = planOf(minimalModel());
  const cs = only(
    renderInto((s) => renderMemberClusterSet(s, p, memberOf(p, 'east'), JOB)),
    'ClusterSet',
  );
  assert.equal(cs, {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
    kind: 'ClusterSet',
    metadata: {
      name: 'test-set',
      namespace: 'kube-system',
      // The restart Job it expects a record of (member-restart.ts).
      annotations: { 'clusterset/restart-job': JOB },
    },
    spec: {
      clusterID: 'east',
      leaders: [
        { clusterID: 'hub', secret: 'antrea-mc-leader-token', server: 'https://hub.example.com:6443' },
      ],
      namespace: 'antrea-multicluster',
    },
  });
});

test('GIVEN custom namespaces and token Secret name THEN the member ClusterSet uses them', () => {
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  m.memberNamespace = 'mc-member';
  m.secrets = { memberTokenSecretName: 'leader-token' };
  const p = planOf(m);
  const cs = only(
    renderInto((s) => renderMemberClusterSet(s, p, memberOf(p, 'west'), JOB)),
    'ClusterSet',
  );
  assert.is(cs.metadata.namespace, 'mc-member');
  const spec = cs.spec as { namespace: string; leaders: { secret: string }[] };
  assert.is(spec.namespace, 'mc-leader');
  assert.is(spec.leaders[0]!.secret, 'leader-token');
});

test("GIVEN west's memberIdentity.memberTokenSecret THEN west's member ClusterSet names that Secret and east's the shared one", () => {
  const m = minimalModel();
  m.secrets = { memberTokenSecretName: 'leader-token' };
  m.clusters[2]!.memberIdentity = { serviceAccount: 'member-west', memberTokenSecret: 'member-west-token' };
  const p = planOf(m);
  const secretOf = (id: string) =>
    (
      only(
        renderInto((s) => renderMemberClusterSet(s, p, memberOf(p, id), JOB)),
        'ClusterSet',
      ).spec as { leaders: { secret: string }[] }
    ).leaders[0]!.secret;
  assert.is(secretOf('west'), 'member-west-token');
  assert.is(secretOf('east'), 'leader-token');
});

test('GIVEN a dual-role leader THEN its leader and member ClusterSets share a name but live in different namespaces', () => {
  const p = planOf(dualRoleModel());
  const objs = renderInto((s) => {
    renderLeaderClusterSet(s, p);
    renderMemberClusterSet(s, p, memberOf(p, 'hub'), JOB);
  });
  assert.equal(objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort(), [
    'antrea-multicluster/test-set',
    'kube-system/test-set',
  ]);
  for (const o of objs) assert.is((o.spec as { clusterID: string }).clusterID, 'hub');
});

test('THEN every ClusterSet passes the v1alpha2 CRD schema (exactly one leader, clusterID present)', () => {
  const p = planOf(minimalModel());
  const objs = [
    ...renderInto((s) => renderLeaderClusterSet(s, p)),
    ...p.members.flatMap((m) => renderInto((s) => renderMemberClusterSet(s, p, m, JOB))),
  ];
  assert.is(objs.length, 3);
  for (const o of objs) assert.equal(validateObject(o, o.metadata.name), []);
});

test('GIVEN Antrea older than 1.13 WHEN ClusterSets are rendered THEN members get v1alpha1 listing themselves and no clusterID, the leader keeps v1alpha2', () => {
  const m = minimalModel();
  m.antreaVersion = '1.12.2';
  const p = planOf(m);
  const leader = only(
    renderInto((s) => renderLeaderClusterSet(s, p)),
    'ClusterSet',
  );
  // The leader bundle ships the current CRDs, whose storage version is v1alpha2.
  assert.is(leader.apiVersion, 'multicluster.crd.antrea.io/v1alpha2');
  const east = memberOf(p, p.members[0]!.id);
  const member = only(
    renderInto((s) => renderMemberClusterSet(s, p, east, JOB)),
    'ClusterSet',
  );
  assert.is(member.apiVersion, 'multicluster.crd.antrea.io/v1alpha1');
  assert.equal(member.spec, {
    leaders: [{ clusterID: p.leader.id, secret: 'antrea-mc-leader-token', server: p.leader.apiServer }],
    members: [{ clusterID: east.id }],
    namespace: 'antrea-multicluster',
  });
  for (const o of [leader, member]) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
