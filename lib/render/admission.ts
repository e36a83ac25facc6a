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
 *   Antrea's member uses, and only what Antrea's ResourceExport webhook admits: its own exports
 *   (status included), source labels that match the spec, the payload of the kind, ClusterInfo about
 *   itself, the export finalizer set on create and never removed. No member writes ResourceImport
 *   status. Denials use the webhook's words (multicluster-controller/resourceexport_webhook.go).
 * - `<leaderNs>-compiled-imports`: ServiceImport and ACNP ResourceImports are compiled from git;
 *   only the delivery tool (and `system:masters`) may change them, never a member or the reconciler.
 *   Kubernetes' own clean-up may delete them (SYSTEM_DELETERS): else the namespace controller's
 *   deletes are refused and a deleted leader namespace stays Terminating for good; and the garbage
 *   collector may drop its own finalizers from one being deleted (a foreground prune ends so).
 *   With `reconciler.waitForAntreaLeader` (the warm standby of a cut-over), Antrea's own leader
 *   controller (ANTREA_LEADER_USERNAME) is let through too, as long as the flag is set: it writes
 *   the ServiceImport and ACNP imports as it does today (ports of the first exporter, the first
 *   ACNP export), until the cut-over stops it. It is the only policy that would refuse Antrea's
 *   leader: the other two match only the member identities and the reconciler, and none matches
 *   import, export or announce status, announce and export finalizers, or the ClusterSet.
 * - `<leaderNs>-reconciler-writes`: what the reconciler creates and updates serves its purpose only:
 *   ResourceImports of the dynamic kinds under Antrea's names, finalizer removal on ResourceExports,
 *   its own finalizer on MemberClusterAnnounces, and no Lease but its own (RBAC cannot name the
 *   object of a create). Its RBAC Role grants the verbs; this policy holds the content of the writes
 *   (deletes are not matched: RBAC says which kinds it may delete).
 */
import { k8s } from 'cdk8s-plus-33';
import {
  ANTREA_LEADER_DEPLOYMENT,
  LEGACY_RESOURCE_EXPORT_FINALIZER,
  RECONCILER_LEASE_NAME,
  RECONCILER_NAME,
  RESOURCE_EXPORT_FINALIZER,
  announceFinalizer,
  announceName,
  clusterInfoName,
} from '../names';
import type { Plan } from '../plan';
import { memberUsername } from './member-access';
import { SYNC_WAVE, WAVE_GUARDS, meta, put, type Sink } from './util';

/** Policies and bindings go in before the RoleBindings that let members write (util.ts). */
const GUARD_WAVE = { annotations: { [SYNC_WAVE]: WAVE_GUARDS } };

const MC = 'multicluster.crd.antrea.io';

/** A CEL string literal. Values come from checked model fields; quotes are escaped all the same. */
export function celString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The identities kube-controller-manager deletes with when a namespace goes (the namespace
 * controller) or an owner does (the garbage collector): each controller's ServiceAccount in
 * kube-system with `--use-service-account-credentials` (kubeadm's default), kube-controller-manager's
 * own user without it. No member or reconciler token can act as them.
 */
export const SYSTEM_DELETERS = [
  'system:serviceaccount:kube-system:namespace-controller',
  'system:serviceaccount:kube-system:generic-garbage-collector',
  'system:kube-controller-manager',
] as const;

function celList(xs: readonly string[]): string {
  return `[${xs.map(celString).join(', ')}]`;
}

/**
 * The user Antrea's own leader controller writes as (its ServiceAccount in the leader namespace,
 * antrea-mc.md §e): let through by the compiled-imports policy while the reconciler waits for it
 * (`reconciler.waitForAntreaLeader`).
 */
export function antreaLeaderUsername(plan: Plan): string {
  return `system:serviceaccount:${plan.leaderNamespace}:${ANTREA_LEADER_DEPLOYMENT}`;
}

export function memberWritesPolicyName(plan: Plan): string {
  return `${plan.leaderNamespace}-member-writes`;
}

export function compiledImportsPolicyName(plan: Plan): string {
  return `${plan.leaderNamespace}-compiled-imports`;
}

export function reconcilerWritesPolicyName(plan: Plan): string {
  return `${plan.leaderNamespace}-reconciler-writes`;
}

/** The user the reconciler's ServiceAccount token authenticates as. */
export function reconcilerUsername(plan: Plan): string {
  return `system:serviceaccount:${plan.leaderNamespace}:${RECONCILER_NAME}`;
}

function inLeaderNamespace(
  plan: Plan,
  resources: string[],
  operations: string[] = ['CREATE', 'UPDATE', 'DELETE'],
) {
  return {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': plan.leaderNamespace } },
    resourceRules: [{ apiGroups: [MC], apiVersions: ['*'], operations, resources }],
  };
}

/** Whether the ResourceImport `obj` is one of the compiled ones (a ServiceImport or an ACNP). */
function isCompiledImport(obj: string): string {
  return (
    `${obj}.metadata.name.endsWith('-service') || ${obj}.metadata.name.endsWith('-antreaclusternetworkpolicy') || ` +
    `(has(${obj}.spec) && has(${obj}.spec.kind) && ${obj}.spec.kind in ['ServiceImport', 'AntreaClusterNetworkPolicy'])`
  );
}

function binding(scope: Sink, policyName: string): void {
  put(scope, k8s.KubeValidatingAdmissionPolicyBinding, {
    metadata: meta(policyName, undefined, GUARD_WAVE),
    spec: { policyName, validationActions: ['Deny'] },
  });
}

/**
 * Whether the object `o` holds the export finalizer, current or legacy; Antrea's webhook and its
 * leader accept either (API/constants), and so does the reconciler.
 */
function holdsExportFinalizer(o: string): string {
  const fins = celList([RESOURCE_EXPORT_FINALIZER, LEGACY_RESOURCE_EXPORT_FINALIZER]);
  return `${o} != null && has(${o}.metadata.finalizers) && ${o}.metadata.finalizers.exists(f, f in ${fins})`;
}

/** The payload field each kind a member exports must carry (antrea-mc.md §c.1, §d, §f). */
const EXPORT_PAYLOADS: readonly { kind: string; field: string; message: string }[] = [
  // Antrea's words.
  {
    kind: 'Service',
    field: 'service',
    message: 'Member cluster is not authorized to create a Service ResourceExport without Spec.Service',
  },
  {
    kind: 'Endpoints',
    field: 'endpoints',
    message: 'Member cluster is not authorized to create an Endpoints ResourceExport without Spec.Endpoints',
  },
  // Antrea admits a ClusterInfo export without its payload (its leader never reads it); the reconciler
  // copies it into the ClusterInfo import, so it is refused here. Our words, in the form of Antrea's.
  {
    kind: 'ClusterInfo',
    field: 'clusterInfo',
    message:
      'Member cluster is not authorized to create a ClusterInfo ResourceExport without Spec.ClusterInfo',
  },
  // Antrea refuses it because it cannot derive the name from the label hash; its message, made specific.
  {
    kind: 'LabelIdentity',
    field: 'labelIdentity',
    message:
      'Invalid ResourceExport for this member cluster: a LabelIdentity ResourceExport needs Spec.LabelIdentity',
  },
];

export function renderMemberWritesPolicy(scope: Sink, plan: Plan): void {
  const name = memberWritesPolicyName(plan);
  const idByUser = plan.members
    .map((m) => `${celString(memberUsername(plan, m))}: ${celString(m.id)}`)
    .join(', ');
  const obj = 'variables.obj';
  const id = 'variables.clusterID';
  const kind = 'variables.kind';
  const isAnnounce = "request.resource.resource == 'memberclusterannounces'";
  const isExport = "request.resource.resource == 'resourceexports'";
  const isImport = "request.resource.resource == 'resourceimports'";
  // A create or update of an export (its status included): what the member says in it is checked.
  const writesExport = 'variables.writesExport';
  // A label of the object, '' when absent (as Antrea's webhook reads a missing label).
  const label = (key: string) =>
    `has(${obj}.metadata.labels) && '${key}' in ${obj}.metadata.labels ? ${obj}.metadata.labels['${key}'] : ''`;
  put(scope, k8s.KubeValidatingAdmissionPolicy, {
    metadata: meta(name, undefined, GUARD_WAVE),
    spec: {
      failurePolicy: 'Fail',
      // Subresources are matched only when named: export status (a member may write its own only)
      // and import status (no member writes it; Antrea's member never does).
      matchConstraints: inLeaderNamespace(plan, [
        'memberclusterannounces',
        'resourceexports',
        'resourceexports/status',
        'resourceimports/status',
      ]),
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
        { name: 'kind', expression: `has(${obj}.spec) && has(${obj}.spec.kind) ? ${obj}.spec.kind : ''` },
        { name: 'writesExport', expression: `${isExport} && request.operation != 'DELETE'` },
        { name: 'finalizerBefore', expression: holdsExportFinalizer('oldObject') },
        { name: 'finalizerNow', expression: holdsExportFinalizer('object') },
        ...['sourceKind', 'sourceName', 'sourceNamespace'].map((key) => ({
          name: key,
          expression: label(key),
        })),
      ],
      validations: [
        {
          expression: `!(${isImport})`,
          message:
            'Member cluster is not authorized to write ResourceImport status: ResourceImports belong to the leader',
          reason: 'Forbidden',
        },
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
          // Updates (status included) and deletes: the export as it was must be the member's own.
          expression: `!(${isExport}) || request.operation == 'CREATE' || (has(oldObject.spec) && has(oldObject.spec.clusterID) && oldObject.spec.clusterID == ${id})`,
          message:
            'Member cluster is not authorized to modify or delete ResourceExports owned by another member',
          reason: 'Forbidden',
        },
        {
          // Only the leader side (the reconciler) releases it, once the export's data left the imports.
          expression: `!(${isExport}) || request.operation != 'UPDATE' || !variables.finalizerBefore || variables.finalizerNow`,
          message: 'Member cluster is not authorized to remove the ResourceExport finalizer',
          reason: 'Forbidden',
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
        ...EXPORT_PAYLOADS.map(({ kind: k, field, message }) => ({
          expression: `!${writesExport} || ${kind} != '${k}' || has(${obj}.spec.${field})`,
          message,
          reason: 'Forbidden',
        })),
        {
          // The leader groups exports by these labels (Endpoints subsets are merged per Service).
          expression: `!${writesExport} || variables.sourceKind == ${kind}`,
          message: 'Member cluster is not authorized to spoof SourceKind label in ResourceExport',
          reason: 'Forbidden',
        },
        {
          // ClusterInfo and LabelIdentity exports carry no sourceName or sourceNamespace (§c.1, §d, §f).
          expression:
            `!${writesExport} || !(${kind} in ['Service', 'Endpoints']) || ` +
            `(variables.sourceName == (has(${obj}.spec.name) ? ${obj}.spec.name : '') && ` +
            `variables.sourceNamespace == ('namespace' in ${obj}.spec ? ${obj}.spec['namespace'] : ''))`,
          message: 'Member cluster is not authorized to spoof source labels in ResourceExport',
          reason: 'Forbidden',
        },
        {
          // Routing information (gateway IPs, CIDRs) about another cluster.
          expression: `!${writesExport} || ${kind} != 'ClusterInfo' || !has(${obj}.spec.clusterInfo) || (has(${obj}.spec.clusterInfo.clusterID) && ${obj}.spec.clusterInfo.clusterID == ${id})`,
          message: 'Member cluster is not authorized to spoof ClusterInfo.ClusterID',
          reason: 'Forbidden',
        },
        {
          // LabelIdentity exports carry none (§d); every other kind gets it on create.
          expression: `!(${isExport}) || request.operation != 'CREATE' || ${kind} == 'LabelIdentity' || variables.finalizerNow`,
          message:
            'Member cluster is not authorized to create a ResourceExport without the ResourceExport finalizer',
          reason: 'Forbidden',
        },
      ],
    },
  });
  binding(scope, name);
}

export function renderCompiledImportsPolicy(scope: Sink, plan: Plan): void {
  const name = compiledImportsPolicyName(plan);
  const obj = "(request.operation == 'DELETE' ? oldObject : object)";
  put(scope, k8s.KubeValidatingAdmissionPolicy, {
    metadata: meta(name, undefined, GUARD_WAVE),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: inLeaderNamespace(plan, ['resourceimports']),
      matchConditions: [
        {
          name: 'not-delivery',
          expression: `!(request.userInfo.username in ${celList(plan.deliveryUsers)}) && !('system:masters' in request.userInfo.groups)`,
        },
        {
          // Deletes, and the garbage collector's update that drops its own finalizer
          // (foregroundDeletion or orphan) from an import being deleted: a foreground delete (Argo
          // CD prunes that way by default) ends with that update, and without it the import would
          // stay Terminating for good. Nothing else of the object may change in it.
          name: 'not-system-cleanup',
          expression:
            `!(request.userInfo.username in ${celList(SYSTEM_DELETERS)} && (request.operation == 'DELETE' || ` +
            `(request.operation == 'UPDATE' && has(oldObject.metadata.deletionTimestamp) && ` +
            `${unchanged('spec')} && ${unchanged('metadata.labels')} && ${unchanged('metadata.annotations')} && ` +
            `(!has(object.metadata.finalizers) || object.metadata.finalizers.all(f, has(oldObject.metadata.finalizers) && f in oldObject.metadata.finalizers)))))`,
        },
        // The warm standby of a cut-over: Antrea's leader still writes every import, as it does today.
        ...(plan.reconciler.waitForAntreaLeader
          ? [
              {
                name: 'not-antrea-leader-in-standby',
                expression: `request.userInfo.username != ${celString(antreaLeaderUsername(plan))}`,
              },
            ]
          : []),
      ],
      validations: [
        {
          expression: `!(${isCompiledImport(obj)})`,
          messageExpression: `'ResourceImport ' + ${obj}.metadata.name + ' is compiled by clusterset from git; change the model instead (only the delivery tool may write it)'`,
          reason: 'Forbidden',
        },
      ],
    },
  });
  binding(scope, name);
}

/**
 * `(has(object.<f>) ? has(oldObject.<f>) && object.<f> == oldObject.<f> : !has(oldObject.<f>))`: the
 * field is the same before and after an update, absent in both counting as the same.
 */
function unchanged(field: string): string {
  const [now, before] = [`object.${field}`, `oldObject.${field}`];
  return `(has(${now}) ? has(${before}) && ${now} == ${before} : !has(${before}))`;
}

/** Antrea's label identity IDs: a 24-bit VNI, 16777215 reserved as unknown (antrea-mc.md §d). */
const LABEL_IDENTITY_ID_MAX = 16777214;

export function renderReconcilerWritesPolicy(scope: Sink, plan: Plan): void {
  const name = reconcilerWritesPolicyName(plan);
  const isImport = "request.resource.resource == 'resourceimports'";
  const isExport = "request.resource.resource == 'resourceexports'";
  const isAnnounce = "request.resource.resource == 'memberclusterannounces'";
  const isLease = "request.resource.resource == 'leases'";
  const isUpdate = "request.operation == 'UPDATE'";
  const kind = 'variables.importKind';
  const mc = inLeaderNamespace(
    plan,
    ['memberclusterannounces', 'resourceexports', 'resourceimports'],
    ['CREATE', 'UPDATE'],
  );
  // The compiled imports are the compiled-imports policy's: this one lets them through to it.
  const dynamicImport = (k: string) => `!(${isImport}) || variables.compiledImport || ${kind} != '${k}'`;
  const fin = 'variables.announceFinalizer';
  const onlyAnnounceFinalizer = (a: string, b: string) =>
    `(!has(${a}.metadata.finalizers) || ${a}.metadata.finalizers.all(f, f == ${fin} || (has(${b}.metadata.finalizers) && f in ${b}.metadata.finalizers)))`;
  put(scope, k8s.KubeValidatingAdmissionPolicy, {
    metadata: meta(name, undefined, GUARD_WAVE),
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        ...mc,
        resourceRules: [
          ...mc.resourceRules,
          {
            apiGroups: ['coordination.k8s.io'],
            apiVersions: ['*'],
            operations: ['CREATE'],
            resources: ['leases'],
          },
        ],
      },
      matchConditions: [
        {
          name: 'reconciler-identity',
          expression: `request.userInfo.username == ${celString(reconcilerUsername(plan))}`,
        },
      ],
      variables: [
        { name: 'compiledImport', expression: isCompiledImport('object') },
        {
          name: 'importKind',
          expression: "has(object.spec) && has(object.spec.kind) ? object.spec.kind : ''",
        },
        {
          name: 'announceFinalizer',
          expression: `${celString(announceFinalizer(''))} + (has(object.clusterID) ? object.clusterID : '')`,
        },
      ],
      validations: [
        {
          expression: `!(${isLease}) || object.metadata.name == ${celString(RECONCILER_LEASE_NAME)}`,
          message: `the reconciler may only create its own Lease, ${RECONCILER_LEASE_NAME}`,
          reason: 'Forbidden',
        },
        {
          expression: `!(${isExport} || ${isAnnounce}) || ${isUpdate}`,
          message:
            'the reconciler never creates ResourceExports or MemberClusterAnnounces: members write them, the reconciler only updates their finalizers',
          reason: 'Forbidden',
        },
        {
          expression: `!(${isImport}) || variables.compiledImport || ${kind} in ['Endpoints', 'ClusterInfo', 'LabelIdentity']`,
          messageExpression: `'the reconciler may only write ResourceImports of kind Endpoints, ClusterInfo or LabelIdentity, not ' + (${kind} == '' ? 'one without spec.kind' : ${kind})`,
          reason: 'Forbidden',
        },
        {
          // endpointsImportName (lib/names.ts): <ns>-<name>-endpoints.
          expression: `${dynamicImport('Endpoints')} || (has(object.spec.name) && 'namespace' in object.spec && object.metadata.name == object.spec['namespace'] + '-' + object.spec.name + '-endpoints')`,
          message:
            'the reconciler may only write an Endpoints ResourceImport named <spec.namespace>-<spec.name>-endpoints',
          reason: 'Invalid',
        },
        {
          expression:
            `${dynamicImport('ClusterInfo')} || (object.metadata.name.endsWith(${celString(clusterInfoName(''))}) && has(object.spec.name) && object.spec.name == object.metadata.name && ` +
            `'namespace' in object.spec && object.spec['namespace'] == ${celString(plan.leaderNamespace)})`,
          message: `the reconciler may only write a ClusterInfo ResourceImport named <cluster ID>${clusterInfoName('')}, with spec.name the same and spec.namespace ${plan.leaderNamespace}`,
          reason: 'Invalid',
        },
        {
          expression:
            `${dynamicImport('LabelIdentity')} || (object.metadata.name.matches('^[0-9a-f]{16}$') && has(object.spec.labelIdentity) && has(object.spec.labelIdentity.id) && ` +
            `object.spec.labelIdentity.id >= 1 && object.spec.labelIdentity.id <= ${LABEL_IDENTITY_ID_MAX})`,
          message: `the reconciler may only write a LabelIdentity ResourceImport named by 16 hex digits, with spec.labelIdentity.id from 1 to ${LABEL_IDENTITY_ID_MAX}`,
          reason: 'Invalid',
        },
        {
          expression: `!(${isExport}) || !(${isUpdate}) || (${unchanged('spec')} && ${unchanged('metadata.labels')})`,
          messageExpression: `'the reconciler may only remove finalizers from ResourceExport ' + object.metadata.name + ': its spec and labels belong to the member'`,
          reason: 'Forbidden',
        },
        {
          expression: `!(${isExport}) || !(${isUpdate}) || !has(object.metadata.finalizers) || object.metadata.finalizers.all(f, has(oldObject.metadata.finalizers) && f in oldObject.metadata.finalizers)`,
          messageExpression: `'the reconciler may only remove finalizers from ResourceExport ' + object.metadata.name + ', never add one'`,
          reason: 'Forbidden',
        },
        {
          expression: `!(${isAnnounce}) || !(${isUpdate}) || (${['clusterID', 'clusterSetID', 'leaderClusterID', 'metadata.labels', 'metadata.annotations'].map(unchanged).join(' && ')})`,
          messageExpression: `'the reconciler may only add or remove its finalizer on MemberClusterAnnounce ' + object.metadata.name + ': its cluster IDs, labels and annotations belong to the member'`,
          reason: 'Forbidden',
        },
        {
          expression: `!(${isAnnounce}) || !(${isUpdate}) || (${onlyAnnounceFinalizer('object', 'oldObject')} && ${onlyAnnounceFinalizer('oldObject', 'object')})`,
          messageExpression: `'the reconciler may only add or remove the finalizer ' + ${fin} + ' on MemberClusterAnnounce ' + object.metadata.name`,
          reason: 'Forbidden',
        },
      ],
    },
  });
  binding(scope, name);
}
