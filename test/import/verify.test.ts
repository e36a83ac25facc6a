/**
 * `clusterset import --snapshot` then `--verify` (lib/import/verify.ts) on the clean set with what
 * each member imported (fixtures.ts withMemberImports): nothing changed passes; an import deleted and
 * re-created (a new UID), a member Service re-created with a new ClusterIP, a changed label ID and
 * an emptied address set each fail, naming the object and field; a new import, and addresses that
 * followed an exporter's Pods (export, import and members alike), are listed and pass;
 * the record is the same bytes whatever order the set was read in, and holds no Secret.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveSnapshot } from '../../lib/import/snapshot';
import {
  type VerifyResult,
  parseRecord,
  recordSurvivors,
  renderRecord,
  renderVerify,
  verifySurvivors,
} from '../../lib/import/verify';
import {
  type Fixture,
  LABEL_HASH,
  cleanSet,
  obj,
  resourceImport,
  shuffled,
  snapshot,
  subsets,
  withMemberImports,
} from './fixtures';

const NS = 'antrea-multicluster';
/** One set (the fixtures number UIDs as they make objects): each test edits a copy of it. */
const BASE = withMemberImports(cleanSet('antctl'));
const before = (): Fixture => structuredClone(BASE);
/** The record written before, read back from its file's text. */
const recorded = parseRecord(renderRecord(recordSurvivors(snapshot(before()), NS)));

function verify(edit: (f: Fixture) => void): VerifyResult {
  const f = before();
  edit(f);
  return verifySurvivors(recorded, snapshot(f));
}

function violates(r: VerifyResult, cluster: string, object: string, field: string): void {
  assert.not.ok(r.ok, 'verification fails');
  const hit = r.violations.find((v) => v.cluster === cluster && v.object === object && v.field === field);
  assert.ok(
    hit,
    `${cluster} ${object} ${field}; got ${r.violations.map((v) => `${v.cluster} ${v.object} ${v.field}`).join('; ')}`,
  );
  assert.match(renderVerify(r, 'text'), `${cluster}: ${object} ${field}`);
}

/** A new UID, as a delete and a re-create give. */
function recreate(o: { metadata: Record<string, unknown> }): void {
  o.metadata.uid = `${String(o.metadata.uid).slice(0, -4)}beef`;
}

test('GIVEN the record WHEN nothing changed THEN verification passes, every import and imported object checked', () => {
  const r = verify(() => {});
  assert.ok(r.ok, JSON.stringify(r.violations));
  assert.equal(r.listed, []);
  const kinds = new Set([
    ...recorded.leader.objects.map((o) => o.kind),
    ...Object.values(recorded.members).flatMap((m) => m.objects.map((o) => o.kind)),
  ]);
  for (const k of [
    'ResourceImport',
    'Service',
    'ServiceImport',
    'Endpoints',
    'ClusterNetworkPolicy',
    'LabelIdentity',
    'ClusterInfoImport',
  ])
    assert.ok(kinds.has(k), `${k} recorded`);
  assert.is(r.checked, recorded.leader.objects.length + 2 * recorded.members.east!.objects.length);
  const ep = recorded.leader.objects.find((o) => o.name === 'shop-cart-endpoints')!;
  assert.equal(ep.addresses, ['10.101.0.10:8080/TCP http', '10.102.0.10:8080/TCP http']);
  assert.is(recorded.leader.objects.find((o) => o.name === LABEL_HASH)!.labelId, 1);
  assert.is(recorded.members.east!.objects.find((o) => o.kind === 'Service')!.clusterIP, '10.101.200.1');
  assert.match(renderVerify(r, 'text'), 'OK: every recorded import');
});

test('GIVEN the record WHEN an import was deleted and re-created (a new UID) THEN verification fails naming it', () => {
  const r = verify((f) => recreate(obj(f.leader, 'ResourceImport', 'shop-cart-service')));
  violates(r, 'leader', `ResourceImport ${NS}/shop-cart-service`, 'metadata.uid');
});

test('GIVEN the record WHEN an import is gone THEN verification fails naming it', () => {
  const r = verify((f) => {
    f.leader = f.leader.filter((o) => o.metadata.name !== 'guard-rails-antreaclusternetworkpolicy');
  });
  violates(r, 'leader', `ResourceImport ${NS}/guard-rails-antreaclusternetworkpolicy`, 'metadata.uid');
});

test("GIVEN the record WHEN east's imported Service was re-created with a new ClusterIP THEN verification fails on its UID, its ClusterIP and the ServiceImport's ips", () => {
  const r = verify((f) => {
    const svc = obj(f.members.east!, 'Service', 'antrea-mc-cart');
    recreate(svc);
    (svc.spec as { clusterIP: string }).clusterIP = '10.101.200.77';
    (obj(f.members.east!, 'ServiceImport', 'cart').spec as { ips: string[] }).ips = ['10.101.200.77'];
  });
  violates(r, 'member east', 'Service shop/antrea-mc-cart', 'metadata.uid');
  violates(r, 'member east', 'Service shop/antrea-mc-cart', 'spec.clusterIP');
  violates(r, 'member east', 'ServiceImport shop/cart', 'spec.ips');
});

test('GIVEN the record WHEN a label ID changed THEN verification fails on the import and on the LabelIdentity in each member', () => {
  const r = verify((f) => {
    (obj(f.leader, 'ResourceImport', LABEL_HASH).spec as { labelIdentity: { id: number } }).labelIdentity.id =
      2;
    for (const id of ['east', 'west'])
      (obj(f.members[id]!, 'LabelIdentity', LABEL_HASH).spec as { id: number }).id = 2;
  });
  violates(r, 'leader', `ResourceImport ${NS}/${LABEL_HASH}`, 'spec.labelIdentity.id');
  violates(r, 'member west', `LabelIdentity ${LABEL_HASH}`, 'spec.id');
});

test("GIVEN the record WHEN west's imported Endpoints were emptied THEN verification fails: the address set is empty", () => {
  const r = verify((f) => {
    obj(f.members.west!, 'Endpoints', 'antrea-mc-cart').subsets = [];
  });
  violates(r, 'member west', 'Endpoints shop/antrea-mc-cart', 'subsets');
  assert.equal(
    r.violations.map((v) => v.message),
    ['the address set is empty'],
  );
});

test('GIVEN the record WHEN the Endpoints import lost an address THEN verification fails: the address set changed', () => {
  const r = verify((f) => {
    (obj(f.leader, 'ResourceImport', 'shop-cart-endpoints').spec as { endpoints: unknown }).endpoints = {
      subsets: subsets('10.101.0.10'),
    };
  });
  violates(r, 'leader', `ResourceImport ${NS}/shop-cart-endpoints`, 'spec.endpoints.subsets');
});

test("GIVEN the record WHEN east's Pod moved (its Endpoints export, the import and the members' Endpoints all hold its new IP) THEN the change is listed and verification passes; an import that did not follow fails", () => {
  const moved = (f: Fixture) => {
    (obj(f.leader, 'ResourceExport', 'east-shop-cart-endpoints').spec as { endpoints: unknown }).endpoints = {
      subsets: subsets('10.101.0.99'),
    };
  };
  const r = verify((f) => {
    moved(f);
    (obj(f.leader, 'ResourceImport', 'shop-cart-endpoints').spec as { endpoints: unknown }).endpoints = {
      subsets: subsets('10.101.0.99', '10.102.0.10'),
    };
    for (const m of Object.values(f.members))
      obj(m, 'Endpoints', 'antrea-mc-cart').subsets = subsets('10.102.0.10', '10.101.0.99');
  });
  assert.ok(r.ok, JSON.stringify(r.violations));
  const follows = r.listed
    .filter((l) => /follows them/.test(l.message))
    .map((l) => `${l.cluster}: ${l.object}`);
  assert.ok(follows.includes(`leader: ResourceImport ${NS}/shop-cart-endpoints`), follows.join('; '));
  assert.ok(follows.includes('member west: Endpoints shop/antrea-mc-cart'), follows.join('; '));
  // The export moved but the import kept the old address: that is not following.
  const stale = verify((f) => {
    moved(f);
    (obj(f.leader, 'ResourceImport', 'shop-cart-endpoints').spec as { endpoints: unknown }).endpoints = {
      subsets: subsets('10.102.0.10'),
    };
  });
  violates(stale, 'leader', `ResourceImport ${NS}/shop-cart-endpoints`, 'spec.endpoints.subsets');
});

test('GIVEN the record WHEN a new import appeared and one was rewritten in place (same addresses, other order) THEN both are listed, and verification passes', () => {
  const r = verify((f) => {
    f.leader.push(
      resourceImport('shop-new-service', {
        name: 'new',
        namespace: 'shop',
        kind: 'ServiceImport',
        serviceImport: { spec: { ports: [{ port: 80, protocol: 'TCP' }], type: 'ClusterSetIP' } },
      }),
    );
    (obj(f.leader, 'ResourceImport', 'shop-cart-endpoints').spec as { endpoints: unknown }).endpoints = {
      subsets: subsets('10.102.0.10', '10.101.0.10'),
    };
  });
  assert.ok(r.ok, JSON.stringify(r.violations));
  assert.equal(
    r.listed.map((l) => `${l.object}: ${l.message}`),
    [
      `ResourceImport ${NS}/shop-cart-endpoints: spec changed in place (same UID)`,
      `ResourceImport ${NS}/shop-new-service: new`,
    ],
  );
});

test('GIVEN the same set read in another order WHEN recorded THEN the file is the same bytes, and it holds no Secret', () => {
  const f = before();
  const s = snapshot(f);
  const mixed: LiveSnapshot = {
    ...s,
    leader: { ...s.leader, objects: shuffled(s.leader.objects, 7) },
    members: Object.fromEntries(
      Object.entries(s.members)
        .reverse()
        .map(([id, c]) => [id, { ...c, objects: shuffled(c.objects, 11) }]),
    ),
  };
  const a = renderRecord(recordSurvivors(s, NS));
  assert.is(renderRecord(recordSurvivors(mixed, NS)), a);
  assert.not.match(a, /"kind": "Secret"|token/);
});

test('GIVEN a file that is not a record WHEN parsed THEN it is refused, saying why', () => {
  assert.throws(
    () => parseRecord('{"leader": {}}'),
    /not a snapshot written by clusterset import --snapshot/,
  );
  assert.throws(() => parseRecord('nope'), /not JSON/);
});

/** Removes every object of `kind` whose name or label matches, in place. */
function drop(objects: Fixture['leader'], keep: (o: Fixture['leader'][number]) => boolean): void {
  const kept = objects.filter(keep);
  objects.splice(0, objects.length, ...kept);
}

const isLabelExport = (o: Fixture['leader'][number]) =>
  o.kind === 'ResourceExport' && (o.spec as { kind?: string } | undefined)?.kind === 'LabelIdentity';

test('GIVEN the record WHEN every member withdrew a label (its exports, import and LabelIdentities gone) THEN verification passes and lists it as withdrawn', () => {
  const r = verify((f) => {
    drop(
      f.leader,
      (o) => !isLabelExport(o) && !(o.kind === 'ResourceImport' && o.metadata.name === LABEL_HASH),
    );
    for (const id of Object.keys(f.members))
      drop(f.members[id]!, (o) => !(o.kind === 'LabelIdentity' && o.metadata.name === LABEL_HASH));
  });
  assert.ok(r.ok, r.violations.map((v) => `${v.cluster} ${v.object} ${v.field}`).join('; '));
  assert.ok(
    r.listed.some(
      (l) =>
        l.cluster === 'leader' &&
        l.object === `ResourceImport ${NS}/${LABEL_HASH}` &&
        /withdrawn/.test(l.message),
    ),
  );
});

test('GIVEN the record WHEN a label import is deleted while members still export the label THEN verification fails: deleted', () => {
  const r = verify((f) => {
    drop(f.leader, (o) => !(o.kind === 'ResourceImport' && o.metadata.name === LABEL_HASH));
  });
  violates(r, 'leader', `ResourceImport ${NS}/${LABEL_HASH}`, 'metadata.uid');
});

test.run();
