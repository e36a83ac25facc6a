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
