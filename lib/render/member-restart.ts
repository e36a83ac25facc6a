/**
 * A restart of Antrea's member controller whenever what it only reads at start changes: its Tiers
 * and, when clusterset renders them, its settings.
 *
 * Antrea's member controller drops a replicated ACNP (a compiled `<policy>-antreaclusternetworkpolicy`
 * ResourceImport) whose Tier does not exist in the member yet, posts a Warning Event, and never
 * retries until the import's spec changes or the controller restarts (antrea-mc.md §c.3 "ACNP RI");
 * on start it reconciles every import again. Neither Argo CD (no order between Applications) nor
 * Flux (members depend on the leader) can deliver a member's Tiers before the leader's import, so a
 * day-2 change that adds a Tier and a baseline policy in it can reach a member through the import
 * first. So each member bundle carries a Job that, once the Tiers are applied, sets the SHA-256 of
 * the member's Tiers (and of its settings) as Pod template annotations on Antrea's Deployment
 * `<member namespace>/antrea-mc-controller` (`clusterset restart-member-controller`,
 * lib/reconciler/restart.ts): a change rolls out a new ReplicaSet, and the new controller re-reads
 * every import, after the Tiers exist. Values it already holds restart nothing.
 *
 * - The Job, `clusterset-restart-<digest>`, is named after what it runs (the image, the
 *   annotations, its Pod template's version): a change is a new Job (a Job's template cannot
 *   change), the old one is pruned, and an unchanged bundle keeps the finished Job (no TTL: a
 *   deleted Job would be applied again, and run again). It runs the reconciler's image (the model's
 *   `reconciler.image`), which every member must therefore be able to pull, with the model's
 *   `reconciler.imagePullSecrets`, which must then exist in the member namespace.
 * - After the restart it waits for the restarted controller to connect to the leader and has it
 *   reconcile every ServiceExport (`--cluster-set`, lib/reconciler/restart.ts): Antrea's member drops
 *   the ServiceExport reconciles that come before its connection and so, after every start, would
 *   never withdraw a ServiceExport deleted later (antrea-mc.md §i).
 * - A restart that cannot run never holds the member's delivery back, and runs again by itself
 *   once the cause is gone: no deadline, the Pod restarted by the kubelet with its back-off on every
 *   non-zero exit (`restartPolicy: OnFailure`, and a back-off limit no cause reaches), an image
 *   that cannot be pulled tried again by the kubelet until it can. The cause it can name (Antrea's
 *   member controller not installed, a write refused) it records on the member's ClusterSet, whose
 *   health check turns Degraded with it (health.ts); the ClusterSet names the Job it expects
 *   (`clusterset/restart-job`), so that an older Job's record never counts. `clusterset status`
 *   also names what the Job's Pod waits for (an image that cannot be pulled, say).
 * - Its ServiceAccount `clusterset-restart` may, by a Role and RoleBinding of that name, get and
 *   patch that Deployment and the member's ClusterSet alone, and, by a Role and RoleBinding
 *   `clusterset-restart` in each namespace where the member exports a Service, list and patch
 *   ServiceExports there: the ServiceExports the model declares, the only ones the reconciler
 *   accepts. No cluster-wide right: the Argo CD project needs no ClusterRole for it.
 * - Argo CD: sync wave 0, after the Tiers (wave -1), the last wave, where Argo CD does not wait for
 *   health (and the Applications prune in their waves, not last: argocd.ts); the settings
 *   ConfigMap, when rendered, is in the same wave and comes before a Job in Argo CD's kind order.
 *   Flux: in the Kustomization that depends on the Tiers' one (flux.ts), which applies and prunes
 *   everything before it `wait`s for the Job.
 *
 * Earlier releases applied a partial Deployment instead, which neither tool can do to a Deployment
 * another tool installed: Argo CD 3's client-side-apply migration refuses it, and its server-side
 * apply through kubectl's code takes every field of a `kubectl apply` install over; Flux normalizes
 * it into an invalid object. The patch the Job makes sets only those annotations, and owns nothing
 * else.
 *
 * The settings checksum is there only when clusterset renders the settings
 * (`takeOver.memberControllerConfig`): the controller reads its ConfigMap only at start, and the
 * same sync that changes the ConfigMap then restarts it. When Antrea's install owns the ConfigMap,
 * a restart on our schedule would not follow its change: it could come before the new ConfigMap
 * arrives (the old settings read again) and nothing would restart after it. So only the Tiers roll
 * the controller, and the settings clusterset expects ride along in the Job's metadata
 * (`clusterset/expected-member-config`, which a Job may change in place): there the PR comment sees
 * them change and lists the manual update and restart, and `kubectl get` shows what the ConfigMap
 * should hold.
 */
import { createHash } from 'node:crypto';
import { k8s } from 'cdk8s-plus-33';
import type { TierProps } from '../model';
import {
  MEMBER_CONTROLLER_DEPLOYMENT,
  MEMBER_RESTART_NAME,
  memberRestartJobName,
  RESTART_COMMAND,
  RESTART_JOB_ENV,
} from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { memberConfigText } from '../antrea-member-config';
import { usesClusterSetV1Alpha2 } from './clusterset';
import { CONTAINER_SECURITY_CONTEXT, POD_SECURITY_CONTEXT, imagePullSecrets } from './reconciler';
import { meta, put, type Sink } from './util';

/** Pod template annotation: SHA-256 of the member's Tiers. */
export const TIERS_CHECKSUM_ANNOTATION = 'clusterset/tiers-checksum';
/** Pod template annotation: SHA-256 of the member controller settings, when clusterset renders them. */
export const MEMBER_CONFIG_CHECKSUM_ANNOTATION = 'clusterset/config-checksum';
/**
 * Job annotation: the `controller_manager_config.yaml` clusterset expects Antrea's install to ship,
 * when it does not render the settings itself.
 */
export const EXPECTED_MEMBER_CONFIG_ANNOTATION = 'clusterset/expected-member-config';
/** The Job's label, which its Pods carry too. */
const SELECTOR = { 'app.kubernetes.io/name': MEMBER_RESTART_NAME };

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** SHA-256 of a member's Tiers (name, priority, description), in name order. */
export function tiersChecksum(tiers: readonly TierProps[]): string {
  const canonical = [...tiers]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({ name: t.name, priority: t.priority, description: t.description ?? '' }));
  return sha256(JSON.stringify(canonical));
}

/** SHA-256 of the member controller settings, as the ConfigMap holds them. */
export function memberConfigChecksum(cluster: PlannedCluster): string {
  return sha256(memberConfigText(cluster));
}

/** The Pod template annotations the Job holds Antrea's Deployment to, for `cluster`. */
export function restartAnnotations(
  plan: Plan,
  cluster: PlannedCluster,
  tiers: readonly TierProps[],
): Record<string, string> {
  return {
    [TIERS_CHECKSUM_ANNOTATION]: tiersChecksum(tiers),
    ...(plan.takeOver.memberControllerConfig
      ? { [MEMBER_CONFIG_CHECKSUM_ANNOTATION]: memberConfigChecksum(cluster) }
      : {}),
  };
}

/**
 * The restart Job's command line: the annotations, and the member's ClusterSet to wait on and
 * record in (a ClusterSet v1alpha2: Antrea older than 1.13 has none to report the connection).
 */
export function restartArgs(
  plan: Plan,
  annotations: Readonly<Record<string, string>>,
  exportNamespaces: readonly string[] = [],
): string[] {
  return [
    RESTART_COMMAND,
    '--namespace',
    plan.memberNamespace,
    '--deployment',
    MEMBER_CONTROLLER_DEPLOYMENT,
    ...Object.keys(annotations)
      .sort()
      .flatMap((k) => ['--annotation', `${k}=${annotations[k]}`]),
    ...(usesClusterSetV1Alpha2(plan)
      ? ['--cluster-set', plan.clusterSetId, ...exportNamespaces.flatMap((ns) => ['--export-namespace', ns])]
      : []),
  ];
}

/** The namespaces where `cluster` exports Services, sorted (where the Job re-exports after a restart). */
export function exportNamespaces(plan: Plan, cluster: PlannedCluster): string[] {
  return [...new Set((plan.exportsByMember.get(cluster.id) ?? []).map((s) => s.namespace))].sort();
}

/**
 * The version of the Job's Pod template beyond its image, arguments and pull Secrets: 2 since the
 * Job restarts on failure with no deadline and is told its own name (issue 39). A Job's template
 * cannot change, so a new version is a new Job.
 */
const TEMPLATE_VERSION = 2;

/**
 * The Job's name: after its image, its command line, the Secrets it pulls the image with and its
 * template's version, so a change of any is a new Job (a Job's Pod template cannot change).
 */
export function restartJobName(
  image: string,
  args: readonly string[],
  pullSecrets: readonly string[] = [],
): string {
  const what: unknown[] = [image, ...args];
  if (pullSecrets.length > 0) what.push({ imagePullSecrets: pullSecrets });
  what.push({ template: TEMPLATE_VERSION });
  return memberRestartJobName(sha256(JSON.stringify(what)));
}

/** The restart Job of `cluster`: its name and command line (what the member's ClusterSet names too). */
export function memberRestartJob(
  plan: Plan,
  cluster: PlannedCluster,
  tiers: readonly TierProps[],
): { readonly name: string; readonly args: string[] } {
  const args = restartArgs(plan, restartAnnotations(plan, cluster, tiers), exportNamespaces(plan, cluster));
  return { name: restartJobName(plan.reconciler.image, args, plan.reconciler.imagePullSecrets), args };
}

const SERVICE_EXPORTS_RULE = {
  apiGroups: ['multicluster.x-k8s.io'],
  resources: ['serviceexports'],
  verbs: ['list', 'patch'],
};

/**
 * The restart Job's back-off limit: with `restartPolicy: OnFailure` it counts the container's
 * restarts, which the kubelet spaces out up to 5 minutes; the largest value the API takes, so that
 * the Job goes on trying for as long as its cause lasts.
 */
export const RESTART_BACKOFF_LIMIT = 2147483647;

/** The Job and its access that restart `cluster`'s member controller when its Tiers or settings change. */
export function renderMemberControllerRestart(
  scope: Sink,
  plan: Plan,
  cluster: PlannedCluster,
  tiers: readonly TierProps[],
): void {
  const ns = plan.memberNamespace;
  const image = plan.reconciler.image;
  const job = memberRestartJob(plan, cluster, tiers);
  const args = job.args;
  const waits = usesClusterSetV1Alpha2(plan);
  const subjects = [{ kind: 'ServiceAccount', name: MEMBER_RESTART_NAME, namespace: ns }];
  const namespaces = waits ? exportNamespaces(plan, cluster) : [];
  put(scope, k8s.KubeServiceAccount, { metadata: meta(MEMBER_RESTART_NAME, ns) });
  put(scope, k8s.KubeRole, {
    metadata: meta(MEMBER_RESTART_NAME, ns),
    rules: [
      {
        apiGroups: ['apps'],
        resources: ['deployments'],
        resourceNames: [MEMBER_CONTROLLER_DEPLOYMENT],
        verbs: ['get', 'patch'],
      },
      ...(waits
        ? [
            {
              apiGroups: ['multicluster.crd.antrea.io'],
              resources: ['clustersets'],
              resourceNames: [plan.clusterSetId],
              verbs: ['get', 'patch'],
            },
          ]
        : []),
      ...(namespaces.includes(ns) ? [SERVICE_EXPORTS_RULE] : []),
    ],
  });
  const binding = (namespace: string) =>
    put(scope, k8s.KubeRoleBinding, {
      metadata: meta(MEMBER_RESTART_NAME, namespace),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_RESTART_NAME },
      subjects,
    });
  binding(ns);
  for (const other of namespaces.filter((x) => x !== ns)) {
    put(scope, k8s.KubeRole, { metadata: meta(MEMBER_RESTART_NAME, other), rules: [SERVICE_EXPORTS_RULE] });
    binding(other);
  }
  put(scope, k8s.KubeJob, {
    metadata: meta(job.name, ns, {
      labels: SELECTOR,
      annotations: plan.takeOver.memberControllerConfig
        ? {}
        : { [EXPECTED_MEMBER_CONFIG_ANNOTATION]: memberConfigText(cluster) },
    }),
    spec: {
      // No deadline, no limit a cause reaches: it runs until it is done (see the top of this file).
      backoffLimit: RESTART_BACKOFF_LIMIT,
      template: {
        metadata: { labels: SELECTOR },
        spec: {
          serviceAccountName: MEMBER_RESTART_NAME,
          automountServiceAccountToken: true,
          restartPolicy: 'OnFailure',
          ...imagePullSecrets(plan),
          securityContext: POD_SECURITY_CONTEXT,
          containers: [
            {
              name: 'restart',
              image,
              args,
              env: [
                { name: 'NODE_OPTIONS', value: '--max-semi-space-size=2 --max-old-space-size=64' },
                // Its own Job's name, under which it records its progress on the ClusterSet.
                {
                  name: RESTART_JOB_ENV,
                  valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" } },
                },
              ],
              resources: {
                requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('64Mi') },
                limits: { memory: k8s.Quantity.fromString('128Mi') },
              },
              securityContext: CONTAINER_SECURITY_CONTEXT,
            },
          ],
        },
      },
    },
  });
}
