/**
 * CustomResourceDefinitions a bundle must bring itself, from the vendored copies in crds/
 * (provenance in crds/SOURCES.md): in the leader, the four Antrea MC CRDs it serves (no Antrea leader
 * manifest is applied there); in members, the About API's ClusterProperty (Antrea does not ship it).
 * Antrea's own member manifest installs everything else a member needs.
 */
import { NEVER_PRUNE } from './namespaces';
import { loadCrd } from '../crds';
import { SYNC_WAVE, WAVE_CRDS, putObject, type Sink } from './util';

export const LEADER_CRDS: readonly string[] = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.crd.antrea.io_memberclusterannounces.yaml',
  'multicluster.crd.antrea.io_resourceexports.yaml',
  'multicluster.crd.antrea.io_resourceimports.yaml',
];
export const MEMBER_CRDS: readonly string[] = ['about.k8s.io_clusterproperties.yaml'];

/**
 * CRDs in protected groups (`*.k8s.io`, `*.kubernetes.io`) are refused by kube-apiserver without an
 * `api-approved.kubernetes.io` annotation. The About API's upstream CRD is not annotated in the
 * copy we vendor; its API review is kubernetes/enhancements#3084 (KEP-2149).
 */
const API_APPROVED: Readonly<Record<string, string>> = {
  'clusterproperties.about.k8s.io': 'https://github.com/kubernetes/enhancements/pull/3084',
};

export function renderCrds(scope: Sink, files: readonly string[]): void {
  for (const file of files) {
    const crd = loadCrd(file);
    const { apiVersion, kind, metadata, ...rest } = crd;
    putObject(scope, {
      apiVersion,
      kind,
      metadata: {
        name: metadata.name,
        annotations: {
          ...(metadata.annotations ?? {}),
          ...(API_APPROVED[metadata.name]
            ? { 'api-approved.kubernetes.io': API_APPROVED[metadata.name] }
            : {}),
          [SYNC_WAVE]: WAVE_CRDS,
          ...NEVER_PRUNE,
        },
        ...(metadata.labels ? { labels: metadata.labels } : {}),
      },
      ...rest,
    });
  }
}
