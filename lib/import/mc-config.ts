/**
 * How a cluster's Antrea multi-cluster controller is set up, as the import reads it from a snapshot:
 * its `antrea-mc-controller-config` (MemberConfig, with Antrea's defaults where it says nothing;
 * leader and member alike) and a member's own ClusterSet with its `spec.leaders[0]`. Shared by the
 * model's reading (model/), the comparison with what lives (compare.ts) and `--check` (check.ts).
 * Pure.
 */
import type { GatewayProps } from '../model';
import { loadYaml } from '../yaml';
import { MC_CONFIG_KEY, type Json, isObject, list, spec, str } from './live';
import type { ClusterSnapshot, LiveObject } from './snapshot';

const MC_ANY = 'multicluster.crd.antrea.io/*';

export function leaders0(cs: LiveObject | undefined): Json {
  const ls = spec(cs).leaders;
  return Array.isArray(ls) && isObject(ls[0]) ? ls[0] : {};
}

/** A member's ClusterSet: the one naming the member's ID, else the only one that names a leader server. */
export function memberClusterSet(c: ClusterSnapshot, id: string): LiveObject | undefined {
  const all = list(c, MC_ANY, 'ClusterSet').filter(
    (o) => str(leaders0(o).server) !== undefined || str(leaders0(o).secret) !== undefined,
  );
  return all.find((o) => spec(o).clusterID === id) ?? (all.length === 1 ? all[0] : undefined);
}

/** What a member's `antrea-mc-controller-config` says (Antrea's defaults where it says nothing). */
export interface MemberConfig {
  readonly found: boolean;
  readonly serviceCIDR: string | undefined;
  readonly podCIDRs: string[];
  readonly endpointIPType: 'ClusterIP' | 'PodIP';
  readonly gatewayIPPrecedence: GatewayProps['ipPrecedence'];
  readonly enableStretchedNetworkPolicy: boolean;
}

export function readMcConfig(cm: LiveObject | undefined): MemberConfig {
  const data = cm && isObject(cm.data) ? cm.data : {};
  let c: Json = {};
  try {
    const v = typeof data[MC_CONFIG_KEY] === 'string' ? loadYaml(data[MC_CONFIG_KEY] as string) : {};
    c = isObject(v) ? v : {};
  } catch {
    c = {};
  }
  const precedence = str(c.gatewayIPPrecedence)?.toLowerCase();
  return {
    found: cm !== undefined,
    serviceCIDR: str(c.serviceCIDR) || undefined,
    podCIDRs: (Array.isArray(c.podCIDRs) ? c.podCIDRs : []).filter(
      (p): p is string => typeof p === 'string' && p !== '',
    ),
    endpointIPType: c.endpointIPType === 'PodIP' ? 'PodIP' : 'ClusterIP',
    gatewayIPPrecedence: (['private', 'public', 'internal', 'external'] as const).find(
      (p) => p === precedence,
    ),
    enableStretchedNetworkPolicy: c.enableStretchedNetworkPolicy === true,
  };
}
