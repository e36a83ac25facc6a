import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Diagnostic } from '../../lib/diagnostics';
import { formatDiagnostic, sortDiagnostics } from '../../lib/diagnostics';
import { checkModel, RULES } from '../../lib/check';
import { compile } from '../../lib/compile';
import { parseIpv4, parseIpv4Cidr, rangesOverlap } from '../../lib/check/ipv4';
import type { ClusterSetProps } from '../../lib/model';
import { baseModel, broken, type ModelDraft } from './fixtures';
import { minimalModel } from '../helpers/models';

/** One minimal way to break the base model for a rule, and where the rule must point. */
interface Case {
  readonly when: string;
  readonly mutate: (m: ModelDraft) => void;
  readonly path: string;
}

/** At least one case per rule ID; the test "every rule has a case" keeps this table complete. */
const CASES: Record<string, readonly Case[]> = {
  'cluster-id-format': [
    {
      when: 'a cluster ID has an uppercase letter and "_"',
      mutate: (m) => void (m.clusters[1]!.id = 'East_1'),
      path: 'clusters[1].id',
    },
    {
      when: 'a cluster ID is 64 characters long',
      mutate: (m) => void (m.clusters[0]!.id = 'h'.repeat(64)),
      path: 'clusters[0].id',
    },
    {
      when: 'a cluster ID ends with "-"',
      mutate: (m) => void (m.clusters[0]!.id = 'hub-'),
      path: 'clusters[0].id',
    },
  ],
  'clusterset-id-format': [
    {
      when: 'the ClusterSet ID has an uppercase letter',
      mutate: (m) => void (m.clusterSetId = 'Prod_Set'),
      path: 'clusterSetId',
    },
  ],
  'namespace-format': [
    {
      when: 'the leader namespace has "_"',
      mutate: (m) => void (m.leaderNamespace = 'antrea_mc'),
      path: 'leaderNamespace',
    },
    {
      when: 'the member namespace has a "."',
      mutate: (m) => void (m.memberNamespace = 'kube.system'),
      path: 'memberNamespace',
    },
  ],
  'cluster-id-duplicate': [
    {
      when: 'two clusters share the ID "east"',
      mutate: (m) => void (m.clusters[2]!.id = 'east'),
      path: 'clusters[2].id',
    },
  ],
  'member-id-dash-prefix': [
    {
      when: 'members "east" and "east-1" form a dash-prefix pair',
      mutate: (m) => {
        m.clusters[2]!.id = 'east-1';
        m.members[1] = 'east-1';
      },
      path: 'members[1]',
    },
  ],
  'leader-unknown': [
    { when: 'the leader names no cluster', mutate: (m) => void (m.leader = 'hubb'), path: 'leader' },
  ],
  'member-unknown': [
    { when: 'a member names no cluster', mutate: (m) => void m.members.push('south'), path: 'members[3]' },
  ],
  'dual-role-namespace-clash': [
    {
      when: 'the leader is also a member and both namespaces are the same',
      mutate: (m) => {
        m.members.push(m.leader);
        m.memberNamespace = 'antrea-multicluster';
      },
      path: 'memberNamespace',
    },
  ],
  'members-empty': [{ when: 'members is empty', mutate: (m) => void (m.members = []), path: 'members' }],
  'member-duplicate': [
    { when: '"east" is listed twice', mutate: (m) => void m.members.push('east'), path: 'members[3]' },
  ],
  'service-name-format': [
    {
      when: 'a Service name is 54 characters long',
      mutate: (m) => void (m.services![0]!.name = 'w'.repeat(54)),
      path: 'services[0].name',
    },
    {
      when: 'a Service name starts with a digit',
      mutate: (m) => void (m.services![1]!.name = '1api'),
      path: 'services[1].name',
    },
  ],
  'service-namespace-format': [
    {
      when: 'a Service namespace has an uppercase letter',
      mutate: (m) => void (m.services![1]!.namespace = 'Prod'),
      path: 'services[1].namespace',
    },
  ],
  'service-duplicate': [
    {
      when: 'prod/web is declared twice',
      mutate: (m) => void m.services!.push(structuredClone(m.services![0]!)),
      path: 'services[3]',
    },
  ],
  'service-import-name-collision': [
    {
      when: 'prod/web-api and prod-web/api are both exported',
      mutate: (m) => {
        m.services![1]!.name = 'web-api';
        m.services!.push({
          namespace: 'prod-web',
          name: 'api',
          ports: [{ port: 80 }],
          exportedFrom: ['east'],
        });
      },
      path: 'services[3]',
    },
  ],
  'service-export-not-member': [
    {
      when: 'a Service is exported from the leader, which is not a member',
      mutate: (m) => void (m.services![0]!.exportedFrom[1] = 'hub'),
      path: 'services[0].exportedFrom[1]',
    },
    {
      when: 'a Service is exported from an unknown cluster',
      mutate: (m) => void (m.services![2]!.exportedFrom = ['wset']),
      path: 'services[2].exportedFrom[0]',
    },
  ],
  'service-exported-from-empty': [
    {
      when: 'a Service is exported from no member',
      mutate: (m) => void (m.services![1]!.exportedFrom = []),
      path: 'services[1].exportedFrom',
    },
  ],
  'service-port-name-duplicate': [
    {
      when: 'two ports are named "http"',
      mutate: (m) => void (m.services![0]!.ports[1]!.name = 'http'),
      path: 'services[0].ports[1].name',
    },
  ],
  'service-port-duplicate': [
    {
      when: 'port 80/TCP is declared twice',
      mutate: (m) => void (m.services![0]!.ports[1]!.port = 80),
      path: 'services[0].ports[1].port',
    },
    {
      when: 'port 9090 is declared twice as UDP',
      mutate: (m) => void (m.services![2]!.ports[0]!.protocol = 'UDP'),
      path: 'services[2].ports[1].port',
    },
  ],
  'service-port-name-missing': [
    {
      when: 'one of two ports has no name',
      mutate: (m) => void delete m.services![0]!.ports[1]!.name,
      path: 'services[0].ports[1].name',
    },
  ],
  'service-port-range': [
    {
      when: 'a port is 70000',
      mutate: (m) => void (m.services![1]!.ports[0]!.port = 70000),
      path: 'services[1].ports[0].port',
    },
    {
      when: 'a port is 0',
      mutate: (m) => void (m.services![1]!.ports[0]!.port = 0),
      path: 'services[1].ports[0].port',
    },
    {
      when: 'a port is 80.5',
      mutate: (m) => void (m.services![1]!.ports[0]!.port = 80.5),
      path: 'services[1].ports[0].port',
    },
  ],
  'tier-name-duplicate': [
    {
      when: 'two Tiers are named "mc-stretched"',
      mutate: (m) => void (m.tiers![1]!.name = 'mc-stretched'),
      path: 'tiers[1].name',
    },
  ],
  'tier-priority-duplicate': [
    {
      when: 'two Tiers have priority 100',
      mutate: (m) => void (m.tiers![1]!.priority = 100),
      path: 'tiers[1].priority',
    },
  ],
  'tier-builtin-clash': [
    {
      when: 'a custom Tier is named "baseline"',
      mutate: (m) => void (m.tiers![0]!.name = 'baseline'),
      path: 'tiers[0].name',
    },
  ],
  'policy-name-format': [
    {
      when: 'a baseline policy name has "_"',
      mutate: (m) => void (m.baselinePolicies![0]!.name = 'deny_untrusted'),
      path: 'baselinePolicies[0].name',
    },
    {
      when: 'a stretched policy name is 54 characters long',
      mutate: (m) => void (m.stretchedPolicies![0]!.name = 'p'.repeat(54)),
      path: 'stretchedPolicies[0].name',
    },
  ],
  'policy-import-name-collision': [
    {
      when: 'a stretched policy is named antrea-mc-<baseline policy>',
      mutate: (m) => void (m.stretchedPolicies![0]!.name = 'antrea-mc-allow-dns'),
      path: 'stretchedPolicies[0].name',
    },
  ],
  'service-import-prefix-collision': [
    {
      when: 'prod/antrea-mc-web is exported beside prod/web',
      mutate: (m) =>
        void m.services!.push({
          namespace: 'prod',
          name: 'antrea-mc-web',
          ports: [{ port: 80 }],
          exportedFrom: ['east'],
        }),
      path: 'services[3].name',
    },
  ],
  'service-system-namespace': [
    {
      when: 'a Service is exported from kube-system',
      mutate: (m) => void (m.services![1]!.namespace = 'kube-system'),
      path: 'services[1].namespace',
    },
    {
      when: 'a Service is exported from the leader namespace',
      mutate: (m) => void (m.services![1]!.namespace = 'antrea-multicluster'),
      path: 'services[1].namespace',
    },
    {
      when: 'a Service is exported from a custom member namespace',
      mutate: (m) => {
        m.memberNamespace = 'antrea-mc';
        m.services![1]!.namespace = 'antrea-mc';
      },
      path: 'services[1].namespace',
    },
  ],
  'label-key-syntax': [
    {
      when: 'a matchLabels key has a space',
      mutate: (m) =>
        void (m.baselinePolicies![0]!.appliedTo![0]!.namespaceSelector = {
          matchLabels: { 'env name': 'prod' },
        }),
      path: 'baselinePolicies[0].appliedTo[0].namespaceSelector.matchLabels["env name"]',
    },
    {
      when: 'a matchLabels key has an uppercase prefix',
      mutate: (m) =>
        void (m.stretchedPolicies![0]!.appliedTo![0]!.podSelector = {
          matchLabels: { 'Example.com/app': 'web' },
        }),
      path: 'stretchedPolicies[0].appliedTo[0].podSelector.matchLabels["Example.com/app"]',
    },
    {
      when: 'a peer expression key is 64 characters long',
      mutate: (m) =>
        void (m.baselinePolicies![0]!.ingress![0]!.from![0]!.namespaceSelector = {
          matchExpressions: [{ key: 'k'.repeat(64), operator: 'Exists' }],
        }),
      path: 'baselinePolicies[0].ingress[0].from[0].namespaceSelector.matchExpressions[0].key',
    },
  ],
  'label-value-syntax': [
    {
      when: 'a matchLabels value ends with "-"',
      mutate: (m) =>
        void (m.baselinePolicies![0]!.appliedTo![0]!.namespaceSelector = { matchLabels: { env: 'prod-' } }),
      path: 'baselinePolicies[0].appliedTo[0].namespaceSelector.matchLabels.env',
    },
    {
      when: 'an expression value has a "/"',
      mutate: (m) =>
        void (m.stretchedPolicies![0]!.ingress![0]!.from![0]!.podSelector = {
          matchExpressions: [{ key: 'role', operator: 'In', values: ['client', 'a/b'] }],
        }),
      path: 'stretchedPolicies[0].ingress[0].from[0].podSelector.matchExpressions[0].values[1]',
    },
  ],
  'label-expression-values': [
    {
      when: 'an In expression has no values',
      mutate: (m) =>
        void (m.baselinePolicies![1]!.appliedTo![0]!.podSelector = {
          matchExpressions: [{ key: 'app', operator: 'In' }],
        }),
      path: 'baselinePolicies[1].appliedTo[0].podSelector.matchExpressions[0].values',
    },
    {
      when: 'an Exists expression has values',
      mutate: (m) =>
        void (m.baselinePolicies![1]!.appliedTo![0]!.podSelector = {
          matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }],
        }),
      path: 'baselinePolicies[1].appliedTo[0].podSelector.matchExpressions[0].values',
    },
  ],
  'antrea-version-format': [
    {
      when: 'antreaVersion is "latest"',
      mutate: (m) => void (m.antreaVersion = 'latest'),
      path: 'antreaVersion',
    },
    {
      when: 'antreaVersion has a pre-release suffix',
      mutate: (m) => void (m.antreaVersion = '2.7.0-rc.1'),
      path: 'antreaVersion',
    },
  ],
  'antrea-version-supported': [
    {
      when: 'antreaVersion is 1.4.2, before multi-cluster',
      mutate: (m) => void (m.antreaVersion = '1.4.2'),
      path: 'antreaVersion',
    },
    {
      when: 'antreaVersion is 2.8.0, newer than supported',
      mutate: (m) => void (m.antreaVersion = '2.8.0'),
      path: 'antreaVersion',
    },
  ],
  'antrea-version-baseline-policies': [
    {
      when: 'antreaVersion is 1.5.3 and there are baseline policies',
      mutate: (m) => void (m.antreaVersion = '1.5.3'),
      path: 'baselinePolicies[1]',
    },
  ],
  'antrea-version-policy-fields': [
    {
      when: 'antreaVersion is 1.5.0 and a policy applies to Nodes',
      mutate: (m) => {
        m.antreaVersion = '1.5.0';
        m.baselinePolicies = [];
        m.stretchedPolicies![0]!.appliedTo = [{ nodeSelector: { matchLabels: { role: 'gw' } } }];
      },
      path: 'stretchedPolicies[0].appliedTo[0].nodeSelector',
    },
    {
      when: 'antreaVersion is 1.9.0 and a rule has l7Protocols',
      mutate: (m) => {
        m.antreaVersion = '1.9.0';
        m.baselinePolicies![1]!.egress![0]!.l7Protocols = [{ http: {} }];
      },
      path: 'baselinePolicies[1].egress[0].l7Protocols',
    },
  ],
  'antrea-version-stretched-policies': [
    {
      when: 'antreaVersion is 1.9.1 and a stretched policy is declared',
      mutate: (m) => void (m.antreaVersion = '1.9.1'),
      path: 'stretchedPolicies[0]',
    },
    {
      when: 'antreaVersion is 1.9.1 and a cluster enables stretched NetworkPolicy',
      mutate: (m) => void (m.antreaVersion = 'v1.9'),
      path: 'clusters[1].enableStretchedNetworkPolicy',
    },
    {
      when: 'antreaVersion is 1.9.1 and a baseline policy has a ClusterSet-scope peer',
      mutate: (m) => {
        m.antreaVersion = '1.9.1';
        m.baselinePolicies![0]!.ingress![0]!.from![0]!.scope = 'ClusterSet';
      },
      path: 'baselinePolicies[0].ingress[0].from[0].scope',
    },
  ],
  'policy-name-duplicate': [
    {
      when: 'a stretched policy reuses a baseline policy name',
      mutate: (m) => void (m.stretchedPolicies![0]!.name = 'deny-untrusted'),
      path: 'stretchedPolicies[0].name',
    },
  ],
  'policy-priority-range': [
    {
      when: 'a policy priority is 0',
      mutate: (m) => void (m.baselinePolicies![1]!.priority = 0),
      path: 'baselinePolicies[1].priority',
    },
    {
      when: 'a policy priority is 10001',
      mutate: (m) => void (m.stretchedPolicies![0]!.priority = 10001),
      path: 'stretchedPolicies[0].priority',
    },
  ],
  'policy-tier-unknown': [
    {
      when: 'a policy names a Tier that is not declared',
      mutate: (m) => void (m.stretchedPolicies![0]!.tier = 'mc-strechted'),
      path: 'stretchedPolicies[0].tier',
    },
  ],
  'baseline-policy-tier-missing': [
    {
      when: 'a baseline policy has no tier',
      mutate: (m) => void delete m.baselinePolicies![0]!.tier,
      path: 'baselinePolicies[0].tier',
    },
    {
      when: 'a baseline policy has an empty tier',
      mutate: (m) => void (m.baselinePolicies![1]!.tier = ''),
      path: 'baselinePolicies[1].tier',
    },
  ],
  'egress-service-unknown': [
    {
      when: 'toServices names a Service that is not declared',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.toServices![0]!.name = 'apii'),
      path: 'stretchedPolicies[0].egress[0].toServices[0]',
    },
  ],
  'egress-to-services-combined': [
    {
      when: 'an egress rule has toServices and ports',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.ports = [{ port: 8080 }]),
      path: 'stretchedPolicies[0].egress[0].ports',
    },
    {
      when: 'an egress rule has toServices and protocols',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.protocols = [{ icmp: {} }]),
      path: 'stretchedPolicies[0].egress[0].protocols',
    },
    {
      when: 'an egress rule has toServices and to',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.to = [{ podSelector: {} }]),
      path: 'stretchedPolicies[0].egress[0].to',
    },
  ],
  'egress-peer-scope-clusterset': [
    {
      when: 'an egress peer has scope ClusterSet',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.to![0]!.scope = 'ClusterSet'),
      path: 'baselinePolicies[1].egress[0].to[0].scope',
    },
  ],
  'baseline-policy-stretched-feature': [
    {
      when: 'a baseline ingress peer has scope ClusterSet while "west" lacks stretched policy',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.from![0]!.scope = 'ClusterSet'),
      path: 'baselinePolicies[0].ingress[0].from[0].scope',
    },
    {
      when: 'a baseline egress rule uses toServices while "west" lacks stretched policy',
      mutate: (m) =>
        void m.baselinePolicies![1]!.egress!.push({
          name: 'web',
          action: 'Allow',
          toServices: [{ namespace: 'prod', name: 'web' }],
        }),
      path: 'baselinePolicies[1].egress[1].toServices[0]',
    },
  ],
  'stretched-policy-member-unknown': [
    {
      when: 'a stretched policy targets the leader, which is not a member',
      mutate: (m) => void m.stretchedPolicies![0]!.members!.push('hub'),
      path: 'stretchedPolicies[0].members[2]',
    },
    {
      when: 'a stretched policy targets an unknown cluster',
      mutate: (m) => void (m.stretchedPolicies![0]!.members![0] = 'est'),
      path: 'stretchedPolicies[0].members[0]',
    },
  ],
  'stretched-policy-members-empty': [
    {
      when: 'a stretched policy lists no members',
      mutate: (m) => void ((m.stretchedPolicies![0] as { members?: string[] }).members = []),
      path: 'stretchedPolicies[0].members',
    },
  ],
  'stretched-policy-member-disabled': [
    {
      when: 'a stretched policy targets "west", which lacks stretched policy',
      mutate: (m) => void m.stretchedPolicies![0]!.members!.push('west'),
      path: 'stretchedPolicies[0].members[2]',
    },
    {
      when: 'a stretched policy targets every member by default, "west" included',
      mutate: (m) => void delete m.stretchedPolicies![0]!.members,
      path: 'stretchedPolicies[0]',
    },
  ],
  'policy-rule-name-duplicate': [
    {
      when: 'an egress rule reuses an ingress rule name',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.name = 'from-clients'),
      path: 'stretchedPolicies[0].egress[0].name',
    },
  ],
  'policy-drop-catches-kube-system': [
    {
      when: "a baseline policy isolates every Namespace (Antrea's guide: Pass from Self, Drop from all others)",
      mutate: (m) =>
        void m.baselinePolicies!.push({
          name: 'namespace-isolation',
          tier: 'securityops',
          priority: 1,
          appliedTo: [{ namespaceSelector: {} }],
          ingress: [
            { action: 'Pass', from: [{ namespaces: { match: 'Self' } }] },
            { name: 'drop-other-namespaces', action: 'Drop', from: [{ namespaceSelector: {} }] },
          ],
        }),
      path: 'baselinePolicies[2].appliedTo[0]',
    },
    {
      when: 'a stretched policy rejects every egress of every Pod, and no policy allows DNS',
      mutate: (m) => {
        m.baselinePolicies!.splice(1, 1);
        m.stretchedPolicies!.push({
          name: 'deny-egress',
          tier: 'baseline',
          priority: 100,
          members: ['east', 'north'],
          egress: [{ name: 'reject-all', action: 'Reject', appliedTo: [{ podSelector: {} }] }],
        });
      },
      path: 'stretchedPolicies[1].egress[0].appliedTo[0]',
    },
  ],
  'policy-applied-to-placement': [
    {
      when: 'a rule sets appliedTo beside the policy appliedTo',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.appliedTo = [{ podSelector: {} }]),
      path: 'baselinePolicies[0].ingress[0].appliedTo',
    },
    {
      when: 'a policy has no appliedTo and neither have its rules',
      mutate: (m) => void delete m.baselinePolicies![1]!.appliedTo,
      path: 'baselinePolicies[1].appliedTo',
    },
    {
      when: 'appliedTo moves into one rule of two',
      mutate: (m) => {
        const p = m.stretchedPolicies![0]!;
        delete p.appliedTo;
        p.ingress![0]!.appliedTo = [{ podSelector: { matchLabels: { app: 'web' } } }];
      },
      path: 'stretchedPolicies[0].egress[0].appliedTo',
    },
  ],
  'applied-to-exclusive': [
    {
      when: 'an appliedTo sets group and podSelector',
      mutate: (m) => void (m.baselinePolicies![1]!.appliedTo![0]!.group = 'dns'),
      path: 'baselinePolicies[1].appliedTo[0]',
    },
    {
      when: 'an appliedTo sets nodeSelector and namespaceSelector',
      mutate: (m) => void (m.baselinePolicies![0]!.appliedTo![0]!.nodeSelector = {}),
      path: 'baselinePolicies[0].appliedTo[0]',
    },
  ],
  'policy-peer-exclusive': [
    {
      when: 'a peer sets serviceAccount and podSelector',
      mutate: (m) =>
        void (m.stretchedPolicies![0]!.ingress![0]!.from![0]!.serviceAccount = { namespace: 'a', name: 'b' }),
      path: 'stretchedPolicies[0].ingress[0].from[0]',
    },
    {
      when: 'a peer sets group and an explicit scope "Cluster"',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.to![1]!.scope = 'Cluster'),
      path: 'baselinePolicies[1].egress[0].to[1]',
    },
    {
      when: 'a peer sets ipBlock and namespaceSelector',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.to![0]!.ipBlock = { cidr: '10.0.0.0/8' }),
      path: 'baselinePolicies[1].egress[0].to[0]',
    },
  ],
  'peer-namespaces-selector': [
    {
      when: 'a peer sets namespaces and namespaceSelector',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.from![0]!.namespaces = { match: 'Self' }),
      path: 'baselinePolicies[0].ingress[0].from[0].namespaces',
    },
  ],
  'peer-namespaces-criterion': [
    {
      when: 'namespaces sets match and sameLabels',
      mutate: (m) =>
        void (m.stretchedPolicies![0]!.ingress![0]!.from![0]!.namespaces = {
          match: 'Self',
          sameLabels: ['t'],
        }),
      path: 'stretchedPolicies[0].ingress[0].from[0].namespaces',
    },
    {
      when: 'namespaces.sameLabels is empty',
      mutate: (m) => void (m.stretchedPolicies![0]!.ingress![0]!.from![0]!.namespaces = { sameLabels: [] }),
      path: 'stretchedPolicies[0].ingress[0].from[0].namespaces',
    },
  ],
  'peer-same-labels-key': [
    {
      when: 'a sameLabels key has a space',
      mutate: (m) =>
        void (m.stretchedPolicies![0]!.ingress![0]!.from![0]!.namespaces = {
          sameLabels: ['tenant', 'bad key'],
        }),
      path: 'stretchedPolicies[0].ingress[0].from[0].namespaces.sameLabels[1]',
    },
  ],
  'ip-block-cidr': [
    {
      when: 'an ipBlock cidr has no prefix',
      mutate: (m) => void (m.clusterGroups![0]!.ipBlocks![0]!.cidr = '169.254.0.0'),
      path: 'clusterGroups[0].ipBlocks[0].cidr',
    },
    {
      when: 'a peer ipBlock except entry is not a CIDR',
      mutate: (m) =>
        void m.baselinePolicies![1]!.egress![0]!.to!.push({
          ipBlock: { cidr: '10.0.0.0/8', except: ['ten'] },
        }),
      path: 'baselinePolicies[1].egress[0].to[2].ipBlock.except[0]',
    },
  ],
  'ip-block-except-subset': [
    {
      when: 'an except CIDR equals its cidr',
      mutate: (m) => void (m.clusterGroups![0]!.ipBlocks![0]!.except = ['169.254.0.0/16']),
      path: 'clusterGroups[0].ipBlocks[0].except[0]',
    },
    {
      when: 'an except CIDR lies outside its cidr',
      mutate: (m) =>
        void m.baselinePolicies![1]!.egress![0]!.to!.push({
          ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] },
        }),
      path: 'baselinePolicies[1].egress[0].to[2].ipBlock.except[0]',
    },
  ],
  'ingress-peer-fqdn': [
    {
      when: 'an ingress peer sets fqdn',
      mutate: (m) => void m.baselinePolicies![0]!.ingress![0]!.from!.push({ fqdn: 'example.com' }),
      path: 'baselinePolicies[0].ingress[0].from[1].fqdn',
    },
  ],
  'peer-fqdn-format': [
    {
      when: 'an fqdn has a "/"',
      mutate: (m) => void m.baselinePolicies![1]!.egress![0]!.to!.push({ fqdn: 'example.com/api' }),
      path: 'baselinePolicies[1].egress[0].to[2].fqdn',
    },
  ],
  'peer-scope-clusterset-fields': [
    {
      when: 'a ClusterSet-scope peer selects by serviceAccount',
      mutate: (m) =>
        void m.stretchedPolicies![0]!.ingress![0]!.from!.push({
          scope: 'ClusterSet',
          serviceAccount: { namespace: 'prod', name: 'client' },
        }),
      path: 'stretchedPolicies[0].ingress[0].from[1].scope',
    },
  ],
  'policy-port-end-port': [
    {
      when: 'endPort is less than port',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.ports![0]!.endPort = 52),
      path: 'baselinePolicies[1].egress[0].ports[0].endPort',
    },
    {
      when: 'endPort follows a named port',
      mutate: (m) =>
        void (m.baselinePolicies![1]!.egress![0]!.ports = [{ protocol: 'UDP', port: 'dns', endPort: 60 }]),
      path: 'baselinePolicies[1].egress[0].ports[0].endPort',
    },
    {
      when: 'endPort has no port',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.ports = [{ endPort: 60 }]),
      path: 'baselinePolicies[1].egress[0].ports[0].endPort',
    },
  ],
  'policy-port-source-end-port': [
    {
      when: 'sourceEndPort has no sourcePort',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.ports![0]!.sourceEndPort = 1000),
      path: 'baselinePolicies[1].egress[0].ports[0].sourceEndPort',
    },
    {
      when: 'sourceEndPort is less than sourcePort',
      mutate: (m) =>
        void Object.assign(m.baselinePolicies![1]!.egress![0]!.ports![0]!, {
          sourcePort: 2000,
          sourceEndPort: 1000,
        }),
      path: 'baselinePolicies[1].egress[0].ports[0].sourceEndPort',
    },
  ],
  'rule-protocol-one': [
    {
      when: 'a protocols entry sets icmp and igmp',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.protocols = [{ icmp: {}, igmp: {} }]),
      path: 'baselinePolicies[0].ingress[0].protocols[0]',
    },
    {
      when: 'an l7Protocols entry is empty',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.l7Protocols = [{}]),
      path: 'baselinePolicies[1].egress[0].l7Protocols[0]',
    },
  ],
  'rule-igmp-exclusive': [
    {
      when: 'an IGMP rule also has peers',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.protocols = [{ igmp: { igmpType: 17 } }]),
      path: 'baselinePolicies[0].ingress[0].protocols[0]',
    },
    {
      when: 'an IGMP rule rejects',
      mutate: (m) =>
        void m.baselinePolicies![0]!.ingress!.push({
          action: 'Reject',
          protocols: [{ igmp: { igmpType: 17 } }],
        }),
      path: 'baselinePolicies[0].ingress[1].action',
    },
  ],
  'rule-igmp-group-address': [
    {
      when: 'an IGMP groupAddress is unicast',
      mutate: (m) =>
        void m.baselinePolicies![0]!.ingress!.push({
          action: 'Allow',
          protocols: [{ igmp: { igmpType: 17, groupAddress: '10.0.0.1' } }],
        }),
      path: 'baselinePolicies[0].ingress[1].protocols[0].igmp.groupAddress',
    },
  ],
  'rule-l7-allow-only': [
    {
      when: 'a Drop rule has l7Protocols',
      mutate: (m) => void (m.baselinePolicies![0]!.ingress![0]!.l7Protocols = [{ http: { path: '/admin' } }]),
      path: 'baselinePolicies[0].ingress[0].action',
    },
  ],
  'rule-l7-to-services': [
    {
      when: 'a toServices rule has l7Protocols',
      mutate: (m) => void (m.stretchedPolicies![0]!.egress![0]!.l7Protocols = [{ tls: { sni: 'api' } }]),
      path: 'stretchedPolicies[0].egress[0].l7Protocols',
    },
  ],
  'rule-l7-http-transport': [
    {
      when: 'an HTTP rule matches UDP',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.l7Protocols = [{ http: {} }]),
      path: 'baselinePolicies[1].egress[0].ports[0].protocol',
    },
  ],
  'rule-log-label-format': [
    {
      when: 'a logLabel has a space',
      mutate: (m) =>
        void Object.assign(m.baselinePolicies![0]!.ingress![0]!, {
          enableLogging: true,
          logLabel: 'drop untrusted',
        }),
      path: 'baselinePolicies[0].ingress[0].logLabel',
    },
  ],
  'policy-pass-baseline-tier': [
    {
      when: 'a baseline-Tier policy has a Pass rule',
      mutate: (m) => {
        m.baselinePolicies![0]!.tier = 'baseline';
        m.baselinePolicies![0]!.ingress![0]!.action = 'Pass';
      },
      path: 'baselinePolicies[0].ingress[0].action',
    },
  ],
  'policy-group-unknown': [
    {
      when: 'a peer names an undeclared ClusterGroup',
      mutate: (m) => void (m.baselinePolicies![1]!.egress![0]!.to![1]!.group = 'dsn'),
      path: 'baselinePolicies[1].egress[0].to[1].group',
    },
    {
      when: 'a rule appliedTo names an undeclared ClusterGroup',
      mutate: (m) => {
        const p = m.stretchedPolicies![0]!;
        delete p.appliedTo;
        p.ingress![0]!.appliedTo = [{ group: 'web' }];
        p.egress![0]!.appliedTo = [{ group: 'web' }];
      },
      path: 'stretchedPolicies[0].ingress[0].appliedTo[0].group',
    },
  ],
  'cluster-group-name-format': [
    {
      when: 'a ClusterGroup name has "_"',
      mutate: (m) => void (m.clusterGroups![1]!.name = 'dns_all'),
      path: 'clusterGroups[1].name',
    },
  ],
  'cluster-group-duplicate': [
    {
      when: 'two ClusterGroups share a name',
      mutate: (m) => void m.clusterGroups!.push({ name: 'dns', podSelector: {} }),
      path: 'clusterGroups[2].name',
    },
  ],
  'cluster-group-fields': [
    {
      when: 'a ClusterGroup sets ipBlocks and podSelector',
      mutate: (m) => void (m.clusterGroups![0]!.podSelector = {}),
      path: 'clusterGroups[0]',
    },
  ],
  'cluster-group-child': [
    {
      when: 'a child group is not declared',
      mutate: (m) => void (m.clusterGroups![1]!.childGroups = ['node-locl-dns']),
      path: 'clusterGroups[1].childGroups[0]',
    },
    {
      when: 'a child group has children itself',
      mutate: (m) => void m.clusterGroups!.push({ name: 'all', childGroups: ['dns'] }),
      path: 'clusterGroups[2].childGroups[0]',
    },
  ],
  'network-gateway-missing': [
    {
      when: '"west" on dc2 has no gateway',
      mutate: (m) => void delete m.clusters[3]!.gateway,
      path: 'clusters[3].gateway',
    },
    {
      when: '"north" on dc1 has an empty gateway node list',
      mutate: (m) => void (m.clusters[2]!.gateway!.nodes = []),
      path: 'clusters[2].gateway.nodes',
    },
  ],
  'network-podip-cross-network': [
    {
      when: '"west" on dc2 uses PodIP endpoints',
      mutate: (m) => void (m.clusters[3]!.endpointIPType = 'PodIP'),
      path: 'clusters[3].endpointIPType',
    },
  ],
  'network-service-cidr-overlap': [
    {
      when: '"west" (dc2) has a Service CIDR inside that of "east" (dc1)',
      mutate: (m) => void (m.clusters[3]!.serviceCIDR = '10.101.128.0/17'),
      path: 'clusters[3].serviceCIDR',
    },
  ],
  'network-service-cidr-overlap-same-network': [
    {
      when: '"north" (dc1) has a Service CIDR inside that of "east" (dc1)',
      mutate: (m) => void (m.clusters[2]!.serviceCIDR = '10.101.128.0/17'),
      path: 'clusters[2].serviceCIDR',
    },
  ],
  'network-pod-cidr-overlap': [
    {
      when: '"north" and "east" on dc1 have overlapping Pod CIDRs',
      mutate: (m) => void (m.clusters[2]!.podCIDRs = ['10.0.0.0/8']),
      path: 'clusters[2].podCIDRs[0]',
    },
  ],
  'network-pod-service-cidr-overlap': [
    {
      when: '"west" (dc2) has a Pod CIDR inside the Service CIDR of "east" (dc1)',
      mutate: (m) => void m.clusters[3]!.podCIDRs!.push('10.101.64.0/18'),
      path: 'clusters[3].podCIDRs[1]',
    },
    {
      when: '"north" has a Service CIDR covering the Pod CIDR of "east" on the same network',
      mutate: (m) => void (m.clusters[2]!.serviceCIDR = '10.201.0.0/20'),
      path: 'clusters[2].serviceCIDR',
    },
  ],
  'cluster-pod-service-cidr-overlap': [
    {
      when: '"east" has a Pod CIDR inside its own Service CIDR',
      mutate: (m) => void (m.clusters[1]!.podCIDRs = ['10.101.128.0/17']),
      path: 'clusters[1].podCIDRs[0]',
    },
  ],
  'cluster-pod-cidr-overlap': [
    {
      when: '"west" lists a Pod CIDR inside another of its own',
      mutate: (m) => void m.clusters[3]!.podCIDRs!.push('10.203.4.0/24'),
      path: 'clusters[3].podCIDRs[1]',
    },
  ],
  'ipv4-format': [
    {
      when: 'a Service CIDR has prefix /33',
      mutate: (m) => void (m.clusters[1]!.serviceCIDR = '10.101.0.0/33'),
      path: 'clusters[1].serviceCIDR',
    },
    {
      when: 'a Pod CIDR is IPv6',
      mutate: (m) => void (m.clusters[2]!.podCIDRs = ['fd00::/64']),
      path: 'clusters[2].podCIDRs[0]',
    },
    {
      when: 'a gateway IP has an octet above 255',
      mutate: (m) => void (m.clusters[3]!.gateway!.nodes[0]!.ip = '192.0.2.300'),
      path: 'clusters[3].gateway.nodes[0].ip',
    },
  ],
  'podip-pod-cidrs-missing': [
    {
      when: 'the leader uses PodIP endpoints without Pod CIDRs',
      mutate: (m) => void (m.clusters[0]!.endpointIPType = 'PodIP'),
      path: 'clusters[0].podCIDRs',
    },
  ],
  'cluster-unused': [
    {
      when: 'a cluster is declared but is neither the leader nor a member (a half-finished removal)',
      mutate: (m) =>
        void m.clusters.push({
          id: 'south',
          apiServer: 'https://south.example.com:6443',
          serviceCIDR: '10.104.0.0/16',
        }),
      path: 'clusters[4]',
    },
  ],
  'api-server-url': [
    {
      when: 'an API server URL is plain http',
      mutate: (m) => void (m.clusters[0]!.apiServer = 'http://hub.example.com:6443'),
      path: 'clusters[0].apiServer',
    },
    {
      when: 'an API server is a bare host name',
      mutate: (m) => void (m.clusters[2]!.apiServer = 'north.example.com:6443'),
      path: 'clusters[2].apiServer',
    },
  ],
  'secret-reference-names': [
    {
      when: 'the member token Secret name has "_"',
      mutate: (m) => void (m.secrets = { memberTokenSecretName: 'leader_token' }),
      path: 'secrets.memberTokenSecretName',
    },
    {
      when: 'the SecretStore name has an uppercase letter',
      mutate: (m) => void (withExternalSecrets(m).storeName = 'Leader'),
      path: 'secrets.externalSecrets.storeName',
    },
    {
      when: 'the CA ConfigMap key has a "/"',
      mutate: (m) =>
        void (withExternalSecrets(m).leaderCA = { configMap: { name: 'leader-ca', key: 'ca/crt' } }),
      path: 'secrets.externalSecrets.leaderCA.configMap.key',
    },
  ],
  'external-secrets-ca-choice': [
    {
      when: 'the leader CA is given both as a PEM and a ConfigMap',
      mutate: (m) =>
        void (withExternalSecrets(m).leaderCA = { pem: CA_PEM, configMap: { name: 'leader-ca' } }),
      path: 'secrets.externalSecrets.leaderCA',
    },
    {
      when: 'the leader CA is not given at all',
      mutate: (m) => void (withExternalSecrets(m).leaderCA = {}),
      path: 'secrets.externalSecrets.leaderCA',
    },
  ],
  'external-secrets-ca-pem': [
    {
      when: 'leaderCA.pem holds a private key next to the certificate',
      mutate: (m) => void (withExternalSecrets(m).leaderCA = { pem: `${CA_PEM}\n${PRIVATE_KEY_PEM}` }),
      path: 'secrets.externalSecrets.leaderCA.pem',
    },
    {
      when: 'leaderCA.pem is base64 data instead of a PEM',
      mutate: (m) => void (withExternalSecrets(m).leaderCA = { pem: 'LS0tLS1CRUdJTiBDRVJU' }),
      path: 'secrets.externalSecrets.leaderCA.pem',
    },
  ],
  'external-secrets-auth-choice': [
    {
      when: 'the store has both ServiceAccount and token auth',
      mutate: (m) =>
        void (withExternalSecrets(m).auth = {
          serviceAccount: { name: 'antrea-mc-token-reader' },
          tokenSecret: { name: 'antrea-mc-leader-reader' },
        }),
      path: 'secrets.externalSecrets.auth',
    },
  ],
  'external-secrets-username-per-member': [
    {
      when: 'every member would be the same leader user',
      mutate: (m) => void (withExternalSecrets(m).leaderUsername = 'oidc:antrea-mc-token-reader'),
      path: 'secrets.externalSecrets.leaderUsername',
    },
  ],
  'external-secrets-token-secret-clash': [
    {
      when: "the store's bootstrap token Secret is the default member token Secret",
      mutate: (m) => void (withExternalSecrets(m).auth = { tokenSecret: { name: 'antrea-mc-leader-token' } }),
      path: 'secrets.externalSecrets.auth.tokenSecret.name',
    },
  ],
  'member-identity-names': [
    {
      when: 'a member ServiceAccount name has an uppercase letter',
      mutate: (m) => void (m.clusters[1]!.memberIdentity = { serviceAccount: 'Member-East' }),
      path: 'clusters[1].memberIdentity.serviceAccount',
    },
    {
      when: "a member's token Secret in the leader has a '_'",
      mutate: (m) => void (m.clusters[1]!.memberIdentity = { tokenSecret: 'member_east_token' }),
      path: 'clusters[1].memberIdentity.tokenSecret',
    },
    {
      when: 'a RoleBinding name is 254 characters long',
      mutate: (m) => void (m.clusters[2]!.memberIdentity = { roleBinding: 'r'.repeat(254) }),
      path: 'clusters[2].memberIdentity.roleBinding',
    },
    {
      when: "a member's own token Secret name ends with '-'",
      mutate: (m) => void (m.clusters[3]!.memberIdentity = { memberTokenSecret: 'leader-token-' }),
      path: 'clusters[3].memberIdentity.memberTokenSecret',
    },
  ],
  'member-identity-not-member': [
    {
      when: 'the leader, which is no member, has a memberIdentity',
      mutate: (m) => void (m.clusters[0]!.memberIdentity = { serviceAccount: 'member-hub' }),
      path: 'clusters[0].memberIdentity',
    },
  ],
  'member-identity-duplicate': [
    {
      when: "east's ServiceAccount is west's default one",
      mutate: (m) => void (m.clusters[1]!.memberIdentity = { serviceAccount: 'member-west' }),
      path: 'clusters[1].memberIdentity.serviceAccount',
    },
    {
      when: 'two members name one RoleBinding (each with its own ServiceAccount)',
      mutate: (m) => {
        m.clusters[1]!.memberIdentity = { roleBinding: 'members' };
        m.clusters[2]!.memberIdentity = { roleBinding: 'members' };
      },
      path: 'clusters[2].memberIdentity.roleBinding',
    },
    {
      when: "north's token Secret in the leader is east's default",
      mutate: (m) => void (m.clusters[2]!.memberIdentity = { tokenSecret: 'member-east' }),
      path: 'clusters[2].memberIdentity.tokenSecret',
    },
  ],
  'member-identity-reserved': [
    {
      when: "a member's ServiceAccount is the reconciler's",
      mutate: (m) => void (m.clusters[1]!.memberIdentity = { serviceAccount: 'clusterset-reconciler' }),
      path: 'clusters[1].memberIdentity.serviceAccount',
    },
    {
      when: "a member's RoleBinding is another member's token-reader RoleBinding (External Secrets)",
      mutate: (m) => {
        withExternalSecrets(m);
        m.clusters[1]!.memberIdentity = { roleBinding: 'member-west-token-reader' };
      },
      path: 'clusters[1].memberIdentity.roleBinding',
    },
    {
      when: "a member's token Secret in the leader is an image pull Secret",
      mutate: (m) => {
        m.reconciler = { imagePullSecrets: ['registry'] };
        m.clusters[3]!.memberIdentity = { serviceAccount: 'registry' };
      },
      path: 'clusters[3].memberIdentity.serviceAccount',
    },
  ],
  'member-token-secret-clash': [
    {
      when: "a member's own token Secret is the External Secrets store's bootstrap token",
      mutate: (m) => {
        withExternalSecrets(m).auth = { tokenSecret: { name: 'leader-reader' } };
        m.clusters[2]!.memberIdentity = { memberTokenSecret: 'leader-reader' };
      },
      path: 'clusters[2].memberIdentity.memberTokenSecret',
    },
    {
      when: "a member's own token Secret is an image pull Secret",
      mutate: (m) => {
        m.reconciler = { imagePullSecrets: ['registry'] };
        m.clusters[1]!.memberIdentity = { memberTokenSecret: 'registry' };
      },
      path: 'clusters[1].memberIdentity.memberTokenSecret',
    },
    {
      when: 'the default member token Secret is an image pull Secret',
      mutate: (m) => void (m.reconciler = { imagePullSecrets: ['antrea-mc-leader-token'] }),
      path: 'reconciler.imagePullSecrets[0]',
    },
  ],
  'external-secrets-refresh-interval': [
    {
      when: 'the refresh interval is "0", which syncs only once',
      mutate: (m) => void (withExternalSecrets(m).refreshInterval = '0'),
      path: 'secrets.externalSecrets.refreshInterval',
    },
    {
      when: 'the refresh interval is "1 hour"',
      mutate: (m) => void (withExternalSecrets(m).refreshInterval = '1 hour'),
      path: 'secrets.externalSecrets.refreshInterval',
    },
  ],
  'delivery-management-cluster-unknown': [
    {
      when: 'the management cluster is misspelt',
      mutate: (m) => void (withDelivery(m).managementCluster = 'hbu'),
      path: 'delivery.managementCluster',
    },
  ],
  'delivery-repo-url': [
    {
      when: 'the repository is an scp-like git@host:path',
      mutate: (m) => void (withDelivery(m).repoURL = 'git@git.example.com:platform/gitops.git'),
      path: 'delivery.repoURL',
    },
    {
      when: 'the repository URL uses the git:// protocol',
      mutate: (m) => void (withDelivery(m).repoURL = 'git://git.example.com/gitops.git'),
      path: 'delivery.repoURL',
    },
  ],
  'delivery-flux-ssh-secret': [
    {
      when: 'Flux clones an ssh:// repository without delivery.flux.gitSecretName',
      mutate: (m) => void (withDelivery(m).repoURL = 'ssh://git@git.example.com/platform/gitops.git'),
      path: 'delivery.flux.gitSecretName',
    },
  ],
  'delivery-path-format': [
    {
      when: 'the path leaves the repository',
      mutate: (m) => void (withDelivery(m).path = '../out'),
      path: 'delivery.path',
    },
    {
      when: 'the path is absolute',
      mutate: (m) => void (withDelivery(m).path = '/out'),
      path: 'delivery.path',
    },
  ],
  'delivery-branch-format': [
    {
      when: 'the branch has a space',
      mutate: (m) => void (withDelivery(m).branch = 'release 1'),
      path: 'delivery.branch',
    },
  ],
  'delivery-name-format': [
    {
      when: 'the Argo CD namespace has "_"',
      mutate: (m) => void (withDelivery(m).argocd = { namespace: 'argo_cd' }),
      path: 'delivery.argocd.namespace',
    },
    {
      when: 'a kubeconfig Secret name has uppercase letters',
      mutate: (m) => void (withDelivery(m).flux = { kubeConfigSecrets: { east: 'East-Kubeconfig' } }),
      path: 'delivery.flux.kubeConfigSecrets.east',
    },
    {
      when: 'the kubeconfig key has a "/"',
      mutate: (m) => void (withDelivery(m).flux = { kubeConfigKey: 'kube/config' }),
      path: 'delivery.flux.kubeConfigKey',
    },
  ],
  'delivery-argocd-project-default': [
    {
      when: 'the ClusterSet ID is "default" and no project is named, so the rendered AppProject would be "default"',
      mutate: (m) => {
        withDelivery(m);
        m.clusterSetId = 'default';
      },
      path: 'delivery.argocd',
    },
  ],
  'delivery-kubeconfig-cluster': [
    {
      when: 'a kubeconfig Secret is named for the management cluster',
      mutate: (m) => void (withDelivery(m).flux = { kubeConfigSecrets: { hub: 'hub-kubeconfig' } }),
      path: 'delivery.flux.kubeConfigSecrets.hub',
    },
    {
      when: 'a kubeconfig Secret is named for a misspelt cluster',
      mutate: (m) => void (withDelivery(m).flux = { kubeConfigSecrets: { esat: 'east-kc' } }),
      path: 'delivery.flux.kubeConfigSecrets.esat',
    },
  ],
  'delivery-interval-format': [
    {
      when: 'the Flux interval has no unit',
      mutate: (m) => void (withDelivery(m).flux = { interval: '300' }),
      path: 'delivery.flux.interval',
    },
  ],
  'delivery-object-name-length': [
    {
      when: 'the ClusterSet ID and a cluster ID add up to more than 63 characters',
      mutate: (m) => {
        withDelivery(m);
        m.clusterSetId = 'p'.repeat(58);
      },
      path: 'clusters[2].id',
    },
  ],
  'delivery-remote-leader-users': [
    {
      when: 'the leader is delivered from another cluster with the default delivery users',
      mutate: (m) => void (withDelivery(m).managementCluster = 'east'),
      path: 'admission.deliveryUsers',
    },
  ],
  'reconciler-retire-members-after': [
    {
      when: 'retireMembersAfter is "1 day"',
      mutate: (m) => void (m.reconciler = { retireMembersAfter: '1 day' }),
      path: 'reconciler.retireMembersAfter',
    },
    {
      when: 'retireMembersAfter is "5s", shorter than the 10 s announce refresh',
      mutate: (m) => void (m.reconciler = { retireMembersAfter: '5s' }),
      path: 'reconciler.retireMembersAfter',
    },
    {
      when: 'retireMembersAfter is "10500ms", not whole seconds',
      mutate: (m) => void (m.reconciler = { retireMembersAfter: '10500ms' }),
      path: 'reconciler.retireMembersAfter',
    },
  ],
  'reconciler-replicas': [
    {
      when: 'replicas is 0',
      mutate: (m) => void (m.reconciler = { replicas: 0 }),
      path: 'reconciler.replicas',
    },
    {
      when: 'replicas is 1.5',
      mutate: (m) => void (m.reconciler = { replicas: 1.5 }),
      path: 'reconciler.replicas',
    },
  ],
  'reconciler-image-reference': [
    {
      when: 'the image has an uppercase repository',
      mutate: (m) => void (m.reconciler = { image: 'ghcr.io/ClusterSet/clusterset:0.1.0' }),
      path: 'reconciler.image',
    },
    {
      when: 'the image has a space',
      mutate: (m) => void (m.reconciler = { image: 'clusterset 0.1.0' }),
      path: 'reconciler.image',
    },
    {
      when: 'the image is empty',
      mutate: (m) => void (m.reconciler = { image: '' }),
      path: 'reconciler.image',
    },
    {
      when: 'the digest is too short',
      mutate: (m) => void (m.reconciler = { image: 'ghcr.io/clusterset/clusterset@sha256:abc' }),
      path: 'reconciler.image',
    },
  ],
  'reconciler-image-pull-secrets': [
    {
      when: 'a pull Secret name has an uppercase letter',
      mutate: (m) => void (m.reconciler = { imagePullSecrets: ['regcred', 'Registry_Creds'] }),
      path: 'reconciler.imagePullSecrets[1]',
    },
    {
      when: 'a pull Secret name is 254 characters long',
      mutate: (m) => void (m.reconciler = { imagePullSecrets: ['r'.repeat(254)] }),
      path: 'reconciler.imagePullSecrets[0]',
    },
    {
      when: 'the same pull Secret is named twice',
      mutate: (m) => void (m.reconciler = { imagePullSecrets: ['regcred', 'mirror', 'regcred'] }),
      path: 'reconciler.imagePullSecrets[2]',
    },
  ],
  'reconciler-resource-quantity': [
    {
      when: 'the memory request is "96 MiB"',
      mutate: (m) => void (m.reconciler = { resources: { requests: { memory: '96 MiB' } } }),
      path: 'reconciler.resources.requests.memory',
    },
    {
      when: 'the CPU limit is negative',
      mutate: (m) => void (m.reconciler = { resources: { limits: { cpu: '-1' } } }),
      path: 'reconciler.resources.limits.cpu',
    },
  ],
  'reconciler-request-over-limit': [
    {
      when: 'the memory limit is below the default request',
      mutate: (m) => void (m.reconciler = { resources: { limits: { memory: '64Mi' } } }),
      path: 'reconciler.resources.limits.memory',
    },
    {
      when: 'the CPU request is above the CPU limit',
      mutate: (m) =>
        void (m.reconciler = { resources: { requests: { cpu: '2' }, limits: { cpu: '1500m' } } }),
      path: 'reconciler.resources.limits.cpu',
    },
    {
      when: 'the memory request is above the default limit',
      mutate: (m) => void (m.reconciler = { resources: { requests: { memory: '1Gi' } } }),
      path: 'reconciler.resources.requests.memory',
    },
  ],
};

/** Gives the model a valid delivery section (management cluster = the leader) and returns it. */
function withDelivery(m: ModelDraft): NonNullable<ModelDraft['delivery']> {
  m.delivery = { repoURL: 'https://git.example.com/platform/gitops.git', managementCluster: 'hub' };
  return m.delivery;
}

/** A CA certificate's PEM shape (the rules look at the shape only). */
const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBdummy\n-----END CERTIFICATE-----\n';
/** A private key's PEM shape, with a marker that must never appear in a message. */
const PRIVATE_KEY_PEM = '-----BEGIN PRIVATE KEY-----\nSECRET-KEY-MATERIAL\n-----END PRIVATE KEY-----\n';

/** Gives the model a valid External Secrets configuration and returns it, to break one thing. */
function withExternalSecrets(
  m: ModelDraft,
): NonNullable<NonNullable<ModelDraft['secrets']>['externalSecrets']> {
  const x = {
    leaderCA: { pem: CA_PEM },
    auth: { serviceAccount: { name: 'antrea-mc-token-reader' } },
    leaderUsername: 'oidc:{cluster}:system:serviceaccount:kube-system:antrea-mc-token-reader',
  };
  m.secrets = { ...m.secrets, externalSecrets: x };
  return x;
}

const asModel = (m: ModelDraft): ClusterSetProps => m;
const at = (ds: readonly Diagnostic[], rule: string) => ds.filter((d) => d.rule === rule);

// ---- the base model ----

test('GIVEN the valid base model WHEN it is checked THEN there is no diagnostic at all', () => {
  assert.equal(checkModel(baseModel()), []);
});

test('GIVEN the valid base model WHEN each rule runs alone THEN no rule reports anything', () => {
  for (const rule of RULES) assert.equal(rule.check(asModel(baseModel())), [], rule.id);
});

test('GIVEN the base model with a full, valid delivery section WHEN checked THEN there is no diagnostic', () => {
  const m = baseModel();
  Object.assign(withDelivery(m), {
    branch: 'release/2026.12',
    path: './deploy/out/',
    argocd: { namespace: 'gitops', project: 'platform', destinationBy: 'name', prune: false },
    flux: {
      namespace: 'flux-system',
      interval: '1h30m',
      gitSecretName: 'gitops-auth',
      kubeConfigSecrets: { east: 'east.kubeconfig' },
      kubeConfigKey: 'config.yaml',
    },
  });
  assert.equal(checkModel(m), []);
});

test('GIVEN ClusterSet "default" WHEN delivery.argocd.project names a project or Argo CD is off THEN delivery-argocd-project-default is silent', () => {
  for (const argocd of [{ project: 'default' }, { enabled: false }]) {
    const m = baseModel();
    m.clusterSetId = 'default';
    withDelivery(m).argocd = argocd;
    assert.equal(at(checkModel(m), 'delivery-argocd-project-default'), [], JSON.stringify(argocd));
  }
});

test('GIVEN a remote leader WHEN admission.deliveryUsers names the remote identity THEN delivery-remote-leader-users is silent', () => {
  const m = baseModel();
  withDelivery(m).managementCluster = 'east';
  m.admission = { deliveryUsers: ['system:serviceaccount:kube-system:argocd-manager'] };
  assert.equal(checkModel(m), []);
});

test('fails with delivery-management-cluster-unknown only: GIVEN a misspelt management cluster WHEN checked THEN the remote-leader rule stays silent and the fix names the close ID', () => {
  const m = baseModel();
  withDelivery(m).managementCluster = 'hbu';
  const ds = checkModel(m);
  assert.equal(
    ds.map((d) => d.rule),
    ['delivery-management-cluster-unknown'],
  );
  assert.match(ds[0]?.fix ?? '', '"hub"');
});

test('fails with delivery-repo-url: GIVEN an scp-like URL WHEN checked THEN the fix spells it as an ssh:// URL', () => {
  const m = baseModel();
  withDelivery(m).repoURL = 'git@git.example.com:platform/gitops.git';
  const [d] = at(checkModel(m), 'delivery-repo-url');
  assert.match(d?.fix ?? '', '"ssh://git@git.example.com/platform/gitops.git"');
});

test('GIVEN the base model with full, valid reconciler settings WHEN checked THEN there is no diagnostic', () => {
  for (const reconciler of [
    {
      image: 'registry.example.com:5000/platform/clusterset:0.1.0',
      replicas: 1,
      retireMembersAfter: '1h30m',
      resources: { requests: { cpu: '0.1', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
    },
    { image: `ghcr.io/clusterset/clusterset@sha256:${'a'.repeat(64)}`, retireMembersAfter: '10s' },
    { image: 'clusterset', resources: { requests: { memory: '256Mi' } } },
    {
      image: 'localhost/clusterset_dev__x:v1.2.3-rc.1',
      resources: { limits: { memory: '512Mi', cpu: '200m' } },
    },
    { resources: { requests: { cpu: '1e3', memory: '100M' } } },
  ]) {
    const m = baseModel();
    m.reconciler = reconciler;
    assert.equal(checkModel(m), [], JSON.stringify(reconciler));
  }
});

test('fails with reconciler-retire-members-after: GIVEN "5s" WHEN checked THEN the message says why 10 s and the fix names Antrea\'s 24h', () => {
  const [d] = at(
    checkModel(broken(CASES['reconciler-retire-members-after']![1]!.mutate)),
    'reconciler-retire-members-after',
  );
  assert.match(d!.message, '"5s" is shorter than 10s');
  assert.match(d!.fix, '"24h"');
});

test('fails with reconciler-request-over-limit: GIVEN a memory limit under the default request WHEN checked THEN the message says the request is the default', () => {
  const [d] = at(
    checkModel(broken(CASES['reconciler-request-over-limit']![0]!.mutate)),
    'reconciler-request-over-limit',
  );
  assert.is(d!.message, 'memory request "128Mi" (the default) is more than the memory limit "64Mi"');
  assert.match(d!.fix, 'reconciler.resources.limits.memory');
});

test('fails with schema only: GIVEN replicas as a string WHEN checked THEN the reconciler rules leave it to the schema', () => {
  const ds = checkModel(broken((m) => void (m.reconciler = { replicas: '2' as unknown as number })));
  assert.equal(
    ds.map((d) => d.rule),
    ['schema'],
  );
});

// ---- the table ----

test('GIVEN the rule table WHEN listing rule IDs THEN every ID is kebab-case, unique, and explains what it prevents', () => {
  const ids = RULES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate rule IDs');
  for (const r of RULES) {
    assert.match(r.id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.ok(r.summary.length > 10, `${r.id} has no summary`);
    assert.ok(r.prevents.length > 20, `${r.id} does not say what it prevents`);
  }
});

test('GIVEN the rule table WHEN matching it against the cases THEN every rule has a case and every case a rule', () => {
  const ids = RULES.map((r) => r.id);
  assert.equal(
    ids.filter((id) => !CASES[id]?.length),
    [],
    'rules without a test case',
  );
  assert.equal(
    Object.keys(CASES).filter((id) => !ids.includes(id)),
    [],
    'cases for no rule',
  );
});

test('GIVEN every rule WHEN its broken model is checked THEN that rule reports it', () => {
  for (const rule of RULES) {
    for (const c of CASES[rule.id] ?? []) {
      const ds = rule.check(asModel(broken(c.mutate)));
      assert.ok(ds.length > 0, `${rule.id} misses: ${c.when}`);
    }
  }
});

test('fails to compile, producing no file to write, GIVEN any broken model of the table', () => {
  // The CLI writes only what compile() returns, so no files means out/ is left as it was
  // (test/cli/synth.test.ts proves that on disk for one broken model).
  for (const [id, cases] of Object.entries(CASES)) {
    if (RULES.find((r) => r.id === id)?.severity === 'warning') continue;
    for (const c of cases) {
      const r = compile(broken(c.mutate));
      assert.ok(
        r.diagnostics.some((d) => d.rule === id),
        `${id} missing from compile(): ${c.when}`,
      );
      assert.is(r.files.size, 0, `${id}: compile() returned files to write`);
    }
  }
});

for (const [id, cases] of Object.entries(CASES)) {
  for (const c of cases) {
    test(`fails with ${id}: GIVEN the base model WHEN ${c.when} THEN ${c.path} is reported`, () => {
      assert.equal(at(checkModel(baseModel()), id), [], 'the valid model does not trigger it');
      const ds = checkModel(broken(c.mutate));
      const hits = at(ds, id);
      assert.ok(
        hits.some((d) => d.path === c.path),
        `expected ${id} at ${c.path}, got ${JSON.stringify(ds, null, 1)}`,
      );
      for (const d of hits) {
        assert.ok(d.message.length > 0 && d.fix.length > 0, 'message and fix are set');
        assert.not.match(d.message, /undefined/);
      }
    });
  }
}

// ---- messages ----

test('fails with service-import-name-collision: GIVEN prod/web-api and prod-web/api WHEN checked THEN the message names both Services and the import', () => {
  const ds = at(
    checkModel(broken(CASES['service-import-name-collision']![0]!.mutate)),
    'service-import-name-collision',
  );
  assert.is(ds.length, 1);
  assert.match(ds[0]!.message, '"prod-web/api"');
  assert.match(ds[0]!.message, '"prod/web-api" (services[1])');
  assert.match(ds[0]!.message, '"prod-web-api-service"');
});

test('fails with network-service-cidr-overlap: GIVEN overlapping Service CIDRs across networks WHEN checked THEN both clusters, CIDRs and networks are named', () => {
  const ds = at(
    checkModel(broken(CASES['network-service-cidr-overlap']![0]!.mutate)),
    'network-service-cidr-overlap',
  );
  assert.is(ds.length, 1);
  for (const part of [
    '"10.101.128.0/17"',
    '"west"',
    'network "dc2"',
    '"10.101.0.0/16"',
    '"east" (clusters[1]',
    'network "dc1"',
  ]) {
    assert.match(ds[0]!.message, part);
  }
});

test('fails with network-gateway-missing: GIVEN "west" without gateway WHEN checked THEN the message names the cluster it exchanges with across networks', () => {
  const [d] = at(checkModel(broken(CASES['network-gateway-missing']![0]!.mutate)), 'network-gateway-missing');
  assert.match(d!.message, 'cluster "west" (clusters[3]) on network "dc2" has no gateway nodes');
  assert.match(d!.message, 'imports Service "prod/web" from cluster "east" (clusters[1]) on network "dc1"');
});

test("GIVEN members whose identities antctl and the user guide's kubectl route made WHEN memberIdentity adopts them THEN there is no diagnostic", () => {
  const m = baseModel();
  // `antctl mc create membertoken east-token`: ServiceAccount, RoleBinding and Secret all east-token.
  m.clusters[1]!.memberIdentity = { serviceAccount: 'east-token', memberTokenSecret: 'east-leader-token' };
  // The user guide: ServiceAccount and RoleBinding member-west, Secret member-west-token.
  m.clusters[3]!.memberIdentity = { serviceAccount: 'member-west', tokenSecret: 'member-west-token' };
  assert.equal(checkModel(m), []);
});

test("fails with member-identity-duplicate once: GIVEN east's ServiceAccount is west's default WHEN checked THEN one diagnostic names west and where its name comes from, not three", () => {
  const ds = at(
    checkModel(broken((m) => void (m.clusters[1]!.memberIdentity = { serviceAccount: 'member-west' }))),
    'member-identity-duplicate',
  );
  assert.is(ds.length, 1, JSON.stringify(ds));
  assert.is(ds[0]!.path, 'clusters[1].memberIdentity.serviceAccount');
  assert.match(
    ds[0]!.message,
    'ServiceAccount "member-west" is also the ServiceAccount of member "west" (clusters[3].id)',
  );
  assert.match(ds[0]!.fix, '"member-east"');
});

test('fails with member-identity-duplicate: GIVEN two members that name one ServiceAccount but each its own RoleBinding and token Secret THEN only the ServiceAccount is reported, at the second', () => {
  const ds = at(
    checkModel(
      broken((m) => {
        m.clusters[1]!.memberIdentity = {
          serviceAccount: 'shared',
          roleBinding: 'east',
          tokenSecret: 'east',
        };
        m.clusters[2]!.memberIdentity = {
          serviceAccount: 'shared',
          roleBinding: 'north',
          tokenSecret: 'north',
        };
      }),
    ),
    'member-identity-duplicate',
  );
  assert.equal(
    ds.map((d) => d.path),
    ['clusters[2].memberIdentity.serviceAccount'],
  );
});

test('fails with cluster-id-format: GIVEN "East_1" WHEN checked THEN the fix suggests a valid ID', () => {
  const [d] = at(checkModel(broken(CASES['cluster-id-format']![0]!.mutate)), 'cluster-id-format');
  assert.match(d!.message, '"East_1"');
  assert.match(d!.fix, '"east-1"');
});

test('fails with policy-tier-unknown: GIVEN a misspelt Tier WHEN checked THEN the fix names the close declared Tier', () => {
  const [d] = at(checkModel(broken(CASES['policy-tier-unknown']![0]!.mutate)), 'policy-tier-unknown');
  assert.match(d!.message, '"mc-strechted"');
  assert.match(d!.fix, 'did you mean "mc-stretched"?');
});

test('fails with leader-unknown and service-export-not-member: GIVEN misspelt cluster IDs WHEN checked THEN each fix names the close ID', () => {
  const ds = checkModel(
    broken((m) => {
      m.leader = 'hubb';
      m.services![2]!.exportedFrom = ['wset'];
    }),
  );
  assert.match(at(ds, 'leader-unknown')[0]!.fix, 'did you mean "hub"?');
  assert.match(at(ds, 'service-export-not-member')[0]!.fix, 'did you mean "west"?');
});

test('fails with ipv4-format: GIVEN an IPv6 Pod CIDR WHEN checked THEN the message says IPv6 is not supported', () => {
  const [d] = at(checkModel(broken(CASES['ipv4-format']![1]!.mutate)), 'ipv4-format');
  assert.match(d!.message, 'IPv6 is not supported');
});

// ---- warnings ----

const severityOfRule = (id: string) => RULES.find((r) => r.id === id)?.severity;

test('GIVEN the rule table WHEN listing severities THEN the warnings are exactly the rules for what is legal but almost always a mistake', () => {
  assert.equal(
    RULES.filter((r) => r.severity === 'warning')
      .map((r) => r.id)
      .sort(),
    ['cluster-unused', 'network-service-cidr-overlap-same-network', 'policy-drop-catches-kube-system'],
  );
  assert.ok(RULES.every((r) => r.severity === 'error' || r.severity === 'warning'));
});

test('GIVEN each case of a warning rule WHEN compiled THEN it is reported as a warning at its path, and nothing stops the compile', () => {
  for (const [id, cases] of Object.entries(CASES)) {
    if (severityOfRule(id) !== 'warning') continue;
    for (const c of cases) {
      const r = compile(broken(c.mutate));
      assert.equal(r.diagnostics.map(formatDiagnostic), [], `${id}: ${c.when}: no error`);
      assert.ok(
        r.warnings.some((d) => d.rule === id && d.path === c.path && d.severity === 'warning'),
        `${id} at ${c.path}: ${JSON.stringify(r.warnings)}`,
      );
      assert.ok(r.files.size > 0, `${id}: the files are rendered`);
      assert.match(formatDiagnostic(r.warnings[0]!), /^warning: /);
    }
  }
});

test('GIVEN each case of an error rule WHEN checked THEN none of its diagnostics is a warning', () => {
  for (const [id, cases] of Object.entries(CASES)) {
    if (severityOfRule(id) !== 'error') continue;
    for (const c of cases)
      assert.equal(
        at(checkModel(broken(c.mutate)), id).filter((d) => d.severity === 'warning'),
        [],
        `${id}: ${c.when}`,
      );
  }
});

test("warns with network-service-cidr-overlap-same-network: GIVEN the issue's 10.97.0.0/16 and 10.97.128.0/17 on one network WHEN checked THEN both clusters and CIDRs are named; WHEN both use PodIP endpoints THEN nothing is reported", () => {
  const m = minimalModel();
  m.clusters[1]!.serviceCIDR = '10.97.0.0/16';
  m.clusters[2]!.serviceCIDR = '10.97.128.0/17';
  const ds = checkModel(m);
  assert.equal(
    ds.map((d) => [d.rule, d.path, d.severity]),
    [['network-service-cidr-overlap-same-network', 'clusters[2].serviceCIDR', 'warning']],
  );
  assert.match(
    ds[0]!.message,
    'Service CIDR "10.97.128.0/17" of cluster "west" (clusters[2].serviceCIDR) on the default network overlaps ' +
      'Service CIDR "10.97.0.0/16" of cluster "east" (clusters[1].serviceCIDR)',
  );
  assert.match(ds[0]!.fix, 'give "east" and "west" disjoint Service CIDRs');
  m.clusters[1]!.endpointIPType = 'PodIP';
  m.clusters[1]!.podCIDRs = ['10.201.0.0/16'];
  assert.is(checkModel(m).length, 1, 'one side on ClusterIP still imports the other side in its range');
  m.clusters[2]!.endpointIPType = 'PodIP';
  m.clusters[2]!.podCIDRs = ['10.202.0.0/16'];
  assert.equal(checkModel(m), [], 'no ClusterIP crosses between PodIP members');
});

test('warns with cluster-unused: GIVEN a declared cluster that is neither leader nor member WHEN checked THEN the fix says to add it to members or remove it', () => {
  const [d] = checkModel(broken(CASES['cluster-unused']![0]!.mutate));
  assert.is(d?.rule, 'cluster-unused');
  assert.match(d!.message, 'cluster "south" is neither the leader nor a member');
  assert.match(d!.fix, 'add "south" to members, or remove it from clusters');
});

test('GIVEN a cluster that is only the delivery management cluster WHEN checked THEN cluster-unused stays silent', () => {
  const m = baseModel();
  m.clusters.push({ id: 'mgmt', apiServer: 'https://mgmt.example.com:6443', serviceCIDR: '10.110.0.0/16' });
  withDelivery(m).managementCluster = 'mgmt';
  m.admission = { deliveryUsers: ['system:serviceaccount:kube-system:argocd-manager'] };
  assert.equal(checkModel(m), []);
});

test("warns with policy-drop-catches-kube-system: GIVEN a policy isolating every Namespace WHEN checked THEN it says kube-system is taken in and DNS cut, and the fix excludes kube-system in the model's words", () => {
  const [d] = checkModel(broken(CASES['policy-drop-catches-kube-system']![0]!.mutate));
  assert.is(d?.rule, 'policy-drop-catches-kube-system');
  assert.match(
    d!.message,
    'baseline policy "namespace-isolation" applies to every Namespace, kube-system included',
  );
  assert.match(d!.message, 'ingress rule "drop-other-namespaces" (baselinePolicies[2].ingress[1])');
  assert.match(d!.message, 'cuts DNS');
  assert.match(
    d!.fix,
    'write baselinePolicies[2].appliedTo[0] as { namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }] } }',
  );
  const e = at(
    checkModel(broken(CASES['policy-drop-catches-kube-system']![1]!.mutate)),
    'policy-drop-catches-kube-system',
  );
  assert.match(
    e[0]!.message,
    'egress rule "reject-all" (stretchedPolicies[1].egress[0]) rejects traffic to every Namespace',
  );
  assert.match(e[0]!.fix, 'allow DNS before it');
});

test('GIVEN a policy isolating every Namespace WHEN kube-system is excluded as the fix says, the Drop is on other ports, or the model allows DNS in that direction THEN policy-drop-catches-kube-system stays silent', () => {
  const isolate = CASES['policy-drop-catches-kube-system']![0]!.mutate;
  const variants: [string, (m: ModelDraft) => void][] = [
    [
      'kube-system excluded',
      (m) =>
        void (m.baselinePolicies![2]!.appliedTo = [
          {
            namespaceSelector: {
              matchExpressions: [
                { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
              ],
            },
          },
        ]),
    ],
    ['Drop on port 8080 only', (m) => void (m.baselinePolicies![2]!.ingress![1]!.ports = [{ port: 8080 }])],
    [
      'DNS allowed on ingress by a policy',
      (m) =>
        void (m.baselinePolicies![1]!.ingress = [
          { name: 'dns-in', action: 'Allow', ports: [{ protocol: 'UDP', port: 53 }] },
        ]),
    ],
    [
      'applied to labelled Namespaces',
      (m) =>
        void (m.baselinePolicies![2]!.appliedTo = [{ namespaceSelector: { matchLabels: { env: 'prod' } } }]),
    ],
  ];
  for (const [what, fix] of variants) {
    const m = broken(isolate);
    fix(m);
    assert.equal(at(checkModel(m), 'policy-drop-catches-kube-system'), [], what);
  }
  // The base model allows DNS on egress (allow-dns): a deny-all egress is then left alone.
  const kept = broken((m) => {
    CASES['policy-drop-catches-kube-system']![1]!.mutate(m);
    m.baselinePolicies!.splice(1, 0, baseModel().baselinePolicies![1]!);
  });
  assert.equal(at(checkModel(kept), 'policy-drop-catches-kube-system'), [], 'egress with allow-dns');
});

test('warns with policy-drop-catches-kube-system: GIVEN an appliedTo that selects kube-system otherwise than by an empty selector (its name label in matchLabels or In, that label Exists, NotIn or DoesNotExist that leave it in) WHEN checked THEN each form warns, and what leaves kube-system out stays silent', () => {
  const isolate = CASES['policy-drop-catches-kube-system']![0]!.mutate;
  const NAME = 'kubernetes.io/metadata.name';
  type Expr = { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] };
  const withSelector = (namespaceSelector: {
    matchLabels?: Record<string, string>;
    matchExpressions?: Expr[];
  }) =>
    broken((m) => {
      isolate(m);
      m.baselinePolicies![2]!.appliedTo = [{ namespaceSelector }];
    });
  const warns = (m: ModelDraft) => at(checkModel(m), 'policy-drop-catches-kube-system');
  const onlyKubeSystem: [string, Parameters<typeof withSelector>[0]][] = [
    ['matchLabels on its name', { matchLabels: { [NAME]: 'kube-system' } }],
    [
      'In with kube-system',
      { matchExpressions: [{ key: NAME, operator: 'In', values: ['default', 'kube-system'] }] },
    ],
  ];
  for (const [what, sel] of onlyKubeSystem) {
    const [d] = warns(withSelector(sel));
    assert.ok(d, what);
    assert.match(
      d!.message,
      `baseline policy "namespace-isolation" applies to kube-system (baselinePolicies[2].appliedTo[0] selects it by its "${NAME}" label)`,
      what,
    );
    assert.match(d!.message, 'CoreDNS in kube-system then refuses every Pod', what);
    assert.match(d!.fix, 'allow DNS before it', what);
    assert.match(d!.fix, 'or leave kube-system out of baselinePolicies[2].appliedTo[0]', what);
  }
  const everyNamespace: [string, Parameters<typeof withSelector>[0]][] = [
    ['its name label Exists', { matchExpressions: [{ key: NAME, operator: 'Exists' }] }],
    [
      'NotIn without kube-system',
      { matchExpressions: [{ key: NAME, operator: 'NotIn', values: ['default'] }] },
    ],
    ['NotIn on another label', { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['apps'] }] }],
    ['DoesNotExist on another label', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }],
  ];
  for (const [what, sel] of everyNamespace) {
    const [d] = warns(withSelector(sel));
    assert.ok(d, what);
    assert.match(d!.message, 'applies to every Namespace, kube-system included', what);
    assert.match(
      d!.fix,
      `write baselinePolicies[2].appliedTo[0] as { namespaceSelector: { matchExpressions:`,
      what,
    );
  }
  const silent: [string, Parameters<typeof withSelector>[0]][] = [
    [
      'NotIn with kube-system',
      { matchExpressions: [{ key: NAME, operator: 'NotIn', values: ['default', 'kube-system'] }] },
    ],
    ['In without kube-system', { matchExpressions: [{ key: NAME, operator: 'In', values: ['default'] }] }],
    ['matchLabels on another Namespace', { matchLabels: { [NAME]: 'shop' } }],
    ['its name label DoesNotExist', { matchExpressions: [{ key: NAME, operator: 'DoesNotExist' }] }],
    ['another label Exists', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }],
    ['kube-system by name, and another label', { matchLabels: { [NAME]: 'kube-system', team: 'apps' } }],
  ];
  for (const [what, sel] of silent) assert.equal(warns(withSelector(sel)), [], what);
  // A non-empty podSelector beside it takes in some Pods of kube-system only, maybe not CoreDNS.
  const somePods = broken((m) => {
    isolate(m);
    m.baselinePolicies![2]!.appliedTo = [
      {
        namespaceSelector: { matchLabels: { [NAME]: 'kube-system' } },
        podSelector: { matchLabels: { app: 'x' } },
      },
    ];
  });
  assert.equal(warns(somePods), [], 'a podSelector beside it');
  // The rule's peers are read the same way: from every Namespace spelled as its name label Exists.
  const peers = broken((m) => {
    isolate(m);
    m.baselinePolicies![2]!.ingress![1]!.from = [
      { namespaceSelector: { matchExpressions: [{ key: NAME, operator: 'Exists' }] } },
    ];
  });
  assert.is(warns(peers).length, 1, 'a Drop from every Namespace spelled with Exists');
  // And an egress rule applied to kube-system alone cuts CoreDNS off (the base model's allow-dns removed).
  const egress = broken((m) => {
    isolate(m);
    const p = m.baselinePolicies![2]!;
    p.appliedTo = [{ namespaceSelector: { matchLabels: { [NAME]: 'kube-system' } } }];
    p.ingress = undefined;
    p.egress = [{ name: 'drop-all', action: 'Drop' }];
    m.baselinePolicies!.splice(1, 1);
  });
  const [e] = warns(egress);
  assert.match(
    e!.message,
    `egress rule "drop-all" (baselinePolicies[1].egress[0]) drops kube-system's traffic to every Namespace`,
  );
});

// ---- errors that were silent ----

test('fails with policy-tier-unknown: GIVEN a Tier far from every name WHEN checked THEN the message lists the built-in and declared Tiers and the fix names the nearest', () => {
  const [d] = at(
    checkModel(broken((m) => void (m.stretchedPolicies![0]!.tier = 'secops'))),
    'policy-tier-unknown',
  );
  assert.match(
    d!.message,
    'the built-in Tiers are "emergency", "securityops", "networkops", "platform", "application" and "baseline", and tiers declares "mc-stretched" and "mc-security"',
  );
  assert.match(d!.fix, 'the nearest name is "securityops"');
});

test('fails with delivery-flux-ssh-secret: GIVEN an ssh repository WHEN checked THEN the fix gives the flux command and the field; WHEN gitSecretName is set or Flux is off THEN nothing is reported', () => {
  const m = broken(CASES['delivery-flux-ssh-secret']![0]!.mutate);
  const [d] = checkModel(m);
  assert.is(d?.rule, 'delivery-flux-ssh-secret');
  assert.match(
    d!.fix,
    'flux create secret git gitops-auth --namespace flux-system --url ssh://git@git.example.com/platform/gitops.git',
  );
  assert.match(d!.fix, 'set delivery.flux.gitSecretName: "gitops-auth"');
  m.delivery!.flux = { gitSecretName: 'gitops-auth' };
  assert.equal(checkModel(m), []);
  m.delivery!.flux = { enabled: false };
  assert.equal(checkModel(m), []);
  const scp = baseModel();
  withDelivery(scp).repoURL = 'git@git.example.com:platform/gitops.git';
  assert.equal(
    checkModel(scp).map((x) => x.rule),
    ['delivery-flux-ssh-secret', 'delivery-repo-url'],
    'an scp-like URL is rewritten and still needs the key',
  );
});

// ---- no knock-on errors ----

test("fails with leader-unknown only: GIVEN the issue's misspelt leader with delivery from the real leader WHEN checked THEN no admission.deliveryUsers error, no unused cluster: only the unknown leader, with did-you-mean", () => {
  const m = baseModel();
  withDelivery(m);
  assert.equal(checkModel(m), [], 'valid with the right leader');
  m.leader = 'hbu';
  const ds = checkModel(m);
  assert.equal(
    ds.map((d) => `${d.rule} ${d.path}`),
    ['leader-unknown leader'],
  );
  assert.match(ds[0]!.fix, 'did you mean "hub"?');
  assert.equal(
    checkModel(broken((m) => void (m.leader = 'hbu'))).map((d) => d.rule),
    ['leader-unknown'],
    'without delivery, the cluster meant is not reported as unused',
  );
});

test('fails with member-unknown only: GIVEN a misspelt member WHEN checked THEN the cluster it meant is not reported as unused, undelivered, a non-member exporter or a non-member policy target', () => {
  const m = baseModel();
  withDelivery(m).flux = { kubeConfigSecrets: { east: 'east-kubeconfig' } };
  assert.equal(checkModel(m), [], 'valid with the right member');
  m.members[0] = 'eats';
  const ds = checkModel(m);
  assert.equal(
    ds.map((d) => `${d.rule} ${d.path}`),
    ['member-unknown members[0]'],
  );
  assert.match(ds[0]!.fix, 'did you mean "east"?');
});

// ---- what the rules do not flag ----

test('GIVEN every member on the default network WHEN no cluster has a gateway THEN no network rule fires', () => {
  const m = broken((m) => {
    for (const c of m.clusters) {
      delete c.network;
      delete c.gateway;
    }
  });
  assert.equal(checkModel(m), []);
});

test('GIVEN a flat network WHEN members use PodIP with disjoint Pod CIDRs THEN nothing is reported', () => {
  const m = broken((m) => {
    m.clusters[3]!.network = 'dc1';
    for (const c of m.clusters.slice(1)) c.endpointIPType = 'PodIP';
  });
  assert.equal(checkModel(m), []);
});

test('GIVEN two members on the same network WHEN their Service CIDRs overlap THEN network-service-cidr-overlap stays silent', () => {
  assert.equal(
    at(
      checkModel(broken((m) => void (m.clusters[2]!.serviceCIDR = '10.101.0.0/16'))),
      'network-service-cidr-overlap',
    ),
    [],
  );
});

test('GIVEN two members on different networks WHEN their Pod CIDRs overlap THEN network-pod-cidr-overlap stays silent', () => {
  assert.equal(
    at(
      checkModel(broken((m) => void (m.clusters[3]!.podCIDRs = ['10.201.0.0/16']))),
      'network-pod-cidr-overlap',
    ),
    [],
  );
});

test("fails with network-pod-service-cidr-overlap: GIVEN a Pod CIDR inside another member's Service CIDR WHEN checked THEN the message gives both paths, CIDRs and networks, and no other overlap rule fires", () => {
  const ds = checkModel(broken(CASES['network-pod-service-cidr-overlap']![0]!.mutate));
  const hits = at(ds, 'network-pod-service-cidr-overlap');
  assert.is(hits.length, 1);
  for (const part of [
    'Pod CIDR "10.101.64.0/18" of cluster "west" (clusters[3].podCIDRs[1]) on network "dc2"',
    'Service CIDR "10.101.0.0/16" of cluster "east" (clusters[1].serviceCIDR) on network "dc1"',
  ])
    assert.ok(hits[0]!.message.includes(part), `${part} in ${hits[0]!.message}`);
  assert.equal(
    ds.filter((d) => d.rule.endsWith('cidr-overlap')).map((d) => d.rule),
    ['network-pod-service-cidr-overlap'],
  );
});

test('GIVEN one cluster whose Pod CIDR overlaps its Service CIDR WHEN checked THEN only cluster-pod-service-cidr-overlap fires, naming both paths', () => {
  const ds = checkModel(broken(CASES['cluster-pod-service-cidr-overlap']![0]!.mutate));
  assert.equal(
    ds.filter((d) => d.rule.endsWith('cidr-overlap')).map((d) => [d.rule, d.path]),
    [['cluster-pod-service-cidr-overlap', 'clusters[1].podCIDRs[0]']],
  );
  assert.match(ds[0]!.message, 'Pod CIDR "10.101.128.0/17" (clusters[1].podCIDRs[0]) overlaps');
  assert.match(
    ds[0]!.message,
    'Service CIDR "10.101.0.0/16" (clusters[1].serviceCIDR) of the same cluster "east"',
  );
});

test('GIVEN the same Pod CIDR in members on different networks WHEN checked THEN no overlap rule fires (ClusterIP endpoints cross networks, Pod IPs do not)', () => {
  const ds = checkModel(broken((m) => void (m.clusters[3]!.podCIDRs = ['10.201.0.0/16'])));
  assert.equal(
    ds.filter((d) => d.rule.endsWith('cidr-overlap')),
    [],
  );
});

test('GIVEN the leader is not a member WHEN its Service CIDR overlaps a member on another network THEN nothing is reported', () => {
  assert.equal(
    checkModel(
      broken((m) => void ((m.clusters[0]!.network = 'mgmt'), (m.clusters[0]!.serviceCIDR = '10.101.0.0/16'))),
    ),
    [],
  );
});

test('GIVEN a stretched policy WHEN it uses ClusterSet scope and toServices THEN baseline-policy-stretched-feature stays silent', () => {
  const m = broken((m) => void (m.clusters[3]!.enableStretchedNetworkPolicy = false));
  assert.equal(at(checkModel(m), 'baseline-policy-stretched-feature'), []);
});

test('GIVEN every member enables stretched policy WHEN a baseline policy uses ClusterSet scope THEN it is accepted', () => {
  const m = broken((m) => {
    m.clusters[3]!.enableStretchedNetworkPolicy = true;
    m.baselinePolicies![0]!.ingress![0]!.from![0]!.scope = 'ClusterSet';
  });
  assert.equal(checkModel(m), []);
});

test('GIVEN the leader is also a member WHEN checked THEN the model stays valid', () => {
  const m = broken((m) => {
    m.members.push('hub');
    m.clusters[0]!.network = 'dc1';
    m.clusters[0]!.gateway = { nodes: [{ name: 'hub-gw' }] };
    m.clusters[0]!.enableStretchedNetworkPolicy = true;
  });
  assert.equal(checkModel(m), []);
});

// ---- all at once, robustness, order ----

test('GIVEN a model broken in many ways WHEN checked THEN every problem is reported at once, schema and rules together', () => {
  const m = broken((m) => {
    (m.clusters[0] as Record<string, unknown>).serviceCidr = '10.96.0.0/16';
    m.clusters[1]!.id = 'East_1';
    m.members.push('south');
    m.services![0]!.name = 'w'.repeat(60);
    m.services![1]!.ports[0]!.port = 0;
    m.tiers![0]!.name = 'baseline';
    delete m.baselinePolicies![0]!.tier;
    m.clusters[3]!.serviceCIDR = '10.102.0.0/24';
    delete m.clusters[2]!.gateway;
  });
  const rules = new Set(checkModel(m).map((d) => d.rule));
  for (const id of [
    'schema',
    'cluster-id-format',
    'member-unknown',
    'service-name-format',
    'service-port-range',
    'tier-builtin-clash',
    'baseline-policy-tier-missing',
    'network-service-cidr-overlap',
    'network-gateway-missing',
  ]) {
    assert.ok(rules.has(id), `missing ${id}`);
  }
});

test('GIVEN malformed input of every kind WHEN checked THEN no rule throws and the schema reports the shapes', () => {
  const inputs: unknown[] = [
    {},
    {
      clusters: 'x',
      members: 7,
      services: {},
      tiers: [null],
      baselinePolicies: [1, 'a'],
      stretchedPolicies: [{}],
    },
    { clusters: [null, 3, {}, { id: 5, gateway: 'x', podCIDRs: 'x' }], members: [null, 'a'], leader: {} },
    {
      clusters: [
        { id: 'a', gateway: { nodes: [null, { ip: 4 }] }, podCIDRs: [1, '10.0.0.0/8'], serviceCIDR: 3 },
      ],
      members: ['a'],
      services: [{ ports: [null, { port: 'x' }, { port: 1 }], exportedFrom: [null, 'a'] }, null],
      stretchedPolicies: [
        { members: 'a', egress: [null, { toServices: [null, {}], to: {} }], ingress: [{ from: [null] }] },
      ],
      baselinePolicies: [{ egress: 'x', ingress: [{ from: 'x' }] }],
    },
  ];
  for (const input of inputs) {
    const ds = checkModel(input);
    assert.ok(
      ds.some((d) => d.rule === 'schema'),
      JSON.stringify(input),
    );
  }
  for (const input of [null, 42, 'model', []])
    assert.equal(
      checkModel(input).map((d) => d.path),
      [''],
    );
});

test('GIVEN the same broken model WHEN its keys and lists are reordered THEN diagnostics come out sorted and the same', () => {
  const mutate = (m: ModelDraft) => {
    m.clusters[1]!.id = 'East_1';
    m.services![0]!.name = 'Web';
    m.members.push('south');
    m.tiers![1]!.priority = 100;
    delete m.baselinePolicies![0]!.tier;
  };
  const a = checkModel(broken(mutate));
  assert.equal(a, sortDiagnostics(a), 'sorted');
  assert.equal(checkModel(broken(mutate)), a, 'repeatable');

  // The same model with every object's keys in reverse order: identical output.
  const reverseKeys = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(reverseKeys)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.entries(x)
              .reverse()
              .map(([k, v]) => [k, reverseKeys(v)]),
          )
        : x;
  assert.equal(checkModel(reverseKeys(broken(mutate))), a);

  // Lists reversed: paths move with their elements, the same problems are found, still sorted.
  const reversed = broken((m) => {
    mutate(m);
    m.clusters.reverse();
    m.services!.reverse();
    m.members.reverse();
    m.tiers!.reverse();
  });
  const b = checkModel(reversed);
  assert.equal(b, sortDiagnostics(b));
  assert.equal(b.map((d) => d.rule).sort(), a.map((d) => d.rule).sort());
  assert.ok(b.some((d) => d.rule === 'cluster-id-format' && d.path === 'clusters[2].id'));
});

// ---- IPv4 ----

test('GIVEN IPv4 text WHEN parsed THEN only well-formed addresses and CIDRs are accepted', () => {
  assert.is(parseIpv4('10.0.0.1'), 10 * 2 ** 24 + 1);
  assert.is(parseIpv4('255.255.255.255'), 2 ** 32 - 1);
  for (const bad of ['10.0.0', '10.0.0.256', '010.0.0.1', '10.0.0.1 ', 'a.b.c.d', ''])
    assert.is(parseIpv4(bad), undefined, bad);
  assert.equal(parseIpv4Cidr('10.96.0.0/16'), {
    first: 10 * 2 ** 24 + 96 * 2 ** 16,
    last: 10 * 2 ** 24 + 97 * 2 ** 16 - 1,
  });
  assert.equal(parseIpv4Cidr('10.96.1.1/16'), parseIpv4Cidr('10.96.0.0/16'), 'host bits are masked');
  assert.equal(parseIpv4Cidr('0.0.0.0/0'), { first: 0, last: 2 ** 32 - 1 });
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/016', 'fd00::/8', '10.0.0.0/'])
    assert.is(parseIpv4Cidr(bad), undefined, bad);
});

test('GIVEN two CIDRs WHEN compared THEN they overlap only if they share an address', () => {
  const r = (s: string) => parseIpv4Cidr(s)!;
  assert.ok(rangesOverlap(r('10.0.0.0/8'), r('10.200.0.0/16')));
  assert.ok(rangesOverlap(r('10.0.0.0/24'), r('10.0.0.255/32')));
  assert.not.ok(rangesOverlap(r('10.0.0.0/24'), r('10.0.1.0/24')));
});

// ---- token Secret references ----

test('GIVEN the base model with a valid External Secrets configuration WHEN checked THEN nothing is reported', () => {
  assert.equal(checkModel(broken((m) => void withExternalSecrets(m))), []);
  assert.equal(
    checkModel(
      broken((m) => {
        const x = withExternalSecrets(m);
        x.leaderCA = { configMap: { name: 'leader-ca' } };
        x.auth = { tokenSecret: { name: 'antrea-mc-leader-reader', key: 'token' } };
        x.refreshInterval = '1h30m';
      }),
    ),
    [],
  );
});

test("GIVEN the store's bootstrap token Secret named as the default member token Secret WHEN every member names its own token Secret THEN no clash is reported; when one does not, it is", () => {
  const model = (allOwn: boolean) =>
    broken((m) => {
      withExternalSecrets(m).auth = { tokenSecret: { name: 'antrea-mc-leader-token' } };
      const members = new Set(m.members);
      for (const c of m.clusters)
        if (members.has(c.id) && (allOwn || c.id !== m.members[0]))
          c.memberIdentity = { memberTokenSecret: `${c.id}-leader-token` };
    });
  const clash = (m: ModelDraft) =>
    checkModel(m).filter((d) => d.rule === 'external-secrets-token-secret-clash');
  assert.equal(clash(model(true)), []);
  assert.equal(
    clash(model(false)).map((d) => d.path),
    ['secrets.externalSecrets.auth.tokenSecret.name'],
  );
});

test('fails with external-secrets-ca-pem: GIVEN a private key in leaderCA.pem WHEN checked THEN no diagnostic repeats the key', () => {
  const ds = checkModel(
    broken((m) => void (withExternalSecrets(m).leaderCA = { pem: `${CA_PEM}${PRIVATE_KEY_PEM}` })),
  );
  assert.equal(
    ds.map((d) => d.rule),
    ['external-secrets-ca-pem'],
  );
  for (const d of ds) assert.not.match(JSON.stringify(d), /SECRET-KEY-MATERIAL|MIIBdummy/);
});

test.run();
