// The real Flux for the delivery tests: source-controller and kustomize-controller (the versions
// test/flux pins, built from the Go module proxy by test/flux/build.sh) run as processes on the host,
// pointed at a management test cluster (test/kube) (KUBECONFIG: source-controller with the admin
// kubeconfig, kustomize-controller as its release's ServiceAccount flux-system/kustomize-controller
// bound to cluster-admin, identity.ts, since what it applies must be admitted as that user), in
// namespace flux-system (RUNTIME_NAMESPACE), with the args of the controllers' own Deployments
// (every namespace watched) but no leader election, and health, metrics and the artifact server on
// free loopback ports. startFlux() installs every CRD of the two releases (GitRepository,
// OCIRepository, HelmRepository, HelmChart, Bucket, ExternalArtifact, Kustomization) and the
// namespace.
//
//   const flux = await startFlux(mgmt);               // CRDs, namespace, both controllers Ready
//   await flux.addKubeconfigSecret(remote);           // flux-system/remote-kubeconfig, key `value`
//   await flux.apply(gitRepository, kustomization);   // server-side apply to mgmt
//   await flux.waitReady('apps', { revision: sha });  // Ready at that commit, generation current
//   await flux.stop();
//
// source-controller serves its artifacts on a loopback port (--storage-addr, advertised as the same
// address), from which kustomize-controller fetches them. Git repositories must be served over http(s)
// or ssh (Flux refuses file:// and git://; see git-server.ts).
//
// Cleanup, as for the clusters (test/kube/cluster.ts): stop() ends both controllers (SIGTERM, then
// SIGKILL); a process 'exit' handler does it synchronously (test/kube installs the signal and
// uncaught-error handlers that end in process.exit); a small watchdog process kills them within a
// second or two once the runner is gone, even after SIGKILL; and startFlux() reaps what an earlier
// runner's watchdog could not (its directory under the system temp dir, `clusterset-flux-*`).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import type { Cluster } from '../kube/cluster';
import { freePorts, request } from '../kube/cluster';
import { httpStatus } from '../kube/wait';
import type { Proc } from '../kube/proc';
import {
  alive,
  killGroup,
  killGroupsSync,
  removeDir,
  sleep,
  startProc,
  startTime,
  stopProcs,
  tail,
} from '../kube/proc';
import { runBuildScript } from '../helpers/go-build';
import { tokenKubeconfig } from '../helpers/kubeconfig';
import { serviceAccountKubeconfig } from './identity';

const ROOT = path.join(__dirname, '..', '..');
const TMP_PREFIX = 'clusterset-flux-';
/** Field manager of what the harness (not Flux) applies. */
export const TEST_FIELD_MANAGER = 'clusterset-test';
export const FLUX_NAMESPACE = 'flux-system';
const REQUESTED_AT = 'reconcile.fluxcd.io/requestedAt';

export interface FluxOptions {
  /**
   * Where the controllers' logs go (`source-controller.log`, `kustomize-controller.log`), kept after
   * stop(). Default: the run's temporary directory, removed on stop() unless KUBE_KEEP=1.
   */
  logDir?: string;
  /** kustomize-controller --requeue-dependency (Flux's default 30s), e.g. '2s' for tests with dependsOn. */
  requeueDependency?: string;
  /** Extra flags for source-controller / kustomize-controller, e.g. ['--log-level=debug']. */
  sourceArgs?: string[];
  kustomizeArgs?: string[];
  /** Give up if a controller is not ready after this long (default 60 s). */
  readyTimeoutMs?: number;
}

export interface WaitWant {
  /**
   * A commit SHA, or Flux's full revision (`main@sha1:<sha>`). Matched against
   * status.lastAppliedRevision (ready) or status.lastAttemptedRevision (not ready).
   */
  revision?: string;
  /** Default true: the Ready condition True; false: Ready False (a failed reconcile). */
  ready?: boolean;
}

export interface Flux {
  readonly namespace: typeof FLUX_NAMESPACE;
  /** Log files of the two controllers. */
  readonly logs: { source: string; kustomize: string };
  /** Versions of the controllers run (from test/flux's go.mod files). */
  readonly versions: { source: string; kustomize: string };
  /** The controllers' pids while they run (for CPU and memory measurement from /proc). */
  pids(): { source?: number; kustomize?: number };
  /** Server-side applies objects to the management cluster (field manager `clusterset-test`, force). */
  apply(...objects: Record<string, unknown>[]): Promise<void>;
  /**
   * A kubeconfig Secret for `cluster`, made as a user makes one for Flux: in that cluster, the
   * ServiceAccount `kube-system/flux-applier`, a ClusterRoleBinding `flux-applier` to `cluster-admin`
   * and its long-lived token Secret `kube-system/flux-applier-token` (type
   * kubernetes.io/service-account-token, filled by the token controller); in the management cluster,
   * the Secret `flux-system/<name>` (default `<cluster.name>-kubeconfig`) whose `key` (default
   * `value`, what a Kustomization's spec.kubeConfig.secretRef reads) holds a kubeconfig with the
   * cluster's server, CA and that token. Idempotent.
   */
  addKubeconfigSecret(cluster: Cluster, name?: string, key?: string): Promise<void>;
  /** The Kustomization flux-system/<name> as stored, or undefined if there is none. */
  kustomization(name: string): Promise<Record<string, unknown> | undefined>;
  /** The GitRepository flux-system/<name> as stored, or undefined if there is none. */
  gitRepository(name: string): Promise<Record<string, unknown> | undefined>;
  /**
   * Sets the annotation reconcile.fluxcd.io/requestedAt to a new value, as `flux reconcile` and
   * Flux's git webhook receiver do; the controller reconciles at once and records the value in
   * status.lastHandledReconcileAt (which waitReady() then waits for).
   */
  requestReconcile(kind: 'GitRepository' | 'Kustomization', name: string): Promise<void>;
  /**
   * Waits for the Kustomization's final state and returns it: a requested reconcile (above) has been
   * handled, the Ready condition judged the current generation and is True (then Reconciling is gone
   * and status.observedGeneration is current) or, with `ready: false`, False (a failed reconcile:
   * Reconciling, if there, says ProgressingWithRetry), at `revision` if given. On timeout (default
   * 90 s) it throws with the Kustomization's and its source's conditions and the tail of both
   * controllers' logs.
   */
  waitReady(name: string, want?: WaitWant, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Stops both controllers (SIGTERM, then SIGKILL after 10 s) and removes the temporary directory. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Binaries and CRDs

interface FluxBuild {
  dir: string;
  source: string;
  kustomize: string;
  crds: string[];
  versions: { source: string; kustomize: string };
}

let cachedBuild: FluxBuild | undefined;

/** Builds (or reuses) the controllers through test/flux/build.sh. */
export function fluxBinaries(): FluxBuild {
  if (cachedBuild) return cachedBuild;
  const dir = runBuildScript(
    'test/flux/build.sh',
    "Cannot run Flux: 'go' is not installed (test/flux/build.sh builds the controllers)",
  );
  const crdDir = path.join(dir, 'crds');
  const versions = Object.fromEntries(
    fs
      .readFileSync(path.join(crdDir, '.done'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  cachedBuild = {
    dir,
    source: path.join(dir, 'source-controller'),
    kustomize: path.join(dir, 'kustomize-controller'),
    crds: fs
      .readdirSync(crdDir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => path.join(crdDir, f)),
    versions: {
      source: versions['source-controller'] ?? '?',
      kustomize: versions['kustomize-controller'] ?? '?',
    },
  };
  for (const b of [cachedBuild.source, cachedBuild.kustomize])
    if (!fs.existsSync(b)) throw new Error(`test/flux/build.sh did not produce ${b}`);
  return cachedBuild;
}

// ---------------------------------------------------------------------------------------------------
// Requests to the management cluster

type Obj = Record<string, unknown>;
interface Meta {
  name?: string;
  namespace?: string;
  generation?: number;
  annotations?: Record<string, string>;
}
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** Where the Flux objects the harness reads live in mgmt (all in flux-system). */
const FLUX_PATHS = {
  Kustomization: `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NAMESPACE}/kustomizations`,
  GitRepository: `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NAMESPACE}/gitrepositories`,
} as const;

/** The collection path of an object (the kinds the harness and its tests apply). */
function collectionPath(obj: Obj): string {
  const apiVersion = String(obj.apiVersion);
  const kind = String(obj.kind);
  const ns = (obj.metadata as Meta | undefined)?.namespace;
  const plural: Record<string, string> = {
    Namespace: 'namespaces',
    Secret: 'secrets',
    ServiceAccount: 'serviceaccounts',
    ConfigMap: 'configmaps',
    ClusterRoleBinding: 'clusterrolebindings',
    CustomResourceDefinition: 'customresourcedefinitions',
    GitRepository: 'gitrepositories',
    Kustomization: 'kustomizations',
    OCIRepository: 'ocirepositories',
    HelmRepository: 'helmrepositories',
    HelmChart: 'helmcharts',
    Bucket: 'buckets',
  };
  const p = plural[kind];
  if (!p) throw new Error(`flux.apply: kind ${kind} is not known to the harness`);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return ns ? `${base}/namespaces/${ns}/${p}` : `${base}/${p}`;
}

async function ssa(cluster: Cluster, obj: Obj): Promise<void> {
  const name = (obj.metadata as Meta | undefined)?.name;
  if (!name) throw new Error(`flux.apply: object without a name: ${JSON.stringify(obj).slice(0, 200)}`);
  const url = `${collectionPath(obj)}/${name}?fieldManager=${TEST_FIELD_MANAGER}&force=true`;
  for (let attempt = 1; ; attempt++) {
    const res = await request(cluster.admin, 'PATCH', url, obj, 'application/apply-patch+yaml');
    if (res.status === 200 || res.status === 201) return;
    // 429 while a new CRD's storage starts; 404 while its resource is not yet served.
    if ((res.status === 429 || res.status === 404) && attempt < 40) {
      await sleep(250);
      continue;
    }
    throw new Error(`${cluster.name}: apply ${String(obj.kind)} ${name}: HTTP ${res.status}: ${res.body}`);
  }
}

async function getJson(cluster: Cluster, urlPath: string): Promise<Obj | undefined> {
  const res = await request(cluster.admin, 'GET', urlPath);
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`${cluster.name}: GET ${urlPath}: HTTP ${res.status}: ${res.body}`);
  return res.json as Obj;
}

async function installCrds(mgmt: Cluster, files: string[], timeoutMs: number): Promise<void> {
  const names: string[] = [];
  for (const f of files) {
    for (const doc of yaml.loadAll(fs.readFileSync(f, 'utf8'))) {
      if (!doc || typeof doc !== 'object') continue;
      const crd = doc as Obj;
      names.push(String((crd.metadata as Meta).name));
      await ssa(mgmt, crd);
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const n of names) {
    for (;;) {
      const crd = await getJson(mgmt, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${n}`);
      const conds = ((crd?.status as { conditions?: Condition[] } | undefined)?.conditions ??
        []) as Condition[];
      if (conds.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline)
        throw new Error(`${mgmt.name}: CRD ${n} not Established after ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Processes: ports, cleanup

/** Kills the controllers once the runner is gone, even after SIGKILL (see the script). */
const WATCHDOG = path.join(ROOT, 'test', 'flux', 'watchdog.sh');

interface Running {
  root: string;
  keep: boolean;
  procs: Proc[];
  watchdog?: number;
}
const running = new Set<Running>();
let exitHandler = false;
let requests = 0;

function killAllSync(): void {
  for (const r of running) {
    killGroupsSync(r.procs.filter((p) => p.exitCode === undefined && p.child.pid).map((p) => p.child.pid!));
    killGroup(r.watchdog, 'SIGKILL');
    if (!r.keep) removeDir(r.root);
  }
  running.clear();
}

/** A controller of the run in `root`: TMPDIR=<root>/tmp in its environment (a reused pid has not). */
function ours(pid: number, root: string): boolean {
  try {
    return fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .includes(`TMPDIR=${path.join(root, 'tmp')}`);
  } catch {
    return false;
  }
}

/**
 * Kills the controllers of earlier runners that died without cleaning up (should their watchdog have
 * died too) and removes their directories: only pids listed in the pid file of a directory whose
 * owner is gone, and only if they still run with that directory's TMPDIR.
 */
export function reapFluxOrphans(): void {
  const tmp = os.tmpdir();
  for (const entry of fs.readdirSync(tmp)) {
    if (!entry.startsWith(TMP_PREFIX)) continue;
    const root = path.join(tmp, entry);
    let owner = 0;
    let started: string | undefined;
    try {
      const [pid, start] = fs.readFileSync(path.join(root, 'owner'), 'utf8').trim().split(' ');
      owner = Number(pid);
      started = start;
    } catch {
      try {
        if (Date.now() - fs.statSync(root).mtimeMs < 120_000) continue; // being created
      } catch {
        continue;
      }
    }
    if (owner === process.pid || (owner && alive(owner) && startTime(owner) === started)) continue;
    let pids: number[] = [];
    try {
      pids = fs.readFileSync(path.join(root, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      // none started
    }
    killGroupsSync(pids.filter((pid) => ours(pid, root)));
    if (!fs.existsSync(path.join(root, 'keep'))) removeDir(root);
  }
}

// ---------------------------------------------------------------------------------------------------
// Start

/**
 * Installs Flux's CRDs (all those of the two controllers' releases) and the namespace flux-system in
 * `mgmt`, starts source-controller and kustomize-controller with mgmt's admin kubeconfig, and
 * resolves once both report ready (/readyz) and the artifact server answers.
 */
export async function startFlux(mgmt: Cluster, opts: FluxOptions = {}): Promise<Flux> {
  const build = fluxBinaries();
  reapFluxOrphans();
  const timeout = opts.readyTimeoutMs ?? 60_000;
  const keep = process.env.KUBE_KEEP === '1';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), TMP_PREFIX));
  fs.writeFileSync(path.join(root, 'owner'), `${process.pid} ${startTime(process.pid) ?? ''}`);
  if (keep) fs.writeFileSync(path.join(root, 'keep'), '');
  const logDir = opts.logDir ?? path.join(root, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const storage = path.join(root, 'storage');
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(storage);
  fs.mkdirSync(tmp);
  const r: Running = { root, keep, procs: [] };
  running.add(r);
  if (!exitHandler) {
    exitHandler = true;
    process.on('exit', killAllSync);
  }

  // The watchdog first, so that nothing started below can outlive the runner.
  const dog = spawn('bash', [WATCHDOG, String(process.pid), startTime(process.pid) ?? '', root], {
    detached: true,
    stdio: 'ignore',
  });
  dog.unref();
  r.watchdog = dog.pid;

  const stop = async () => {
    if (!running.has(r)) return;
    running.delete(r);
    await stopProcs(r.procs); // in reverse: kustomize-controller, then source-controller
    killGroup(r.watchdog, 'SIGKILL');
    if (!keep) removeDir(root);
    else process.stderr.write(`test/delivery/flux: kept ${root}\n`);
  };

  try {
    await installCrds(mgmt, build.crds, timeout);
    await ssa(mgmt, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FLUX_NAMESPACE } });

    const kustomizeKubeconfig = await serviceAccountKubeconfig(
      mgmt,
      FLUX_NAMESPACE,
      'kustomize-controller',
      path.join(root, 'identity'),
    );
    const [srcMetrics, srcHealth, srcStorage, kusMetrics, kusHealth] = await freePorts(5);
    const storageAddr = `127.0.0.1:${srcStorage}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KUBECONFIG: mgmt.kubeconfigPath,
      RUNTIME_NAMESPACE: FLUX_NAMESPACE,
      // Also how the watchdog and reapFluxOrphans() tell our controllers from a reused pid.
      TMPDIR: tmp,
    };
    // The args of the controllers' Deployments (config/manager/deployment.yaml of each module), but
    // for leader election (one replica, nothing to elect) and the addresses (loopback ports here).
    const common = [
      '--watch-all-namespaces',
      '--log-level=info',
      '--log-encoding=json',
      '--enable-leader-election=false',
    ];
    const record = (p: Proc) => {
      r.procs.push(p);
      if (p.child.pid) fs.appendFileSync(path.join(root, 'pids'), `${p.child.pid}\n`);
      return p;
    };
    const source = record(
      startProc(
        'source-controller',
        build.source,
        [
          ...common,
          `--metrics-addr=127.0.0.1:${srcMetrics}`,
          `--health-addr=127.0.0.1:${srcHealth}`,
          `--storage-path=${storage}`,
          `--storage-addr=${storageAddr}`,
          `--storage-adv-addr=${storageAddr}`,
          ...(opts.sourceArgs ?? []),
        ],
        logDir,
        // As its Deployment: the Fulcio root CA cache under the temporary directory.
        { ...env, TUF_ROOT: path.join(tmp, '.sigstore') },
      ),
    );
    const kustomize = record(
      startProc(
        'kustomize-controller',
        build.kustomize,
        [
          ...common,
          `--metrics-addr=127.0.0.1:${kusMetrics}`,
          `--health-addr=127.0.0.1:${kusHealth}`,
          ...(opts.requeueDependency ? [`--requeue-dependency=${opts.requeueDependency}`] : []),
          ...(opts.kustomizeArgs ?? []),
        ],
        logDir,
        // It applies as its ServiceAccount, as in the release (identity.ts).
        { ...env, KUBECONFIG: kustomizeKubeconfig },
      ),
    );

    const deadline = Date.now() + timeout;
    const checks: [string, () => Promise<boolean>][] = [
      [
        'source-controller /readyz',
        async () => (await httpStatus(`http://127.0.0.1:${srcHealth}/readyz`)) === 200,
      ],
      [
        'kustomize-controller /readyz',
        async () => (await httpStatus(`http://127.0.0.1:${kusHealth}/readyz`)) === 200,
      ],
      // source-controller's readinessProbe: the artifact server (it starts once the manager runs).
      ['the artifact server', async () => (await httpStatus(`http://${storageAddr}/`)) === 200],
    ];
    for (const [what, check] of checks) {
      while (!(await check())) {
        const dead = r.procs.find((p) => p.exitCode !== undefined);
        if (dead)
          throw new Error(`${dead.name} exited (code ${String(dead.exitCode)}):\n${tail(dead.log, 40)}`);
        if (Date.now() > deadline)
          throw new Error(
            `timed out after ${timeout} ms waiting for ${what}` +
              r.procs.map((p) => `\n--- ${p.name} (${p.log}) ---\n${tail(p.log)}`).join(''),
          );
        await sleep(100);
      }
    }

    const kustomization = (name: string) => getJson(mgmt, `${FLUX_PATHS.Kustomization}/${name}`);
    const gitRepository = (name: string) => getJson(mgmt, `${FLUX_PATHS.GitRepository}/${name}`);

    const flux: Flux = {
      namespace: FLUX_NAMESPACE,
      logs: { source: source.log, kustomize: kustomize.log },
      versions: build.versions,
      pids: () => ({
        source: source.exitCode === undefined ? source.child.pid : undefined,
        kustomize: kustomize.exitCode === undefined ? kustomize.child.pid : undefined,
      }),
      apply: async (...objects) => {
        for (const o of objects) await ssa(mgmt, o);
      },
      addKubeconfigSecret: (cluster, name, key) => addKubeconfigSecret(mgmt, cluster, name, key),
      kustomization,
      gitRepository,
      requestReconcile: async (kind, name) => {
        const url = `${FLUX_PATHS[kind]}/${name}`;
        // RFC 3339 with nanoseconds, as `flux reconcile` writes it; a counter in the last digits
        // makes every value new.
        const now = new Date().toISOString().replace('Z', `${String(++requests % 1e6).padStart(6, '0')}Z`);
        const res = await request(
          mgmt.admin,
          'PATCH',
          url,
          { metadata: { annotations: { [REQUESTED_AT]: now } } },
          'application/merge-patch+json',
        );
        if (res.status !== 200)
          throw new Error(`request reconcile of ${kind} ${name}: HTTP ${res.status}: ${res.body}`);
      },
      waitReady: async (name, want = {}, timeoutMs = 90_000) => {
        const wantReady = want.ready ?? true;
        const end = Date.now() + timeoutMs;
        let last: Obj | undefined;
        for (;;) {
          last = await kustomization(name).catch(() => last);
          if (last && settled(last, wantReady, want.revision)) return last;
          const dead = r.procs.find((p) => p.exitCode !== undefined);
          if (dead || Date.now() > end) {
            const src = (last?.spec as { sourceRef?: { kind?: string; name?: string } } | undefined)
              ?.sourceRef;
            const srcObj =
              src?.kind === 'GitRepository' && src.name
                ? await gitRepository(src.name).catch(() => undefined)
                : undefined;
            throw new Error(
              (dead
                ? `${dead.name} exited (code ${String(dead.exitCode)}) waiting for Kustomization ${name}`
                : `timed out after ${timeoutMs} ms waiting for Kustomization ${name} to be ` +
                  `${wantReady ? 'Ready' : 'not Ready'}${want.revision ? ` at ${want.revision}` : ''}`) +
                `\nKustomization: ${describe(last)}` +
                (src ? `\n${src.kind} ${src.name}: ${describe(srcObj)}` : '') +
                `\n--- kustomize-controller (${kustomize.log}) ---\n${tail(kustomize.log, 30)}` +
                `\n--- source-controller (${source.log}) ---\n${tail(source.log, 10)}`,
            );
          }
          await sleep(200);
        }
      },
      stop,
    };
    return flux;
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The Kustomization is in the state asked for, and that state is final (see Flux.waitReady). */
function settled(k: Obj, wantReady: boolean, revision: string | undefined): boolean {
  const meta = k.metadata as Meta;
  const status = (k.status ?? {}) as {
    observedGeneration?: number;
    lastHandledReconcileAt?: string;
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    conditions?: Condition[];
  };
  const requested = meta.annotations?.[REQUESTED_AT];
  if (requested !== undefined && status.lastHandledReconcileAt !== requested) return false;
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  // Ready Unknown while a reconcile is in flight; its conditions carry the generation they judged.
  if (!ready || ready.status !== (wantReady ? 'True' : 'False')) return false;
  if (ready.observedGeneration !== meta.generation) return false;
  const reconciling = status.conditions?.find((c) => c.type === 'Reconciling' && c.status === 'True');
  if (wantReady) {
    // A success removes Reconciling and records the generation (kustomize-controller finalizeStatus).
    if (reconciling || status.observedGeneration !== meta.generation) return false;
  } else if (reconciling && reconciling.reason !== 'ProgressingWithRetry') {
    // A failure leaves Reconciling=True with reason ProgressingWithRetry, observedGeneration as it was.
    return false;
  }
  if (revision !== undefined) {
    const got = wantReady ? status.lastAppliedRevision : status.lastAttemptedRevision;
    if (!got || !(got === revision || got.endsWith(`:${revision}`))) return false;
  }
  return true;
}

function describe(o: Obj | undefined): string {
  if (!o) return '(not found)';
  const meta = o.metadata as Meta;
  const status = (o.status ?? {}) as Record<string, unknown>;
  const conds = ((status.conditions ?? []) as Condition[])
    .map((c) => `\n  ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`)
    .join('');
  const revs = ['lastAppliedRevision', 'lastAttemptedRevision', 'lastHandledReconcileAt']
    .filter((f) => status[f] !== undefined)
    .map((f) => `${f}=${String(status[f])}`)
    .join(' ');
  const gens = `generation ${String(meta.generation)}, observed ${String(status.observedGeneration)}`;
  return `${gens} ${revs}${conds || ' (no conditions)'}`;
}

// ---------------------------------------------------------------------------------------------------
// Remote clusters

const APPLIER = 'flux-applier';

async function addKubeconfigSecret(
  mgmt: Cluster,
  cluster: Cluster,
  name?: string,
  key = 'value',
): Promise<void> {
  const secretName = name ?? `${cluster.name}-kubeconfig`;
  await ssa(mgmt, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: secretName, namespace: FLUX_NAMESPACE },
    stringData: { [key]: await applierKubeconfig(cluster) },
  });
}

/**
 * A kubeconfig of `cluster` for Flux: a cluster-admin ServiceAccount's token there (the file a
 * platform team gives Flux as `<cluster>.kubeconfig`), as YAML-compatible JSON.
 */
export async function applierKubeconfig(cluster: Cluster): Promise<string> {
  await ssa(cluster, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: APPLIER, namespace: 'kube-system' },
  });
  await ssa(cluster, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: APPLIER },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: APPLIER, namespace: 'kube-system' }],
  });
  await ssa(cluster, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/service-account-token',
    metadata: {
      name: `${APPLIER}-token`,
      namespace: 'kube-system',
      annotations: { 'kubernetes.io/service-account.name': APPLIER },
    },
  });
  let token = '';
  const end = Date.now() + 30_000;
  while (!token) {
    const s = await getJson(cluster, `/api/v1/namespaces/kube-system/secrets/${APPLIER}-token`);
    const data = (s?.data ?? {}) as Record<string, string>;
    if (data.token) token = Buffer.from(data.token, 'base64').toString('utf8');
    else if (Date.now() > end)
      throw new Error(`${cluster.name}: the token controller did not fill kube-system/${APPLIER}-token`);
    else await sleep(100);
  }
  const kubeconfig = tokenKubeconfig(cluster, APPLIER, token, { context: cluster.name });
  return JSON.stringify(kubeconfig, null, 2) + '\n';
}
