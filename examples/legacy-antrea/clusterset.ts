/**
 * A ClusterSet that targets Antrea older than 1.13: members also get the legacy ClusterClaims
 * `id.k8s.io` and `clusterset.k8s.io`, in the member controller namespace.
 */
import type { ClusterSetProps } from 'clusterset';

const model: ClusterSetProps = {
  clusterSetId: 'legacy-set',
  antreaVersion: '1.12.2',
  leader: 'hub',
  members: ['east', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    { id: 'east', apiServer: 'https://east.example.com:6443', serviceCIDR: '10.101.0.0/16' },
    { id: 'west', apiServer: 'https://west.example.com:6443', serviceCIDR: '10.102.0.0/16' },
  ],
  services: [
    { namespace: 'shop', name: 'cart', ports: [{ name: 'http', port: 8080 }], exportedFrom: ['east'] },
  ],
};

export default model;
