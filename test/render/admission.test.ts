import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RECONCILER_LEASE_NAME } from '../../lib/names';
import type { K8sObject } from '../../lib/render';
import {
  celString,
  compiledImportsPolicyName,
  memberWritesPolicyName,
  reconcilerUsername,
  reconcilerWritesPolicyName,
  renderCompiledImportsPolicy,
  renderMemberWritesPolicy,
  renderReconcilerWritesPolicy,
  SYSTEM_DELETERS,
} from '../../lib/render/admission';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, minimalModel, only, planOf, renderInto, type ModelDraft } from '../helpers/models';

function renderAll(m: ModelDraft = minimalModel()): K8sObject[] {
  const p = planOf(m);
  return renderInto((s) => {
    renderMemberWritesPolicy(s, p);
    renderCompiledImportsPolicy(s, p);
    renderReconcilerWritesPolicy(s, p);
  });
}

const text = (o: K8sObject) => JSON.stringify(o);

test('GIVEN the leader WHEN admission is rendered THEN three ValidatingAdmissionPolicies and their bindings, named after the leader namespace', () => {
  const objs = renderAll();
  assert.equal(objs.map((o) => `${o.apiVersion} ${o.kind}/${o.metadata.name}`).sort(), [
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy/antrea-multicluster-compiled-imports',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy/antrea-multicluster-member-writes',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy/antrea-multicluster-reconciler-writes',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding/antrea-multicluster-compiled-imports',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding/antrea-multicluster-member-writes',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding/antrea-multicluster-reconciler-writes',
  ]);
  for (const o of objs) {
    assert.is(o.metadata.namespace, undefined, 'admission policies are cluster-scoped');
    assert.equal(o.metadata.annotations, { 'argocd.argoproj.io/sync-wave': '-1' }, 'guards go first');
  }
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  assert.is(memberWritesPolicyName(planOf(m)), 'mc-leader-member-writes');
  assert.is(compiledImportsPolicyName(planOf(m)), 'mc-leader-compiled-imports');
  assert.is(reconcilerWritesPolicyName(planOf(m)), 'mc-leader-reconciler-writes');
});

test('THEN each binding names its policy with validationActions [Deny]', () => {
  for (const b of renderAll().filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding')) {
    assert.equal(b.spec, { policyName: b.metadata.name, validationActions: ['Deny'] });
  }
});

test('THEN every policy fails closed and matches only the leader namespace', () => {
  for (const vap of renderAll().filter((o) => o.kind === 'ValidatingAdmissionPolicy')) {
    const spec = vap.spec as { failurePolicy: string; matchConstraints: { namespaceSelector: unknown } };
    assert.is(spec.failurePolicy, 'Fail');
    assert.equal(spec.matchConstraints.namespaceSelector, {
      matchLabels: { 'kubernetes.io/metadata.name': 'antrea-multicluster' },
    });
  }
});

test('THEN member-writes maps every member ServiceAccount username to its cluster ID', () => {
  const vap = only(
    renderAll(dualRoleModel()),
    'ValidatingAdmissionPolicy',
    'antrea-multicluster-member-writes',
  );
  const s = text(vap);
  for (const id of ['east', 'hub', 'west']) {
    const pair = `${celString(`system:serviceaccount:antrea-multicluster:member-${id}`)}: ${celString(id)}`;
    assert.ok(s.includes(JSON.stringify(pair).slice(1, -1)), `pair for ${id}`);
  }
});

test("GIVEN members whose identities carry other names (antctl's, the user guide's) THEN member-writes knows each by its own ServiceAccount, and no default name is left", () => {
  const m = minimalModel();
  m.clusters[1]!.memberIdentity = { serviceAccount: 'east-token' };
  m.clusters[2]!.memberIdentity = { serviceAccount: 'member-west', tokenSecret: 'member-west-token' };
  const vap = only(renderAll(m), 'ValidatingAdmissionPolicy', 'antrea-multicluster-member-writes');
  const s = text(vap);
  for (const [sa, id] of [
    ['east-token', 'east'],
    ['member-west', 'west'],
  ]) {
    const pair = `${celString(`system:serviceaccount:antrea-multicluster:${sa}`)}: ${celString(id!)}`;
    assert.ok(s.includes(JSON.stringify(pair).slice(1, -1)), `pair for ${id}`);
  }
  assert.not.ok(s.includes('member-east'), 'the default name of east is gone');
  assert.not.ok(s.includes('member-west-token'), 'the token Secret is no user');
});

test('THEN member-writes covers announces, exports and their status, and import status, on create, update and delete', () => {
  const vap = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-member-writes');
  const rules = (vap.spec as { matchConstraints: { resourceRules: unknown[] } }).matchConstraints
    .resourceRules;
  assert.equal(rules, [
    {
      apiGroups: ['multicluster.crd.antrea.io'],
      apiVersions: ['*'],
      operations: ['CREATE', 'UPDATE', 'DELETE'],
      resources: [
        'memberclusterannounces',
        'resourceexports',
        'resourceexports/status',
        'resourceimports/status',
      ],
    },
  ]);
  const s = text(vap);
  for (const needle of [
    'member-announce-from-',
    "'-service'",
    "'-endpoints'",
    "'-clusterinfo'",
    'sourceClusterID',
    '[0-9a-f]{16}',
    "clusterSetID == 'test-set'",
    "leaderClusterID == 'hub'",
  ]) {
    assert.ok(s.includes(needle), needle);
  }
});

test("THEN member-writes refuses what Antrea's ResourceExport webhook refuses, in its words", () => {
  const spec = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-member-writes')
    .spec as Vap;
  const messages = spec.validations.map((v) => v.message ?? v.messageExpression ?? '');
  // Antrea's strings, from multicluster/cmd/multicluster-controller/resourceexport_webhook.go.
  for (const m of [
    'Member cluster is not authorized to modify or delete ResourceExports owned by another member',
    'Member cluster is not authorized to remove the ResourceExport finalizer',
    'Member cluster is not authorized to create a Service ResourceExport without Spec.Service',
    'Member cluster is not authorized to create an Endpoints ResourceExport without Spec.Endpoints',
    'Member cluster is not authorized to spoof SourceKind label in ResourceExport',
    'Member cluster is not authorized to spoof source labels in ResourceExport',
    'Member cluster is not authorized to spoof ClusterInfo.ClusterID',
    'Member cluster is not authorized to create a ResourceExport without the ResourceExport finalizer',
  ])
    assert.ok(messages.includes(m), m);
  assert.ok(
    messages.some((m) => m.startsWith('Invalid ResourceExport for this member cluster: a LabelIdentity')),
  );
  assert.ok(messages.some((m) => m.includes('without Spec.ClusterInfo')));
  assert.ok(messages.some((m) => m.includes('write ResourceImport status')));
  const all = spec.validations.map((v) => v.expression).join('\n');
  // Either finalizer counts, as for Antrea's webhook and leader.
  assert.match(all, 'variables.finalizerNow');
  const fin = spec.variables.find((v) => v.name === 'finalizerBefore')!.expression;
  assert.match(fin, "['resourceexport.antrea.io/finalizer', 'resourceexport.finalizers.antrea.io']");
  // Every payload of a kind a member exports is required.
  for (const f of ['service', 'endpoints', 'clusterInfo', 'labelIdentity'])
    assert.match(all, `has(variables.obj.spec.${f})`);
  assert.match(all, 'variables.obj.spec.clusterInfo.clusterID == variables.clusterID');
  assert.not.match(all, '__namespace__');
});

test('pins the __namespace__ bug: the export name reads spec.namespace with index syntax, not the escaped field', () => {
  // On a real kube-apiserver v1.34.4 the compiled expression `variables.obj.spec.__namespace__` fails
  // with `composited variable "exportName" fails to evaluate: no such key: __namespace__`, so every
  // Service and Endpoints ResourceExport of every legitimate member is denied (HTTP 422): no Service
  // can be exported at all. `variables.obj.spec['namespace']` evaluates correctly (verified on the same
  // server: correct exports admitted, wrongly named or foreign-ID exports denied).
  const vap = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-member-writes');
  const exportName = (vap.spec as { variables: { name: string; expression: string }[] }).variables.find(
    (v) => v.name === 'exportName',
  )!.expression;
  assert.not.ok(exportName.includes('__namespace__'), exportName);
  assert.ok(/spec\[['"]namespace['"]\]/.test(exportName), exportName);
  assert.ok(
    exportName.includes("'-service'") &&
      exportName.includes("'-endpoints'") &&
      exportName.includes("'-clusterinfo'"),
  );
});

test('THEN compiled-imports exempts exactly the delivery users and system:masters', () => {
  const vap = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-compiled-imports');
  const s = text(vap);
  assert.ok(s.includes("'system:serviceaccount:argocd:argocd-application-controller'"));
  assert.ok(s.includes("'system:serviceaccount:flux-system:kustomize-controller'"));
  assert.ok(s.includes("'system:masters' in request.userInfo.groups"));
  assert.ok(s.includes('resourceimports'));
  assert.ok(s.includes("'-antreaclusternetworkpolicy'") && s.includes("'ServiceImport'"));
});

test('GIVEN custom delivery users THEN only they are exempted', () => {
  const m = minimalModel();
  m.admission = { deliveryUsers: ['system:serviceaccount:gitops:applier'] };
  const s = text(only(renderAll(m), 'ValidatingAdmissionPolicy', 'antrea-multicluster-compiled-imports'));
  assert.ok(s.includes("'system:serviceaccount:gitops:applier'"));
  assert.not.ok(s.includes('argocd-application-controller'));
});

interface Vap {
  matchConstraints: { resourceRules: unknown[] };
  matchConditions: { name: string; expression: string }[];
  variables: { name: string; expression: string }[];
  validations: { expression: string; message?: string; messageExpression?: string; reason: string }[];
}

const reconcilerWrites = (m: ModelDraft = minimalModel()) =>
  only(renderAll(m), 'ValidatingAdmissionPolicy', reconcilerWritesPolicyName(planOf(m))).spec as Vap;

test('THEN reconciler-writes matches only the reconciler, on create and update of imports, exports and announces (not their status, not delete), and on create of Leases', () => {
  const spec = reconcilerWrites();
  assert.equal(spec.matchConstraints.resourceRules, [
    {
      apiGroups: ['multicluster.crd.antrea.io'],
      apiVersions: ['*'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['memberclusterannounces', 'resourceexports', 'resourceimports'],
    },
    // Its Role may create any Lease (RBAC cannot name the object of a create): this policy holds
    // the name. Update stays with RBAC, which names the one Lease it may update.
    {
      apiGroups: ['coordination.k8s.io'],
      apiVersions: ['*'],
      operations: ['CREATE'],
      resources: ['leases'],
    },
  ]);
  assert.equal(spec.matchConditions, [
    {
      name: 'reconciler-identity',
      expression:
        "request.userInfo.username == 'system:serviceaccount:antrea-multicluster:clusterset-reconciler'",
    },
  ]);
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  assert.is(reconcilerUsername(planOf(m)), 'system:serviceaccount:mc-leader:clusterset-reconciler');
  assert.match(
    reconcilerWrites(m).matchConditions[0]!.expression,
    "'system:serviceaccount:mc-leader:clusterset-reconciler'",
  );
});

test("THEN reconciler-writes holds imports to the dynamic kinds under Antrea's names, and leaves compiled ones to compiled-imports", () => {
  const spec = reconcilerWrites();
  const all = spec.validations.map((v) => v.expression).join('\n');
  assert.match(all, "variables.importKind in ['Endpoints', 'ClusterInfo', 'LabelIdentity']");
  assert.match(
    all,
    "object.metadata.name == object.spec['namespace'] + '-' + object.spec.name + '-endpoints'",
  );
  assert.match(
    all,
    "object.metadata.name.endsWith('-clusterinfo') && has(object.spec.name) && object.spec.name == object.metadata.name",
  );
  assert.match(all, "object.spec['namespace'] == 'antrea-multicluster'");
  assert.match(all, "object.metadata.name.matches('^[0-9a-f]{16}$')");
  assert.match(all, 'object.spec.labelIdentity.id >= 1 && object.spec.labelIdentity.id <= 16777214');
  assert.not.match(all, '__namespace__');
  // Every import validation lets compiled imports through: the compiled-imports policy judges them.
  for (const v of spec.validations.filter((x) =>
    x.expression.startsWith("!(request.resource.resource == 'resourceimports')"),
  ))
    assert.match(
      v.expression,
      "!(request.resource.resource == 'resourceimports') || variables.compiledImport || ",
    );
  const compiled = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-compiled-imports')
    .spec as Vap;
  const variable = spec.variables.find((v) => v.name === 'compiledImport')!.expression;
  assert.is(
    compiled.validations[0]!.expression,
    `!(${variable.replace(/object\./g, "(request.operation == 'DELETE' ? oldObject : object).")})`,
    'the same test of "compiled" in both policies',
  );

  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  assert.match(
    reconcilerWrites(m)
      .validations.map((v) => v.expression)
      .join('\n'),
    "object.spec['namespace'] == 'mc-leader'",
  );
});

test('THEN reconciler-writes lets it only remove export finalizers and toggle its own announce finalizer', () => {
  const spec = reconcilerWrites();
  const all = spec.validations.map((v) => v.expression).join('\n');
  assert.match(
    all,
    "!(request.resource.resource == 'resourceexports' || request.resource.resource == 'memberclusterannounces') || request.operation == 'UPDATE'",
  );
  for (const f of ['spec', 'metadata.labels'])
    assert.match(
      all,
      `(has(object.${f}) ? has(oldObject.${f}) && object.${f} == oldObject.${f} : !has(oldObject.${f}))`,
    );
  assert.match(
    all,
    'object.metadata.finalizers.all(f, has(oldObject.metadata.finalizers) && f in oldObject.metadata.finalizers)',
  );
  for (const f of ['clusterID', 'clusterSetID', 'leaderClusterID', 'metadata.labels', 'metadata.annotations'])
    assert.match(
      all,
      `(has(object.${f}) ? has(oldObject.${f}) && object.${f} == oldObject.${f} : !has(oldObject.${f}))`,
    );
  assert.equal(
    spec.variables.find((v) => v.name === 'announceFinalizer'),
    {
      name: 'announceFinalizer',
      expression:
        "'memberclusterannounce.finalizer.antrea.io/' + (has(object.clusterID) ? object.clusterID : '')",
    },
  );
  assert.match(all, 'f == variables.announceFinalizer');
  for (const v of spec.validations) {
    assert.ok(['Forbidden', 'Invalid'].includes(v.reason), v.reason);
    assert.match(v.message ?? v.messageExpression ?? '', 'the reconciler');
  }
});

test('GIVEN the reconciler creating a Lease THEN reconciler-writes refuses every name but its own, and no rule about another kind applies to it', () => {
  const spec = reconcilerWrites();
  const lease = spec.validations.filter((v) => v.expression.includes("'leases'"));
  assert.equal(lease, [
    {
      expression:
        "!(request.resource.resource == 'leases') || object.metadata.name == 'clusterset-reconciler'",
      message: 'the reconciler may only create its own Lease, clusterset-reconciler',
      reason: 'Forbidden',
    },
  ]);
  // The name is the one the reconciler elects with (lib/names.ts RECONCILER_LEASE_NAME).
  assert.is(RECONCILER_LEASE_NAME, 'clusterset-reconciler');
  // Every other rule is about a kind of its own: a Lease create meets none of them.
  for (const v of spec.validations.filter((x) => !lease.includes(x)))
    assert.match(
      v.expression,
      /^!\(request\.resource\.resource == '(resourceimports|resourceexports|memberclusterannounces)'/,
      v.expression,
    );
});

test('THEN compiled-imports lets Kubernetes clean up: the system deleters may delete an import, or drop finalizers from one being deleted, and change nothing else with it', () => {
  const spec = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-compiled-imports')
    .spec as Vap;
  assert.equal(
    spec.matchConditions.map((c) => c.name),
    ['not-delivery', 'not-system-cleanup'],
  );
  const cleanup = spec.matchConditions[1]!.expression;
  const same = (f: string) =>
    `(has(object.${f}) ? has(oldObject.${f}) && object.${f} == oldObject.${f} : !has(oldObject.${f}))`;
  // A match condition that is false skips the policy: the request is the system's clean-up when a
  // deleter (namespace controller, garbage collector) deletes, or updates an import that is being
  // deleted without touching spec, labels or annotations and only removing finalizers (the
  // garbage collector ending a foreground deletion, Argo CD's default prune).
  assert.is(
    cleanup,
    "!(request.userInfo.username in ['system:serviceaccount:kube-system:namespace-controller', 'system:serviceaccount:kube-system:generic-garbage-collector', 'system:kube-controller-manager'] && " +
      "(request.operation == 'DELETE' || (request.operation == 'UPDATE' && has(oldObject.metadata.deletionTimestamp) && " +
      `${same('spec')} && ${same('metadata.labels')} && ${same('metadata.annotations')} && ` +
      '(!has(object.metadata.finalizers) || object.metadata.finalizers.all(f, has(oldObject.metadata.finalizers) && f in oldObject.metadata.finalizers)))))',
  );
  assert.equal([...SYSTEM_DELETERS].sort(), [
    'system:kube-controller-manager',
    'system:serviceaccount:kube-system:generic-garbage-collector',
    'system:serviceaccount:kube-system:namespace-controller',
  ]);
  // Nobody else gets through this condition: the deleters' names are the only users it names.
  assert.not.match(cleanup, 'argocd');
  assert.not.match(cleanup, 'clusterset-reconciler');
  assert.not.match(cleanup, 'member-');
  // Creates are never clean-up.
  assert.not.match(cleanup, 'CREATE');
});

test('THEN celString escapes quotes and backslashes', () => {
  assert.is(celString("a'b\\c"), "'a\\'b\\\\c'");
});

test('THEN the objects are known built-in kinds for output validation', () => {
  for (const o of renderAll()) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
