import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memberUsername, renderMemberIdentity, renderMemberRole } from '../../lib/render/member-access';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, memberOf, minimalModel, only, planOf, renderInto } from '../helpers/models';

test("GIVEN the leader WHEN the member Role is rendered THEN antrea-mc-member-cluster-role with Antrea's verbs less the status writes its member never makes", () => {
  const p = planOf(minimalModel());
  const role = only(
    renderInto((s) => renderMemberRole(s, p)),
    'Role',
  );
  assert.is(role.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.equal(role.metadata, { name: 'antrea-mc-member-cluster-role', namespace: 'antrea-multicluster' });
  const MC = 'multicluster.crd.antrea.io';
  const all = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  const byResource = Object.fromEntries(
    (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((r) =>
      r.resources.map((res) => [`${r.apiGroups.join(',')}/${res}`, [...r.verbs].sort()]),
    ),
  );
  assert.equal(byResource, {
    '/events': ['create'],
    [`${MC}/memberclusterannounces`]: all,
    [`${MC}/memberclusterannounces/status`]: ['get'],
    [`${MC}/resourceexports`]: all,
    // Antrea's Role also grants patch and update on both: its member controller never uses them.
    [`${MC}/resourceexports/status`]: ['get'],
    [`${MC}/resourceimports`]: ['get', 'list', 'watch'],
    [`${MC}/resourceimports/status`]: ['get'],
  });
});

function identity(id = 'east', m = minimalModel()) {
  const p = planOf(m);
  return renderInto((s) => renderMemberIdentity(s, p, memberOf(p, id)));
}

test('GIVEN a member THEN a ServiceAccount in the leader namespace annotated multicluster.antrea.io/cluster-id', () => {
  const sa = only(identity(), 'ServiceAccount');
  assert.equal(sa, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: 'member-east',
      namespace: 'antrea-multicluster',
      annotations: { 'multicluster.antrea.io/cluster-id': 'east' },
    },
  });
});

test('THEN a kubernetes.io/service-account-token Secret bound to that ServiceAccount, with NO data or stringData', () => {
  const secret = only(identity(), 'Secret');
  assert.equal(secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'member-east',
      namespace: 'antrea-multicluster',
      annotations: { 'kubernetes.io/service-account.name': 'member-east' },
    },
    type: 'kubernetes.io/service-account-token',
  });
  assert.not.ok('data' in secret);
  assert.not.ok('stringData' in secret);
});

test('THEN a RoleBinding of that ServiceAccount to antrea-mc-member-cluster-role', () => {
  const rb = only(identity(), 'RoleBinding');
  assert.equal(rb, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'member-east', namespace: 'antrea-multicluster' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-member-cluster-role' },
    subjects: [{ kind: 'ServiceAccount', name: 'member-east', namespace: 'antrea-multicluster' }],
  });
});

test('GIVEN a dual-role leader THEN the leader gets a member identity of its own', () => {
  const objs = identity('hub', dualRoleModel());
  assert.equal(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
    'RoleBinding/member-hub',
    'Secret/member-hub',
    'ServiceAccount/member-hub',
  ]);
  assert.is(only(objs, 'ServiceAccount').metadata.annotations?.['multicluster.antrea.io/cluster-id'], 'hub');
});

test('THEN the member username is the ServiceAccount username in the leader namespace', () => {
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  const p = planOf(m);
  assert.is(memberUsername(p, memberOf(p, 'east')), 'system:serviceaccount:mc-leader:member-east');
});

/** GIVEN `minimalModel` whose `east` keeps the identity `antctl mc create membertoken` made, and `west` the user guide's. */
function adoptedModel() {
  const m = minimalModel();
  m.clusters[1]!.memberIdentity = { serviceAccount: 'east-token', memberTokenSecret: 'east-leader-token' };
  m.clusters[2]!.memberIdentity = { serviceAccount: 'member-west', tokenSecret: 'member-west-token' };
  return m;
}

test('GIVEN memberIdentity.serviceAccount alone THEN the ServiceAccount, its token Secret and RoleBinding all carry that name', () => {
  const objs = identity('east', adoptedModel());
  assert.equal(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
    'RoleBinding/east-token',
    'Secret/east-token',
    'ServiceAccount/east-token',
  ]);
  assert.equal(only(objs, 'Secret').metadata.annotations, {
    'kubernetes.io/service-account.name': 'east-token',
  });
  assert.equal(only(objs, 'RoleBinding').subjects, [
    { kind: 'ServiceAccount', name: 'east-token', namespace: 'antrea-multicluster' },
  ]);
  assert.is(only(objs, 'ServiceAccount').metadata.annotations?.['multicluster.antrea.io/cluster-id'], 'east');
});

test("GIVEN the user guide's names (ServiceAccount and RoleBinding member-west, Secret member-west-token) THEN each object carries its own", () => {
  const m = adoptedModel();
  m.clusters[2]!.memberIdentity!.roleBinding = 'member-west-binding';
  const objs = identity('west', m);
  assert.is(only(objs, 'ServiceAccount').metadata.name, 'member-west');
  assert.is(only(objs, 'RoleBinding').metadata.name, 'member-west-binding');
  assert.equal(only(objs, 'RoleBinding').subjects, [
    { kind: 'ServiceAccount', name: 'member-west', namespace: 'antrea-multicluster' },
  ]);
  assert.is(only(objs, 'Secret').metadata.name, 'member-west-token');
  assert.equal(only(objs, 'Secret').metadata.annotations, {
    'kubernetes.io/service-account.name': 'member-west',
  });
  const p = planOf(m);
  assert.is(memberUsername(p, memberOf(p, 'west')), 'system:serviceaccount:antrea-multicluster:member-west');
});

test('THEN every object is a known built-in kind for validation', () => {
  for (const o of identity()) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
