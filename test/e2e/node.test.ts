// End-to-end: a real node in a test cluster (test/kube/node.ts), no mocks: kubelet, kube-proxy
// (iptables mode) and kube-scheduler v1.34.4 built from the Go module proxy, Debian's containerd 1.6
// with runc and the CNI bridge plugin, and images made here (the pause image and test/kube/testpod,
// both FROM scratch). It proves what the reconciler's Deployment will rely on:
//  - the Node registers, becomes Ready and loses the not-ready taint; the scheduler binds a Pod to it;
//  - the Pod is the reconciler Deployment's Pod template as synth renders it (read-only root, 65532,
//    no capabilities, no privilege escalation, seccomp RuntimeDefault, its memory limit, ServiceAccount,
//    emptyDir and ConfigMap volume, HTTP liveness and readiness probes) with the test image and
//    arguments; inside, the container sees exactly those constraints, and the probes pass;
//  - from inside, with in-cluster config, it reads an object only its own ServiceAccount may read;
//    the test reads that in its logs through pods/log; the host reaches the Pod's IP, directly and
//    through the API server's pods/proxy;
//  - a container that exceeds its memory limit is OOMKilled;
//  - deleting a Pod sends SIGTERM and the kubelet reports the exit code;
//  - after the node stops, the host is as before: sysctls, iptables, mounts, cgroups, network
//    namespaces and interfaces, processes.
//
// Clusters start inside the first test, not in before(): uvu swallows before() errors.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cluster, Response } from '../kube/cluster';
import { kubeBinaries, reapOrphans, request, startClusters, stopAll } from '../kube/cluster';
import type { HostState } from '../kube/host';
import type { PodStatus } from '../kube/objects';
import {
  diffHostState,
  hostState,
  processId,
  processesInNetns,
  processesMentioning,
  stillRunning,
} from '../kube/host';
import type { NodeImage, TestNode } from '../kube/node';
import {
  NODE_REGISTRY,
  binaryImage,
  cgroupMounts,
  cgroupPids,
  containerMemoryCgroup,
  reapNodes,
} from '../kube/node';
import { eventually, sleep } from '../kube/wait';
import { memoryBytes } from '../../lib/quantity';
import * as yaml from 'js-yaml';

const NS = 'node-e2e';
/**
 * The reconciler Deployment as synth renders it (example dual-role, which test/golden.test.ts
 * keeps equal to the render): the test Pods are its Pod template with the test image and arguments.
 */
const RENDERED_DEPLOYMENT = path.join(
  __dirname,
  '..',
  '..',
  'examples',
  'dual-role',
  'out',
  'clusters',
  'hub',
  'antrea-multicluster',
  'Deployment.clusterset-reconciler.yaml',
);
const NONCE = randomBytes(12).toString('hex');
const GREETING = `hello from the ConfigMap volume ${randomBytes(4).toString('hex')}\n`;
const TERM_EXIT_CODE = 42;

const OOM_LIMIT_MIB = 48;

interface Ctx {
  cluster: Cluster;
  node: TestNode;
  image: NodeImage;
  before: HostState;
  startMs: number;
}

/** The host's state once what startClusters would reap (a runner killed earlier) is gone. */
function cleanHostState(): HostState {
  reapNodes();
  reapOrphans();
  return hostState();
}

let started: Promise<Ctx> | undefined;
function ctx(): Promise<Ctx> {
  started ??= (async () => {
    // What startClusters would reap (a runner killed earlier) is not this run's doing.
    const before = cleanHostState();
    const t0 = Date.now();
    const clusters = await startClusters(['leader'], { nodes: ['leader'] });
    const startMs = Date.now() - t0;
    const cluster = clusters.get('leader')!;
    const node = cluster.node;
    if (!node) throw new Error('the leader cluster has no node');
    fs.mkdirSync(path.join(cluster.dir, 'images'), { recursive: true });
    const image = binaryImage(kubeBinaries().dir, 'testpod', path.join(cluster.dir, 'images'), {
      user: '65532:65532',
    });
    await node.importImage(image.archive);
    return { cluster, node, image, before, startMs };
  })();
  return started;
}

async function api(
  c: Cluster,
  method: string,
  urlPath: string,
  body?: unknown,
  type?: string,
): Promise<Response> {
  const res = await request(c.admin, method, urlPath, body, type);
  if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${res.body}`);
  return res;
}

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[] };
  spec: { nodeName?: string };
  status?: PodStatus;
}

async function getPod(c: Cluster, name: string): Promise<Pod | undefined> {
  const res = await request(c.admin, 'GET', `/api/v1/namespaces/${NS}/pods/${name}`);
  return res.status === 200 ? (res.json as Pod) : undefined;
}

/** The container's log lines (JSON, one object a line) through the API server's pods/log. */
async function podLog(c: Cluster, name: string): Promise<Record<string, unknown>[]> {
  const res = await api(
    c,
    'GET',
    `/api/v1/namespaces/${NS}/pods/${name}/log?container=${template().container.name}`,
  );
  return res.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function logEntry(lines: Record<string, unknown>[], msg: string): Record<string, unknown> {
  const e = lines.find((l) => l.msg === msg);
  if (!e) throw new Error(`no "${msg}" line in the log:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
  return e;
}

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}

/** testpod_requests_total{path,agent} from the Pod's /metrics. */
function probeCount(metrics: string, p: string, agentPrefix: string): number {
  let n = 0;
  for (const line of metrics.split('\n')) {
    const m = /^testpod_requests_total\{path="([^"]*)",agent="([^"]*)"\} (\d+)$/.exec(line);
    if (m && m[1] === p && m[2]!.startsWith(agentPrefix)) n += Number(m[3]);
  }
  return n;
}

interface Container {
  name: string;
  image: string;
  args: string[];
  resources: { limits: { memory: string }; requests?: Record<string, string> };
  volumeMounts: { name: string; mountPath: string }[];
  livenessProbe?: { periodSeconds?: number };
  readinessProbe?: unknown;
}
interface PodSpec {
  serviceAccountName: string;
  containers: Container[];
  volumes: { name: string; configMap?: { name: string } }[];
  restartPolicy?: string;
}

let rendered: { labels: Record<string, string>; spec: PodSpec } | undefined;

/** The rendered Pod template, and what the tests need to know of it. */
function template() {
  if (!rendered) {
    const d = yaml.load(fs.readFileSync(RENDERED_DEPLOYMENT, 'utf8')) as {
      spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
    };
    rendered = { labels: d.spec.template.metadata.labels, spec: d.spec.template.spec };
  }
  const container = rendered.spec.containers[0]!;
  const configVolume = rendered.spec.volumes.find((v) => v.configMap)!;
  const configMount = container.volumeMounts.find((m) => m.name === configVolume.name)!;
  return { spec: rendered.spec, labels: rendered.labels, container, configVolume, configMount };
}

/**
 * A Pod from the rendered template (security contexts, ServiceAccount, volumes, probes, resources)
 * with the test image and its arguments; without probes and with another memory limit if asked.
 */
function testPod(
  name: string,
  image: string,
  args: string[],
  opts: { memoryLimit?: string; probes?: boolean } = {},
) {
  const t = template();
  const spec = structuredClone(t.spec);
  const c = spec.containers[0]!;
  c.image = image;
  c.args = args;
  if (opts.memoryLimit) c.resources.limits.memory = opts.memoryLimit;
  if (opts.probes === false) {
    delete c.livenessProbe;
    delete c.readinessProbe;
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { ...t.labels } }, spec };
}

// Recorded while the node runs, checked after it stops.
const seen = { procs: new Set<string>(), netns: new Set<string>() };

function recordNodeProcesses(node: TestNode): void {
  for (const pid of cgroupPids(node.cgroup.slice(1))) {
    const id = processId(pid);
    if (id) seen.procs.add(id);
    try {
      seen.netns.add(fs.readlinkSync(`/proc/${pid}/ns/net`));
    } catch {
      // exited
    }
  }
  seen.netns.add(node.namespaces.net);
}

// ---------------------------------------------------------------------------------------------------

const Node = suite('node');

Node(
  'GIVEN a cluster asking for a node WHEN started THEN the Node is Ready, untainted, with its Pod CIDR',
  async () => {
    const { cluster, node, startMs } = await ctx();
    const t = node.timings;
    process.stdout.write(
      `\n  node start-up: startClusters(['leader'], { nodes: ['leader'] }) ${startMs} ms; after the control plane: ` +
        `containerd up and pause imported ${t.containerd} ms, Node registered ${t.registered} ms, ` +
        `Ready and untainted ${t.ready} ms, kube-proxy rules ${t.proxyRules} ms\n`,
    );
    const res = await api(cluster, 'GET', `/api/v1/nodes/${node.name}`);
    const n = res.json as {
      spec: { podCIDR?: string; taints?: unknown[] };
      status: {
        conditions: { type: string; status: string }[];
        addresses: { type: string; address: string }[];
        nodeInfo: { kubeletVersion: string; kubeProxyVersion: string; containerRuntimeVersion: string };
      };
    };
    assert.is(n.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    for (const t of ['MemoryPressure', 'DiskPressure', 'PIDPressure'])
      assert.is(n.status.conditions.find((c) => c.type === t)?.status, 'False', t);
    assert.equal(n.spec.taints ?? [], []);
    assert.is(n.spec.podCIDR, node.podCIDR);
    assert.ok(/^10\.244\.\d+\.0\/26$/.test(node.podCIDR), node.podCIDR);
    assert.equal(
      n.status.addresses.find((a) => a.type === 'InternalIP'),
      { type: 'InternalIP', address: node.ip },
    );
    assert.is(n.status.nodeInfo.kubeletVersion, cluster.version);
    assert.ok(n.status.nodeInfo.containerRuntimeVersion.startsWith('containerd://1.6.'));
    // The API server serves on the host's end of the node's veth, and the kubernetes Service points there.
    assert.is(cluster.server.startsWith(`https://${node.hostIP}:`), true, cluster.server);
    const ep = await api(cluster, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    assert.match(ep.body, `"ip":"${node.hostIP}"`);
  },
);

Node(
  'GIVEN a running node THEN the host kernel settings and iptables are untouched while it runs',
  async () => {
    const { before } = await ctx();
    // The kubelet "sets" vm.overcommit_memory and kernel.panic*: into shadow files of its own mount
    // namespace. The host's values, and the host network namespace's iptables, do not move.
    const now = hostState();
    assert.equal(now.sysctls, before.sysctls);
    assert.is(now.iptables, before.iptables);
  },
);

Node(
  'GIVEN the test image WHEN a Pod with the Deployment constraints is created THEN the scheduler binds it to the node and it becomes Ready',
  async () => {
    const { cluster, node, image } = await ctx();
    await api(cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NS },
    });
    const t = template();
    await api(cluster, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: t.spec.serviceAccountName },
    });
    for (const [name, data] of [
      [t.configVolume.configMap!.name, { 'config.json': GREETING }],
      ['for-testpod', { nonce: NONCE }],
    ] as const) {
      await api(cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data,
      });
    }
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await api(cluster, 'POST', `${rbac}/namespaces/${NS}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'read-for-testpod' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['for-testpod'], verbs: ['get'] }],
    });
    await api(cluster, 'POST', `${rbac}/namespaces/${NS}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'read-for-testpod' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-for-testpod' },
      subjects: [{ kind: 'ServiceAccount', name: t.spec.serviceAccountName, namespace: NS }],
    });
    const pod = testPod('server', image.name, [
      'serve',
      '--listen',
      ':8080',
      '--config',
      `${t.configMount.mountPath}/config.json`,
      '--get',
      `/api/v1/namespaces/${NS}/configmaps/for-testpod`,
    ]);
    // Held by a finalizer so that its final status can be read after deletion (SIGTERM test).
    (pod.metadata as { finalizers?: string[] }).finalizers = ['clusterset.test/hold'];
    const t0 = Date.now();
    await api(cluster, 'POST', `/api/v1/namespaces/${NS}/pods`, pod);
    const ready = await eventually(
      'Pod server Ready',
      async () => {
        const p = await getPod(cluster, 'server');
        return p?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? p : undefined;
      },
      120_000,
      250,
    );
    process.stdout.write(`\n  Pod created -> Ready: ${Date.now() - t0} ms\n`);
    assert.is(ready.spec.nodeName, node.name);
    assert.is(ready.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
    const events = await api(
      cluster,
      'GET',
      `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name=server`,
    );
    const reasons = (events.json as { items: { reason: string; source?: { component?: string } }[] }).items;
    assert.ok(
      reasons.some((e) => e.reason === 'Scheduled'),
      'a Scheduled event from kube-scheduler',
    );
    const cs = ready.status!.containerStatuses![0]!;
    assert.is(cs.restartCount, 0);
    assert.ok(cs.state?.running, 'running');
    assert.ok(
      ready.status?.podIP?.startsWith(node.podCIDR.split('.').slice(0, 3).join('.') + '.'),
      ready.status?.podIP,
    );
    recordNodeProcesses(node);
  },
);

Node(
  'GIVEN the running Pod THEN inside the container the security context and both volumes hold',
  async () => {
    const { cluster } = await ctx();
    const c = logEntry(await podLog(cluster, 'server'), 'container');
    assert.is(c.uid, 65532);
    assert.is(c.euid, 65532);
    assert.is(c.gid, 65532);
    for (const k of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'])
      assert.is(c[k], '0000000000000000', k);
    assert.is(c.NoNewPrivs, '1');
    assert.is(c.Seccomp, '2', 'seccomp filter mode (RuntimeDefault)');
    assert.match(String(c.rootfs_write), 'read-only file system');
    assert.is(c.tmp_write, 'ok', 'the emptyDir at /tmp is writable');
    assert.is(c.config, GREETING, 'the ConfigMap volume');
  },
);

Node(
  'GIVEN the running Pod THEN with in-cluster config it reads, as its own ServiceAccount, an object only that ServiceAccount may read',
  async () => {
    const { cluster } = await ctx();
    const lines = await podLog(cluster, 'server');
    assert.is(logEntry(lines, 'in-cluster config').server, 'https://10.96.0.1:443');
    const who = logEntry(lines, 'whoami');
    assert.is(who.status, 201);
    assert.is(who.username, `system:serviceaccount:${NS}:${template().spec.serviceAccountName}`);
    const got = logEntry(lines, 'get');
    assert.is(got.status, 200);
    assert.is((got.object as { data?: { nonce?: string } }).data?.nonce, NONCE);
    // The same GET with the namespace's default ServiceAccount is refused: the Role is what lets it.
    const tr = await api(cluster, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts/default/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 600 },
    });
    const token = (tr.json as { status: { token: string } }).status.token;
    const other = await request(
      { server: cluster.server, ca: cluster.caPem, token },
      'GET',
      `/api/v1/namespaces/${NS}/configmaps/for-testpod`,
    );
    assert.is(other.status, 403);
  },
);

Node(
  'GIVEN the running Pod THEN its probes pass and the host reaches it directly and through pods/proxy',
  async () => {
    const { cluster } = await ctx();
    const pod = (await getPod(cluster, 'server'))!;
    const url = `http://${pod.status!.podIP}:8080/metrics`;
    const direct = await httpGet(url);
    assert.is(direct.status, 200);
    assert.ok(probeCount(direct.body, '/readyz', 'kube-probe/1.34') >= 1, direct.body);
    // The rendered liveness probe (every 10 s) keeps hitting /healthz, from the kubelet.
    const metrics = await eventually(
      'two liveness probes',
      async () => {
        const m = await httpGet(url);
        return probeCount(m.body, '/healthz', 'kube-probe/1.34') >= 2 ? m.body : undefined;
      },
      60_000,
      500,
    );
    assert.ok(probeCount(metrics, '/readyz', 'kube-probe/1.34') >= 2, metrics);
    const proxied = await api(cluster, 'GET', `/api/v1/namespaces/${NS}/pods/server:8080/proxy/metrics`);
    assert.ok(probeCount(proxied.body, '/metrics', '') >= 2, proxied.body);
    const again = (await getPod(cluster, 'server'))!;
    assert.is(again.status!.containerStatuses![0]!.restartCount, 0, 'no liveness failure restarted it');
    assert.is(again.status!.conditions!.find((c) => c.type === 'Ready')?.status, 'True');
  },
);

Node(
  'GIVEN a container that allocates past its memory limit THEN the limit holds and it is OOMKilled',
  async () => {
    const { cluster, node, image } = await ctx();
    // The running server's memory cgroup carries its limit.
    const server = (await getPod(cluster, 'server'))!;
    const cid = server.status!.containerStatuses![0]!.containerID!.replace('containerd://', '');
    // cgroup v1 (this machine): memory.limit_in_bytes in the memory hierarchy; v2: memory.max.
    const { limitFile } = containerMemoryCgroup(node, cid);
    assert.is(
      Number(fs.readFileSync(limitFile, 'utf8')),
      memoryBytes(template().container.resources.limits.memory),
    );

    const pod = testPod('hog', image.name, ['oom', '--step-mib', '4'], {
      memoryLimit: `${OOM_LIMIT_MIB}Mi`,
      probes: false,
    });
    pod.spec.containers[0]!.resources.requests = { memory: `${OOM_LIMIT_MIB}Mi` };
    pod.spec.restartPolicy = 'Never';
    await api(cluster, 'POST', `/api/v1/namespaces/${NS}/pods`, pod);
    const done = await eventually(
      'Pod hog terminated',
      async () => {
        const p = await getPod(cluster, 'hog');
        return p?.status?.containerStatuses?.[0]?.state?.terminated && p.status.phase === 'Failed'
          ? p
          : undefined;
      },
      120_000,
      250,
    );
    recordNodeProcesses(node);
    const term = done.status!.containerStatuses![0]!.state!.terminated!;
    assert.is(term.reason, 'OOMKilled');
    assert.is(term.exitCode, 137);
    assert.is(done.status!.phase, 'Failed');
    const allocated = (await podLog(cluster, 'hog'))
      .filter((l) => l.msg === 'allocated')
      .map((l) => Number(l.mib));
    const most = Math.max(...allocated);
    assert.ok(
      most >= 16 && most <= OOM_LIMIT_MIB,
      `last allocation logged: ${most} MiB of ${OOM_LIMIT_MIB} MiB`,
    );
  },
);

Node(
  'GIVEN the running Pod WHEN it is deleted THEN its process gets SIGTERM and the kubelet reports its exit code',
  async () => {
    const { cluster } = await ctx();
    await api(cluster, 'DELETE', `/api/v1/namespaces/${NS}/pods/server`);
    const gone = await eventually(
      'the server container terminated',
      async () => {
        const p = await getPod(cluster, 'server');
        return p?.status?.containerStatuses?.[0]?.state?.terminated ? p : undefined;
      },
      60_000,
      250,
    );
    assert.ok(gone.metadata.deletionTimestamp, 'being deleted');
    const term = gone.status!.containerStatuses![0]!.state!.terminated!;
    assert.is(
      term.exitCode,
      TERM_EXIT_CODE,
      'the exit code the program chose after SIGTERM (not 137 or 143)',
    );
    // Written by the program on SIGTERM, reported by the kubelet (its logs may be gone by now: the
    // kubelet removes the containers of a deleted Pod).
    assert.is(term.message, 'testpod: got terminated\n');
    await api(
      cluster,
      'PATCH',
      `/api/v1/namespaces/${NS}/pods/server`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await eventually('Pod server removed', async () =>
      (await getPod(cluster, 'server')) ? undefined : true,
    );
  },
);

Node('GIVEN the node WHEN it stops THEN the host is as before', async () => {
  const { node, before } = await ctx();
  recordNodeProcesses(node);
  assert.ok(seen.procs.size >= 5, `node processes seen: ${[...seen.procs].join(', ')}`);
  assert.ok(seen.netns.size >= 2, 'the node netns and at least one Pod netns');
  const t0 = Date.now();
  await node.stop();
  process.stdout.write(`\n  node stop: ${Date.now() - t0} ms\n`);
  const after = hostState();
  assert.equal(diffHostState(before, after), []);
  assert.equal(stillRunning(seen.procs), [], 'no process of the node is left');
  assert.equal(processesMentioning(node.dir), [], 'no process mentions the node directory');
  assert.equal(processesInNetns(seen.netns), [], 'no process is in the node or Pod network namespaces');
  assert.is(fs.existsSync(`/sys/class/net/${node.hostLink}`), false, 'the veth is gone');
  const mountinfo = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  assert.not.match(mountinfo, node.dir, 'no host mount under the node directory');
  for (const m of cgroupMounts())
    assert.is(fs.existsSync(path.join(m, node.cgroup)), false, `${m}${node.cgroup}`);
});

Node.after(async () => {
  await stopAll();
});

Node.run();

// ---------------------------------------------------------------------------------------------------
// A runner that dies: test/e2e/node-runner.ts starts a cluster with two nodes and a Pod on the
// second, then is killed.

const ROOT = path.resolve(__dirname, '..', '..');
const RUNNER = path.join(__dirname, 'node-runner.ts');

interface RunnerInfo {
  pid: number;
  dir: string;
  nodes: { name: string; cgroup: string; hostLink: string; dir: string; net: string }[];
}

interface Runner {
  child: ChildProcess;
  info: RunnerInfo;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Identities of every process in the nodes' cgroups, and their network namespaces. */
  procs: Set<string>;
  netns: Set<string>;
  /** Identities of the long-lived ones: containerd, kubelet, kube-proxy, pause, testpod. */
  daemons: Set<string>;
}

async function startRunner(): Promise<Runner> {
  // node itself (not the tsx wrapper, which would take the SIGKILL and leave the runner alive).
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`node-runner did not start in 240 s:\n${stderr}`)),
      240_000,
    );
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`node-runner exited (${code}) before it was ready:\n${stderr}`));
    });
  });
  const info = JSON.parse(line) as RunnerInfo;
  const procs = new Set<string>();
  const daemons = new Set<string>();
  const netns = new Set(info.nodes.map((n) => n.net));
  for (const n of info.nodes) {
    for (const pid of cgroupPids(n.cgroup.slice(1))) {
      const id = processId(pid);
      if (!id) continue;
      procs.add(id);
      try {
        netns.add(fs.readlinkSync(`/proc/${pid}/ns/net`));
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
        if (/\/(containerd|kubelet|kube-proxy|pause|testpod)$/.test(cmd)) daemons.add(id);
      } catch {
        // exited
      }
    }
  }
  return { child, info, exited, procs, netns, daemons };
}

/** Everything of the runner is gone and the host is as before it started. */
function assertGone(r: Runner, before: HostState): void {
  assert.equal(stillRunning(r.procs), [], 'no process of the nodes is left');
  assert.equal(
    processesMentioning(r.info.dir),
    [],
    'no process of the runner (control plane included) is left',
  );
  assert.equal(processesInNetns(r.netns), [], "no process is in the nodes' or Pods' network namespaces");
  assert.equal(diffHostState(before, hostState()), []);
  for (const n of r.info.nodes) {
    const slot = /^csn(\d+)-/.exec(n.hostLink)![1];
    assert.is(fs.existsSync(path.join(NODE_REGISTRY, `slot-${slot}`)), false, `slot ${slot} released`);
  }
  assert.is(fs.existsSync(r.info.dir), false, "the runner's directory is removed");
}

const Cleanup = suite('node cleanup');

Cleanup(
  'GIVEN a runner with two nodes and a Pod WHEN it is killed with SIGKILL THEN its nodes run on until the next run reaps them, leaving the host as before',
  async () => {
    const before = cleanHostState();
    const r = await startRunner();
    // containerd, kubelet, kube-proxy and the holder per node; the sandbox and the container.
    assert.ok(r.daemons.size >= 2 * 4 + 2, `long-lived node processes: ${[...r.daemons].join(', ')}`);
    r.child.kill('SIGKILL');
    assert.is((await r.exited).signal, 'SIGKILL');
    await sleep(500);
    assert.equal(stillRunning(r.daemons), [...r.daemons], 'orphaned: the nodes outlive their runner');
    const t0 = Date.now();
    reapNodes();
    reapOrphans();
    process.stdout.write(`\n  reaping a SIGKILLed runner's cluster and two nodes: ${Date.now() - t0} ms\n`);
    assertGone(r, before);
  },
);

Cleanup(
  'GIVEN a runner with two nodes and a Pod WHEN it gets SIGTERM THEN its exit handler removes the nodes, leaving the host as before',
  async () => {
    const before = cleanHostState();
    const r = await startRunner();
    r.child.kill('SIGTERM');
    assert.is((await r.exited).code, 143);
    assertGone(r, before);
  },
);

Cleanup.run();
