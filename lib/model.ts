/**
 * The clusterset model: one typed description of a whole Antrea Multi-cluster ClusterSet.
 *
 * Everything `npm run synth` renders is a function of a `ClusterSetProps` value. The same shape is
 * described by a JSON Schema (`generated/model.schema.json`, generated from this file by
 * `npm run import`), so a model loaded from JSON or YAML, or built in plain JavaScript, is checked
 * exactly like a typed one.
 *
 * Words follow Antrea and the Kubernetes MCS API: ClusterSet, leader, member, ServiceExport,
 * ClusterSetIP, Tier, ClusterNetworkPolicy.
 *
 * @see https://github.com/antrea-io/antrea/blob/main/docs/multicluster/user-guide.md
 * @see https://github.com/kubernetes/enhancements/tree/master/keps/sig-multicluster/1645-multi-cluster-services-api
 */

/** The whole ClusterSet. */
export interface ClusterSetProps {
  /**
   * The ClusterSet ID. It becomes `metadata.name` of the ClusterSet object in every cluster, which
   * Antrea requires to be identical across the set.
   * @example 'prod-set'
   */
  readonly clusterSetId: string;

  /**
   * Namespace of the leader's multi-cluster objects (ClusterSet, ResourceExports, ResourceImports,
   * per-member ServiceAccounts).
   * @default 'antrea-multicluster' - Antrea's default leader namespace
   */
  readonly leaderNamespace?: string;

  /**
   * Namespace of the Antrea Multi-cluster member controller in every member (member ClusterSet,
   * token Secret, ClusterInfoImports).
   * @default 'kube-system' - Antrea's default member namespace
   */
  readonly memberNamespace?: string;

  /**
   * The Antrea release the clusters run, as `MAJOR.MINOR[.PATCH]`: 1.5.0 (multi-cluster) to 2.7.x.
   * Features need the release that brought them: baseline policies 1.6, stretched policies and
   * toServices 1.10; ClusterSet v1alpha2 is rendered from 1.13, legacy ClusterClaims before.
   * @default '2.7.0'
   */
  readonly antreaVersion?: string;

  /** Every cluster of the set, leader included. */
  readonly clusters: readonly ClusterProps[];

  /** ID of the cluster that leads the set. It runs the clusterset reconciler, not Antrea's leader. */
  readonly leader: string;

  /**
   * IDs of the member clusters. The leader may be listed too: it then also joins as a member and
   * gets a member identity of its own.
   */
  readonly members: readonly string[];

  /** Services exported to the ClusterSet (MCS ServiceExports). */
  readonly services?: readonly ExportedServiceProps[];

  /** Custom Antrea Tiers the policies use. Antrea's built-in Tiers need no declaration. */
  readonly tiers?: readonly TierProps[];

  /**
   * ClusterGroups the policies name. Antrea does not replicate ClusterGroups, so each one is rendered
   * into the bundle of every member that gets a policy naming it.
   */
  readonly clusterGroups?: readonly ClusterGroupProps[];

  /**
   * Policies every member gets, replicated through the leader as
   * `<name>-antreaclusternetworkpolicy` ResourceImports and imported by Antrea as
   * `antrea-mc-<name>`.
   */
  readonly baselinePolicies?: readonly BaselinePolicyProps[];

  /**
   * Policies whose peers span clusters (`scope: ClusterSet`), rendered directly into the members
   * they target.
   */
  readonly stretchedPolicies?: readonly StretchedPolicyProps[];

  /** How each member gets the leader token Secret. Values are never rendered, only references. */
  readonly secrets?: SecretReferenceProps;

  /** Admission settings of the leader. */
  readonly admission?: AdmissionProps;

  /**
   * The clusterset reconciler, which runs in the leader in place of Antrea's leader controller and
   * keeps what only exists at run time: Endpoints, ClusterInfo and LabelIdentity ResourceImports,
   * the status of ResourceExports, finalizers and member liveness. The leader bundle holds its
   * Deployment, ServiceAccount, Role and compiled config; it creates its Lease itself.
   * @default - the defaults below: 2 replicas of this clusterset release's image, members retired after 24 h
   */
  readonly reconciler?: ReconcilerProps;

  /**
   * Objects that someone else usually owns already, which clusterset renders only when told to
   * take them over. Two owners of one object fight: each Argo CD Application (or Flux
   * Kustomization) that applies it writes its own tracking label or field values, and self-heal
   * puts them back after the other one's sync, forever.
   * @default - nothing: Antrea's install keeps its ConfigMap, application teams their Namespaces
   */
  readonly takeOver?: TakeOverProps;

  /**
   * How the bundles reach the clusters: the git repository that holds `out/`, and the Argo CD
   * Applications and Flux Kustomizations that deliver each cluster's bundle from it.
   * @default - no delivery objects: `out/argocd/` and `out/flux/` are not rendered
   */
  readonly delivery?: DeliveryProps;

  /**
   * Uninstall the ClusterSet. Nothing else in the model changes: it still says what is being
   * removed.
   *
   * Set, every member bundle leaves `out/` (and the member side of a leader that is also a member),
   * with its Argo CD Application or Flux Kustomizations, so the roots prune them and, with prune on,
   * Argo CD and Flux delete what they applied in each member. Antrea's member controller, its
   * ClusterSet gone, then deletes its MemberClusterAnnounce from the leader, and the reconciler
   * deletes that member's exports.
   *
   * The leader's bundle and delivery stay as they were until every member has left: members leave
   * through their identities there, and the reconciler releases their exports, whose finalizers
   * would otherwise hold the leader namespace in Terminating.
   *
   * The pull request's "After merge" block then lists, in order, what is left to a person: wait for
   * every member's announce to go, delete the root and the leader's Application or Kustomization
   * (the leader namespace goes with everything in it), the AppProject or GitRepository, the cluster
   * registrations and the members' token Secrets. CRDs and Antrea's own Deployment stay
   * (docs/runbook.md, "Step 9: uninstall").
   * @default false
   */
  readonly uninstall?: boolean;
}

/**
 * What clusterset takes over from another owner. Taking an object over means every member bundle
 * renders it, so the delivery tool that applies the bundle owns it (it is still never pruned nor
 * deleted with the bundle). Remove the object from its other owner first (Antrea's install, the
 * application team's Application), or the two fight over it.
 *
 * The ClusterSet's own Namespaces are always clusterset's, whatever this says: the leader
 * namespace in the leader, and a custom `memberNamespace` in each member (it holds only the member
 * ClusterSet, the token Secret and Antrea's member controller; `kube-system` is never rendered).
 */
export interface TakeOverProps {
  /**
   * Render Antrea's member controller settings, ConfigMap `antrea-mc-controller-config` (key
   * `controller_manager_config.yaml`) in the member namespace, into every member bundle, and
   * restart the controller when they change (the member's restart Job sets
   * `clusterset/config-checksum` on its Pod template, under Argo CD and Flux alike).
   * Antrea's member manifest (`antrea-multicluster-member.yml`, or `antctl mc deploy
   * membercluster`) ships this ConfigMap too: drop it from that install before turning this on.
   *
   * Off, the settings clusterset derives from the model (Service and Pod CIDRs, gateway IP
   * precedence, endpoint IP type, stretched NetworkPolicy) still have to reach the controller, through
   * Antrea's install: `clusterset explain --cluster <member>` prints the exact
   * `controller_manager_config.yaml` for it, the member's restart Job carries the same text in its
   * `clusterset/expected-member-config` annotation (which restarts nothing), and the PR comment's "After merge" block lists "update Antrea's member controller
   * config" for each member whose settings change, with the restart command (the controller reads
   * the file only at start).
   * @default false
   */
  readonly memberControllerConfig?: boolean;

  /**
   * Render a Namespace for every exported Service's namespace into every member bundle (the
   * ServiceExports live there, and Antrea imports `antrea-mc-<name>` into it in every member).
   * Such a Namespace usually belongs to the application team's own Application: remove it from
   * there before turning this on.
   *
   * Off, those Namespaces must exist before a member's bundle applies: a ServiceExport in a
   * Namespace that does not exist is refused, so the sync fails until the Namespace exists, and is
   * retried (Argo CD's Applications carry a retry policy; Flux retries every interval). Antrea's
   * member controller cannot import a Service into a member that lacks its Namespace either.
   * `clusterset explain --cluster <member>` lists the Namespaces each member needs.
   * @default false
   */
  readonly serviceNamespaces?: boolean;
}

/** One Kubernetes cluster. */
export interface ClusterProps {
  /**
   * The cluster ID. It becomes the `sourceClusterID` label value and part of
   * `member-announce-from-<id>`, so: lowercase letters, digits and '-', starting and ending with a
   * letter or digit, at most 63 characters.
   * @example 'east'
   */
  readonly id: string;

  /**
   * URL of the cluster's API server, as members reach it (used for the leader) and as Argo CD
   * reaches it (used for delivery).
   * @example 'https://east.example.com:6443'
   */
  readonly apiServer: string;

  /**
   * The network the cluster lives on. Clusters on the same network can reach each other's Pod IPs;
   * clusters on different networks need Multi-cluster Gateways and ClusterIP endpoints.
   * @default - the cluster shares the single default network with every cluster that sets none
   */
  readonly network?: string;

  /** The cluster's Service CIDR (IPv4). @example '10.96.0.0/16' */
  readonly serviceCIDR: string;

  /** The cluster's Pod CIDRs (IPv4). @default - none declared; required for `PodIP` endpoints */
  readonly podCIDRs?: readonly string[];

  /**
   * Which IPs the member exports as endpoints: the Service's ClusterIP, or the Pod IPs behind it.
   * `PodIP` needs a flat network shared by all exporting and importing clusters.
   * @default 'ClusterIP'
   */
  readonly endpointIPType?: EndpointIPType;

  /** Multi-cluster Gateway settings. Required when clusters of the set sit on different networks. */
  readonly gateway?: GatewayProps;

  /**
   * Whether the cluster runs stretched (ClusterSet-scope) NetworkPolicy. Required on every member a
   * stretched policy targets.
   * @default false
   */
  readonly enableStretchedNetworkPolicy?: boolean;

  /**
   * Names of this member's identity, for a ClusterSet whose identities already exist under other
   * names: `antctl mc create membertoken NAME` names the ServiceAccount, its RoleBinding and its
   * token Secret all `NAME`; Antrea's user guide names them `member-east`, `member-east` and
   * `member-east-token`; and each member's token Secret may have a name of its own. Adopting them
   * as they are keeps every member connected through a migration; renaming one later is a rotation
   * (the pull request's "After merge" block says how). Only for members.
   * @default - `member-<id>` for all three in the leader, and `secrets.memberTokenSecretName` in the member
   * @example { serviceAccount: 'member-east', tokenSecret: 'member-east-token' }
   */
  readonly memberIdentity?: MemberIdentityProps;
}

/**
 * The names of one member's identity: in the leader namespace, the ServiceAccount the member
 * authenticates as (annotated with its cluster ID, which Antrea's leader requires from 2.7), the
 * RoleBinding that binds it to `antrea-mc-member-cluster-role` and its token Secret; in the member's
 * namespace, the Secret its member ClusterSet names. Each is a DNS-1123 subdomain, and no two
 * members share a name in the leader.
 */
export interface MemberIdentityProps {
  /**
   * The ServiceAccount in the leader namespace the member authenticates as: the member-writes
   * admission policy knows the member by its user name, `system:serviceaccount:<leaderNamespace>:<name>`.
   * @default - `member-<id>`
   */
  readonly serviceAccount?: string;

  /**
   * The RoleBinding in the leader namespace that binds the ServiceAccount to
   * `antrea-mc-member-cluster-role`.
   * @default - the `serviceAccount` name
   */
  readonly roleBinding?: string;

  /**
   * The ServiceAccount's token Secret in the leader namespace (type
   * `kubernetes.io/service-account-token`), which `clusterset token` and External Secrets copy from.
   * @default - the `serviceAccount` name
   */
  readonly tokenSecret?: string;

  /**
   * The token Secret in this member's namespace, which its member ClusterSet names
   * (`spec.leaders[0].secret`), and `clusterset token` or External Secrets writes.
   * @default - `secrets.memberTokenSecretName`
   */
  readonly memberTokenSecret?: string;
}

/** Endpoint IP type of Antrea's member controller. */
export type EndpointIPType = 'ClusterIP' | 'PodIP';

/** Multi-cluster Gateway settings of one cluster. */
export interface GatewayProps {
  /**
   * Nodes to annotate `multicluster.antrea.io/gateway: "true"`; the first ready one becomes the
   * active Gateway. Antrea creates the Gateway object itself; GitOps tools cannot.
   */
  readonly nodes: readonly GatewayNodeProps[];

  /**
   * Which Node IP becomes the gateway IP.
   * @default 'private' - the Node's InternalIP
   */
  readonly ipPrecedence?: 'private' | 'public' | 'internal' | 'external';
}

/** A Node that may serve as the cluster's Gateway. */
export interface GatewayNodeProps {
  /** Node name. */
  readonly name: string;
  /** Overrides the gateway IP (`multicluster.antrea.io/gateway-ip`). @default - chosen by precedence */
  readonly ip?: string;
}

/** A Service exported to the ClusterSet. */
export interface ExportedServiceProps {
  /** Namespace of the Service, identical in every exporting member. */
  readonly namespace: string;
  /** Name of the Service, at most 53 characters (members import it as `antrea-mc-<name>`). */
  readonly name: string;
  /**
   * The Service ports, in the order the Services declare them. The compiled ServiceImport carries
   * exactly these; an export whose ports differ is refused by the reconciler.
   */
  readonly ports: readonly ServicePortProps[];
  /** IDs of the members that export the Service. */
  readonly exportedFrom: readonly string[];
}

/** One Service port. */
export interface ServicePortProps {
  /** Port name; required when the Service has more than one port. @default - unnamed */
  readonly name?: string;
  /** Port number. */
  readonly port: number;
  /** @default 'TCP' */
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
}

/** A custom Antrea Tier. */
export interface TierProps {
  /** Tier name. */
  readonly name: string;
  /** Tier priority (lower is evaluated first), unique among Tiers. */
  readonly priority: number;
  /** @default - none */
  readonly description?: string;
}

/** A Kubernetes label selector. */
export interface LabelSelectorProps {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values?: readonly string[];
  }[];
}

/** A Namespace-scoped object by Namespace and name. */
export interface NamespacedNameProps {
  readonly namespace: string;
  readonly name: string;
}

/**
 * An IP block. Antrea never matches Pod traffic by IP inside the cluster (Pods are matched by
 * selectors), so an ipBlock is for addresses outside it.
 * @example { cidr: '10.0.0.0/8', except: ['10.96.0.0/12'] }
 */
export interface IPBlockProps {
  readonly cidr: string;
  /** CIDRs left out of `cidr`, each strictly inside it. @default - none */
  readonly except?: readonly string[];
}

/**
 * What a rule applies to, at rule level: Pods selected by labels (optionally within selected
 * Namespaces), a ClusterGroup, or the Pods of a ServiceAccount. `group` and `serviceAccount` stand
 * alone.
 */
export interface RuleAppliedToProps {
  readonly podSelector?: LabelSelectorProps;
  readonly namespaceSelector?: LabelSelectorProps;
  /**
   * A ClusterGroup declared in `clusterGroups`. Every member that gets the policy gets the
   * ClusterGroup too.
   */
  readonly group?: string;
  /** The Pods that run as this ServiceAccount. */
  readonly serviceAccount?: NamespacedNameProps;
}

/**
 * What a policy applies to: as at rule level, or Nodes by label (`nodeSelector`, which stands alone
 * and only exists at policy level in the ClusterNetworkPolicy schema).
 */
export interface AppliedToProps extends RuleAppliedToProps {
  /** Nodes by label (Node NetworkPolicy: the rules then protect the Nodes' host network). */
  readonly nodeSelector?: LabelSelectorProps;
}

/**
 * Namespaces of a peer relative to the Namespace of the Pods the rule applies to. Exactly one of
 * the two. Antrea's canonical per-Namespace isolation baseline is `{ match: 'Self' }`.
 */
export interface PeerNamespacesProps {
  /** `Self`: the Namespace of each Pod the rule applies to. */
  readonly match?: 'Self';
  /**
   * Namespaces that carry the same values as the applied-to Pod's Namespace for all these label
   * keys (a Namespace missing one of the keys matches nothing).
   * @example ['tenant']
   */
  readonly sameLabels?: readonly string[];
}

/**
 * A peer of a policy rule. `podSelector` combines with `namespaceSelector` or `namespaces`; `group`,
 * `serviceAccount`, `nodeSelector`, `ipBlock` and `fqdn` each stand alone.
 */
export interface PeerProps {
  readonly podSelector?: LabelSelectorProps;
  readonly namespaceSelector?: LabelSelectorProps;
  /** Namespaces relative to the applied-to Pods. Not combined with `namespaceSelector`. */
  readonly namespaces?: PeerNamespacesProps;
  /** An IP block. @example { cidr: '10.0.0.0/8' } */
  readonly ipBlock?: IPBlockProps;
  /**
   * A ClusterGroup declared in `clusterGroups`. Every member that gets the policy gets the
   * ClusterGroup too.
   */
  readonly group?: string;
  /** The Pods that run as this ServiceAccount. */
  readonly serviceAccount?: NamespacedNameProps;
  /** Nodes by label. */
  readonly nodeSelector?: LabelSelectorProps;
  /**
   * Egress peers only: a fully qualified domain name, or a pattern with `*` wildcards.
   * @example '*.example.com'
   */
  readonly fqdn?: string;
  /**
   * `ClusterSet` makes pod and namespace selectors match in every cluster of the set. Antrea only
   * allows it on ingress peers, and only gives it a meaning for `podSelector`,
   * `namespaceSelector` and `namespaces` peers.
   * @default 'Cluster'
   */
  readonly scope?: 'Cluster' | 'ClusterSet';
}

/** A port match of a policy rule. */
export interface PolicyPortProps {
  /** @default 'TCP' */
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
  /**
   * A port number, or the name of a container port.
   * @default - any port
   */
  readonly port?: number | string;
  /** End of a port range that starts at the numeric `port`, inclusive. @default - `port` only */
  readonly endPort?: number;
  /** Source port. @default - any source port */
  readonly sourcePort?: number;
  /** End of a source port range that starts at `sourcePort`, inclusive. @default - `sourcePort` only */
  readonly sourceEndPort?: number;
}

/** ICMP traffic, optionally of one type and code. */
export interface IcmpProps {
  /** @default - any type */
  readonly icmpType?: number;
  /** @default - any code */
  readonly icmpCode?: number;
}

/** A protocol matched by an ingress rule besides `ports`: ICMP, or IGMP queries (type 17). */
export interface IngressProtocolProps {
  readonly icmp?: IcmpProps;
  readonly igmp?: {
    /** 17: membership query. */
    readonly igmpType?: 17;
    /** Multicast group. @default - every group */
    readonly groupAddress?: string;
  };
}

/** A protocol matched by an egress rule besides `ports`: ICMP, or IGMP reports (types 18, 22, 34). */
export interface EgressProtocolProps {
  readonly icmp?: IcmpProps;
  readonly igmp?: {
    /** 18, 22, 34: IGMPv1, v2, v3 membership reports. */
    readonly igmpType?: 18 | 22 | 34;
    /** Multicast group. @default - every group */
    readonly groupAddress?: string;
  };
}

/**
 * A layer 7 protocol matched by a rule: exactly one of `http` and `tls`. Needs antrea-agent's
 * `L7NetworkPolicy` feature gate in every member that gets the policy; only `Allow` rules.
 */
export interface L7ProtocolProps {
  readonly http?: {
    /** @default - any host */
    readonly host?: string;
    /** @default - any method */
    readonly method?: 'GET' | 'POST' | 'PUT' | 'HEAD' | 'DELETE' | 'TRACE' | 'OPTIONS' | 'CONNECT' | 'PATCH';
    /** @default - any path */
    readonly path?: string;
  };
  readonly tls?: {
    /** Server name indication. @default - any */
    readonly sni?: string;
  };
}

/** Action of a policy rule. */
export type RuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

/** Fields shared by ingress and egress rules. */
export interface RuleProps {
  /** Rule name, unique within the policy. @default - unnamed */
  readonly name?: string;
  readonly action: RuleAction;
  /** @default - any port */
  readonly ports?: readonly PolicyPortProps[];
  /** Layer 7 protocols. @default - none */
  readonly l7Protocols?: readonly L7ProtocolProps[];
  /**
   * What this rule applies to, when the policy has no `appliedTo`: then every rule of the policy
   * has its own.
   * @default - the policy's appliedTo
   */
  readonly appliedTo?: readonly RuleAppliedToProps[];
  /** antrea-agent logs the traffic the rule matches. @default false */
  readonly enableLogging?: boolean;
  /** A label printed in those logs (at most 63 characters: letters, digits, '-', '_', '.'). @default - none */
  readonly logLabel?: string;
}

/** An ingress rule. */
export interface IngressRuleProps extends RuleProps {
  /** @default - any source */
  readonly from?: readonly PeerProps[];
  /** @default - only `ports` */
  readonly protocols?: readonly IngressProtocolProps[];
}

/** A Service named by an egress rule. */
export interface ServiceReferenceProps {
  readonly namespace: string;
  readonly name: string;
  /**
   * `ClusterSet`: a multi-cluster Service declared in `services`; `Cluster`: a ClusterIP Service of
   * the member the policy is in.
   * @default 'ClusterSet'
   */
  readonly scope?: 'Cluster' | 'ClusterSet';
}

/** An egress rule. */
export interface EgressRuleProps extends RuleProps {
  /** @default - any destination (unless `toServices` is set) */
  readonly to?: readonly PeerProps[];
  /** @default - only `ports` */
  readonly protocols?: readonly EgressProtocolProps[];
  /**
   * Services as destinations, rendered as `toServices`: multi-cluster Services (declared in
   * `services`, scope `ClusterSet`, the default) or Services of the member itself (scope
   * `Cluster`). Cannot be combined with `to`, `ports` or `protocols`.
   */
  readonly toServices?: readonly ServiceReferenceProps[];
}

/** Fields shared by baseline and stretched policies. */
export interface PolicyProps {
  /** Policy name; at most 53 characters, since members import it as `antrea-mc-<name>`. */
  readonly name: string;
  /**
   * The Antrea Tier: a built-in one (emergency, securityops, networkops, platform, application,
   * baseline) or one declared in `tiers`. Required for baseline policies: a replicated policy
   * whose Tier is missing in a member is dropped silently and never retried.
   */
  readonly tier?: string;
  /** Priority within the Tier, 1 to 10000 (lower first). */
  readonly priority: number;
  /**
   * What the policy applies to. Either here, or in every rule, never both.
   * @default - each rule's appliedTo
   */
  readonly appliedTo?: readonly AppliedToProps[];
  readonly ingress?: readonly IngressRuleProps[];
  readonly egress?: readonly EgressRuleProps[];
}

/**
 * An Antrea ClusterGroup that policies name in `group`. It is rendered into every member that gets a
 * policy naming it (directly or as a child group). Antrea allows at most one of `podSelector`,
 * `nodeSelector`, `ipBlocks`, `serviceReference` and `childGroups`, plus `namespaceSelector` beside
 * `podSelector` or alone.
 */
export interface ClusterGroupProps {
  /** ClusterGroup name (a DNS-1123 subdomain). */
  readonly name: string;
  readonly podSelector?: LabelSelectorProps;
  readonly namespaceSelector?: LabelSelectorProps;
  readonly nodeSelector?: LabelSelectorProps;
  readonly ipBlocks?: readonly IPBlockProps[];
  /** The endpoints of a Service of the member. */
  readonly serviceReference?: NamespacedNameProps;
  /** ClusterGroups declared in `clusterGroups` that have no children themselves. */
  readonly childGroups?: readonly string[];
}

/** A policy replicated to every member through the leader. */
export type BaselinePolicyProps = PolicyProps;

/** A policy rendered directly into the listed members. */
export interface StretchedPolicyProps extends PolicyProps {
  /**
   * IDs of the members that get the policy.
   * @default - every member
   */
  readonly members?: readonly string[];
}

/** How members get the leader's token. */
export interface SecretReferenceProps {
  /**
   * Name of the token Secret in each member's controller namespace, named by the member ClusterSet.
   * A member's `memberIdentity.memberTokenSecret` names its own instead.
   * @default 'antrea-mc-leader-token'
   */
  readonly memberTokenSecretName?: string;

  /**
   * Deliver the token Secret with External Secrets (which must run in every member): each member
   * bundle then holds a SecretStore and an ExternalSecret that copy `ca.crt` and `token` from the
   * member's own token Secret in the leader, and the leader bundle lets that member's store read
   * exactly that Secret. Without it, `clusterset token MEMBER` copies the token once per member.
   * @default - no External Secrets; bootstrap each member with `clusterset token`
   * @see https://external-secrets.io/latest/provider/kubernetes/
   */
  readonly externalSecrets?: ExternalSecretsProps;
}

/**
 * How each member's External Secrets store reads its token Secret from the leader: the Kubernetes
 * provider in a namespaced SecretStore (in the member namespace, next to the Secret it fills), so
 * that no other namespace of the member can use the leader credential.
 */
export interface ExternalSecretsProps {
  /**
   * Name of the SecretStore (and of the ExternalSecret's store reference) in each member namespace.
   * @default 'antrea-mc-leader'
   */
  readonly storeName?: string;

  /** The CA that signs the leader API server's certificate. Not secret, but set exactly one way. */
  readonly leaderCA: LeaderCAProps;

  /** How the store authenticates to the leader: by reference only, never a credential value. */
  readonly auth: ExternalSecretsAuthProps;

  /**
   * The user name the leader's authenticator gives each member's store identity; `{cluster}` is
   * replaced by the member ID. It must contain `{cluster}`: the leader grants each name `get` on
   * that member's token Secret only, so a shared name would let every member read every token.
   * A member that is the leader itself, with `serviceAccount` auth, is its own issuer and is
   * named `system:serviceaccount:<memberNamespace>:<name>` regardless.
   * @example 'oidc:{cluster}:system:serviceaccount:kube-system:antrea-mc-token-reader'
   */
  readonly leaderUsername: string;

  /**
   * How often External Secrets re-reads the leader Secret (a Go duration), so that a re-issued
   * token reaches the member.
   * @default '1h'
   */
  readonly refreshInterval?: string;
}

/**
 * The leader's CA certificate: `pem` renders it into the store (`caBundle`), so nothing has to be
 * created by hand in the members; `configMap` names a ConfigMap in each member namespace instead,
 * for CAs that rotate outside git. Exactly one of the two.
 */
export interface LeaderCAProps {
  /** PEM certificate(s) of the leader's CA. A CA certificate is public; a private key is refused. */
  readonly pem?: string;
  /** A ConfigMap in each member namespace holding the PEM. */
  readonly configMap?: ConfigMapKeyProps;
}

/** A key of a ConfigMap in the member namespace. */
export interface ConfigMapKeyProps {
  readonly name: string;
  /** @default 'ca.crt' */
  readonly key?: string;
}

/**
 * Exactly one way for a member's store to authenticate to the leader. `serviceAccount` needs no
 * bootstrap step and no long-lived credential: External Secrets requests short-lived tokens for a
 * ServiceAccount in the member namespace (rendered in the member bundle), and the leader must trust
 * the member's ServiceAccount issuer (a JWT authenticator in its AuthenticationConfiguration,
 * mapping each member to `leaderUsername`). `tokenSecret` names a Secret in the member namespace
 * holding a bearer token the leader accepts, created once at bootstrap.
 */
export interface ExternalSecretsAuthProps {
  readonly serviceAccount?: {
    /** ServiceAccount in the member namespace. */
    readonly name: string;
    /**
     * Audiences of the requested tokens, as the leader's JWT authenticator expects. A member that is
     * the leader itself presents them to its own API server, which accepts only its `--api-audiences`.
     * @default - the member API server's default audiences
     */
    readonly audiences?: readonly string[];
  };
  readonly tokenSecret?: {
    /** Secret in the member namespace. It must not be the token Secret the store fills. */
    readonly name: string;
    /** @default 'token' */
    readonly key?: string;
  };
}

/** Admission settings of the leader. */
export interface AdmissionProps {
  /**
   * Users allowed to change compiled ResourceImports: the GitOps tool that applies the leader
   * bundle. Members of the `system:masters` group always are.
   * @default ['system:serviceaccount:argocd:argocd-application-controller', 'system:serviceaccount:flux-system:kustomize-controller'] - with the namespaces of `delivery.argocd` and `delivery.flux` when set
   */
  readonly deliveryUsers?: readonly string[];
}

/** The reconciler's Deployment in the leader, and how it treats silent members. */
export interface ReconcilerProps {
  /**
   * The reconciler's container image: this package, built from the installed package by
   * `clusterset image build --tag <this reference> --push`. Every member runs it too, in the Job
   * that restarts Antrea's member controller after its Tiers change (`clusterset
   * restart-member-controller`), so members must be able to pull it. Pin it by digest where the
   * registry allows.
   * @default - `DEFAULT_RECONCILER_IMAGE` (lib/names.ts): `ghcr.io/clusterset/clusterset:<version>`, the version of the clusterset package that compiles the model, so the reconciler reads the config this compiler writes
   * @example 'registry.example.com/platform/clusterset:0.1.0'
   */
  readonly image?: string;

  /**
   * Secrets the kubelet pulls the image with (type `kubernetes.io/dockerconfigjson`), for a private
   * registry: names, rendered as the `imagePullSecrets` of the reconciler's Pods and of each
   * member's restart Job. Each must exist in the leader namespace of the leader and in the member
   * namespace of every member (`clusterset explain --cluster <id>` lists them); clusterset does not
   * render them, as it renders no credential. Order does not matter.
   * @default - none: the nodes pull the image anonymously or with their own credentials
   * @example ['registry-credentials']
   */
  readonly imagePullSecrets?: readonly string[];

  /**
   * Reconciler Pods. One writes; the others wait on the Lease `clusterset-reconciler` and take over
   * when it is not renewed. At least 1.
   * @default 2
   */
  readonly replicas?: number;

  /**
   * How long a member's MemberClusterAnnounce may go without a refresh (members refresh it every
   * 10 s) before the reconciler retires the member as Antrea's leader does: its announce and its
   * ResourceExports are deleted, so its endpoints leave every other member. A Go duration of whole
   * seconds, at least 10 s (short values are meant for tests).
   * @default '24h' - what Antrea's leader uses
   * @example '90m'
   */
  readonly retireMembersAfter?: string;

  /**
   * Compute resources of the reconciler container, as Kubernetes quantities. Each value left out
   * keeps its default. The memory limit also sets V8's heap limit (`--max-old-space-size`: the limit
   * less 64 MiB, at least half of it), so raising it raises both. The defaults leave room for what
   * bench/reconciler measured: 89 MiB resident at the peak at 3 members x 1,000 Services each
   * exported by 2, 136 MiB at 20,000 exports (10 x 1,000 by all 10), ~0.13 of a core in a burst;
   * raise the limit for ClusterSets much larger than that.
   * @default - requests cpu '100m' and memory '128Mi'; limits memory '256Mi'; no CPU limit
   * @example { requests: { memory: '128Mi' }, limits: { memory: '512Mi' } }
   */
  readonly resources?: ReconcilerResourcesProps;

  /**
   * Hold the reconciler back from leading while Antrea's own leader controller still runs in the
   * leader namespace: the warm standby of a cut-over from Antrea's leader (`clusterset import`
   * writes it true, docs/import.md). The reconciler starts, syncs its caches, serves metrics and
   * readiness (a standby replica is Ready), but takes the Lease `clusterset-reconciler` only once
   * none of these is left:
   *
   * - replicas of Deployment `antrea-mc-controller` in the leader namespace (`spec.replicas` or
   *   `status.replicas` above 0);
   * - a Pod of ServiceAccount `antrea-mc-controller` there whose process may still run: one being
   *   deleted counts until the kubelet reports its containers stopped, since `status.replicas`
   *   reads 0 at once while its process goes on writing through its grace period;
   * - either of Antrea's leader webhook configurations
   *   (`antrea-multicluster-antrea-mc-mutating-webhook-configuration`,
   *   `antrea-multicluster-antrea-mc-validating-webhook-configuration`, which fail closed without
   *   their Pod).
   *
   * It leads within seconds of the last of them going (it watches them). Should any come back while
   * it leads, it stops writing, releases the Lease, logs an error naming what came back, and leads
   * again once it is gone: two leader writers never run at once.
   *
   * Meanwhile the leader bundle's admission policies let Antrea's leader
   * (`system:serviceaccount:<leaderNamespace>:antrea-mc-controller`) write the compiled
   * ResourceImports as it does today, and the reconciler's Role and a ClusterRole
   * `<leaderNamespace>-clusterset-reconciler-antrea-leader` let it read that Deployment, those Pods
   * and the two webhook configurations. Set it false (or remove it) once the cut-over is done: the
   * exception and those rights go, and the reconciler no longer looks.
   * @default false
   */
  readonly waitForAntreaLeader?: boolean;
}

/** Requests and limits of the reconciler container. */
export interface ReconcilerResourcesProps {
  /** @default { cpu: '100m', memory: '128Mi' } */
  readonly requests?: ResourceQuantitiesProps;
  /** @default { memory: '256Mi' } - no CPU limit */
  readonly limits?: ResourceQuantitiesProps;
}

/** CPU and memory as Kubernetes quantities. */
export interface ResourceQuantitiesProps {
  /** @example '100m' */
  readonly cpu?: string;
  /** @example '128Mi' */
  readonly memory?: string;
}

/**
 * Delivery of the bundles by Argo CD and Flux, both running in one management cluster and reading
 * the git repository that holds the compiled `out/`.
 */
export interface DeliveryProps {
  /**
   * URL of the git repository that holds the compiled output, as Argo CD and Flux clone it:
   * `https://`, `http://` or `ssh://` (Flux's GitRepository accepts nothing else; write an scp-like
   * `git@host:path` as `ssh://git@host/path`).
   * @example 'https://git.example.com/platform/gitops.git'
   */
  readonly repoURL: string;

  /**
   * The branch to deliver: Argo CD's `targetRevision` and Flux's `ref.branch`.
   * @default 'main'
   */
  readonly branch?: string;

  /**
   * Where the compiled output (`synth --out`) sits in the repository, relative to its root.
   * Each cluster's bundle is then `<path>/clusters/<cluster>`.
   * @default 'out'
   */
  readonly path?: string;

  /**
   * ID of the cluster Argo CD and Flux run in (often the leader). Its bundle is delivered
   * in-cluster (`https://kubernetes.default.svc`, no kubeconfig); every other cluster is reached
   * remotely. When the leader is remote, Argo CD and Flux write to it as the identity they were
   * given for it, which `admission.deliveryUsers` must then name.
   */
  readonly managementCluster: string;

  /** Argo CD settings. @default - Argo CD Applications are rendered with the defaults below */
  readonly argocd?: ArgoCdDeliveryProps;

  /** Flux settings. @default - Flux objects are rendered with the defaults below */
  readonly flux?: FluxDeliveryProps;
}

/** Argo CD delivery: a root Application (app-of-apps) and one Application per cluster. */
export interface ArgoCdDeliveryProps {
  /** `false` renders no Argo CD objects. @default true */
  readonly enabled?: boolean;

  /** Namespace Argo CD runs in; the Applications live there. @default 'argocd' */
  readonly namespace?: string;

  /**
   * An existing Argo CD AppProject to put every Application in; none is rendered. Unset, an
   * AppProject named the ClusterSet ID is rendered next to the root Application in `out/argocd/`,
   * permitting only what the ClusterSet needs: the `repoURL` as source, the delivered clusters (and
   * the Argo CD namespace, for the root Application's children) as destinations, and exactly the
   * kinds the bundles hold. `'default'` keeps Argo CD's permissive built-in project.
   * @default - an AppProject named the ClusterSet ID is rendered and used
   */
  readonly project?: string;

  /**
   * How an Application names its remote cluster: `server`, by the cluster's `apiServer` URL, or
   * `name`, by the cluster ID, which must then be the name the cluster is registered under in
   * Argo CD (`argocd cluster add CONTEXT --name <id>`). The management cluster is always
   * `https://kubernetes.default.svc`.
   * @default 'server'
   */
  readonly destinationBy?: 'server' | 'name';

  /**
   * Automated sync deletes objects the model no longer renders. Namespaces that hold
   * applications are annotated `Prune=false` whatever this says.
   * @default true
   */
  readonly prune?: boolean;

  /** Automated sync reverts changes made in a cluster by hand. @default true */
  readonly selfHeal?: boolean;
}

/** Flux delivery: a GitRepository and one Kustomization per cluster. */
export interface FluxDeliveryProps {
  /** `false` renders no Flux objects. @default true */
  readonly enabled?: boolean;

  /** Namespace Flux runs in; the GitRepository and Kustomizations live there. @default 'flux-system' */
  readonly namespace?: string;

  /**
   * How often Flux fetches the repository and reconciles each Kustomization, as a Go duration.
   * @default '5m'
   */
  readonly interval?: string;

  /**
   * Name of the Secret in the Flux namespace holding the git credentials, when the repository is
   * private. Only the reference is rendered.
   * @default - none: the repository is read anonymously
   */
  readonly gitSecretName?: string;

  /**
   * Per remote cluster ID, the name of the Secret in the Flux namespace holding a kubeconfig for
   * that cluster (created by hand or by a secret manager; never rendered).
   * @default - `<cluster>-kubeconfig` for every cluster but the management cluster
   */
  readonly kubeConfigSecrets?: Readonly<Record<string, string>>;

  /** Key of the kubeconfig in those Secrets. @default 'value' - Flux's own default key */
  readonly kubeConfigKey?: string;

  /**
   * Delete objects the model no longer renders. Namespaces that hold applications are annotated
   * `kustomize.toolkit.fluxcd.io/prune: disabled` whatever this says.
   * @default true
   */
  readonly prune?: boolean;
}
