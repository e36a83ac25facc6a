/**
 * `importSet` on a set as Antrea and antctl leave it (fixtures.ts): the model compiles clean, the
 * leader bundle it compiles to renders the very ResourceImports that live (the adoption premise:
 * equal names and specs, so server-side apply changes nothing a member sees), and the identities are
 * carried over under their own names, the antctl way and the user guide's kubectl way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { importSet } from '../../lib/import/model';
import type { K8sObject } from '../../lib/render';
import { type Fixture, cleanSet, obj, resourceImport, serviceExport, snapshot } from './fixtures';

function leaderImports(model: unknown): K8sObject[] {
  const r = compile(model);
  assert.equal(r.diagnostics, [], 'the imported model compiles');
  return (r.bundles!.get('hub') ?? []).filter((o) => o.kind === 'ResourceImport');
}

function liveImports(f: Fixture) {
  return f.leader.filter((o) => o.kind === 'ResourceImport');
}

for (const way of ['antctl', 'kubectl'] as const) {
  test(`GIVEN a clean set made the ${way} way WHEN imported THEN the model checks clean and nothing blocks or changes`, () => {
    const i = importSet(snapshot(cleanSet(way)));
    const r = compile(i.model);
    assert.equal(r.diagnostics, []);
    assert.equal(r.warnings, []);
    assert.equal(
      i.findings.filter((f) => f.class !== 'info'),
      [],
    );
  });

  test(`GIVEN a clean set made the ${way} way WHEN its model compiles THEN the leader bundle's ServiceImport and ACNP imports equal the live ones in name and spec`, () => {
    const f = cleanSet(way);
    const rendered = leaderImports(importSet(snapshot(f)).model);
    const statics = liveImports(f).filter((o) =>
      ['ServiceImport', 'AntreaClusterNetworkPolicy'].includes((o.spec as { kind: string }).kind),
    );
    assert.equal(rendered.map((o) => o.metadata.name).sort(), statics.map((o) => o.metadata.name).sort());
    for (const o of rendered) {
      const live = statics.find((x) => x.metadata.name === o.metadata.name)!;
      assert.equal(o.spec, live.spec, o.metadata.name);
      assert.is(o.metadata.namespace, 'antrea-multicluster');
    }
  });
}

test('GIVEN identities made by antctl (SA, RoleBinding, Secret all NAME) WHEN imported THEN memberIdentity names the ServiceAccount, and the bundle renders exactly the live names', () => {
  const i = importSet(snapshot(cleanSet('antctl')));
  const east = i.model.clusters.find((c) => c.id === 'east')!;
  // Each member's token Secret has a name of its own (antctl join writes the membertoken's name).
  assert.equal(east.memberIdentity, {
    serviceAccount: 'east-membertoken',
    memberTokenSecret: 'east-membertoken',
  });
  const west = i.model.clusters.find((c) => c.id === 'west')!;
  assert.equal(west.memberIdentity, {
    serviceAccount: 'west-membertoken',
    memberTokenSecret: 'west-membertoken',
  });
  const hub = compile(i.model).bundles!.get('hub')!;
  const names = (kind: string) =>
    hub
      .filter((o) => o.kind === kind && o.metadata.namespace === 'antrea-multicluster')
      .map((o) => o.metadata.name)
      .sort();
  assert.ok(names('ServiceAccount').includes('east-membertoken'));
  assert.ok(names('RoleBinding').includes('east-membertoken'));
  assert.ok(names('Secret').includes('east-membertoken'));
  assert.not.ok(names('ServiceAccount').includes('member-east'));
  const eastCs = compile(i.model)
    .bundles!.get('east')!
    .find((o) => o.kind === 'ClusterSet')!;
  assert.is((eastCs.spec as { leaders: { secret: string }[] }).leaders[0]!.secret, 'east-membertoken');
});

test("GIVEN the user guide's kubectl identities (member-east / member-east-token) WHEN imported THEN only the token Secret names differ from the defaults", () => {
  const i = importSet(snapshot(cleanSet('kubectl')));
  const east = i.model.clusters.find((c) => c.id === 'east')!;
  assert.equal(east.memberIdentity, {
    tokenSecret: 'member-east-token',
    memberTokenSecret: 'member-east-token',
  });
  assert.is(i.model.secrets, undefined, 'no name is shared by two members: the default stays');
  const hub = compile(i.model).bundles!.get('hub')!;
  assert.ok(hub.some((o) => o.kind === 'Secret' && o.metadata.name === 'member-east-token'));
  assert.ok(hub.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'member-east'));
});

test("GIVEN a ServiceImport import whose ports are not in sorted order WHEN imported THEN the model keeps the import's order, and the compiled import equals it", () => {
  const f = cleanSet('antctl');
  const ports = [
    { name: 'metrics', port: 9090, protocol: 'TCP' },
    { name: 'grpc', port: 7070, protocol: 'UDP' },
  ];
  f.leader.push(
    serviceExport(
      'east',
      'shop',
      'pay',
      ports.map((p) => ({ ...p, targetPort: p.port })),
    ),
    resourceImport('shop-pay-service', {
      name: 'pay',
      namespace: 'shop',
      kind: 'ServiceImport',
      serviceImport: { spec: { ports, type: 'ClusterSetIP' } },
    }),
  );
  const i = importSet(snapshot(f));
  const pay = i.model.services!.find((s) => s.name === 'pay')!;
  assert.equal(pay.ports, [
    { name: 'metrics', port: 9090 },
    { name: 'grpc', port: 7070, protocol: 'UDP' },
  ]);
  assert.equal(pay.exportedFrom, ['east']);
  const rendered = leaderImports(i.model).find((o) => o.metadata.name === 'shop-pay-service')!;
  assert.equal(rendered.spec, obj(f.leader, 'ResourceImport', 'shop-pay-service').spec);
});

test('GIVEN controllers on 2.7.1 and 2.7.0 WHEN imported THEN antreaVersion is the oldest, with a comment saying which runs what', () => {
  const f = cleanSet('antctl');
  const d = obj(f.members.west!, 'Deployment', 'antrea-mc-controller') as unknown as {
    spec: { template: { spec: { containers: { image: string }[] } } };
  };
  const leaderDeploy = obj(f.leader, 'Deployment', 'antrea-mc-controller') as unknown as typeof d;
  leaderDeploy.spec.template.spec.containers[0]!.image = 'antrea/antrea-mc-controller:v2.7.1';
  d.spec.template.spec.containers[0]!.image = 'antrea/antrea-mc-controller:v2.7.0';
  const i = importSet(snapshot(f));
  assert.is(i.model.antreaVersion, '2.7.0');
  assert.match(i.comments.get('antreaVersion')!.join('\n'), 'leader hub 2.7.1');
});

test("GIVEN the clean set WHEN imported THEN the leader is the ClusterSet's clusterID, its API server the members' leaders[0].server, each member's the kubeconfig's with a comment", () => {
  const i = importSet(snapshot(cleanSet('antctl')));
  assert.is(i.model.leader, 'hub');
  assert.equal(i.model.members, ['east', 'west']);
  const idx = i.model.clusters.findIndex((c) => c.id === 'east');
  assert.is(i.model.clusters[idx]!.apiServer, 'https://east.example.com:6443');
  assert.match(i.comments.get(`clusters[${idx}].apiServer`)!.join('\n'), 'Argo CD');
  assert.is(i.model.clusters.find((c) => c.id === 'hub')!.apiServer, 'https://hub.example.com:6443');
  assert.equal(i.model.clusters[idx]!.gateway, { nodes: [{ name: 'east-node-1' }] });
  assert.is(i.model.clusters[idx]!.serviceCIDR, '10.101.0.0/16');
});

test("GIVEN a set Antrea's leader runs WHEN imported THEN the reconciler waits in standby for it to stop, and the comment says how to end that", () => {
  const i = importSet(snapshot(cleanSet('antctl')));
  assert.equal(i.model.reconciler, { waitForAntreaLeader: true });
  assert.match(i.comments.get('reconciler.waitForAntreaLeader')!.join('\n'), /set it false/i);
});

test.run();
