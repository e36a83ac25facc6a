// Real Kubernetes control planes for tests: one etcd + kube-apiserver + kube-controller-manager per
// named cluster, on loopback ports, built from the Go module proxy by test/kube/build.sh.
//
//   const clusters = await startClusters(['leader', 'east', 'west']);
//   ...
//   await stopAll();
//
// Every process runs in its own process group; stopAll() (also run on SIGINT, SIGTERM, SIGHUP,
// uncaught errors and process exit) kills the groups and removes the temporary directories.
// Processes left behind by a run that was killed with SIGKILL are reaped by the next
// startClusters() call (see reapOrphans).
//
// Clusters named in opts.nodes also get kube-scheduler, the controllers nodes need and real nodes
// (kubelet, kube-proxy, containerd; see node.ts); their API server then binds to the host's end of
// node 0's veth instead of 127.0.0.1, so that Pods reach it through the `kubernetes` Service.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Proc } from './proc';
import { alive, killGroup, killGroupsSync, removeDir, sleep, startProc, stopProcs, waitFor } from './proc';
import type { ClusterNet, NodeCerts, NodeObject, PreparedNode, TestNode } from './node';
import {
  MAX_NODES_PER_CLUSTER,
  NODE_CIDR_MASK,
  NODE_PACKAGES,
  abandonNode,
  allocateSlot,
  clusterNet,
  prepareNode,
  reapNodes,
  releaseAllSlotsSync,
  releaseSlot,
  startNode,
} from './node';

import { request, type Auth } from './http';
import { runBuildScript } from '../helpers/go-build';
export { request, requestRetrying, type Auth, type Response } from './http';

const TMP_PREFIX = 'clusterset-kube-';
/** Cluster IP of the `kubernetes` Service; inside the default service range below. */
const SERVICE_CIDR = '10.96.0.0/16';
const SERVICE_IP = '10.96.0.1';
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** Controllers kube-controller-manager runs (names as in `kube-controller-manager --help`). */
export const CONTROLLERS = [
  'serviceaccount-token-controller',
  'serviceaccount-controller',
  'root-ca-certificate-publisher-controller',
  'namespace-controller',
  'garbage-collector-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'clusterrole-aggregation-controller',
  'resourcequota-controller',
  'deployment-controller',
  'replicaset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'validatingadmissionpolicy-status-controller',
  'service-cidr-controller',
];

/** Controllers added for clusters with nodes. */
export const NODE_CONTROLLERS = [
  // Ready condition -> removes the node.kubernetes.io/not-ready taint the kubelet registers with.
  'node-lifecycle-controller',
  // Node spec.podCIDR from --cluster-cidr (containerd writes the CNI config from it).
  'node-ipam-controller',
  // NoExecute taints evict Pods.
  'taint-eviction-controller',
  // PodDisruptionBudget status (Deployments with a PDB).
  'disruption-controller',
  // Pods of deleted nodes, terminated Pods.
  'pod-garbage-collector-controller',
];

export interface ClusterOptions {
  /** Give up if a cluster is not ready after this long (default 180 s). */
  readyTimeoutMs?: number;
  /** Keep the temporary directories (data, certificates, logs) after stopping. Env: KUBE_KEEP=1. */
  keep?: boolean;
  /** Extra kube-apiserver flags, e.g. ['--v=2']. */
  apiserverArgs?: string[];
  /** Extra kube-controller-manager flags. */
  controllerManagerArgs?: string[];
  /** Start clusters one after the other instead of all at once (default false). */
  sequential?: boolean;
  /**
   * Clusters that get real nodes (kubelet, kube-proxy, containerd; see node.ts) and kube-scheduler:
   * names (one node each), or name -> number of nodes (1-4). Other clusters stay as they are.
   */
  nodes?: string[] | Record<string, number>;
}

export interface Cluster {
  name: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** Admin kubeconfig (client certificate in group system:masters). */
  kubeconfigPath: string;
  /** CA certificate, base64 of the PEM, as in a kubeconfig's certificate-authority-data. */
  caData: string;
  /** CA certificate, PEM. */
  caPem: string;
  /** Admin KubeConfig (the same as kubeconfigPath). */
  kc: KubeConfig;
  /** Admin credentials for raw requests (see request()). */
  admin: Auth;
  /** Temporary directory: certificates, etcd data, logs (<dir>/logs/*.log). */
  dir: string;
  /** Kubernetes version of the binaries, e.g. v1.34.4. */
  version: string;
  /** Stops the three processes (SIGTERM, then SIGKILL after 10 s) and removes dir unless kept. */
  stop(): Promise<void>;
  /** etcd's client URL (http://127.0.0.1:<port>), for tests that compact or inspect it. */
  etcdUrl: string;
  /**
   * Restarts kube-apiserver on the same port, data and certificates: `signal` (default SIGKILL)
   * ends it, it stays down for `downMs`, then it starts again and this resolves once /readyz is ok.
   */
  restartApiserver(opts?: { signal?: NodeJS.Signals; downMs?: number }): Promise<void>;
  /** The cluster's nodes, Ready and untainted (empty unless ClusterOptions.nodes names it). */
  nodes: TestNode[];
  /** nodes[0], if any. */
  node?: TestNode;
}

interface Running {
  cluster: Cluster;
  procs: Proc[];
  root: string;
  keep: boolean;
  stopped: boolean;
  /** Kills the cluster's nodes and frees their slot (synchronous, for exit handlers). */
  nodesCleanupSync: () => void;
}

const running = new Set<Running>();
/** Temporary roots created by this process, and whether to keep them. */
const roots = new Map<string, boolean>();
let handlersInstalled = false;

// ---------------------------------------------------------------------------------------------------
// Binaries

let cachedBin: { dir: string; version: string } | undefined;

/** Builds (or reuses) the binaries through test/kube/build.sh; returns their directory and version. */
export function kubeBinaries(): { dir: string; version: string } {
  if (cachedBin) return cachedBin;
  const dir = runBuildScript(
    'test/kube/build.sh',
    "Cannot run the Kubernetes end-to-end tests: 'go' is not installed (needed once to build " +
      'kube-apiserver, kube-controller-manager and etcd via test/kube/build.sh). Install Go 1.24+ ' +
      "or run only 'npm run test:unit'.",
  );
  for (const b of ['kube-apiserver', 'kube-controller-manager', 'etcd']) {
    if (!fs.existsSync(path.join(dir, b))) throw new Error(`test/kube/build.sh did not produce ${dir}/${b}`);
  }
  cachedBin = { dir, version: path.basename(path.dirname(dir)) };
  return cachedBin;
}

// ---------------------------------------------------------------------------------------------------
// Certificates (openssl CLI)

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as { code?: string; stderr?: Buffer };
    if (err.code === 'ENOENT') throw new Error("Cannot start test clusters: 'openssl' is not installed");
    throw new Error(`openssl ${args.join(' ')} failed: ${err.stderr?.toString() ?? String(e)}`);
  }
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCA(dir: string, cn: string): void {
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    [
      '[req]',
      'distinguished_name = dn',
      'prompt = no',
      '[dn]',
      `CN = ${cn}`,
      '[v3_ca]',
      'basicConstraints = critical,CA:TRUE',
      'keyUsage = critical,keyCertSign,cRLSign,digitalSignature',
      'subjectKeyIdentifier = hash',
      '',
    ].join('\n'),
  );
  openssl(
    ['req', '-x509', '-new', '-config', 'ca.cnf', '-extensions', 'v3_ca', ...EC].concat([
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '30',
    ]),
    dir,
  );
}

/** Signs a leaf certificate with the CA in dir. subject like '/O=system:masters/CN=admin'. */
function makeLeaf(
  dir: string,
  base: string,
  subject: string,
  usage: 'server' | 'client',
  sans: string[] = [],
) {
  const ext = [
    '[ext]',
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage = ${usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
    'authorityKeyIdentifier = keyid',
  ];
  if (sans.length) ext.push(`subjectAltName = ${sans.join(',')}`);
  fs.writeFileSync(path.join(dir, `${base}.ext`), ext.join('\n') + '\n');
  openssl(['req', '-new', ...EC, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject], dir);
  openssl(
    ['x509', '-req', '-in', `${base}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial']
      .concat([`0x${Math.floor(Math.random() * 2 ** 48).toString(16)}`, '-days', '30'])
      .concat(['-extfile', `${base}.ext`, '-extensions', 'ext', '-out', `${base}.crt`]),
    dir,
  );
}

// ---------------------------------------------------------------------------------------------------
// Ports, processes

/** Ports this process already handed to a cluster; never handed out twice. */
const handedOut = new Set<number>();

/**
 * Picks n distinct free TCP ports on 127.0.0.1 (all held open until every one is chosen), never one
 * this process handed out before (to a cluster, or to a delivery tool's processes, test/delivery).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  const chosen: number[] = [];
  try {
    while (chosen.length < n) {
      const srv = net.createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(srv);
      const port = (srv.address() as net.AddressInfo).port;
      if (!handedOut.has(port)) {
        handedOut.add(port);
        chosen.push(port);
      }
    }
    return chosen;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}

/** Synchronous last-resort cleanup for exit and signal handlers. */
function killAllSync(): void {
  const pids: number[] = [];
  for (const r of running) r.nodesCleanupSync();
  releaseAllSlotsSync();
  for (const r of running) {
    for (const p of r.procs) if (p.exitCode === undefined && p.child.pid) pids.push(p.child.pid);
  }
  killGroupsSync(pids);
  running.clear();
  for (const [root, keep] of roots) if (!keep) removeDir(root);
  roots.clear();
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\ntest/kube: ${sig}, stopping test clusters\n`);
      killAllSync();
      process.exit(sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 129);
    });
  }
  const fatal = (err: unknown) => {
    process.stderr.write(
      `\ntest/kube: uncaught error, stopping test clusters\n${String((err as Error)?.stack ?? err)}\n`,
    );
    killAllSync();
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

/**
 * Kills process groups recorded by earlier runs whose owning Node process no longer exists (e.g. it
 * was SIGKILLed), and removes their directories. Only pids listed in our own pid files, and only if
 * their command line is one of our binaries, are touched.
 */
export function reapOrphans(): void {
  const tmp = os.tmpdir();
  for (const entry of fs.readdirSync(tmp)) {
    if (!entry.startsWith(TMP_PREFIX)) continue;
    const root = path.join(tmp, entry);
    let owner = 0;
    try {
      owner = Number(fs.readFileSync(path.join(root, 'owner.pid'), 'utf8'));
    } catch {
      // No owner file: a half-removed directory, or one being created right now (skip those).
      try {
        if (Date.now() - fs.statSync(root).mtimeMs < 120_000) continue;
      } catch {
        continue;
      }
    }
    if (owner === process.pid || (owner && alive(owner))) continue;
    const orphans: number[] = [];
    for (const c of fs.readdirSync(root)) {
      let pids: number[] = [];
      try {
        pids = fs
          .readFileSync(path.join(root, c, 'pids'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        continue;
      }
      for (const pid of pids) {
        let cmd = '';
        try {
          cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue;
        }
        if (cmd.includes(root)) orphans.push(pid);
      }
    }
    killGroupsSync(orphans);
    removeDir(root);
  }
}

// ---------------------------------------------------------------------------------------------------
// HTTP: test/kube/http.ts (re-exported)

/** A KubeConfig for the given cluster authenticating with a bearer token (e.g. a ServiceAccount's). */
export function tokenKubeConfig(
  cluster: Pick<Cluster, 'name' | 'server' | 'caData'>,
  token: string,
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: cluster.name, server: cluster.server, caData: cluster.caData, skipTLSVerify: false }],
    users: [{ name: 'token', token }],
    contexts: [{ name: 'token', cluster: cluster.name, user: 'token' }],
    currentContext: 'token',
  });
  return kc;
}

// ---------------------------------------------------------------------------------------------------
// Start

/** A kubeconfig, written as JSON (valid YAML, and no YAML 1.1 surprises such as a cluster named "n"). */
function kubeconfig(name: string, server: string, caData: string, user: string, cert: string, key: string) {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'certificate-authority-data': caData } }],
    users: [{ name: user, user: { 'client-certificate-data': b64(cert), 'client-key-data': b64(key) } }],
    contexts: [{ name, context: { cluster: name, user } }],
    'current-context': name,
  };
  return JSON.stringify(config, null, 2) + '\n';
}

/** Another process may grab a port between freePorts() and the bind: retry on that, only. */
async function startOneWithRetry(
  name: string,
  root: string,
  bin: { dir: string; version: string },
  opts: ClusterOptions,
  keep: boolean,
): Promise<Cluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOne(name, root, bin, opts, keep);
    } catch (e) {
      const msg = (e as Error).message;
      if (attempt >= 3 || !/address already in use/i.test(msg)) throw e;
      process.stderr.write(`test/kube: ${name}: a port was taken meanwhile, retrying (${attempt})\n`);
      removeDir(path.join(root, name));
    }
  }
}

async function startOne(
  name: string,
  root: string,
  bin: { dir: string; version: string },
  opts: ClusterOptions,
  keep: boolean,
) {
  const dir = path.join(root, name);
  const pki = path.join(dir, 'pki');
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(pki, { recursive: true });
  fs.mkdirSync(logs, { recursive: true });

  const nodeCount = nodesWanted(opts, name);
  if (nodeCount) checkNodePackages();
  // A cluster with nodes claims a machine-wide slot for its addresses; its API server binds to
  // the host's end of node 0's veth, which must exist before it starts.
  const slot = nodeCount ? allocateSlot(dir) : 0;
  const cnet = nodeCount ? clusterNet(slot, name, nodeCount) : undefined;
  const prepared: (PreparedNode | undefined)[] = [];
  const startedNodes: TestNode[] = [];
  let nodesCleaned = false;
  const nodesCleanupSync = () => {
    if (!cnet || nodesCleaned) return;
    nodesCleaned = true;
    // Each step never throws; releaseSlot cleans up once more whatever is left of the slot.
    for (const n of startedNodes) n.stopSync();
    for (const [i, n] of cnet.nodes.entries()) if (!startedNodes[i]) abandonNode(n, prepared[i]);
    try {
      releaseSlot(slot);
    } catch (e) {
      process.stderr.write(`test/kube: ${name}: releasing node slot ${slot} failed: ${String(e)}\n`);
    }
  };
  const bindIP = cnet?.apiserverIP ?? '127.0.0.1';

  makeCA(pki, `clusterset-test-ca-${name}`);
  makeLeaf(pki, 'apiserver', '/CN=kube-apiserver', 'server', [
    'IP:127.0.0.1',
    ...(cnet ? [`IP:${cnet.apiserverIP}`] : []),
    `IP:${SERVICE_IP}`,
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ]);
  makeLeaf(pki, 'admin', '/O=system:masters/CN=kubernetes-admin', 'client');
  makeLeaf(pki, 'kcm', '/CN=system:kube-controller-manager', 'client');
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], pki);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], pki);
  const nodeCerts: NodeCerts[] = [];
  if (cnet) {
    makeLeaf(pki, 'apiserver-kubelet-client', `/CN=${APISERVER_KUBELET_CLIENT}`, 'client');
    makeLeaf(pki, 'scheduler', '/CN=system:kube-scheduler', 'client');
    makeLeaf(pki, 'kube-proxy', '/CN=system:kube-proxy', 'client');
    for (const n of cnet.nodes) {
      makeLeaf(pki, `kubelet-${n.name}-client`, `/O=system:nodes/CN=system:node:${n.name}`, 'client');
      makeLeaf(pki, `kubelet-${n.name}-serving`, `/CN=${n.name}`, 'server', [`IP:${n.ip}`, `DNS:${n.name}`]);
      const f = (b: string) => path.join(pki, b);
      nodeCerts.push({
        ca: f('ca.crt'),
        kubeletClientCert: f(`kubelet-${n.name}-client.crt`),
        kubeletClientKey: f(`kubelet-${n.name}-client.key`),
        kubeletServingCert: f(`kubelet-${n.name}-serving.crt`),
        kubeletServingKey: f(`kubelet-${n.name}-serving.key`),
        kubeProxyCert: f('kube-proxy.crt'),
        kubeProxyKey: f('kube-proxy.key'),
      });
    }
  }
  const read = (f: string) => fs.readFileSync(path.join(pki, f), 'utf8');
  const caPem = read('ca.crt');
  const caData = Buffer.from(caPem).toString('base64');

  const [etcdClient, etcdPeer, apiPort] = await freePorts(3);
  const server = `https://${bindIP}:${apiPort}`;
  const kubeconfigPath = path.join(dir, 'admin.kubeconfig');
  fs.writeFileSync(
    kubeconfigPath,
    kubeconfig(name, server, caData, 'admin', read('admin.crt'), read('admin.key')),
  );
  const kcmKubeconfig = path.join(dir, 'kcm.kubeconfig');
  fs.writeFileSync(
    kcmKubeconfig,
    kubeconfig(name, server, caData, 'system:kube-controller-manager', read('kcm.crt'), read('kcm.key')),
  );
  const admin: Auth = { server, ca: caPem, cert: read('admin.crt'), key: read('admin.key') };

  const procs: Proc[] = [];
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const r: Running = {
    cluster: undefined as unknown as Cluster,
    procs,
    root,
    keep,
    stopped: false,
    nodesCleanupSync,
  };
  const pidFile = path.join(dir, 'pids');
  const record = (p: Proc) => {
    procs.push(p);
    if (p.child.pid) fs.appendFileSync(pidFile, `${p.child.pid}\n`);
  };
  let startApiserver: () => Promise<void> = async () => {};
  const cluster: Cluster = {
    name,
    server,
    kubeconfigPath,
    caData,
    caPem,
    kc,
    admin,
    dir,
    version: bin.version,
    etcdUrl: `http://127.0.0.1:${etcdClient}`,
    restartApiserver: async ({ signal = 'SIGKILL', downMs = 0 } = {}) => {
      const i = procs.findIndex((p) => p.name === 'kube-apiserver' && p.exitCode === undefined);
      if (i < 0) throw new Error(`${name}: kube-apiserver is not running`);
      const old = procs[i]!;
      // The child is unref'd; hold the loop until its exit is seen (else the await can hang).
      old.child.ref();
      killGroup(old.child.pid, signal);
      await old.exited;
      procs.splice(i, 1);
      await sleep(downMs);
      await startApiserver();
    },
    stop: async () => {
      if (r.stopped) return;
      r.stopped = true;
      // Nodes first (their daemons talk to the API server), then the control plane.
      await Promise.all(startedNodes.map((n) => n.stop()));
      nodesCleanupSync();
      await stopProcs(procs);
      running.delete(r);
      if (!keep) removeDir(dir);
    },
    nodes: startedNodes,
  };
  r.cluster = cluster;
  running.add(r);

  try {
    if (cnet) {
      for (const n of cnet.nodes)
        prepared.push(prepareNode({ net: n, binDir: bin.dir, dir: path.join(dir, 'nodes', n.name) }));
    }
    await launch();
    if (cnet) await launchNodes(cnet);
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  return cluster;

  async function launchNodes(nn: ClusterNet): Promise<void> {
    const timeout = opts.readyTimeoutMs ?? 180_000;
    // kubectl logs/exec: the API server's kubelet client may use the kubelet API.
    const binding = await request(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'clusterset-test:apiserver-kubelet-client' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:kubelet-api-admin',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: APISERVER_KUBELET_CLIENT }],
    });
    if (binding.status !== 201)
      throw new Error(`${name}: ClusterRoleBinding for the kubelet client: ${binding.body}`);
    const started = await Promise.all(
      nn.nodes.map((n, i) =>
        startNode(
          {
            net: n,
            binDir: bin.dir,
            dir: path.join(dir, 'nodes', n.name),
            server,
            certs: nodeCerts[i]!,
            clusterCIDR: nn.clusterCIDR,
            getNode: async () => {
              const res = await request(admin, 'GET', `/api/v1/nodes/${n.name}`, undefined, undefined, 5000);
              return res.status === 200 ? (res.json as NodeObject) : undefined;
            },
            timeoutMs: timeout,
          },
          prepared[i]!,
        ),
      ),
    );
    startedNodes.push(...started);
    cluster.node = started[0];
  }

  async function launch(): Promise<void> {
    const p = (f: string) => path.join(pki, f);
    record(
      startProc(
        'etcd',
        path.join(bin.dir, 'etcd'),
        [
          `--name=${name}`,
          `--data-dir=${path.join(dir, 'etcd')}`,
          `--listen-client-url=http://127.0.0.1:${etcdClient}`,
          `--listen-peer-url=http://127.0.0.1:${etcdPeer}`,
        ],
        logs,
      ),
    );
    startApiserver = async () => {
      const apiserver = startProc(
        'kube-apiserver',
        path.join(bin.dir, 'kube-apiserver'),
        [
          `--etcd-servers=http://127.0.0.1:${etcdClient}`,
          `--etcd-prefix=/registry`,
          `--bind-address=${bindIP}`,
          `--advertise-address=${bindIP}`,
          `--secure-port=${apiPort}`,
          `--cert-dir=${pki}`,
          `--tls-cert-file=${p('apiserver.crt')}`,
          `--tls-private-key-file=${p('apiserver.key')}`,
          `--client-ca-file=${p('ca.crt')}`,
          `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
          `--service-account-key-file=${p('sa.pub')}`,
          `--service-account-signing-key-file=${p('sa.key')}`,
          `--service-cluster-ip-range=${SERVICE_CIDR}`,
          '--authorization-mode=Node,RBAC',
          // Added to the default plugin set, which already includes ValidatingAdmissionPolicy
          // (GA since 1.30), ServiceAccount, NamespaceLifecycle, webhooks, ResourceQuota.
          '--enable-admission-plugins=NodeRestriction,ValidatingAdmissionPolicy',
          '--allow-privileged=true',
          '--profiling=false',
          '--v=1',
          ...(cnet
            ? [
                `--kubelet-client-certificate=${p('apiserver-kubelet-client.crt')}`,
                `--kubelet-client-key=${p('apiserver-kubelet-client.key')}`,
                `--kubelet-certificate-authority=${p('ca.crt')}`,
                '--kubelet-preferred-address-types=InternalIP',
              ]
            : []),
          ...(opts.apiserverArgs ?? []),
        ],
        logs,
      );
      record(apiserver);
      await waitFor(`${name}: kube-apiserver /readyz`, timeout, procs, async () => {
        const res = await request(admin, 'GET', '/readyz', undefined, undefined, 5000);
        return res.status === 200 && res.body.trim() === 'ok';
      });
    };
    const timeout = opts.readyTimeoutMs ?? 180_000;
    await startApiserver();
    record(
      startProc(
        'kube-controller-manager',
        path.join(bin.dir, 'kube-controller-manager'),
        [
          `--kubeconfig=${kcmKubeconfig}`,
          `--authentication-kubeconfig=${kcmKubeconfig}`,
          `--authorization-kubeconfig=${kcmKubeconfig}`,
          '--secure-port=0',
          '--leader-elect=false',
          `--service-account-private-key-file=${p('sa.key')}`,
          `--root-ca-file=${p('ca.crt')}`,
          '--use-service-account-credentials=true',
          `--controllers=${[...CONTROLLERS, ...(cnet ? NODE_CONTROLLERS : [])].join(',')}`,
          `--cluster-name=${name}`,
          '--profiling=false',
          '--v=1',
          ...(cnet
            ? [
                '--allocate-node-cidrs=true',
                `--cluster-cidr=${cnet.clusterCIDR}`,
                `--node-cidr-mask-size=${NODE_CIDR_MASK}`,
                `--service-cluster-ip-range=${SERVICE_CIDR}`,
              ]
            : []),
          ...(opts.controllerManagerArgs ?? []),
        ],
        logs,
      ),
    );
    if (cnet) {
      const schedKubeconfig = path.join(dir, 'scheduler.kubeconfig');
      fs.writeFileSync(
        schedKubeconfig,
        kubeconfig(
          name,
          server,
          caData,
          'system:kube-scheduler',
          read('scheduler.crt'),
          read('scheduler.key'),
        ),
      );
      record(
        startProc(
          'kube-scheduler',
          path.join(bin.dir, 'kube-scheduler'),
          [
            `--kubeconfig=${schedKubeconfig}`,
            `--authentication-kubeconfig=${schedKubeconfig}`,
            `--authorization-kubeconfig=${schedKubeconfig}`,
            '--secure-port=0',
            '--leader-elect=false',
            '--profiling=false',
            '--v=1',
          ],
          logs,
        ),
      );
    }
    await waitFor(`${name}: ServiceAccount default/default`, timeout, procs, async () => {
      const res = await request(
        admin,
        'GET',
        '/api/v1/namespaces/default/serviceaccounts/default',
        undefined,
        undefined,
        5000,
      );
      return res.status === 200;
    });
  }
}

/** User name in the API server's client certificate for the kubelet API. */
const APISERVER_KUBELET_CLIENT = 'kube-apiserver-kubelet-client';

function nodesWanted(opts: ClusterOptions, name: string): number {
  const n = Array.isArray(opts.nodes) ? (opts.nodes.includes(name) ? 1 : 0) : (opts.nodes?.[name] ?? 0);
  if (!Number.isInteger(n) || n < 0 || n > MAX_NODES_PER_CLUSTER)
    throw new Error(`${name}: a test cluster has 0 to ${MAX_NODES_PER_CLUSTER} nodes, not ${n}`);
  return n;
}

/** The Debian packages a node needs must be installed (.ci/run installs them). */
function checkNodePackages(): void {
  const missing = NODE_PACKAGES.filter(([, file]) => !fs.existsSync(file)).map(([pkg]) => pkg);
  if (missing.length)
    throw new Error(`test nodes need these Debian packages: apt-get install ${missing.join(' ')}`);
}

/**
 * Starts one control plane per name (in parallel unless opts.sequential) and resolves when every
 * /readyz is ok and every `default` ServiceAccount exists. Throws with the tail of the failing
 * component's log otherwise (after stopping whatever was started by this call).
 */
export async function startClusters(
  names: string[],
  opts: ClusterOptions = {},
): Promise<Map<string, Cluster>> {
  if (new Set(names).size !== names.length) throw new Error(`duplicate cluster names: ${names.join(', ')}`);
  for (const n of names) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n))
      throw new Error(`invalid cluster name ${JSON.stringify(n)}`);
  }
  for (const n of Array.isArray(opts.nodes) ? opts.nodes : Object.keys(opts.nodes ?? {}))
    if (!names.includes(n))
      throw new Error(`nodes asked for cluster ${JSON.stringify(n)}, which is not started`);
  installHandlers();
  reapNodes();
  reapOrphans();
  const bin = kubeBinaries();
  const keep = opts.keep ?? process.env.KUBE_KEEP === '1';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), TMP_PREFIX));
  fs.writeFileSync(path.join(root, 'owner.pid'), String(process.pid));
  roots.set(root, keep);
  const started: Cluster[] = [];
  const results = new Map<string, Cluster>();
  try {
    if (opts.sequential) {
      for (const n of names) {
        const c = await startOneWithRetry(n, root, bin, opts, keep);
        started.push(c);
        results.set(n, c);
      }
    } else {
      const settled = await Promise.allSettled(names.map((n) => startOneWithRetry(n, root, bin, opts, keep)));
      const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed.length)
        throw new Error(failed.map((f) => String((f.reason as Error)?.message ?? f.reason)).join('\n\n'));
      for (const [i, n] of names.entries())
        results.set(n, (settled[i] as PromiseFulfilledResult<Cluster>).value);
    }
    return results;
  } catch (e) {
    // Stop everything this call started (including clusters that did come up).
    const mine = [...running].filter((r) => r.root === root);
    await Promise.all(mine.map((r) => r.cluster.stop()));
    if (!keep) removeDir(root);
    roots.delete(root);
    throw new Error(
      `starting test clusters failed${keep ? ` (files kept in ${root})` : ''}:\n${(e as Error).message}`,
    );
  }
}

/** Stops every cluster started by this process and removes their directories. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((r) => r.cluster.stop()));
  for (const [root, keep] of roots) {
    if (!keep) removeDir(root);
    else process.stderr.write(`test/kube: kept ${root}\n`);
  }
  roots.clear();
}
