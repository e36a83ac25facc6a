/**
 * Object names and formats. Every name here is either taken from the model or follows a format
 * Antrea documents (antrea-mc.md cites the code); none is derived from a construct path or a hash of
 * one. Changing a function here renames live objects: treat it as a breaking change.
 */
/** Antrea's default leader namespace. */
export const DEFAULT_LEADER_NAMESPACE = 'antrea-multicluster';
/** Antrea's default member controller namespace. */
export const DEFAULT_MEMBER_NAMESPACE = 'kube-system';
/** The Antrea release assumed when the model names none. */
export const DEFAULT_ANTREA_VERSION = '2.7.0';
/** Default name of the token Secret in each member. */
export const DEFAULT_MEMBER_TOKEN_SECRET = 'antrea-mc-leader-token';
/** Namespace Argo CD runs in when the model names none (Argo CD's install manifests use it). */
export const DEFAULT_ARGOCD_NAMESPACE = 'argocd';
/** Namespace Flux runs in when the model names none (`flux install` uses it). */
export const DEFAULT_FLUX_NAMESPACE = 'flux-system';

/** The Argo CD and Flux controllers, as the API server names them in their own cluster. */
export function deliveryUsers(argocdNamespace: string, fluxNamespace: string): string[] {
  return [
    `system:serviceaccount:${argocdNamespace}:argocd-application-controller`,
    `system:serviceaccount:${fluxNamespace}:kustomize-controller`,
  ];
}

/** Users allowed to write compiled ResourceImports when the model names none. */
export const DEFAULT_DELIVERY_USERS: readonly string[] = deliveryUsers(
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_FLUX_NAMESPACE,
);

/**
 * Name of the Argo CD Application and Flux Kustomization that deliver one cluster's bundle:
 * `<clusterSetId>-<clusterId>`, so that several ClusterSets can share one Argo CD or Flux. Both
 * tools copy it into a label on every object they apply, so it is at most 63 characters.
 */
export function deliveryObjectName(clusterSetId: string, clusterId: string): string {
  return `${clusterSetId}-${clusterId}`;
}

/** Default name of the Secret holding a remote cluster's kubeconfig for Flux. */
export function defaultKubeConfigSecretName(clusterId: string): string {
  return `${clusterId}-kubeconfig`;
}

/** Antrea's built-in Tiers (pkg/controller/networkpolicy/tier.go). */
export const BUILTIN_TIERS: readonly string[] = [
  'emergency',
  'securityops',
  'networkops',
  'platform',
  'application',
  'baseline',
];

/** Role every member identity is bound to in the leader namespace (Antrea's name). */
export const MEMBER_ROLE = 'antrea-mc-member-cluster-role';
/** Annotation tying a member ServiceAccount to its cluster ID (Antrea's name). */
export const CLUSTER_ID_ANNOTATION = 'multicluster.antrea.io/cluster-id';
/** Finalizer Antrea's member puts on every Service/Endpoints/ClusterInfo ResourceExport. */
export const RESOURCE_EXPORT_FINALIZER = 'resourceexport.antrea.io/finalizer';

/** Name of the ServiceAccount, token Secret and RoleBinding of one member in the leader namespace. */
export function memberIdentityName(clusterId: string): string {
  return `member-${clusterId}`;
}

/** `member-announce-from-<id>`: the MemberClusterAnnounce a member writes in the leader. */
export function announceName(clusterId: string): string {
  return `member-announce-from-${clusterId}`;
}

/** `<ns>-<name>-service`: the ServiceImport ResourceImport (GetResourceImportName). */
export function serviceImportName(namespace: string, name: string): string {
  return `${namespace}-${name}-service`;
}

/** `<policy>-antreaclusternetworkpolicy`: the ACNP ResourceImport of a replicated policy. */
export function acnpImportName(policy: string): string {
  return `${policy}-antreaclusternetworkpolicy`;
}

/**
 * `antrea-mc-<name>`: what a member's controller names what it imports, the Service of an exported
 * Service and the ClusterNetworkPolicy of a replicated policy (common.AntreaMCSPrefix).
 */
export function memberImportName(name: string): string {
  return `antrea-mc-${name}`;
}

/** `<id>-<ns>-<name>-service|endpoints`: a member's ResourceExport for a Service. */
export function serviceExportName(
  clusterId: string,
  namespace: string,
  name: string,
  kind: 'service' | 'endpoints',
): string {
  return `${clusterId}-${namespace}-${name}-${kind}`;
}

/** Antrea's dash-prefix pair test (HasClusterIDPrefixPair): `east` and `east-1` collide. */
export function isDashPrefixPair(a: string, b: string): boolean {
  return a !== b && (b.startsWith(`${a}-`) || a.startsWith(`${b}-`));
}

/** A DNS-1123 label: lowercase alphanumerics and '-', alphanumeric at both ends, at most 63. */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 subdomain, at most 253 characters. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A DNS-1035 label (Service names): starts with a letter. */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The data keys of the member token Secret: the two Antrea's member controller reads
 * (getSecretCACrtAndToken). Both delivery ways write exactly these, nothing else.
 */
export const TOKEN_SECRET_KEYS = ['ca.crt', 'token'] as const;

/** Default name of the External Secrets SecretStore in each member namespace. */
export const DEFAULT_EXTERNAL_SECRETS_STORE = 'antrea-mc-leader';
/** How often External Secrets re-reads the leader token Secret when the model says nothing. */
export const DEFAULT_EXTERNAL_SECRETS_REFRESH = '1h';
/** The placeholder of `externalSecrets.leaderUsername` that becomes the member ID. */
export const CLUSTER_PLACEHOLDER = '{cluster}';

/**
 * `member-<id>-token-reader`: the leader Role and RoleBinding that let one member's External Secrets
 * store `get` that member's token Secret (`member-<id>`) and nothing else. Derived from the member
 * identity name so that a reviewer sees which member it serves.
 */
export function memberTokenReaderName(clusterId: string): string {
  return `${memberIdentityName(clusterId)}-token-reader`;
}
