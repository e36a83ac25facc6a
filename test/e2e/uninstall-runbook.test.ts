// End-to-end: the README's "Uninstall" step, run on real API servers (test/kube), once under Argo
// CD and once under Flux, each with prune on: the whole ClusterSet is removed from the model
// (`uninstall: true`), and the After merge block of that change is followed, step by step, in its
// order. At the end no cluster holds anything of ours but what is documented as never deleted (CRDs,
// and Antrea's member controller Deployment, which member bundles patch), and no namespace is stuck
// Terminating.
//
// Three control planes: the leader `hub`, which is also the management cluster (the model's
// `delivery.managementCluster`, where Argo CD and Flux run), and the members `east` and `west`,
// prepared as Antrea's member manifest leaves a member. In each world:
// - Bootstrap, as the runbook says: `kubectl apply -k out/argocd` (or `out/flux`) in hub; for Flux,
//   each member's kubeconfig Secret, with the command the join's After merge block prints.
// - What the tools do is done with their own code, around stand-ins for their controllers' loops:
//   Argo CD's tracking and cascade deletion (test/argocd-gc, v3.2.6: its resource tracking, the
//   AppProject read live, FilterObjectsForDeletion, its kubectl delete) and Flux's apply and
//   garbage collection (test/flux-gc, github.com/fluxcd/pkg/ssa), kustomize itself for what a
//   Kustomization builds (test/helpers/flux-build.ts). Ours: the roots' syncs (apply the folder,
//   delete what it no longer lists), and the loop that stands for each controller's finalizer
//   (an Application being deleted with its resources finalizer: the cascade, then the finalizer
//   removed; a Kustomization: kustomize-controller's finalizers.fluxcd.io, added on first sight,
//   the garbage collection when it is deleted with prune on and deletionPolicy not Orphan, then
//   the finalizer removed). Argo CD's cluster registrations are not modelled (no Argo CD API
//   server runs here): `argocd cluster rm` is the one printed command not run.
// - The reconciler runs against hub with its own ServiceAccount token (`clusterset reconcile`).
// - Each member's token is copied with `clusterset token`, as the runbook says.
// - Each member is played as Antrea v2.7's member controller: it announces itself and exports
//   shop/cart (east also a label identity and its ClusterInfo) with its own token (member.ts), and
//   writes into its own cluster what it imports (antrea-member-writes.ts). Once its ClusterSet is
//   gone it does what Antrea does (member/clusterset_controller.go cleanUpResources): it deletes its
//   announce with its token, retrying until that works, and then what it imported.
// - The After merge block of the change (lib/diff impact of out/ before and after) is followed in
//   its order: every `kubectl` command it prints runs with kubectl against the cluster its
//   `--context <id>` names (the management cluster, hub, without one), the wait given 3 minutes
//   instead of 15; a command for a case that does not arise (an announce that never goes) has a
//   placeholder left and is not run.

import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { diffTrees, impact } from '../../lib/diff';
import type { ClusterSetProps } from '../../lib/model';
import {
  MEMBER_CONTROLLER_DEPLOYMENT,
  RECONCILER_CONFIG_KEY,
  RECONCILER_CONFIG_NAME,
  announceName,
  memberIdentityName,
} from '../../lib/names';
import type { Plan } from '../../lib/plan';
import { CASCADE_FINALIZER } from '../../lib/render/argocd';
import { MANAGED_BY, MANAGED_BY_LABEL, PART_OF_LABEL } from '../../lib/render/util';
import type { StatusReport } from '../../lib/status/report';
import { collectionPath, resource } from '../../lib/status/resources';
import { dumpYaml, loadYaml } from '../../lib/yaml';
import { fluxBuild } from '../helpers/flux-build';
import { IMPORTED_ACNP } from '../helpers/antrea-member-imports';
import { policiesModel } from '../helpers/models';
import type { BundleObject, KubeObject } from '../kube/apply';
import { applyBundle, applyObject, loadBundle, readBack } from '../kube/apply';
import type { Cluster, Response } from '../kube/cluster';
import { requestRetrying as request, startClusters, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import { installAntreaMember } from './antrea-member';
import { cleanUpImports, syncImports } from './antrea-member-writes';
import { ARGOCD_CRDS, installCrds } from './crds';
import { contextsKubeconfig, kubeconfigFor, tokenFor, type ClusterSetFixture } from './fixture';
import { SimulatedMember } from './member';
import { startReconciler, type ReconcilerProcess } from './reconciler-process';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'clusterset');
const SET = 'gone-set';
const LEADER = 'hub';
const MEMBERS = ['east', 'west'] as const;
const IDS = [LEADER, ...MEMBERS];
const run = promisify(execFile);

type Tool = 'argocd' | 'flux';

/** The policies model (hub; east and west export shop/cart; a baseline and a stretched policy), delivered by `tool` alone. */
function model(tool: Tool, uninstall: boolean): ClusterSetProps {
  const m = policiesModel();
  m.clusterSetId = SET;
  m.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    branch: 'main',
    path: 'out',
    managementCluster: LEADER,
    argocd: tool === 'argocd' ? {} : { enabled: false },
    flux: tool === 'flux' ? {} : { enabled: false },
  };
  return { ...(m as ClusterSetProps), ...(uninstall ? { uninstall: true } : {}) };
}

interface Rendered {
  readonly dir: string;
  readonly files: ReadonlyMap<string, string>;
  readonly plan: Plan;
}

function synth(m: ClusterSetProps, label: string): Rendered {
  const r = compile(m);
  if (r.diagnostics.length > 0 || !r.plan) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-uninstall-${label}-`));
  for (const [rel, text] of r.files) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return { dir, files: r.files, plan: r.plan };
}

const read = (dir: string, rel: string): KubeObject =>
  loadYaml(fs.readFileSync(path.join(dir, rel), 'utf8')) as KubeObject;

/** The delivery objects of a folder of out/ (argocd, argocd/apps, flux). */
function folder(dir: string, rel: string): KubeObject[] {
  return fs
    .readdirSync(path.join(dir, rel))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .map((f) => read(dir, path.join(rel, f)));
}

/** The cluster a delivery object delivers, from its source path `out/clusters/<id>`. */
function clusterOf(o: KubeObject): string | undefined {
  const spec = o.spec as { source?: { path?: string }; path?: string };
  return /clusters\/([^/]+)\/?$/.exec(spec.source?.path ?? spec.path ?? '')?.[1];
}

const key = (o: { kind: string; metadata: { name?: string; namespace?: string } }): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;

async function ok(what: string, p: Promise<Response>, ...codes: number[]): Promise<Response> {
  const r = await p;
  if (!codes.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  return r;
}

/** Builds test/<name> (test/helpers/go-build.sh, cached) and returns the binary's path. */
function goTool(name: 'flux-gc' | 'argocd-gc'): string {
  const out = execFileSync('bash', [path.join(ROOT, 'test', name, 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop()!;
}

/**
 * One world: the set installed with `tool` and then uninstalled by following the After merge
 * block. Its clusters, out/ before and after, and the stand-ins for the tools' controllers.
 */
class World {
  readonly before: Rendered;
  readonly after: Rendered;
  clusters!: Map<string, Cluster>;
  kubeconfig!: string;
  rec?: ReconcilerProcess;
  readonly members = new Map<string, SimulatedMember>();
  /** Each member's token in the leader, as `clusterset token` copied it into the member. */
  readonly tokens = new Map<string, string>();
  /** Flux inventories, per Kustomization name (written by flux-gc apply, read by its delete). */
  readonly inventories = new Map<string, string>();
  /** What each cascade or garbage collection reported, per delivery object. */
  readonly reports = new Map<string, unknown>();
  /** Members that did what Antrea does once their ClusterSet was gone, with how many tries the announce took. */
  readonly left = new Map<string, number>();
  /** Every command the After merge block printed, with what became of it. */
  readonly ran: { command: string; outcome: 'ran' | 'not run' }[] = [];
  private stopped = false;
  private loops: Promise<void>[] = [];
  private readonly work: string;
  /** The last error of each background loop, until it next succeeds: what a timeout reports. */
  private readonly errors = new Map<string, string>();

  constructor(
    readonly tool: Tool,
    readonly bins: { argocd: string; flux: string },
  ) {
    this.before = synth(model(tool, false), `${tool}-before`);
    this.after = synth(model(tool, true), `${tool}-after`);
    this.work = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-uninstall-${tool}-work-`));
  }

  get hub(): Cluster {
    return this.clusters.get(LEADER)!;
  }

  /** kubectl with the contexts kubeconfig, and a discovery cache of this world's own. */
  kubectl(args: string[], timeoutMs = 240_000): Promise<{ stdout: string; stderr: string }> {
    return run(
      'kubectl',
      ['--kubeconfig', this.kubeconfig, '--cache-dir', path.join(this.work, 'kube-cache'), ...args],
      {
        timeout: timeoutMs,
      },
    );
  }

  async start(): Promise<void> {
    const started = await startClusters(IDS.map((id) => `un-${this.tool}-${id}`));
    this.clusters = new Map(IDS.map((id) => [id, started.get(`un-${this.tool}-${id}`)!]));
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
        LEADER,
      ),
    );
    for (const id of MEMBERS) await installAntreaMember(this.clusters.get(id)!, this.before.plan, id);
    // The management cluster (hub): the tool's CRDs and namespace, as its install leaves them.
    const crds =
      this.tool === 'argocd'
        ? ARGOCD_CRDS
        : [
            'source.toolkit.fluxcd.io_gitrepositories.yaml',
            'kustomize.toolkit.fluxcd.io_kustomizations.yaml',
          ];
    await installCrds(this.hub, crds, `${this.tool}-install`);
    for (const file of crds)
      await this.kubectl([
        'wait',
        '--for=condition=Established',
        `crd/${file.split('_')[1]!.replace(/\.yaml$/, '')}.${file.split('_')[0]!}`,
        '--timeout=60s',
      ]);
    const ns = this.tool === 'argocd' ? 'argocd' : 'flux-system';
    await this.kubectl(['create', 'namespace', ns]);
    // The tool's controllers: their finalizers, every 300 ms until stop().
    this.loop(`${this.tool} controllers`, async () => {
      if (this.tool === 'argocd') await this.argoFinalizers();
      else await this.fluxFinalizers();
      return false;
    });
  }

  /**
   * Runs `step` every 300 ms until it returns true or the world stops. An error is kept (for a
   * timeout to report) and the step retried, as a controller requeues.
   */
  private loop(name: string, step: () => Promise<boolean>): void {
    this.loops.push(
      (async () => {
        while (!this.stopped) {
          try {
            const done = await step();
            this.errors.delete(name);
            if (done) return;
          } catch (e) {
            this.errors.set(name, (e as Error).message);
          }
          await sleep(300);
        }
      })(),
    );
  }

  /** What the background loops last failed with. */
  troubles(): string {
    return [...this.errors].map(([n, e]) => `${n}: ${e}`).join('; ') || 'none';
  }

  // -------------------------------------------------------------------------------------------------
  // The delivery tools: bootstrap, the roots' syncs, the per-cluster syncs and finalizers.

  /** Runbook steps 2 and 3: `kubectl apply -k out/<tool>`; for Flux, each remote cluster's kubeconfig Secret. */
  async bootstrap(): Promise<void> {
    await this.kubectl(['apply', '-k', path.join(this.before.dir, this.tool)]);
    if (this.tool === 'flux') {
      // One Secret per cluster: a member's Tiers' Kustomization names the same one.
      const secrets = new Map<string, { id: string; key: string }>();
      for (const k of folder(this.before.dir, 'flux')) {
        const ref = (k.spec as { kubeConfig?: { secretRef: { name: string; key?: string } } }).kubeConfig
          ?.secretRef;
        const id = clusterOf(k);
        if (ref && id) secrets.set(ref.name, { id, key: ref.key ?? 'value' });
      }
      for (const [name, { id, key: k }] of secrets) {
        const file = path.join(this.work, `${id}.kubeconfig`);
        fs.writeFileSync(file, fs.readFileSync(this.clusters.get(id)!.kubeconfigPath));
        await this.kubectl([
          '-n',
          'flux-system',
          'create',
          'secret',
          'generic',
          name,
          `--from-file=${k}=${file}`,
        ]);
      }
    }
  }

  /** The root Application's sync (Argo CD): the Applications of argocd/apps applied with its tracking, those it no longer lists deleted. */
  async syncArgoRoot(r: Rendered): Promise<void> {
    const root = folder(r.dir, 'argocd').find((o) => o.kind === 'Application')!;
    const rootFile = path.join(this.work, 'root.yaml');
    fs.writeFileSync(rootFile, dumpYaml(root));
    const apps = folder(r.dir, 'argocd/apps');
    const tracked = JSON.parse(
      execFileSync(this.bins.argocd, ['track', '-application', rootFile], {
        input: JSON.stringify(apps),
        encoding: 'utf8',
      }),
    ) as KubeObject[];
    for (const a of tracked) {
      const res = await applyObject(this.hub, { file: `${a.metadata.name}.yaml`, obj: a, wave: 0 });
      if ('rejection' in res) throw new Error(`Application ${a.metadata.name}: ${res.rejection.message}`);
    }
    const want = new Set(apps.map((a) => a.metadata.name));
    for (const live of await this.list('/apis/argoproj.io/v1alpha1/namespaces/argocd/applications')) {
      const tracking = live.metadata.annotations?.['argocd.argoproj.io/tracking-id'] ?? '';
      if (tracking.startsWith(`${root.metadata.name}:`) && !want.has(live.metadata.name!))
        await ok(
          `prune Application ${live.metadata.name}`,
          request(
            this.hub.admin,
            'DELETE',
            `/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/${live.metadata.name}`,
          ),
          200,
          202,
        );
    }
  }

  /** An Application's sync: its bundle tracked as Argo CD tracks it and applied server-side. */
  async syncApplication(app: KubeObject): Promise<void> {
    const id = clusterOf(app)!;
    const file = this.appFile(app);
    const bundle = loadBundle(path.join(this.before.dir, 'clusters', id));
    const tracked = JSON.parse(
      execFileSync(this.bins.argocd, ['track', '-application', file], {
        input: JSON.stringify(bundle.map((b) => b.obj)),
        encoding: 'utf8',
      }),
    ) as KubeObject[];
    const dir = fs.mkdtempSync(path.join(this.work, `sync-${id}-`));
    bundle.forEach((b, i) => {
      fs.mkdirSync(path.dirname(path.join(dir, b.file)), { recursive: true });
      fs.writeFileSync(path.join(dir, b.file), dumpYaml(tracked[i]!));
    });
    const applied = await applyBundle(this.clusters.get(id)!, dir);
    assert.equal(applied.rejected, [], `${id}'s bundle applies`);
  }

  private appFile(app: KubeObject): string {
    const file = path.join(this.work, `Application.${app.metadata.name}.yaml`);
    if (!fs.existsSync(file)) fs.writeFileSync(file, dumpYaml(app));
    return file;
  }

  /** A Kustomization's reconcile (Flux): built with kustomize, applied with Flux's own code. */
  async syncKustomization(k: KubeObject): Promise<void> {
    const spec = k.spec as { path: string; patches?: unknown[] };
    const objs = fluxBuild(this.before.dir, spec);
    const manifest = path.join(this.work, `${k.metadata.name}.yaml`);
    fs.writeFileSync(manifest, objs.map((o) => dumpYaml(o)).join('---\n'));
    const inventory = path.join(this.work, `${k.metadata.name}.inventory.json`);
    execFileSync(
      this.bins.flux,
      [
        'apply',
        '-kubeconfig',
        await this.kubeconfigOf(k),
        '-name',
        k.metadata.name!,
        '-namespace',
        'flux-system',
        '-inventory',
        inventory,
        manifest,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.inventories.set(k.metadata.name!, inventory);
  }

  /** The cluster a Kustomization reaches: its kubeconfig Secret, or in-cluster (hub) without one. */
  private async kubeconfigOf(k: KubeObject): Promise<string> {
    const ref = (k.spec as { kubeConfig?: { secretRef: { name: string; key?: string } } }).kubeConfig
      ?.secretRef;
    if (!ref) return this.hub.kubeconfigPath;
    const s = await ok(
      `kubeconfig Secret ${ref.name}`,
      request(this.hub.admin, 'GET', `/api/v1/namespaces/flux-system/secrets/${ref.name}`),
      200,
    );
    const data = (s.json as { data: Record<string, string> }).data[ref.key ?? 'value']!;
    const file = path.join(this.work, `from-secret-${ref.name}.kubeconfig`);
    fs.writeFileSync(file, Buffer.from(data, 'base64'));
    return file;
  }

  /** The root Kustomization's sync (Flux): out/flux applied, the Kustomizations it no longer lists deleted (its prune). */
  async syncFluxRoot(r: Rendered): Promise<void> {
    const objs = folder(r.dir, 'flux');
    for (const o of objs) {
      const res = await applyObject(
        this.hub,
        { file: `${o.metadata.name}.yaml`, obj: o, wave: 0 },
        { fieldManager: 'kustomize-controller' },
      );
      if ('rejection' in res) throw new Error(`${key(o)}: ${res.rejection.message}`);
    }
    const want = new Set(objs.filter((o) => o.kind === 'Kustomization').map((o) => o.metadata.name));
    for (const live of await this.list(
      '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations',
    ))
      if (!want.has(live.metadata.name!))
        await ok(
          `prune Kustomization ${live.metadata.name}`,
          request(
            this.hub.admin,
            'DELETE',
            `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/${live.metadata.name}`,
          ),
          200,
          202,
        );
  }

  async list(p: string): Promise<KubeObject[]> {
    const r = await ok(`list ${p}`, request(this.hub.admin, 'GET', p), 200);
    return ((r.json as { items?: KubeObject[] }).items ?? []) as KubeObject[];
  }

  /*
   * The controllers' finalizers: an Application being deleted with the resources finalizer gets
   * Argo CD's cascade (test/argocd-gc, the project read live from hub), then loses the finalizer; a
   * Kustomization gets kustomize-controller's finalizer on first sight and, being deleted, Flux's
   * garbage collection when it prunes (deletionPolicy not Orphan), then loses it.
   */

  private async argoFinalizers(): Promise<void> {
    const base = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
    for (const app of await this.list(base)) {
      const name = app.metadata.name!;
      const fins = (app.metadata as { finalizers?: string[] }).finalizers ?? [];
      if (!(app.metadata as { deletionTimestamp?: string }).deletionTimestamp) continue;
      if (!fins.includes(CASCADE_FINALIZER)) continue;
      const rendered = [...folder(this.before.dir, 'argocd/apps')].find((a) => a.metadata.name === name)!;
      const id = clusterOf(rendered)!;
      const out = await run(this.bins.argocd, [
        'delete',
        '-kubeconfig',
        this.clusters.get(id)!.kubeconfigPath,
        '-project-kubeconfig',
        this.hub.kubeconfigPath,
        '-application',
        this.appFile(rendered),
        '-cluster-name',
        id,
        '-timeout',
        '3m',
      ]);
      this.reports.set(`Application ${name}`, JSON.parse(out.stdout));
      await ok(
        `finalizer of Application ${name}`,
        request(
          this.hub.admin,
          'PATCH',
          `${base}/${name}`,
          { metadata: { finalizers: null } },
          'application/merge-patch+json',
        ),
        200,
        404,
      );
    }
  }

  private async fluxFinalizers(): Promise<void> {
    const FIN = 'finalizers.fluxcd.io';
    const base = '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations';
    for (const k of await this.list(base)) {
      const name = k.metadata.name!;
      const fins = (k.metadata as { finalizers?: string[] }).finalizers ?? [];
      const deleting = (k.metadata as { deletionTimestamp?: string }).deletionTimestamp !== undefined;
      if (!deleting) {
        if (!fins.includes(FIN))
          await ok(
            `finalizer on Kustomization ${name}`,
            request(
              this.hub.admin,
              'PATCH',
              `${base}/${name}`,
              { metadata: { finalizers: [...fins, FIN] } },
              'application/merge-patch+json',
            ),
            200,
          );
        continue;
      }
      if (!fins.includes(FIN)) continue;
      const spec = k.spec as { prune?: boolean; deletionPolicy?: string };
      const inventory = this.inventories.get(name);
      if (spec.prune && spec.deletionPolicy !== 'Orphan' && inventory) {
        const out = await run(this.bins.flux, [
          'delete',
          '-kubeconfig',
          await this.kubeconfigOf(k),
          '-name',
          name,
          '-namespace',
          'flux-system',
          '-inventory',
          inventory,
        ]);
        this.reports.set(`Kustomization ${name}`, JSON.parse(out.stdout));
      } else this.reports.set(`Kustomization ${name}`, 'orphaned');
      await ok(
        `finalizer of Kustomization ${name}`,
        request(
          this.hub.admin,
          'PATCH',
          `${base}/${name}`,
          { metadata: { finalizers: fins.filter((f) => f !== FIN) } },
          'application/merge-patch+json',
        ),
        200,
        404,
      );
    }
  }

  // -------------------------------------------------------------------------------------------------
  // The leader's reconciler and the members, played as Antrea's member controller.

  async startReconciler(): Promise<void> {
    const ns = this.before.plan.leaderNamespace;
    const token = await tokenFor(this.hub, ns, 'clusterset-reconciler');
    const reconcilerKubeconfig = path.join(this.work, 'reconciler.kubeconfig');
    fs.writeFileSync(reconcilerKubeconfig, kubeconfigFor(this.hub, 'reconciler', token));
    const cm = read(
      this.before.dir,
      path.join('clusters', LEADER, ns, `ConfigMap.${RECONCILER_CONFIG_NAME}.yaml`),
    ) as unknown as {
      data: Record<string, string>;
    };
    const configPath = path.join(this.work, 'config.json');
    fs.writeFileSync(configPath, cm.data[RECONCILER_CONFIG_KEY]!);
    const f = {
      plan: this.before.plan,
      ns,
      reconcilerKubeconfig,
      configPath,
      dir: this.before.dir,
    } as ClusterSetFixture;
    this.rec = startReconciler(f, `uninstall-${this.tool}`);
  }

  /** Runbook step 4: `clusterset token <member>` for each member, with the model as it was. */
  async copyTokens(): Promise<void> {
    const modelFile = path.join(this.work, 'model.json');
    fs.writeFileSync(modelFile, JSON.stringify(model(this.tool, false)));
    for (const id of MEMBERS)
      await run(process.execPath, [
        BIN,
        'token',
        id,
        '--model',
        modelFile,
        '--leader-kubeconfig',
        this.kubeconfig,
        '--leader-context',
        LEADER,
        '--member-kubeconfig',
        this.kubeconfig,
        '--member-context',
        id,
      ]);
  }

  /** Each member joins and exports as Antrea's does, with the token `clusterset token` copied. */
  async joinMembers(): Promise<void> {
    const plan = this.before.plan;
    for (const id of MEMBERS) {
      const c = this.clusters.get(id)!;
      const secret = await ok(
        `${id}'s token Secret`,
        request(
          c.admin,
          'GET',
          `/api/v1/namespaces/${plan.memberNamespace}/secrets/${plan.memberTokenSecretName}`,
        ),
        200,
      );
      const token = Buffer.from((secret.json as { data: { token: string } }).data.token, 'base64').toString();
      const sm = new SimulatedMember(id, this.hub, token, plan.leaderNamespace, SET, LEADER, c);
      this.members.set(id, sm);
      this.tokens.set(id, token);
      await ok(
        `${id}: Service shop/cart`,
        request(c.admin, 'POST', '/api/v1/namespaces/shop/services', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'cart', namespace: 'shop' },
          spec: {
            selector: { app: 'cart' },
            ports: [{ name: 'http', port: 8080, protocol: 'TCP', targetPort: 8080 }],
          },
        }),
        201,
      );
      await sm.announce();
      sm.startAnnouncing();
      await sm.exportService('shop', 'cart');
    }
    const east = this.members.get('east')!;
    await east.exportLabel('ns:kubernetes.io/metadata.name=shop&pod:app=cart');
    await east.upsertExport(
      east.clusterInfoExport({
        clusterID: 'east',
        serviceCIDR: '10.101.0.0/16',
        gatewayInfos: [{ gatewayIP: '172.18.0.11' }],
      }),
    );
    const ris = `${collectionPath(resource('ResourceImport'), plan.leaderNamespace)}`;
    await eventually(
      'the reconciler imports the endpoints, the label identity and the ClusterInfo',
      async () => {
        const names = (await this.list(ris)).map((i) => i.metadata.name);
        return ['shop-cart-endpoints', 'east-clusterinfo'].every((n) => names.includes(n)) &&
          names.some((n) => /^[0-9a-f]{16}$/.test(n ?? ''))
          ? true
          : undefined;
      },
      90_000,
    );
    for (const id of MEMBERS) {
      const c = this.clusters.get(id)!;
      await syncImports(plan, {
        member: id,
        cluster: c,
        leaderAuth: { server: this.hub.server, ca: this.hub.caPem, token: this.tokens.get(id)! },
      });
    }
  }

  /** Until no Application or Kustomization delivers `id` any more (what "only once … gone" waits for). */
  async deliveryGone(id: string): Promise<void> {
    const p =
      this.tool === 'argocd'
        ? '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications'
        : '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations';
    await eventually(
      `${id}'s delivery objects gone`,
      async () => ((await this.list(p)).some((o) => clusterOf(o) === id) ? undefined : true),
      180_000,
      300,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; background loops: ${this.troubles()}`);
    });
  }

  /**
   * Antrea's member controller in each member, from here on: once its ClusterSet is gone, it deletes
   * its announce (retrying as its reconcile is retried) and then what it imported.
   */
  watchMembers(): void {
    for (const id of MEMBERS) {
      const c = this.clusters.get(id)!;
      const p = `${collectionPath(resource('ClusterSet'), this.before.plan.memberNamespace)}/${SET}`;
      let tries = 0;
      this.loop(`member ${id}`, async () => {
        const cs = await request(c.admin, 'GET', p);
        if (cs.status !== 404) return false;
        tries++;
        const r = await this.members.get(id)!.deleteAnnounce();
        if (![200, 202, 404].includes(r.status))
          throw new Error(`delete announce: HTTP ${r.status} ${r.body.slice(0, 200)}`);
        await cleanUpImports(c);
        this.left.set(id, tries);
        return true;
      });
    }
  }

  // -------------------------------------------------------------------------------------------------
  // The After merge block, followed.

  /** Runs every `kubectl` command of one step, in its order; the rest is recorded as not run. */
  async follow(step: string): Promise<void> {
    for (const m of step.matchAll(/`([^`]+)`/g)) {
      const command = m[1]!;
      if (!/^(kubectl|argocd) /.test(command)) continue;
      const resolved = command.replace(/--context <([a-z0-9-]+)>/g, (_, id: string) => {
        if (!this.clusters.has(id)) throw new Error(`unknown context in ${command}`);
        return `--context ${id}`;
      });
      if (command.startsWith('argocd ') || resolved.includes('<')) {
        this.ran.push({ command, outcome: 'not run' });
        continue;
      }
      const args = resolved
        .split(' ')
        .slice(1)
        .map((a) => (a === '--timeout=15m' ? '--timeout=180s' : a));
      try {
        await this.kubectl(args);
      } catch (e) {
        const x = e as { stderr?: string; message: string };
        throw new Error(`${command}: ${x.stderr ?? x.message}; background loops: ${this.troubles()}`);
      }
      this.ran.push({ command, outcome: 'ran' });
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const m of this.members.values()) m.stopAnnouncing();
    await Promise.all(this.loops);
    if (this.rec) await this.rec.stop();
  }
}

/** Every listable kind a cluster serves (preferred versions), for the sweep of what is left. */
async function everything(c: Cluster): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  const groups = await ok('discovery', request(c.admin, 'GET', '/apis'), 200);
  const versions = [
    '/api/v1',
    ...((groups.json as { groups: { preferredVersion: { groupVersion: string } }[] }).groups ?? []).map(
      (g) => `/apis/${g.preferredVersion.groupVersion}`,
    ),
  ];
  for (const v of versions) {
    const res = await ok(`discovery ${v}`, request(c.admin, 'GET', v), 200);
    const list = res.json as {
      groupVersion: string;
      resources: { name: string; kind: string; verbs: string[] }[];
    };
    for (const r of list.resources) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue;
      const items = await ok(`list ${v}/${r.name}`, request(c.admin, 'GET', `${v}/${r.name}`), 200);
      for (const i of ((items.json as { items?: KubeObject[] }).items ?? []) as KubeObject[])
        out.push({ ...i, apiVersion: list.groupVersion, kind: r.kind });
    }
  }
  return out;
}

/** Carries clusterset's ownership labels for this set (render/util.ts withOwnership). */
const labelsOf = (o: KubeObject): Record<string, string> =>
  (o.metadata.labels as Record<string, string> | undefined) ?? {};
const labelled = (o: KubeObject): boolean =>
  labelsOf(o)[MANAGED_BY_LABEL] === MANAGED_BY && labelsOf(o)[PART_OF_LABEL] === SET;

/**
 * Tracked by Argo CD as one of the set's Applications' objects: a root object (Argo CD manages no
 * object with an owner; a ReplicaSet copies its Deployment's annotations) whose tracking names one.
 */
const trackedByArgo = (o: KubeObject): boolean =>
  !(o.metadata as { ownerReferences?: unknown[] }).ownerReferences?.length &&
  (o.metadata.annotations?.['argocd.argoproj.io/tracking-id'] ?? '').startsWith(SET);

/** Applied by one of the set's Kustomizations (kustomize-controller's owner label). */
const appliedByFlux = (o: KubeObject): boolean =>
  (labelsOf(o)['kustomize.toolkit.fluxcd.io/name'] ?? '').startsWith(SET);

let bins: { argocd: string; flux: string };

function world(tool: Tool): void {
  const it = suite(`uninstall under ${tool === 'argocd' ? 'Argo CD' : 'Flux'}`);
  let w: World;
  let steps: readonly string[];
  let bundles: Map<string, BundleObject[]>;

  it.before(async () => {
    try {
      bins ??= { argocd: goTool('argocd-gc'), flux: goTool('flux-gc') };
      w = new World(tool, bins);
      await w.start();
      bundles = new Map(IDS.map((id) => [id, loadBundle(path.join(w.before.dir, 'clusters', id))]));
    } catch (e) {
      // uvu reports nothing of a failing hook: say why (scripts/uvu-strict.sh fails the run).
      console.error(`uninstall e2e (${tool}) set-up failed:`, e);
      throw e;
    }
  });

  it.after(async () => {
    await w?.stop();
    await stopAll();
  });

  it(`GIVEN the ClusterSet installed as the runbook says (bootstrap, ${tool === 'argocd' ? 'each Application synced' : 'each Kustomization reconciled'}, tokens) and in use (members announced, exporting, importing) THEN every bundle is in place`, async () => {
    await w.bootstrap();
    if (tool === 'argocd') {
      await w.syncArgoRoot(w.before);
      // The leader's Application first (wave 0), then the members'.
      const apps = folder(w.before.dir, 'argocd/apps').sort((a, b) =>
        clusterOf(a) === LEADER ? -1 : clusterOf(b) === LEADER ? 1 : 0,
      );
      for (const a of apps) await w.syncApplication(a);
    } else {
      const kss = folder(w.before.dir, 'flux')
        .filter((k) => k.kind === 'Kustomization' && clusterOf(k) !== undefined)
        .sort(
          (a, b) =>
            ((a.spec as { dependsOn?: unknown[] }).dependsOn ?? []).length -
            ((b.spec as { dependsOn?: unknown[] }).dependsOn ?? []).length,
        );
      for (const k of kss) await w.syncKustomization(k);
    }
    await w.startReconciler();
    await w.copyTokens();
    await w.joinMembers();
    for (const id of IDS)
      for (const b of bundles.get(id)!)
        assert.ok(await readBack(w.clusters.get(id)!, b.obj), `${id}: ${key(b.obj)} delivered`);
    for (const id of MEMBERS) {
      const c = w.clusters.get(id)!;
      const imported = await request(c.admin, 'GET', '/api/v1/namespaces/shop/services/antrea-mc-cart');
      assert.is(imported.status, 200, `${id} imported shop/cart`);
    }
  });

  it('GIVEN `uninstall: true` WHEN synthesized THEN the members leave out/ with their delivery, the leader stays as it was, and the After merge block says what happens and in which order', () => {
    const gone = [...w.before.files.keys()].filter((f) => !w.after.files.has(f));
    assert.ok(
      gone.some((f) => f.startsWith('clusters/east/')) && gone.some((f) => f.startsWith('clusters/west/')),
    );
    for (const [f, text] of w.before.files)
      if (f.startsWith(`clusters/${LEADER}/`)) assert.is(w.after.files.get(f), text, `${f} unchanged`);
    const im = impact(w.before.files, w.after.files, diffTrees(w.before.files, w.after.files));
    steps = im.afterMerge.steps;
    const text = steps.join('\n');
    const order = [
      /^east leaves: /m,
      /^west leaves: /m,
      /^then every member leaves hub by itself: .*wait --for=delete memberclusterannounce\/member-announce-from-east memberclusterannounce\/member-announce-from-west/m,
      /^east leaves: its token Secret/m,
      tool === 'argocd'
        ? /^then remove hub under Argo CD: first the root Application, `kubectl -n argocd delete application gone-set` .*then `kubectl -n argocd delete application gone-set-hub`/m
        : /^then remove hub under Flux: first the root Kustomization, `kubectl -n flux-system delete kustomization gone-set` .*then `kubectl -n flux-system delete kustomization gone-set-hub`/m,
      tool === 'argocd'
        ? /^then, once gone-set-hub is gone .*delete appproject gone-set/m
        : /^then, once gone-set-hub is gone, `kubectl -n flux-system delete gitrepository gone-set`/m,
      /^then clusterset.ts and out\/ can leave the repository/m,
    ];
    let at = 0;
    for (const re of order) {
      const i = steps.findIndex((s, j) => j >= at && re.test(s));
      assert.ok(i >= 0, `${re} after step ${at} in:\n${text}`);
      at = i + 1;
    }
  });

  it('WHEN merged THEN the root prunes the members’ delivery, which deletes what it applied in each member; each member then leaves the leader, whose reconciler deletes its exports', async () => {
    if (tool === 'argocd') await w.syncArgoRoot(w.after);
    else await w.syncFluxRoot(w.after);
    w.watchMembers();
    // The first steps: what the tools do by themselves, and the commands that follow them.
    for (const s of steps.filter((x) => /^(east|west) leaves: (Argo CD|Flux)/.test(x))) {
      // "only once it is gone": its registration or kubeconfig is what the tool reaches it with.
      await w.deliveryGone(s.split(' ')[0]!);
      await w.follow(s);
    }
    const wait = steps.find((s) => s.startsWith('then every member leaves'))!;
    await w.follow(wait);
    // The announce went first; the member's clean-up of its own cluster may still be under way.
    await eventually('each member done leaving', async () =>
      w.left.size === MEMBERS.length ? true : undefined,
    );
    assert.equal(
      [...w.left.keys()].sort(),
      [...MEMBERS],
      'each member deleted its announce once its ClusterSet was gone',
    );
    const ns = w.before.plan.leaderNamespace;
    const mc = (r: string) => w.list(`/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${ns}/${r}`);
    assert.equal(await mc('memberclusterannounces'), [], 'no announce left');
    assert.equal(
      (await mc('resourceexports')).map((e) => e.metadata.name),
      [],
      'no export left: the announces went only after them',
    );
    // Only the compiled imports are left in the leader: the reconciler withdrew the dynamic ones.
    assert.equal((await mc('resourceimports')).map((i) => i.metadata.name).sort(), [
      'guard-rails-antreaclusternetworkpolicy',
      'shop-cart-service',
    ]);
    for (const id of MEMBERS) {
      const present: string[] = [];
      for (const b of bundles.get(id)!)
        if (await readBack(w.clusters.get(id)!, b.obj)) present.push(key(b.obj));
      assert.equal(
        present.sort(),
        [
          'CustomResourceDefinition clusterproperties.about.k8s.io',
          `Deployment kube-system/${MEMBER_CONTROLLER_DEPLOYMENT}`,
        ],
        `${id}: only what is never deleted`,
      );
    }
    // The leader is still whole: its members left through it.
    for (const b of bundles.get(LEADER)!)
      assert.ok(await readBack(w.hub, b.obj), `hub: ${key(b.obj)} still there`);
    // `clusterset status` of the uninstalling model says so too, and exits 0.
    const modelFile = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-uninstall-model-')),
      'model.json',
    );
    fs.writeFileSync(modelFile, JSON.stringify(model(tool, true)));
    const st = await run(process.execPath, [
      BIN,
      'status',
      modelFile,
      '--out',
      w.after.dir,
      '--kubeconfig',
      w.kubeconfig,
      '--format',
      'json',
    ]).catch((e: { stdout?: string; stderr?: string; code?: number }) => {
      throw new Error(`status exited ${e.code}: ${e.stdout ?? ''}${e.stderr ?? ''}`);
    });
    const report = JSON.parse(st.stdout) as StatusReport;
    assert.is(report.uninstalling, true);
    assert.equal(
      report.clusters.filter((c) => c.leaving).map((c) => [c.id, c.leaving]),
      MEMBERS.map((id) => [id, { clusterSet: 0, announce: 0, exports: 0, imported: 0 }]),
    );
  });

  it('WHEN the rest of the After merge block is followed THEN the leader goes, namespace and all, and the management cluster holds no delivery object of the set', async () => {
    for (const s of steps.slice(
      steps.indexOf(steps.find((x) => x.startsWith('then every member leaves'))!) + 1,
    ))
      await w.follow(s);
    const ns = w.before.plan.leaderNamespace;
    // Flux's finalizer returns once it has deleted; the namespace controller then empties the
    // namespace: it must complete, not stay Terminating.
    let last = '';
    await eventually(
      `namespace ${ns} gone`,
      async () => {
        const r = await request(w.hub.admin, 'GET', `/api/v1/namespaces/${ns}`);
        last = r.body.slice(0, 600);
        return r.status === 404 ? true : undefined;
      },
      120_000,
      500,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last: ${last}`);
    });
    assert.equal(
      w.ran.filter((r) => r.outcome === 'not run').map((r) => r.command),
      [
        ...(tool === 'argocd' ? ['argocd cluster rm <east>', 'argocd cluster rm <west>'] : []),
        `kubectl --context <hub> -n ${ns} delete memberclusterannounce ${announceName('<id>')}`,
      ],
      'every printed command ran but the registrations Argo CD keeps and the fallback for an announce that stays',
    );
    const reports = [...w.reports.keys()].sort();
    assert.equal(
      reports,
      tool === 'argocd'
        ? [`Application ${SET}-east`, `Application ${SET}-hub`, `Application ${SET}-west`]
        : [
            `Kustomization ${SET}`,
            `Kustomization ${SET}-east`,
            `Kustomization ${SET}-east.tiers`,
            `Kustomization ${SET}-hub`,
            `Kustomization ${SET}-west`,
            `Kustomization ${SET}-west.tiers`,
          ],
      'the tool deleted (or, for the root, orphaned) each delivery object it was asked to',
    );
  });

  it("THEN no cluster holds anything of the set but CRDs and Antrea's member controller Deployment, nor any token, import or namespace stuck Terminating", async () => {
    for (const id of IDS) {
      const c = w.clusters.get(id)!;
      const all = await everything(c);
      const ours = all
        .filter(labelled)
        .map(key)
        .filter((k) => !k.startsWith('CustomResourceDefinition '))
        .sort();
      assert.equal(ours, [], `${id}: nothing but CRDs carries the set's labels`);
      const delivered = all
        .filter((o) => (tool === 'argocd' ? trackedByArgo(o) : appliedByFlux(o)))
        .map(key)
        .filter((k) => !k.startsWith('CustomResourceDefinition '));
      assert.equal(
        delivered,
        // Argo CD keeps Antrea's Deployment, onto which it applied the restart object (Delete=false).
        tool === 'argocd' && id !== LEADER ? [`Deployment kube-system/${MEMBER_CONTROLLER_DEPLOYMENT}`] : [],
        `${id}: what the tool applied and left`,
      );
      const terminating = all
        .filter(
          (o) =>
            o.kind === 'Namespace' && (o.status as { phase?: string } | undefined)?.phase === 'Terminating',
        )
        .map(key);
      assert.equal(terminating, [], `${id}: no namespace Terminating`);
      if (id === LEADER) {
        assert.ok(
          all.some(
            (o) =>
              o.kind === 'CustomResourceDefinition' &&
              o.metadata.name === 'resourceimports.multicluster.crd.antrea.io',
          ),
          'the leader keeps its CRDs',
        );
        const identities = all.filter(
          (o) =>
            o.kind === 'ServiceAccount' && MEMBERS.some((m) => o.metadata.name === memberIdentityName(m)),
        );
        assert.equal(identities.map(key), [], 'no member identity left');
        continue;
      }
      const imported = all.filter(
        (o) =>
          ['ServiceImport', 'LabelIdentity', 'ClusterInfoImport'].includes(o.kind) ||
          ((o.kind === 'Service' || o.kind === 'Endpoints' || o.kind === 'EndpointSlice') &&
            (o.metadata.name?.startsWith('antrea-mc-') ?? false)) ||
          (o.kind === 'ClusterNetworkPolicy' && o.metadata.annotations?.[IMPORTED_ACNP] !== undefined),
      );
      assert.equal(imported.map(key), [], `${id}: nothing Antrea imported is left`);
      const token = all.filter(
        (o) => o.kind === 'Secret' && o.metadata.name === w.before.plan.memberTokenSecretName,
      );
      assert.equal(token.map(key), [], `${id}: its token Secret is gone`);
      const d = all.find((o) => o.kind === 'Deployment' && o.metadata.name === MEMBER_CONTROLLER_DEPLOYMENT)!;
      assert.equal(
        (d.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers.map(
          (x) => x.name,
        ),
        ['antrea-mc-controller'],
        `${id}: Antrea's Deployment is Antrea's still`,
      );
    }
    const mgmt = await everything(w.hub);
    const delivery = mgmt
      .filter((o) => ['Application', 'AppProject', 'Kustomization', 'GitRepository'].includes(o.kind))
      .map(key);
    assert.equal(delivery, [], 'the management cluster holds no delivery object of the set');
    if (tool === 'flux') {
      const secrets = mgmt
        .filter((o) => o.kind === 'Secret' && o.metadata.namespace === 'flux-system')
        .map(key);
      assert.equal(secrets, [], "no member's kubeconfig Secret is left");
    }
  });

  it.run();
}

world('argocd');
world('flux');
