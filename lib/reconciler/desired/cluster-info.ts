/**
 * ClusterInfo (keys `ci/<id>-clusterinfo`): a member's routing information, its ClusterInfo export
 * copied into the import of the same name once the export is the member's own, under the name it
 * must have, and its gateway IPs are IP addresses.
 */
import { isIP } from 'node:net';
import { clusterInfoName } from '../../names';
import type { ReconcilerConfig } from '../../reconciler-config';
import type { CachedExport, CachedImport } from '../objects';
import { isObject, memberProblem, refusals, releaseAction, statusAction } from './exports';
import { foreignImport, importActions } from './imports';
import type { Action, ImportSpec, Outcome, SameSpec } from './outcome';

export interface ClusterInfoInputs {
  readonly config: ReconcilerConfig;
  /** The export and the import share this name, `<id>-clusterinfo`. */
  readonly name: string;
  readonly export: CachedExport | undefined;
  readonly existing: CachedImport | undefined;
  readonly sameSpec: SameSpec;
  readonly now: string;
}

function clusterInfoProblem(config: ReconcilerConfig, e: CachedExport): string | undefined {
  const s = e.spec!;
  const member = memberProblem(config, s.clusterID);
  if (member) return member;
  const id = s.clusterID as string;
  if (e.name !== clusterInfoName(id))
    return `the ClusterInfo export of cluster ${id} must be named ${clusterInfoName(id)}, not ${e.name}`;
  const info = s.clusterInfo;
  if (!isObject(info)) return 'spec.clusterInfo is missing';
  if (info.clusterID !== id)
    return `clusterInfo.clusterID is ${JSON.stringify(info.clusterID ?? null)}, but the export is from cluster ${id}: another cluster's routing information is refused`;
  if (info.gatewayInfos !== undefined) {
    if (!Array.isArray(info.gatewayInfos)) return 'clusterInfo.gatewayInfos is not a list';
    for (const [i, g] of info.gatewayInfos.entries())
      if (!isObject(g) || typeof g.gatewayIP !== 'string' || isIP(g.gatewayIP) === 0)
        return `clusterInfo.gatewayInfos[${i}].gatewayIP is not an IP address`;
  }
  return undefined;
}

export function reconcileClusterInfo(inp: ClusterInfoInputs): Outcome {
  const e = inp.export;
  const foreign = foreignImport(inp.existing, 'ClusterInfo');
  const why = e ? (clusterInfoProblem(inp.config, e) ?? foreign) : undefined;
  const actions: Action[] = [];
  if (!foreign) {
    const desired: ImportSpec | undefined =
      e && !e.deleting && why === undefined
        ? {
            kind: 'ClusterInfo',
            name: inp.name,
            namespace: inp.config.leaderNamespace,
            clusterinfo: e.spec!.clusterInfo,
          }
        : undefined;
    actions.push(...importActions(inp.name, inp.existing, desired, inp.sameSpec));
  }
  if (e) actions.push(...statusAction(e, why, inp.now), ...releaseAction(e));
  return { actions, refused: e ? refusals([e], new Map([[e.name, why]])) : [] };
}
