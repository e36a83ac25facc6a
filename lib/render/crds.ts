/**
 * CustomResourceDefinitions a bundle must bring itself, from the vendored copies in crds/
 * (provenance in crds/SOURCES.md): in the leader, the four Antrea MC CRDs it serves (no Antrea leader
 * manifest is applied there); in members, the About API's ClusterProperty (Antrea does not ship it).
 * Antrea's own member manifest installs everything else a member needs.
 */
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { loadCrd } from '../crds';
import { SYNC_WAVE, WAVE_CRDS, constructId } from './util';

export const LEADER_CRDS: readonly string[] = [
  'multicluster.crd.antrea.io_clustersets.yaml',
  'multicluster.crd.antrea.io_memberclusterannounces.yaml',
  'multicluster.crd.antrea.io_resourceexports.yaml',
  'multicluster.crd.antrea.io_resourceimports.yaml',
];
export const MEMBER_CRDS: readonly string[] = ['about.k8s.io_clusterproperties.yaml'];

export function renderCrds(scope: Construct, files: readonly string[]): void {
  for (const file of files) {
    const crd = loadCrd(file);
    const { apiVersion, kind, metadata, ...rest } = crd;
    new ApiObject(scope, constructId(kind, undefined, metadata.name), {
      apiVersion,
      kind,
      metadata: {
        name: metadata.name,
        annotations: { ...(metadata.annotations ?? {}), [SYNC_WAVE]: WAVE_CRDS },
        ...(metadata.labels ? { labels: metadata.labels } : {}),
      },
      ...rest,
    });
  }
}
