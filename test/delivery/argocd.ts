// The real Argo CD for the delivery tests: its application controller and repo server (Argo CD
// v3.2.6's own commands, built from the Go module proxy by test/argocd/build.sh), kustomize at the
// version that release ships (test/kustomize) and Debian's redis-server, run as processes on the
// host against a management test cluster (test/kube), the way Argo CD "core" runs them there
// (manifests/core-install.yaml of the release: no API server, UI, Dex or ApplicationSet controller).
//
//   const argocd = await startArgoCD(mgmt, { reconciliation: '15s' });
//   await argocd.registerCluster(remote);                 // as `argocd cluster add` does
//   await argocd.apply(appProject, application);          // server-side apply to mgmt
//   await argocd.waitApp('apps', { sync: 'Synced', health: 'Healthy', revision: sha });
//   await argocd.refresh('apps');                         // what a git webhook causes
//   await argocd.stop();
//
// What startArgoCD does, from the release's own files (the module's manifests/, found with
// `go mod download -json`), each piece as a Kubernetes installation has it:
//   - namespace `argocd`; the Application and AppProject CRDs of manifests/crds/, until Established;
//   - the ConfigMaps and the Secret of core-install.yaml (argocd-cm, argocd-cmd-params-cm,
//     argocd-rbac-cm, argocd-ssh-known-hosts-cm, argocd-tls-certs-cm, argocd-gpg-keys-cm,
//     argocd-secret), as there, with our data added: argocd-cm gets the options' settings,
//     argocd-cmd-params-cm where the processes find each other (`redis.server`, `repo.server`,
//     plaintext gRPC), the log format (text) and the options' parameters;
//   - what Argo CD's other components would have made: the Secret `argocd-redis` (key `auth`, a
//     random password, as `argocd admin redis-initial-password`, the redis Deployment's init
//     container, makes it), `server.secretkey` in argocd-secret and the AppProject `default` (as
//     argocd-server makes them when it starts: util/settings InitializeSettings,
//     server.initializeDefaultProject). Without server.secretkey the controller cannot read its
//     settings (util/settings GetSettings), so it lists no cluster.
//   - each process's environment is its container's `env` in core-install.yaml, resolved against the
//     ConfigMaps and Secrets as stored (a configMapKeyRef or secretKeyRef, as the kubelet resolves
//     them): e.g. argocd-cm `timeout.reconciliation` becomes ARGOCD_RECONCILIATION_TIMEOUT. Paths of
//     the container's filesystem (its volume mounts, /tmp, /home/argocd, the env values that are
//     paths) are directories under <dir>/<process>/fs/, given to Argo CD by its own variables
//     (ARGOCD_SSH_DATA_PATH, ARGOCD_TLS_DATA_PATH, ARGOCD_GNUPGHOME, TMPDIR, HOME, ...); ConfigMap
//     volumes are written there as files at start (not updated while running).
// Then redis-server with the redis container's arguments (`--save "" --appendonly no --requirepass`)
// on a free loopback port, the repo server (plaintext gRPC and metrics on free loopback ports,
// kustomize, git and `argocd` on its PATH, ARGOCD_GPG_ENABLED=false: no GnuPG keyring is set up),
// and the controller (--namespace argocd, metrics on a free port), each ready by its health check.
// Both Argo CD processes get ARGOCD_FAKE_IN_CLUSTER=true and a KUBECONFIG, as Argo CD's own local
// runs (its Procfile): the controller's client, and the destination https://kubernetes.default.svc
// (the `in-cluster` cluster, v1alpha1 Cluster.RawRestConfig), are mgmt as the ServiceAccount
// argocd/argocd-application-controller, bound to cluster-admin (the release's ClusterRole for the
// controller is */*/*), as identity.ts makes it; the repo server, which never writes to a cluster,
// keeps mgmt's admin kubeconfig. Redis is
// Debian's 7.0 where the release runs redis 8.2.
//
// Cleanup, as for the clusters: stop() ends the three processes (SIGTERM, then SIGKILL after 10 s);
// a process 'exit' handler kills them synchronously (test/kube installs the signal and uncaught-error
// handlers, which end in process.exit); and each process runs under `setpriv --pdeathsig KILL`
// (util-linux), so the kernel kills it when the runner dies, even by SIGKILL.

import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import type { Cluster } from '../kube/cluster';
import { freePorts, request } from '../kube/cluster';
import { expectStatus, type ObjectMeta } from '../kube/objects';
import { eventually, httpStatus } from '../kube/wait';
import type { Proc } from '../kube/proc';
import { killGroupsSync, sleep, startProc, stopProcs, tail } from '../kube/proc';
import { serviceAccountKubeconfig } from './identity';
import { runBuildScript } from '../helpers/go-build';

const ROOT = path.join(__dirname, '..', '..');
const ARGOCD_MODULE = 'github.com/argoproj/argo-cd/v3';
export const ARGOCD_NAMESPACE = 'argocd';
/** Field manager of what the harness (not Argo CD) applies. */
export const TEST_FIELD_MANAGER = 'clusterset-test';
/** The annotation a git webhook (or `argocd app get --refresh`) sets; the controller removes it. */
export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';
const APPS = `/apis/argoproj.io/v1alpha1/namespaces/${ARGOCD_NAMESPACE}/applications`;

export interface ArgoCDOptions {
  /** argocd-cm `timeout.reconciliation` (Argo CD's default 120s), e.g. '15s'. Read at process start. */
  reconciliation?: string;
  /** argocd-cm `timeout.reconciliation.jitter` (Argo CD's default 60s), e.g. '0s'. */
  jitter?: string;
  /** Extra argocd-cm data, e.g. `resource.customizations.health.<group>_<kind>` Lua. */
  cm?: Record<string, string>;
  /** Extra argocd-cmd-params-cm data (the processes' parameters), e.g. `controller.log.level: debug`. */
  cmdParams?: Record<string, string>;
  /** Directory for the logs and the processes' files; default `<mgmt.dir>/argocd` (goes with the cluster). */
  logDir?: string;
  /** Give up if a process is not ready after this long (default 60 s). */
  readyTimeoutMs?: number;
}

export interface AppWant {
  sync?: 'Synced' | 'OutOfSync';
  /** status.health.status: Healthy, Progressing, Degraded, Suspended, Missing, Unknown. */
  health?: string;
  /** The commit SHA the app was compared at (status.sync.revision, or one of status.sync.revisions). */
  revision?: string;
}

export interface ArgoCD {
  readonly namespace: typeof ARGOCD_NAMESPACE;
  /** Argo CD's version (the module version test/argocd/go.mod pins), e.g. v3.2.6. */
  readonly version: string;
  readonly logs: { controller: string; repoServer: string; redis: string };
  /** The processes' pids while they run (for CPU and memory measurement from /proc). */
  pids(): { controller?: number; repoServer?: number; redis?: number };
  /** Server-side applies objects to the management cluster (field manager `clusterset-test`, force). */
  apply(...objects: Record<string, unknown>[]): Promise<void>;
  /**
   * Registers `cluster` as `argocd cluster add <context> [--name N] --upsert` of v3.2.6 does
   * (cmd/argocd/commands/cluster.go, util/clusterauth, util/db clusterToSecret): in that cluster,
   * ServiceAccount kube-system/argocd-manager, ClusterRole argocd-manager-role (everything),
   * ClusterRoleBinding argocd-manager-role-binding and the token Secret
   * kube-system/argocd-manager-long-lived-token, whose token the token controller fills; then in
   * mgmt's argocd namespace the cluster Secret `cluster-<host>-<fnv32a(server)>` labelled
   * argocd.argoproj.io/secret-type=cluster, annotated managed-by=argocd.argoproj.io, with `name`,
   * `server` and `config` ({"bearerToken":…,"tlsClientConfig":{"insecure":false,"caData":…}}).
   * That config is what the CLI writes for a kubeconfig context without a client certificate (a
   * token or exec plugin); for one with a certificate (as the test clusters' admin kubeconfig has)
   * the CLI would store that certificate and key instead of the token. `server` defaults to
   * cluster.server, `name` to cluster.name (the context's name).
   */
  registerCluster(cluster: Cluster, opts?: { name?: string; server?: string }): Promise<void>;
  /** The Application as stored, or undefined if there is none. */
  app(name: string): Promise<Record<string, unknown> | undefined>;
  /** Sets the refresh annotation ('normal', or 'hard': manifests generated anew), as a git webhook does. */
  refresh(name: string, hard?: boolean): Promise<void>;
  /**
   * Waits until the Application is in the wanted state and settled there: the wanted sync status,
   * health and revision, no operation requested or running, no refresh pending. On timeout (default
   * 120 s) the error carries the app's sync and health, status.conditions, operationState (phase,
   * message) and the tails of the controller's and repo server's logs.
   */
  waitApp(name: string, want: AppWant, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Stops the controller (SIGTERM) and starts it again with the same settings; resolves when healthy. */
  restartController(): Promise<void>;
  /** Stops the controller, the repo server and redis (SIGTERM, then SIGKILL after 10 s). */
  stop(): Promise<void>;
}

type Obj = Record<string, unknown> & { kind: string; metadata: ObjectMeta };

interface Container {
  name: string;
  args?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      configMapKeyRef?: { name: string; key: string; optional?: boolean };
      secretKeyRef?: { name: string; key: string; optional?: boolean };
    };
  }[];
  volumeMounts?: { name: string; mountPath: string }[];
  workingDir?: string;
}

interface Volume {
  name: string;
  emptyDir?: unknown;
  configMap?: { name: string; optional?: boolean; items?: { key: string; path: string }[] };
  secret?: { secretName: string; optional?: boolean; items?: { key: string; path: string }[] };
}

// ---------------------------------------------------------------------------------------------------
// Binaries and the release's manifests

interface Tools {
  /** test/argocd's binary: `argocd application-controller|repo-server`. */
  argocd: string;
  kustomize: string;
  /** The argo-cd module's directory in the Go module cache (manifests/ is read from there). */
  moduleDir: string;
  version: string;
}

let tools: Tools | undefined;

function build(script: string): string {
  const bin = runBuildScript(
    script,
    `Argo CD for the delivery tests: 'go' is not installed (${script} builds it once)`,
  );
  if (!fs.existsSync(bin)) throw new Error(`${script} did not produce ${bin}`);
  return bin;
}

/** Builds (or reuses) Argo CD and kustomize, and finds the release's files. */
export function argocdTools(): Tools {
  if (tools) return tools;
  const argocd = build('test/argocd/build.sh');
  const kustomize = build('test/kustomize/build.sh');
  // The version test/argocd/go.mod pins, checked against its go.sum; downloaded if missing.
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', ARGOCD_MODULE], {
      cwd: path.join(ROOT, 'test', 'argocd'),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=readonly' },
    }),
  ) as { Dir?: string; Version?: string; Error?: string };
  if (!info.Dir || !info.Version)
    throw new Error(`go mod download ${ARGOCD_MODULE}: ${info.Error ?? 'no Dir'}`);
  tools = { argocd, kustomize, moduleDir: info.Dir, version: info.Version };
  return tools;
}

function readYaml(file: string): Obj[] {
  return (yaml.loadAll(fs.readFileSync(file, 'utf8')) as (Obj | null)[]).filter((d): d is Obj => !!d);
}

function find(objs: Obj[], kind: string, name: string): Obj {
  const o = objs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!o) throw new Error(`core-install.yaml has no ${kind} ${name}`);
  return o;
}

function podSpec(workload: Obj): { containers: Container[]; volumes?: Volume[] } {
  return (
    workload as unknown as { spec: { template: { spec: { containers: Container[]; volumes?: Volume[] } } } }
  ).spec.template.spec;
}

// ---------------------------------------------------------------------------------------------------
// Requests to the management cluster

function objectPath(obj: Obj): string {
  const apiVersion = String(obj.apiVersion);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const plural: Record<string, string> = {
    Namespace: 'namespaces',
    ConfigMap: 'configmaps',
    Secret: 'secrets',
    ServiceAccount: 'serviceaccounts',
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
    CustomResourceDefinition: 'customresourcedefinitions',
    AppProject: 'appprojects',
    Application: 'applications',
  };
  const p = plural[obj.kind];
  if (!p) throw new Error(`test/delivery/argocd.ts: no path known for kind ${obj.kind}`);
  const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : '';
  return `${base}${ns}/${p}/${obj.metadata.name}`;
}

function collectionPath(obj: Obj): string {
  return objectPath(obj).replace(/\/[^/]+$/, '');
}

async function ssa(c: Cluster, obj: Obj): Promise<void> {
  const url = `${objectPath(obj)}?fieldManager=${TEST_FIELD_MANAGER}&force=true`;
  const res = await request(c.admin, 'PATCH', url, obj, 'application/apply-patch+yaml');
  expectStatus(`apply ${obj.kind} ${obj.metadata.name} to ${c.name}`, res, 200, 201);
}

/** Creates obj unless it exists (what `create`, AlreadyExists ignored, does in Argo CD's code). */
async function createIfAbsent(c: Cluster, obj: Obj): Promise<void> {
  const res = await request(c.admin, 'POST', collectionPath(obj), obj);
  expectStatus(`create ${obj.kind} ${obj.metadata.name} in ${c.name}`, res, 201, 409);
}

async function get(c: Cluster, urlPath: string): Promise<Record<string, unknown> | undefined> {
  const res = await request(c.admin, 'GET', urlPath);
  if (res.status === 404) return undefined;
  return expectStatus(`GET ${urlPath} from ${c.name}`, res, 200).json as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------
// Install

interface Installed {
  /** Data of the ConfigMaps and Secrets as stored, for resolving the containers' env and volumes. */
  configMaps: Map<string, Record<string, string>>;
  secrets: Map<string, Record<string, string>>;
}

/** What `argocd admin redis-initial-password` generates: 16 of [0-9A-Za-z-]. */
function redisPassword(): string {
  const letters = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-';
  return Array.from({ length: 16 }, () => letters[crypto.randomInt(letters.length)]).join('');
}

async function install(
  mgmt: Cluster,
  core: Obj[],
  moduleDir: string,
  cm: Record<string, string>,
  cmdParams: Record<string, string>,
): Promise<Installed> {
  const ns = ARGOCD_NAMESPACE;
  await ssa(mgmt, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

  for (const file of ['application-crd.yaml', 'appproject-crd.yaml']) {
    const [crd] = readYaml(path.join(moduleDir, 'manifests', 'crds', file));
    if (!crd) throw new Error(`empty ${file}`);
    await ssa(mgmt, crd);
    await eventually(
      `CRD ${crd.metadata.name} Established in ${mgmt.name}`,
      async () => {
        const got = await get(mgmt, objectPath(crd));
        const conds = ((got?.status as { conditions?: { type: string; status: string }[] } | undefined)
          ?.conditions ?? []) as { type: string; status: string }[];
        return conds.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      30_000,
      250,
    );
  }

  // The release's ConfigMaps and Secret, ours added to argocd-cm and argocd-cmd-params-cm.
  const configMaps = new Map<string, Record<string, string>>();
  for (const o of core.filter((d) => d.kind === 'ConfigMap' || d.kind === 'Secret')) {
    const obj = structuredClone(o);
    obj.metadata.namespace = ns;
    if (obj.kind === 'ConfigMap') {
      const extra =
        obj.metadata.name === 'argocd-cm'
          ? cm
          : obj.metadata.name === 'argocd-cmd-params-cm'
            ? cmdParams
            : {};
      obj.data = { ...((obj.data as Record<string, string> | undefined) ?? {}), ...extra };
    }
    await ssa(mgmt, obj);
  }
  // argocd-server's InitializeSettings: a random server.secretkey (util.MakeSignature(32): base64
  // of 32 random bytes) unless there is one.
  const argocdSecret = await get(mgmt, `/api/v1/namespaces/${ns}/secrets/argocd-secret`);
  if (!(argocdSecret?.data as Record<string, string> | undefined)?.['server.secretkey']) {
    const key = crypto.randomBytes(32).toString('base64');
    const res = await request(
      mgmt.admin,
      'PATCH',
      `/api/v1/namespaces/${ns}/secrets/argocd-secret`,
      { data: { 'server.secretkey': Buffer.from(key).toString('base64') } },
      'application/merge-patch+json',
    );
    expectStatus('argocd-secret server.secretkey', res, 200);
  }
  await createIfAbsent(mgmt, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'argocd-redis', namespace: ns },
    type: 'Opaque',
    data: { auth: Buffer.from(redisPassword()).toString('base64') },
  });
  // argocd-server's initializeDefaultProject.
  await createIfAbsent(mgmt, {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'default', namespace: ns },
    spec: {
      sourceRepos: ['*'],
      destinations: [{ server: '*', namespace: '*' }],
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
    },
  });

  // Read back as stored, as the kubelet reads what a Pod references.
  const secrets = new Map<string, Record<string, string>>();
  const cms = (await get(mgmt, `/api/v1/namespaces/${ns}/configmaps`)) as { items: Obj[] };
  for (const o of cms.items) configMaps.set(o.metadata.name, (o.data as Record<string, string>) ?? {});
  const ss = (await get(mgmt, `/api/v1/namespaces/${ns}/secrets`)) as { items: Obj[] };
  for (const o of ss.items) {
    const data: Record<string, string> = {};
    for (const [k, v] of Object.entries((o.data as Record<string, string>) ?? {}))
      data[k] = Buffer.from(v, 'base64').toString('utf8');
    secrets.set(o.metadata.name, data);
  }
  return { configMaps, secrets };
}

// ---------------------------------------------------------------------------------------------------
// Processes

/** Argo CD's variables for the container paths it reads (common/common.go), where they are relocated. */
const PATH_VARIABLES: Record<string, string> = {
  '/app/config/ssh': 'ARGOCD_SSH_DATA_PATH',
  '/app/config/tls': 'ARGOCD_TLS_DATA_PATH',
  '/app/config/gpg/source': 'ARGOCD_GPG_DATA_PATH',
  '/app/config/gpg/keys': 'ARGOCD_GNUPGHOME',
  '/home/argocd/cmp-server/plugins': 'ARGOCD_PLUGINSOCKFILEPATH',
  '/tmp': 'TMPDIR',
};

/**
 * The environment and working directory of one container of core-install.yaml, with its volumes
 * made under `fsRoot`: env from its `env` (configMapKeyRef/secretKeyRef resolved, optional ones
 * skipped when absent; values that are absolute paths relocated), plus the path variables.
 */
function containerEnv(
  spec: { containers: Container[]; volumes?: Volume[] },
  containerName: string,
  inst: Installed,
  fsRoot: string,
): { env: Record<string, string>; cwd: string; args: string[] } {
  const c = spec.containers.find((x) => x.name === containerName);
  if (!c) throw new Error(`core-install.yaml has no container ${containerName}`);
  const at = (p: string) => {
    const d = path.join(fsRoot, p);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) {
      env[e.name] = e.value.startsWith('/') ? at(e.value) : e.value;
      continue;
    }
    const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
    const source = e.valueFrom?.configMapKeyRef ? inst.configMaps : inst.secrets;
    if (!ref) throw new Error(`${containerName}: env ${e.name} has a source the harness does not resolve`);
    const v = source.get(ref.name)?.[ref.key];
    if (v !== undefined) env[e.name] = v;
    else if (!ref.optional)
      throw new Error(`${containerName}: env ${e.name}: ${ref.name} has no key ${ref.key}`);
  }
  for (const m of c.volumeMounts ?? []) {
    const dir = at(m.mountPath);
    const v = spec.volumes?.find((x) => x.name === m.name);
    const src = v?.configMap
      ? { data: inst.configMaps.get(v.configMap.name), items: v.configMap.items }
      : v?.secret
        ? { data: inst.secrets.get(v.secret.secretName), items: v.secret.items }
        : undefined;
    for (const [key, text] of Object.entries(src?.data ?? {})) {
      const rel = src?.items ? src.items.find((i) => i.key === key)?.path : key;
      if (rel) fs.writeFileSync(path.join(dir, rel), text);
    }
  }
  for (const [p, name] of Object.entries(PATH_VARIABLES)) env[name] = at(p);
  env.ARGOCD_APP_CONF_PATH = at('/app/config');
  env.HOME = at('/home/argocd'); // the image's user argocd
  return { env, cwd: c.workingDir ? at(c.workingDir) : env.HOME, args: c.args ?? [] };
}

const openProcs = new Set<Proc>();
let exitHandler = false;

function installExitHandler(): void {
  if (exitHandler) return;
  exitHandler = true;
  // Before test/kube's own 'exit' handler, which stops the clusters these processes talk to.
  process.prependListener('exit', () => {
    killGroupsSync(
      [...openProcs].filter((p) => p.exitCode === undefined && p.child.pid).map((p) => p.child.pid!),
    );
    openProcs.clear();
  });
}

/**
 * Starts `bin args` in `cwd` with exactly `env` (a Pod does not inherit the host's), in its own
 * process group, killed by the kernel when this process dies (setpriv --pdeathsig; `env -C` sets
 * the directory and execs, so the pid is the program's).
 */
function launch(
  name: string,
  bin: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  logDir: string,
) {
  const p = startProc(
    name,
    'setpriv',
    ['--pdeathsig', 'KILL', '--', 'env', '-C', cwd, bin, ...args],
    logDir,
    env,
  );
  openProcs.add(p);
  void p.exited.then(() => openProcs.delete(p));
  return p;
}

/** True when redis answers AUTH and PING. */
function redisPing(port: number, password: string): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(2000, () => done(false));
    sock.on('error', () => done(false));
    sock.on('data', (b: Buffer) => {
      got += b.toString('latin1');
      if (got.includes('+PONG')) done(got.startsWith('+OK'));
      else if (got.includes('-')) done(false);
    });
    sock.on('connect', () => sock.write(`AUTH ${password}\r\nPING\r\n`));
  });
}

/** Waits for `ready`, failing at once (with the log's tail) if the process exits meanwhile. */
async function waitReady(
  p: Proc,
  what: string,
  timeoutMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (p.exitCode !== undefined)
      throw new Error(`${p.name} exited (code ${String(p.exitCode)}) before ${what}:\n${tail(p.log, 30)}`);
    if (await ready()) return;
    if (Date.now() > deadline)
      throw new Error(`${p.name}: timed out after ${timeoutMs} ms waiting for ${what}:\n${tail(p.log, 30)}`);
    await sleep(200);
  }
}

const portTaken = (e: unknown) => /address already in use/i.test(String((e as Error)?.message ?? e));

// ---------------------------------------------------------------------------------------------------
// Start

export async function startArgoCD(mgmt: Cluster, opts: ArgoCDOptions = {}): Promise<ArgoCD> {
  installExitHandler();
  const t = argocdTools();
  if (!fs.existsSync('/usr/bin/setpriv'))
    throw new Error("Argo CD's harness needs setpriv (Debian's util-linux)");
  if (!fs.existsSync('/usr/bin/redis-server'))
    throw new Error("Argo CD's harness needs redis-server (Debian's redis-server; .ci/run installs it)");
  const dir = opts.logDir ?? path.join(mgmt.dir, 'argocd');
  const binDir = path.join(dir, 'bin');
  fs.mkdirSync(binDir, { recursive: true });
  for (const [name, target] of [
    ['argocd', t.argocd],
    ['kustomize', t.kustomize],
  ] as const) {
    fs.rmSync(path.join(binDir, name), { force: true });
    fs.symlinkSync(target, path.join(binDir, name));
  }
  const core = readYaml(path.join(t.moduleDir, 'manifests', 'core-install.yaml'));
  const timeout = opts.readyTimeoutMs ?? 60_000;
  const cm: Record<string, string> = {
    ...(opts.reconciliation !== undefined ? { 'timeout.reconciliation': opts.reconciliation } : {}),
    ...(opts.jitter !== undefined ? { 'timeout.reconciliation.jitter': opts.jitter } : {}),
    ...opts.cm,
  };
  const logs = {
    controller: path.join(dir, 'application-controller.log'),
    repoServer: path.join(dir, 'repo-server.log'),
    redis: path.join(dir, 'redis.log'),
  };

  let redis: Proc | undefined;
  let repoServer: Proc | undefined;
  let controller: Proc | undefined;
  let startController: () => Promise<void> = async () => {};

  const stopAllProcs = async () => {
    await stopProcs([redis, repoServer, controller].filter((p): p is Proc => !!p));
  };

  const startAll = async () => {
    const [redisPort, repoPort, repoMetricsPort, controllerMetricsPort] = await freePorts(4);
    const inst = await install(mgmt, core, t.moduleDir, cm, {
      // Where the processes find each other (the keys Argo CD's manifests read), plaintext gRPC.
      'redis.server': `127.0.0.1:${redisPort}`,
      'repo.server': `127.0.0.1:${repoPort}`,
      'reposerver.disable.tls': 'true',
      'controller.repo.server.plaintext': 'true',
      'reposerver.listen.address': '127.0.0.1',
      'controller.log.format': 'text',
      'reposerver.log.format': 'text',
      ...opts.cmdParams,
    });
    const controllerKubeconfig = await serviceAccountKubeconfig(
      mgmt,
      ARGOCD_NAMESPACE,
      'argocd-application-controller',
      path.join(dir, 'identity'),
    );
    const hostEnv = {
      PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      ARGOCD_FAKE_IN_CLUSTER: 'true',
      KUBECONFIG: mgmt.kubeconfigPath,
    };

    // redis: the release's arguments, $(REDIS_PASSWORD) expanded as Kubernetes expands it.
    const redisSpec = podSpec(find(core, 'Deployment', 'argocd-redis'));
    const redisPassword = inst.secrets.get('argocd-redis')?.auth ?? '';
    const redisDir = path.join(dir, 'redis');
    fs.mkdirSync(redisDir, { recursive: true });
    const redisArgs = (redisSpec.containers.find((c) => c.name === 'redis')?.args ?? []).map((a) =>
      a.replace('$(REDIS_PASSWORD)', redisPassword),
    );
    redis = launch(
      'redis',
      '/usr/bin/redis-server',
      [...redisArgs, '--port', String(redisPort), '--bind', '127.0.0.1', '--dir', redisDir],
      { PATH: hostEnv.PATH },
      redisDir,
      dir,
    );
    const r = redis;
    await waitReady(r, 'redis answers', timeout, () => redisPing(redisPort, redisPassword));

    const repoSpec = podSpec(find(core, 'Deployment', 'argocd-repo-server'));
    const repo = containerEnv(repoSpec, 'argocd-repo-server', inst, path.join(dir, 'repo-server', 'fs'));
    // The askpass socket (a unix socket: at most 107 bytes of path), where the image has it: /tmp.
    const askpass = path.join(repo.env.TMPDIR ?? dir, 'reposerver-ask-pass.sock');
    if (askpass.length > 100)
      throw new Error(`test/delivery/argocd: logDir too long for a unix socket: ${askpass}`);
    repoServer = launch(
      'repo-server',
      t.argocd,
      [
        'repo-server',
        ...repo.args.slice(1),
        `--port=${repoPort}`,
        '--metrics-address=127.0.0.1',
        `--metrics-port=${repoMetricsPort}`,
      ],
      { ...repo.env, ...hostEnv, ARGOCD_GPG_ENABLED: 'false', ARGOCD_ASK_PASS_SOCK: askpass },
      repo.cwd,
      dir,
    );
    const rs = repoServer;
    await waitReady(rs, 'the repo server is healthy', timeout, async () => {
      return (await httpStatus(`http://127.0.0.1:${repoMetricsPort}/healthz?full=true`)) === 200;
    });

    const ctlSpec = podSpec(find(core, 'StatefulSet', 'argocd-application-controller'));
    startController = async () => {
      const ctl = containerEnv(
        ctlSpec,
        'argocd-application-controller',
        inst,
        path.join(dir, 'controller', 'fs'),
      );
      const c = launch(
        'application-controller',
        t.argocd,
        [
          'application-controller',
          ...ctl.args.slice(1),
          `--namespace=${ARGOCD_NAMESPACE}`,
          `--metrics-port=${controllerMetricsPort}`,
        ],
        // The controller acts on clusters as its ServiceAccount, as in the release (identity.ts).
        { ...ctl.env, ...hostEnv, KUBECONFIG: controllerKubeconfig },
        ctl.cwd,
        dir,
      );
      controller = c;
      await waitReady(c, 'the application controller is healthy', timeout, async () => {
        return (await httpStatus(`http://127.0.0.1:${controllerMetricsPort}/healthz`)) === 200;
      });
    };
    await startController();
  };

  // Another process may take a free port before ours binds it: start again on new ports, only then.
  for (let attempt = 1; ; attempt++) {
    try {
      await startAll();
      break;
    } catch (e) {
      await stopAllProcs();
      if (attempt >= 3 || !portTaken(e)) throw e;
      process.stderr.write(`test/delivery/argocd: a port was taken meanwhile, starting again (${attempt})\n`);
    }
  }

  const live = (p: Proc | undefined) => (p && p.exitCode === undefined ? p.child.pid : undefined);
  const argocd: ArgoCD = {
    namespace: ARGOCD_NAMESPACE,
    version: t.version,
    logs,
    pids: () => ({ controller: live(controller), repoServer: live(repoServer), redis: live(redis) }),
    async apply(...objects) {
      for (const o of objects) await ssa(mgmt, o as Obj);
    },
    registerCluster: (cluster, o = {}) => registerCluster(mgmt, cluster, o),
    app: (name) => get(mgmt, `${APPS}/${name}`),
    async refresh(name, hard = false) {
      const res = await request(
        mgmt.admin,
        'PATCH',
        `${APPS}/${name}`,
        { metadata: { annotations: { [REFRESH_ANNOTATION]: hard ? 'hard' : 'normal' } } },
        'application/merge-patch+json',
      );
      expectStatus(`refresh Application ${name}`, res, 200);
    },
    waitApp: (name, want, timeoutMs = 120_000) => waitApp(mgmt, name, want, timeoutMs, logs),
    async restartController() {
      if (controller) await stopProcs([controller]);
      await startController();
    },
    async stop() {
      await stopAllProcs();
    },
  };
  return argocd;
}

// ---------------------------------------------------------------------------------------------------
// Applications

interface AppStatus {
  sync?: { status?: string; revision?: string; revisions?: string[] };
  health?: { status?: string; message?: string };
  conditions?: { type: string; message: string }[];
  operationState?: { phase?: string; message?: string; syncResult?: { revision?: string } };
  reconciledAt?: string;
}

/** Why the Application is not (yet) as wanted, or undefined when it is and nothing is pending. */
function notYet(app: Record<string, unknown> | undefined, want: AppWant): string | undefined {
  if (!app) return 'no such Application';
  const status = (app.status ?? {}) as AppStatus;
  const annotations = ((app.metadata as { annotations?: Record<string, string> }).annotations ??
    {}) as Record<string, string>;
  if (annotations[REFRESH_ANNOTATION]) return `refresh '${annotations[REFRESH_ANNOTATION]}' pending`;
  if (app.operation) return 'an operation is requested';
  const phase = status.operationState?.phase;
  if (phase === 'Running' || phase === 'Terminating') return `operation ${phase}`;
  if (want.sync && status.sync?.status !== want.sync) return `sync ${String(status.sync?.status)}`;
  if (want.health && status.health?.status !== want.health) return `health ${String(status.health?.status)}`;
  if (
    want.revision &&
    status.sync?.revision !== want.revision &&
    !status.sync?.revisions?.includes(want.revision)
  )
    return `revision ${String(status.sync?.revision ?? status.sync?.revisions)}`;
  return undefined;
}

async function waitApp(
  mgmt: Cluster,
  name: string,
  want: AppWant,
  timeoutMs: number,
  logs: { controller: string; repoServer: string },
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let app: Record<string, unknown> | undefined;
  let why: string | undefined = 'not read';
  for (;;) {
    try {
      app = await get(mgmt, `${APPS}/${name}`);
      why = notYet(app, want);
      if (!why) return app!;
    } catch (e) {
      why = String(e);
    }
    if (Date.now() > deadline) break;
    await sleep(250);
  }
  const status = (app?.status ?? {}) as AppStatus;
  throw new Error(
    [
      `Application ${name}: timed out after ${timeoutMs} ms waiting for ${JSON.stringify(want)}: ${why}`,
      `sync: ${JSON.stringify(status.sync ?? null)}`,
      `health: ${JSON.stringify(status.health ?? null)}`,
      `conditions: ${JSON.stringify(status.conditions ?? [])}`,
      `operationState: ${status.operationState?.phase ?? '-'}: ${status.operationState?.message ?? ''}`,
      `--- application controller (${logs.controller}) ---`,
      tail(logs.controller, 40),
      `--- repo server (${logs.repoServer}) ---`,
      tail(logs.repoServer, 15),
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------------
// Clusters

/** FNV-1a, 32 bits (Go's hash/fnv New32a), as util/db URIToSecretName hashes the server URL. */
function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h >>> 0;
}

/** util/db URIToSecretName("cluster", server). */
export function clusterSecretName(server: string): string {
  const u = new URL(server);
  let host = u.host;
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']')).replaceAll(':', '-');
  else if (host.includes(':')) host = host.slice(0, host.indexOf(':'));
  return `cluster-${host.toLowerCase()}-${fnv32a(server)}`;
}

async function registerCluster(
  mgmt: Cluster,
  cluster: Cluster,
  opts: { name?: string; server?: string },
): Promise<void> {
  const sa = 'argocd-manager';
  const ns = 'kube-system'; // --system-namespace default
  const upsert = async (obj: Obj) => {
    const res = await request(cluster.admin, 'POST', collectionPath(obj), obj);
    if (res.status === 409)
      expectStatus(`update ${obj.kind}`, await request(cluster.admin, 'PUT', objectPath(obj), obj), 200);
    else expectStatus(`create ${obj.kind} ${obj.metadata.name} in ${cluster.name}`, res, 201);
  };
  // util/clusterauth InstallClusterManagerRBAC, no namespaces given: cluster-wide.
  await createIfAbsent(cluster, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: sa, namespace: ns },
  });
  await upsert({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'argocd-manager-role' },
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
  });
  await upsert({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'argocd-manager-role-binding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'argocd-manager-role' },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
  });
  // getOrCreateServiceAccountTokenSecret, then GetServiceAccountBearerToken's wait (500 ms, 30 s).
  const tokenSecret = `${sa}-long-lived-token`;
  await createIfAbsent(cluster, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: tokenSecret, namespace: ns, annotations: { 'kubernetes.io/service-account.name': sa } },
    type: 'kubernetes.io/service-account-token',
  });
  const token = await eventually(
    `token of ${ns}/${tokenSecret} in ${cluster.name}`,
    async () => {
      const s = await get(cluster, `/api/v1/namespaces/${ns}/secrets/${tokenSecret}`);
      const t = (s?.data as Record<string, string> | undefined)?.token;
      return t ? Buffer.from(t, 'base64').toString('utf8') : undefined;
    },
    30_000,
    250,
  );
  // The API server's cluster Create reads the server version with these credentials first.
  expectStatus(
    'GET /version as argocd-manager',
    await request({ server: cluster.server, ca: cluster.caPem, token }, 'GET', '/version'),
    200,
  );

  // cmd/util NewCluster + util/db clusterToSecret. Go's json.Marshal of ClusterConfig: bearerToken,
  // then tlsClientConfig (insecure always, caData the PEM's bytes as base64); empty fields omitted.
  const server = (opts.server ?? cluster.server).replace(/\/+$/, '');
  const config = JSON.stringify({
    bearerToken: token,
    tlsClientConfig: { insecure: false, caData: cluster.caData },
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret: Obj = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: clusterSecretName(opts.server ?? cluster.server),
      namespace: ARGOCD_NAMESPACE,
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
      annotations: { 'managed-by': 'argocd.argoproj.io' },
    },
    data: { server: b64(server), name: b64(opts.name ?? cluster.name), config: b64(config) },
  };
  const res = await request(mgmt.admin, 'POST', collectionPath(secret), secret);
  if (res.status === 409)
    expectStatus(
      'update the cluster Secret',
      await request(mgmt.admin, 'PUT', objectPath(secret), secret),
      200,
    );
  else expectStatus(`create the cluster Secret for ${cluster.name}`, res, 201);
}
