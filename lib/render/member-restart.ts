/**
 * A restart of Antrea's member controller whenever what it only reads at start changes: its Tiers
 * and its settings.
 *
 * Antrea's member controller drops a replicated ACNP (a compiled `<policy>-antreaclusternetworkpolicy`
 * ResourceImport) whose Tier does not exist in the member yet, posts a Warning Event, and never
 * retries until the import's spec changes or the controller restarts (antrea-mc.md §c.3 "ACNP RI");
 * on start it reconciles every import again. Sync waves order one Application's objects, not the
 * leader's Application against a member's: a day-2 change that adds a Tier and a baseline policy in
 * it can reach a member through the leader's import before the member's own Tier arrives. So each
 * member bundle carries a partial Deployment, `<member namespace>/antrea-mc-controller` (the name and
 * namespace of Antrea's member manifest, antrea-mc.md §e Member), holding only Pod template
 * annotations: the SHA-256 of the member's Tiers and of its controller settings. A change to either
 * rolls out a new ReplicaSet, and the new controller re-reads every import, after the Tiers exist:
 *
 * - Argo CD: sync wave 1, after the Tiers (wave -1) and everything else (wave 0); applied
 *   server-side as a partial object (`ServerSideApply=true,Validate=false`, as Argo CD documents
 *   for patching a resource it does not fully manage), never pruned (`Prune=false`);
 * - Flux: never applied. kustomize-controller normalizes every object through its typed Kubernetes
 *   type before its dry run, and this one then has `selector: null` and `containers: null`, which
 *   the API server refuses, failing the whole Kustomization (test/e2e/removal.test.ts). So the
 *   member's Kustomization deletes it with a patch (flux.ts), and the PR comment lists the restart
 *   for each member Flux delivers (diff/after-merge.ts). It still carries
 *   `kustomize.toolkit.fluxcd.io/prune: disabled`, so that no Flux Kustomization that did apply it
 *   could ever delete Antrea's Deployment.
 *
 * Server-side apply makes these annotations the only fields the delivery tool owns; every other
 * field stays with whoever installed Antrea.
 *
 * The settings checksum is there only when clusterset renders the settings
 * (`takeOver.memberControllerConfig`): the controller reads its ConfigMap only at start, and the
 * same sync that changes the ConfigMap (wave 0) then restarts it (wave 1). When Antrea's install
 * owns the ConfigMap, a restart on our schedule would not follow its change: it could come before
 * the new ConfigMap arrives (the old settings read again) and nothing would restart after it. So
 * only the Tiers roll the controller, and the settings clusterset expects ride along in the
 * Deployment's own metadata (`clusterset/expected-member-config`, outside the Pod template, so it
 * restarts nothing): there the PR comment sees them change and lists the manual update and restart,
 * and `kubectl get` shows what the ConfigMap should hold.
 */
import { createHash } from 'node:crypto';
import type { TierProps } from '../model';
import { MEMBER_CONTROLLER_DEPLOYMENT } from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { memberConfigText } from '../antrea-member-config';
import {
  ARGOCD_SYNC_OPTIONS,
  FLUX_PRUNE,
  PARTIAL_OBJECT,
  SYNC_WAVE,
  WAVE_RESTART,
  meta,
  putObject,
  type Sink,
} from './util';

/** Pod template annotation: SHA-256 of the member's Tiers. */
export const TIERS_CHECKSUM_ANNOTATION = 'clusterset/tiers-checksum';
/** Pod template annotation: SHA-256 of the member controller settings, when clusterset renders them. */
export const MEMBER_CONFIG_CHECKSUM_ANNOTATION = 'clusterset/config-checksum';
/**
 * Deployment annotation: the `controller_manager_config.yaml` clusterset expects Antrea's install to
 * ship, when it does not render the settings itself.
 */
export const EXPECTED_MEMBER_CONFIG_ANNOTATION = 'clusterset/expected-member-config';
/** Per-object Argo CD sync options of the partial Deployment. */
export const RESTART_SYNC_OPTIONS = 'ServerSideApply=true,Validate=false,Prune=false,Delete=false';

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

/** The partial Deployment that restarts `cluster`'s member controller when its Tiers or settings change. */
export function renderMemberControllerRestart(
  scope: Sink,
  plan: Plan,
  cluster: PlannedCluster,
  tiers: readonly TierProps[],
): void {
  const name = MEMBER_CONTROLLER_DEPLOYMENT;
  const ownConfig = plan.takeOver.memberControllerConfig;
  putObject(scope, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(name, plan.memberNamespace, {
      annotations: {
        [SYNC_WAVE]: WAVE_RESTART,
        [ARGOCD_SYNC_OPTIONS]: RESTART_SYNC_OPTIONS,
        [FLUX_PRUNE]: 'disabled',
        ...(ownConfig ? {} : { [EXPECTED_MEMBER_CONFIG_ANNOTATION]: memberConfigText(cluster) }),
        // Antrea's Deployment, not ours: no ownership labels (util.ts withOwnership).
        [PARTIAL_OBJECT]: 'true',
      },
    }),
    spec: {
      template: {
        metadata: {
          annotations: {
            [TIERS_CHECKSUM_ANNOTATION]: tiersChecksum(tiers),
            ...(ownConfig ? { [MEMBER_CONFIG_CHECKSUM_ANNOTATION]: memberConfigChecksum(cluster) } : {}),
          },
        },
      },
    },
  });
}
