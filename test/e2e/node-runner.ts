// A test runner that node.test.ts kills: it starts a cluster with two nodes, runs a Pod on the second,
// prints one JSON line describing what it started, and waits to be killed (SIGKILL: the next run
// must reap it; SIGTERM: its own handler must clean up).
//
//   tsx test/e2e/node-runner.ts

import { kubeBinaries, request, startClusters } from '../kube/cluster';
import { binaryImage } from '../kube/node';
import { eventually } from '../kube/wait';

async function main(): Promise<void> {
  const clusters = await startClusters(['reap'], { nodes: { reap: 2 } });
  const c = clusters.get('reap')!;
  const second = c.nodes[1]!;
  const image = binaryImage(kubeBinaries().dir, 'testpod', c.dir, { user: '65532:65532' });
  await second.importImage(image.archive);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sleeper', namespace: 'default' },
    spec: {
      nodeName: second.name,
      automountServiceAccountToken: false,
      containers: [{ name: 'main', image: image.name, args: ['serve'] }],
    },
  };
  const res = await request(c.admin, 'POST', '/api/v1/namespaces/default/pods', pod);
  if (res.status !== 201) throw new Error(`create Pod: ${res.status} ${res.body}`);
  await eventually(
    'Pod sleeper running',
    async () => {
      const p = await request(c.admin, 'GET', '/api/v1/namespaces/default/pods/sleeper');
      const phase = (p.json as { status?: { phase?: string } }).status?.phase;
      return phase === 'Running' ? true : undefined;
    },
    120_000,
    250,
  );
  const nodes = c.nodes.map((n) => ({
    name: n.name,
    cgroup: n.cgroup,
    hostLink: n.hostLink,
    dir: n.dir,
    net: n.namespaces.net,
  }));
  process.stdout.write(JSON.stringify({ pid: process.pid, dir: c.dir, nodes }) + '\n');
  // Wait to be killed.
  setInterval(() => undefined, 1 << 30);
}

main().catch((e: unknown) => {
  process.stderr.write(`node-runner: ${String((e as Error)?.stack ?? e)}\n`);
  process.exit(1);
});
