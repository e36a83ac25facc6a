/**
 * A valid ClusterSet that the check stage accepts without a single diagnostic: a leader (`hub`,
 * not a member) and three members on two networks (`east` and `north` on `dc1`, `west` on `dc2`),
 * each with a gateway; Services exported across networks; custom Tiers; baseline and stretched
 * policies; ClusterGroups, one named by a baseline policy. Tests break it in one place at a time.
 */
import type { ModelDraft } from '../helpers/models';

export type { ModelDraft } from '../helpers/models';

const BASE: ModelDraft = {
  clusterSetId: 'prod-set',
  leader: 'hub',
  members: ['east', 'north', 'west'],
  clusters: [
    {
      id: 'hub',
      apiServer: 'https://hub.example.com:6443',
      serviceCIDR: '10.96.0.0/16',
    },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.101.0.0/16',
      podCIDRs: ['10.201.0.0/16'],
      gateway: { nodes: [{ name: 'east-gw-1' }, { name: 'east-gw-2' }] },
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'north',
      apiServer: 'https://north.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.102.0.0/16',
      podCIDRs: ['10.202.0.0/16'],
      gateway: { nodes: [{ name: 'north-gw-1' }] },
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'west',
      apiServer: 'https://west.example.com:6443',
      network: 'dc2',
      serviceCIDR: '10.103.0.0/16',
      podCIDRs: ['10.203.0.0/16'],
      endpointIPType: 'ClusterIP',
      gateway: { nodes: [{ name: 'west-gw-1', ip: '192.0.2.10' }], ipPrecedence: 'public' },
    },
  ],
  services: [
    {
      namespace: 'prod',
      name: 'web',
      ports: [
        { name: 'http', port: 80 },
        { name: 'https', port: 443, protocol: 'TCP' },
      ],
      exportedFrom: ['east', 'west'],
    },
    { namespace: 'prod', name: 'api', ports: [{ port: 8080 }], exportedFrom: ['north'] },
    {
      namespace: 'shop',
      name: 'cart',
      ports: [
        { name: 'grpc', port: 9090, protocol: 'TCP' },
        { name: 'metrics', port: 9090, protocol: 'UDP' },
      ],
      exportedFrom: ['west'],
    },
  ],
  tiers: [
    { name: 'mc-stretched', priority: 100 },
    { name: 'mc-security', priority: 101, description: 'ClusterSet-wide guard rails' },
  ],
  clusterGroups: [
    { name: 'node-local-dns', ipBlocks: [{ cidr: '169.254.0.0/16', except: ['169.254.169.254/32'] }] },
    { name: 'dns', childGroups: ['node-local-dns'] },
  ],
  baselinePolicies: [
    {
      name: 'deny-untrusted',
      tier: 'mc-security',
      priority: 10,
      appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
      ingress: [
        {
          name: 'drop-untrusted',
          action: 'Drop',
          from: [{ namespaceSelector: { matchLabels: { trust: 'none' } } }],
        },
      ],
    },
    {
      name: 'allow-dns',
      tier: 'application',
      priority: 5,
      appliedTo: [{ podSelector: {} }],
      egress: [
        {
          name: 'dns',
          action: 'Allow',
          to: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } },
            { group: 'dns' },
          ],
          ports: [{ protocol: 'UDP', port: 53 }],
        },
      ],
    },
  ],
  stretchedPolicies: [
    {
      name: 'web-from-clients',
      tier: 'mc-stretched',
      priority: 20,
      members: ['east', 'north'],
      appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }],
      ingress: [
        {
          name: 'from-clients',
          action: 'Allow',
          from: [{ podSelector: { matchLabels: { role: 'client' } }, scope: 'ClusterSet' }],
        },
      ],
      egress: [{ name: 'to-api', action: 'Allow', toServices: [{ namespace: 'prod', name: 'api' }] }],
    },
  ],
};

/** A fresh copy of the valid base model. */
export function baseModel(): ModelDraft {
  return structuredClone(BASE);
}

/** The base model after `mutate`. */
export function broken(mutate: (m: ModelDraft) => void): ModelDraft {
  const m = baseModel();
  mutate(m);
  return m;
}
