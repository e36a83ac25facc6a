/**
 * What Antrea v2.7's multi-cluster manifests hold (YAMLS/antrea-multicluster-leader.yml and
 * antrea-multicluster-member.yml; antrea-mc.md §e), as the parties that lay them down share them:
 * the controller's configuration file (MultiClusterConfig) and ConfigMap, its Deployment
 * `antrea-mc-controller` (leader or member), the rest of the leader's install, and the webhook
 * configurations of either role. A member's install with `kubectl apply` (antrea-member/install.ts)
 * and `antctl mc deploy` (antctl.ts) apply them; the import unit tests' snapshots hold the same
 * configuration text.
 */
import { MEMBER_CONFIG_KEY } from '../../lib/antrea-member-config';
import { MEMBER_CONTROLLER_CONFIG, MEMBER_ROLE } from '../../lib/names';

type Obj = Record<string, unknown>;

export const LEADER_WEBHOOKS = {
  mutating: 'antrea-multicluster-antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-multicluster-antrea-mc-validating-webhook-configuration',
};
export const MEMBER_WEBHOOKS = {
  mutating: 'antrea-mc-mutating-webhook-configuration',
  validating: 'antrea-mc-validating-webhook-configuration',
};
/**
 * CRDs that Antrea's member manifest installs and member bundles use (vendored files in crds/).
 * The tests install them in member control planes the way an Antrea installation would.
 */
export const ANTREA_MEMBER_CRDS: readonly string[] = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.x-k8s.io_serviceexports.yaml',
  'multicluster.x-k8s.io_serviceimports.yaml',
  'multicluster.crd.antrea.io_clusterinfoimports.yaml',
  'multicluster.crd.antrea.io_labelidentities.yaml',
  'multicluster.crd.antrea.io_gateways.yaml',
  'multicluster.crd.antrea.io_clusterclaims.yaml',
  'crd.antrea.io_tiers.yaml',
  'crd.antrea.io_clusternetworkpolicies.yaml',
  'crd.antrea.io_clustergroups.yaml',
];
/** The CRDs of Antrea's leader manifest (vendored in crds/). */
export const LEADER_CRDS = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.crd.antrea.io_memberclusterannounces.yaml',
  'multicluster.crd.antrea.io_resourceexports.yaml',
  'multicluster.crd.antrea.io_resourceimports.yaml',
];
const MC = 'multicluster.crd.antrea.io';
const ANTREA = { app: 'antrea' };

/**
 * The controller's MultiClusterConfig: a member's holds its Service CIDR (empty in Antrea's
 * defaults), Pod CIDRs and gateway settings, a leader's none of them; both say whether stretched
 * policy is on (which decides label identities, §d, §i).
 */
export function multiClusterConfig(o: {
  readonly stretched: boolean;
  readonly serviceCIDR?: string;
}): string {
  return [
    'apiVersion: multicluster.crd.antrea.io/v1alpha1',
    'kind: MultiClusterConfig',
    'health:',
    '  healthProbeBindAddress: :8080',
    'metrics:',
    '  bindAddress: "0"',
    'webhook:',
    '  port: 9443',
    'leaderElection:',
    '  leaderElect: false',
    ...(o.serviceCIDR === undefined
      ? []
      : [
          `serviceCIDR: "${o.serviceCIDR}"`,
          'podCIDRs:',
          '  - ""',
          'gatewayIPPrecedence: "private"',
          'endpointIPType: "ClusterIP"',
        ]),
    `enableStretchedNetworkPolicy: ${o.stretched}`,
    '',
  ].join('\n');
}

/**
 * The member controller ConfigMap as Antrea's member manifest ships it, with Antrea's default settings
 * (antrea-mc.md §e Member; no CIDRs). The team then makes it hold what `clusterset explain --cluster
 * <member>` prints (docs/what-lands-where.md, "Objects the team already owns"); no Antrea reads it
 * here.
 */
export const ANTREA_DEFAULT_MEMBER_CONFIG = multiClusterConfig({ stretched: false, serviceCIDR: '' });

export function antreaMemberConfigMap(
  namespace: string,
  config = ANTREA_DEFAULT_MEMBER_CONFIG,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: MEMBER_CONTROLLER_CONFIG, namespace, labels: { app: 'antrea' } },
    data: { [MEMBER_CONFIG_KEY]: config },
  };
}

/**
 * Deployment `antrea-mc-controller` of either manifest: one replica, labels `app: antrea` and
 * `control-plane: antrea-mc-controller`, the config file mounted from ConfigMap
 * `antrea-mc-controller-config`, the command `/antrea-mc-controller <role>`; the leader's with a
 * grace period of 10 s.
 */
export function antreaControllerDeployment(namespace: string, role: 'leader' | 'member'): Obj {
  const labels = { app: 'antrea', 'control-plane': 'antrea-mc-controller' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'antrea-mc-controller', namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: 'antrea-mc-controller',
          ...(role === 'leader' ? { terminationGracePeriodSeconds: 10 } : {}),
          containers: [
            {
              name: 'antrea-mc-controller',
              image: 'antrea/antrea-mc-controller:v2.7.0',
              command: ['/antrea-mc-controller', role],
              args: ['--config=/controller_manager_config.yaml'],
              volumeMounts: [
                {
                  name: 'antrea-mc-controller-config',
                  mountPath: '/controller_manager_config.yaml',
                  subPath: 'controller_manager_config.yaml',
                },
              ],
            },
          ],
          volumes: [
            { name: 'antrea-mc-controller-config', configMap: { name: 'antrea-mc-controller-config' } },
          ],
        },
      },
    },
  };
}

/** What Antrea's leader manifest installs (YAMLS/antrea-multicluster-leader.yml) but its CRDs, in order. */
export function leaderInstall(ns: string): Obj[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const mcResources = ['clustersets', 'memberclusterannounces', 'resourceexports', 'resourceimports'];
  const all = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: ANTREA } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'antrea-mc-controller', namespace: ns, labels: ANTREA },
    },
    {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: 'antrea-mc-controller-role', namespace: ns, labels: ANTREA },
      rules: [
        { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'list'] },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [MC], resources: ['clusterclaims'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [MC], resources: mcResources, verbs: all },
        { apiGroups: [MC], resources: mcResources.map((r) => `${r}/finalizers`), verbs: ['update'] },
        {
          apiGroups: [MC],
          resources: mcResources.map((r) => `${r}/status`),
          verbs: ['get', 'patch', 'update'],
        },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'RoleBinding',
      metadata: { name: 'antrea-mc-controller-rolebinding', namespace: ns, labels: ANTREA },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-controller-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-mc-controller', namespace: ns }],
    },
    {
      apiVersion: rbac,
      kind: 'Role',
      metadata: { name: MEMBER_ROLE, namespace: ns, labels: ANTREA },
      rules: [
        { apiGroups: [''], resources: ['events'], verbs: ['create'] },
        { apiGroups: [MC], resources: ['memberclusterannounces'], verbs: all },
        { apiGroups: [MC], resources: ['memberclusterannounces/status'], verbs: ['get'] },
        { apiGroups: [MC], resources: ['resourceexports'], verbs: all },
        { apiGroups: [MC], resources: ['resourceexports/status'], verbs: ['get', 'patch', 'update'] },
        { apiGroups: [MC], resources: ['resourceimports'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [MC], resources: ['resourceimports/status'], verbs: ['get', 'patch', 'update'] },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'ClusterRole',
      metadata: { name: 'antrea-multicluster-antrea-mc-controller-webhook-role', labels: ANTREA },
      rules: [
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
          verbs: ['list', 'update'],
        },
      ],
    },
    {
      apiVersion: rbac,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'antrea-multicluster-antrea-mc-controller-webhook-rolebinding', labels: ANTREA },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'antrea-multicluster-antrea-mc-controller-webhook-role',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-mc-controller', namespace: ns }],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'antrea-mc-controller-config', namespace: ns, labels: ANTREA },
      // The leader side: stretched policy decides label identities (§i).
      data: { 'controller_manager_config.yaml': multiClusterConfig({ stretched: true }) },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'antrea-mc-webhook-service', namespace: ns, labels: ANTREA },
      spec: {
        ports: [{ port: 443, protocol: 'TCP', targetPort: 9443 }],
        selector: { app: 'antrea', 'control-plane': 'antrea-mc-controller' },
      },
    },
    antreaControllerDeployment(ns, 'leader'),
  ];
}

function webhook(
  name: string,
  ns: string,
  path: string,
  apiVersion: 'v1alpha1' | 'v1alpha2',
  resource: string,
  operations: string[],
  caBundle: string,
  nsSelector: string,
): Obj {
  return {
    name,
    admissionReviewVersions: ['v1', 'v1beta1'],
    clientConfig: {
      caBundle: Buffer.from(caBundle).toString('base64'),
      service: { name: 'antrea-mc-webhook-service', namespace: ns, path },
    },
    failurePolicy: 'Fail',
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': nsSelector } },
    rules: [{ apiGroups: [MC], apiVersions: [apiVersion], operations, resources: [resource] }],
    sideEffects: 'None',
  };
}

/** `vclusterset.kb.io`, which both the leader and the members register (§g). */
function clusterSetWebhook(ns: string, ca: string): Obj {
  return webhook(
    'vclusterset.kb.io',
    ns,
    '/validate-multicluster-crd-antrea-io-v1alpha2-clusterset',
    'v1alpha2',
    'clustersets',
    ['CREATE', 'UPDATE', 'DELETE'],
    ca,
    ns,
  );
}

/** The leader's two webhook configurations (§e, §i): labels, names, failurePolicy Fail. */
export function leaderWebhooks(ns: string, ca: string): Obj[] {
  const labels = { app: 'antrea', role: 'leader', 'served-by': 'antrea-mc-controller', 'served-in': ns };
  const cud = ['CREATE', 'UPDATE', 'DELETE'];
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: LEADER_WEBHOOKS.mutating, labels },
      webhooks: [
        webhook(
          'mresourceexport.kb.io',
          ns,
          '/mutate-multicluster-crd-antrea-io-v1alpha1-resourceexport',
          'v1alpha1',
          'resourceexports',
          ['CREATE', 'UPDATE'],
          ca,
          ns,
        ),
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: LEADER_WEBHOOKS.validating, labels },
      webhooks: [
        clusterSetWebhook(ns, ca),
        webhook(
          'vmemberclusterannounce.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha1-memberclusterannounce',
          'v1alpha1',
          'memberclusterannounces',
          cud,
          ca,
          ns,
        ),
        webhook(
          'vresourceexport.kb.io',
          ns,
          '/validate-multicluster-crd-antrea-io-v1alpha1-resourceexport',
          'v1alpha1',
          'resourceexports',
          cud,
          ca,
          ns,
        ),
      ],
    },
  ];
}

/** A member's webhook configurations (§e Member): they carry `role: member` and must stay. */
export function memberWebhooks(ns: string, ca: string): Obj[] {
  const labels = { app: 'antrea', role: 'member', 'served-by': 'antrea-mc-controller' };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: MEMBER_WEBHOOKS.mutating, labels },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: MEMBER_WEBHOOKS.validating, labels },
      webhooks: [
        clusterSetWebhook(ns, ca),
        {
          ...webhook(
            'vgateway.kb.io',
            ns,
            '/validate-multicluster-crd-antrea-io-v1alpha1-gateway',
            'v1alpha1',
            'gateways',
            ['CREATE', 'UPDATE'],
            ca,
            ns,
          ),
          namespaceSelector: {},
        },
      ],
    },
  ];
}
