/**
 * The REST collections `clusterset status` reads: every kind a bundle renders and every kind Antrea's
 * controllers write that the status looks at, with its plural and scope. A closed table, not
 * discovery: the status must not need the discovery API's rights, and a kind missing here is a
 * bug the unit tests catch (every kind of every rendered bundle is looked up).
 */

export interface Resource {
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

const R = (apiVersion: string, kind: string, plural: string, namespaced: boolean): Resource => ({
  apiVersion,
  kind,
  plural,
  namespaced,
});

const MC1 = 'multicluster.crd.antrea.io/v1alpha1';
const MC2 = 'multicluster.crd.antrea.io/v1alpha2';

export const RESOURCES: readonly Resource[] = [
  R('v1', 'ConfigMap', 'configmaps', true),
  R('v1', 'Endpoints', 'endpoints', true),
  R('v1', 'Event', 'events', true),
  R('v1', 'Namespace', 'namespaces', false),
  R('v1', 'Pod', 'pods', true),
  R('v1', 'Secret', 'secrets', true),
  R('v1', 'Service', 'services', true),
  R('v1', 'ServiceAccount', 'serviceaccounts', true),
  R('apps/v1', 'Deployment', 'deployments', true),
  R('batch/v1', 'Job', 'jobs', true),
  R('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true),
  R('coordination.k8s.io/v1', 'Lease', 'leases', true),
  R('rbac.authorization.k8s.io/v1', 'Role', 'roles', true),
  R('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true),
  R('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  R('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  R('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false),
  R('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false),
  R(
    'admissionregistration.k8s.io/v1',
    'ValidatingAdmissionPolicyBinding',
    'validatingadmissionpolicybindings',
    false,
  ),
  R('about.k8s.io/v1beta1', 'ClusterProperty', 'clusterproperties', false),
  R('multicluster.x-k8s.io/v1alpha1', 'ServiceExport', 'serviceexports', true),
  R('multicluster.x-k8s.io/v1alpha1', 'ServiceImport', 'serviceimports', true),
  R('crd.antrea.io/v1beta1', 'ClusterNetworkPolicy', 'clusternetworkpolicies', false),
  R('crd.antrea.io/v1beta1', 'Tier', 'tiers', false),
  R('crd.antrea.io/v1beta1', 'ClusterGroup', 'clustergroups', false),
  R(MC2, 'ClusterSet', 'clustersets', true),
  R(MC1, 'ClusterSet', 'clustersets', true),
  R(MC1, 'MemberClusterAnnounce', 'memberclusterannounces', true),
  R(MC1, 'ResourceExport', 'resourceexports', true),
  R(MC1, 'ResourceImport', 'resourceimports', true),
  R(MC2, 'ClusterClaim', 'clusterclaims', true),
  R(MC1, 'ClusterInfoImport', 'clusterinfoimports', true),
  R(MC1, 'LabelIdentity', 'labelidentities', false),
  R('external-secrets.io/v1', 'ExternalSecret', 'externalsecrets', true),
  R('external-secrets.io/v1', 'SecretStore', 'secretstores', true),
];

const BY_KIND = new Map(RESOURCES.map((r) => [`${r.apiVersion}/${r.kind}`, r]));

/** The resource of `apiVersion` + `kind` (read in the version the bundle renders). */
export function resourceOf(apiVersion: string, kind: string): Resource | undefined {
  return BY_KIND.get(`${apiVersion}/${kind}`);
}

/** The first resource of `kind` in the table (the ClusterSet: v1alpha2, its storage version). */
export function resource(kind: string): Resource {
  const r = RESOURCES.find((x) => x.kind === kind);
  if (!r) throw new Error(`no resource for kind ${kind}`);
  return r;
}

/** The collection path of `r` (in `namespace` when it is namespaced). */
export function collectionPath(r: Resource, namespace?: string): string {
  const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  return r.namespaced ? `${base}/namespaces/${namespace ?? ''}/${r.plural}` : `${base}/${r.plural}`;
}
