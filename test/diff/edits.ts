/**
 * Typical edits of a ClusterSet for the diff tests: each starts from `policiesModel` (leader `hub`,
 * members `east` and `west`, `shop/cart` exported from both, a baseline policy, a stretched policy
 * on `east`), with what the edit's `base` adds on both sides (delivery by Argo CD and Flux, say), and
 * changes one thing, as a pull request would.
 */
import type { ClusterSetProps } from '../../lib/model';
import { cluster, policiesModel, service, type ModelDraft } from '../helpers/models';

/** The base model delivered by Argo CD and Flux, managed from `hub`. */
function delivered(m: ModelDraft): void {
  m.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    managementCluster: 'hub',
    argocd: {},
    flux: {},
  };
}

/** Delivery by Argo CD alone (`on: 'argocd'`) or by Flux alone, managed from `hub`. */
function deliveredBy(on: 'argocd' | 'flux'): (m: ModelDraft) => void {
  return (m) => {
    m.delivery = {
      repoURL: 'https://git.example.com/gitops.git',
      managementCluster: 'hub',
      ...(on === 'argocd' ? { flux: { enabled: false } } : { argocd: { enabled: false }, flux: {} }),
    };
  };
}

/** One edit: its name (also the golden folder) and what it does to a fresh base model. */
export interface Edit {
  readonly name: string;
  /** What the edit starts from, on top of `policiesModel`, on both sides. */
  readonly base?: (m: ModelDraft) => void;
  readonly edit: (m: ModelDraft) => void;
  /** The clusters whose bundles the edit must touch, sorted. */
  readonly touched: readonly string[];
  /** What its PR comment (markdown) must say whatever the golden holds: a reviewer's checklist. */
  readonly mustSay?: readonly RegExp[];
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
    // The pull request a platform team reviews most: a member joins, here on a network of its own,
    // with both delivery tools in the model and the members' gateway Nodes declared.
    name: 'add-member-delivery',
    base: (m) => {
      m.delivery = {
        repoURL: 'https://git.example.com/platform/gitops.git',
        managementCluster: 'hub',
        argocd: {},
        flux: {},
      };
      m.clusters = [
        cluster('hub', 0, { network: 'dc1' }),
        cluster('east', 1, {
          network: 'dc1',
          enableStretchedNetworkPolicy: true,
          gateway: { nodes: [{ name: 'east-gw-0' }] },
        }),
        cluster('west', 2, { network: 'dc1', gateway: { nodes: [{ name: 'west-gw-0' }] } }),
      ];
    },
    edit: (m) => {
      m.clusters.push(
        cluster('north', 3, {
          network: 'dc2',
          gateway: { nodes: [{ name: 'north-gw-0', ip: '192.0.2.30' }, { name: 'north-gw-1' }] },
        }),
      );
      m.members.push('north');
    },
    touched: ['hub', 'north'],
    mustSay: [
      /<summary>step 4: delivery<\/summary>\n\n4\. \[ \] re-apply the AppProject in the management cluster: `kubectl apply -k out\/argocd`/,
      /\d+\. \[ \] register north with Argo CD as `https:\/\/north\.example\.com:6443`: `argocd cluster add <north> --name north`\n/,
      /\d+\. \[ \] give Flux north's kubeconfig, in the management cluster: `kubectl -n flux-system create secret generic north-kubeconfig --from-file=value=north\.kubeconfig`\n/,
      // What explain lists for north and no bundle holds, before its first sync.
      /\d+\. \[ \] before north's first sync, create the exported Services' Namespace there, .*: shop \(imports only: .*\): `kubectl --context <north> create namespace shop`\n/,
      /\d+\. \[ \] before north's first sync, enable in Antrea's install there .*: in antrea-agent\.conf \(ConfigMap kube-system\/antrea-config\), `featureGates\.Multicluster: true` and `multicluster\.enableGateway: true`; .*`kubectl --context <north> -n kube-system rollout restart daemonset antrea-agent`\n\d+\. \[ \] update Antrea's member controller config in north/,
      /\d+\. \[ \] copy north's token .*`npx clusterset token north --leader-context <hub> --member-context <north> --wait 600`\n/,
      /\d+\. \[ \] annotate north's gateway Nodes \(it is on network dc2 .*`kubectl --context <north> annotate node north-gw-1 multicluster\.antrea\.io\/gateway=true` and `kubectl --context <north> annotate node north-gw-0 multicluster\.antrea\.io\/gateway=true multicluster\.antrea\.io\/gateway-ip=192\.0\.2\.30`\n/,
      /\d+\. \[ \] annotate east's gateway Nodes unless they already are .*`kubectl --context <east> annotate node east-gw-0 multicluster\.antrea\.io\/gateway=true`\n/,
    ],
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
    mustSay: [
      /#### Breaking\n\n- :warning: Service shop\/cart: ports http 8080\/TCP → http 9090\/TCP\. Change the Service in east and west to match/,
      /Clients follow too: shop\/antrea-mc-cart in every member no longer serves http 8080\/TCP\n/,
    ],
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
    base: delivered,
    edit: (m) => {
      m.members = m.members.filter((id) => id !== 'west');
      m.clusters = m.clusters.filter((c) => c.id !== 'west');
      m.services![0]!.exportedFrom = ['east'];
    },
    touched: ['hub', 'west'],
  },
  {
    // The whole ClusterSet removed (`uninstall`): the members leave with their delivery, the
    // leader stays until they have, and the comment gives the rest in order.
    name: 'uninstall',
    base: delivered,
    edit: (m) => {
      m.uninstall = true;
    },
    touched: ['east', 'west'],
    mustSay: [
      /the ClusterSet is uninstalled: both members \(east, west\) leave, and the leader hub keeps its bundle until they have left/,
      /east leaves: Argo CD and Flux delete its Application and Kustomizations[\s\S]*west leaves:[\s\S]*then every member leaves hub by itself[\s\S]*wait --for=delete memberclusterannounce\/member-announce-from-east memberclusterannounce\/member-announce-from-west[\s\S]*then remove hub under Argo CD: first the root Application[\s\S]*then remove hub under Flux: first the root Kustomization/,
    ],
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
    base: delivered,
    edit: (m) => {
      m.tiers!.push({ name: 'mc-day2', priority: 150 });
      m.baselinePolicies!.push({ ...m.baselinePolicies![0]!, name: 'day2-guard', tier: 'mc-day2' });
    },
    touched: ['east', 'hub', 'west'],
  },
  {
    // Switching delivery tools as the scaffold's comment says: Argo CD turned off, Flux on. No bundle
    // changes; the comment bootstraps Flux, waits for it, and only then deletes Argo CD's
    // Applications without cascade.
    name: 'switch-to-flux',
    base: deliveredBy('argocd'),
    edit: (m) => {
      m.delivery = { ...m.delivery!, argocd: { enabled: false }, flux: {} };
    },
    touched: [],
    mustSay: [
      /\d\. \[ \] give Flux the kubeconfig of east and west, [^\n]*`kubectl -n flux-system create secret generic east-kubeconfig --from-file=value=east\.kubeconfig` and `kubectl -n flux-system create secret generic west-kubeconfig --from-file=value=west\.kubeconfig`[^\n]*\n\d\. \[ \] bootstrap Flux in the management cluster \(hub\): `kubectl apply -k out\/flux`[^\n]*\n\d\. \[ \] wait until every Kustomization is Ready [^\n]*`kubectl -n flux-system wait kustomization\/test-set kustomization\/test-set-east [^`]*--for=condition=Ready --timeout=15m`\n\d\. \[ \] then stop Argo CD without deleting what it applied [^\n]*`kubectl -n argocd delete application test-set`[^\n]*\n\d\. \[ \] then delete the Applications of east, hub and west without cascade: [^\n]*`kubectl -n argocd patch application test-set-east test-set-hub test-set-west --type merge -p '\{"metadata":\{"finalizers":null\}\}'` and `kubectl -n argocd delete application test-set-east test-set-hub test-set-west`[^\n]*\n\d\. \[ \] then, once they are gone [^\n]*`kubectl -n argocd delete appproject test-set`, `argocd cluster rm <east>` and `argocd cluster rm <west>`\n\n/,
    ],
  },
  {
    // The other way: Flux turned off, Argo CD on. Flux's Kustomizations have prune on: it is turned
    // off before they are deleted, or Flux would delete every bundle.
    name: 'switch-to-argocd',
    base: deliveredBy('flux'),
    edit: (m) => {
      m.delivery = { ...m.delivery!, argocd: {}, flux: { enabled: false } };
    },
    touched: [],
    mustSay: [
      /\d\. \[ \] register east and west with Argo CD, before the bootstrap, [^\n]*`argocd cluster add <east> --name east` and `argocd cluster add <west> --name west`\n\d\. \[ \] bootstrap Argo CD in the management cluster \(hub\): `kubectl apply -k out\/argocd`[^\n]*`kubectl -n argocd patch configmap argocd-cm --type merge --patch-file out\/argocd\/config\/ConfigMap\.argocd-cm\.yaml`[^\n]*\n\d\. \[ \] wait until every Application is Synced and Healthy: [^\n]*\n\d\. \[ \] then stop Flux without deleting what it applied [^\n]*first its root Kustomization, `kubectl -n flux-system delete kustomization test-set` \(its deletionPolicy Orphan [^\n]*\n\d\. \[ \] then delete the Kustomizations of east, hub and west without deleting what they applied: [^\n]*`kubectl -n flux-system patch kustomization test-set-east test-set-east\.tiers test-set-hub test-set-west test-set-west\.tiers --type merge -p '\{"spec":\{"prune":false,"deletionPolicy":"Orphan"\}\}'` and `kubectl -n flux-system delete kustomization test-set-east test-set-east\.tiers test-set-hub test-set-west test-set-west\.tiers`\n\d\. \[ \] then, once they are gone, `kubectl -n flux-system delete gitrepository test-set` and `kubectl -n flux-system delete secret east-kubeconfig west-kubeconfig`/,
    ],
  },
];

/** The base model and the edited one, both fresh. */
export function beforeAfter(e: Edit): { before: ClusterSetProps; after: ClusterSetProps } {
  const base = (): ModelDraft => {
    const m = policiesModel();
    e.base?.(m);
    return m;
  };
  const after = base();
  e.edit(after);
  return { before: base() as ClusterSetProps, after: after as ClusterSetProps };
}
