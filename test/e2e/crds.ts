import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadYaml } from '../../lib/yaml';
import type { KubeObject } from '../parties/argocd-apply';
import { applyObject } from '../parties/argocd-apply';
import type { Cluster } from '../kube/cluster';

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
