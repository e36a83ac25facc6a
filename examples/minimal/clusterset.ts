/**
 * The smallest useful ClusterSet: leader `hub` (not a member) and members `east` and `west` on one
 * flat network (no network declared), Pod IP endpoints, one Service exported from both members.
 */
import type { ClusterSetProps } from 'clusterset';

const model: ClusterSetProps = {
  clusterSetId: 'mini-set',
  leader: 'hub',
  members: ['east', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      serviceCIDR: '10.101.0.0/16',
      podCIDRs: ['10.201.0.0/16'],
      endpointIPType: 'PodIP',
    },
    {
      id: 'west',
      apiServer: 'https://west.example.com:6443',
      serviceCIDR: '10.102.0.0/16',
      podCIDRs: ['10.202.0.0/16'],
      endpointIPType: 'PodIP',
    },
  ],
  services: [
    {
      namespace: 'shop',
      name: 'cart',
      ports: [{ name: 'http', port: 8080 }],
      exportedFrom: ['east', 'west'],
    },
  ],
};

export default model;
