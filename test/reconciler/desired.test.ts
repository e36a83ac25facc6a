import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  announceFinalizer,
  labelIdentityHash,
  LEGACY_RESOURCE_EXPORT_FINALIZER,
  RESOURCE_EXPORT_FINALIZER,
} from '../../lib/names';
import type { ReconcilerConfig } from '../../lib/reconciler-config';
import { reconcileClusterInfo } from '../../lib/reconciler/desired/cluster-info';
import { reconcileClusterSet, unixDate } from '../../lib/reconciler/desired/clusterset';
import { exportKey, importKey } from '../../lib/reconciler/desired/keys';
import { reconcileLabel, type LabelIds } from '../../lib/reconciler/desired/label';
import { reconcileMember } from '../../lib/reconciler/desired/member';
import type { Action, ImportSpec } from '../../lib/reconciler/desired/outcome';
import {
  IMPORT_STATUS_SUCCEEDED,
  reconcileService,
  WITHDRAWAL_GRACE_MS,
} from '../../lib/reconciler/desired/service';
import { reconcileStray } from '../../lib/reconciler/desired/stray-export';
import {
  specDigest,
  trimAnnounce,
  trimClusterSet,
  trimExport,
  trimImport,
  type CachedExport,
  type CachedImport,
} from '../../lib/reconciler/objects';

const NOW = '2026-12-02T10:00:00Z';
const NOW_MS = Date.parse(NOW);

const config: ReconcilerConfig = {
  clusterSetId: 'set',
  leaderNamespace: 'lns',
  leader: 'hub',
  members: [
    { id: 'east', network: null, endpointIPType: 'ClusterIP' },
    { id: 'north', network: null, endpointIPType: 'ClusterIP' },
    { id: 'west', network: null, endpointIPType: 'ClusterIP' },
  ],
  services: [
    {
      namespace: 'demo',
      name: 'web',
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      exportedFrom: ['east', 'west'],
    },
  ],
  retireMembersAfterSeconds: 3600,
};

let rv = 1;
function exp(
  name: string,
  spec: unknown,
  extra: { deleting?: boolean; deletedAt?: string; finalizers?: string[]; condition?: unknown } = {},
) {
  return trimExport({
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: String(rv++),
      creationTimestamp: NOW,
      ...(extra.deleting ? { deletionTimestamp: extra.deletedAt ?? NOW } : {}),
      finalizers: extra.finalizers ?? [RESOURCE_EXPORT_FINALIZER],
      // Labels that lie: the reconciler never reads them.
      labels: { sourceName: 'nonsense', sourceClusterID: 'nobody', sourceKind: 'Nothing' },
    },
    spec,
    ...(extra.condition ? { status: { conditions: [extra.condition] } } : {}),
  });
}

const PORTS = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }];
function svcExport(id: string, ports: unknown = PORTS, extra = {}, ns = 'demo', name = 'web') {
  return exp(
    `${id}-${ns}-${name}-service`,
    { clusterID: id, name, namespace: ns, kind: 'Service', service: { serviceSpec: { ports } } },
    extra,
  );
}
function epExport(id: string, ip: string, extra = {}, ns = 'demo', name = 'web') {
  return exp(
    `${id}-${ns}-${name}-endpoints`,
    {
      clusterID: id,
      name,
      namespace: ns,
      kind: 'Endpoints',
      endpoints: { subsets: [{ addresses: [{ ip }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] },
    },
    extra,
  );
}
function imp(name: string, spec: unknown, created = NOW): CachedImport {
  return trimImport({
    metadata: { name, uid: `uid-${name}`, resourceVersion: String(rv++), creationTimestamp: created },
    spec,
  });
}
const sameSpec = (existing: CachedImport, desired: ImportSpec) => existing.specDigest === specDigest(desired);

function service(exports: CachedExport[], existing?: CachedImport, budget?: number) {
  return reconcileService({
    config,
    namespace: 'demo',
    name: 'web',
    exports,
    existing,
    sameSpec,
    now: NOW,
    ...(budget ? { budget } : {}),
  });
}
const ops = (actions: readonly Action[]) => actions.map((a) => `${a.op} ${a.name}`);
function statusOf(actions: readonly Action[], name: string) {
  const a = actions.find((x) => x.op === 'exportStatus' && x.name === name);
  return a && a.op === 'exportStatus' ? a.condition : undefined;
}

test('GIVEN the first live exporter WHEN reconciled THEN the Endpoints import is created with its subsets and both exports succeed', () => {
  const o = service([svcExport('east'), epExport('east', '10.1.0.5')]);
  assert.equal(ops(o.actions), [
    'createImport demo-web-endpoints',
    'exportStatus east-demo-web-endpoints',
    'exportStatus east-demo-web-service',
  ]);
  const create = o.actions[0] as Extract<Action, { op: 'createImport' }>;
  assert.equal(create.spec, {
    name: 'web',
    namespace: 'demo',
    kind: 'Endpoints',
    endpoints: {
      subsets: [{ addresses: [{ ip: '10.1.0.5' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
    },
  });
  assert.equal(statusOf(o.actions, 'east-demo-web-service'), {
    type: 'Succeeded',
    status: 'True',
    lastTransitionTime: NOW,
  });
  assert.equal(o.refused, []);
});

test('GIVEN a second exporter WHEN reconciled THEN its subsets are merged in cluster ID order, whatever the listing order', () => {
  const east = [svcExport('east'), epExport('east', '10.1.0.5')];
  const west = [svcExport('west'), epExport('west', '10.2.0.7')];
  const existing = imp('demo-web-endpoints', (service(east).actions[0] as { spec: ImportSpec }).spec);
  const a = service([...west, ...east], existing);
  const b = service([...east, ...west], existing);
  assert.equal(a.actions, b.actions);
  const replace = a.actions.find((x) => x.op === 'replaceImport') as Extract<Action, { op: 'replaceImport' }>;
  const ips = (
    replace.spec as unknown as { endpoints: { subsets: { addresses: { ip: string }[] }[] } }
  ).endpoints.subsets.map((s) => s.addresses[0]!.ip);
  assert.equal(ips, ['10.1.0.5', '10.2.0.7']);
});

test('GIVEN the import already holds the subsets and statuses are set WHEN reconciled again THEN nothing is written', () => {
  const ok = { type: 'Succeeded', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
  const exports = [
    svcExport('east', PORTS, { condition: ok }),
    epExport('east', '10.1.0.5', { condition: ok }),
  ];
  const existing = imp('demo-web-endpoints', (service(exports).actions[0] as { spec: ImportSpec }).spec);
  assert.equal(service(exports, existing).actions, []);
});

test('GIVEN one of two exporters withdraws WHEN reconciled THEN the import shrinks first and only then its finalizers go', () => {
  const ok = { type: 'Succeeded', status: 'True' };
  const both = [
    svcExport('east'),
    epExport('east', '10.1.0.5'),
    svcExport('west'),
    epExport('west', '10.2.0.7'),
  ];
  const existing = imp('demo-web-endpoints', (service(both).actions[0] as { spec: ImportSpec }).spec);
  const o = service(
    [
      svcExport('east', PORTS, { condition: ok }),
      epExport('east', '10.1.0.5', { condition: ok }),
      svcExport('west', PORTS, { deleting: true, condition: ok }),
      epExport('west', '10.2.0.7', {
        deleting: true,
        condition: ok,
        finalizers: [RESOURCE_EXPORT_FINALIZER, 'other/keep'],
      }),
    ],
    existing,
  );
  assert.equal(ops(o.actions), [
    'replaceImport demo-web-endpoints',
    'releaseExport west-demo-web-endpoints',
    'releaseExport west-demo-web-service',
  ]);
  const release = o.actions[1] as Extract<Action, { op: 'releaseExport' }>;
  assert.equal(release.finalizers, ['other/keep'], "someone else's finalizer stays");
});

test('GIVEN the last exporter withdraws WHEN reconciled THEN the import is deleted before the finalizers are released', () => {
  const existing = imp('demo-web-endpoints', {
    name: 'web',
    namespace: 'demo',
    kind: 'Endpoints',
    endpoints: { subsets: [] },
  });
  const o = service(
    [
      svcExport('east', PORTS, { deleting: true, finalizers: [LEGACY_RESOURCE_EXPORT_FINALIZER] }),
      epExport('east', '10.1.0.5', { deleting: true }),
    ],
    existing,
  );
  assert.equal(ops(o.actions), [
    'deleteImport demo-web-endpoints',
    'releaseExport east-demo-web-endpoints',
    'releaseExport east-demo-web-service',
  ]);
});

test("GIVEN an exporter withdrawing as Antrea's member does (its Service export deleted first) WHEN reconciled in the gap before its Endpoints export is deleted THEN its endpoints leave the import, nothing is refused or given a status, and the Service export keeps its finalizer", () => {
  const ok = { type: 'Succeeded', status: 'True' };
  const both = [
    svcExport('east'),
    epExport('east', '10.1.0.5'),
    svcExport('west'),
    epExport('west', '10.2.0.7'),
  ];
  const existing = imp('demo-web-endpoints', (service(both).actions[0] as { spec: ImportSpec }).spec);
  const gap = service(
    [
      svcExport('east', PORTS, { condition: ok }),
      epExport('east', '10.1.0.5', { condition: ok }),
      svcExport('west', PORTS, { deleting: true, condition: ok }),
      epExport('west', '10.2.0.7', { condition: ok }),
    ],
    existing,
  );
  assert.equal(ops(gap.actions), ['replaceImport demo-web-endpoints']);
  assert.not.match(JSON.stringify(gap.actions[0]), /10\.2\.0\.7/);
  assert.equal(gap.refused, []);
  assert.ok(gap.requeueAfterMs! > 0, 'checked again when the hold would end');

  // The Endpoints export is deleted 20-40 ms later: both finalizers go, the Endpoints one first.
  const after = imp('demo-web-endpoints', (gap.actions[0] as { spec: ImportSpec }).spec);
  const done = service(
    [
      svcExport('east', PORTS, { condition: ok }),
      epExport('east', '10.1.0.5', { condition: ok }),
      svcExport('west', PORTS, { deleting: true, condition: ok }),
      epExport('west', '10.2.0.7', { deleting: true, condition: ok }),
    ],
    after,
  );
  assert.equal(ops(done.actions), [
    'releaseExport west-demo-web-endpoints',
    'releaseExport west-demo-web-service',
  ]);
  assert.equal(done.refused, []);
  assert.is(done.requeueAfterMs, undefined);
});

test('GIVEN the last exporter withdrawing, its Service export deleted first WHEN reconciled in the gap THEN the import is deleted at once and nothing is refused', () => {
  const existing = imp(
    'demo-web-endpoints',
    (service([svcExport('east'), epExport('east', '10.1.0.5')]).actions[0] as { spec: ImportSpec }).spec,
  );
  const o = service([svcExport('east', PORTS, { deleting: true }), epExport('east', '10.1.0.5')], existing);
  assert.equal(ops(o.actions), ['deleteImport demo-web-endpoints']);
  assert.equal(o.refused, []);
});

test('fails GIVEN a Service export deleted and its Endpoints export left live past the grace WHEN reconciled THEN the Service export is released, and then the Endpoints export is refused', () => {
  const long = new Date(Date.parse(NOW) - WITHDRAWAL_GRACE_MS - 1000).toISOString().replace('.000Z', 'Z');
  const held = service([
    svcExport('east', PORTS, { deleting: true, deletedAt: long }),
    epExport('east', '10.1.0.5'),
  ]);
  assert.equal(ops(held.actions), ['releaseExport east-demo-web-service']);
  assert.equal(held.refused, [], 'still withdrawing while its Service export exists');
  const orphan = service([epExport('east', '10.1.0.5')]);
  assert.match(orphan.refused[0]!.why, /the Service export east-demo-web-service does not exist/);
  assert.is(statusOf(orphan.actions, 'east-demo-web-endpoints')!.type, 'Failure');
});

test('fails GIVEN an exporter whose Service ports differ from the model WHEN reconciled THEN Failure with the ports, and its endpoints stay out', () => {
  const o = service([
    svcExport('east'),
    epExport('east', '10.1.0.5'),
    svcExport('west', [{ name: 'http', port: 81, protocol: 'TCP' }]),
    epExport('west', '10.2.0.7'),
  ]);
  const c = statusOf(o.actions, 'west-demo-web-service')!;
  assert.is(c.type, 'Failure');
  assert.is(c.status, 'False');
  assert.is(c.reason, 'ConvergeFailure');
  assert.match(
    c.message!,
    /^ResourceExport can't be converged to ResourceImport: ports \[81\/TCP http\] differ from the model's \[80\/TCP http\]/,
  );
  assert.match(
    statusOf(o.actions, 'west-demo-web-endpoints')!.message!,
    /Service export west-demo-web-service is refused/,
  );
  const create = o.actions[0] as Extract<Action, { op: 'createImport' }>;
  assert.not.match(JSON.stringify(create.spec), /10\.2\.0\.7/);
  assert.equal(o.refused.map((r) => r.export).sort(), ['west-demo-web-endpoints', 'west-demo-web-service']);
});

test('fails GIVEN a member not listed in exportedFrom WHEN it exports THEN Failure naming the listed members', () => {
  const o = service([svcExport('north'), epExport('north', '10.3.0.1')]);
  assert.equal(
    ops(o.actions).filter((x) => x.startsWith('createImport')),
    [],
  );
  assert.match(
    statusOf(o.actions, 'north-demo-web-service')!.message!,
    /cluster north is not listed in exportedFrom of Service demo\/web \(east, west\)/,
  );
});

test('fails GIVEN a Service the model does not export WHEN a member exports it THEN Failure and no import', () => {
  const o = reconcileService({
    config,
    namespace: 'demo',
    name: 'ghost',
    exports: [
      svcExport('east', PORTS, {}, 'demo', 'ghost'),
      epExport('east', '10.1.0.9', {}, 'demo', 'ghost'),
    ],
    existing: undefined,
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), [
    'exportStatus east-demo-ghost-endpoints',
    'exportStatus east-demo-ghost-service',
  ]);
  assert.match(
    statusOf(o.actions, 'east-demo-ghost-service')!.message!,
    /Service demo\/ghost is not exported in the ClusterSet model/,
  );
});

test('fails GIVEN malformed exports (wrong name, missing payload, bad IP, unknown member, no Service export) THEN each is refused with its reason', () => {
  const misnamed = exp('east-demo-web-svc', {
    clusterID: 'east',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
    service: { serviceSpec: { ports: PORTS } },
  });
  const noPayload = exp('west-demo-web-service', {
    clusterID: 'west',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
  });
  const badIp = epExport('east', 'not-an-ip');
  const stranger = svcExport('mars');
  const orphan = epExport('west', '10.2.0.1');
  const o = service([misnamed, noPayload, badIp, stranger, orphan]);
  const why = new Map(o.refused.map((r) => [r.export, r.why]));
  assert.match(why.get('east-demo-web-svc')!, /must be named east-demo-web-service, not east-demo-web-svc/);
  assert.match(why.get('west-demo-web-service')!, /spec.service.serviceSpec.ports is missing/);
  assert.match(why.get('east-demo-web-endpoints')!, /addresses\[0\]\.ip "not-an-ip" is not an IP address/);
  assert.match(why.get('mars-demo-web-service')!, /cluster mars is not a member of ClusterSet set/);
  assert.match(why.get('west-demo-web-endpoints')!, /Service export west-demo-web-service is refused/);
  assert.equal(
    o.actions.filter((a) => a.op.endsWith('Import')),
    [],
  );
});

test('GIVEN a huge export and a normal one over the import budget THEN the huge one is refused and the normal one still flows', () => {
  const huge = exp('east-demo-web-endpoints', {
    clusterID: 'east',
    name: 'web',
    namespace: 'demo',
    kind: 'Endpoints',
    endpoints: {
      subsets: [
        { addresses: Array.from({ length: 50 }, (_, i) => ({ ip: `10.1.0.${i}` })), ports: [{ port: 80 }] },
      ],
    },
  });
  const exports = [svcExport('east'), huge, svcExport('west'), epExport('west', '10.2.0.7')];
  const o = service(exports, undefined, 500);
  assert.match(
    o.refused.find((r) => r.export === 'east-demo-web-endpoints')!.why,
    /\(\d+ bytes\) would make ResourceImport demo-web-endpoints larger than 500 bytes/,
  );
  assert.equal(o.refused.length, 1);
  assert.match(JSON.stringify(o.actions[0]), /10\.2\.0\.7/);
  assert.not.match(JSON.stringify(o.actions[0]), /10\.1\.0\.1"/);
});

test('fails GIVEN an import of another kind under the Endpoints name THEN it is neither replaced nor deleted, and the exports say why', () => {
  const foreign = imp('demo-web-endpoints', { kind: 'ServiceImport', name: 'web', namespace: 'demo' });
  const o = service([svcExport('east'), epExport('east', '10.1.0.5')], foreign);
  assert.equal(
    o.actions.filter((a) => a.op.endsWith('Import')),
    [],
  );
  assert.match(o.refused[0]!.why, /already exists with kind ServiceImport/);
});

test("GIVEN exports as Antrea's member writes them (the whole Service spec) WHEN cached THEN only what the reconcile reads is kept, and it decides the same", () => {
  const full = exp('east-demo-web-service', {
    clusterID: 'east',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
    service: {
      serviceSpec: {
        ports: PORTS,
        selector: { app: 'web' },
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        ipFamilies: ['IPv4'],
      },
    },
    endpoints: { subsets: [] },
  });
  assert.equal(full.spec, {
    clusterID: 'east',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
    service: { serviceSpec: { ports: PORTS } },
  });
  const broken = exp('west-demo-web-service', {
    clusterID: 'west',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
    service: { serviceSpec: 'x' },
  });
  assert.equal(broken.spec, {
    clusterID: 'west',
    name: 'web',
    namespace: 'demo',
    kind: 'Service',
    service: { serviceSpec: 'x' },
  });
  assert.equal(
    service([full, epExport('east', '10.1.0.5')]),
    service([svcExport('east'), epExport('east', '10.1.0.5')]),
  );
});

test('GIVEN exports WHEN their keys are computed THEN spec and name decide, never labels', () => {
  assert.is(exportKey(epExport('east', '10.1.0.1')), 'svc/demo/web');
  assert.is(
    exportKey(exp('east-clusterinfo', { kind: 'ClusterInfo', clusterID: 'east' })),
    'ci/east-clusterinfo',
  );
  assert.is(exportKey(exp('east-0123456789abcdef', { kind: 'LabelIdentity' })), 'label/0123456789abcdef');
  assert.is(exportKey(exp('east-x', { kind: 'LabelIdentity' })), 'export/east-x');
  assert.is(exportKey(exp('weird', { kind: 'Raw' })), 'export/weird');
});

// The compiled ServiceImport import's status: which clusters' exports take part.

/** The compiled import `demo-web-service` as git holds it, with `clusterStatuses` when given. */
function compiledImport(clusterStatuses?: unknown, extra: { deleting?: boolean } = {}): CachedImport {
  return trimImport({
    metadata: {
      name: 'demo-web-service',
      uid: 'uid-demo-web-service',
      resourceVersion: String(rv++),
      creationTimestamp: NOW,
      ...(extra.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: {
      name: 'web',
      namespace: 'demo',
      kind: 'ServiceImport',
      serviceImport: { spec: { type: 'ClusterSetIP', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
    },
    ...(clusterStatuses !== undefined ? { status: { clusterStatuses } } : {}),
  });
}

function withCompiled(exports: CachedExport[], compiled: CachedImport | undefined, existing?: CachedImport) {
  return reconcileService({
    config,
    namespace: 'demo',
    name: 'web',
    exports,
    existing,
    compiled,
    sameSpec,
    now: NOW,
  });
}

function importStatusOf(actions: readonly Action[]) {
  const found = actions.filter((a) => a.op === 'importStatus');
  assert.ok(found.length <= 1, 'one status write at most');
  const a = found[0];
  return a && a.op === 'importStatus' ? a : undefined;
}

const succeeded = (id: string, at = NOW) => ({
  clusterID: id,
  conditions: [
    { type: 'Succeeded', status: 'True', message: 'update is successful', lastTransitionTime: at },
  ],
});

test('GIVEN exporters accepted WHEN reconciled THEN the compiled import gets one Succeeded True entry per exporting cluster, in cluster ID order, as Antrea writes it', () => {
  const o = withCompiled(
    [svcExport('west'), epExport('west', '10.2.0.7'), svcExport('east'), epExport('east', '10.1.0.5')],
    compiledImport(),
  );
  const a = importStatusOf(o.actions)!;
  assert.equal(a, {
    op: 'importStatus',
    name: 'demo-web-service',
    uid: 'uid-demo-web-service',
    clusterStatuses: [succeeded('east'), succeeded('west')],
  });
  assert.is(IMPORT_STATUS_SUCCEEDED, 'update is successful');
  // Written last, after the import and the export statuses (the controller defers status writes).
  assert.is(o.actions[o.actions.length - 1], a);
  // A cluster with its Service export alone (no endpoints yet) takes part too.
  assert.equal(importStatusOf(withCompiled([svcExport('east')], compiledImport()).actions)!.clusterStatuses, [
    succeeded('east'),
  ]);
});

test("fails GIVEN one exporter refused for its ports WHEN reconciled THEN its entry is Succeeded False, ConvergeFailure, with the Service export's reason; the other stays True", () => {
  const o = withCompiled(
    [
      svcExport('east'),
      epExport('east', '10.1.0.5'),
      svcExport('west', [{ name: 'http', port: 81, protocol: 'TCP' }]),
      epExport('west', '10.2.0.7'),
    ],
    compiledImport(),
  );
  assert.equal(importStatusOf(o.actions)!.clusterStatuses, [
    succeeded('east'),
    {
      clusterID: 'west',
      conditions: [
        {
          type: 'Succeeded',
          status: 'False',
          reason: 'ConvergeFailure',
          message:
            "ResourceExport west-demo-web-service can't be converged to ResourceImport: ports [81/TCP http] differ from the model's [80/TCP http] for demo/web",
          lastTransitionTime: NOW,
        },
      ],
    },
  ]);
  // A cluster the model does not list is named with its refusal too.
  const stranger = importStatusOf(withCompiled([svcExport('north')], compiledImport()).actions)!;
  assert.equal(
    stranger.clusterStatuses.map((s) => [s.clusterID, s.conditions[0]!.status]),
    [['north', 'False']],
  );
  assert.match(stranger.clusterStatuses[0]!.conditions[0]!.message!, /not listed in exportedFrom/);
});

test('GIVEN an exporter withdrawing (its Service export deleted first) or gone WHEN reconciled THEN it is left out of the status', () => {
  const ok = { type: 'Succeeded', status: 'True' };
  const gap = withCompiled(
    [
      svcExport('east', PORTS, { condition: ok }),
      epExport('east', '10.1.0.5', { condition: ok }),
      svcExport('west', PORTS, { deleting: true, condition: ok }),
      epExport('west', '10.2.0.7', { condition: ok }),
    ],
    compiledImport([succeeded('east'), succeeded('west')]),
  );
  assert.equal(importStatusOf(gap.actions)!.clusterStatuses, [succeeded('east')]);
  const both = withCompiled(
    [
      svcExport('east', PORTS, { condition: ok }),
      epExport('east', '10.1.0.5', { condition: ok }),
      svcExport('west', PORTS, { deleting: true, condition: ok }),
      epExport('west', '10.2.0.7', { deleting: true, condition: ok }),
    ],
    compiledImport([succeeded('east'), succeeded('west')]),
  );
  assert.equal(importStatusOf(both.actions)!.clusterStatuses, [succeeded('east')]);
});

test('GIVEN no exporter WHEN reconciled THEN the status is an empty list (written once, so that the import always has one); then nothing', () => {
  const first = withCompiled([], compiledImport());
  assert.equal(
    first.actions.map((a) => a.op),
    ['importStatus'],
  );
  assert.equal(importStatusOf(first.actions)!.clusterStatuses, []);
  assert.equal(withCompiled([], compiledImport([])).actions, []);
  // The last exporter gone: its entry goes.
  assert.equal(
    importStatusOf(withCompiled([], compiledImport([succeeded('east')])).actions)!.clusterStatuses,
    [],
  );
});

test('GIVEN the status already as it should be WHEN reconciled again THEN nothing is written; a changed entry keeps its lastTransitionTime while its status holds', () => {
  const ok = { type: 'Succeeded', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
  const exports = [
    svcExport('east', PORTS, { condition: ok }),
    epExport('east', '10.1.0.5', { condition: ok }),
    svcExport('west', PORTS, { condition: ok }),
    epExport('west', '10.2.0.7', { condition: ok }),
  ];
  const existing = imp('demo-web-endpoints', (service(exports).actions[0] as { spec: ImportSpec }).spec);
  const written = importStatusOf(withCompiled(exports, compiledImport(), existing).actions)!.clusterStatuses;
  // What the API server stores, read back by the cache: the same, so nothing more to write.
  assert.equal(withCompiled(exports, compiledImport(written), existing).actions, []);

  // Since January east is True, and stays so: its time is carried; west turns False: now.
  const old = [succeeded('east', '2026-01-01T00:00:00Z'), succeeded('west', '2026-01-01T00:00:00Z')];
  const refusedWest = [
    ...exports.slice(0, 2),
    svcExport('west', [{ name: 'http', port: 81, protocol: 'TCP' }], { condition: ok }),
    exports[3]!,
  ];
  const next = importStatusOf(
    withCompiled(refusedWest, compiledImport(old), existing).actions,
  )!.clusterStatuses;
  assert.equal(next[0], succeeded('east', '2026-01-01T00:00:00Z'));
  assert.is(next[1]!.conditions[0]!.status, 'False');
  assert.is(next[1]!.conditions[0]!.lastTransitionTime, NOW);
  // A False entry whose reason changes keeps its time too (the status holds).
  const still = importStatusOf(
    withCompiled(
      [
        ...exports.slice(0, 2),
        svcExport('west', [{ name: 'http', port: 82, protocol: 'TCP' }], { condition: ok }),
        exports[3]!,
      ],
      compiledImport([
        next[0],
        {
          ...next[1]!,
          conditions: [{ ...next[1]!.conditions[0]!, lastTransitionTime: '2026-02-02T00:00:00Z' }],
        },
      ]),
      existing,
    ).actions,
  )!.clusterStatuses;
  assert.is(still[1]!.conditions[0]!.lastTransitionTime, '2026-02-02T00:00:00Z');
  assert.match(still[1]!.conditions[0]!.message!, /\[82\/TCP http\]/);
});

test('GIVEN no compiled import, one being deleted, or an import of another kind under its name WHEN reconciled THEN no import status is written', () => {
  const exports = [svcExport('east'), epExport('east', '10.1.0.5')];
  assert.is(importStatusOf(withCompiled(exports, undefined).actions), undefined);
  assert.is(
    importStatusOf(withCompiled(exports, compiledImport(undefined, { deleting: true })).actions),
    undefined,
  );
  const foreign = imp('demo-web-service', { kind: 'Endpoints', name: 'web', namespace: 'demo' });
  assert.is(importStatusOf(withCompiled(exports, foreign).actions), undefined);
});

test("GIVEN a compiled ServiceImport import WHEN cached THEN its clusterStatuses are kept (malformed entries dropped) and its key is its Service's; other imports keep none", () => {
  const cached = compiledImport([
    succeeded('east'),
    { clusterID: 'west' },
    { conditions: [] },
    'junk',
    { clusterID: 'north', conditions: [{ type: 'Succeeded', status: 'False', extra: 1 }, { type: 7 }] },
  ]);
  assert.equal(cached.clusterStatuses, [
    succeeded('east'),
    { clusterID: 'west', conditions: [] },
    { clusterID: 'north', conditions: [{ type: 'Succeeded', status: 'False' }] },
  ]);
  assert.is(compiledImport().clusterStatuses, undefined, 'no status yet');
  assert.equal(compiledImport({}).clusterStatuses, [], 'a status with no list');
  const endpoints = trimImport({
    metadata: { name: 'demo-web-endpoints', uid: 'u', resourceVersion: '1' },
    spec: { kind: 'Endpoints', name: 'web', namespace: 'demo' },
    status: { clusterStatuses: [succeeded('east')] },
  });
  assert.is(endpoints.clusterStatuses, undefined);

  assert.is(importKey(compiledImport()), 'svc/demo/web');
  assert.is(importKey(endpoints), 'svc/demo/web');
  // A ServiceImport under another name is not the compiled one: no reconcile owns it.
  assert.is(
    importKey(imp('web-service', { kind: 'ServiceImport', name: 'web', namespace: 'demo' })),
    undefined,
  );
  assert.is(
    importKey(imp('guard-rails-antreaclusternetworkpolicy', { kind: 'AntreaClusterNetworkPolicy' })),
    undefined,
  );
});

test('fails GIVEN an export of a kind members never write THEN Failure, and its finalizer is released on deletion', () => {
  const o = reconcileStray(exp('p-acnp', { kind: 'AntreaClusterNetworkPolicy' }), NOW);
  assert.match(
    (o.actions[0] as { condition: { message: string } }).condition.message,
    /compiled from baselinePolicies/,
  );
  const d = reconcileStray(exp('x', { kind: 'Raw' }, { deleting: true }), NOW);
  assert.equal(ops(d.actions), ['releaseExport x']);
});

// ClusterInfo

function ciExport(id: string, infoId: string, extra = {}) {
  return exp(
    `${id}-clusterinfo`,
    {
      kind: 'ClusterInfo',
      clusterID: id,
      name: id,
      namespace: 'kube-system',
      clusterInfo: {
        clusterID: infoId,
        serviceCIDR: '10.96.0.0/16',
        gatewayInfos: [{ gatewayIP: '192.0.2.1' }],
      },
    },
    extra,
  );
}

test('GIVEN a ClusterInfo export WHEN reconciled THEN an import of the same name carries it, in the leader namespace', () => {
  const o = reconcileClusterInfo({
    config,
    name: 'east-clusterinfo',
    export: ciExport('east', 'east'),
    existing: undefined,
    sameSpec,
    now: NOW,
  });
  const c = o.actions[0] as Extract<Action, { op: 'createImport' }>;
  assert.is(c.name, 'east-clusterinfo');
  assert.equal(c.spec, {
    kind: 'ClusterInfo',
    name: 'east-clusterinfo',
    namespace: 'lns',
    clusterinfo: {
      clusterID: 'east',
      serviceCIDR: '10.96.0.0/16',
      gatewayInfos: [{ gatewayIP: '192.0.2.1' }],
    },
  });
});

test('fails GIVEN a ClusterInfo export naming another cluster (spoof) THEN refused, and an import it had is deleted', () => {
  const existing = imp('east-clusterinfo', {
    kind: 'ClusterInfo',
    name: 'east-clusterinfo',
    namespace: 'lns',
    clusterinfo: { clusterID: 'east' },
  });
  const o = reconcileClusterInfo({
    config,
    name: 'east-clusterinfo',
    export: ciExport('east', 'west'),
    existing,
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), ['deleteImport east-clusterinfo', 'exportStatus east-clusterinfo']);
  assert.match(o.refused[0]!.why, /clusterInfo.clusterID is "west", but the export is from cluster east/);
});

test('GIVEN a ClusterInfo export being deleted THEN the import goes, then the finalizer', () => {
  const existing = imp('east-clusterinfo', { kind: 'ClusterInfo' });
  const o = reconcileClusterInfo({
    config,
    name: 'east-clusterinfo',
    export: ciExport('east', 'east', { deleting: true }),
    existing,
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), ['deleteImport east-clusterinfo', 'releaseExport east-clusterinfo']);
});

// Label identities

const LABEL = 'ns:kubernetes.io/metadata.name=demo&pod:app=web';
const HASH = labelIdentityHash(LABEL);
function labelExport(id: string, label = LABEL, hash = HASH, extra = {}) {
  return exp(
    `${id}-${hash}`,
    { clusterID: id, kind: 'LabelIdentity', labelIdentity: { normalizedLabel: label } },
    { finalizers: [], ...extra },
  );
}
function ids(owner: Record<number, string> = {}, next = 7): LabelIds & { given: number[] } {
  const given: number[] = [];
  return {
    given,
    ownerOf: (id) => owner[id],
    allocate: () => {
      given.push(next);
      return next++;
    },
  };
}

test('GIVEN a label new to the ClusterSet THEN an import named by its hash gets a fresh ID', () => {
  const a = ids();
  const o = reconcileLabel({
    config,
    hash: HASH,
    exports: [labelExport('east'), labelExport('west')],
    existing: undefined,
    ids: a,
    sameSpec,
    now: NOW,
  });
  assert.equal(o.actions, [
    {
      op: 'createImport',
      name: HASH,
      spec: { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 7 } },
    },
  ]);
  assert.equal(a.given, [7], 'one ID for the label, however many clusters have it');
});

test('GIVEN the import exists and owns its ID THEN the ID is kept and nothing is written', () => {
  const existing = imp(HASH, { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 42 } });
  const a = ids({ 42: HASH });
  const o = reconcileLabel({
    config,
    hash: HASH,
    exports: [labelExport('east')],
    existing,
    ids: a,
    sameSpec,
    now: NOW,
  });
  assert.equal(o.actions, []);
  assert.equal(a.given, []);
});

test('GIVEN two imports claim one ID and this one is younger THEN it gets a new ID', () => {
  const existing = imp(HASH, { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 42 } });
  const o = reconcileLabel({
    config,
    hash: HASH,
    exports: [labelExport('east')],
    existing,
    ids: ids({ 42: 'ffffffffffffffff' }),
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), [`replaceImport ${HASH}`]);
  assert.is((o.actions[0] as { spec: { labelIdentity: { id: number } } }).spec.labelIdentity.id, 7);
});

test('GIVEN the last export of a label is gone THEN its import is deleted; a refused export never keeps it', () => {
  const existing = imp(HASH, { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 42 } });
  const forged = labelExport('east', 'ns:x&pod:', HASH);
  const o = reconcileLabel({
    config,
    hash: HASH,
    exports: [forged],
    existing,
    ids: ids({ 42: HASH }),
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), [`deleteImport ${HASH}`, `exportStatus east-${HASH}`]);
  assert.match(o.refused[0]!.why, /the normalized label hashes to [0-9a-f]{16}, not/);
});

test('GIVEN accepted label exports WHEN reconciled THEN no status is written (Antrea writes none), but a refusal once cleared is', () => {
  const existing = imp(HASH, { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 42 } });
  const failed = { type: 'Failure', status: 'False', reason: 'ConvergeFailure', message: 'x' };
  const o = reconcileLabel({
    config,
    hash: HASH,
    exports: [labelExport('east'), labelExport('west', LABEL, HASH, { condition: failed })],
    existing,
    ids: ids({ 42: HASH }),
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), [`exportStatus west-${HASH}`]);
  assert.is((o.actions[0] as { condition: { type: string } }).condition.type, 'Succeeded');
});

// A label antrea-controller would panic on (antrea-io/antrea#8385): two '&pod:', named by its own hash.
const BAD_LABEL = 'ns:kubernetes.io/metadata.name=demo&pod:app=web&pod:x';
const BAD_HASH = labelIdentityHash(BAD_LABEL);

test('fails GIVEN a malformed label export beside a good one from another member THEN it gets no ID, no import and a Failure status; the good label is imported as ever', () => {
  const a = ids();
  const label = (hash: string, exports: CachedExport[], existing?: CachedImport) =>
    reconcileLabel({ config, hash, exports, existing, ids: a, sameSpec, now: NOW });
  const bad = label(BAD_HASH, [labelExport('west', BAD_LABEL, BAD_HASH)]);
  const good = label(HASH, [labelExport('east')]);
  assert.equal(ops(bad.actions), [`exportStatus west-${BAD_HASH}`], 'no import for the malformed label');
  const cond = statusOf(bad.actions, `west-${BAD_HASH}`)!;
  assert.equal(
    { type: cond.type, status: cond.status, reason: cond.reason },
    { type: 'Failure', status: 'False', reason: 'ConvergeFailure' },
  );
  assert.match(
    cond.message!,
    /^ResourceExport can't be converged to ResourceImport: spec.labelIdentity.normalizedLabel is not a label as Antrea's member writes it: it has "&pod:" more than once$/,
  );
  assert.equal(bad.refused, [{ export: `west-${BAD_HASH}`, why: cond.message!.replace(/^[^:]*: /, '') }]);
  assert.equal(good.actions, [
    {
      op: 'createImport',
      name: HASH,
      spec: { kind: 'LabelIdentity', labelIdentity: { label: LABEL, id: 7 } },
    },
  ]);
  assert.equal(good.refused, []);
  assert.equal(a.given, [7], 'an ID for the good label only');
});

test('fails GIVEN an import already made for a malformed label (by an earlier leader) THEN it is deleted, not kept from the export', () => {
  const existing = imp(BAD_HASH, { kind: 'LabelIdentity', labelIdentity: { label: BAD_LABEL, id: 42 } });
  const a = ids({ 42: BAD_HASH });
  const o = reconcileLabel({
    config,
    hash: BAD_HASH,
    exports: [labelExport('west', BAD_LABEL, BAD_HASH)],
    existing,
    ids: a,
    sameSpec,
    now: NOW,
  });
  assert.equal(ops(o.actions), [`deleteImport ${BAD_HASH}`, `exportStatus west-${BAD_HASH}`]);
  assert.equal(a.given, []);
});

test('GIVEN a refused malformed label export already carrying its Failure THEN nothing is written again', () => {
  const first = reconcileLabel({
    config,
    hash: BAD_HASH,
    exports: [labelExport('west', BAD_LABEL, BAD_HASH)],
    existing: undefined,
    ids: ids(),
    sameSpec,
    now: NOW,
  });
  const condition = statusOf(first.actions, `west-${BAD_HASH}`);
  const o = reconcileLabel({
    config,
    hash: BAD_HASH,
    exports: [labelExport('west', BAD_LABEL, BAD_HASH, { condition })],
    existing: undefined,
    ids: ids(),
    sameSpec,
    now: NOW,
  });
  assert.equal(o.actions, []);
  assert.is(o.refused.length, 1, 'still refused (the edge logs only on a status write)');
});

// Members

function announce(
  id: string,
  touch: string | undefined,
  extra: { deleting?: boolean; finalizers?: string[]; managed?: { manager: string; time: string }[] } = {},
) {
  return trimAnnounce(
    {
      metadata: {
        name: `member-announce-from-${id}`,
        uid: `uid-a-${id}`,
        resourceVersion: String(rv++),
        creationTimestamp: '2026-12-02T08:00:00Z',
        ...(extra.deleting ? { deletionTimestamp: NOW } : {}),
        finalizers: extra.finalizers ?? [],
        ...(touch ? { annotations: { 'touch-ts': touch } } : {}),
        managedFields: extra.managed ?? [],
      },
      clusterID: id,
      clusterSetID: 'set',
      leaderClusterID: 'hub',
    },
    'clusterset-reconciler',
  );
}

test('GIVEN a fresh announce THEN the leader finalizer is added and a check is scheduled for its retirement time', () => {
  const o = reconcileMember({
    clusterId: 'east',
    announce: announce('east', '2026-12-02T09:59:50Z'),
    exports: [],
    retireAfterMs: 3600_000,
    nowMs: NOW_MS,
  });
  assert.equal(o.actions, [
    {
      op: 'announceFinalizers',
      name: 'member-announce-from-east',
      resourceVersion: String(rv - 1),
      finalizers: [announceFinalizer('east')],
    },
  ]);
  assert.is(o.requeueAfterMs, 3600_000 - 10_000 + 1000);
});

test('GIVEN an announce silent for longer than the retirement time THEN it is deleted', () => {
  const o = reconcileMember({
    clusterId: 'east',
    announce: announce('east', '2026-12-02T08:59:59Z'),
    exports: [],
    retireAfterMs: 3600_000,
    nowMs: NOW_MS,
  });
  assert.equal(ops(o.actions), ['deleteAnnounce member-announce-from-east']);
});

test('GIVEN a fresh announce of a cluster the model no longer lists as a member THEN it is retired at once (its identity went with it)', () => {
  const fresh = (isMember: boolean) =>
    reconcileMember({
      clusterId: 'east',
      isMember,
      announce: announce('east', '2026-12-02T09:59:55Z', { finalizers: [announceFinalizer('east')] }),
      exports: [],
      retireAfterMs: 3600_000,
      nowMs: NOW_MS,
    });
  assert.equal(ops(fresh(false).actions), ['deleteAnnounce member-announce-from-east']);
  assert.equal(fresh(true).actions, [], 'a member still listed keeps its announce');
});

test('GIVEN an announce without a parseable touch-ts THEN it is timed from its creation (Antrea would delete it at once)', () => {
  const o = reconcileMember({
    clusterId: 'east',
    announce: announce('east', 'yesterday'),
    exports: [],
    retireAfterMs: 3 * 3600_000,
    nowMs: NOW_MS,
  });
  assert.is(o.requeueAfterMs, 3600_000 + 1000);
});

test('GIVEN a retired member (announce deleting) THEN every live export of it is deleted, and the announce is kept while any export is left', () => {
  const a = announce('east', '2026-12-02T08:00:00Z', {
    deleting: true,
    finalizers: [announceFinalizer('east'), 'x/y'],
  });
  const exports = [svcExport('east'), epExport('east', '10.1.0.5', { deleting: true }), labelExport('east')];
  const member = (left: typeof exports) =>
    reconcileMember({
      clusterId: 'east',
      announce: a,
      exports: left,
      retireAfterMs: 3600_000,
      nowMs: NOW_MS,
    });
  assert.equal(ops(member(exports).actions), [
    `deleteExport east-${HASH}`,
    'deleteExport east-demo-web-service',
  ]);
  // Only the deleting one left: nothing to delete, and the announce still waits for it.
  assert.equal(member([exports[1]!]).actions, []);
  const o = member([]);
  assert.equal(ops(o.actions), ['announceFinalizers member-announce-from-east']);
  assert.equal((o.actions[0] as unknown as { finalizers: string[] }).finalizers, ['x/y']);
});

// ClusterSet status

test("GIVEN members written to within 30 s and one silent THEN ready 1 of 2, Antrea's messages, and a recheck when the ready one would lapse", () => {
  const cs = trimClusterSet({ metadata: { name: 'set', uid: 'u', resourceVersion: '1', generation: 3 } });
  const fresh = announce('east', undefined, {
    managed: [{ manager: 'member', time: '2026-12-02T09:59:55Z' }],
  });
  const stale = announce('west', undefined, {
    managed: [
      { manager: 'member', time: '2026-12-02T09:58:00Z' },
      { manager: 'clusterset-reconciler', time: NOW },
    ],
  });
  const o = reconcileClusterSet({ clusterSet: cs, announces: [stale, fresh], nowMs: NOW_MS });
  const status = (o.actions[0] as Extract<Action, { op: 'clusterSetStatus' }>).status;
  assert.equal(status, {
    observedGeneration: 3,
    totalClusters: 2,
    readyClusters: 1,
    clusterStatuses: [
      {
        clusterID: 'east',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Connected',
            message: 'Member Connected',
            lastTransitionTime: NOW,
          },
        ],
      },
      {
        clusterID: 'west',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'Disconnected',
            message: 'No MemberClusterAnnounce update after Wed Dec  2 09:58:00 UTC 2026',
            lastTransitionTime: NOW,
          },
        ],
      },
    ],
    conditions: [{ type: 'Ready', status: 'False', reason: 'NoReadyCluster', lastTransitionTime: NOW }],
  });
  assert.is(o.requeueAfterMs, 25_000 + 1000);
  // Written back, the same state needs no write; lastTransitionTime is kept.
  const again = reconcileClusterSet({
    clusterSet: { ...cs, status },
    announces: [fresh, stale],
    nowMs: NOW_MS + 2000,
  });
  assert.equal(again.actions, []);
});

test("GIVEN Go's UnixDate layout THEN the day of month is space-padded", () => {
  assert.is(unixDate(Date.parse('2006-01-02T15:04:05Z')), 'Mon Jan  2 15:04:05 UTC 2006');
  assert.is(unixDate(Date.parse('2026-12-12T01:02:03Z')), 'Sat Dec 12 01:02:03 UTC 2026');
});

test.run();
