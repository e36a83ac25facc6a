/**
 * The leader is also a member: `hub` leads and joins, with `east` and `west`. Services are exported
 * from the leader too, and one lives in a namespace of its own. A baseline policy reaches all three.
 * clusterset takes over Antrea's member controller ConfigMap and the Services' Namespaces. Argo CD
 * and Flux run in `hub` with their defaults.
 */
import type { ClusterSetProps } from 'clusterset';

const model: ClusterSetProps = {
  clusterSetId: 'dual-set',
  leader: 'hub',
  members: ['west', 'hub', 'east'],
  clusters: [
    { id: 'east', apiServer: 'https://east.example.com:6443', serviceCIDR: '10.101.0.0/16' },
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    { id: 'west', apiServer: 'https://west.example.com:6443', serviceCIDR: '10.102.0.0/16' },
  ],
  services: [
    { namespace: 'shop', name: 'cart', ports: [{ name: 'http', port: 8080 }], exportedFrom: ['hub', 'east'] },
    { namespace: 'ops', name: 'metrics', ports: [{ name: 'prom', port: 9090 }], exportedFrom: ['hub'] },
  ],
  baselinePolicies: [
    {
      name: 'deny-untrusted',
      tier: 'securityops',
      priority: 1,
      appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
      ingress: [
        { name: 'drop', action: 'Drop', from: [{ namespaceSelector: { matchLabels: { trust: 'none' } } }] },
      ],
    },
  ],
  // clusterset takes over what another owner usually holds: Antrea's member controller ConfigMap and
  // the Namespaces of the exported Services (ops, shop) in every member.
  takeOver: { memberControllerConfig: true, serviceNamespaces: true },
  // Argo CD and Flux with every default, in the dual-role leader.
  delivery: { repoURL: 'https://git.example.com/dual/gitops.git', managementCluster: 'hub' },
};

export default model;
