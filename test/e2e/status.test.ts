// End-to-end: `clusterset status` (issue 20) on real control planes: the leader `hub` with the reconciler
// running, members `east` and `west` with control planes of their own, each bundle applied as Argo CD applies
// it. The member side is written exactly as Antrea's member writes it: exports and announces into the leader
// (parties/antrea-member/in-leader.ts), imports, Events and its own statuses into the member
// (parties/antrea-member/import-sync.ts). The status CLI reads every cluster with the read-only
// `clusterset-status` identity (lib/status/rbac.ts) and nothing else, so a healthy report also proves that
// role is enough.
//
// One set, in order: healthy (exit 0); a member applied with kubectl alone, which the model (no
// `delivery`) allows (exit 0, "applied by kubectl"); a drifted object, seen by `--watch` without
// polling and by a one-shot run (exit 1), then healed by the next sync; a policy whose Tier is
// missing; an export refused for a port mismatch; a member down (reported, the others still read).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli';
import { statusRbac, STATUS_IDENTITY } from '../../lib/status/rbac';
import type { StatusReport } from '../../lib/status/report/types';
import { collectionPath, resource } from '../../lib/status/resources';
import { policiesModel } from '../helpers/models';
import { applyBundle, applyObject, FIELD_MANAGER, loadBundle } from '../parties/argocd-apply';
import { request, stopAll, type Cluster } from '../kube/cluster';
import { eventually } from '../kube/wait';
import {
  syncImports,
  writeClusterSetStatus,
  writeServiceExportValid,
  type ImportSync,
} from '../parties/antrea-member/import-sync';
import {
  contextsKubeconfig,
  createRbac,
  setUpClusterSet,
  simulatedMember,
  tokenFor,
  type ClusterSetFixture,
} from './fixture';
import type { SimulatedMember } from '../parties/antrea-member/in-leader';
import { startReconciler, type ReconcilerProcess } from './reconciler-process';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'clusterset');
const MEMBERS = ['east', 'west'];

let f: ClusterSetFixture;
let rec: ReconcilerProcess;
let kubeconfig: string;
let modelFile: string;
const members = new Map<string, SimulatedMember>();
const syncs = new Map<string, ImportSync>();

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cli(['status', modelFile, '--out', f.dir, '--kubeconfig', kubeconfig, ...args]);
}

async function status(...extra: string[]): Promise<{ code: number; report: StatusReport; stderr: string }> {
  const r = await run([
    '--format',
    'json',
    ...(extra.includes('--timeout') ? [] : ['--timeout', '5']),
    ...extra,
  ]);
  let report: StatusReport;
  try {
    report = JSON.parse(r.stdout) as StatusReport;
  } catch {
    throw new Error(`status printed no JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, report, stderr: r.stderr };
}

/** Status, again and again, until `pred` holds for its report (the set converges meanwhile). */
async function statusUntil(what: string, pred: (r: StatusReport) => boolean, before?: () => Promise<void>) {
  let last: StatusReport | undefined;
  try {
    return await eventually(
      what,
      async () => {
        await before?.();
        const s = await status();
        last = s.report;
        return pred(s.report) ? s : undefined;
      },
      90_000,
      1000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last problems:\n${last?.problems.join('\n')}`);
  }
}

/** One pass of every member's own writes (imports, statuses), as its controller does on events. */
async function membersSync(): Promise<void> {
  for (const id of MEMBERS) {
    const s = syncs.get(id)!;
    await syncImports(f.plan, s);
    await writeClusterSetStatus(f.plan, s);
    await writeServiceExportValid(s, 'shop', 'cart');
  }
}

const has = (r: StatusReport, re: RegExp) =>
  assert.ok(
    r.problems.some((p) => re.test(p)),
    `${re} in:\n${r.problems.join('\n')}`,
  );

test.before(async () => {
  try {
    await setUp();
  } catch (e) {
    // uvu reports nothing of a failing hook: say why, and fail every test.
    console.error('status e2e set-up failed:', e);
    throw e;
  }
});

async function setUp(): Promise<void> {
  const m = policiesModel();
  m.clusterSetId = 'status-set';
  f = await setUpClusterSet(m, 'status', { memberClusters: MEMBERS });
  modelFile = path.join(f.dir, 'model.json');
  fs.writeFileSync(modelFile, JSON.stringify(m));
  rec = startReconciler(f, 'status');
  // The read-only status identity in every cluster, and a kubeconfig with a context per cluster ID.
  const tokens = new Map<string, string>();
  for (const [id, c] of f.clusters) {
    await createRbac(c, statusRbac('default'));
    tokens.set(id, await tokenFor(c, 'default', STATUS_IDENTITY));
  }
  kubeconfig = path.join(f.dir, 'status.kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    contextsKubeconfig(
      f.clusters,
      (id) => ({ name: `status-${id}`, user: { token: tokens.get(id)! } }),
      f.plan.leader.id,
    ),
  );
  // The exported Service in each exporter, exported and announced as Antrea's member does.
  for (const id of MEMBERS) {
    const c = f.clusters.get(id)!;
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'cart', namespace: 'shop' },
      spec: {
        selector: { app: 'cart' },
        ports: [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }],
      },
    };
    const r = await request(c.admin, 'POST', '/api/v1/namespaces/shop/services', svc);
    assert.is(r.status, 201, `${id}: create Service shop/cart: ${r.body}`);
    const sm = simulatedMember(f, id);
    members.set(id, sm);
    await sm.announce();
    sm.startAnnouncing();
    await sm.exportService('shop', 'cart');
    syncs.set(id, {
      member: id,
      cluster: c,
      leaderAuth: { server: f.leader.server, ca: f.leader.caPem, token: f.tokens.get(id)! },
    });
  }
  await eventually('the reconciler writes the endpoints import', async () => {
    const r = await request(
      f.leader.admin,
      'GET',
      `${collectionPath(resource('ResourceImport'), f.ns)}/shop-cart-endpoints`,
    );
    return r.status === 200 ? true : undefined;
  });
}

test('GIVEN a healthy set WHEN status runs THEN everything matches the model and it exits 0', async () => {
  const s = await statusUntil('a healthy report', (r) => r.ok, membersSync);
  assert.is(s.code, 0);
  const r = s.report;
  assert.equal(
    r.clusters.map((c) => [c.id, c.reachable]),
    [
      ['hub', true],
      ['east', true],
      ['west', true],
    ],
  );
  for (const c of r.clusters) {
    assert.equal(c.unreadable, [], `${c.id}: every collection readable with the read-only role`);
    assert.ok(c.delivered.ok > 0 && c.delivered.ok + c.delivered.unread === c.delivered.total, c.id);
  }
  assert.ok(r.clusters[0]!.reconciler?.healthy, 'the reconciler holds its Lease');
  const cart = r.services.find((x) => x.name === 'cart')!;
  assert.equal(
    cart.exporters.map((e) => e.export.condition?.type),
    ['Succeeded', 'Succeeded'],
  );
  for (const i of cart.importers) assert.equal(i.from, ['east', 'west'], i.cluster);
  const text = await run(['--timeout', '5']);
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, /^ClusterSet status-set \(leader hub\) at \S+: matches the model\n/);
});

/**
 * Every object of `dir` applied again by `manager` with nothing but its identity: server-side apply
 * then takes every field away from that manager; a field another manager holds too stays, now that
 * manager's alone.
 */
async function release(cluster: Cluster, dir: string, manager: string): Promise<void> {
  for (const b of loadBundle(dir)) {
    const { apiVersion, kind, metadata } = b.obj;
    const bare = {
      ...b,
      obj: {
        apiVersion,
        kind,
        metadata: { name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}) },
      },
    };
    const r = await applyObject(cluster, bare, { fieldManager: manager });
    assert.ok('result' in r, `${manager} releases ${b.file}: ${JSON.stringify(r)}`);
  }
}

test('GIVEN a model without delivery and a member applied with kubectl apply --server-side alone WHEN status runs THEN it matches (exit 0) and says kubectl applied it', async () => {
  const east = f.clusters.get('east')!;
  const dir = path.join(f.dir, 'clusters', 'east');
  const applied = await applyBundle(east, dir, { fieldManager: 'kubectl' });
  assert.equal(applied.rejected, []);
  await release(east, dir, FIELD_MANAGER);
  const s = await statusUntil('a healthy report', (r) => r.ok, membersSync);
  assert.is(s.code, 0);
  assert.is(s.report.deliveryManagers, undefined, 'the model names no delivery tool');
  const d = s.report.clusters.find((c) => c.id === 'east')!.delivered;
  const compared = d.total - d.unread;
  assert.is(d.matching, compared);
  assert.is(d.ok, compared);
  assert.equal(d.appliedBy, [{ manager: 'kubectl', objects: compared }]);
  const text = await run(['--timeout', '5']);
  assert.is(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    new RegExp(
      `\neast \\(member\\)\n  bundle        ${compared} of ${compared} objects match; applied by kubectl \\(${compared}\\)\n`,
    ),
  );
  // Back to Argo CD alone, as the tests below expect.
  await applyBundle(east, dir);
  await release(east, dir, 'kubectl');
  const back = await statusUntil('Argo CD applied east again', (r) => r.ok, membersSync);
  assert.equal(back.report.clusters.find((c) => c.id === 'east')!.delivered.appliedBy, [
    { manager: FIELD_MANAGER, objects: compared },
  ]);
});

test('GIVEN a member object edited by hand WHEN status watches THEN it redraws with the drift, naming who changed it; a one-shot run exits 1', async () => {
  const tierPath = `${collectionPath(resource('Tier'))}/mc-baseline`;
  const east = f.clusters.get('east')!;
  const child = spawn(
    process.execPath,
    [
      BIN,
      'status',
      modelFile,
      '--out',
      f.dir,
      '--kubeconfig',
      kubeconfig,
      '--watch',
      '--format',
      'json',
      '--timeout',
      '5',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const reports: StatusReport[] = [];
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      reports.push(JSON.parse(buf.slice(0, nl)) as StatusReport);
      buf = buf.slice(nl + 1);
    }
  });
  const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
  try {
    await eventually(
      'the watch draws a healthy set',
      async () => (reports.some((r) => r.ok) ? true : undefined),
      60_000,
    );
    // The first picture is of the healthy set (drawn once every cluster has been listed; on this
    // machine the lists come within the first 250 ms anyway, so this does not prove that gate).
    assert.ok(reports[0]!.ok, `first report: ${reports[0]!.problems.join('; ')}`);
    const patch = await request(
      east.admin,
      'PATCH',
      `${tierPath}?fieldManager=kubectl-edit`,
      { spec: { priority: 150 } },
      'application/merge-patch+json',
    );
    assert.is(patch.status, 200, patch.body);
    const drift =
      /^east: Tier mc-baseline drifted: spec\.priority is 150, the bundle has 101 \(changed by kubectl-edit\)$/;
    const seen = await eventually(
      'the watch redraws with the drift',
      async () => reports.find((r) => r.problems.some((p) => drift.test(p))),
      30_000,
    );
    assert.not.ok(seen.ok);
    const once = await status();
    assert.is(once.code, 1);
    has(once.report, drift);
  } finally {
    child.kill('SIGINT');
  }
  assert.is(await exited, 1, 'the watch exits with the status of the last report it drew');
  // Argo CD's next sync (self-heal) takes the field back; the status matches again.
  await applyBundle(east, path.join(f.dir, 'clusters', 'east'));
  const healed = await statusUntil('healed', (r) => r.ok, membersSync);
  assert.is(healed.code, 0);
});

test("GIVEN a member's Tier deleted WHEN Antrea's member drops the imported policy and posts its Event THEN status names the Tier and the Event", async () => {
  const west = f.clusters.get('west')!;
  const del = await request(west.admin, 'DELETE', `${collectionPath(resource('Tier'))}/mc-baseline`);
  assert.is(del.status, 200, del.body);
  const policy = f.plan.baselinePolicies[0]!.name;
  const s = await statusUntil(
    'the missing Tier reported',
    (r) => r.problems.some((p) => p.startsWith(`policy ${policy}: west: Antrea could not import it`)),
    membersSync,
  );
  assert.is(s.code, 1);
  has(s.report, /^west: Tier mc-baseline is missing$/);
  has(s.report, new RegExp(`^policy ${policy}: west has no Tier mc-baseline$`));
  has(
    s.report,
    new RegExp(`^policy ${policy}: west does not hold ClusterNetworkPolicy antrea-mc-${policy}$`),
  );
  has(
    s.report,
    new RegExp(
      `^policy ${policy}: west: Antrea could not import it: ACNP Tier mc-baseline does not exist in importing cluster west$`,
    ),
  );
  // east still holds it.
  const p = s.report.policies.find((x) => x.name === policy)!;
  assert.equal(
    p.members.find((m) => m.cluster === 'east'),
    { cluster: 'east', present: true, tier: 'mc-baseline', tierPresent: true, events: [] },
  );
  await applyBundle(west, path.join(f.dir, 'clusters', 'west'));
  await statusUntil('healed', (r) => r.ok, membersSync);
});

test("GIVEN west's Service changed to other ports WHEN it exports them THEN status reports the export refused for the port mismatch", async () => {
  const west = f.clusters.get('west')!;
  const patch = await request(
    west.admin,
    'PATCH',
    '/api/v1/namespaces/shop/services/cart',
    { spec: { ports: [{ name: 'http', port: 9090, protocol: 'TCP', targetPort: 8080 }] } },
    'application/merge-patch+json',
  );
  assert.is(patch.status, 200, patch.body);
  await members.get('west')!.exportService('shop', 'cart');
  const s = await statusUntil(
    'the refusal reported',
    (r) => r.problems.some((p) => /^shop\/cart: west's export is refused: ConvergeFailure: /.test(p)),
    membersSync,
  );
  assert.is(s.code, 1);
  const cart = s.report.services.find((x) => x.name === 'cart')!;
  const w = cart.exporters.find((e) => e.cluster === 'west')!;
  assert.is(w.export.condition?.type, 'Failure');
  assert.is(w.serviceExport?.status, 'True', "Antrea's member still calls its ServiceExport Valid");
  assert.ok(cart.reachable, 'east still serves it');
});

test('GIVEN west down WHEN status runs THEN west is reported unreachable and the others are still read', async () => {
  members.get('west')!.stopAnnouncing();
  await f.clusters.get('west')!.stop();
  const s = await status('--timeout', '3');
  assert.is(s.code, 1);
  const west = s.report.clusters.find((c) => c.id === 'west')!;
  assert.not.ok(west.reachable);
  assert.ok(west.error && west.error.length > 0);
  for (const id of ['hub', 'east']) assert.ok(s.report.clusters.find((c) => c.id === id)!.reachable, id);
  has(s.report, /^west: cannot be reached: /);
});

test.after(async () => {
  for (const m of members.values()) m.stopAnnouncing();
  await rec?.stop();
  await stopAll();
});

test.run();
