/**
 * ValidatingAdmissionPolicies that replace Antrea's leader webhooks for what matters here
 * (antrea-mc.md §g). The map from member ServiceAccount to cluster ID is known when compiling, so
 * the policies are static CEL and can be reviewed in the diff.
 *
 * CEL note: `namespace` is a CEL reserved word. Kubernetes documents escaping it as `__namespace__`,
 * but for these CRD-typed objects kube-apiserver 1.34 answers `no such key: __namespace__`; index
 * syntax, `spec['namespace']`, works (proven by test/e2e/bundles.test.ts).
 *
 * - `<leaderNs>-member-writes`: a member identity may create, update or delete only
 *   MemberClusterAnnounces and ResourceExports that carry its own cluster ID, under the names
 *   Antrea's member uses.
 * - `<leaderNs>-compiled-imports`: ServiceImport and ACNP ResourceImports are compiled from git;
 *   only the delivery tool (and `system:masters`) may change them, never a member or the reconciler.
 */
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import { announceName } from '../names';
import type { Plan } from '../plan';
import { memberUsername } from './member-access';
import { SYNC_WAVE, WAVE_GUARDS, constructId, meta } from './util';

/** Policies and bindings go in before the RoleBindings that let members write (util.ts). */
const GUARD_WAVE = { annotations: { [SYNC_WAVE]: WAVE_GUARDS } };

const MC = 'multicluster.crd.antrea.io';

/** A CEL string literal. Values come from checked model fields; quotes are escaped all the same. */
export function celString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function celList(xs: readonly string[]): string {
  return `[${xs.map(celString).join(', ')}]`;
}

export function memberWritesPolicyName(plan: Plan): string {
  return `${plan.leaderNamespace}-member-writes`;
}

export function compiledImportsPolicyName(plan: Plan): string {
  return `${plan.leaderNamespace}-compiled-imports`;
}

function inLeaderNamespace(plan: Plan, resources: string[]) {
  return {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': plan.leaderNamespace } },
    resourceRules: [
      { apiGroups: [MC], apiVersions: ['*'], operations: ['CREATE', 'UPDATE', 'DELETE'], resources },
    ],
  };
}

function binding(scope: Construct, policyName: string): void {
  new k8s.KubeValidatingAdmissionPolicyBinding(
    scope,
    constructId('ValidatingAdmissionPolicyBinding', undefined, policyName),
    { metadata: meta(policyName, undefined, GUARD_WAVE), spec: { policyName, validationActions: ['Deny'] } },
  );
}

export function renderMemberWritesPolicy(scope: Construct, plan: Plan): void {
  const name = memberWritesPolicyName(plan);
  const idByUser = plan.members
    .map((m) => `${celString(memberUsername(plan, m.id))}: ${celString(m.id)}`)
    .join(', ');
  const obj = 'variables.obj';
  const id = 'variables.clusterID';
  const isAnnounce = "request.resource.resource == 'memberclusterannounces'";
  const isExport = "request.resource.resource == 'resourceexports'";
  new k8s.KubeValidatingAdmissionPolicy(scope, constructId('ValidatingAdmissionPolicy', undefined, name), {
    metadata: meta(name, undefined, GUARD_WAVE),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: inLeaderNamespace(plan, ['memberclusterannounces', 'resourceexports']),
      matchConditions: [
        { name: 'member-identity', expression: `request.userInfo.username in {${idByUser}}` },
      ],
      variables: [
        { name: 'clusterID', expression: `{${idByUser}}[request.userInfo.username]` },
        { name: 'obj', expression: "request.operation == 'DELETE' ? oldObject : object" },
        {
          name: 'exportName',
          expression:
            `!has(${obj}.spec) || !has(${obj}.spec.kind) ? '' : ` +
            `${obj}.spec.kind == 'Service' ? ${id} + '-' + ${obj}.spec['namespace'] + '-' + ${obj}.spec.name + '-service' : ` +
            `${obj}.spec.kind == 'Endpoints' ? ${id} + '-' + ${obj}.spec['namespace'] + '-' + ${obj}.spec.name + '-endpoints' : ` +
            `${obj}.spec.kind == 'ClusterInfo' ? ${id} + '-clusterinfo' : ''`,
        },
      ],
      validations: [
        {
          expression: `!(${isAnnounce}) || (has(${obj}.clusterID) && ${obj}.clusterID == ${id} && ${obj}.metadata.name == ${celString(announceName(''))} + ${id})`,
          messageExpression: `'member ' + ${id} + ' may only write MemberClusterAnnounce ${announceName('')}' + ${id} + ' with clusterID ' + ${id}`,
          reason: 'Forbidden',
        },
        {
          expression: `!(${isAnnounce}) || request.operation == 'DELETE' || (has(${obj}.clusterSetID) && ${obj}.clusterSetID == ${celString(plan.clusterSetId)} && has(${obj}.leaderClusterID) && ${obj}.leaderClusterID == ${celString(plan.leader.id)})`,
          message: `a MemberClusterAnnounce must name ClusterSet ${plan.clusterSetId} and leader ${plan.leader.id}`,
          reason: 'Invalid',
        },
        {
          expression: `!(${isExport}) || (has(${obj}.spec) && has(${obj}.spec.clusterID) && ${obj}.spec.clusterID == ${id} && has(${obj}.metadata.labels) && 'sourceClusterID' in ${obj}.metadata.labels && ${obj}.metadata.labels['sourceClusterID'] == ${id})`,
          messageExpression: `'member ' + ${id} + ' may only write ResourceExports whose spec.clusterID and sourceClusterID label are ' + ${id}`,
          reason: 'Forbidden',
        },
        {
          expression:
            `!(${isExport}) || (has(${obj}.spec) && has(${obj}.spec.kind) && ${obj}.spec.kind in ['Service', 'Endpoints', 'ClusterInfo', 'LabelIdentity'] && ` +
            `(${obj}.spec.kind == 'LabelIdentity' ? ${obj}.metadata.name.matches('^' + ${id} + '-[0-9a-f]{16}$') : ${obj}.metadata.name == variables.exportName))`,
          messageExpression:
            `'a ResourceExport of member ' + ${id} + ' must be of kind Service, Endpoints, ClusterInfo or LabelIdentity and named ' + ` +
            `(variables.exportName != '' ? variables.exportName : ${id} + '-<16 hex digits>')`,
          reason: 'Invalid',
        },
      ],
    },
  });
  binding(scope, name);
}

export function renderCompiledImportsPolicy(scope: Construct, plan: Plan): void {
  const name = compiledImportsPolicyName(plan);
  const obj = "(request.operation == 'DELETE' ? oldObject : object)";
  new k8s.KubeValidatingAdmissionPolicy(scope, constructId('ValidatingAdmissionPolicy', undefined, name), {
    metadata: meta(name, undefined, GUARD_WAVE),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: inLeaderNamespace(plan, ['resourceimports']),
      matchConditions: [
        {
          name: 'not-delivery',
          expression: `!(request.userInfo.username in ${celList(plan.deliveryUsers)}) && !('system:masters' in request.userInfo.groups)`,
        },
      ],
      validations: [
        {
          expression:
            `!(${obj}.metadata.name.endsWith('-service') || ${obj}.metadata.name.endsWith('-antreaclusternetworkpolicy') || ` +
            `(has(${obj}.spec) && has(${obj}.spec.kind) && ${obj}.spec.kind in ['ServiceImport', 'AntreaClusterNetworkPolicy']))`,
          messageExpression: `'ResourceImport ' + ${obj}.metadata.name + ' is compiled by clusterset from git; change the model instead (only the delivery tool may write it)'`,
          reason: 'Forbidden',
        },
      ],
    },
  });
  binding(scope, name);
}
