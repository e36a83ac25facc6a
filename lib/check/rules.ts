/**
 * The model rules: relations between clusters, members, Services, Tiers and policies that the JSON
 * Schema cannot express. Each rule is a row of data: a stable ID, what it checks, which runtime
 * behaviour of Antrea it prevents (antrea-mc.md), and a check that returns diagnostics with paths
 * into the model, using the indexes of the input lists. One file per domain:
 *
 * - identity.ts: cluster IDs, the ClusterSet, leader and members, namespaces, API servers;
 * - services.ts: exported Services;
 * - policies.ts: Tiers, baseline and stretched policies;
 * - policy-fields.ts: policy fields beyond selectors and Services (Antrea's policy webhook), ClusterGroups;
 * - networks.ts: networks, gateways, CIDRs;
 * - delivery.ts: Argo CD, Flux, the repository and member token Secrets;
 * - member-identity.ts: the names of each member's identity (memberIdentity);
 * - labels.ts: label selectors, wherever they are;
 * - reconciler.ts: the leader's reconciler;
 * - versions.ts: the Antrea release the model names and what it supports.
 *
 * Rules also run on a model that failed the schema check, so that every problem is reported at
 * once: a list that is missing or malformed counts as empty, and a value of the wrong type is left
 * to the schema check (the rules only judge strings that are strings, numbers that are numbers).
 */
import { deliveryRules, secretRules } from './delivery';
import { clusterRules, identityRules } from './identity';
import { labelRules } from './labels';
import { memberIdentityRules } from './member-identity';
import { networkRules } from './networks';
import { policyRules, tierRules } from './policies';
import { clusterGroupRules, policyFieldRules } from './policy-fields';
import { reconcilerRules } from './reconciler';
import type { Rule } from './rule';
import { serviceRules } from './services';
import { versionRules } from './versions';

export type { Rule } from './rule';

/** Every rule, in a stable order. IDs are stable: tests and users refer to them. */
export const RULES: readonly Rule[] = [
  ...identityRules,
  ...serviceRules,
  ...tierRules,
  ...policyRules,
  ...policyFieldRules,
  ...clusterGroupRules,
  ...labelRules,
  ...networkRules,
  ...clusterRules,
  ...deliveryRules,
  ...secretRules,
  ...memberIdentityRules,
  ...reconcilerRules,
  ...versionRules,
];
