// The played world of the cut-over tests (issue 33, docs/import.md "Cut-over runbook"): a set Antrea
// leads, set up as antrea-set.ts says, with everything that runs over it throughout, and the runbook's
// steps as functions. cutover.test.ts runs the runbook with each bundle applied as Argo CD applies it
// (and the negative controls); cutover-gitops.test.ts runs it through the real Argo CD.
//
// Running throughout, once world() returns:
// - Antrea's LEADER controller, PLAYED (parties/antrea-leader/player.ts): it merges exports into imports,
//   allocates label IDs, writes statuses and finalizers as its ServiceAccount, and serves its webhooks (their
//   clientConfig is its Pod's URL instead of the Service: the one difference from the real install, said
//   there). It runs as the process of its Deployment's Pod under the leader node's real kubelet
//   (parties/antrea-leader/pod.ts), so it stops as a Pod stops: SIGTERM when the Pod is marked for deletion,
//   then on writing until it exits (`exitAfterSigtermMs`);
// - Antrea's MEMBER controller in each member, PLAYED (parties/antrea-member/player.ts: announces, exports,
//   imports, its restart's stale cleanup), its webhooks served from this process too;
// - label churn in each member (parties/antrea-member/label-churn.ts): Pods' label sets change, identities
//   come and go;
// - watchers (cutover-watch.ts) on every leader import and every member-side imported object, which
//   record each deletion, UID change, ClusterIP change, label ID change and empty endpoint set.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { IMPORT_IDENTITY, importRbac } from '../../lib/import/read';
import { loadModelFile } from '../../lib/load';
import { RECONCILER_CONFIG_KEY, RECONCILER_CONFIG_NAME, RECONCILER_NAME } from '../../lib/names';
import { dumpYaml, loadYaml } from '../../lib/yaml';
import { applyBundle, loadBundle } from '../parties/argocd-apply';
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { AntreaWebhookServer } from '../parties/antrea-leader/player';
import { addressesOf, PlayedAntreaLeader } from '../parties/antrea-leader/pod';
import { AntreaMemberPlayer } from '../parties/antrea-member/player';
import { LEADER_WEBHOOKS } from '../parties/antrea-manifests';
import { setUpAntreaSet, simulatedMember, type AntreaSet } from './antrea-set';
import { isChurnLabel, LabelChurn } from '../parties/antrea-member/label-churn';
import { describeAnomalies, ImportWatchers } from './cutover-watch';
import { webhookServingCert } from './certs';
import { cli } from '../helpers/cli';
import { imageArchive } from './gitops';
import { apiOf } from '../kube/http';
import { contextsKubeconfig, createRbac, kubeconfigFor, tokenFor, type ClusterSetFixture } from './fixture';
import type { ReconcilerProcess } from './reconciler-process';

export type Obj = Record<string, unknown>;

/** Everything running over one played set. */
export interface World {
  set: AntreaSet;
  dir: string;
  members: Map<string, Cluster>;
  leaderPlayer: PlayedAntreaLeader;
  memberWebhooks: AntreaWebhookServer;
  memberPlayers: Map<string, AntreaMemberPlayer>;
  churn: LabelChurn;
  watchers: ImportWatchers;
  t0: number;
  reconciler?: ReconcilerProcess;
  /** Where the compiled bundles are (after import). */
  out?: string;
  /** The kubeconfig of the read-only import identity, one context per cluster ID (after import). */
  importKubeconfig?: string;
  log: string[];
}

export interface WorldOptions {
  /** How long Antrea's leader goes on after SIGTERM. @default 1000 */
  readonly exitAfterSigtermMs?: number;
}

/**
 * A played set (prefix `prefix`) with everything above running and settled. Every cluster has a node
 * (test/kube): Antrea's leader runs on the leader's; the members' hold the reconciler image
 * (`clusterset image build`), whose restart Jobs run there under real kubelets, as do bundles
 * delivered by the real Argo CD or Flux.
 */
export async function world(prefix: string, o: WorldOptions = {}): Promise<World> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-${prefix}-`));
  const image = imageArchive();
  const set = await setUpAntreaSet({ prefix, identities: 'antctl', dir, leaderRuns: true, nodes: true });
  // The members' nodes run the restart Jobs. Not the leader's: there the reconciler runs as the test
  // starts it (a process here, or the bundle's Deployment once GitOpsWorld.attach() loads the image).
  for (const id of set.memberIds)
    for (const n of set.clusters.get(id)!.nodes) await n.importImage(await image);
  const members = new Map(set.memberIds.map((id) => [id, set.clusters.get(id)!]));
  const watchers = ImportWatchers.forSet(set.leader, set.leaderNs, members, set.memberNs, isChurnLabel);
  await watchers.start();
  const t0 = Date.now();
  // Antrea's member controllers serve their webhooks (vclusterset, vgateway) all along.
  const memberWebhooks = new AntreaWebhookServer({
    clusters: new Map([...members].map(([id, c]) => [id, apiOf(c.admin)])),
    leaderNs: set.leaderNs,
    clusterSetId: set.clusterSetId,
    tls: webhookServingCert(path.join(dir, 'member-webhooks'), ['127.0.0.1']),
  });
  await memberWebhooks.start();
  const leaderPlayer = await PlayedAntreaLeader.start(
    set.leader,
    set.leaderNs,
    webhookServingCert(path.join(dir, 'leader-webhooks'), addressesOf(set.leader.nodes[0]!.podCIDR)),
    o.exitAfterSigtermMs !== undefined ? { exitAfterSigtermMs: o.exitAfterSigtermMs } : {},
  );
  const memberPlayers = new Map<string, AntreaMemberPlayer>();
  for (const [id, c] of members) {
    const p = new AntreaMemberPlayer(id, c, set.memberNs);
    p.start(1000);
    memberPlayers.set(id, p);
  }
  const sims = new Map(set.memberIds.map((id) => [id, simulatedMember(set, id)]));
  const churn = new LabelChurn(sims);
  churn.start(1500);
  const w: World = {
    set,
    dir,
    members,
    leaderPlayer,
    memberWebhooks,
    memberPlayers,
    churn,
    watchers,
    t0,
    log: [],
  };
  // Everyone settled: the member players connected, the churn's first labels imported by Antrea's leader.
  for (const [id, p] of memberPlayers)
    await eventually(`member player ${id} connected`, async () => (p.isConnected ? true : undefined), 60_000);
  await leaderImportsChurn(w);
  return w;
}

export async function stopWorld(w: World): Promise<void> {
  await w.churn.stop();
  for (const p of w.memberPlayers.values()) await p.stop();
  await w.leaderPlayer.stop();
  await w.memberWebhooks.stop();
  if (w.reconciler) await w.reconciler.stop();
  await w.watchers.stop();
}

export async function list(c: Cluster, p: string): Promise<Obj[]> {
  const r = await request(c.admin, 'GET', p);
  if (r.status !== 200) throw new Error(`GET ${p}: HTTP ${r.status}`);
  return (r.json as { items: Obj[] }).items;
}

export const md = (o: Obj) => o.metadata as { name: string; namespace?: string };

/** Waits until every live churned label has its import in the leader (someone leads and writes). */
export async function leaderImportsChurn(w: World, timeoutMs = 60_000): Promise<void> {
  await eventually(
    'the leader imports the churned labels',
    async () => {
      const ris = await list(
        w.set.leader,
        `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${w.set.leaderNs}/resourceimports`,
      );
      const labels = new Set(
        ris.map((r) => (r.spec as { labelIdentity?: { label?: string } }).labelIdentity?.label),
      );
      const live = [...w.churn.live.values()].flat();
      return live.length > 0 && live.every((l) => labels.has(l)) ? true : undefined;
    },
    timeoutMs,
    300,
  );
}

/** `ip:port/protocol` of every address and port of `subsets`, sorted. */
export function addresses(subsets: unknown): string {
  const out: string[] = [];
  for (const s of (subsets ?? []) as {
    addresses?: { ip: string }[];
    ports?: { port: number; protocol?: string }[];
  }[])
    for (const a of s.addresses ?? [])
      for (const p of s.ports ?? []) out.push(`${a.ip}:${p.port}/${p.protocol ?? 'TCP'}`);
  return JSON.stringify(out.sort());
}

/** The members hold what the leader's imports say: Services, ServiceImports, Endpoints, labels. */
export async function converged(w: World): Promise<void> {
  let lastDiff = '';
  await eventually(
    'members converged on the leader imports',
    async () => {
      const ris = await list(
        w.set.leader,
        `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${w.set.leaderNs}/resourceimports`,
      );
      const want = new Map(
        ris
          .filter((r) => (r.spec as { kind: string }).kind === 'LabelIdentity')
          .map((r) => [md(r).name, (r.spec as { labelIdentity: { id: number } }).labelIdentity.id]),
      );
      for (const [id, c] of w.members) {
        // Every label identity import, with its ID, and nothing else (§d step 3).
        const lis = await list(c, '/apis/multicluster.crd.antrea.io/v1alpha1/labelidentities');
        const held = new Map(lis.map((l) => [md(l).name, (l.spec as { id: number }).id]));
        const diff = [...new Set([...want.keys(), ...held.keys()])].filter(
          (n) => want.get(n) !== held.get(n),
        );
        if (diff.length > 0) {
          lastDiff = `${id} LabelIdentities: ${diff.map((n) => `${n} leader ${want.get(n)} member ${held.get(n)}`).join(', ')}`;
          return undefined;
        }
        const eps = await list(c, '/api/v1/namespaces/shop/endpoints');
        for (const r of ris.filter((x) => (x.spec as { kind: string }).kind === 'Endpoints')) {
          const s = r.spec as { name: string; endpoints: { subsets: unknown[] } };
          const e = eps.find((x) => md(x).name === `antrea-mc-${s.name}`);
          // The API server repacks Endpoints subsets (one subset per port set): compare addresses.
          if (!e || addresses(e.subsets) !== addresses(s.endpoints.subsets)) {
            lastDiff = `${id} Endpoints antrea-mc-${s.name} ${addresses(e?.subsets)} != ${addresses(s.endpoints.subsets)}`;
            return undefined;
          }
        }
      }
      return true;
    },
    60_000,
    500,
  ).catch((e: Error) => {
    throw new Error(`${e.message}: ${lastDiff}`);
  });
}

/** (a) `clusterset import` with its read-only identity, as the runbook prints it; the model file. */
export async function runImport(w: World): Promise<string> {
  const tokens = new Map<string, string>();
  for (const [id, c] of w.set.clusters) {
    await createRbac(c, importRbac('default'));
    tokens.set(id, await tokenFor(c, 'default', IMPORT_IDENTITY));
  }
  const kubeconfig = path.join(w.dir, 'import.kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    contextsKubeconfig(
      w.set.clusters,
      (id) => ({ name: `import-${id}`, user: { token: tokens.get(id)! } }),
      w.set.leaderId,
    ),
  );
  w.importKubeconfig = kubeconfig;
  const out = path.join(w.dir, 'clusterset.yaml');
  const r = await importCli(w, [
    '--format',
    'yaml',
    '--out',
    out,
    '--report',
    path.join(w.dir, 'report.txt'),
  ]);
  w.log.push(
    `import: exit ${r.code}\n${fs.existsSync(path.join(w.dir, 'report.txt')) ? fs.readFileSync(path.join(w.dir, 'report.txt'), 'utf8') : r.stderr}`,
  );
  assert.ok(fs.existsSync(out), `import wrote no model (exit ${r.code}): ${r.stderr}`);
  return out;
}

/** `clusterset import` with the import identity's contexts, the leader and every member, and `args`. */
export function importCli(w: World, args: string[]): ReturnType<typeof cli> {
  return cli([
    'import',
    '--kubeconfig',
    w.importKubeconfig!,
    '--leader-context',
    w.set.leaderId,
    ...w.set.memberIds.flatMap((id) => ['--member', `${id}=${id}`]),
    ...args,
  ]);
}

/**
 * The runbook's check after a phase: `import --verify --snapshot before.json` exits 0 (every
 * recorded import and member-side imported object still has its UID, ClusterIP, label ID and
 * addresses; labels the churn withdrew are listed, not failures).
 */
export async function verifyPhase(w: World, phase: string): Promise<void> {
  const r = await importCli(w, ['--verify', '--snapshot', path.join(w.dir, 'before.json')]);
  w.log.push(`verify after ${phase}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.is(r.code, 0, `import --verify after ${phase}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

/**
 * The runbook's first check: `import --check --model <modelFile> --snapshot before.json` exits 0,
 * recording what must survive.
 */
export async function checkModel(w: World, modelFile: string): Promise<void> {
  const r = await importCli(w, [
    '--check',
    '--model',
    modelFile,
    '--snapshot',
    path.join(w.dir, 'before.json'),
  ]);
  w.log.push(`import --check: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.is(r.code, 0, `import --check: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

/** The watchers recorded nothing (no deletion, new UID, ClusterIP or label ID, no empty address set). */
export function assertWatchersQuiet(w: World): void {
  assert.equal(
    w.watchers.anomalies,
    [],
    `the watchers recorded:\n${describeAnomalies(w.watchers.anomalies, w.t0)}`,
  );
}

/** Compiles the imported model, `reconciler.waitForAntreaLeader` set to `standby`, into out/. */
export async function compileModel(w: World, modelFile: string, standby: boolean): Promise<string> {
  const model = (await loadModelFile(modelFile)) as Obj;
  // The imported model sets the standby; the naive controls turn it off, as a cut-over without it.
  const input: Obj = {
    ...model,
    reconciler: { ...((model.reconciler as Obj | undefined) ?? {}), waitForAntreaLeader: standby },
  };
  const r = compile(input);
  const errors = r.diagnostics.filter((d) => d.severity !== 'warning');
  assert.ok(
    r.plan && errors.length === 0,
    `the imported model does not compile:\n${errors.map((d) => `${d.path}: ${d.message}`).join('\n')}`,
  );
  const out = path.join(w.dir, standby ? 'out' : 'out-no-standby');
  for (const [file, text] of r.files) {
    fs.mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    fs.writeFileSync(path.join(out, file), text);
  }
  fs.writeFileSync(path.join(w.dir, 'model-compiled.yaml'), dumpYaml(input));
  w.out = out;
  return out;
}

/**
 * (b) One member under GitOps: its bundle applied as Argo CD does; its restart Job runs under the
 * member node's kubelet and restarts Antrea's (played) member controller, which the test waits for.
 * The Job then waits for that controller to connect and re-exports; restartJobsDone() checks it.
 */
export async function memberUnderGitOps(w: World, id: string): Promise<void> {
  const c = w.members.get(id)!;
  const bundle = path.join(w.out!, 'clusters', id);
  const p = w.memberPlayers.get(id)!;
  const epochs = p.events.epochs;
  const res = await applyBundle(c, bundle);
  assert.equal(
    res.rejected.map((x) => `${x.kind} ${x.name}: ${x.message}`),
    [],
    `member ${id} bundle`,
  );
  const job = loadBundle(bundle).find((b) => b.obj.kind === 'Job');
  if (job)
    await eventually(
      `member ${id} restarted by its restart Job`,
      async () => (p.events.epochs > epochs ? true : undefined),
      120_000,
    );
  w.log.push(
    `member ${id}: bundle applied (${res.applied.length} objects); restart Job ${job ? 'run' : 'absent'}; stale cleanup deleted [${p.events.staleDeleted.join(', ')}]`,
  );
}

/**
 * Every member's restart Job completed, having recorded `done` on its member's ClusterSet (it waits
 * for the restarted controller to report its leader connected, which the member writes every 30 s).
 */
export async function restartJobsDone(w: World): Promise<void> {
  for (const [id, c] of w.members) {
    const bundle = loadBundle(path.join(w.out!, 'clusters', id));
    const job = bundle.find((b) => b.obj.kind === 'Job');
    if (!job) continue;
    const name = (job.obj.metadata as { name: string }).name;
    const ns = (job.obj.metadata as { namespace: string }).namespace;
    await eventually(
      `${id}: restart Job ${name} complete`,
      async () => {
        const r = await request(c.admin, 'GET', `/apis/batch/v1/namespaces/${ns}/jobs/${name}`);
        return ((r.json as { status?: { succeeded?: number } } | undefined)?.status?.succeeded ?? 0) > 0
          ? true
          : undefined;
      },
      120_000,
      1000,
    );
    const cs = await request(
      c.admin,
      'GET',
      `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${w.set.memberNs}/clustersets/${w.set.clusterSetId}`,
    );
    const annotations =
      ((cs.json as Obj).metadata as { annotations?: Record<string, string> }).annotations ?? {};
    assert.is(annotations['clusterset/restart'], `${name} done`, `${id}: the restart Job's record`);
  }
}

/** A ClusterSetFixture as startReconciler needs it, over the compiled leader bundle. */
export async function reconcilerFixture(w: World): Promise<ClusterSetFixture> {
  const ns = w.set.leaderNs;
  const cm = loadYaml(
    fs.readFileSync(
      path.join(w.out!, 'clusters', w.set.leaderId, ns, `ConfigMap.${RECONCILER_CONFIG_NAME}.yaml`),
      'utf8',
    ),
  ) as { data: Record<string, string> };
  const configPath = path.join(w.dir, 'config.json');
  fs.writeFileSync(configPath, cm.data[RECONCILER_CONFIG_KEY]!);
  const token = await tokenFor(w.set.leader, ns, RECONCILER_NAME);
  const reconcilerKubeconfig = path.join(w.dir, 'reconciler.kubeconfig');
  fs.writeFileSync(reconcilerKubeconfig, kubeconfigFor(w.set.leader, 'reconciler', token));
  return {
    ns,
    configPath,
    reconcilerKubeconfig,
    dir: w.dir,
    leader: w.set.leader,
  } as unknown as ClusterSetFixture;
}

export async function leaseHolder(w: World): Promise<string | undefined> {
  const r = await request(
    w.set.leader.admin,
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${w.set.leaderNs}/leases/${RECONCILER_NAME}`,
  );
  if (r.status !== 200) return undefined;
  const l = r.json as {
    spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
  };
  const renew = Date.parse(l.spec?.renewTime ?? '');
  if (!l.spec?.holderIdentity || !(Date.now() - renew < (l.spec.leaseDurationSeconds ?? 15) * 1000))
    return undefined;
  return l.spec.holderIdentity;
}

/** When the current holder took the reconciler's Lease (its `acquireTime`, the API server's clock), epoch ms. */
export async function leaseAcquiredAt(w: World): Promise<number | undefined> {
  const r = await request(
    w.set.leader.admin,
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${w.set.leaderNs}/leases/${RECONCILER_NAME}`,
  );
  const t = (r.json as { spec?: { acquireTime?: string } } | undefined)?.spec?.acquireTime;
  // A MicroTime: microseconds, which Date.parse may not take.
  return t ? Date.parse(t.replace(/(\.\d{3})\d*Z$/, '$1Z')) : undefined;
}

/**
 * The reconciler took the Lease only once the process of Antrea's leader had exited, and that process
 * wrote nothing after: the cut-over never had two leader writers. Returns a line for the log.
 */
export async function assertNoOverlap(w: World): Promise<string> {
  const proc = w.leaderPlayer.current!;
  const acquired = await leaseAcquiredAt(w);
  assert.ok(acquired !== undefined, 'the reconciler holds its Lease');
  assert.ok(proc.exitedAt !== undefined, "Antrea's leader process exited");
  const late = proc.writes.filter((x) => x.t >= acquired!);
  assert.ok(
    acquired! >= proc.exitedAt!,
    `the reconciler took the Lease ${((proc.exitedAt! - acquired!) / 1000).toFixed(2)} s before Antrea's leader process exited`,
  );
  assert.equal(late, [], "Antrea's leader wrote after the reconciler took the Lease");
  const after = proc.writes.filter((x) => proc.sigtermAt !== undefined && x.t >= proc.sigtermAt);
  return (
    `Antrea's leader got SIGTERM, wrote ${after.length} times more, exited ${((proc.exitedAt! - (proc.sigtermAt ?? proc.exitedAt!)) / 1000).toFixed(2)} s later; ` +
    `the reconciler took the Lease ${((acquired! - proc.exitedAt!) / 1000).toFixed(2)} s after it exited`
  );
}

/** (d) Antrea's leader webhook configurations deleted (unless `keepWebhooks`), its Deployment scaled to zero. */
export async function stopAntreaLeader(w: World, keepWebhooks = false): Promise<void> {
  const a = w.set.leader.admin;
  if (!keepWebhooks)
    for (const [kind, name] of [
      ['mutatingwebhookconfigurations', LEADER_WEBHOOKS.mutating],
      ['validatingwebhookconfigurations', LEADER_WEBHOOKS.validating],
    ] as const) {
      const r = await request(a, 'DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}/${name}`);
      assert.ok(r.status === 200 || r.status === 404, `delete ${name}: HTTP ${r.status}`);
    }
  // `kubectl scale deployment antrea-mc-controller --replicas=0`; this leader's kube-controller-manager
  // runs the Deployment and ReplicaSet controllers, so status.replicas follows by itself.
  const r = await request(
    a,
    'PATCH',
    `/apis/apps/v1/namespaces/${w.set.leaderNs}/deployments/antrea-mc-controller/scale`,
    { spec: { replicas: 0 } },
    'application/merge-patch+json',
  );
  assert.is(r.status, 200, `scale: ${r.body}`);
  assert.ok(await w.leaderPlayer.waitStopped(15_000), "Antrea's leader did not stop within its grace period");
}

/**
 * The `kubectl` commands the import report's runbook prints for step `n` (the report the runbook's
 * import wrote), run as printed with an operator's kubeconfig whose contexts are named as the
 * import's were (the cluster IDs), with each cluster's admin credentials.
 */
export async function runPrintedStep(w: World, n: number): Promise<string[]> {
  const lines = fs.readFileSync(path.join(w.dir, 'report.txt'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${n}. `));
  assert.ok(start >= 0, `the report prints no runbook step ${n}:\n${lines.join('\n')}`);
  const commands: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (!l.startsWith('   ')) break;
    if (l.startsWith('   kubectl ')) commands.push(l.trim());
  }
  assert.ok(commands.length > 0, `runbook step ${n} prints no kubectl command`);
  const kubeconfig = path.join(w.dir, 'operator.kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    contextsKubeconfig(
      w.set.clusters,
      (id, c) => {
        const admin = loadYaml(fs.readFileSync(c.kubeconfigPath, 'utf8')) as {
          users: { user: Record<string, string> }[];
        };
        return { name: `operator-${id}`, user: admin.users[0]!.user };
      },
      w.set.leaderId,
    ),
  );
  for (const c of commands) {
    const r = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        'kubectl',
        c.split(/\s+/).slice(1),
        { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, out: `${stdout}${stderr}` }),
      ),
    );
    w.log.push(`$ ${c}\n${r.out}`);
    assert.is(r.code, 0, `${c}: exit ${r.code}\n${r.out}`);
  }
  return commands;
}

export function report(w: World, title: string): void {
  const extra = [
    `leader player: ${w.leaderPlayer.processes.length} processes, ${w.leaderPlayer.passes} passes, ${w.leaderPlayer.writes.length} writes, ${w.leaderPlayer.errors.length} errors` +
      (w.leaderPlayer.errors.length
        ? `\n  ${w.leaderPlayer.errors
            .slice(0, 8)
            .map((e) => `${e.what}: ${e.status} ${e.message}`)
            .join('\n  ')}`
        : ''),
    `leader webhooks denied: ${w.leaderPlayer.denied.length} ${JSON.stringify(w.leaderPlayer.denied.slice(0, 4))}`,
    `churn: ${w.churn.steps} steps, ${w.churn.errors.length} errors ${JSON.stringify(w.churn.errors.slice(0, 4))}`,
    ...[...w.memberPlayers].map(
      ([id, p]) =>
        `member ${id}: epochs ${p.events.epochs}, stale deleted ${JSON.stringify(p.events.staleDeleted)}, last error ${p.lastError ?? '-'}`,
    ),
    `watchers: ${w.watchers.events.length} events, ${w.watchers.anomalies.length} anomalies`,
    describeAnomalies(w.watchers.anomalies.slice(0, 40), w.t0),
  ];
  const text = `== ${title}\n${w.log.join('\n')}\n${extra.join('\n')}\n`;
  fs.writeFileSync(path.join(w.dir, 'cutover-report.txt'), text);
  if (process.env.CUTOVER_REPORT === '1') process.stderr.write(text);
}
