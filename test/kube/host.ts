// What a test node could change on the host, read from the host's own view (its network namespace,
// its mount namespace, /proc/sys, the cgroup hierarchies), so that tests can assert it is as before.
//
// The machine is shared with other jobs (container builds, other test runs), so mounts, links,
// cgroups and iptables rules are compared among those a node could create (its names, its address
// ranges), not as a whole; sysctls and named network namespaces are compared whole.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KUBELET_SYSCTLS, cgroupMounts } from './node';

/** Per-network-namespace sysctls the kubelet, kube-proxy or CNI plugins set (the host's values). */
export const NETNS_SYSCTLS = [
  'net/ipv4/ip_forward',
  'net/ipv4/conf/all/route_localnet',
  'net/ipv4/conf/all/forwarding',
  'net/ipv6/conf/all/forwarding',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
  'net/netfilter/nf_conntrack_max',
  'net/netfilter/nf_conntrack_tcp_timeout_established',
  'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
  'net/netfilter/nf_conntrack_tcp_be_liberal',
];

/** Mount points a node could create on the host if it leaked one. */
const MOUNT_PREFIXES = [
  '/run',
  '/var/run',
  '/var/lib',
  '/var/log',
  '/proc/sys',
  '/tmp',
  '/sys/fs/cgroup',
  '/usr/libexec/kubernetes',
  '/opt',
  '/etc/cni',
];

export interface HostState {
  sysctls: Record<string, string>;
  /**
   * Lines of iptables-save and ip6tables-save (every table, counters dropped) that a node could
   * write: KUBE-* chains, its address ranges, its interfaces, its CNI network.
   */
  iptables: string;
  /** "mountpoint fstype source" of mounts under MOUNT_PREFIXES. */
  mounts: string[];
  /** Network interfaces: those a node could create (csn*, cni*, veth*). */
  links: string[];
  /** Routes to 10.200.0.0/16 and 10.244.0.0/16 (the node links and Pod CIDRs). */
  routes: string[];
  /** Named network namespaces (ip netns) and files in /run/netns. */
  netns: string[];
  /** Top-level cgroups a node could create (clusterset-node-*, kubepods*), per hierarchy. */
  cgroups: string[];
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '(absent)';
  }
}

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return `(${cmd} failed: ${String((e as { stderr?: string }).stderr ?? e)})`;
  }
}

const NODE_RULE = /KUBE-|10\.(96|200|244)\.|\bcni0\b|\bcsn\d|clusterset/;

function iptables(): string {
  const out: string[] = [];
  for (const cmd of ['iptables-save', 'ip6tables-save']) {
    out.push(`# ${cmd}`);
    for (const line of run(cmd, []).split('\n')) {
      if (!line || line.startsWith('#') || !NODE_RULE.test(line)) continue;
      out.push(line.replace(/\[\d+:\d+\]/g, '[]'));
    }
  }
  return out.join('\n');
}

export function hostState(): HostState {
  const sysctls: Record<string, string> = {};
  for (const k of [...KUBELET_SYSCTLS, ...NETNS_SYSCTLS]) sysctls[k] = read(`/proc/sys/${k}`);
  const mounts: string[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) continue;
    const mp = pre.split(' ')[4]!;
    const [fstype, source] = post.split(' ');
    if (MOUNT_PREFIXES.some((p) => mp === p || mp.startsWith(p + '/')))
      mounts.push(`${mp} ${fstype} ${source}`);
  }
  const links = fs
    .readdirSync('/sys/class/net')
    .filter((l) => /^(csn|cni|veth)/.test(l))
    .sort();
  const routes = run('ip', ['route'])
    .split('\n')
    .filter((r) => /^10\.(200|244)\./.test(r))
    .sort();
  const netns = [
    ...run('ip', ['netns', 'list'])
      .split('\n')
      .filter(Boolean)
      .map((n) => `ip netns: ${n}`),
    ...(fs.existsSync('/run/netns') ? fs.readdirSync('/run/netns').map((n) => `/run/netns/${n}`) : []),
  ].sort();
  const cgroups: string[] = [];
  for (const m of cgroupMounts()) {
    for (const e of fs.readdirSync(m)) {
      if (/^(clusterset-node-|kubepods)/.test(e) && fs.statSync(path.join(m, e)).isDirectory())
        cgroups.push(path.join(m, e));
    }
  }
  return {
    sysctls,
    iptables: iptables(),
    mounts: mounts.sort(),
    links,
    routes,
    netns,
    cgroups: cgroups.sort(),
  };
}

/** Every difference between two snapshots, as readable lines (empty: the same). */
export function diffHostState(before: HostState, after: HostState): string[] {
  const out: string[] = [];
  for (const k of Object.keys(before.sysctls)) {
    if (before.sysctls[k] !== after.sysctls[k])
      out.push(`sysctl ${k}: ${before.sysctls[k]} -> ${after.sysctls[k]}`);
  }
  if (before.iptables !== after.iptables) {
    const a = new Set(before.iptables.split('\n'));
    const b = new Set(after.iptables.split('\n'));
    for (const l of a) if (!b.has(l)) out.push(`iptables removed: ${l}`);
    for (const l of b) if (!a.has(l)) out.push(`iptables added: ${l}`);
    if (out.length === 0) out.push('iptables: order changed');
  }
  for (const key of ['mounts', 'links', 'routes', 'netns', 'cgroups'] as const) {
    const a = new Set(before[key]);
    const b = new Set(after[key]);
    for (const x of a) if (!b.has(x)) out.push(`${key} removed: ${x}`);
    for (const x of b) if (!a.has(x)) out.push(`${key} added: ${x}`);
  }
  return out;
}

/** A process identity that survives pid reuse: "<pid> <start time>". */
export function processId(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : `${pid} ${fields[19]}`;
  } catch {
    return undefined;
  }
}

/** The identities (see processId) that are still live processes (not zombies). */
export function stillRunning(ids: Iterable<string>): string[] {
  return [...ids].filter((id) => processId(Number(id.split(' ')[0])) === id);
}

/** Pids of live processes whose network namespace is one of inodes ('net:[4026532...]'). */
export function processesInNetns(inodes: Set<string>): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (inodes.has(fs.readlinkSync(`/proc/${e}/ns/net`))) out.push(Number(e));
    } catch {
      // exited
    }
  }
  return out;
}

/** Pids of live processes whose command line mentions text. */
export function processesMentioning(text: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(text)) out.push(Number(e));
    } catch {
      // exited
    }
  }
  return out;
}
