/**
 * Baseline and stretched policies: two custom Tiers, baseline policies on a custom and a built-in
 * Tier (with port numbers, port ranges and UDP), stretched policies with ClusterSet-scope ingress and
 * `toServices` egress targeting `east` and `north`, and a member `west` without stretched policy that
 * no stretched policy targets.
 */
import type { ClusterSetProps } from 'clusterset';

const model: ClusterSetProps = {
  clusterSetId: 'policy-set',
  leader: 'hub',
  members: ['east', 'north', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      serviceCIDR: '10.101.0.0/16',
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'north',
      apiServer: 'https://north.example.com:6443',
      serviceCIDR: '10.102.0.0/16',
      enableStretchedNetworkPolicy: true,
    },
    { id: 'west', apiServer: 'https://west.example.com:6443', serviceCIDR: '10.103.0.0/16' },
  ],
  services: [
    { namespace: 'payments', name: 'ledger', ports: [{ name: 'grpc', port: 9443 }], exportedFrom: ['west'] },
    {
      namespace: 'shop',
      name: 'cart',
      ports: [{ name: 'http', port: 8080 }],
      exportedFrom: ['east', 'north'],
    },
  ],
  tiers: [
    { name: 'mc-stretched', priority: 100 },
    { name: 'mc-security', priority: 101, description: 'ClusterSet-wide guard rails' },
    { name: 'mc-unused', priority: 102, description: 'declared but used by no policy' },
  ],
  baselinePolicies: [
    {
      name: 'payments-guard',
      tier: 'mc-security',
      priority: 10,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'payments' } } }],
      ingress: [
        {
          name: 'allow-shop',
          action: 'Allow',
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
          ports: [{ port: 9443 }, { protocol: 'TCP', port: 10000, endPort: 10100 }],
        },
        { name: 'drop-rest', action: 'Drop', from: [{ namespaceSelector: {} }] },
      ],
    },
    {
      name: 'allow-dns',
      tier: 'platform',
      priority: 5,
      appliedTo: [{ namespaceSelector: {} }],
      egress: [
        {
          name: 'dns',
          action: 'Allow',
          to: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } },
            { ipBlock: { cidr: '169.254.20.10/32' } },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
      ],
    },
  ],
  stretchedPolicies: [
    {
      name: 'cart-ingress',
      members: ['north', 'east'],
      tier: 'mc-stretched',
      priority: 20,
      appliedTo: [
        {
          podSelector: { matchLabels: { app: 'cart' } },
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } },
        },
      ],
      ingress: [
        {
          name: 'from-frontend-anywhere',
          action: 'Allow',
          from: [
            {
              scope: 'ClusterSet',
              podSelector: { matchLabels: { app: 'frontend' } },
              namespaceSelector: {
                matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'edge'] }],
              },
            },
          ],
          ports: [{ port: 8080 }],
        },
        { name: 'drop-others', action: 'Drop', from: [{ scope: 'ClusterSet', namespaceSelector: {} }] },
      ],
    },
    {
      name: 'shop-to-ledger',
      members: ['east'],
      tier: 'application',
      priority: 30,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
      egress: [
        { name: 'ledger', action: 'Allow', toServices: [{ namespace: 'payments', name: 'ledger' }] },
        { name: 'cart', action: 'Allow', toServices: [{ namespace: 'shop', name: 'cart' }] },
      ],
    },
  ],
};

export default model;
