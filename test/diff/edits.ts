/**
 * Typical edits of a ClusterSet for the diff tests: each starts from `policiesModel` (leader `hub`,
 * members `east` and `west`, `shop/cart` exported from both, a baseline policy, a stretched policy
 * on `east`), delivered by Argo CD and Flux when the edit says so, and changes one thing, as a pull
 * request would.
 */
import type { ClusterSetProps } from '../../lib/model';
import { cluster, policiesModel, service, type ModelDraft } from '../helpers/models';

/** One edit: its name (also the golden folder) and what it does to a fresh base model. */
export interface Edit {
  readonly name: string;
  readonly edit: (m: ModelDraft) => void;
  /** The clusters whose bundles the edit must touch, sorted. */
  readonly touched: readonly string[];
  /** The base model is delivered by Argo CD and Flux (managed from `hub`). */
  readonly delivered?: boolean;
}

export const EDITS: readonly Edit[] = [
  {
    name: 'add-member',
    edit: (m) => {
      m.clusters.push(cluster('north', 3));
      m.members.push('north');
    },
    touched: ['hub', 'north'],
  },
  {
    name: 'export-service',
    edit: (m) => {
      m.services!.push(service('web', 'frontend', ['east'], [{ name: 'https', port: 443 }]));
    },
    // The Namespace web is the application team's (no takeOver): no member bundle but east's changes.
    touched: ['east', 'hub'],
  },
  {
    name: 'change-port',
    edit: (m) => {
      m.services![0]!.ports[0]!.port = 9090;
    },
    touched: ['hub'],
  },
  {
    name: 'remove-baseline-policy',
    edit: (m) => {
      m.baselinePolicies = [];
    },
    touched: ['east', 'hub', 'west'],
  },
  {
    name: 'remove-member',
    delivered: true,
    edit: (m) => {
      m.members = m.members.filter((id) => id !== 'west');
      m.clusters = m.clusters.filter((c) => c.id !== 'west');
      m.services![0]!.exportedFrom = ['east'];
    },
    touched: ['hub', 'west'],
  },
  {
    name: 'stretched-peers',
    edit: (m) => {
      const rule = m.stretchedPolicies![0]!.ingress![0]!;
      rule.from!.push({
        scope: 'ClusterSet',
        podSelector: { matchLabels: { app: 'frontend' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } },
      });
    },
    touched: ['east'],
  },
  {
    // A member controller setting, with Antrea's install owning the ConfigMap (the default).
    name: 'member-settings',
    edit: (m) => {
      m.clusters = m.clusters.map((c) =>
        c.id === 'west' ? { ...c, enableStretchedNetworkPolicy: true } : c,
      );
    },
    touched: ['west'],
  },
  {
    name: 'take-over',
    edit: (m) => {
      m.takeOver = { memberControllerConfig: true, serviceNamespaces: true };
    },
    touched: ['east', 'west'],
  },
  {
    // Day 2: a new Tier and a baseline policy in it; Argo CD restarts each member's controller by
    // itself, under Flux a person does (After merge).
    name: 'new-tier-delivered',
    delivered: true,
    edit: (m) => {
      m.tiers!.push({ name: 'mc-day2', priority: 150 });
      m.baselinePolicies!.push({ ...m.baselinePolicies![0]!, name: 'day2-guard', tier: 'mc-day2' });
    },
    touched: ['east', 'hub', 'west'],
  },
];

/** The base model and the edited one, both fresh. */
export function beforeAfter(e: Edit): { before: ClusterSetProps; after: ClusterSetProps } {
  const base = (): ModelDraft => {
    const m = policiesModel();
    if (e.delivered)
      m.delivery = {
        repoURL: 'https://git.example.com/gitops.git',
        managementCluster: 'hub',
        argocd: {},
        flux: {},
      };
    return m;
  };
  const after = base();
  e.edit(after);
  return { before: base() as ClusterSetProps, after: after as ClusterSetProps };
}
