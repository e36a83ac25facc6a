/**
 * The leader's reconciler: everything it needs to run in-cluster, with exactly the rights it uses.
 *
 * - ServiceAccount and RoleBinding `clusterset-reconciler`, bound to a Role of that name with exactly
 *   the verbs the reconciler uses (ROLE_RULES below);
 * - ConfigMap `clusterset-reconciler-config`: its compiled config (`reconcilerConfig`, the contract
 *   in lib/reconciler-config.ts), mounted into its Pods;
 * - no Lease: the reconciler creates its Lease `clusterset-reconciler` itself (leader election among
 *   its replicas, lib/reconciler/election.ts). Argo CD 3 never applies a Lease (it is in Argo CD's
 *   hard-coded resource exclusions, beside Events), so a rendered one never existed there;
 * - Deployment `clusterset-reconciler`: the Pods, whose template carries a checksum of the config so
 *   that a config change rolls them;
 * - with two replicas or more, a PodDisruptionBudget `clusterset-reconciler` and a soft
 *   anti-affinity, so that a node drain or loss takes one replica at a time and the other, waiting
 *   on the Lease, takes over;
 * - with `waitForAntreaLeader` only (the warm standby beside Antrea's leader), Role rules to get,
 *   list and watch Deployment `antrea-mc-controller` by name and the Pods of the leader namespace
 *   (the reconciler lists and watches only those of ServiceAccount `antrea-mc-controller`, by field
 *   selector: a Pod's name is not known beforehand, and RBAC cannot restrict by field), and
 *   ClusterRole and ClusterRoleBinding `<leaderNamespace>-clusterset-reconciler-antrea-leader` to
 *   get, list and watch Antrea's two leader webhook configurations by name (ANTREA_LEADER_RULES).
 *   RBAC lets a list or watch through `resourceNames` only with the field selector
 *   `metadata.name=<that name>`, which is how the reconciler lists and watches them.
 *
 * It writes only dynamic ResourceImports (endpoints, cluster info, label identities); the
 * compiled-imports admission policy keeps it off the compiled ones and the reconciler-writes policy
 * (lib/render/admission.ts) holds its other writes to their purpose.
 */
import { createHash } from 'node:crypto';
import { k8s } from 'cdk8s-plus-33';
import type { Plan, PlannedQuantities } from '../plan';
import { memoryBytes } from '../quantity';
import type { ReconcilerConfig } from '../reconciler-config';
import { meta, put, type Sink } from './util';

import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_WATCHER_SUFFIX,
  ANTREA_LEADER_WEBHOOKS,
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  RECONCILER_LEASE_NAME,
  RECONCILER_NAME,
} from '../names';

/** Where the config ConfigMap is mounted in the reconciler's container. */
export const RECONCILER_CONFIG_DIR = '/etc/clusterset';
export const RECONCILER_CONFIG_PATH = `${RECONCILER_CONFIG_DIR}/${RECONCILER_CONFIG_KEY}`;
/** Port of `/healthz`, `/readyz` and `/metrics`. */
export const RECONCILER_PORT = 8080;
/** The env var that gives the reconciler its Pod name, its identity in the Lease. */
export const RECONCILER_POD_NAME_ENV = 'POD_NAME';
/** Memory a container needs beside V8's old generation: code, young generation, buffers, native. */
export const RECONCILER_NON_HEAP_MIB = 64;

/**
 * V8 settings of the reconciler's Node (`NODE_OPTIONS`), from the container's memory limit:
 *
 * - a 2 MiB young generation instead of 16 MiB;
 * - an old generation of at most the limit less RECONCILER_NON_HEAP_MIB (half the limit when that
 *   is more), so that V8 collects hard before the kernel would kill the container, and a V8 out of
 *   memory comes only where the limit would have come anyway: raising the limit raises both. Node
 *   sizes its heap from the host, or from a cgroup limit it sees, far past what the limit leaves.
 *
 * Measured with bench/reconciler (peak RSS): at 3 members x 1,000 Services each exported by 2,
 * 89 MiB with an old generation of 64 MiB and of 192 MiB alike (107 MiB with Node's own sizing); at
 * 10 members x 1,000 Services each exported by all 10 (20,000 exports), 120 MiB with 64 and 136
 * MiB with 192, the heap holding ~46 MiB of live data. A fixed 64 MiB would run out at ~25,000
 * exports whatever the limit; tied to the limit, the default (256Mi: 192 MiB) holds ~3x that.
 * Without a memory limit, V8 sizes the heap itself.
 */
export function reconcilerNodeOptions(memoryLimit: string | undefined): string {
  const young = '--max-semi-space-size=2';
  if (memoryLimit === undefined) return young;
  const limitMiB = Math.floor(memoryBytes(memoryLimit) / 2 ** 20);
  const old = Math.max(Math.floor(limitMiB / 2), limitMiB - RECONCILER_NON_HEAP_MIB);
  return `${young} --max-old-space-size=${old}`;
}
/** The Pod template annotation that holds the SHA-256 of the config text. */
export const CONFIG_CHECKSUM_ANNOTATION = 'checksum/config';
/** The user and group the reconciler runs as (the image's `USER`; distroless's nonroot). */
export const RECONCILER_UID = 65532;

/** The Pod security context of the image's Pods (the reconciler, a member's restart Job). */
export const POD_SECURITY_CONTEXT: k8s.PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: RECONCILER_UID,
  runAsGroup: RECONCILER_UID,
  seccompProfile: { type: 'RuntimeDefault' },
};
/** Their container's: a read-only root, no privilege, no capability. */
export const CONTAINER_SECURITY_CONTEXT: k8s.SecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  privileged: false,
  capabilities: { drop: ['ALL'] },
};

const MC = 'multicluster.crd.antrea.io';
const SELECTOR = { 'app.kubernetes.io/name': RECONCILER_NAME };
/** The node label the replicas prefer to be spread over. */
export const RECONCILER_SPREAD_TOPOLOGY_KEY = 'kubernetes.io/hostname';

/**
 * Spread the replicas over nodes where the scheduler can, never where it cannot: a required rule
 * would leave a replica Pending on a one-node leader, and, with more replicas than nodes, during
 * every rolling update (the surge Pod needs a node of its own). Only one replica writes at a time
 * (the Lease), so two on one node is a loss of redundancy, not of function.
 */
function antiAffinity(): k8s.Affinity {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchLabels: SELECTOR },
            topologyKey: RECONCILER_SPREAD_TOPOLOGY_KEY,
          },
        },
      ],
    },
  };
}

/**
 * The Role's rules: exactly what the reconciler does, nothing more. It never creates exports or
 * announces, never uses `update` but on its Lease, reads its config from the mounted file (no
 * ConfigMap access) and posts no Events. It creates its Lease when there is none: RBAC cannot
 * restrict a create by name, so the reconciler-writes admission policy (admission.ts) does.
 */
export const ROLE_RULES: readonly {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}[] = [
  // patch: remove its finalizer once the export is cleaned up; delete: retire a silent member's exports.
  { apiGroups: [MC], resources: ['resourceexports'], verbs: ['get', 'list', 'watch', 'patch', 'delete'] },
  // Succeeded, or Failure with the reason.
  { apiGroups: [MC], resources: ['resourceexports/status'], verbs: ['patch'] },
  // patch: add or remove memberclusterannounce.finalizer.antrea.io/<id>; delete: retire a silent member.
  {
    apiGroups: [MC],
    resources: ['memberclusterannounces'],
    verbs: ['get', 'list', 'watch', 'patch', 'delete'],
  },
  // The dynamic imports: Endpoints, ClusterInfo, LabelIdentity.
  {
    apiGroups: [MC],
    resources: ['resourceimports'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  // The compiled ServiceImport imports' status: which clusters' exports take part
  // (reconciler/desired/service.ts).
  { apiGroups: [MC], resources: ['resourceimports/status'], verbs: ['patch'] },
  { apiGroups: [MC], resources: ['clustersets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [MC], resources: ['clustersets/status'], verbs: ['patch'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: [RECONCILER_LEASE_NAME],
    verbs: ['get', 'update'],
  },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
];

/**
 * The rights the warm standby adds (waitForAntreaLeader), all read-only: Antrea's leader Deployment
 * by name and the Pods in the leader namespace (Role rules), and its two leader webhook
 * configurations by name (cluster-scoped, a ClusterRole).
 */
export const ANTREA_LEADER_RULES = {
  role: [
    {
      apiGroups: ['apps'],
      resources: ['deployments'],
      resourceNames: [ANTREA_LEADER_DEPLOYMENT],
      verbs: ['get', 'list', 'watch'],
    },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  ],
  clusterRole: [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      resourceNames: [ANTREA_LEADER_WEBHOOKS.mutating],
      verbs: ['get', 'list', 'watch'],
    },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: [ANTREA_LEADER_WEBHOOKS.validating],
      verbs: ['get', 'list', 'watch'],
    },
  ],
} as const;

/** The ClusterRole (and its binding) of the warm standby: cluster-scoped, so named by the namespace. */
export function antreaLeaderWatcherName(plan: Plan): string {
  return `${plan.leaderNamespace}${ANTREA_LEADER_WATCHER_SUFFIX}`;
}

/** The Role's rules for this plan: ROLE_RULES, and the standby's read of Antrea's leader Deployment and Pods. */
export function roleRules(plan: Plan): typeof ROLE_RULES {
  const rules = ROLE_RULES.map((rule) => ({ ...rule }));
  if (plan.reconciler.waitForAntreaLeader)
    for (const r of ANTREA_LEADER_RULES.role)
      rules.push({
        apiGroups: [...r.apiGroups],
        resources: [...r.resources],
        ...('resourceNames' in r ? { resourceNames: [...r.resourceNames] } : {}),
        verbs: [...r.verbs],
      });
  return rules;
}

/** What the reconciler needs to know of the model, in canonical order. */
export function reconcilerConfig(plan: Plan): ReconcilerConfig {
  return {
    clusterSetId: plan.clusterSetId,
    leaderNamespace: plan.leaderNamespace,
    leader: plan.leader.id,
    members: plan.members.map((m) => ({
      id: m.id,
      network: m.network ?? null,
      endpointIPType: m.endpointIPType,
    })),
    services: plan.services.map((s) => ({
      namespace: s.namespace,
      name: s.name,
      ports: s.ports.map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol })),
      exportedFrom: s.exportedFrom,
    })),
    retireMembersAfterSeconds: plan.reconciler.retireMembersAfterSeconds,
    ...(plan.reconciler.waitForAntreaLeader ? { waitForAntreaLeader: true } : {}),
  };
}

/** The text of `config.json` in the ConfigMap, as the reconciler reads it. */
export function reconcilerConfigText(plan: Plan): string {
  return JSON.stringify(reconcilerConfig(plan), null, 2) + '\n';
}

/** SHA-256 (hex) of the config text: the Pod template annotation that rolls the Pods on a change. */
export function configChecksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The reconciler's command line: the leader namespace, the mounted config, health and metrics. */
export function reconcilerArgs(plan: Plan): string[] {
  return [
    'reconcile',
    '--namespace',
    plan.leaderNamespace,
    '--config',
    RECONCILER_CONFIG_PATH,
    '--listen',
    `0.0.0.0:${RECONCILER_PORT}`,
  ];
}

/**
 * The Pod spec's `imagePullSecrets` for the image's Pods (the reconciler, a member's restart Job):
 * the model's `reconciler.imagePullSecrets`, sorted; nothing at all when it names none, so that a
 * model without them renders what it rendered before the field existed.
 */
export function imagePullSecrets(plan: Plan): { imagePullSecrets?: k8s.LocalObjectReference[] } {
  const names = plan.reconciler.imagePullSecrets;
  return names.length === 0 ? {} : { imagePullSecrets: names.map((name) => ({ name })) };
}

function quantities(q: PlannedQuantities): { [key: string]: k8s.Quantity } {
  return Object.fromEntries(
    Object.entries(q).flatMap(([k, v]) => (v === undefined ? [] : [[k, k8s.Quantity.fromString(v)]])),
  );
}

function renderDeployment(scope: Sink, plan: Plan, configText: string): void {
  const ns = plan.leaderNamespace;
  const r = plan.reconciler;
  const httpGet = (path: string) => ({ path, port: k8s.IntOrString.fromNumber(RECONCILER_PORT) });
  put(scope, k8s.KubeDeployment, {
    metadata: meta(RECONCILER_NAME, ns, { labels: SELECTOR }),
    spec: {
      replicas: r.replicas,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: {
          labels: SELECTOR,
          annotations: { [CONFIG_CHECKSUM_ANNOTATION]: configChecksum(configText) },
        },
        spec: {
          serviceAccountName: RECONCILER_NAME,
          automountServiceAccountToken: true,
          ...(r.replicas >= 2 ? { affinity: antiAffinity() } : {}),
          ...imagePullSecrets(plan),
          securityContext: POD_SECURITY_CONTEXT,
          containers: [
            {
              name: 'reconciler',
              image: r.image,
              args: reconcilerArgs(plan),
              env: [
                { name: RECONCILER_POD_NAME_ENV, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'NODE_OPTIONS', value: reconcilerNodeOptions(r.resources.limits.memory) },
              ],
              ports: [{ name: 'http-metrics', containerPort: RECONCILER_PORT, protocol: 'TCP' }],
              livenessProbe: { httpGet: httpGet('/healthz'), periodSeconds: 10, failureThreshold: 3 },
              readinessProbe: { httpGet: httpGet('/readyz'), periodSeconds: 5 },
              resources: {
                requests: quantities(r.resources.requests),
                limits: quantities(r.resources.limits),
              },
              securityContext: CONTAINER_SECURITY_CONTEXT,
              volumeMounts: [
                { name: 'config', mountPath: RECONCILER_CONFIG_DIR, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: RECONCILER_CONFIG_NAME } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  });
}

export function renderReconciler(scope: Sink, plan: Plan): void {
  const ns = plan.leaderNamespace;
  const configText = reconcilerConfigText(plan);
  put(scope, k8s.KubeServiceAccount, {
    metadata: meta(RECONCILER_NAME, ns),
  });
  put(scope, k8s.KubeRole, {
    metadata: meta(RECONCILER_NAME, ns),
    rules: roleRules(plan).map((rule) => ({ ...rule })),
  });
  put(scope, k8s.KubeRoleBinding, {
    metadata: meta(RECONCILER_NAME, ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECONCILER_NAME },
    subjects: [{ kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: ns }],
  });
  put(scope, k8s.KubeConfigMap, {
    metadata: meta(RECONCILER_CONFIG_NAME, ns),
    data: { [RECONCILER_CONFIG_KEY]: configText },
  });
  renderDeployment(scope, plan, configText);
  if (plan.reconciler.replicas >= 2) renderDisruptionBudget(scope, plan);
  if (plan.reconciler.waitForAntreaLeader) renderAntreaLeaderWatcher(scope, plan);
}

/** The standby's read of Antrea's leader webhook configurations, by name (ANTREA_LEADER_RULES). */
function renderAntreaLeaderWatcher(scope: Sink, plan: Plan): void {
  const name = antreaLeaderWatcherName(plan);
  put(scope, k8s.KubeClusterRole, {
    metadata: meta(name),
    rules: ANTREA_LEADER_RULES.clusterRole.map((r) => ({
      apiGroups: [...r.apiGroups],
      resources: [...r.resources],
      resourceNames: [...r.resourceNames],
      verbs: [...r.verbs],
    })),
  });
  put(scope, k8s.KubeClusterRoleBinding, {
    metadata: meta(name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: plan.leaderNamespace }],
  });
}

/**
 * One replica down at a time for voluntary disruptions (drains, evictions): the others keep the
 * Lease or take it over. A replica that is not Ready (crash-looping, say) may always be evicted
 * (`unhealthyPodEvictionPolicy: AlwaysAllow`, GA in Kubernetes 1.31, beta and on since 1.27), so a
 * broken reconciler never blocks a node drain. With one replica there is no budget: it would either
 * allow everything or block every drain.
 */
function renderDisruptionBudget(scope: Sink, plan: Plan): void {
  put(scope, k8s.KubePodDisruptionBudget, {
    metadata: meta(RECONCILER_NAME, plan.leaderNamespace, { labels: SELECTOR }),
    spec: {
      maxUnavailable: k8s.IntOrString.fromNumber(1),
      selector: { matchLabels: SELECTOR },
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  });
}
