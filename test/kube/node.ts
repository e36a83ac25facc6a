// Real nodes for the test clusters: containerd (Debian's 1.6, runc, overlayfs, the CNI bridge and
// host-local plugins), kubelet and kube-proxy (iptables mode, both built by build.sh with the
// control plane), and the pause image made here (test/kube/pause, packed by oci.ts).
//
// Isolation, so that a node leaves the host as it found it:
// - Each node runs in a network and a mount namespace of its own, held by a `pause` process started
//   with `unshare --net --mount --propagation private`; containerd, kubelet and kube-proxy enter both
//   with nsenter. iptables chains and net.* sysctls are per network namespace, and every mount the
//   daemons make (overlay rootfs, tmpfs volumes, Pod netns bind mounts) lives in the private mount
//   namespace: all of it vanishes with the last process. A veth pair joins the node to the host;
//   the host end carries a /30 and a route to the node's Pod CIDR; stopping deletes it (and so the
//   route) once the node's processes are gone. The host does not forward, so Pods on different
//   nodes do not reach each other.
// - Inside the mount namespace, tmpfs covers /run, /var/lib and /var/log (shim sockets under
//   /run/containerd, the CNI cache under /var/lib/cni, the kubelet's /var/log/containers links), and
//   the global sysctls the kubelet sets (KUBELET_SYSCTLS) are shadowed by bind-mounted files, so the
//   kubelet's writes never reach the host's kernel.
// - Each node has a cgroup of its own in every hierarchy (`/clusterset-node-<slot>-<i>`): the
//   daemons run in its `daemons` child, the kubelet's cgroupRoot is the node cgroup, so every process
//   of the node (daemons, shims, containers) is in that tree, and stopping freezes it, SIGKILLs
//   every process in it, thaws it and removes it. Every cleanup step is synchronous and never
//   throws, for the exit and signal handlers.
// - Slots (the third octet of the node addresses and Pod CIDRs) are registered machine-wide under
//   /run/clusterset-test-node with the owning process; reapNodes() cleans up the slots of owners that
//   died (e.g. SIGKILL), as reapOrphans() does for the control planes.

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Proc } from './proc';
import { isLive, killGroup, sleep, sleepSync, startProc, startTime, stopProcs, waitFor } from './proc';
import { writeImageArchive } from './oci';

const execFileP = promisify(execFile);

/** Machine-wide registry of node slots (tmpfs: gone on reboot, like everything it records). */
export const NODE_REGISTRY = '/run/clusterset-test-node';
const CGROUP_PREFIX = 'clusterset-node-';
/** At most this many nodes per cluster (the cluster's /24 of Pod addresses is cut into /26s). */
export const MAX_NODES_PER_CLUSTER = 4;
export const NODE_CIDR_MASK = 26;
/** The global (not per network namespace) sysctls the kubelet sets at start; shadowed, see above. */
export const KUBELET_SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
];
const DAEMON_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const CNI_BIN_DIR = '/usr/lib/cni';
/** Debian packages the node needs, and a binary of each to check for. */
export const NODE_PACKAGES: [pkg: string, file: string][] = [
  ['containerd', '/usr/bin/containerd'],
  ['runc', '/usr/sbin/runc'],
  ['containernetworking-plugins', `${CNI_BIN_DIR}/bridge`],
  ['iptables', '/usr/sbin/iptables'],
  ['conntrack', '/usr/sbin/conntrack'],
  ['iproute2', '/usr/sbin/ip'],
  ['util-linux', '/usr/bin/nsenter'],
];

// ---------------------------------------------------------------------------------------------------
// Addresses

/** The network of one cluster's nodes, from its slot. */
export interface ClusterNet {
  slot: number;
  /** Pod addresses of the whole cluster (kube-controller-manager --cluster-cidr). */
  clusterCIDR: string;
  /** Where kube-apiserver binds and what it advertises: the host end of node 0's veth. */
  apiserverIP: string;
  nodes: NodeNet[];
}

export interface NodeNet {
  index: number;
  /** Node object name. */
  name: string;
  /** The node's InternalIP (its end of the veth, inside its network namespace). */
  ip: string;
  /** The host's end of the veth. */
  hostIP: string;
  /** Host-side interface name. */
  hostLink: string;
  /** kubelet cgroupRoot, the same in every hierarchy: /clusterset-node-<slot>-<index>. */
  cgroup: string;
}

export function clusterNet(slot: number, clusterName: string, count: number): ClusterNet {
  if (count < 1 || count > MAX_NODES_PER_CLUSTER)
    throw new Error(`a test cluster has 1 to ${MAX_NODES_PER_CLUSTER} nodes, not ${count}`);
  const nodes = Array.from({ length: count }, (_, i) => ({
    index: i,
    name: `${clusterName}-node-${i}`,
    ip: `10.200.${slot}.${4 * i + 2}`,
    hostIP: `10.200.${slot}.${4 * i + 1}`,
    hostLink: `csn${slot}-${i}`,
    cgroup: `/${CGROUP_PREFIX}${slot}-${i}`,
  }));
  return { slot, clusterCIDR: `10.244.${slot}.0/24`, apiserverIP: nodes[0]!.hostIP, nodes };
}

// ---------------------------------------------------------------------------------------------------
// Slots (machine-wide)

const OWNER = `${process.pid} ${startTime(process.pid) ?? ''}`;
/** Slots this process claimed and has not released. */
const claimed = new Set<number>();

/** True while the process that wrote `owner` ("<pid> <start time>") is alive. */
function ownerAlive(owner: string): boolean {
  const [pid, start] = owner.trim().split(' ');
  return !!pid && isLive(Number(pid)) && startTime(Number(pid)) === start;
}

function hostAddresses(): string {
  try {
    return (
      execFileSync('ip', ['-o', 'addr'], { encoding: 'utf8' }) +
      execFileSync('ip', ['route'], { encoding: 'utf8' })
    );
  } catch (e) {
    throw new Error(`test node: 'ip' failed (is iproute2 installed?): ${String(e)}`);
  }
}

/** Claims a free slot (1-250) for this process; the host must have no address or route in it. */
export function allocateSlot(note: string): number {
  fs.mkdirSync(NODE_REGISTRY, { recursive: true, mode: 0o700 });
  const inUse = hostAddresses();
  for (let slot = 1; slot <= 250; slot++) {
    if (inUse.includes(`10.200.${slot}.`) || inUse.includes(`10.244.${slot}.`)) continue;
    const dir = path.join(NODE_REGISTRY, `slot-${slot}`);
    try {
      fs.mkdirSync(dir);
    } catch {
      continue;
    }
    fs.writeFileSync(path.join(dir, 'note'), note);
    fs.writeFileSync(path.join(dir, 'owner'), OWNER);
    claimed.add(slot);
    return slot;
  }
  throw new Error(`test node: no free slot in ${NODE_REGISTRY}`);
}

export function releaseSlot(slot: number): void {
  cleanupSlot(slot);
  fs.rmSync(path.join(NODE_REGISTRY, `slot-${slot}`), { recursive: true, force: true });
  claimed.delete(slot);
}

/** Releases every slot this process still holds (exit handlers: whatever a failed start left). */
export function releaseAllSlotsSync(): void {
  for (const slot of [...claimed]) {
    try {
      releaseSlot(slot);
    } catch (e) {
      process.stderr.write(`test/kube: releasing node slot ${slot} failed: ${String(e)}\n`);
    }
  }
}

/** Kills and removes everything of a slot's nodes: processes (by cgroup), cgroups, host links. */
function cleanupSlot(slot: number): void {
  for (const name of cgroupNames(`${CGROUP_PREFIX}${slot}-`)) {
    try {
      killCgroup(name);
      removeCgroup(name);
    } catch (e) {
      process.stderr.write(`test/kube: cleaning up cgroup ${name} failed: ${String(e)}\n`);
    }
  }
  for (const link of safeReaddir('/sys/class/net')) {
    if (link.startsWith(`csn${slot}-`)) {
      try {
        execFileSync('ip', ['link', 'del', link], { stdio: 'ignore' });
      } catch {
        // went away meanwhile (its namespace died)
      }
    }
  }
}

/**
 * Cleans up the slots whose owner is gone (a test runner killed with SIGKILL leaves its nodes
 * running), and node cgroups that belong to no slot.
 */
export function reapNodes(): void {
  for (const entry of safeReaddir(NODE_REGISTRY)) {
    const m = /^slot-(\d+)$/.exec(entry);
    if (!m) continue;
    const dir = path.join(NODE_REGISTRY, entry);
    let owner = '';
    try {
      owner = fs.readFileSync(path.join(dir, 'owner'), 'utf8');
    } catch {
      try {
        if (Date.now() - fs.statSync(dir).mtimeMs < 60_000) continue; // being claimed right now
      } catch {
        continue;
      }
    }
    if (owner && ownerAlive(owner)) continue;
    process.stderr.write(
      `test/kube: reaping test node slot ${m[1]} (owner ${owner.trim() || 'unknown'} is gone)\n`,
    );
    releaseSlot(Number(m[1]));
  }
  const registered = new Set(safeReaddir(NODE_REGISTRY));
  for (const name of cgroupNames(CGROUP_PREFIX)) {
    const slot = /^clusterset-node-(\d+)-\d+$/.exec(name)?.[1];
    if (slot && !registered.has(`slot-${slot}`)) {
      try {
        killCgroup(name);
        removeCgroup(name);
      } catch (e) {
        process.stderr.write(`test/kube: cleaning up cgroup ${name} failed: ${String(e)}\n`);
      }
    }
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------------
// Cgroups (v1 hierarchies and the unified one; the same relative path in each)

/** Mount points of every cgroup hierarchy (v1 and v2). */
export function cgroupMounts(): string[] {
  const out: string[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) continue;
    const fstype = post.split(' ')[0];
    if (fstype === 'cgroup' || fstype === 'cgroup2') out.push(pre.split(' ')[4]!);
  }
  return out;
}

/** A directory under `dir` named `name`, depth first; undefined when there is none. */
function findDir(dir: string, name: string): string | undefined {
  for (const e of safeReaddirents(dir)) {
    if (!e.isDirectory()) continue;
    const p = path.join(dir, e.name);
    if (e.name === name) return p;
    const found = findDir(p, name);
    if (found) return found;
  }
  return undefined;
}

function safeReaddirents(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The memory cgroup of a container and the files that hold its limit and its peak usage. */
export interface ContainerMemoryCgroup {
  readonly dir: string;
  /** cgroup v1 `memory.limit_in_bytes`, v2 `memory.max`. */
  readonly limitFile: string;
  /** cgroup v1 `memory.max_usage_in_bytes`, v2 `memory.peak` (where the kernel has it). */
  readonly peakFile: string;
  /** cgroup v1 `memory.failcnt` (times the limit was hit), v2 `memory.events` (its `max` line). */
  readonly eventsFile: string;
}

/**
 * The memory cgroup of a container of a node's Pod, from its CRI container ID (the part of
 * `containerStatuses[].containerID` after `containerd://`): the kubelet puts it under the node's
 * cgroupRoot (`<root>/kubepods/<qos>/pod<uid>/<id>`, cgroupfs driver).
 */
export function containerMemoryCgroup(
  node: Pick<TestNode, 'cgroup'>,
  containerId: string,
): ContainerMemoryCgroup {
  const mounts = cgroupMounts();
  const v1 = mounts.find((m) => fs.existsSync(path.join(m, 'memory.limit_in_bytes')));
  const v2 = v1 ? undefined : mounts.find((m) => fs.existsSync(path.join(m, 'cgroup.controllers')));
  const memory = v1 ?? v2;
  if (!memory) throw new Error('no cgroup memory controller on this machine');
  const dir = findDir(path.join(memory, node.cgroup), containerId);
  if (!dir) throw new Error(`no memory cgroup of container ${containerId} under ${memory}${node.cgroup}`);
  return v1
    ? {
        dir,
        limitFile: path.join(dir, 'memory.limit_in_bytes'),
        peakFile: path.join(dir, 'memory.max_usage_in_bytes'),
        eventsFile: path.join(dir, 'memory.failcnt'),
      }
    : {
        dir,
        limitFile: path.join(dir, 'memory.max'),
        peakFile: path.join(dir, 'memory.peak'),
        eventsFile: path.join(dir, 'memory.events'),
      };
}

/** Names of top-level cgroups starting with prefix, in any hierarchy. */
function cgroupNames(prefix: string): string[] {
  const names = new Set<string>();
  for (const m of cgroupMounts()) for (const e of safeReaddir(m)) if (e.startsWith(prefix)) names.add(e);
  return [...names];
}

/** Creates /<name> and /<name>/daemons in every hierarchy (cpuset ones get their parent's cpus and mems). */
function createCgroup(name: string): string[] {
  const procsFiles: string[] = [];
  for (const m of cgroupMounts()) {
    for (const rel of [name, `${name}/daemons`]) {
      const dir = path.join(m, rel);
      fs.mkdirSync(dir, { recursive: true });
      for (const f of ['cpuset.cpus', 'cpuset.mems']) {
        const file = path.join(dir, f);
        if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').trim() === '')
          fs.writeFileSync(file, fs.readFileSync(path.join(path.dirname(dir), f), 'utf8'));
      }
    }
    procsFiles.push(path.join(m, name, 'daemons', 'cgroup.procs'));
  }
  return procsFiles;
}

/** Every pid in the cgroup tree /<name>, over all hierarchies. */
export function cgroupPids(name: string): number[] {
  const pids = new Set<number>();
  // The kubelet and runc create and remove cgroups meanwhile: a directory may vanish at any point.
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      for (const p of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n'))
        if (p) pids.add(Number(p));
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name));
  };
  for (const m of cgroupMounts()) walk(path.join(m, name));
  return [...pids];
}

/**
 * SIGKILLs every process in the cgroup tree /<name> and waits (synchronously, up to 15 s) until it
 * is empty. With a v1 freezer the tree is frozen first, so nothing forks in between.
 */
function killCgroup(name: string): void {
  const freezer = cgroupMounts().find((m) => fs.existsSync(path.join(m, name, 'freezer.state')));
  const state = freezer && path.join(freezer, name, 'freezer.state');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const pids = cgroupPids(name);
    if (!pids.length) return;
    if (state) {
      try {
        fs.writeFileSync(state, 'FROZEN');
        const until = Date.now() + 2000;
        while (fs.readFileSync(state, 'utf8').trim() !== 'FROZEN' && Date.now() < until) sleepSync(10);
      } catch {
        // not freezable right now; kill anyway
      }
    }
    for (const pid of cgroupPids(name)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    if (state) {
      try {
        fs.writeFileSync(state, 'THAWED');
      } catch {
        // removed meanwhile
      }
    }
    sleepSync(50);
  }
  process.stderr.write(`test/kube: processes left in cgroup ${name}: ${cgroupPids(name).join(' ')}\n`);
}

/** Removes the (empty) cgroup tree /<name> from every hierarchy, deepest first. */
function removeCgroup(name: string): void {
  const rmTree = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory()) rmTree(path.join(dir, e.name));
    for (let attempt = 0; ; attempt++) {
      try {
        fs.rmdirSync(dir);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
        if (attempt >= 100) {
          process.stderr.write(`test/kube: could not remove cgroup ${dir}: ${String(e)}\n`);
          return;
        }
        sleepSync(20);
      }
    }
  };
  for (const m of cgroupMounts()) rmTree(path.join(m, name));
}

// ---------------------------------------------------------------------------------------------------
// Images

export interface NodeImage {
  name: string;
  archive: string;
}

/** Packs a static binary of bin/ into a FROM-scratch image archive in dir, tagged by its content. */
export function binaryImage(
  binDir: string,
  binary: 'pause' | 'testpod',
  dir: string,
  opts: { user?: string } = {},
): NodeImage {
  const file = path.join(binDir, binary);
  const sum = createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
  const name = `localhost/clusterset/${binary}:${sum}`;
  const archive = path.join(dir, `${binary}.oci.tar`);
  writeImageArchive(archive, {
    name,
    files: [{ path: binary, data: { from: file } }],
    entrypoint: [`/${binary}`],
    ...(opts.user ? { user: opts.user } : {}),
  });
  return { name, archive };
}

// ---------------------------------------------------------------------------------------------------
// A node

/** Certificates the cluster made for a node (paths). */
export interface NodeCerts {
  ca: string;
  kubeletClientCert: string;
  kubeletClientKey: string;
  kubeletServingCert: string;
  kubeletServingKey: string;
  kubeProxyCert: string;
  kubeProxyKey: string;
}

export interface TestNode {
  /** Node object name, e.g. leader-node-0. */
  name: string;
  /** InternalIP (inside the node's network namespace). */
  ip: string;
  /** The host's end of the node's veth (the host routes the Pod CIDR through it). */
  hostIP: string;
  hostLink: string;
  /** The Node's spec.podCIDR. */
  podCIDR: string;
  /** kubelet cgroupRoot (the same relative path in every cgroup hierarchy). */
  cgroup: string;
  /** containerd's socket: `ctr --address <it> -n k8s.io ...`. */
  containerdSocket: string;
  /** The node's directory (containerd root and state, kubelet root, Pod logs, configs, logs/). */
  dir: string;
  logs: { containerd: string; kubelet: string; kubeProxy: string };
  /** The pause image (containerd's sandbox_image), imported at start. */
  pauseImage: string;
  /** Milliseconds from the start of startNode to each step (the namespaces were made before). */
  timings: { containerd: number; registered: number; ready: number; proxyRules: number };
  /** pid of the process holding the node's network and mount namespaces. */
  holderPid: number;
  /** Inode numbers of the node's network and mount namespaces (readlink /proc/<pid>/ns/*). */
  namespaces: { net: string; mnt: string };
  /** Imports a docker-archive or OCI-archive tar into containerd's k8s.io namespace (the kubelet's). */
  importImage(archivePath: string): Promise<void>;
  /** Runs a command inside the node's network and mount namespaces (e.g. iptables-save); stdout. */
  exec(cmd: string[]): Promise<string>;
  /** Stops the daemons, kills every process of the node, removes its cgroups; idempotent. */
  stop(): Promise<void>;
  /** The same, synchronously, for exit handlers. */
  stopSync(): void;
}

export interface StartNodeParams {
  net: NodeNet;
  binDir: string;
  /** The node's directory (created). */
  dir: string;
  server: string;
  certs: NodeCerts;
  clusterCIDR: string;
  /** Reads the Node object with admin credentials (undefined while it does not exist). */
  getNode: () => Promise<NodeObject | undefined>;
  timeoutMs: number;
}

export interface NodeObject {
  spec?: { podCIDR?: string; taints?: { key: string; effect: string }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

function nsInode(pid: number, ns: 'net' | 'mnt'): string {
  return fs.readlinkSync(`/proc/${pid}/ns/${ns}`);
}

/** Runs argv in cgroup procs files' cgroups: a sh that joins them, then execs argv. */
function inCgroup(procsFiles: string[], argv: string[]): { bin: string; args: string[] } {
  const script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"';
  return { bin: '/bin/sh', args: ['-c', script, 'sh', ...procsFiles, '--', ...argv] };
}

function kubeconfigFile(server: string, ca: string, cert: string, key: string): string {
  return (
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'cluster', cluster: { server, 'certificate-authority': ca } }],
        users: [{ name: 'user', user: { 'client-certificate': cert, 'client-key': key } }],
        contexts: [{ name: 'default', context: { cluster: 'cluster', user: 'user' } }],
        'current-context': 'default',
      },
      null,
      2,
    ) + '\n'
  );
}

/**
 * Prepares a node before the control plane starts: its cgroup, the namespace holder and the veth
 * (the API server binds to the host's end of node 0's). start() then runs the daemons.
 */
export function prepareNode(p: Pick<StartNodeParams, 'net' | 'binDir' | 'dir'>) {
  const { net, dir } = p;
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const procsFiles = createCgroup(net.cgroup.slice(1));
  const env = { PATH: DAEMON_PATH, HOME: process.env.HOME ?? '/root' };
  const procs: Proc[] = [];
  const pidFile = path.join(dir, 'pids');
  const spawnIn = (name: string, argv: string[]) => {
    const { bin, args } = inCgroup(procsFiles, argv);
    const proc = startProc(name, bin, args, logs, env);
    procs.push(proc);
    if (proc.child.pid) fs.appendFileSync(pidFile, `${proc.child.pid}\n`);
    return proc;
  };
  const holder = spawnIn('holder', [
    'unshare',
    '--net',
    '--mount',
    '--propagation',
    'private',
    '--',
    path.join(p.binDir, 'pause'),
  ]);
  const holderPid = holder.child.pid;
  if (!holderPid) throw new Error(`test node ${net.name}: could not start the namespace holder`);
  // unshare execs pause once the namespaces exist: wait until the holder's netns differs from ours.
  const deadline = Date.now() + 10_000;
  const ours = nsInode(process.pid, 'net');
  for (;;) {
    let inode = '';
    try {
      inode = nsInode(holderPid, 'net');
    } catch {
      // not there yet
    }
    if (inode && inode !== ours && fs.readFileSync(`/proc/${holderPid}/cmdline`, 'utf8').includes('pause'))
      break;
    if (holder.exitCode !== undefined || Date.now() > deadline)
      throw new Error(`test node ${net.name}: the namespace holder did not start (see ${holder.log})`);
    sleepSync(10);
  }
  const namespaces = { net: nsInode(holderPid, 'net'), mnt: nsInode(holderPid, 'mnt') };

  // Shadow files for the kubelet's global sysctls, holding the host's values.
  const sysctlDir = path.join(dir, 'sysctl-shadow');
  fs.mkdirSync(sysctlDir, { recursive: true });
  const shadows = KUBELET_SYSCTLS.map((key) => {
    const file = path.join(sysctlDir, key.replace(/\//g, '.'));
    fs.writeFileSync(file, fs.readFileSync(`/proc/sys/${key}`));
    return `mount --bind ${file} /proc/sys/${key}`;
  });
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ip('link', 'add', net.hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', String(holderPid));
  ip('addr', 'add', `${net.hostIP}/30`, 'dev', net.hostLink);
  ip('link', 'set', net.hostLink, 'up');
  const setup = [
    'set -e',
    // private /run, /var/lib, /var/log for what containerd and the kubelet write outside their dirs
    'mount -t tmpfs -o mode=0755 clusterset-node /run',
    'mount -t tmpfs -o mode=0755 clusterset-node /var/lib',
    'mount -t tmpfs -o mode=0755 clusterset-node /var/log',
    ...shadows,
    'ip link set lo up',
    `ip addr add ${net.ip}/30 dev eth0`,
    'ip link set eth0 up',
    `ip route add default via ${net.hostIP}`,
    'echo 1 > /proc/sys/net/ipv4/ip_forward',
  ].join('\n');
  execFileSync('nsenter', [`--target=${holderPid}`, '--net', '--mount', '--', '/bin/sh', '-c', setup], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  return { holder, holderPid, namespaces, procs, spawnIn, env, logs };
}

export type PreparedNode = ReturnType<typeof prepareNode>;

/** Starts containerd, kubelet and kube-proxy in a prepared node; resolves when the Node is Ready. */
export async function startNode(p: StartNodeParams, prep: PreparedNode): Promise<TestNode> {
  const { net, dir, binDir, certs } = p;
  const { holderPid, procs, spawnIn } = prep;
  const t0 = Date.now();
  const timings = { containerd: 0, registered: 0, ready: 0, proxyRules: 0 };
  const nsArgs = [`--target=${holderPid}`, '--net', '--mount', '--'];
  const enter = (argv: string[]) => ['nsenter', ...nsArgs, ...argv];
  const d = (...segs: string[]) => path.join(dir, ...segs);
  const socket = d('containerd.sock');
  for (const sub of [
    'cni/net.d',
    'cni/ipam',
    'containerd',
    'kubelet',
    'pod-logs',
    'volume-plugins',
    'images',
  ])
    fs.mkdirSync(d(sub), { recursive: true });

  const pause = binaryImage(binDir, 'pause', d('images'));
  fs.writeFileSync(
    d('cni', 'template.json'),
    JSON.stringify(
      {
        cniVersion: '0.4.0',
        name: 'clusterset-test',
        plugins: [
          {
            type: 'bridge',
            bridge: 'cni0',
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: '{{.PodCIDR}}' }]],
              routes: [{ dst: '0.0.0.0/0' }],
              dataDir: d('cni', 'ipam'),
            },
          },
        ],
      },
      null,
      2,
    ),
  );
  const toml = (s: string) => JSON.stringify(s);
  fs.writeFileSync(
    d('containerd.toml'),
    `# containerd for test node ${net.name} (see test/kube/node.ts)
version = 2
root = ${toml(d('containerd', 'root'))}
state = ${toml(d('containerd', 'state'))}
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = ${toml(socket)}
[ttrpc]
  address = ${toml(socket + '.ttrpc')}
[plugins."io.containerd.internal.v1.opt"]
  path = ${toml(d('containerd', 'opt'))}
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${toml(pause.name)}
  # No CAP_SYS_RESOURCE here: never ask for an oom_score_adj below containerd's own.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = ${toml(d('containerd', 'runc'))}
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${toml(CNI_BIN_DIR)}
    conf_dir = ${toml(d('cni', 'net.d'))}
    conf_template = ${toml(d('cni', 'template.json'))}
`,
  );
  const containerd = spawnIn('containerd', enter(['/usr/bin/containerd', '--config', d('containerd.toml')]));
  const ctr = (args: string[], timeout = 120_000) =>
    execFileP('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args], {
      timeout,
      maxBuffer: 16 << 20,
      env: prep.env,
    });
  await waitFor(`${net.name}: containerd`, 30_000, procs, async () => {
    await ctr(['version'], 5000);
    return true;
  });
  const importImage = async (archive: string) => {
    try {
      await ctr(['images', 'import', '--all-platforms', archive]);
    } catch (e) {
      const err = e as { stderr?: string };
      throw new Error(`${net.name}: ctr images import ${archive} failed: ${err.stderr ?? String(e)}`);
    }
  };
  await importImage(pause.archive);
  timings.containerd = Date.now() - t0;

  const kubeletKubeconfig = d('kubelet.kubeconfig');
  fs.writeFileSync(
    kubeletKubeconfig,
    kubeconfigFile(p.server, certs.ca, certs.kubeletClientCert, certs.kubeletClientKey),
  );
  const kubeProxyKubeconfig = d('kube-proxy.kubeconfig');
  fs.writeFileSync(
    kubeProxyKubeconfig,
    kubeconfigFile(p.server, certs.ca, certs.kubeProxyCert, certs.kubeProxyKey),
  );
  const kubeletConfig = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: net.ip,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    tlsCertFile: certs.kubeletServingCert,
    tlsPrivateKeyFile: certs.kubeletServingKey,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: certs.ca },
    },
    authorization: { mode: 'Webhook' },
    cgroupDriver: 'cgroupfs',
    cgroupRoot: net.cgroup,
    containerRuntimeEndpoint: `unix://${socket}`,
    podLogsDir: d('pod-logs'),
    volumePluginDir: d('volume-plugins'),
    failSwapOn: false,
    // The kubelet's own oom_score_adj (default -999) needs CAP_SYS_RESOURCE, which this machine
    // withholds.
    oomScoreAdj: 0,
    maxPods: 60,
    resolvConf: '/etc/resolv.conf',
    // Never garbage-collect imported images (they cannot be pulled again); evict only when the
    // shared disk is really full.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
      'imagefs.inodesFree': '1%',
    },
    nodeStatusUpdateFrequency: '5s',
    rotateCertificates: false,
    serverTLSBootstrap: false,
    registerNode: true,
  };
  fs.writeFileSync(d('kubelet.yaml'), JSON.stringify(kubeletConfig, null, 2) + '\n');
  const kubeProxyConfig = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    mode: 'iptables',
    clientConnection: { kubeconfig: kubeProxyKubeconfig },
    hostnameOverride: net.name,
    bindAddress: net.ip,
    clusterCIDR: p.clusterCIDR,
    healthzBindAddress: '127.0.0.1:10256',
    metricsBindAddress: '127.0.0.1:10249',
    // 0 leaves nf_conntrack_max (global) and the conntrack timeouts alone.
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
      udpTimeout: '0s',
      udpStreamTimeout: '0s',
    },
    iptables: { localhostNodePorts: false, syncPeriod: '30s', minSyncPeriod: '0s' },
  };
  fs.writeFileSync(d('kube-proxy.yaml'), JSON.stringify(kubeProxyConfig, null, 2) + '\n');
  spawnIn(
    'kubelet',
    enter([
      path.join(binDir, 'kubelet'),
      `--config=${d('kubelet.yaml')}`,
      `--kubeconfig=${kubeletKubeconfig}`,
      `--root-dir=${d('kubelet')}`,
      `--hostname-override=${net.name}`,
      `--node-ip=${net.ip}`,
      '--v=1',
    ]),
  );
  spawnIn(
    'kube-proxy',
    enter([path.join(binDir, 'kube-proxy'), `--config=${d('kube-proxy.yaml')}`, '--v=1']),
  );

  let podCIDR = '';
  let routed = false;
  await waitFor(`${net.name}: Node Ready without taints`, p.timeoutMs, procs, async () => {
    const node = await p.getNode();
    if (!node) return false;
    timings.registered ||= Date.now() - t0;
    podCIDR = node.spec?.podCIDR ?? '';
    if (podCIDR && !routed) {
      execFileSync('ip', ['route', 'add', podCIDR, 'via', net.ip, 'dev', net.hostLink], { stdio: 'ignore' });
      routed = true;
    }
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    return ready?.status === 'True' && !(node.spec?.taints ?? []).length && routed;
  });
  timings.ready = Date.now() - t0;
  // kube-proxy has written the `kubernetes` Service's DNAT (Pods reach the API server through it).
  await waitFor(`${net.name}: kube-proxy rules for default/kubernetes`, p.timeoutMs, procs, async () => {
    const { stdout } = await execFileP('nsenter', [...nsArgs, 'iptables-save', '-t', 'nat'], {
      env: prep.env,
    });
    return stdout.includes('default/kubernetes:https') && stdout.includes('-j DNAT');
  });
  timings.proxyRules = Date.now() - t0;

  let stopped = false;
  const stopSync = () => {
    if (stopped) return;
    stopped = true;
    abandonNode(net, prep);
  };
  return {
    name: net.name,
    ip: net.ip,
    hostIP: net.hostIP,
    hostLink: net.hostLink,
    podCIDR,
    cgroup: net.cgroup,
    containerdSocket: socket,
    dir,
    logs: {
      containerd: containerd.log,
      kubelet: path.join(prep.logs, 'kubelet.log'),
      kubeProxy: path.join(prep.logs, 'kube-proxy.log'),
    },
    pauseImage: pause.name,
    timings,
    holderPid,
    namespaces: prep.namespaces,
    importImage,
    exec: async (cmd) => {
      const { stdout } = await execFileP('nsenter', [...nsArgs, ...cmd], {
        maxBuffer: 64 << 20,
        env: prep.env,
      });
      return stdout;
    },
    stop: async () => {
      if (stopped) return;
      // The kubelet and kube-proxy first, then containerd; the holder and every container go with
      // the cgroup.
      const daemons = procs.filter((x) => x !== prep.holder);
      await stopProcs(daemons);
      stopSync();
      await sleep(0);
    },
    stopSync,
  };
}

/**
 * Removes the host end of the node's veth once its processes are gone. The kernel frees a network
 * namespace only when nothing refers to it: TCP sockets orphaned by SIGKILL (FIN retransmits to a
 * Pod whose namespace is gone) hold it, and with it the veth, for minutes. Deleting the host end
 * removes the pair (and the route through it) at once; such a namespace has no process, no
 * interface but lo and no name, and goes when its timers run out.
 */
function dropLinkSync(hostLink: string, holderPid: number | undefined): void {
  const deadline = Date.now() + 2000;
  const present = () => fs.existsSync(`/sys/class/net/${hostLink}`);
  while (((holderPid && isLive(holderPid)) || present()) && Date.now() < deadline) sleepSync(20);
  if (present()) {
    try {
      execFileSync('ip', ['link', 'del', hostLink], { stdio: 'ignore' });
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Kills every process of a node (its daemons by process group, then everything in its cgroup),
 * drops its veth and removes its cgroups. Synchronous (exit handlers) and never throws: each step
 * runs even if one before it failed.
 */
export function abandonNode(net: NodeNet, prep: PreparedNode | undefined): void {
  const steps: [string, () => void][] = [
    [
      'kill daemons',
      () => {
        for (const proc of prep?.procs ?? [])
          if (proc.exitCode === undefined) killGroup(proc.child.pid, 'SIGKILL');
      },
    ],
    ['kill cgroup', () => killCgroup(net.cgroup.slice(1))],
    ['drop veth', () => dropLinkSync(net.hostLink, prep?.holderPid)],
    ['remove cgroup', () => removeCgroup(net.cgroup.slice(1))],
  ];
  for (const [what, step] of steps) {
    try {
      step();
    } catch (e) {
      process.stderr.write(`test/kube: node ${net.name}: ${what} failed: ${String(e)}\n`);
    }
  }
}
