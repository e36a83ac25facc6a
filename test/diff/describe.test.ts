/** Plain-language descriptions of rendered policies and Service ports, as the summary prints them. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  describePeer,
  describePolicy,
  describePolicyChange,
  describePortChange,
  describeSelector,
} from '../../lib/diff/describe';

test('GIVEN selectors THEN labels and expressions read as text, and an empty one as undefined', () => {
  assert.is(describeSelector({ matchLabels: { app: 'web', tier: 'front' } }), 'app=web, tier=front');
  assert.is(
    describeSelector({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev', 'test'] }] }),
    'env not in (dev, test)',
  );
  assert.is(describeSelector({}), undefined);
});

test('GIVEN peers THEN pods, namespaces, IP blocks and the ClusterSet scope are named', () => {
  assert.is(
    describePeer({
      scope: 'ClusterSet',
      podSelector: { matchLabels: { app: 'frontend' } },
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } },
    }),
    'pods app=frontend in namespace web from every cluster',
  );
  assert.is(describePeer({ namespaceSelector: {} }), 'all pods in any namespace');
  assert.is(
    describePeer({ namespaceSelector: { matchLabels: { env: 'prod' } } }),
    'all pods in namespaces env=prod',
  );
  assert.is(describePeer({ ipBlock: { cidr: '10.0.0.0/8' } }), 'IPs in 10.0.0.0/8');
});

test('GIVEN a policy with egress to a multi-cluster Service THEN it says so', () => {
  assert.is(
    describePolicy({
      tier: 'application',
      priority: 30,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
      egress: [
        {
          name: 'ledger',
          action: 'Allow',
          toServices: [{ namespace: 'payments', name: 'ledger', scope: 'ClusterSet' }],
        },
      ],
    }),
    'tier application, priority 30, applies to all pods in namespace shop: allows egress to Service payments/ledger in every cluster (rule ledger)',
  );
});

test('GIVEN rule changes THEN removed, added, action, port and order changes are each named', () => {
  const before = {
    tier: 't',
    priority: 1,
    appliedTo: [],
    ingress: [
      { name: 'a', action: 'Allow', ports: [{ port: 80, protocol: 'TCP' }] },
      { name: 'b', action: 'Drop' },
      { name: 'c', action: 'Allow' },
    ],
  };
  const after = {
    tier: 't',
    priority: 1,
    appliedTo: [],
    ingress: [
      { name: 'b', action: 'Reject' },
      { name: 'a', action: 'Allow', ports: [{ port: 8080, protocol: 'TCP' }] },
    ],
  };
  assert.equal(describePolicyChange(before, after), [
    'no longer admits any source (rule c)',
    'rule b: Drop → Reject',
    'rule a: port 80/TCP → port 8080/TCP',
    'ingress rules reordered (they are evaluated in order)',
  ]);
});

test('GIVEN ServiceImport ports THEN changes are named by port name', () => {
  assert.equal(
    describePortChange(
      [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'grpc', port: 9090, protocol: 'TCP' },
      ],
      [
        { name: 'http', port: 8080, protocol: 'TCP' },
        { name: 'dns', port: 53, protocol: 'UDP' },
      ],
    ),
    ['port http 80/TCP → 8080/TCP', 'port grpc 9090/TCP removed', 'new port dns 53/UDP'],
  );
});

test.run();
