/**
 * The explain report: goldens of every format for the example model and the golden cases, targeted
 * assertions on the example, determinism under shuffled model lists, and Mermaid IDs for awkward
 * names.
 */
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import clusterSet from '../../clusterset';
import { explain, formatReport, type ExplainFormat } from '../../lib/explain';
import { exportGraphMermaid, mermaidId, mermaidLabel, renderExportGraph } from '../../lib/explain/mermaid';
import { policiesIn } from '../../lib/explain/policies';
import type { ClusterSetProps } from '../../lib/model';
import { memberConfigText } from '../../lib/antrea-member-config';
import { compile } from '../../lib/compile';
import { plan } from '../../lib/plan';
import { loadYaml } from '../../lib/yaml';
import { caseNames, loadCase, matchGolden } from '../helpers/golden';
import { cluster, memberOf, minimalModel, planOf, service } from '../helpers/models';
import { shuffleModel } from '../helpers/shuffle';

const FORMATS: readonly [ExplainFormat, string][] = [
  ['text', 'txt'],
  ['markdown', 'md'],
  ['json', 'json'],
  ['mermaid', 'mmd'],
];

function outputs(model: ClusterSetProps, cluster?: string): Map<string, string> {
  const p = plan(model);
  const report = explain(p, cluster === undefined ? {} : { cluster });
  const prefix = cluster === undefined ? 'set' : `cluster-${cluster}`;
  return new Map(FORMATS.map(([f, ext]) => [`${prefix}.${ext}`, formatReport(report, p, f)]));
}

const GOLDEN = path.join(__dirname, 'golden');

/** Goldens kept small: every format once, JSON only where the report is short. */
const KEEP = new Set([
  'set.txt',
  'set.md',
  'set.mmd',
  'cluster-east.txt',
  'cluster-east.md',
  'cluster-east.mmd',
  'cluster-hub.txt',
  'cluster-hub.json',
]);

test('GIVEN the example model WHEN explained in every format THEN the output matches the goldens', () => {
  const all = new Map([
    ...outputs(clusterSet),
    ...outputs(clusterSet, 'east'),
    ...outputs(clusterSet, 'hub'),
  ]);
  const files = new Map([...all].filter(([f]) => KEEP.has(f)));
  assert.equal(matchGolden(files, path.join(GOLDEN, 'example')), []);
});

for (const name of caseNames()) {
  test(`GIVEN golden case ${name} WHEN explained THEN the text (and for minimal the JSON) matches the golden`, () => {
    const all = outputs(loadCase(name));
    const files = new Map(
      [...all].filter(([f]) => f === 'set.txt' || (name === 'minimal' && f === 'set.json')),
    );
    assert.equal(matchGolden(files, path.join(GOLDEN, name)), []);
  });
}

test('GIVEN the example WHEN explained as JSON THEN it parses to the documented shape', () => {
  const p = plan(clusterSet);
  const j = JSON.parse(formatReport(explain(p), p, 'json')) as Record<string, unknown>;
  assert.equal(Object.keys(j), [
    'format',
    'clusterSetId',
    'leader',
    'leaderNamespace',
    'memberNamespace',
    'cluster',
    'summary',
    'clusters',
    'namespaces',
    'reachability',
    'delivery',
    'notes',
  ]);
  assert.is(j.format, 'clusterset.explain/v1');
  const rows = j.reachability as { verdict: string; ports: { port: string; allowedIf: unknown[] }[] }[];
  assert.is(rows.length, 180);
  const depends = rows.find((r) => r.verdict === 'depends')!;
  assert.ok(
    depends.ports.some((p) => p.allowedIf.length > 0),
    'depends carries its conditions',
  );
});

test("GIVEN no takeOver (the default) WHEN a member is explained THEN it names the application teams' Namespaces it needs and prints the exact config Antrea's install must ship", () => {
  const m = minimalModel();
  m.memberNamespace = 'mc-member';
  m.services = [
    service('shop', 'cart', ['east']),
    service('payments', 'ledger', ['west']),
    service('kube-system', 'dns', ['east']),
    service('mc-member', 'probe', ['east']),
  ];
  const p = planOf(m);
  const r = explain(p, { cluster: 'east' });
  const east = r.clusters[0]!;
  // Built-in Namespaces and the ClusterSet's own (mc-member, rendered by clusterset) are left out.
  assert.equal(east.serviceNamespaces, {
    renderedBy: 'application-teams',
    forExports: ['shop'],
    forImports: ['payments'],
  });
  assert.equal(east.memberControllerConfig, {
    configMap: 'mc-member/antrea-mc-controller-config',
    key: 'controller_manager_config.yaml',
    renderedBy: 'antrea-install',
    content: memberConfigText(memberOf(p, 'east')),
  });
  const text = formatReport(r, p, 'text');
  assert.match(
    text,
    '  Namespaces the application teams own, which must exist: shop (its ServiceExports live there: its bundle applies only once they exist); payments (imports only: Antrea imports into them once they exist)\n',
  );
  const indented = memberConfigText(memberOf(p, 'east'))
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  assert.match(text, `controller_manager_config.yaml must be exactly\n${indented}\n`);
  assert.match(formatReport(r, p, 'markdown'), `\`\`\`yaml\n${memberConfigText(memberOf(p, 'east'))}\`\`\``);
  assert.is(explain(p, { cluster: 'hub' }).clusters[0]!.memberControllerConfig, null, 'the leader runs none');
});

test('GIVEN takeOver WHEN a member is explained THEN both are said to be rendered by clusterset, and no config is printed', () => {
  const m = minimalModel();
  m.takeOver = { memberControllerConfig: true, serviceNamespaces: true };
  const p = planOf(m);
  const r = explain(p, { cluster: 'east' });
  assert.is(r.clusters[0]!.memberControllerConfig?.renderedBy, 'clusterset');
  assert.is(r.clusters[0]!.serviceNamespaces?.renderedBy, 'clusterset');
  const text = formatReport(r, p, 'text');
  assert.match(text, '  Namespaces shop: rendered by clusterset (takeOver.serviceNamespaces)\n');
  assert.match(
    text,
    '  member controller config kube-system/antrea-mc-controller-config: rendered by clusterset (takeOver.memberControllerConfig)\n',
  );
  assert.not.match(text, 'MultiClusterConfig');
});

test('GIVEN the example WHEN explained THEN roles, imports and the policy order are as Antrea has them', () => {
  const r = explain(plan(clusterSet));
  const hub = r.clusters.find((c) => c.id === 'hub')!;
  assert.is(hub.role, 'leader');
  assert.equal(hub.imports, []);
  assert.equal(hub.policies, []);
  const edge = r.clusters.find((c) => c.id === 'edge')!;
  // edge imports every Service, shop/cart included, though it exports only dns-cache.
  const cart = edge.imports.find((i) => i.service === 'shop/cart')!;
  assert.is(cart.importedAs, 'shop/antrea-mc-cart');
  assert.equal(cart.from, [
    { cluster: 'east', endpoints: 'ClusterIP', path: 'via gateways' },
    { cluster: 'west', endpoints: 'ClusterIP', path: 'via gateways' },
  ]);
  const dns = edge.imports.find((i) => i.service === 'platform/dns-cache')!;
  assert.ok(
    dns.from.some((f) => f.cluster === 'edge' && f.path === 'local'),
    'a member imports its own export',
  );
  // east: platform (200) < clusterset-baseline (240) < application (250), then priority 20 < 30.
  const east = r.clusters.find((c) => c.id === 'east')!;
  assert.equal(
    east.policies.map((p) => `${p.tier}/${p.tierPriority}/${p.priority}/${p.object}`),
    [
      'platform/200/5/antrea-mc-allow-dns',
      'clusterset-baseline/240/10/antrea-mc-deny-cross-ns-payments',
      'application/250/20/cart-ingress',
      'application/250/30/shop-to-ledger',
    ],
  );
  // edge is not targeted by the stretched policies.
  assert.equal(
    edge.policies.map((p) => p.name),
    ['allow-dns', 'deny-cross-ns-payments'],
  );
});

test('GIVEN the example WHEN reachability is computed THEN the Cluster-scope payments guard stops only local callers', () => {
  const r = explain(plan(clusterSet));
  const ledger = (source: string, ns: string) =>
    r.reachability.find(
      (x) =>
        x.service === 'payments/ledger' &&
        x.exporter === 'central' &&
        x.source === source &&
        x.namespace === ns,
    )!;
  assert.is(ledger('central', 'web').verdict, 'denied');
  assert.is(ledger('east', 'web').verdict, 'allowed');
  assert.is(ledger('central', 'shop').verdict, 'depends');
  assert.equal(r.namespaces, ['payments', 'platform', 'shop', 'web', '*']);
});

test('fails GIVEN --cluster naming no cluster, listing the valid IDs', () => {
  assert.throws(
    () => explain(plan(clusterSet), { cluster: 'nowhere' }),
    /cluster "nowhere" is not in the model; the clusters are: central, east, edge, hub, west/,
  );
});

test('GIVEN --cluster east WHEN explained THEN only east is described and every row touches east', () => {
  const r = explain(plan(clusterSet), { cluster: 'east' });
  assert.equal(
    r.clusters.map((c) => c.id),
    ['east'],
  );
  assert.ok(r.reachability.length > 0);
  assert.ok(r.reachability.every((x) => x.source === 'east' || x.exporter === 'east'));
});

test('GIVEN the example with every unordered list shuffled WHEN explained THEN every format gives the same bytes', () => {
  const reference = outputs(clusterSet);
  let changed = false;
  for (const seed of [1, 7, 42, 1337]) {
    const m = shuffleModel(clusterSet, seed);
    if (JSON.stringify(m) !== JSON.stringify(clusterSet)) changed = true;
    assert.equal(outputs(m), reference, `seed ${seed}`);
  }
  assert.ok(changed, 'the shuffles changed the model order');
});

test('GIVEN two policies with the same Tier and priority THEN each names the other as a tie', () => {
  const m = minimalModel();
  m.baselinePolicies = [
    { name: 'a', tier: 'application', priority: 7, appliedTo: [{ namespaceSelector: {} }] },
    { name: 'b', tier: 'application', priority: 7, appliedTo: [{ namespaceSelector: {} }] },
  ];
  const ps = policiesIn(planOf(m), 'east');
  assert.equal(
    ps.map((p) => [p.objectName, p.tiedWith]),
    [
      ['antrea-mc-a', ['antrea-mc-b']],
      ['antrea-mc-b', ['antrea-mc-a']],
    ],
  );
});

test('GIVEN awkward names (Mermaid keywords, quotes, brackets) THEN IDs are safe and distinct and labels escaped', () => {
  const names = ['end', 'graph', 'subgraph', 'a-b', 'a_b', 'a.b', 'x"y', 'dc 1', 'click', '💥'];
  const ids = names.map((n) => mermaidId('c', n));
  assert.is(new Set(ids).size, names.length, 'injective');
  for (const id of ids) assert.match(id, /^c_[A-Za-z0-9_]+$/);
  assert.is(mermaidLabel('a"b<c>#d'), '"a#34;b#60;c#62;#35;d"');

  const m = minimalModel();
  m.members = ['end', 'graph'];
  m.clusters = [
    cluster('hub', 0, { network: 'dc "1" <main>' }),
    cluster('end', 1, { network: 'end' }),
    cluster('graph', 2, { network: 'dc "1" <main>' }),
  ];
  m.services = [service('end', 'subgraph', ['end'])];
  const g = exportGraphMermaid(planOf(m));
  assert.match(g, /^flowchart LR\n/);
  assert.match(g, /c_end -->\|"end\/subgraph"\| c_graph/);
  assert.match(g, /subgraph net_dc_20_/);
  assert.not.match(g, /"dc "1"/, 'quotes in labels are escaped');
  for (const line of g.trimEnd().split('\n').slice(1)) {
    // Every line is a subgraph header, `end`, a node, an edge or a class line; no bare label text.
    assert.match(
      line,
      /^\s+(subgraph [a-z]+_[A-Za-z0-9_]+\[".*"\]|end|c_[A-Za-z0-9_]+(\[".*"\]|\{\{".*"\}\})|c_[A-Za-z0-9_]+ -->\|".*"\| c_[A-Za-z0-9_]+|classDef .*|class .*)$/,
    );
  }
});

test('GIVEN edges marked added and removed and a cluster known only from an edge THEN each is drawn its way', () => {
  const g = renderExportGraph(
    [
      { id: 'east', network: 'dc1', member: true },
      { id: 'hub', leader: true },
    ],
    [
      { exporter: 'east', importer: 'gone', service: 'shop/cart', change: 'removed' },
      { exporter: 'east', importer: 'gone', service: 'shop/web' },
      { exporter: 'east', importer: 'new', service: 'shop/cart', change: 'added' },
    ],
  );
  assert.is(
    g,
    [
      'flowchart LR',
      '  subgraph net_["default network"]',
      '    c_hub{{"hub (leader)"}}',
      '  end',
      '  subgraph net_dc1["network dc1"]',
      '    c_east["east"]',
      '  end',
      '  c_gone["gone"]',
      '  c_new["new"]',
      '  c_east -->|"shop/web"| c_gone',
      '  c_east -.->|"- shop/cart"| c_gone',
      '  c_east ==>|"+ shop/cart"| c_new',
      '',
    ].join('\n'),
  );
});

test('GIVEN the minimal model WHEN explained THEN each cluster says how many objects are ours, how to list them and what is shared', () => {
  const m = minimalModel();
  const files = compile(m).files;
  const r = explain(planOf(m));
  for (const c of r.clusters) {
    const labelled = [...files]
      .filter(([f]) => f.startsWith(`clusters/${c.id}/`) && !f.endsWith('kustomization.yaml'))
      .map(([, text]) => loadYaml(text) as { kind: string; metadata: { labels?: Record<string, string> } })
      .filter((o) => o.metadata.labels?.['app.kubernetes.io/part-of'] === 'test-set');
    assert.is(c.ownership!.labelled, labelled.length, c.id);
    assert.ok(
      c.ownership!.command.startsWith(
        `kubectl --context <${c.id}> get -A -l app.kubernetes.io/managed-by=clusterset,app.kubernetes.io/part-of=test-set `,
      ),
    );
    for (const o of labelled)
      assert.ok(c.ownership!.command.includes(o.kind.toLowerCase()), `${c.id}: ${o.kind}`);
  }
  const east = r.clusters.find((c) => c.id === 'east')!;
  // Antrea's install keeps its ConfigMap and the teams their Namespaces (no takeOver); Antrea's
  // Deployment is never rendered (the restart Job patches it).
  assert.equal(east.ownership!.shared, []);
  assert.equal(
    r.clusters.find((c) => c.id === 'hub')!.ownership!.shared,
    [],
    "the leader's objects are ours alone",
  );
  const t = minimalModel();
  t.takeOver = { memberControllerConfig: true, serviceNamespaces: true };
  const taken = explain(planOf(t));
  assert.equal(
    taken.clusters.find((c) => c.id === 'east')!.ownership!.shared.map((x) => `${x.object} ${x.labelled}`),
    ['ConfigMap kube-system/antrea-mc-controller-config true', 'Namespace shop true'],
  );
  assert.match(
    formatReport(taken, planOf(t), 'text'),
    /\n {2}shared with another owner:\n {4}ConfigMap kube-system\/antrea-mc-controller-config: Antrea's member install, which ships it too\n {4}Namespace shop: the teams whose workloads run in it/,
  );
});

test('GIVEN a cluster of the model that is neither leader nor member THEN it has no bundle and no ownership', () => {
  const m = minimalModel();
  m.clusters.push(cluster('spare', 9));
  const spare = explain(planOf(m), { cluster: 'spare' }).clusters[0]!;
  assert.is(spare.role, 'unused');
  assert.is(spare.ownership, null);
});

test.run();
