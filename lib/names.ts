/**
 * Object names and formats. Every name here is either taken from the model or follows a format
 * Antrea documents (antrea-mc.md cites the code); none is derived from a construct path or a hash of
 * one. Changing a function here renames live objects: treat it as a breaking change.
 */
import { createHash } from 'node:crypto';
import { version as packageVersion } from '../package.json';

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

/**
 * The repository of an image reference, without its digest and tag:
 * `registry.example.com/platform/clusterset` of `registry.example.com/platform/clusterset:0.2.0` or
 * of `…/clusterset@sha256:…` (a registry's port is kept: `127.0.0.1:5000/clusterset`).
 */
export function imageRepository(image: string): string {
  return image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
}

/**
 * The reconciler image when the model names none: `ghcr.io/clusterset/clusterset:<version>`, the
 * image `clusterset image build` builds from this package by default, tagged with the version in
 * package.json. It is read from package.json so that it follows releases: the reconciler that runs
 * is the release whose compiler wrote its config.
 */
export const DEFAULT_RECONCILER_IMAGE = `ghcr.io/clusterset/clusterset:${packageVersion}`;
/**
 * The reconciler's name: its ServiceAccount, Role, RoleBinding, Deployment and Lease (which it
 * creates itself, lib/reconciler/election.ts), and the field manager of every write it makes (Argo
 * CD ignores the fields it owns, `managedFieldsManagers`).
 */
export const RECONCILER_NAME = 'clusterset-reconciler';
/** The ConfigMap holding the reconciler's compiled config, and its key (lib/reconciler-config.ts). */
export const RECONCILER_CONFIG_NAME = 'clusterset-reconciler-config';
export const RECONCILER_CONFIG_KEY = 'config.json';
/**
 * The field manager the reconciler writes with. Argo CD's Applications ignore the fields it owns in
 * ResourceImports (`managedFieldsManagers`), so its writes never show as drift: it must use this
 * name.
 */
export const RECONCILER_FIELD_MANAGER = RECONCILER_NAME;
/**
 * The Lease the replicas elect a writer with: the reconciler may get and update this one, and create
 * a Lease (RBAC cannot name the object of a create), which the reconciler-writes admission policy
 * holds to this name.
 */
export const RECONCILER_LEASE_NAME = RECONCILER_NAME;
/** What follows the leader namespace in the name of the warm standby's ClusterRole (lib/diff finds it by this). */
export const ANTREA_LEADER_WATCHER_SUFFIX = `-${RECONCILER_NAME}-antrea-leader`;
/** Reconciler Pods when the model says nothing: one writes, the other waits on the Lease. */
export const DEFAULT_RECONCILER_REPLICAS = 2;
/** How long a member may stay silent before it is retired: Antrea's leader uses 24 h. */
export const DEFAULT_RETIRE_MEMBERS_AFTER = '24h';
/** Requests and limits of the reconciler container when the model says nothing (no CPU limit). */
export const DEFAULT_RECONCILER_RESOURCES = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { memory: '256Mi' },
} as const;

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

/**
 * `<set>-<cluster>.tiers`: the Flux Kustomization of a bundle's custom Tiers. The dot keeps it apart
 * from every `<set>-<cluster>` (cluster IDs have none).
 */
export function tiersDeliveryObjectName(clusterSetId: string, clusterId: string): string {
  return `${deliveryObjectName(clusterSetId, clusterId)}.tiers`;
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

/**
 * Default name of the ServiceAccount, token Secret and RoleBinding of one member in the leader
 * namespace; the model's `memberIdentity` names them otherwise (the plan's `identity` of each
 * member holds the names in use).
 */
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
  return `${IMPORT_PREFIX}${name}`;
}

/** The annotation Antrea's member controller puts on a ClusterNetworkPolicy it imported (common.AntreaMCACNPAnnotation). */
export const IMPORTED_ACNP_ANNOTATION = 'multicluster.antrea.io/imported-acnp';

/** Antrea's member controller Deployment (YAMLS/antrea-multicluster-member.yml), in the member namespace. */
export const MEMBER_CONTROLLER_DEPLOYMENT = 'antrea-mc-controller';

/**
 * The restart of Antrea's member controller in each member (render/member-restart.ts): its
 * ServiceAccount, Role and RoleBinding in the member namespace, and the prefix of its Job, named
 * `clusterset-restart-<10 hex digits>` after what it sets, so that each change is a new Job.
 */
export const MEMBER_RESTART_NAME = 'clusterset-restart';
export function memberRestartJobName(digest: string): string {
  return `${MEMBER_RESTART_NAME}-${digest.slice(0, 10)}`;
}
/** The command the restart Job runs (lib/cli/restart.ts). */
export const RESTART_COMMAND = 'restart-member-controller';
/** The environment variable the Job sets to its own name (the downward API). */
export const RESTART_JOB_ENV = 'CLUSTERSET_JOB';
/** The member ClusterSet annotation, rendered, that names the restart Job of the bundle. */
export const RESTART_JOB_ANNOTATION = 'clusterset/restart-job';
/** The member ClusterSet annotation where the restart records what it does (`<Job> <state>: <what>`). */
export const RESTART_RECORD_ANNOTATION = 'clusterset/restart';
/**
 * The same record's `<Job> <state>` alone, written with it: what the health checks compare whole
 * (Argo CD's Lua has no string library to take the record apart).
 */
export const RESTART_STATE_ANNOTATION = 'clusterset/restart-state';
/** The ServiceExport annotation whose change makes Antrea's member reconcile it after a restart. */
export const EXPORTED_AFTER_ANNOTATION = 'clusterset/exported-after';

/** Antrea's member controller ConfigMap (same manifest), in the member namespace. */
export const MEMBER_CONTROLLER_CONFIG = 'antrea-mc-controller-config';

/** Antrea's common.AntreaMCSPrefix. */
export const IMPORT_PREFIX = 'antrea-mc-';

/** Namespaces Kubernetes creates for itself; never an exported Service's. */
export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease'];

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
 * store `get` that member's token Secret (`member-<id>` unless `memberIdentity.tokenSecret` names
 * it) and nothing else. Derived from the cluster ID, whatever the identity is named, so that a
 * reviewer sees which member it serves.
 */
export function memberTokenReaderName(clusterId: string): string {
  return `${memberIdentityName(clusterId)}-token-reader`;
}

/** Antrea's older ResourceExport finalizer, still honoured by its leader (constants.go). */
export const LEGACY_RESOURCE_EXPORT_FINALIZER = 'resourceexport.finalizers.antrea.io';

/**
 * `memberclusterannounce.finalizer.antrea.io/<id>`: the finalizer the leader puts on each
 * MemberClusterAnnounce, so that a member's exports are cleaned up when its announce goes.
 */
export function announceFinalizer(clusterId: string): string {
  return `memberclusterannounce.finalizer.antrea.io/${clusterId}`;
}

/** The annotation a member refreshes on its announce every 10 s, RFC 3339 (commonarea). */
export const TOUCH_TS_ANNOTATION = 'touch-ts';

/** `<ns>-<name>-endpoints`: the Endpoints ResourceImport the reconciler keeps (GetResourceImportName). */
export function endpointsImportName(namespace: string, name: string): string {
  return `${namespace}-${name}-endpoints`;
}

/** `<id>-clusterinfo`: a member's ClusterInfo ResourceExport, and the ResourceImport of the same name. */
export function clusterInfoName(clusterId: string): string {
  return `${clusterId}-clusterinfo`;
}

/** `<id>-<hash16>`: a member's LabelIdentity ResourceExport; the ResourceImport is named `<hash16>`. */
export function labelIdentityExportName(clusterId: string, hash: string): string {
  return `${clusterId}-${hash}`;
}

/**
 * The 16 hex digits that name a label identity: the first 16 of SHA-1 over the normalized label
 * (HashLabelIdentity; Antrea's test vector:
 * `ns:kubernetes.io/metadata.name=us-west-1,purpose=test&pod:app=client` → `c5d961e1f6175a5a`).
 */
export function labelIdentityHash(normalizedLabel: string): string {
  return createHash('sha1').update(normalizedLabel, 'utf8').digest('hex').slice(0, 16);
}

/** `app.kubernetes.io/managed-by`: every object clusterset renders says so. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'clusterset';
/** `app.kubernetes.io/part-of`: the ClusterSet ID, on every object clusterset renders. */
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';

/** Antrea's leader Deployment and ServiceAccount in the leader namespace (antrea-mc.md §i). */
export const ANTREA_LEADER_DEPLOYMENT = 'antrea-mc-controller';
/** The ServiceAccount every process of Antrea's leader runs and writes as. */
export const ANTREA_LEADER_SERVICE_ACCOUNT = 'antrea-mc-controller';
/** The field selector of the Pods that run as Antrea's leader (Pods support this field). */
export const ANTREA_LEADER_POD_SELECTOR = `spec.serviceAccountName=${ANTREA_LEADER_SERVICE_ACCOUNT}`;

/**
 * Antrea's leader webhook configurations: cluster-scoped, named with the `antrea-multicluster-`
 * prefix of Antrea's leader manifest whatever the leader namespace (antrea-mc.md §e, §i).
 */
export const ANTREA_LEADER_WEBHOOKS = {
  mutating: 'antrea-multicluster-antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-multicluster-antrea-mc-validating-webhook-configuration',
} as const;
