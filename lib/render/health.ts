/**
 * Health checks of the kinds the bundles hold that carry a status someone else writes: Argo CD and
 * Flux know nothing of Antrea's kinds, and without these a ClusterSet that never connects, an export
 * that Antrea's member finds invalid, or an export the reconciler refuses all show as healthy.
 *
 * - ClusterSet (leader: the reconciler keeps it; member: Antrea's member controller): its `Ready`
 *   condition. On the leader it is False while a member is disconnected, as Antrea's leader keeps it.
 *   A member's is also Degraded, with the cause, while the bundle's restart Job records that it
 *   cannot go on (member-restart.ts): the Job's own health says no more than "running".
 * - ServiceExport (members; Antrea's member controller writes it, antrea-mc.md §c.1): `Valid`.
 * - ResourceImport, the compiled ServiceImport ones (leader): `status.clusterStatuses`, which the
 *   reconciler keeps, one entry per exporting cluster, `Succeeded` False with the reason when it
 *   refuses that cluster's export (a port mismatch, say; reconciler/desired/service.ts). Compiled
 *   ACNP imports have no status and are healthy as applied.
 *
 * No status yet means "in progress" for both tools: Argo CD shows Progressing, Flux waits (its CEL
 * errors on a missing `status`, which it documents as waiting until the timeout).
 *
 * Except in the warm standby of a cut-over (`reconciler.waitForAntreaLeader`): Antrea's leader
 * writes an import's status only after an update, so a compiled ServiceImport import it created and
 * never updated has none until the reconciler leads. Flux's CEL cannot test for an absent `status`
 * (the expression errors), and the leader's Kustomization would fail its health checks, after
 * waiting for its timeout, at every reconcile of the standby. So in standby the leader's
 * Kustomization gets no ResourceImport check, and kstatus counts the imports current. Argo CD's Lua shows them Progressing
 * (members' Applications do not depend on the leader's).
 *
 * Argo CD reads health checks from its `argocd-cm` ConfigMap only (Lua,
 * `resource.customizations.health.<group>_<kind>`), which Argo CD's install owns: they are rendered as
 * a partial `argocd-cm` (the `argocd/config` folder, with no kustomization.yaml, so that no `kubectl
 * apply -k` ever applies it whole) that the team merges in with `kubectl patch --type merge`, which
 * sets those keys and nothing else. Flux takes them per Kustomization (`healthCheckExprs`, CEL; its
 * `wait: true` checks every object applied): each cluster's Kustomization gets those of the kinds its
 * bundle holds.
 */
import type { KustomizationSpecHealthCheckExprs } from '../../generated/kustomization';
import { RESTART_JOB_ANNOTATION, RESTART_RECORD_ANNOTATION, RESTART_STATE_ANNOTATION } from '../names';
import type { K8sObject } from './index';

const MC = 'multicluster.crd.antrea.io';
const MCS = 'multicluster.x-k8s.io';

interface Check {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Argo CD: a Lua script over `obj` that returns `{status, message}`. */
  readonly lua: string;
  /** Flux: CEL over the object's top-level fields. */
  readonly current: string;
  readonly failed: string;
}

/** Lua: the condition of `type` in `obj.status.conditions`, or nil. */
const LUA_CONDITION = `local function condition(t)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == t then
      return c
    end
  end
  return nil
end
`;

/** CEL: the object's condition `type` has `status`. */
const cel = (type: string, status: 'True' | 'False') =>
  `status.conditions.exists(c, c.type == '${type}' && c.status == '${status}')`;

/** CEL: some cluster's `Succeeded` condition in a compiled ServiceImport import is False. */
const REFUSED_CLUSTER = `status.clusterStatuses.exists(s, has(s.conditions) && s.conditions.exists(c, c.type == 'Succeeded' && c.status == 'False'))`;

/**
 * Lua: the record of the member's restart Job when it says the Job cannot go on, or nil: the Job
 * the ClusterSet names (`clusterset/restart-job`) in state `failed` (`clusterset/restart-state`,
 * `<Job> failed`), its record `clusterset/restart` the cause (lib/reconciler/restart.ts). A record
 * of another Job (an older bundle's) counts for nothing. Whole strings are compared and joined: Argo
 * CD's Lua has no string library (it opens base, table, package and a safe os alone).
 */
const LUA_RESTART_FAILURE = `local function restartFailure()
  if obj.metadata == nil or obj.metadata.annotations == nil then
    return nil
  end
  local a = obj.metadata.annotations
  local job = a["${RESTART_JOB_ANNOTATION}"]
  if job == nil or a["${RESTART_STATE_ANNOTATION}"] ~= job .. " failed" then
    return nil
  end
  return a["${RESTART_RECORD_ANNOTATION}"] or (job .. " failed")
end
`;

/** CEL: the restart Job the ClusterSet names recorded that it cannot go on (see LUA_RESTART_FAILURE). */
const RESTART_FAILED =
  `has(metadata.annotations) && '${RESTART_JOB_ANNOTATION}' in metadata.annotations && ` +
  `'${RESTART_STATE_ANNOTATION}' in metadata.annotations && ` +
  `metadata.annotations['${RESTART_STATE_ANNOTATION}'] == metadata.annotations['${RESTART_JOB_ANNOTATION}'] + ' failed'`;

export const HEALTH_CHECKS: readonly Check[] = [
  {
    group: MC,
    version: 'v1alpha2',
    kind: 'ClusterSet',
    lua: `${LUA_CONDITION}${LUA_RESTART_FAILURE}local hs = {}
local failure = restartFailure()
if failure ~= nil then
  hs.status = "Degraded"
  hs.message = "Antrea's member controller restart cannot go on: " .. failure
  return hs
end
local ready = condition("Ready")
if ready == nil or ready.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "Waiting for the ClusterSet's controller to report it Ready"
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "Ready"
  return hs
end
local why = {}
if ready.reason ~= nil and ready.reason ~= "" then
  table.insert(why, ready.reason)
end
if ready.message ~= nil and ready.message ~= "" then
  table.insert(why, ready.message)
end
if obj.status.clusterStatuses ~= nil then
  for _, s in ipairs(obj.status.clusterStatuses) do
    if s.conditions ~= nil then
      for _, c in ipairs(s.conditions) do
        if c.type == "Ready" and c.status ~= "True" then
          table.insert(why, s.clusterID .. " " .. (c.reason or "not ready") .. ": " .. (c.message or ""))
        end
      end
    end
  end
end
hs.status = "Degraded"
hs.message = table.concat(why, "; ")
return hs
`,
    current: `${cel('Ready', 'True')} && !(${RESTART_FAILED})`,
    failed: `(${RESTART_FAILED}) || ${cel('Ready', 'False')}`,
  },
  {
    group: MC,
    version: 'v1alpha1',
    kind: 'ResourceImport',
    lua: `local hs = {}
if obj.spec == nil or obj.spec.kind ~= "ServiceImport" then
  hs.status = "Healthy"
  return hs
end
if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the clusterset reconciler to report the exports of this Service"
  return hs
end
local refused = {}
if obj.status.clusterStatuses ~= nil then
  for _, s in ipairs(obj.status.clusterStatuses) do
    if s.conditions ~= nil then
      for _, c in ipairs(s.conditions) do
        if c.type == "Succeeded" and c.status == "False" then
          table.insert(refused, s.clusterID .. ": " .. (c.message or c.reason or "refused"))
        end
      end
    end
  end
end
if #refused > 0 then
  hs.status = "Degraded"
  hs.message = table.concat(refused, "; ")
else
  hs.status = "Healthy"
end
return hs
`,
    current: `spec.kind != 'ServiceImport' || !has(status.clusterStatuses) || !${REFUSED_CLUSTER}`,
    failed: `spec.kind == 'ServiceImport' && has(status.clusterStatuses) && ${REFUSED_CLUSTER}`,
  },
  {
    group: MCS,
    version: 'v1alpha1',
    kind: 'ServiceExport',
    lua: `${LUA_CONDITION}local hs = {}
local valid = condition("Valid")
if valid == nil or valid.status == "Unknown" then
  hs.status = "Progressing"
  hs.message = "Waiting for Antrea's member controller to export the Service"
elseif valid.status == "True" then
  hs.status = "Healthy"
  hs.message = valid.message or "Valid"
else
  hs.status = "Degraded"
  hs.message = (valid.reason or "Invalid") .. ": " .. (valid.message or "")
end
return hs
`,
    current: cel('Valid', 'True'),
    failed: cel('Valid', 'False'),
  },
];

/** The `argocd-cm` key of a check: `resource.customizations.health.<group>_<kind>`. */
export function argocdHealthKey(c: Pick<Check, 'group' | 'kind'>): string {
  return `resource.customizations.health.${c.group}_${c.kind}`;
}

/** The data of the partial `argocd-cm` that holds every check, key by key. */
export function argocdHealthData(): Record<string, string> {
  return Object.fromEntries(HEALTH_CHECKS.map((c) => [argocdHealthKey(c), c.lua]));
}

/**
 * Flux `healthCheckExprs` for the kinds `bundle` holds, in the table's order; `standby` (the
 * leader's, with `reconciler.waitForAntreaLeader`) leaves out the ResourceImport check (see above).
 */
export function fluxHealthCheckExprs(
  bundle: readonly K8sObject[],
  standby = false,
): KustomizationSpecHealthCheckExprs[] {
  const held = new Set(bundle.map((o) => `${o.apiVersion.split('/')[0]}/${o.kind}`));
  if (standby) held.delete(`${MC}/ResourceImport`);
  return HEALTH_CHECKS.filter((c) => held.has(`${c.group}/${c.kind}`)).map((c) => ({
    apiVersion: `${c.group}/${c.version}`,
    kind: c.kind,
    current: c.current,
    failed: c.failed,
  }));
}
