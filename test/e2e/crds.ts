import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadYaml } from '../../lib/yaml';
import type { KubeObject } from '../parties/argocd-apply';
import { applyObject } from '../parties/argocd-apply';
import type { Cluster } from '../kube/cluster';

/**
 * CRDs that Antrea's member manifest installs and member bundles use (vendored files in crds/).
 * The e2e tests install them in member control planes the way an Antrea installation would.
 */
export const ANTREA_MEMBER_CRDS: readonly string[] = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.x-k8s.io_serviceexports.yaml',
  'multicluster.x-k8s.io_serviceimports.yaml',
  'multicluster.crd.antrea.io_clusterinfoimports.yaml',
  'multicluster.crd.antrea.io_labelidentities.yaml',
  'multicluster.crd.antrea.io_gateways.yaml',
  'multicluster.crd.antrea.io_clusterclaims.yaml',
  'crd.antrea.io_tiers.yaml',
  'crd.antrea.io_clusternetworkpolicies.yaml',
  'crd.antrea.io_clustergroups.yaml',
];

/** The CRDs Argo CD installs in the management cluster. */
export const ARGOCD_CRDS: readonly string[] = [
  'argoproj.io_applications.yaml',
  'argoproj.io_appprojects.yaml',
];

/** Installs vendored CRDs (crds/<file>) with server-side apply as `manager`, as an installation would. */
export async function installCrds(
  cluster: Cluster,
  files: readonly string[],
  manager: string,
): Promise<void> {
  for (const file of files) {
    const obj = loadYaml(
      fs.readFileSync(path.join(__dirname, '..', '..', 'crds', file), 'utf8'),
    ) as KubeObject;
    const r = await applyObject(cluster, { file, obj, wave: 0 }, { fieldManager: manager });
    if ('rejection' in r) throw new Error(`installing ${file}: ${r.rejection.message}`);
  }
}
