import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { K8sObject } from '../../lib/render';
import {
  celString,
  compiledImportsPolicyName,
  memberWritesPolicyName,
  renderCompiledImportsPolicy,
  renderMemberWritesPolicy,
} from '../../lib/render/admission';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, minimalModel, only, planOf, renderInto, type ModelDraft } from '../helpers/models';

function renderAll(m: ModelDraft = minimalModel()): K8sObject[] {
  const p = planOf(m);
  return renderInto((s) => {
    renderMemberWritesPolicy(s, p);
    renderCompiledImportsPolicy(s, p);
  });
}

const text = (o: K8sObject) => JSON.stringify(o);

test('GIVEN the leader WHEN admission is rendered THEN two ValidatingAdmissionPolicies and their bindings, named after the leader namespace', () => {
  const objs = renderAll();
  assert.equal(objs.map((o) => `${o.apiVersion} ${o.kind}/${o.metadata.name}`).sort(), [
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy/antrea-multicluster-compiled-imports',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy/antrea-multicluster-member-writes',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding/antrea-multicluster-compiled-imports',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding/antrea-multicluster-member-writes',
  ]);
  for (const o of objs) assert.is(o.metadata.namespace, undefined, 'admission policies are cluster-scoped');
  const m = minimalModel();
  m.leaderNamespace = 'mc-leader';
  assert.is(memberWritesPolicyName(planOf(m)), 'mc-leader-member-writes');
  assert.is(compiledImportsPolicyName(planOf(m)), 'mc-leader-compiled-imports');
});

test('THEN each binding names its policy with validationActions [Deny]', () => {
  for (const b of renderAll().filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding')) {
    assert.equal(b.spec, { policyName: b.metadata.name, validationActions: ['Deny'] });
  }
});

test('THEN both policies fail closed and match only the leader namespace', () => {
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

test('THEN member-writes covers announces and exports on create, update and delete', () => {
  const vap = only(renderAll(), 'ValidatingAdmissionPolicy', 'antrea-multicluster-member-writes');
  const rules = (vap.spec as { matchConstraints: { resourceRules: unknown[] } }).matchConstraints
    .resourceRules;
  assert.equal(rules, [
    {
      apiGroups: ['multicluster.crd.antrea.io'],
      apiVersions: ['*'],
      operations: ['CREATE', 'UPDATE', 'DELETE'],
      resources: ['memberclusterannounces', 'resourceexports'],
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

test('THEN celString escapes quotes and backslashes', () => {
  assert.is(celString("a'b\\c"), "'a\\'b\\\\c'");
});

test('THEN the objects are known built-in kinds for output validation', () => {
  for (const o of renderAll()) assert.equal(validateObject(o, o.metadata.name), []);
});

test.run();
