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
 * - The Job, `clusterset-restart-<digest>`, is named after what it runs (the image and the
 *   annotations): a change is a new Job (a Job's template cannot change), the old one is pruned, and
 *   an unchanged bundle keeps the finished Job (no TTL: a deleted Job would be applied again, and
 *   run again). It runs the reconciler's image (the model's `reconciler.image`), which every member
 *   must therefore be able to pull, with the model's `reconciler.imagePullSecrets`, which must
 *   then exist in the member namespace.
 * - Its ServiceAccount, Role and RoleBinding `clusterset-restart` may get and patch that Deployment
 *   alone.
 * - Argo CD: sync wave 0, after the Tiers (wave -1); the settings ConfigMap, when rendered, is in the
 *   same wave and comes before a Job in Argo CD's kind order. It is not in a later wave on purpose:
 *   Argo CD waits for an earlier wave's health, and the member's ClusterSet is not Ready until its
 *   token is given. Flux: in the Kustomization that depends on the Tiers' one (flux.ts), which
 *   `wait`s for the Job to complete.
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
import { MEMBER_CONTROLLER_DEPLOYMENT, MEMBER_RESTART_NAME, memberRestartJobName } from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { memberConfigText } from '../antrea-member-config';
import { RESTART_COMMAND } from '../cli/restart';
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

/** The restart Job's command line. */
export function restartArgs(plan: Plan, annotations: Readonly<Record<string, string>>): string[] {
  return [
    RESTART_COMMAND,
    '--namespace',
    plan.memberNamespace,
    '--deployment',
    MEMBER_CONTROLLER_DEPLOYMENT,
    ...Object.keys(annotations)
      .sort()
      .flatMap((k) => ['--annotation', `${k}=${annotations[k]}`]),
  ];
}

/**
 * The Job's name: after its image, its command line and the Secrets it pulls the image with, so a
 * change of any is a new Job (a Job's Pod template cannot change). Without pull Secrets the digest
 * is the one it always was, so a model without them keeps its Job.
 */
export function restartJobName(
  image: string,
  args: readonly string[],
  pullSecrets: readonly string[] = [],
): string {
  const what: unknown[] = [image, ...args];
  if (pullSecrets.length > 0) what.push({ imagePullSecrets: pullSecrets });
  return memberRestartJobName(sha256(JSON.stringify(what)));
}

/** The Job and its access that restart `cluster`'s member controller when its Tiers or settings change. */
export function renderMemberControllerRestart(
  scope: Sink,
  plan: Plan,
  cluster: PlannedCluster,
  tiers: readonly TierProps[],
): void {
  const ns = plan.memberNamespace;
  const image = plan.reconciler.image;
  const args = restartArgs(plan, restartAnnotations(plan, cluster, tiers));
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
    ],
  });
  put(scope, k8s.KubeRoleBinding, {
    metadata: meta(MEMBER_RESTART_NAME, ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MEMBER_RESTART_NAME },
    subjects: [{ kind: 'ServiceAccount', name: MEMBER_RESTART_NAME, namespace: ns }],
  });
  put(scope, k8s.KubeJob, {
    metadata: meta(restartJobName(image, args, plan.reconciler.imagePullSecrets), ns, {
      labels: SELECTOR,
      annotations: plan.takeOver.memberControllerConfig
        ? {}
        : { [EXPECTED_MEMBER_CONFIG_ANNOTATION]: memberConfigText(cluster) },
    }),
    spec: {
      // A few tries for a passing failure (the API server restarting); then the Job fails, and
      // Argo CD shows it Degraded, Flux's `wait` not Ready.
      backoffLimit: 3,
      activeDeadlineSeconds: 600,
      template: {
        metadata: { labels: SELECTOR },
        spec: {
          serviceAccountName: MEMBER_RESTART_NAME,
          automountServiceAccountToken: true,
          restartPolicy: 'Never',
          ...imagePullSecrets(plan),
          securityContext: POD_SECURITY_CONTEXT,
          containers: [
            {
              name: 'restart',
              image,
              args,
              env: [{ name: 'NODE_OPTIONS', value: '--max-semi-space-size=2 --max-old-space-size=64' }],
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
