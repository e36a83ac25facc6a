/**
 * The example ClusterSet that `npm run synth` renders into out/.
 *
 * A leader (`hub`, on the management network) and four members on two networks: `east` and `west`
 * share the `dc1` network, `central` and `edge` sit on `dc2` behind gateways. Services are exported
 * from several members; every member gets the baseline policies; the stretched policies admit
 * callers from any cluster of the set. Argo CD and Flux, in `hub`, deliver every bundle.
 */
import type { ClusterSetProps } from './lib/model';

const clusterSet: ClusterSetProps = {
  clusterSetId: 'prod-set',
  antreaVersion: '2.7.0',
  leader: 'hub',
  members: ['east', 'west', 'central', 'edge'],
  clusters: [
    {
      id: 'hub',
      apiServer: 'https://hub.k8s.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.100.0.0/16',
      podCIDRs: ['10.200.0.0/16'],
    },
    {
      id: 'east',
      apiServer: 'https://east.k8s.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.101.0.0/16',
      podCIDRs: ['10.201.0.0/16'],
      gateway: { nodes: [{ name: 'east-gw-0' }, { name: 'east-gw-1' }] },
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'west',
      apiServer: 'https://west.k8s.example.com:6443',
      network: 'dc1',
      serviceCIDR: '10.102.0.0/16',
      podCIDRs: ['10.202.0.0/16'],
      gateway: { nodes: [{ name: 'west-gw-0' }] },
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'central',
      apiServer: 'https://central.k8s.example.com:6443',
      network: 'dc2',
      serviceCIDR: '10.103.0.0/16',
      podCIDRs: ['10.203.0.0/16'],
      gateway: { nodes: [{ name: 'central-gw-0', ip: '192.0.2.10' }], ipPrecedence: 'public' },
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'edge',
      apiServer: 'https://edge.k8s.example.com:6443',
      network: 'dc2',
      serviceCIDR: '10.104.0.0/16',
      podCIDRs: ['10.204.0.0/16'],
      gateway: { nodes: [{ name: 'edge-gw-0' }] },
    },
  ],
  services: [
    {
      namespace: 'shop',
      name: 'cart',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      exportedFrom: ['east', 'west'],
    },
    {
      namespace: 'shop',
      name: 'catalog',
      ports: [
        { name: 'http', port: 80 },
        { name: 'grpc', port: 9090 },
      ],
      exportedFrom: ['east', 'central'],
    },
    {
      namespace: 'payments',
      name: 'ledger',
      ports: [{ name: 'grpc', port: 9443 }],
      exportedFrom: ['central'],
    },
    {
      namespace: 'platform',
      name: 'dns-cache',
      ports: [
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
      exportedFrom: ['east', 'west', 'central', 'edge'],
    },
  ],
  tiers: [{ name: 'clusterset-baseline', priority: 240, description: 'Rules every member of prod-set gets' }],
  baselinePolicies: [
    {
      name: 'deny-cross-ns-payments',
      tier: 'clusterset-baseline',
      priority: 10,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'payments' } } }],
      ingress: [
        {
          name: 'allow-shop',
          action: 'Allow',
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
          ports: [{ port: 9443 }],
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
          to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'platform' } } }],
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
      members: ['east', 'west'],
      tier: 'application',
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
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } },
            },
          ],
          ports: [{ port: 8080 }],
        },
        { name: 'drop-others', action: 'Drop', from: [{ scope: 'ClusterSet', namespaceSelector: {} }] },
      ],
    },
    {
      name: 'shop-to-ledger',
      members: ['east', 'west', 'central'],
      tier: 'application',
      priority: 30,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
      egress: [{ name: 'ledger', action: 'Allow', toServices: [{ namespace: 'payments', name: 'ledger' }] }],
    },
  ],
  // No `takeOver` (the default): Antrea's install keeps its member controller ConfigMap, and the
  // application teams' Applications keep the shop, payments and platform Namespaces, which must exist
  // before a member's bundle applies. `npx clusterset explain --cluster east` prints the
  // controller_manager_config.yaml Antrea's install must ship there; `takeOver: { memberControllerConfig:
  // true, serviceNamespaces: true }` would render both into the bundles instead (README.md, "Objects
  // the team already owns").
  // Argo CD and Flux run in the leader; out/ is committed to this repository. Bootstrap one of the
  // two tools, not both (README.md, "Delivery with Argo CD / Flux").
  delivery: {
    repoURL: 'https://git.example.com/platform/gitops.git',
    branch: 'main',
    path: 'out',
    managementCluster: 'hub',
  },
};

export default clusterSet;
