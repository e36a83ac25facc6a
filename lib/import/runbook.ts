/**
 * The cut-over runbook as `clusterset import`'s report prints it: each step with its check, with
 * the contexts the import read through and the set's own names, so that it can be followed as
 * printed. docs/import.md ("Cut-over runbook") says why each step is so; this is the checklist.
 * Pure.
 */
import type { ClusterSetProps } from '../model';
import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_WEBHOOKS,
  DEFAULT_LEADER_NAMESPACE,
  DEFAULT_MEMBER_NAMESPACE,
  MEMBER_RESTART_NAME,
  RECONCILER_NAME,
} from '../names';

/** The kubeconfig contexts `import` read the set through. */
export interface RunbookContexts {
  readonly leader: string;
  /** Member ID → its context. */
  readonly members: Readonly<Record<string, string>>;
  /** Where the model was written. @default 'clusterset.ts' */
  readonly modelFile?: string;
}

/** What Antrea's leader install leaves besides what the leader bundle adopts (antrea-mc.md §i). */
function antreaLeaderLeftovers(ns: string): string[] {
  return [
    `-n ${ns} deployment/antrea-mc-controller service/antrea-mc-webhook-service`,
    `-n ${ns} configmap/antrea-mc-controller-config configmap/antrea-mc-ca`,
    `-n ${ns} role/antrea-mc-controller-role rolebinding/antrea-mc-controller-rolebinding serviceaccount/antrea-mc-controller`,
    'clusterrole/antrea-multicluster-antrea-mc-controller-webhook-role clusterrolebinding/antrea-multicluster-antrea-mc-controller-webhook-rolebinding',
  ];
}

/** The runbook's lines, steps numbered, each followed by its check. */
export function runbook(model: ClusterSetProps, ctx: RunbookContexts): string[] {
  const modelFile = ctx.modelFile ?? 'clusterset.ts';
  const ns = model.leaderNamespace ?? DEFAULT_LEADER_NAMESPACE;
  const memberNs = model.memberNamespace ?? DEFAULT_MEMBER_NAMESPACE;
  const members = [...model.members].filter((id) => id !== model.leader).sort();
  const targets = [
    `--leader-context ${ctx.leader}`,
    ...Object.keys(ctx.members)
      .sort()
      .map((id) => `--member ${id}=${ctx.members[id]}`),
  ].join(' ');
  const verify = `clusterset import --verify --snapshot before.json ${targets}`;
  const leader = `kubectl --context ${ctx.leader}`;
  const lines = [
    'Cut-over runbook (docs/import.md says why each step is so). After every step, its check must pass:',
    `  verify: ${verify}   (exit 0: every import and imported object kept its UID, ClusterIP, label ID and addresses)`,
    '',
    '1. Import and freeze: commit the model (add `delivery`), then no new member, export or identity until step 5.',
    `   check: clusterset import --check --model ${modelFile} ${targets} --snapshot before.json   (exit 0)`,
  ];
  lines.push(
    '2. Members under GitOps, one at a time: Argo CD and Flux deliver a remote cluster only once it is registered',
    '   (`argocd cluster add`, or its Flux kubeconfig Secret): register one member and let its bundle sync. Its restart Job',
    "   restarts Antrea's member controller, whose stale cleanup is safe only while every import exists (touch no",
    '   import in the leader). When Argo CD or Flux runs in the leader, its bootstrap delivers the leader bundle (step 3)',
    '   before any member: in warm standby either order keeps every import.',
  );
  for (const id of members)
    lines.push(
      `   - ${id}: check: kubectl --context ${ctx.members[id] ?? id} -n ${memberNs} wait --for=condition=complete job -l app.kubernetes.io/name=${MEMBER_RESTART_NAME} --timeout=5m (the controller restarted, connected and re-exported); then verify`,
    );
  lines.push(
    "3. The leader bundle in warm standby (reconciler.waitForAntreaLeader: true): sync it while Antrea's leader runs.",
    `   check: ${leader} -n ${ns} get lease ${RECONCILER_NAME} finds none or no holder; the reconciler's Deployment is Available; then verify`,
    "4. The cut-over: Antrea's leader webhook configurations first, then its Deployment:",
    `   ${leader} delete mutatingwebhookconfiguration ${ANTREA_LEADER_WEBHOOKS.mutating}`,
    `   ${leader} delete validatingwebhookconfiguration ${ANTREA_LEADER_WEBHOOKS.validating}`,
    `   ${leader} -n ${ns} scale deployment ${ANTREA_LEADER_DEPLOYMENT} --replicas=0`,
    `   check: ${leader} -n ${ns} get lease ${RECONCILER_NAME} -o jsonpath='{.spec.holderIdentity}' names a reconciler Pod once Antrea's leader Pod has stopped (seconds; never force-delete it); then verify`,
    "5. Clean up what Antrea's leader install leaves (NEVER its CRDs: deleting the ResourceImport CRD deletes every import):",
    ...antreaLeaderLeftovers(ns).map((x) => `   ${leader} delete --ignore-not-found ${x}`),
    '   then, in a reviewed change, set reconciler.waitForAntreaLeader false (clusterset diff marks it breaking).',
    '   check: verify; clusterset status exits 0',
    "The way back (before step 5): re-create Antrea's leader webhook configurations (antctl mc deploy leadercluster) and scale",
    `   antrea-mc-controller to 1: the reconciler steps down while it runs, and Antrea's leader re-adopts every import and label ID.`,
  );
  return lines;
}
