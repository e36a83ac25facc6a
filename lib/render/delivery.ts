/**
 * Delivery objects, rendered outside the cluster bundles: they live in the management cluster,
 * where Argo CD and Flux run, and are applied there once by hand (bootstrap), then from git.
 *
 * Folders (relative to out/):
 * - `argocd/`: the root Application and, unless `delivery.argocd.project` names an existing one,
 *   the AppProject of every Application (`kubectl apply -k out/argocd` bootstraps both; the project
 *   exists before the root Application syncs);
 * - `argocd/apps/`: one Application per cluster, the root Application's source;
 * - `argocd/config/`: a partial `argocd-cm` holding the health checks of Antrea's kinds (health.ts),
 *   with no kustomization.yaml: Argo CD's install owns that ConfigMap, so it is merged in with
 *   `kubectl -n argocd patch configmap argocd-cm --type merge --patch-file ...`, never applied;
 * - `flux/`: the GitRepository, the root Kustomization and one Kustomization per cluster
 *   (`kubectl apply -k out/flux` bootstraps them).
 */
import type { Plan } from '../plan';
import { renderAppProject } from './appproject';
import { ARGOCD_APPS_FOLDER, renderClusterApplication, renderRootApplication } from './argocd';
import {
  FLUX_FOLDER,
  renderClusterKustomization,
  renderGitRepository,
  renderRootKustomization,
} from './flux';
import { argocdHealthData } from './health';
import { render, type Bundles, type K8sObject } from './index';
import { Sink, meta, put, withOwnership } from './util';
import { k8s } from 'cdk8s-plus-33';

/** Delivery objects per output folder, relative to out/ (`argocd`, `argocd/apps`, `flux`). */
export type DeliveryFolders = Map<string, K8sObject[]>;

/** Folder of the root Application. */
export const ARGOCD_FOLDER = 'argocd';
/** Folder of the partial `argocd-cm` with the health checks. */
export const ARGOCD_CONFIG_FOLDER = 'argocd/config';
/**
 * Delivery folders without a kustomization.yaml: they hold partial objects that another owner's
 * objects are patched with, never applied whole.
 */
export const PATCH_FOLDERS: ReadonlySet<string> = new Set([ARGOCD_CONFIG_FOLDER]);
/** Argo CD's settings ConfigMap, which its install owns. */
export const ARGOCD_CM = 'argocd-cm';

/**
 * Renders the delivery objects of the plan; none when the model has no `delivery`. Pure. Takes the
 * rendered bundles because the AppProject permits exactly the kinds they hold.
 *
 * While the ClusterSet is uninstalled, only the leader's bundle is delivered, but the AppProject
 * stays as it was, permitting every member's destination and kinds: Argo CD's cascade deletion of a
 * member's Application deletes only what the live project permits, and the project is deleted at
 * the end (diff/after-merge/uninstall.ts), so a `kubectl apply -k out/argocd` meanwhile must not narrow it.
 */
export function renderDelivery(plan: Plan, bundles: Bundles): DeliveryFolders {
  const folders: DeliveryFolders = new Map();
  const d = plan.delivery;
  if (!d) return folders;
  const folder = (name: string, body: (sink: Sink) => void): void => {
    const sink = new Sink();
    body(sink);
    folders.set(name, withOwnership(sink.objects, plan.clusterSetId));
  };
  // Only clusters that get a bundle get delivered.
  const delivered = plan.clusters.filter((c) => bundles.has(c.id));
  const installed = plan.uninstall ? { ...plan, uninstall: false } : plan;
  const { argocd, flux } = d;
  if (argocd) {
    folder(ARGOCD_FOLDER, (chart) => {
      if (argocd.renderProject)
        renderAppProject(
          chart,
          installed,
          d,
          argocd,
          installed.clusters.filter((c) => c.isLeader || c.isMember),
          installed === plan ? bundles : render(installed),
        );
      renderRootApplication(chart, plan, d, argocd);
    });
    folder(ARGOCD_APPS_FOLDER, (chart) => {
      for (const c of delivered) renderClusterApplication(chart, plan, d, argocd, c);
    });
    // Argo CD's own object: no ownership labels, which would claim all of it.
    const config = new Sink();
    put(config, k8s.KubeConfigMap, { metadata: meta(ARGOCD_CM, argocd.namespace), data: argocdHealthData() });
    folders.set(ARGOCD_CONFIG_FOLDER, config.objects);
  }
  if (flux) {
    folder(FLUX_FOLDER, (chart) => {
      renderGitRepository(chart, plan, d, flux);
      renderRootKustomization(chart, plan, d, flux);
      for (const c of delivered) renderClusterKustomization(chart, plan, d, flux, c, bundles.get(c.id) ?? []);
    });
  }
  return folders;
}
