/**
 * The reachability evaluator on small models, one Antrea behaviour per scenario: first match wins
 * across Tiers and priorities, Pass skips to the baseline Tier, Cluster vs ClusterSet scope,
 * toServices, open questions (Pod labels, target ports) come out as "depends", stretched policies
 * only where they are rendered. Every model passes the checks first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkModel } from '../../lib/check';
import { literalText } from '../../lib/explain/conditions';
import { OTHER_NAMESPACE, reachability, type Reachability } from '../../lib/explain/reachability';
import type { Draft, ModelDraft } from '../helpers/models';
import { cluster, minimalModel, planOf, service } from '../helpers/models';
import type { BaselinePolicyProps } from '../../lib/model';

/**
 * GIVEN hub (leader) and members east, west, both with stretched NetworkPolicy, exporting shop/cart
 * (8080/TCP) from both and payments/ledger (9443/TCP) from west.
 */
function base(): ModelDraft {
  const m = minimalModel();
  m.clusters = [
    cluster('hub', 0),
    cluster('east', 1, { enableStretchedNetworkPolicy: true, podCIDRs: ['10.201.0.0/16'] }),
    cluster('west', 2, { enableStretchedNetworkPolicy: true, podCIDRs: ['10.202.0.0/16'] }),
  ];
  m.services = [
    service('shop', 'cart', ['east', 'west'], [{ name: 'http', port: 8080, protocol: 'TCP' }]),
    service('payments', 'ledger', ['west'], [{ name: 'grpc', port: 9443 }]),
  ];
  m.tiers = [{ name: 'mc-first', priority: 10 }];
  return m;
}

function tableOf(m: ModelDraft): Reachability[] {
  // Warnings do not stop a model: a deny-all on every Namespace is warned about (it takes in
  // kube-system), and is what several scenarios are about.
  assert.equal(
    checkModel(m)
      .filter((d) => d.severity !== 'warning')
      .map((d) => `${d.path}: ${d.message} [${d.rule}]`),
    [],
    'the scenario model passes the checks',
  );
  return reachability(planOf(m));
}

function cell(t: Reachability[], service: string, source: string, namespace: string, exporter: string) {
  const found = t.find(
    (x) =>
      x.service === service && x.source === source && x.namespace === namespace && x.exporter === exporter,
  );
  if (!found) throw new Error(`no cell ${service} ${source}/${namespace} -> ${exporter}`);
  return found;
}

const dropAllIngress = (tier: string, priority = 1): Draft<BaselinePolicyProps> => ({
  name: `deny-all-${tier}`,
  tier,
  priority,
  appliedTo: [{ namespaceSelector: {} }],
  ingress: [{ name: 'drop-all', action: 'Drop' }],
});

test('GIVEN no policies WHEN the table is computed THEN every cell is allowed, with an "any other" row', () => {
  const t = tableOf(base());
  assert.ok(t.length > 0);
  assert.ok(t.every((x) => x.verdict === 'allowed'));
  assert.ok(t.some((x) => x.namespace === OTHER_NAMESPACE));
  // shop/cart: 2 exporters x 2 members x (payments, shop, any other); ledger: 1 x 2 x 3.
  assert.is(t.length, 2 * 2 * 3 + 1 * 2 * 3);
});

test('GIVEN a deny-all baseline policy WHEN the table is computed THEN everything is denied, by that rule', () => {
  const m = base();
  m.baselinePolicies = [dropAllIngress('securityops')];
  const t = tableOf(m);
  assert.ok(t.every((x) => x.verdict === 'denied'));
  assert.match(
    t[0]!.ports[0]!.decision.by.join(),
    /ingress rule drop-all \(Drop\) of baseline policy deny-all-securityops/,
  );
});

test('GIVEN an Allow in a higher-priority Tier and a Drop in a lower one THEN the Allow wins, and only for its peer', () => {
  const m = base();
  m.baselinePolicies = [
    dropAllIngress('application'),
    {
      name: 'allow-shop',
      tier: 'mc-first',
      priority: 100, // a larger policy priority does not matter: the Tier comes first
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [
        {
          name: 'from-shop',
          action: 'Allow',
          from: [
            {
              scope: 'ClusterSet',
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } },
            },
          ],
        },
      ],
    },
  ];
  const t = tableOf(m);
  assert.is(cell(t, 'payments/ledger', 'east', 'shop', 'west').verdict, 'allowed');
  assert.is(cell(t, 'payments/ledger', 'west', 'shop', 'west').verdict, 'allowed');
  assert.is(cell(t, 'payments/ledger', 'east', 'payments', 'west').verdict, 'denied');
  assert.is(cell(t, 'shop/cart', 'west', OTHER_NAMESPACE, 'east').verdict, 'denied');
});

test('GIVEN the same two policies in one Tier THEN policy priority decides (lower first)', () => {
  const m = base();
  m.baselinePolicies = [
    dropAllIngress('mc-first', 5),
    {
      name: 'allow-all',
      tier: 'mc-first',
      priority: 6,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [{ name: 'allow', action: 'Allow' }],
    },
  ];
  assert.ok(tableOf(m).every((x) => x.verdict === 'denied'));
});

test('GIVEN a Pass before a Drop in a lower Tier THEN the Drop is skipped; a baseline-Tier Drop still applies', () => {
  const m = base();
  m.baselinePolicies = [
    {
      name: 'pass',
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [{ name: 'pass', action: 'Pass' }],
    },
    dropAllIngress('application'),
  ];
  assert.ok(
    tableOf(m).every((x) => x.verdict === 'allowed'),
    'Pass skips the application Tier',
  );
  m.baselinePolicies.push(dropAllIngress('baseline'));
  const t = tableOf(m);
  assert.ok(
    t.every((x) => x.verdict === 'denied'),
    'the baseline Tier comes after Pass',
  );
  assert.match(t[0]!.ports[0]!.decision.by.join(), /deny-all-baseline/);
});

test('GIVEN a Drop from every Namespace with Cluster scope THEN only callers in the exporting cluster are denied', () => {
  const m = base();
  m.baselinePolicies = [
    {
      name: 'local-only',
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [{ name: 'drop-local', action: 'Drop', from: [{ namespaceSelector: {} }] }],
    },
  ];
  let t = tableOf(m);
  assert.is(cell(t, 'payments/ledger', 'west', 'shop', 'west').verdict, 'denied');
  assert.is(cell(t, 'payments/ledger', 'east', 'shop', 'west').verdict, 'allowed');
  m.baselinePolicies[0]!.ingress![0]!.from![0]!.scope = 'ClusterSet';
  t = tableOf(m);
  assert.is(
    cell(t, 'payments/ledger', 'east', 'shop', 'west').verdict,
    'denied',
    'ClusterSet scope reaches east',
  );
});

test('GIVEN egress Allow toServices payments/ledger then Drop all egress THEN only the ledger is reachable', () => {
  const m = base();
  m.baselinePolicies = [
    {
      name: 'egress',
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
      egress: [
        { name: 'ledger', action: 'Allow', toServices: [{ namespace: 'payments', name: 'ledger' }] },
        { name: 'rest', action: 'Drop' },
      ],
    },
  ];
  const t = tableOf(m);
  assert.is(cell(t, 'payments/ledger', 'east', 'shop', 'west').verdict, 'allowed');
  assert.is(cell(t, 'shop/cart', 'east', 'shop', 'west').verdict, 'denied');
  assert.match(
    cell(t, 'shop/cart', 'east', 'shop', 'west').ports[0]!.decision.by.join(),
    /egress rule rest \(Drop\)/,
  );
  assert.is(cell(t, 'shop/cart', 'east', 'payments', 'west').verdict, 'allowed', 'appliedTo is shop only');
});

test('GIVEN a Drop that applies to Pods app=cart THEN the verdict depends, with the condition spelled out', () => {
  const m = base();
  m.baselinePolicies = [
    { ...dropAllIngress('mc-first'), appliedTo: [{ podSelector: { matchLabels: { app: 'cart' } } }] },
  ];
  const c = cell(tableOf(m), 'shop/cart', 'west', 'shop', 'east');
  assert.is(c.verdict, 'depends');
  const d = c.ports[0]!.decision;
  assert.equal(
    d.allowedIf.map((t) => t.map(literalText)),
    [['the Pods behind shop/cart in east do not match app=cart']],
  );
});

test('GIVEN an ingress Allow on port 8080 THEN it depends on the target port; a UDP rule never matches TCP', () => {
  const m = base();
  m.baselinePolicies = [
    {
      name: 'ports',
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [
        { name: 'udp', action: 'Allow', ports: [{ protocol: 'UDP', port: 8080 }] },
        { name: 'http', action: 'Allow', ports: [{ port: 8080 }] },
        { name: 'rest', action: 'Drop' },
      ],
    },
  ];
  const d = cell(tableOf(m), 'shop/cart', 'east', 'shop', 'west').ports[0]!.decision;
  assert.is(d.verdict, 'depends');
  assert.equal(
    d.allowedIf.map((t) => t.map(literalText)),
    [['port http 8080/TCP of shop/cart in west targets container port 8080']],
  );
});

test('GIVEN an egress Drop to an ipBlock covering the exporter Service CIDR THEN it is decided from the CIDRs', () => {
  const m = base();
  m.baselinePolicies = [
    {
      name: 'no-west',
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: {} }],
      egress: [{ name: 'west-services', action: 'Drop', to: [{ ipBlock: { cidr: '10.102.0.0/16' } }] }],
    },
  ];
  const t = tableOf(m);
  assert.is(
    cell(t, 'shop/cart', 'east', 'shop', 'west').verdict,
    'denied',
    "west's ClusterIPs are in the block",
  );
  assert.is(cell(t, 'shop/cart', 'west', 'shop', 'east').verdict, 'allowed', "east's are not");
});

test('GIVEN a stretched Drop-all in east only THEN the Service is denied in east and allowed in west', () => {
  const m = base();
  m.stretchedPolicies = [{ ...dropAllIngress('mc-first'), name: 'east-only', members: ['east'] }];
  const t = tableOf(m);
  assert.is(cell(t, 'shop/cart', 'west', 'shop', 'east').verdict, 'denied');
  assert.is(cell(t, 'shop/cart', 'west', 'shop', 'west').verdict, 'allowed');
  assert.is(cell(t, 'shop/cart', 'east', 'shop', 'west').verdict, 'allowed');
});

test('GIVEN a ClusterSet-scope Drop in east and a caller without stretched NetworkPolicy THEN it depends on that', () => {
  const m = base();
  m.clusters[2] = cluster('west', 2);
  m.stretchedPolicies = [
    {
      name: 'east-guard',
      members: ['east'],
      tier: 'mc-first',
      priority: 1,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [{ name: 'drop-set', action: 'Drop', from: [{ scope: 'ClusterSet', namespaceSelector: {} }] }],
    },
  ];
  const c = cell(tableOf(m), 'shop/cart', 'west', 'shop', 'east');
  assert.is(c.verdict, 'depends');
  assert.match(
    literalText(c.ports[0]!.decision.allowedIf[0]![0]!),
    /do not match traffic from west \(west does not enable stretched NetworkPolicy/,
  );
});

test('GIVEN an Allow and a Drop policy with the same Tier and priority THEN it depends on their order', () => {
  const m = base();
  m.baselinePolicies = [
    dropAllIngress('mc-first', 3),
    {
      name: 'allow-all',
      tier: 'mc-first',
      priority: 3,
      appliedTo: [{ namespaceSelector: {} }],
      ingress: [{ name: 'allow', action: 'Allow' }],
    },
  ];
  const d = cell(tableOf(m), 'shop/cart', 'east', 'shop', 'west').ports[0]!.decision;
  assert.is(d.verdict, 'depends');
  assert.equal(
    d.allowedIf.map((t) => t.map(literalText)),
    [
      [
        'Antrea evaluates antrea-mc-allow-all before antrea-mc-deny-all-mc-first in west (same Tier and priority)',
      ],
    ],
  );
  // Two tied Drops agree whatever the order: the tie does not matter, and is not reported.
  m.baselinePolicies[1] = { ...dropAllIngress('mc-first', 3), name: 'deny-too' };
  assert.ok(tableOf(m).every((x) => x.verdict === 'denied'));
});

test.run();
