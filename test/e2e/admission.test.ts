// End-to-end: what the leader's member-writes admission policy and the member Role refuse, on a real
// kube-apiserver with the members' real ServiceAccount tokens (issue 10, part 1). Every write Antrea's
// ResourceExport webhook denies (antrea-mc.md §g, §h) is denied here too, with the webhook's words, and the
// write Antrea's member really makes (parties/antrea-member/in-leader.ts: §c.1, §d, §f) is still admitted
// beside it.
//
// The matrix rows are [what, request, expected status, expected message]; each forged write is the
// member's legitimate one with one thing changed.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LEGACY_RESOURCE_EXPORT_FINALIZER,
  MEMBER_ROLE,
  RESOURCE_EXPORT_FINALIZER,
  serviceImportName,
} from '../../lib/names';
import { cluster, minimalModel, type ModelDraft } from '../helpers/models';
import type { Response } from '../kube/cluster';
import { request, stopAll } from '../kube/cluster';
import { canI } from '../kube/objects';
import { eventually } from '../kube/wait';
import { setUpClusterSet, type ClusterSetFixture } from './fixture';
import { SimulatedMember, type ClusterInfo } from '../parties/antrea-member/in-leader';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

function model(): ModelDraft {
  const m = minimalModel();
  m.clusterSetId = 'guards';
  // West's identity is named as the user guide's kubectl route names it (not member-west): the
  // policies must recognise a member by the names the model gives, or its writes go unchecked.
  m.clusters = [
    cluster('hub', 0),
    cluster('east', 1),
    {
      ...cluster('west', 2),
      memberIdentity: { serviceAccount: 'antrea-west', tokenSecret: 'antrea-west-token' },
    },
  ];
  return m;
}

interface Ctx {
  f: ClusterSetFixture;
  east: SimulatedMember;
  west: SimulatedMember;
}

let ctx: Promise<Ctx> | undefined;

function context(): Promise<Ctx> {
  ctx ??= (async () => {
    // Only the leader runs: admission and RBAC are the leader's.
    const f = await setUpClusterSet(model(), 'guards');
    const member = (id: string) =>
      new SimulatedMember(id, f.leader, f.tokens.get(id)!, f.ns, f.plan.clusterSetId, f.plan.leader.id);
    const east = member('east');
    // The API server enforces a policy only once its admission plugin has seen the policy and its
    // binding, a moment after the apply (on a loaded machine, seconds): until then forged writes are
    // admitted. A dry-run forgery (admission runs, nothing is stored) waits for the member-writes
    // policy to be in force before any assertion.
    const spoof = forged(east.clusterInfoExport(INFO('east')), 'spec.clusterInfo.clusterID', 'west');
    await eventually(
      'the member-writes policy in force',
      async () => {
        const r = await east.req('POST', `${MC}/${f.ns}/resourceexports?dryRun=All`, spoof);
        return r.status === 403 ? true : undefined;
      },
      60_000,
      250,
    );
    return { f, east, west: member('west') };
  })();
  return ctx;
}

type Obj = { metadata: { name: string; [k: string]: unknown }; [k: string]: unknown };

/** A deep copy of `obj` with the field at `path` (dotted) set to `value`, or removed when undefined. */
function forged<T extends Obj>(obj: T, path: string, value?: unknown): T {
  const copy = structuredClone(obj);
  const keys = path.split('.');
  const last = keys.pop()!;
  let at = copy as Record<string, unknown>;
  for (const k of keys) at = at[k] as Record<string, unknown>;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

function describe(r: Response): string {
  return `HTTP ${r.status}: ${r.body.slice(0, 500)}`;
}

/** Asserts the status and, for a denial, that the API server returned `message` verbatim. */
function expect(what: string, r: Response, status: number, message?: string): void {
  assert.is(r.status, status, `${what}: ${describe(r)}`);
  if (message) {
    const got = (r.json as { message?: string } | undefined)?.message ?? '';
    assert.ok(got.includes(message), `${what}: expected "${message}" in "${got}"`);
  }
}

const exportsPath = (c: Ctx, name?: string) => `${MC}/${c.f.ns}/resourceexports${name ? `/${name}` : ''}`;

const INFO = (id: string): ClusterInfo => ({
  clusterID: id,
  serviceCIDR: '10.96.0.0/16',
  podCIDRs: ['10.244.0.0/16'],
  gatewayInfos: [{ gatewayIP: '192.0.2.10' }],
});

const PORTS = [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }];
const LABEL = 'ns:kubernetes.io/metadata.name=demo&pod:app=web';

// Antrea's words (multicluster/cmd/multicluster-controller/resourceexport_webhook.go), and ours where
// Antrea has none.
const SPOOF_CLUSTERINFO = 'Member cluster is not authorized to spoof ClusterInfo.ClusterID';
const SPOOF_SOURCE_LABELS = 'Member cluster is not authorized to spoof source labels in ResourceExport';
const SPOOF_SOURCE_KIND = 'Member cluster is not authorized to spoof SourceKind label in ResourceExport';
const REMOVE_FINALIZER = 'Member cluster is not authorized to remove the ResourceExport finalizer';
const NO_FINALIZER =
  'Member cluster is not authorized to create a ResourceExport without the ResourceExport finalizer';
const NO_SERVICE = 'Member cluster is not authorized to create a Service ResourceExport without Spec.Service';
const NO_ENDPOINTS =
  'Member cluster is not authorized to create an Endpoints ResourceExport without Spec.Endpoints';
const NO_CLUSTERINFO = 'without Spec.ClusterInfo'; // ours: Antrea admits it
const NO_LABELIDENTITY = 'Invalid ResourceExport for this member cluster'; // Antrea's, made specific
const NOT_OWNER =
  'Member cluster is not authorized to modify or delete ResourceExports owned by another member';
const IMPORT_STATUS = 'Member cluster is not authorized to write ResourceImport status'; // ours

const guards = suite('leader admission: what Antrea refuses a member');

guards(
  'GIVEN a member token WHEN it creates each kind of export THEN what Antrea writes is admitted and each forgery refused',
  async () => {
    const c = await context();
    const m = c.east;
    const svc = m.serviceExport('demo', 'web', PORTS);
    const eps = m.endpointsExport('demo', 'web', SimulatedMember.clusterIpSubsets('10.101.0.10', PORTS));
    const info = m.clusterInfoExport(INFO('east'));
    const label = m.labelExport(LABEL);
    // Antrea's webhook and leader also honour the older finalizer.
    const legacy = forged(m.serviceExport('demo', 'legacy', PORTS), 'metadata.finalizers', [
      LEGACY_RESOURCE_EXPORT_FINALIZER,
    ]);
    const rows: [string, Obj, number, string?][] = [
      // 1. ClusterInfo about another cluster (routing spoof).
      ['ClusterInfo naming west', forged(info, 'spec.clusterInfo.clusterID', 'west'), 403, SPOOF_CLUSTERINFO],
      ['ClusterInfo naming no cluster', forged(info, 'spec.clusterInfo.clusterID'), 403, SPOOF_CLUSTERINFO],
      // 2. Source labels that do not match the spec.
      [
        'Service relabelled sourceName',
        forged(svc, 'metadata.labels.sourceName', 'api'),
        403,
        SPOOF_SOURCE_LABELS,
      ],
      [
        'Endpoints relabelled sourceNamespace',
        forged(eps, 'metadata.labels.sourceNamespace', 'shop'),
        403,
        SPOOF_SOURCE_LABELS,
      ],
      ['Endpoints without sourceName', forged(eps, 'metadata.labels.sourceName'), 403, SPOOF_SOURCE_LABELS],
      [
        'Endpoints labelled sourceKind Service',
        forged(eps, 'metadata.labels.sourceKind', 'Service'),
        403,
        SPOOF_SOURCE_KIND,
      ],
      ['ClusterInfo without sourceKind', forged(info, 'metadata.labels.sourceKind'), 403, SPOOF_SOURCE_KIND],
      [
        'LabelIdentity labelled sourceKind Endpoints',
        forged(label, 'metadata.labels.sourceKind', 'Endpoints'),
        403,
        SPOOF_SOURCE_KIND,
      ],
      // 3. No finalizer on create (LabelIdentity exports have none).
      ['Service without finalizer', forged(svc, 'metadata.finalizers'), 403, NO_FINALIZER],
      [
        'ClusterInfo with a foreign finalizer only',
        forged(info, 'metadata.finalizers', ['example.com/x']),
        403,
        NO_FINALIZER,
      ],
      // 4. No payload for the kind.
      ['Service without spec.service', forged(svc, 'spec.service'), 403, NO_SERVICE],
      ['Endpoints without spec.endpoints', forged(eps, 'spec.endpoints'), 403, NO_ENDPOINTS],
      ['ClusterInfo without spec.clusterInfo', forged(info, 'spec.clusterInfo'), 403, NO_CLUSTERINFO],
      [
        'LabelIdentity without spec.labelIdentity',
        forged(label, 'spec.labelIdentity'),
        403,
        NO_LABELIDENTITY,
      ],
      // What Antrea's member writes, each admitted.
      ['Service export as Antrea writes it', svc, 201],
      ['Endpoints export as Antrea writes it', eps, 201],
      ['ClusterInfo export as Antrea writes it', info, 201],
      ['LabelIdentity export as Antrea writes it (no finalizer)', label, 201],
      ['Service export with the legacy finalizer', legacy, 201],
    ];
    for (const [what, obj, status, message] of rows)
      expect(what, await m.req('POST', exportsPath(c), obj), status, message);
    // Nothing forged was stored under any name.
    const stored = await request(c.f.leader.admin, 'GET', exportsPath(c));
    assert.equal(
      (stored.json as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort(),
      [
        info.metadata.name,
        label.metadata.name,
        legacy.metadata.name,
        eps.metadata.name,
        svc.metadata.name,
      ].sort(),
    );
  },
);

guards(
  'GIVEN its own exports WHEN the member updates them THEN its real updates are admitted and forged ones refused',
  async () => {
    const c = await context();
    const m = c.east;
    const svc = m.serviceExport('demo', 'web', PORTS);
    const info = m.clusterInfoExport(INFO('east'));
    // The member's own update: the whole object again, reusing resourceVersion and finalizers.
    await m.upsertExport(m.serviceExport('demo', 'web', [{ ...PORTS[0]!, port: 8080 }]));
    await m.upsertExport(
      m.clusterInfoExport({ ...INFO('east'), gatewayInfos: [{ gatewayIP: '192.0.2.11' }] }),
    );
    const merge = (name: string, body: unknown) =>
      m.req('PATCH', exportsPath(c, name), body, 'application/merge-patch+json');
    const json = (name: string, ops: unknown[]) =>
      m.req('PATCH', exportsPath(c, name), ops, 'application/json-patch+json');
    const rows: [string, () => Promise<Response>, number, string?][] = [
      [
        'drop the finalizer',
        () => merge(svc.metadata.name, { metadata: { finalizers: null } }),
        403,
        REMOVE_FINALIZER,
      ],
      [
        'swap the finalizer for a foreign one',
        () => merge(info.metadata.name, { metadata: { finalizers: ['example.com/x'] } }),
        403,
        REMOVE_FINALIZER,
      ],
      [
        'PUT without the finalizer',
        async () => {
          const cur = await m.req('GET', exportsPath(c, svc.metadata.name));
          const o = cur.json as Obj & { metadata: { finalizers?: string[] } };
          delete o.metadata.finalizers;
          return m.req('PUT', exportsPath(c, svc.metadata.name), o);
        },
        403,
        REMOVE_FINALIZER,
      ],
      [
        'relabel sourceName',
        () => merge(svc.metadata.name, { metadata: { labels: { sourceName: 'api' } } }),
        403,
        SPOOF_SOURCE_LABELS,
      ],
      [
        'relabel sourceKind',
        () => merge(info.metadata.name, { metadata: { labels: { sourceKind: 'Service' } } }),
        403,
        SPOOF_SOURCE_KIND,
      ],
      [
        'point ClusterInfo at west',
        () => merge(info.metadata.name, { spec: { clusterInfo: { clusterID: 'west' } } }),
        403,
        SPOOF_CLUSTERINFO,
      ],
      [
        'remove spec.service',
        () => json(svc.metadata.name, [{ op: 'remove', path: '/spec/service' }]),
        403,
        NO_SERVICE,
      ],
      [
        'remove spec.clusterInfo',
        () => json(info.metadata.name, [{ op: 'remove', path: '/spec/clusterInfo' }]),
        403,
        NO_CLUSTERINFO,
      ],
      // Harmless changes of its own stay allowed; so does keeping the finalizer beside another.
      ['annotate', () => merge(svc.metadata.name, { metadata: { annotations: { note: 'x' } } }), 200],
      [
        'add a finalizer beside the export finalizer',
        () =>
          merge(info.metadata.name, {
            metadata: { finalizers: [RESOURCE_EXPORT_FINALIZER, 'example.com/x'] },
          }),
        200,
      ],
      [
        'then drop only that one',
        () => merge(info.metadata.name, { metadata: { finalizers: [RESOURCE_EXPORT_FINALIZER] } }),
        200,
      ],
    ];
    for (const [what, send, status, message] of rows) expect(what, await send(), status, message);
    const stored = (await request(c.f.leader.admin, 'GET', exportsPath(c, svc.metadata.name))).json as {
      metadata: { finalizers: string[]; labels: Record<string, string> };
      spec: { service?: { serviceSpec: { ports: { port: number }[] } } };
    };
    assert.equal(stored.metadata.finalizers, [RESOURCE_EXPORT_FINALIZER]);
    assert.is(stored.metadata.labels.sourceName, 'web');
    assert.is(stored.spec.service?.serviceSpec.ports[0]?.port, 8080, "the member's own update landed");
    // Deleting its export is the member's to do; the finalizer keeps it for the leader side.
    const d = await m.req('DELETE', exportsPath(c, svc.metadata.name));
    assert.ok(d.status === 200 || d.status === 202, describe(d));
    const after = (await request(c.f.leader.admin, 'GET', exportsPath(c, svc.metadata.name))).json as {
      metadata: { deletionTimestamp?: string; finalizers: string[] };
    };
    assert.ok(after.metadata.deletionTimestamp, 'being deleted');
    assert.equal(after.metadata.finalizers, [RESOURCE_EXPORT_FINALIZER]);
    expect(
      'drop the finalizer of its export being deleted',
      await merge(svc.metadata.name, { metadata: { finalizers: null } }),
      403,
      REMOVE_FINALIZER,
    );
  },
);

const access = (c: Ctx, token: string, verb: string, resource: string, subresource = '') =>
  canI(
    { server: c.f.leader.server, ca: c.f.leader.caPem, token },
    { namespace: c.f.ns, verb, group: 'multicluster.crd.antrea.io', resource, subresource },
  );

guards(
  'GIVEN the member Role WHEN a member writes export or import status THEN RBAC refuses: Antrea’s member never writes either',
  async () => {
    const c = await context();
    const token = c.f.tokens.get('east')!;
    const wrong: string[] = [];
    for (const [verb, resource, sub, want] of [
      ['get', 'resourceexports', 'status', true],
      ['patch', 'resourceexports', 'status', false],
      ['update', 'resourceexports', 'status', false],
      ['get', 'resourceimports', 'status', true],
      ['patch', 'resourceimports', 'status', false],
      ['update', 'resourceimports', 'status', false],
      // What the member does use stays.
      ['create', 'resourceexports', '', true],
      ['update', 'resourceexports', '', true],
      ['delete', 'resourceexports', '', true],
      ['watch', 'resourceimports', '', true],
      ['update', 'memberclusterannounces', '', true],
    ] as const) {
      const allowed = await access(c, token, verb, resource, sub);
      if (allowed !== want) wrong.push(`${verb} ${resource}${sub ? `/${sub}` : ''}: allowed=${allowed}`);
    }
    assert.equal(wrong, []);
    const ci = c.east.clusterInfoExport(INFO('east')).metadata.name;
    const r = await c.east.req(
      'PATCH',
      `${exportsPath(c, ci)}/status`,
      { status: { conditions: [{ type: 'Succeeded', status: 'True' }] } },
      'application/merge-patch+json',
    );
    expect('status of its own export', r, 403, 'cannot patch resource "resourceexports/status"');
  },
);

guards(
  "GIVEN Antrea's own Role's status verbs bound to a member WHEN it writes another member's export status or any import status THEN admission refuses, and its own export status is admitted",
  async () => {
    const c = await context();
    const admin = c.f.leader.admin;
    const ns = c.f.ns;
    // What a leader installed from Antrea's manifest would grant (member_cluster_role.yaml).
    const stock = `${MEMBER_ROLE}-stock-status`;
    for (const [path, obj] of [
      [
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`,
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: stock, namespace: ns },
          rules: [
            {
              apiGroups: ['multicluster.crd.antrea.io'],
              resources: ['resourceexports/status', 'resourceimports/status'],
              verbs: ['get', 'patch', 'update'],
            },
          ],
        },
      ],
      [
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: stock, namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: stock },
          subjects: [{ kind: 'ServiceAccount', name: 'antrea-west', namespace: ns }],
        },
      ],
    ] as const) {
      const r = await request(admin, 'POST', path, obj);
      assert.is(r.status, 201, describe(r));
    }
    const w = c.west;
    const token = c.f.tokens.get('west')!;
    // RBAC is checked per request; the binding is effective as soon as the informer sees it.
    await eventually('the stock Role binding takes effect', async () =>
      (await access(c, token, 'patch', 'resourceexports', 'status')) ? true : undefined,
    );
    await w.upsertExport(w.clusterInfoExport(INFO('west')));
    // A dynamic import, as the reconciler would write it, and the compiled ServiceImport.
    const dynamic = {
      apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
      kind: 'ResourceImport',
      metadata: { name: 'east-clusterinfo', namespace: ns },
      spec: { kind: 'ClusterInfo', name: 'east-clusterinfo', namespace: ns, clusterinfo: INFO('east') },
    };
    const created = await request(admin, 'POST', `${MC}/${ns}/resourceimports`, dynamic);
    assert.is(created.status, 201, describe(created));
    const svc = c.f.plan.services[0]!;
    const status = { status: { conditions: [{ type: 'Succeeded', status: 'True', message: 'forged' }] } };
    const patch = (path: string) => w.req('PATCH', `${path}/status`, status, 'application/merge-patch+json');
    const rows: [string, string, number, string?][] = [
      [
        "east's ClusterInfo export",
        exportsPath(c, c.east.clusterInfoExport(INFO('east')).metadata.name),
        403,
        NOT_OWNER,
      ],
      [
        "east's LabelIdentity export",
        exportsPath(c, c.east.labelExport(LABEL).metadata.name),
        403,
        NOT_OWNER,
      ],
      [
        'the compiled ServiceImport',
        `${MC}/${ns}/resourceimports/${serviceImportName(svc.namespace, svc.name)}`,
        403,
        IMPORT_STATUS,
      ],
      [
        'a dynamic ClusterInfo import',
        `${MC}/${ns}/resourceimports/${dynamic.metadata.name}`,
        403,
        IMPORT_STATUS,
      ],
      ['its own ClusterInfo export', exportsPath(c, w.clusterInfoExport(INFO('west')).metadata.name), 200],
    ];
    for (const [what, path, code, message] of rows) expect(what, await patch(path), code, message);
    // East's export status is untouched by the attempt.
    const east = (
      await request(admin, 'GET', exportsPath(c, c.east.clusterInfoExport(INFO('east')).metadata.name))
    ).json as { status?: unknown };
    assert.is(east.status, undefined);
  },
);

guards('cleanup', async () => {
  await stopAll();
});

guards.run();
