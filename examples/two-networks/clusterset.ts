/**
 * Members on two networks: `east` and `north` share `dc1`, `south` sits on `dc2`; every member has a
 * gateway and exports ClusterIP endpoints. Several Services, some multi-port (one with the same
 * port number on UDP and TCP), exported across networks. Custom namespaces and token Secret name.
 * Delivery from the leader with every setting changed: Argo CD in its own namespace and project,
 * clusters named as registered in Argo CD, Flux with a git Secret and a custom kubeconfig Secret.
 * The reconciler with every setting changed: its own image, one replica, members retired after
 * 90 minutes, more memory.
 */
import type { ClusterSetProps } from 'clusterset';

const model: ClusterSetProps = {
  clusterSetId: 'net-set',
  leaderNamespace: 'mc-leader',
  memberNamespace: 'mc-member',
  leader: 'hub',
  members: ['south', 'east', 'north'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', network: 'dc1', serviceCIDR: '10.100.0.0/16' },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.101.0.0/16',
      podCIDRs: ['10.201.0.0/16'],
      endpointIPType: 'ClusterIP',
      gateway: { nodes: [{ name: 'east-gw-0' }, { name: 'east-gw-1' }] },
    },
    {
      id: 'north',
      apiServer: 'https://north.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.102.0.0/16',
      gateway: { nodes: [{ name: 'north-gw-0' }], ipPrecedence: 'internal' },
    },
    {
      id: 'south',
      apiServer: 'https://south.example.com:6443',
      network: 'dc2',
      serviceCIDR: '10.103.0.0/16',
      podCIDRs: ['10.203.0.0/16'],
      gateway: { nodes: [{ name: 'south-gw-0', ip: '198.51.100.7' }], ipPrecedence: 'public' },
    },
  ],
  secrets: { memberTokenSecretName: 'net-set-leader-token' },
  reconciler: {
    image: 'registry.example.com/platform/clusterset:0.1.0',
    replicas: 1,
    retireMembersAfter: '90m',
    resources: { requests: { memory: '128Mi' }, limits: { memory: '512Mi' } },
  },
  delivery: {
    repoURL: 'ssh://git@git.example.com/net/gitops.git',
    branch: 'release/2026.12',
    path: 'deploy/out',
    managementCluster: 'hub',
    argocd: { namespace: 'gitops', project: 'net-platform', destinationBy: 'name', selfHeal: false },
    flux: {
      interval: '10m',
      gitSecretName: 'gitops-deploy-key',
      kubeConfigSecrets: { south: 'south-admin-kubeconfig' },
      kubeConfigKey: 'kubeconfig',
    },
  },
  services: [
    {
      namespace: 'prod',
      name: 'web',
      ports: [
        { name: 'https', port: 443 },
        { name: 'http', port: 80, protocol: 'TCP' },
      ],
      exportedFrom: ['south', 'east'],
    },
    {
      namespace: 'platform',
      name: 'dns',
      ports: [
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
      exportedFrom: ['north', 'south', 'east'],
    },
    { namespace: 'prod', name: 'api', ports: [{ port: 8080 }], exportedFrom: ['north'] },
    {
      namespace: 'media',
      name: 'stream',
      ports: [
        { name: 'rtp', port: 5004, protocol: 'UDP' },
        { name: 'control', port: 554, protocol: 'TCP' },
        { name: 'sig', port: 9899, protocol: 'SCTP' },
      ],
      exportedFrom: ['south'],
    },
  ],
};

export default model;
