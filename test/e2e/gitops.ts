// A ClusterSet delivered the way a platform team runs it: its gitops repository served over smart
// HTTP (test/delivery/git-server.ts), the real Argo CD or the real Flux (test/delivery) in the
// management cluster syncing out/ from it onto real control planes (test/kube), each with a real
// node (the leader's reconciler Deployment and the members' restart Jobs run from the image the
// package's `clusterset image build` builds, test/image), Antrea's member install made with
// `kubectl apply`, and each member's Antrea member controller played as it writes
// (parties/antrea-member/player.ts).
//
// Everything a person does is done as docs/runbook.md says: `kubectl apply -k out/<tool>` to
// bootstrap, the health checks merged into argocd-cm with the printed `kubectl patch`, clusters
// registered as `argocd cluster add` does or with Flux kubeconfig Secrets, tokens with `clusterset
// token`, and after each change the commands its PR comment's "After merge" block prints, in order
// (follow()). A push is followed by a refresh, as a git webhook causes one
// (`argocd.argoproj.io/refresh`, `reconcile.fluxcd.io/requestedAt`), and converged() waits for the
// final state of every Application or Kustomization at that commit.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { compile } from '../../lib/compile';
import { diffTrees, impact, type Impact } from '../../lib/diff';
import type { ClusterSetProps } from '../../lib/model';
import { PART_OF_LABEL, deliveryObjectName } from '../../lib/names';
import type { Plan } from '../../lib/plan';
import { ARGOCD_CM, ARGOCD_CONFIG_FOLDER } from '../../lib/render/delivery';
import { startArgoCD, type ArgoCD } from '../delivery/argocd';
import { applierKubeconfig, startFlux, type Flux } from '../delivery/flux';
import { startGitServer, type GitServer } from '../delivery/git-server';
import { buildImage, saveImage } from '../image/image';
import type { Cluster } from '../kube/cluster';
import { request, startClusters } from '../kube/cluster';
import type { ObjectMeta } from '../kube/objects';
import { eventually, sleep } from '../kube/wait';
import { installAntreaMember } from '../parties/antrea-member/install';
import { AntreaMemberPlayer } from '../parties/antrea-member/player';
import { contextsKubeconfig } from './fixture';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'clusterset');
const run = promisify(execFile);

export type Tool = 'argocd' | 'flux';

export interface WorldOptions {
  readonly tool: Tool;
  /**
   * Prefix of the control planes' names (unique per world), short: a node's kubelet socket paths
   * carry it twice and must stay within a unix socket's 107 bytes.
   */
  readonly prefix: string;
  readonly leader: string;
  /** Every member control plane: members of the first model and those that join later. */
  readonly members: readonly string[];
  /** Argo CD's `timeout.reconciliation`; Flux's interval is the model's (`delivery.flux.interval`). */
  readonly resync: string;
}

/** A commit of the gitops repository: the model and the out/ it renders. */
export interface Published {
  readonly sha: string;
  readonly message: string;
  /** A checkout: `out/` and the model as `clusterset.json`. */
  readonly dir: string;
  /** out/'s files, relative to out/. */
  readonly files: ReadonlyMap<string, string>;
  readonly plan: Plan;
  readonly model: ClusterSetProps;
  /** What the PR comment of this change says (against the previous commit, or no out/ at all). */
  readonly impact: Impact;
}

/** One image archive per run: built by `clusterset image build` once (test/image). */
let archive: Promise<string> | undefined;
export function imageArchive(): Promise<string> {
  archive ??= buildImage().then((i) => saveImage(i));
  return archive;
}

export class GitOpsWorld {
  clusters!: Map<string, Cluster>;
  git!: GitServer;
  argocd?: ArgoCD;
  flux?: Flux;
  /** Contexts named by cluster ID, admin users. */
  kubeconfig!: string;
  readonly players = new Map<string, AntreaMemberPlayer>();
  current?: Published;
  readonly work: string;
  private commits = 0;
  /** Every printed command followed, with what became of it. */
  readonly ran: { command: string; outcome: 'ran' | 'not run' }[] = [];

  constructor(readonly o: WorldOptions) {
    this.work = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-gitops-${o.prefix}-`));
  }

  get ids(): string[] {
    return [this.o.leader, ...this.o.members];
  }

  cluster(id: string): Cluster {
    const c = this.clusters.get(id);
    if (!c) throw new Error(`no cluster ${id}`);
    return c;
  }

  get hub(): Cluster {
    return this.cluster(this.o.leader);
  }

  /** Control planes with a node each and the image in it, the git server, the tool's controllers. */
  async start(): Promise<void> {
    const image = imageArchive();
    const names = this.ids.map((id) => `${this.o.prefix}-${id}`);
    const started = await startClusters(names, { nodes: names });
    await this.attach(new Map(this.ids.map((id) => [id, started.get(`${this.o.prefix}-${id}`)!])), image);
  }

  /**
   * The same over control planes started elsewhere (a set Antrea ran, say), named by cluster ID,
   * each with a node: the image loaded into their nodes, the git server, the tool's controllers.
   */
  async attach(clusters: ReadonlyMap<string, Cluster>, image = imageArchive()): Promise<void> {
    this.clusters = new Map(this.ids.map((id) => [id, clusters.get(id)!]));
    this.kubeconfig = path.join(this.work, 'contexts.kubeconfig');
    const b64 = (s: string | undefined) => Buffer.from(s ?? '').toString('base64');
    fs.writeFileSync(
      this.kubeconfig,
      contextsKubeconfig(
        this.clusters,
        (id, c) => ({
          name: `admin-${id}`,
          user: { 'client-certificate-data': b64(c.admin.cert), 'client-key-data': b64(c.admin.key) },
        }),
        this.o.leader,
      ),
    );
    const tar = await image;
    for (const c of this.clusters.values()) {
      if (c.nodes.length === 0) throw new Error(`${c.name} has no node to load the image into`);
      for (const n of c.nodes) await n.importImage(tar);
    }
    this.git = await startGitServer();
    if (this.o.tool === 'argocd')
      this.argocd = await startArgoCD(this.hub, {
        reconciliation: this.o.resync,
        jitter: '0s',
        // Each resource's health in the Application's status (Argo CD 3 keeps it in redis alone by
        // default), so that a test can read which object is Degraded and why, as the UI shows it.
        cmdParams: { 'controller.resource.health.persist': 'true' },
      });
    else this.flux = await startFlux(this.hub, { requeueDependency: '5s' });
  }

  /**
   * Each member control plane as Antrea's member manifest leaves it (kubectl apply), its player
   * started; the application teams' Services and Namespaces come with service().
   */
  async installAntrea(plan: Plan): Promise<void> {
    for (const id of this.o.members) {
      await installAntreaMember(this.cluster(id), plan, id, false);
      const p = new AntreaMemberPlayer(id, this.cluster(id), plan.memberNamespace);
      this.players.set(id, p);
      p.start();
    }
  }

  /** Compiles `model`, commits out/ and the model, and returns the commit with its PR comment's facts. */
  async publish(model: ClusterSetProps, message: string): Promise<Published> {
    const r = compile(model);
    if (!r.plan || r.diagnostics.length > 0)
      throw new Error(
        `model does not compile:\n${r.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n')}`,
      );
    const dir = path.join(this.work, `commit-${++this.commits}`);
    const files = new Map<string, string>();
    for (const [rel, text] of r.files) {
      files.set(`out/${rel}`, text);
      fs.mkdirSync(path.dirname(path.join(dir, 'out', rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'out', rel), text);
    }
    const modelText = JSON.stringify(model, null, 2) + '\n';
    files.set('clusterset.json', modelText);
    fs.writeFileSync(path.join(dir, 'clusterset.json'), modelText);
    const sha = await this.git.commit(files, message);
    // The first commit's comment is against no out/ at all: the first pull request's.
    const before = this.current?.files ?? new Map<string, string>();
    const published: Published = {
      sha,
      message,
      dir,
      files: r.files,
      plan: r.plan,
      model,
      impact: impact(before, r.files, diffTrees(before, r.files), r.plan),
    };
    this.current = published;
    return published;
  }

  /** kubectl with the contexts kubeconfig (the leader, the management cluster, is current). */
  kubectl(args: string[], timeoutMs = 240_000, cwd?: string): Promise<{ stdout: string; stderr: string }> {
    return run(
      'kubectl',
      ['--kubeconfig', this.kubeconfig, '--cache-dir', path.join(this.work, 'kube-cache'), ...args],
      { timeout: timeoutMs, maxBuffer: 16 << 20, ...(cwd ? { cwd } : {}) },
    );
  }

  /** `clusterset …` from the repository's bin, as a team runs it with npx. */
  clusterset(args: string[], timeoutMs = 120_000): Promise<{ stdout: string; stderr: string }> {
    return run(process.execPath, [BIN, ...args], { timeout: timeoutMs, cwd: this.current?.dir ?? ROOT });
  }

  /**
   * `clusterset status --format json` on the published model, its report parsed. It exits non-zero
   * when it finds a problem: that rejects, unless `problemsExpected` (then the report is read).
   */
  async status<T>(problemsExpected = false): Promise<T> {
    const args = [
      'status',
      'clusterset.json',
      '--out',
      'out',
      '--kubeconfig',
      this.kubeconfig,
      '--format',
      'json',
    ];
    const { stdout } = await this.clusterset(args).catch((e: { stdout?: string }) => {
      if (!problemsExpected || !e.stdout) throw e;
      return { stdout: e.stdout };
    });
    return JSON.parse(stdout) as T;
  }

  /**
   * Runbook steps 2 and 3: the bootstrap in the management cluster (`kubectl apply -k out/argocd`
   * and the health checks merged into argocd-cm, or `kubectl apply -k out/flux`), and each remote
   * cluster of the model registered (unless `register` is false: then each is registered with
   * register(), and delivered from then on).
   */
  async bootstrap(p: Published, register = true): Promise<void> {
    if (this.argocd) {
      await this.kubectl(['apply', '-k', path.join(p.dir, 'out', 'argocd')]);
      await this.kubectl([
        '-n',
        'argocd',
        'patch',
        'configmap',
        ARGOCD_CM,
        '--type',
        'merge',
        '--patch-file',
        path.join(p.dir, 'out', ARGOCD_CONFIG_FOLDER, `ConfigMap.${ARGOCD_CM}.yaml`),
      ]);
    } else {
      await this.kubectl(['apply', '-k', path.join(p.dir, 'out', 'flux')]);
    }
    if (register)
      for (const c of p.plan.clusters)
        if (c.id !== this.o.leader && (c.isMember || c.isLeader)) await this.register(c.id);
  }

  /** A cluster registered with the tool: `argocd cluster add`, or Flux's kubeconfig Secret. */
  async register(id: string): Promise<void> {
    if (this.argocd) await this.argocd.registerCluster(this.cluster(id), { name: id });
    else await this.flux!.addKubeconfigSecret(this.cluster(id), `${id}-kubeconfig`);
  }

  /** Runbook step 4: `clusterset token <member>` for each, with the contexts by cluster ID. */
  async tokens(ids: readonly string[]): Promise<void> {
    for (const id of ids)
      await this.clusterset([
        'token',
        id,
        '--model',
        'clusterset.json',
        '--leader-kubeconfig',
        this.kubeconfig,
        '--leader-context',
        this.o.leader,
        '--member-kubeconfig',
        this.kubeconfig,
        '--member-context',
        id,
        '--wait',
        '120',
      ]);
  }

  /** What a git webhook causes: the root and every per-cluster object asked to look at git now. */
  async refresh(only?: readonly string[]): Promise<void> {
    const set = this.current!.plan.clusterSetId;
    if (this.argocd) {
      for (const name of only ?? [set, ...(await this.deliveryNames())]) await this.argocd.refresh(name);
    } else {
      await this.flux!.requestReconcile('GitRepository', set);
      for (const name of only ?? [set, ...(await this.deliveryNames())])
        await this.flux!.requestReconcile('Kustomization', name);
    }
  }

  /** The per-cluster Applications or Kustomizations of the set that exist now. */
  async deliveryNames(): Promise<string[]> {
    const set = this.current!.plan.clusterSetId;
    const path = this.argocd
      ? '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications'
      : '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations';
    const r = await request(
      this.hub.admin,
      'GET',
      `${path}?labelSelector=${encodeURIComponent(`${PART_OF_LABEL}=${set}`)}`,
    );
    const items = ((r.json as { items?: { metadata: { name: string } }[] }).items ?? []).map(
      (i) => i.metadata.name,
    );
    return items.filter((n) => n !== set).sort();
  }

  /** The names the current model delivers: `<set>-<id>` (and Flux's `.tiers`). */
  expectedDelivery(p = this.current!): string[] {
    const set = p.plan.clusterSetId;
    const folder = this.argocd ? 'argocd/apps/' : 'flux/';
    const kind = this.argocd ? 'Application.' : 'Kustomization.';
    return [...p.files.keys()]
      .filter((f) => f.startsWith(folder) && f.slice(folder.length).startsWith(kind))
      .map((f) => f.slice(folder.length + kind.length).replace(/\.yaml$/, ''))
      .filter((n) => n !== set)
      .sort();
  }

  /**
   * Every Application Synced and Healthy, or every Kustomization Ready, at `sha`, with exactly the
   * per-cluster objects the commit renders; the root too.
   */
  async converged(p = this.current!, timeoutMs = 300_000): Promise<void> {
    const want = this.expectedDelivery(p);
    const set = p.plan.clusterSetId;
    await eventually(
      `the delivery objects of ${p.sha.slice(0, 8)} (${want.join(', ')})`,
      async () => ((await this.deliveryNames()).join() === want.join() ? true : undefined),
      timeoutMs,
      1000,
    );
    const deadline = Date.now() + timeoutMs;
    for (const name of [set, ...want]) {
      const left = Math.max(10_000, deadline - Date.now());
      if (this.argocd)
        await this.argocd.waitApp(name, { sync: 'Synced', health: 'Healthy', revision: p.sha }, left);
      else await this.flux!.waitReady(name, { revision: p.sha }, left);
    }
  }

  /** The leader's bundle applied and healthy at `p`: what the token step waits for. */
  async leaderApplied(p = this.current!, timeoutMs = 300_000): Promise<void> {
    const name = this.deliveryOf(this.o.leader);
    await eventually(
      `${name} exists`,
      async () => ((await this.deliveryNames()).includes(name) ? true : undefined),
      timeoutMs,
      1000,
    );
    if (this.argocd)
      await this.argocd.waitApp(name, { sync: 'Synced', health: 'Healthy', revision: p.sha }, timeoutMs);
    else await this.flux!.waitReady(name, { revision: p.sha }, timeoutMs);
  }

  /** The delivery object of one cluster: `<set>-<id>`. */
  deliveryOf(id: string): string {
    return deliveryObjectName(this.current!.plan.clusterSetId, id);
  }

  /**
   * Runs every command of one printed After merge step, in its order, as a platform engineer would
   * (after the condition a member's leaving step names: its delivery objects gone), `<id>`
   * placeholders resolved to the world's contexts and a wait's 15 minutes cut to 5:
   * - `kubectl …`, with `<id>.kubeconfig` files (what a step gives Flux) written where it runs;
   * - `npx clusterset token …`, with the world's kubeconfig and the commit's model;
   * - `argocd cluster add <id> --name <id>` as register() does it: no Argo CD API server runs here,
   *   so the registration Secret that command writes is written directly;
   * Any other command (`argocd cluster rm`: what it leaves is not looked at), or one with a placeholder left (`<node>`, `<registry>`), is recorded as not
   * run; `notRun` lists them for a test that must run everything.
   */
  async follow(step: string): Promise<void> {
    // "<id> leaves: … only once both are gone, …": what the tool deletes by itself comes first.
    const leaving = /^([a-z0-9-]+) leaves: .*only once .*?\bgone\b/.exec(step)?.[1];
    if (leaving)
      await eventually(
        `${leaving}'s delivery objects gone`,
        async () =>
          (await this.deliveryNames()).some(
            (n) => n === this.deliveryOf(leaving) || n.startsWith(`${this.deliveryOf(leaving)}.`),
          )
            ? undefined
            : true,
        300_000,
        1000,
      );
    for (const m of step.matchAll(/`([^`]+)`/g)) {
      const command = m[1]!;
      // `npx clusterset explain …` in a step says where a list comes from: nothing to run.
      if (!/^(kubectl|argocd|npx clusterset token) /.test(command)) continue;
      const resolved = command
        .replace(
          /--(context|leader-context|member-context) <([a-z0-9-]+)>/g,
          (_, flag: string, id: string) => {
            this.cluster(id);
            return `--${flag} ${id}`;
          },
        )
        .replace(/ <([a-z0-9-]+)>( --name \1)?$/, (all, id: string) =>
          command.startsWith('argocd cluster ')
            ? ` ${id}${all.includes('--name') ? ` --name ${id}` : ''}`
            : all,
        )
        .replace(/(^| )(out\/)/g, (_, sp: string) => `${sp}${this.current!.dir}/out/`);
      if (/<[a-z-]+>/.test(resolved) || command.startsWith('argocd cluster rm ')) {
        this.ran.push({ command, outcome: 'not run' });
        continue;
      }
      try {
        await this.runCommand(resolved);
      } catch (e) {
        const x = e as { stderr?: string; message: string };
        throw new Error(`${command}: ${x.stderr ?? x.message}`);
      }
      this.ran.push({ command, outcome: 'ran' });
    }
  }

  /** The commands follow() recorded as not run, since `since` (an index into `ran`). */
  notRun(since = 0): string[] {
    return this.ran.slice(since).flatMap((r) => (r.outcome === 'not run' ? [r.command] : []));
  }

  /** One resolved command of a step (see follow()). */
  private async runCommand(command: string): Promise<void> {
    const words = shellWords(command);
    const add = /^argocd cluster add ([a-z0-9-]+) --name \1$/.exec(command);
    if (add) {
      await this.register(add[1]!);
      return;
    }
    if (command.startsWith('npx clusterset token ')) {
      await this.clusterset(
        [
          ...words.slice(2),
          '--model',
          'clusterset.json',
          '--leader-kubeconfig',
          this.kubeconfig,
          '--member-kubeconfig',
          this.kubeconfig,
        ],
        660_000,
      );
      return;
    }
    if (!command.startsWith('kubectl ')) throw new Error(`no way to run ${command}`);
    // A kubeconfig Flux is given: the file the command reads, as the platform team has it.
    const dir = path.join(this.work, 'follow');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of command.matchAll(/--from-file=[^= ]+=([a-z0-9-]+)\.kubeconfig\b/g))
      fs.writeFileSync(path.join(dir, `${f[1]!}.kubeconfig`), await applierKubeconfig(this.cluster(f[1]!)));
    const args = words.slice(1).map((a) => (a === '--timeout=15m' ? '--timeout=300s' : a));
    await this.kubectl(args, 360_000, dir);
  }

  /**
   * An exported Service as its application team runs it in `id`: its Namespace, the Service (no
   * selector) and an EndpointSlice with one ready endpoint (what Antrea's member checks before it
   * exports), created or updated to these ports.
   */
  async service(
    id: string,
    ns: string,
    name: string,
    ports: readonly { name?: string; port: number; protocol?: string }[],
  ): Promise<void> {
    const c = this.cluster(id);
    const ok = (what: string, status: number, ...codes: number[]) => {
      if (!codes.includes(status)) throw new Error(`${what} in ${id}: HTTP ${status}`);
    };
    ok(
      `Namespace ${ns}`,
      (
        await request(c.admin, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns },
        })
      ).status,
      201,
      409,
    );
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns },
      spec: { ports: ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol ?? 'TCP' })) },
    };
    const r = await request(c.admin, 'POST', `/api/v1/namespaces/${ns}/services`, svc);
    if (r.status === 409) {
      const cur = (await request(c.admin, 'GET', `/api/v1/namespaces/${ns}/services/${name}`)).json as Record<
        string,
        unknown
      >;
      const spec = { ...(cur.spec as Record<string, unknown>), ports: svc.spec.ports };
      ok(
        `Service ${ns}/${name}`,
        (await request(c.admin, 'PUT', `/api/v1/namespaces/${ns}/services/${name}`, { ...cur, spec })).status,
        200,
      );
    } else ok(`Service ${ns}/${name}`, r.status, 201);
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-app`, namespace: ns, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.0.10'], conditions: { ready: true } }],
      ports: ports.map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP' })),
    };
    const s = await request(
      c.admin,
      'POST',
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
      slice,
    );
    ok(`EndpointSlice ${ns}/${name}-app`, s.status, 201, 409);
  }

  /** What the players last failed with, for a timeout's message. */
  troubles(): string {
    return (
      [...this.players]
        .filter(([, p]) => p.lastError)
        .map(([id, p]) => `${id}: ${p.lastError}`)
        .join('; ') || 'none'
    );
  }

  async stop(): Promise<void> {
    for (const p of this.players.values()) await p.stop();
    await this.argocd?.stop();
    await this.flux?.stop();
    await this.git?.stop();
  }
}

/**
 * A command line's words as a POSIX shell reads them: split at unquoted blanks, single and double
 * quotes removed (`--for=jsonpath='{.status.sync.status}'=Synced` is one word, without its quotes).
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else word = (word ?? '') + ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (quote) throw new Error(`unterminated ${quote} in ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** An object as listed, with its kind and apiVersion filled in. */
export type Listed = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { ownerReferences?: unknown[] };
};

/** Every object of every listable kind a cluster serves (preferred versions): the final sweep. */
export async function everything(c: Cluster): Promise<Listed[]> {
  const get = async (p: string) => {
    const r = await request(c.admin, 'GET', p);
    if (r.status !== 200) throw new Error(`GET ${p}: HTTP ${r.status}`);
    return r.json;
  };
  const out: Listed[] = [];
  const groups = (await get('/apis')) as { groups: { preferredVersion: { groupVersion: string } }[] };
  for (const v of ['/api/v1', ...groups.groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`)]) {
    const list = (await get(v)) as {
      groupVersion: string;
      resources: { name: string; kind: string; verbs: string[] }[];
    };
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      const items = ((await get(`${v}/${r.name}`)) as { items?: Listed[] }).items ?? [];
      for (const i of items) out.push({ ...i, apiVersion: list.groupVersion, kind: r.kind });
    }
  }
  return out;
}

export const listedKey = (o: Listed): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

export { sleep };
