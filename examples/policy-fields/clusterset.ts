/**
 * The policy fields beyond selectors and multi-cluster Services, in baseline (replicated) and
 * stretched (direct) policies: Antrea's per-Namespace isolation baseline (`namespaces: {match:
 * Self}`), tenant isolation by `sameLabels`, ClusterGroups (one nested, one used only by a stretched
 * policy, one declared but unused), ServiceAccounts, a Node policy, ipBlock `except`, FQDN egress,
 * in-cluster `toServices`, rule-level appliedTo, named ports, port and source-port ranges, ICMP and
 * IGMP, HTTP and TLS rules, and logging.
 */
import type { ClusterSetProps } from 'clusterset';

const NS = 'kubernetes.io/metadata.name';

const model: ClusterSetProps = {
  clusterSetId: 'fields-set',
  leader: 'hub',
  members: ['east', 'west'],
  clusters: [
    { id: 'hub', apiServer: 'https://hub.example.com:6443', serviceCIDR: '10.100.0.0/16' },
    {
      id: 'east',
      apiServer: 'https://east.example.com:6443',
      serviceCIDR: '10.101.0.0/16',
      enableStretchedNetworkPolicy: true,
    },
    {
      id: 'west',
      apiServer: 'https://west.example.com:6443',
      serviceCIDR: '10.102.0.0/16',
      enableStretchedNetworkPolicy: true,
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
  clusterGroups: [
    { name: 'node-local-dns', ipBlocks: [{ cidr: '169.254.0.0/16', except: ['169.254.169.254/32'] }] },
    {
      name: 'cluster-dns',
      podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      namespaceSelector: { matchLabels: { [NS]: 'kube-system' } },
    },
    { name: 'dns', childGroups: ['cluster-dns', 'node-local-dns'] },
    { name: 'monitoring', namespaceSelector: { matchLabels: { [NS]: 'monitoring' } } },
    {
      name: 'prometheus',
      podSelector: { matchLabels: { app: 'prometheus' } },
      namespaceSelector: { matchLabels: { [NS]: 'monitoring' } },
    },
    { name: 'unused', serviceReference: { namespace: 'shop', name: 'cart' } },
  ],
  baselinePolicies: [
    {
      // Antrea's multi-cluster user guide: strict Namespace isolation, replicated to every member.
      // The guide applies it to every Namespace; kube-system is left out here, as the compiler's
      // warning says, or CoreDNS would drop every other Namespace's DNS queries.
      name: 'namespace-isolation',
      tier: 'securityops',
      priority: 1,
      appliedTo: [
        {
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
            ],
          },
        },
      ],
      ingress: [
        {
          name: 'same-namespace-or-dns',
          action: 'Pass',
          from: [{ namespaces: { match: 'Self' } }, { group: 'dns' }],
        },
        {
          name: 'same-tenant',
          action: 'Pass',
          from: [
            { namespaces: { sameLabels: ['tenant'] }, podSelector: { matchLabels: { exposed: 'true' } } },
          ],
        },
        {
          name: 'drop-other-namespaces',
          action: 'Drop',
          from: [{ namespaceSelector: {} }],
          enableLogging: true,
          logLabel: 'ns-isolation',
        },
      ],
      egress: [
        {
          name: 'dns',
          action: 'Allow',
          to: [{ group: 'dns' }],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 'dns-tcp' },
          ],
        },
        {
          name: 'no-metadata',
          action: 'Drop',
          to: [{ ipBlock: { cidr: '169.254.0.0/16', except: ['169.254.20.10/32'] } }],
        },
      ],
    },
    {
      name: 'egress-controls',
      tier: 'platform',
      priority: 10,
      ingress: [
        {
          name: 'ping-from-monitoring',
          action: 'Allow',
          appliedTo: [{ namespaceSelector: {} }],
          from: [{ group: 'monitoring' }],
          protocols: [{ icmp: { icmpType: 8, icmpCode: 0 } }],
        },
        {
          name: 'igmp-queries',
          action: 'Allow',
          appliedTo: [{ podSelector: { matchLabels: { multicast: 'true' } } }],
          protocols: [{ igmp: { igmpType: 17, groupAddress: '225.1.2.3' } }],
        },
      ],
      egress: [
        {
          name: 'payments-api',
          action: 'Allow',
          appliedTo: [{ serviceAccount: { namespace: 'payments', name: 'billing' } }],
          to: [{ fqdn: '*.payments.example.com' }],
          ports: [{ protocol: 'TCP', port: 443 }],
          l7Protocols: [{ tls: { sni: 'api.payments.example.com' } }],
        },
        {
          name: 'in-cluster-kube-dns',
          action: 'Allow',
          appliedTo: [{ namespaceSelector: { matchLabels: { [NS]: 'shop' } } }],
          toServices: [{ namespace: 'kube-system', name: 'kube-dns', scope: 'Cluster' }],
        },
        {
          name: 'http-to-cart',
          action: 'Allow',
          appliedTo: [{ namespaceSelector: { matchLabels: { [NS]: 'web' } } }],
          to: [{ namespaceSelector: { matchLabels: { [NS]: 'shop' } } }],
          ports: [{ port: 8080, sourcePort: 32768, sourceEndPort: 60999 }],
          l7Protocols: [{ http: { method: 'GET', path: '/cart/*' } }],
        },
        {
          name: 'igmp-reports',
          action: 'Allow',
          appliedTo: [{ podSelector: { matchLabels: { multicast: 'true' } } }],
          protocols: [{ igmp: { igmpType: 22, groupAddress: '225.1.2.3' } }],
        },
      ],
    },
    {
      name: 'node-ssh',
      tier: 'securityops',
      priority: 20,
      appliedTo: [{ nodeSelector: { matchLabels: { 'node-role.kubernetes.io/control-plane': '' } } }],
      ingress: [
        {
          name: 'ssh-from-bastion',
          action: 'Allow',
          from: [{ ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } }],
          ports: [{ port: 22 }],
        },
        { name: 'drop-ssh', action: 'Drop', ports: [{ port: 22, endPort: 23 }], enableLogging: true },
      ],
    },
  ],
  stretchedPolicies: [
    {
      name: 'tenant-isolation-clusterset',
      members: ['east'],
      tier: 'securityops',
      priority: 2,
      appliedTo: [{ namespaceSelector: { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] } }],
      ingress: [
        {
          name: 'same-tenant-anywhere',
          action: 'Allow',
          from: [{ scope: 'ClusterSet', namespaces: { sameLabels: ['tenant'] } }],
        },
        {
          name: 'monitoring',
          action: 'Allow',
          from: [{ group: 'prometheus' }],
          ports: [{ port: 'metrics' }],
        },
        {
          name: 'drop-rest',
          action: 'Drop',
          from: [{ scope: 'ClusterSet', namespaceSelector: {} }],
          logLabel: 'tenant-drop',
        },
      ],
      egress: [
        {
          name: 'cart',
          action: 'Allow',
          toServices: [{ namespace: 'shop', name: 'cart', scope: 'ClusterSet' }],
        },
        {
          name: 'ci-bot-api',
          action: 'Allow',
          to: [{ serviceAccount: { namespace: 'ci', name: 'bot' } }],
          ports: [{ protocol: 'TCP', port: 6443 }],
        },
      ],
    },
  ],
};

export default model;
