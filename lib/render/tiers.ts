/**
 * Custom Tiers a member needs: a replicated ACNP whose Tier is missing is dropped by Antrea's member
 * and never retried, so every member gets every custom Tier its policies use, in an early sync wave
 * (with the Namespaces), before the ClusterSet connects the member and before its policies.
 */
import { Tier } from '../../generated/tier';
import type { TierProps } from '../model';
import { SYNC_WAVE, WAVE_NAMESPACES, meta, put, type Sink } from './util';

export function renderTier(scope: Sink, tier: TierProps): void {
  put(scope, Tier, {
    metadata: meta(tier.name, undefined, { annotations: { [SYNC_WAVE]: WAVE_NAMESPACES } }),
    spec: { priority: tier.priority, description: tier.description },
  });
}
