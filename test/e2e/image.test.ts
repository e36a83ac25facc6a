// End-to-end: the reconciler image built as the README tells a team to, by the packed package's `clusterset
// image build` (test/image/build.sh, on base images made offline under the names the package's
// image/Containerfile defaults to) and run by podman under the leader bundle's Deployment's own constraints
// (test/image/pod.ts): read-only root, 65532:65532, every capability dropped, no privilege escalation, its
// memory limit, env and volumes. `--help` and `reconcile` work in it; reconcile against a real API server
// with the member side written as Antrea's member controller writes it (parties/antrea-member/in-leader.ts);
// and the archive saved for a node imports into Debian's containerd 1.6 under the tag the bundle names.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_IMAGE_BASE, DEFAULT_IMAGE_RUNTIME } from '../../lib/cli/image';
import { compile } from '../../lib/compile';
import {
  DEFAULT_RECONCILER_IMAGE,
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  RECONCILER_NAME,
  serviceExportName,
} from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import { cluster, service, type ModelDraft } from '../helpers/models';
import { buildAndPush, buildImage, podman, podmanRun, run, saveImage, type BuiltImage } from '../image/image';
import { podmanContainer, type PodmanContainer } from '../image/pod';
import { memoryBytes } from '../../lib/quantity';
import { reconcilerNodeOptions } from '../../lib/render/reconciler';
import { freePorts, request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import { setUpClusterSet } from './fixture';
import { SimulatedMember } from '../parties/antrea-member/in-leader';
import { startReconciler } from './reconciler-process';

const ROOT = path.resolve(__dirname, '..', '..');
const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

function model(): ModelDraft {
  return {
    clusterSetId: 'image',
    leader: 'hub',
    members: ['east'],
    clusters: [cluster('hub', 0), cluster('east', 1)],
    services: [service('demo', 'web', ['east'], [{ name: 'http', port: 80 }])],
  };
}

/** The leader bundle's Deployment and ConfigMap, compiled from the model (no cluster needed). */
function rendered(): { template: Record<string, unknown>; config: Record<string, string> } {
  const r = compile(model());
  const ns = r.plan!.leaderNamespace;
  const read = (kind: string, name: string) =>
    loadYaml(r.files.get(`clusters/hub/${ns}/${kind}.${name}.yaml`)!) as Record<string, unknown>;
  const dep = read('Deployment', RECONCILER_NAME) as { spec: { template: Record<string, unknown> } };
  const cm = read('ConfigMap', RECONCILER_CONFIG_NAME) as { data: Record<string, string> };
  return { template: dep.spec.template, config: cm.data };
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-image-'));

/** The Deployment's container as podman flags, its config written under `scratch`. */
function asDeployed(): PodmanContainer {
  const { template, config } = rendered();
  return podmanContainer(template, 'reconciler', {
    podName: 'image-test',
    namespace: 'antrea-multicluster',
    configMaps: new Map([[RECONCILER_CONFIG_NAME, config]]),
    dir: scratch,
  });
}

function inspect(image: BuiltImage): Promise<{
  Config: { User: string; Entrypoint: string[]; Cmd: string[]; WorkingDir: string; Env: string[] };
}> {
  return podman(['image', 'inspect', image.id]).then((out) => (JSON.parse(out) as never[])[0]!);
}

const MB = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

const image = suite(
  'image: the reconciler image, built by clusterset image build and run as the Deployment runs it',
);

image(
  'GIVEN the packed package WHEN test/image/build.sh builds it with its `clusterset image build` on the offline base images THEN it is tagged as the leader bundle names it and runs node dist/lib/cli/main.js reconcile as 65532 in /app',
  async () => {
    const built = await buildImage();
    process.stderr.write(
      `  image ${built.tag}: ${MB(built.size)}, build.sh ${(built.buildMs / 1000).toFixed(1)} s\n`,
    );
    assert.is(built.tag, DEFAULT_RECONCILER_IMAGE);
    assert.is(asDeployed().image, built.tag, 'the Deployment runs the tag that was built');
    const { Config } = await inspect(built);
    assert.is(Config.User, '65532:65532');
    assert.equal(Config.Entrypoint, ['/nodejs/bin/node', 'dist/lib/cli/main.js']);
    assert.equal(Config.Cmd, ['reconcile']);
    assert.is(Config.WorkingDir, '/app');
    assert.ok(Config.Env.includes('NODE_ENV=production'), Config.Env.join(' '));
    // The Containerfile's default base images are the ones in the storage (made by base.sh), so
    // the build.sh's --base and --runtime name what a team gets without them.
    const containerfile = fs.readFileSync(path.join(ROOT, 'image', 'Containerfile'), 'utf8');
    const froms = [...containerfile.matchAll(/^ARG (?:BASE|RUNTIME)=(\S+)$/gm)].map((m) => m[1]!);
    assert.equal(froms, [DEFAULT_IMAGE_BASE, DEFAULT_IMAGE_RUNTIME]);
    assert.equal(
      [...containerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]),
      ['${BASE}', '${RUNTIME}'],
    );
    for (const from of froms) {
      const r = await podmanRun(['image', 'exists', from]);
      assert.is(r.code, 0, `${from} is in the storage`);
    }
  },
);

image('GIVEN the runtime stage on distroless THEN the image has no shell and no npm', async () => {
  const built = await buildImage();
  for (const exe of ['/bin/sh', '/usr/local/bin/npm']) {
    const r = await podmanRun(['run', '--rm', '--entrypoint', exe, built.id, '-c', 'true']);
    assert.is.not(r.code, 0, `${exe} ran`);
    assert.match(r.stderr, /no such file or directory|not found/i);
  }
});

image(
  "GIVEN the Deployment's securityContext, limits and volumes WHEN the image runs under them THEN it is 65532:65532 with no capability, no new privileges, its memory limit, a read-only root, a read-only config and a writable /tmp",
  async () => {
    const built = await buildImage();
    const c = asDeployed();
    const probe = `
      const fs = require('node:fs');
      const status = fs.readFileSync('/proc/self/status', 'utf8');
      const field = (k) => status.match(new RegExp('^' + k + ':\\\\s*(.*)$', 'm'))[1].trim();
      const writes = (p) => { try { fs.writeFileSync(p, 'x'); return 'ok'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(),
        capEff: field('CapEff'), capPrm: field('CapPrm'), capBnd: field('CapBnd'), noNewPrivs: field('NoNewPrivs'),
        seccomp: field('Seccomp'), root: writes('/app/probe'), etc: writes('/etc/probe'),
        config: writes('/etc/clusterset/probe'), tmp: writes('/tmp/probe'),
        configText: fs.readFileSync('/etc/clusterset/${RECONCILER_CONFIG_KEY}', 'utf8'),
        env: { POD_NAME: process.env.POD_NAME, NODE_OPTIONS: process.env.NODE_OPTIONS },
        memoryLimit: ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']
          .filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8').trim())[0],
      }));`;
    const r = await podmanRun([
      'run',
      '--rm',
      ...c.flags,
      '--entrypoint',
      '/nodejs/bin/node',
      built.id,
      '-e',
      probe,
    ]);
    assert.is(r.code, 0, r.stderr);
    const p = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.is(p.uid, 65532);
    assert.is(p.gid, 65532);
    assert.is(p.capEff, '0000000000000000');
    assert.is(p.capPrm, '0000000000000000');
    assert.is(p.capBnd, '0000000000000000');
    assert.is(p.noNewPrivs, '1');
    assert.is(p.seccomp, '2', 'a seccomp filter (RuntimeDefault) is on');
    assert.is(p.root, 'EROFS');
    assert.is(p.etc, 'EROFS');
    assert.is(p.config, 'EROFS');
    assert.is(p.tmp, 'ok');
    assert.is(p.configText, rendered().config[RECONCILER_CONFIG_KEY]);
    const { template } = rendered();
    const limit = (template.spec as { containers: { resources: { limits: { memory: string } } }[] })
      .containers[0]!.resources.limits.memory;
    assert.equal(p.env, { POD_NAME: 'image-test', NODE_OPTIONS: reconcilerNodeOptions(limit) });
    assert.is(p.memoryLimit, String(memoryBytes(limit)), `the cgroup holds the Deployment's ${limit} limit`);
  },
);

image(
  "GIVEN the Deployment's constraints WHEN the image runs with --help THEN it exits 0 and lists every command",
  async () => {
    const built = await buildImage();
    const r = await podmanRun(['run', '--rm', ...asDeployed().flags, built.id, '--help']);
    assert.is(r.code, 0, r.stderr);
    for (const cmd of ['synth', 'validate', 'diff', 'explain', 'init', 'token', 'reconcile'])
      assert.match(r.stdout, new RegExp(`^  clusterset ${cmd}\\b`, 'm'), `${cmd} listed`);
  },
);

image(
  'GIVEN the image run as the Deployment runs it against a real leader API server WHEN a member exports a Service THEN it leads, serves its probes, imports the endpoints, and exits 0 on SIGTERM (podman stop) after releasing the Lease',
  async () => {
    const built = await buildImage();
    const f = await setUpClusterSet(model(), 'image');
    const east = new SimulatedMember(
      'east',
      f.leader,
      f.tokens.get('east')!,
      f.ns,
      f.plan.clusterSetId,
      'hub',
    );
    await east.announce();
    east.startAnnouncing(5000);
    const rec = startReconciler(f, 'image-1', { image: built });
    try {
      await rec.port;
      await eventually(
        'the container leads',
        async () => ((await rec.metrics()).get('clusterset_reconciler_leader') === 1 ? true : undefined),
        60_000,
      );
      const lease = await request(
        f.leader.admin,
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${f.ns}/leases/${RECONCILER_NAME}`,
      );
      const holder = (lease.json as { spec: { holderIdentity?: string } }).spec.holderIdentity;
      assert.is(holder, 'image-1', 'the Lease holder is the POD_NAME the Deployment sets');
      assert.is((await rec.get('/healthz')).status, 200);
      assert.is(
        await eventually('ready', async () => ((await rec.get('/readyz')).status === 200 ? 200 : undefined)),
        200,
      );

      const clusterIP = '10.101.0.10';
      await east.exportService('demo', 'web', {
        ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
        clusterIP,
      });
      const ips = await eventually(
        'the Endpoints import holds the ClusterIP',
        async () => {
          const ri = await request(f.leader.admin, 'GET', `${MC}/${f.ns}/resourceimports/demo-web-endpoints`);
          if (ri.status !== 200) return undefined;
          const spec = (ri.json as { spec: { endpoints: { subsets: { addresses: { ip: string }[] }[] } } })
            .spec;
          return spec.endpoints.subsets.flatMap((s) => s.addresses.map((a) => a.ip));
        },
        30_000,
      );
      assert.equal(ips, [clusterIP]);
      for (const kind of ['service', 'endpoints'] as const) {
        const name = serviceExportName('east', 'demo', 'web', kind);
        await eventually(`export ${name} Succeeded`, async () => {
          const re = await request(f.leader.admin, 'GET', `${MC}/${f.ns}/resourceexports/${name}`);
          const cond = (re.json as { status?: { conditions?: { type: string }[] } }).status?.conditions?.[0];
          return cond?.type === 'Succeeded' ? true : undefined;
        });
      }

      const code = await rec.stop();
      assert.is(code, 0, `exit code; output:\n${rec.other.join('\n')}`);
      const msgs = rec.logs.map((l) => l.msg);
      assert.ok(msgs.includes('released the Lease'), msgs.join(' | '));
      assert.ok(msgs.includes('stopped'), msgs.join(' | '));
      assert.equal(
        rec.logs.filter((l) => l.level === 'error'),
        [],
      );
      const after = await request(
        f.leader.admin,
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${f.ns}/leases/${RECONCILER_NAME}`,
      );
      assert.not.ok(
        (after.json as { spec: { holderIdentity?: string } }).spec.holderIdentity,
        'Lease released',
      );
      const gone = await podmanRun(['container', 'exists', `clusterset-test-image-1-${process.pid}`]);
      assert.is.not(gone.code, 0, 'the container was removed');
    } finally {
      east.stopAnnouncing();
      rec.kill('SIGKILL');
    }
  },
);

/** A containerd of its own (root, state and socket in a temporary directory), as a node runs it. */
async function throwawayContainerd(): Promise<{
  ctr: (args: string[]) => Promise<string>;
  stop: () => Promise<void>;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-containerd-'));
  const sock = path.join(dir, 'containerd.sock');
  fs.writeFileSync(
    path.join(dir, 'config.toml'),
    [
      'version = 2',
      `root = "${dir}/root"`,
      `state = "${dir}/state"`,
      // Only the image store is needed; the CRI plugin would start its own services.
      'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
      '[grpc]',
      `  address = "${sock}"`,
      '[ttrpc]',
      `  address = "${sock}.ttrpc"`,
      '[debug]',
      '  address = ""',
      '[metrics]',
      '  address = ""',
      '',
    ].join('\n'),
  );
  const log = fs.openSync(path.join(dir, 'containerd.log'), 'w');
  const child = spawn('containerd', ['--config', path.join(dir, 'config.toml')], {
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const ctr = async (args: string[]) => {
    const r = await run('ctr', ['--address', sock, '--namespace', 'k8s.io', ...args]);
    if (r.code !== 0) throw new Error(`ctr ${args.join(' ')}: ${r.code}\n${r.stderr}`);
    return r.stdout;
  };
  await eventually('containerd answers', () => ctr(['version']).then(() => true), 30_000);
  return {
    ctr,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      child.kill('SIGKILL');
      fs.closeSync(log);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

image(
  "GIVEN the image saved by saveImage WHEN containerd 1.6 imports it into the k8s.io namespace THEN it is stored under the bundle's tag with the image's ID as config digest, complete and unpacked",
  async () => {
    const built = await buildImage();
    const archive = await saveImage(
      built,
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-archive-')), 'image.tar'),
    );
    const containerd = await throwawayContainerd();
    try {
      await containerd.ctr(['images', 'import', archive]);
      const ls = await containerd.ctr(['images', 'ls']);
      const row = ls.split('\n').find((l) => l.startsWith(`${DEFAULT_RECONCILER_IMAGE} `));
      assert.ok(row, ls);
      const manifestDigest = row!.split(/\s+/)[2]!;
      const manifest = JSON.parse(await containerd.ctr(['content', 'get', manifestDigest])) as {
        config: { digest: string };
      };
      assert.is(manifest.config.digest, `sha256:${built.id}`);
      assert.match(await containerd.ctr(['images', 'check']), /complete/);
      const snapshots = await containerd.ctr(['snapshots', 'ls']);
      assert.ok(snapshots.split('\n').filter((l) => /Committed/.test(l)).length >= 1, snapshots);
    } finally {
      await containerd.stop();
      fs.rmSync(path.dirname(archive), { recursive: true, force: true });
    }
  },
);

image(
  "GIVEN a registry (Debian's docker-registry, the distribution registry, on loopback) WHEN `clusterset image build --push` pushes the image THEN the last line hands back the digest the registry serves the tag under, to pin in reconciler.image",
  async () => {
    const [port] = await freePorts(1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-registry-'));
    fs.writeFileSync(
      path.join(dir, 'config.yml'),
      [
        'version: 0.1',
        'log: { level: warn }',
        `storage: { filesystem: { rootdirectory: ${path.join(dir, 'data')} }, delete: { enabled: true } }`,
        `http: { addr: 127.0.0.1:${port} }`,
        '',
      ].join('\n'),
    );
    // podman reaches it over plain http: an insecure registry, as a team's registries.conf says.
    const conf = path.join(dir, 'registries.conf');
    fs.writeFileSync(conf, `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
    const registry = spawn('docker-registry', ['serve', path.join(dir, 'config.yml')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let logs = '';
    registry.stderr.on('data', (b: Buffer) => (logs += b.toString('utf8')));
    try {
      await eventually(
        `the registry on 127.0.0.1:${port} (${logs.slice(-300)})`,
        async () =>
          (await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => undefined))?.status === 200 || undefined,
        30_000,
      );
      const tag = `127.0.0.1:${port}/platform/clusterset:pushed`;
      const r = await buildAndPush(tag, conf);
      const last = r.stdout.trim().split('\n').pop()!;
      const [printedTag, id, pinned] = last.split(' ');
      assert.is(printedTag, tag);
      assert.match(id ?? '', /^[0-9a-f]{64}$/);
      assert.match(
        pinned ?? '',
        new RegExp(`^127\\.0\\.0\\.1:${port}/platform/clusterset@sha256:[0-9a-f]{64}$`),
      );
      assert.match(r.stderr, `pin this digest in the model`);
      // What the registry serves under the tag is that digest, and under the digest, that manifest.
      const digest = pinned!.split('@')[1]!;
      const accept = [
        'application/vnd.oci.image.manifest.v1+json',
        'application/vnd.docker.distribution.manifest.v2+json',
        'application/vnd.oci.image.index.v1+json',
        'application/vnd.docker.distribution.manifest.list.v2+json',
      ].join(', ');
      const byTag = await fetch(`http://127.0.0.1:${port}/v2/platform/clusterset/manifests/pushed`, {
        headers: { accept },
      });
      assert.is(byTag.status, 200);
      assert.is(byTag.headers.get('docker-content-digest'), digest);
      const byDigest = await fetch(`http://127.0.0.1:${port}/v2/platform/clusterset/manifests/${digest}`, {
        method: 'HEAD',
        headers: { accept },
      });
      assert.is(byDigest.status, 200);
      // The pinned reference is one the model takes.
      const m = model();
      m.reconciler = { image: pinned! };
      assert.equal(compile(m).diagnostics, []);
    } finally {
      registry.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

image.after(async () => {
  fs.rmSync(scratch, { recursive: true, force: true });
  await stopAll();
});

image.run();
