/**
 * Flux delivery: one GitRepository for the repository holding `out/`, a root Kustomization that
 * keeps `<path>/flux` itself in sync (so a cluster added to the model gets its Kustomization from
 * git, as Argo CD's app-of-apps does), and one Kustomization per cluster bundle.
 *
 * The root Kustomization prunes a removed cluster's Kustomization but has `deletionPolicy: Orphan`
 * (kustomize-controller 1.5, Flux 2.5): deleting the root itself must not cascade into every
 * cluster's Kustomization and so into every cluster's objects, as Argo CD's root Application
 * carries no resources finalizer (argocd.ts).
 *
 * Per cluster: `path: ./<path>/clusters/<id>`, pruning as the model says (namespaces that hold
 * applications carry `kustomize.toolkit.fluxcd.io/prune: disabled`), a `kubeConfig.secretRef` for
 * every cluster but the management cluster (Flux reaches that one in-cluster), and for members
 * `dependsOn` the leader's Kustomization. Every per-cluster Kustomization sets `wait: true`: Flux
 * then marks it Ready only once every object it applied is ready, which is what makes a member wait
 * for the leader to hold its identity, Role and admission policies.
 *
 * Tiers first: a bundle with custom Tiers is delivered by two Kustomizations over the same path.
 * `<set>-<id>.tiers` keeps only the Tiers (patches delete every other kind of the bundle) and the
 * bundle's own Kustomization keeps everything else (a patch deletes the Tiers) and `dependsOn` it.
 * kustomize-controller has no sync waves: it dry-runs a whole Kustomization before applying, and
 * antrea-controller's webhook refuses a ClusterNetworkPolicy whose Tier does not exist yet, so a new
 * Tier and a policy in it in one Kustomization would fail on every retry. Split, the Tier is applied
 * and Ready at the same revision before the policy is tried. The two inventories never overlap, so
 * the two Kustomizations never fight over an object.
 *
 * Never Antrea's member controller Deployment: a member bundle holds a partial `Deployment
 * <memberNamespace>/antrea-mc-controller` (member-restart.ts) that only Argo CD can apply.
 * kustomize-controller normalizes every object through its typed Kubernetes type before its
 * server-side dry run, so a Deployment of Pod template annotations alone reaches the API server
 * with `selector: null` and `containers: null`, is refused, and the whole Kustomization fails with
 * it (test/e2e/removal.test.ts shows it with Flux's own code). So the member's Kustomization deletes
 * exactly that object with a patch (the Tiers' deletes every Deployment already): Flux never applies
 * nor prunes it, and Antrea's member controller is restarted by hand after a Tiers change, a step
 * the PR comment lists (diff/after-merge.ts).
 */
import { GitRepository } from '../../generated/gitrepository';
import {
  Kustomization,
  KustomizationSpecDeletionPolicy,
  KustomizationSpecSourceRefKind,
} from '../../generated/kustomization';
import { MEMBER_CONTROLLER_DEPLOYMENT, deliveryObjectName, tiersDeliveryObjectName } from '../names';
import type { Plan, PlannedCluster, PlannedDelivery, PlannedFlux } from '../plan';
import type { K8sObject } from './index';
import { repoPath } from './argocd';
import { meta, put, type Sink } from './util';

/** Folder, relative to `<path>`, of the Flux objects (the root Kustomization's own path). */
export const FLUX_FOLDER = 'flux';

function sourceRef(plan: Plan): { kind: KustomizationSpecSourceRefKind; name: string } {
  return { kind: KustomizationSpecSourceRefKind.GIT_REPOSITORY, name: plan.clusterSetId };
}

/** The GitRepository every Kustomization reads, named after the ClusterSet. */
export function renderGitRepository(scope: Sink, plan: Plan, d: PlannedDelivery, f: PlannedFlux): void {
  put(scope, GitRepository, {
    metadata: meta(plan.clusterSetId, f.namespace),
    spec: {
      url: d.repoURL,
      ref: { branch: d.branch },
      interval: f.interval,
      ...(f.gitSecretName !== undefined ? { secretRef: { name: f.gitSecretName } } : {}),
    },
  });
}

/** The root Kustomization: applies `<path>/flux` (this folder) in the management cluster. */
export function renderRootKustomization(scope: Sink, plan: Plan, d: PlannedDelivery, f: PlannedFlux): void {
  put(scope, Kustomization, {
    metadata: meta(plan.clusterSetId, f.namespace),
    spec: {
      interval: f.interval,
      path: `./${repoPath(d, FLUX_FOLDER)}`,
      prune: f.prune,
      deletionPolicy: KustomizationSpecDeletionPolicy.ORPHAN,
      sourceRef: sourceRef(plan),
    },
  });
}

const TIER_GROUP = 'crd.antrea.io';

function groupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

const isTier = (o: K8sObject): boolean =>
  o.kind === 'Tier' && groupVersion(o.apiVersion).group === TIER_GROUP;

interface DeletePatch {
  readonly patch: string;
  readonly target: Record<string, string>;
}

/**
 * A Kustomization patch that deletes from what the Kustomization applies every object of one kind,
 * or, given a name (and namespace), that one object.
 */
function deletePatch(
  apiVersion: string,
  kind: string,
  one?: { readonly name: string; readonly namespace?: string },
): DeletePatch {
  const { group, version } = groupVersion(apiVersion);
  const ns = one?.namespace !== undefined ? `\n  namespace: ${one.namespace}` : '';
  return {
    patch: `$patch: delete\napiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${one?.name ?? 'any'}${ns}\n`,
    // An empty group would select the kind in every group: the core group is named by version alone.
    target: {
      ...(group ? { group } : {}),
      version,
      kind,
      ...(one
        ? { name: one.name, ...(one.namespace !== undefined ? { namespace: one.namespace } : {}) }
        : {}),
    },
  };
}

/** The member's partial Deployment of Antrea's member controller, which Flux cannot apply (see the top). */
const isMemberControllerRestart = (plan: Plan, o: K8sObject): boolean =>
  o.kind === 'Deployment' &&
  o.apiVersion === 'apps/v1' &&
  o.metadata.name === MEMBER_CONTROLLER_DEPLOYMENT &&
  o.metadata.namespace === plan.memberNamespace;

/**
 * The Kustomizations that deliver `c`'s bundle: one, or, when the bundle has custom Tiers, the
 * Tiers' and the rest's (see the top of this file).
 */
export function renderClusterKustomization(
  scope: Sink,
  plan: Plan,
  d: PlannedDelivery,
  f: PlannedFlux,
  c: PlannedCluster,
  bundle: readonly K8sObject[],
): void {
  const name = deliveryObjectName(plan.clusterSetId, c.id);
  const kubeConfigSecret = f.kubeConfigSecrets.get(c.id);
  const common = {
    interval: f.interval,
    path: `./${repoPath(d, `clusters/${c.id}`)}`,
    prune: f.prune,
    sourceRef: sourceRef(plan),
    wait: true,
    ...(kubeConfigSecret !== undefined
      ? { kubeConfig: { secretRef: { name: kubeConfigSecret, key: f.kubeConfigKey } } }
      : {}),
  };
  const tiers = bundle.filter(isTier);
  const dependsOn = [
    ...(c.isLeader ? [] : [{ name: deliveryObjectName(plan.clusterSetId, plan.leader.id) }]),
    ...(tiers.length > 0 ? [{ name: tiersDeliveryObjectName(plan.clusterSetId, c.id) }] : []),
  ];
  if (tiers.length > 0) {
    const others = new Map<string, { apiVersion: string; kind: string }>();
    for (const o of bundle) if (!isTier(o)) others.set(`${o.apiVersion} ${o.kind}`, o);
    const tiersName = tiersDeliveryObjectName(plan.clusterSetId, c.id);
    put(scope, Kustomization, {
      metadata: meta(tiersName, f.namespace),
      spec: {
        ...common,
        patches: [...others.keys()]
          .sort()
          .map((k) => deletePatch(others.get(k)!.apiVersion, others.get(k)!.kind)),
      },
    });
  }
  const patches = [
    ...(tiers.length > 0 ? [deletePatch(tiers[0]!.apiVersion, 'Tier')] : []),
    ...bundle
      .filter((o) => isMemberControllerRestart(plan, o))
      .map((o) => deletePatch(o.apiVersion, o.kind, o.metadata)),
  ];
  put(scope, Kustomization, {
    metadata: meta(name, f.namespace),
    spec: {
      ...common,
      ...(patches.length > 0 ? { patches } : {}),
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
    },
  });
}
