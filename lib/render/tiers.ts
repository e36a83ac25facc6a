/**
 * Custom Tiers a member needs: a replicated ACNP whose Tier is missing is dropped by Antrea's member
 * and never retried, so every member gets every custom Tier its policies use.
 */
import type { Construct } from 'constructs';
import { Tier } from '../../generated/tier';
import type { TierProps } from '../model';
import { constructId, meta } from './util';

export function renderTier(scope: Construct, tier: TierProps): void {
  new Tier(scope, constructId('Tier', undefined, tier.name), {
    metadata: meta(tier.name),
    spec: { priority: tier.priority, description: tier.description },
  });
}
