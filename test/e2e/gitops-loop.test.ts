// End-to-end: the GitOps loop with the real delivery controllers, once under Argo CD (v3.2.6's
// application controller and repo server) and once under Flux (source-controller and
// kustomize-controller v1.9.6), each syncing out/ from a git server on loopback onto real control
// planes with a node each (gitops.ts): the leader `hub`, also the management cluster, and the
// members `east` and `central` (`west` joins and leaves later). The leader's reconciler runs from
// the image `clusterset image build` builds; each member's restart Job too; Antrea's member install
// is made with `kubectl apply`, and its member controller is played as it writes
// (parties/antrea-member/player.ts).
//
// In order, in one world per tool:
// 1. The runbook (docs/runbook.md): commit out/, bootstrap, register the clusters, give the members
//    their tokens: everything converges (every Application Synced and Healthy, every Kustomization
//    Ready), the reconciler creates its Lease and leads, the restart Jobs complete without taking
//    Antrea's Deployment over, and a Service's endpoints reach the other members.
// 2. Then nothing moves for over two resync periods while exports change and the reconciler writes:
//    no Application leaves Synced, no sync runs, no object is applied again.
// 3. A refused export (ports that differ from the model) shows Degraded / not Ready where the
//    Service's compiled import is, and healthy again once fixed; under Flux the members' delivery
//    goes on meanwhile.
// 4. Pull requests, each followed by the After merge steps its comment prints, in order: a Service
//    added, a policy in a new Tier (the members' controllers restarted by the Job, the policy imported
//    in the end), a member controller setting changed (the manual update and restart), a member
//    joining, the same member leaving (left as before it joined), a Service removed (its compiled
//    import pruned: a foreground prune under Argo CD completes), and the uninstall, after which no
//    cluster holds anything of the set but CRDs and Antrea's Deployment.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClusterSetProps } from '../../lib/model';
import {
  DEFAULT_RECONCILER_IMAGE as BUILT_IMAGE,
  MANAGED_BY_LABEL,
  MEMBER_CONTROLLER_DEPLOYMENT,
  MEMBER_RESTART_NAME,
  PART_OF_LABEL,
  RECONCILER_NAME,
  announceName,
  serviceImportName,
} from '../../lib/names';
import {
  EXPECTED_MEMBER_CONFIG_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
} from '../../lib/render/member-restart';
import { collectionPath, resource } from '../../lib/status/resources';
import type { Cluster } from '../kube/cluster';
import { request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import { antreaMemberConfigMap } from '../parties/antrea-manifests';
import { installAntreaMemberDeployment } from '../parties/antrea-member/install';
import { kubectlApply } from '../parties/kubectl';
import { loadYaml } from '../../lib/yaml';
import { IMPORTED_ACNP } from '../parties/antrea-member/imports';
import { GitOpsWorld, everything, listedKey, type Listed, type Published, type Tool } from './gitops';

type Obj = Record<string, unknown> & {
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    managedFields?: { manager: string; operation: string; time?: string; fieldsV1?: unknown }[];
  };
};

const LEADER = 'hub';
const MEMBERS = ['east', 'central', 'west'] as const;
const LNS = 'antrea-multicluster';
const CART = {
  namespace: 'shop',
  name: 'cart',
  ports: [{ name: 'http', port: 8080, protocol: 'TCP' as const }],
};
const LEDGER = {
  namespace: 'payments',
  name: 'ledger',
  ports: [{ name: 'grpc', port: 9443, protocol: 'TCP' as const }],
};
/** Argo CD's `timeout.reconciliation` and the Kustomizations' interval. */
const RESYNC: Record<Tool, string> = { argocd: '20s', flux: '30s' };
const RESYNC_MS: Record<Tool, number> = { argocd: 20_000, flux: 30_000 };

interface Shape {
  members: string[];
  /** reconciler.image, when not the one the world built and loaded. */
  image?: string;
  services: { namespace: string; name: string; ports: typeof CART.ports; exportedFrom: string[] }[];
  day2?: boolean;
  stretchedEast?: boolean;
  uninstall?: boolean;
}

/** The model of the world at one commit. */
function model(w: GitOpsWorld, s: Shape): ClusterSetProps {
  const ids = [LEADER, ...MEMBERS];
  return {
    clusterSetId: `loop-${w.o.tool}`,
    antreaVersion: '2.7.0',
    leader: LEADER,
    members: s.members,
    clusters: ids
      .filter((id) => id === LEADER || s.members.includes(id))
      .map((id) => ({
        id,
        apiServer: w.cluster(id).server,
        serviceCIDR: `10.${110 + ids.indexOf(id)}.0.0/16`,
        podCIDRs: [`10.${210 + ids.indexOf(id)}.0.0/16`],
        ...(id === 'east' && s.stretchedEast ? { enableStretchedNetworkPolicy: true } : {}),
      })),
    services: s.services.map((x) => ({ ...x, ports: x.ports.map((p) => ({ ...p })) })),
    tiers: [
      { name: 'loop-baseline', priority: 240 },
      ...(s.day2 ? [{ name: 'loop-day2', priority: 150 }] : []),
    ],
    baselinePolicies: [
      {
        name: 'deny-cross-ns-payments',
        tier: 'loop-baseline',
        priority: 10,
        appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'payments' } } }],
        ingress: [{ name: 'drop-rest', action: 'Drop', from: [{ namespaceSelector: {} }] }],
      },
      ...(s.day2
        ? [
            {
              name: 'day2-guard',
              tier: 'loop-day2',
              priority: 5,
              appliedTo: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
              ingress: [{ name: 'drop-all', action: 'Drop' as const, from: [{ namespaceSelector: {} }] }],
            },
          ]
        : []),
    ],
    reconciler: { replicas: 1, ...(s.image ? { image: s.image } : {}) },
    delivery: {
      repoURL: w.git.url,
      branch: 'main',
      path: 'out',
      managementCluster: LEADER,
      argocd: w.o.tool === 'argocd' ? {} : { enabled: false },
      flux: w.o.tool === 'flux' ? { interval: RESYNC.flux } : { enabled: false },
    },
    ...(s.uninstall ? { uninstall: true } : {}),
  } as ClusterSetProps;
}

async function get(c: Cluster, path: string): Promise<Obj | undefined> {
  const r = await request(c.admin, 'GET', path);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return r.json as Obj;
}

async function list(c: Cluster, path: string): Promise<Obj[]> {
  const r = await request(c.admin, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return ((r.json as { items?: Obj[] }).items ?? []) as Obj[];
}

const objectPath = (kind: string, name: string, ns?: string) =>
  `${collectionPath(resource(kind), ns)}/${name}`;

/** The field manager each tool applies with. */
const DELIVERY_MANAGER: Record<Tool, string> = { argocd: 'argocd-controller', flux: 'kustomize-controller' };

/** Every object of every bundle of `p` as it is live: `<cluster> <file>` → object. */
async function liveBundles(w: GitOpsWorld, p: Published): Promise<Map<string, Obj | undefined>> {
  const out = new Map<string, Obj | undefined>();
  for (const [file, text] of p.files) {
    const m = /^clusters\/([^/]+)\/(?:([^/]+)\/)?([A-Za-z]+)\.(.+)\.yaml$/.exec(file);
    if (!m || file.endsWith('kustomization.yaml')) continue;
    const [, id, folder, kind] = m as unknown as [string, string, string, string];
    const name = /\n {2}name: ([^\n]+)\n/.exec(text)?.[1]?.replace(/^'|'$/g, '') ?? '';
    const ns = folder === '_cluster' ? undefined : folder;
    out.set(`${id} ${file}`, await get(w.cluster(id), objectPath(kind, name, ns)));
  }
  return out;
}

/** The delivery tool's write times per object: what changes when it applies an object again. */
function deliveryWrites(tool: Tool, objs: ReadonlyMap<string, Obj | undefined>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, o] of objs) {
    const mine = (o?.metadata.managedFields ?? []).filter((f) => f.manager === DELIVERY_MANAGER[tool]);
    out.set(k, mine.map((f) => `${f.operation}@${f.time ?? ''}`).join(',') || '(none)');
  }
  return out;
}

/** The settings Antrea's install must hold in `id`, as the bundle's restart Job carries them (and `explain` prints). */
function expectedConfig(p: Published, id: string): string {
  const file = [...p.files.keys()].find((f) =>
    f.startsWith(`clusters/${id}/kube-system/Job.${MEMBER_RESTART_NAME}-`),
  );
  if (!file) throw new Error(`no restart Job in ${id}'s bundle`);
  const job = loadYaml(p.files.get(file)!) as Obj;
  return job.metadata.annotations![EXPECTED_MEMBER_CONFIG_ANNOTATION]!;
}

/** What a "update Antrea's member controller config" step asks of Antrea's install in `id` (kubectl apply). */
function updateAntreaInstall(w: GitOpsWorld, p: Published, id: string): void {
  const cm = antreaMemberConfigMap('kube-system');
  kubectlApply(w.cluster(id), [{ ...cm, data: { 'controller_manager_config.yaml': expectedConfig(p, id) } }]);
}

function worldSuite(tool: Tool): void {
  const test = suite(`gitops loop under ${tool === 'argocd' ? 'Argo CD' : 'Flux'} (real controllers)`);
  const w = new GitOpsWorld({
    tool,
    prefix: `l${tool[0]}`,
    leader: LEADER,
    members: [...MEMBERS],
    resync: RESYNC[tool],
  });
  let shape: Shape = {
    members: ['east', 'central'],
    services: [{ ...CART, exportedFrom: ['east', 'central'] }],
  };
  /** The first step that failed: every later one says so instead of failing on what it left. */
  let failed: string | undefined;
  const step = (name: string, body: () => Promise<void>) =>
    test(name, async () => {
      if (failed) throw new Error(`not run: an earlier step failed (${failed})`);
      try {
        await body();
      } catch (e) {
        failed = name;
        throw e;
      }
    });
  const publish = (next: Shape, message: string) => {
    shape = next;
    return w.publish(model(w, next), message);
  };
  /** Pushes, follows the After merge steps in order, and waits for convergence. */
  const change = async (next: Shape, message: string, during?: (step: string) => Promise<boolean>) => {
    const p = await publish(next, message);
    await w.refresh();
    for (const step of p.impact?.afterMerge.steps ?? []) {
      if (during && (await during(step))) continue;
      await w.follow(step);
    }
    await w.converged(p);
    return p;
  };

  test.after(async () => {
    await w.stop();
    await stopAll();
  });

  step(
    "the first pull request's checklist, followed top to bottom as printed: every command runs, the printed wait passes, everything converges and the reconciler leads",
    async () => {
      await w.start();
      const p = await publish(shape, 'fleet: first ClusterSet');
      // Antrea's member install, as each member has it before the ClusterSet exists.
      await w.installAntrea(p.plan);
      const { beforeMerge, steps } = p.impact.afterMerge;
      // Before merge: the image. No registry is reachable here; the world built the image with
      // `clusterset image build` (the command the step names) and loaded it into every node.
      assert.equal(beforeMerge.length, 1, beforeMerge.join('\n'));
      assert.match(beforeMerge[0]!, /`npx clusterset image build --tag <registry>\/clusterset:[^ ]+ --push`/);
      const since = w.ran.length;
      for (const step of steps) {
        // What "update Antrea's member controller config" asks of Antrea's install (kubectl apply);
        // its restarts are the step's own commands.
        if (step.startsWith("update Antrea's member controller config in"))
          for (const id of ['east', 'central']) updateAntreaInstall(w, p, id);
        await w.follow(step);
        // The application team deploys its Service once its Namespace exists.
        const team = /^before ([a-z0-9-]+)'s first sync, create the exported Services' Namespace/.exec(
          step,
        )?.[1];
        if (team) await w.service(team, CART.namespace, CART.name, CART.ports);
      }
      // No webhook, no refresh: the tools act on what the checklist creates. The last step is the
      // wait, and it passed.
      assert.match(
        steps.at(-1)!,
        /^wait until every (Application is Synced and Healthy|Kustomization is Ready)/,
      );
      assert.equal(w.notRun(since), [], 'every printed command ran');
      assert.ok(
        w.ran.slice(since).some((r) => r.command.startsWith('npx clusterset token east ')),
        w.ran.map((r) => r.command).join('\n'),
      );
      await w.converged(p);

      // The Lease: not in any bundle, created by the reconciler (a POST, its field manager), held.
      const lease = await eventually(
        'the reconciler holds its Lease',
        async () => {
          const l = await get(w.hub, objectPath('Lease', RECONCILER_NAME, LNS));
          return (l?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ? l : undefined;
        },
        120_000,
      );
      assert.ok(
        !p.files.has(`clusters/${LEADER}/${LNS}/Lease.${RECONCILER_NAME}.yaml`),
        'no bundle renders the Lease',
      );
      assert.equal(
        lease.metadata.managedFields?.map((f) => f.manager),
        [RECONCILER_NAME],
        'the reconciler created the Lease, and only it writes it',
      );
      const pods = await list(
        w.hub,
        `/api/v1/namespaces/${LNS}/pods?labelSelector=app.kubernetes.io%2Fname%3D${RECONCILER_NAME}`,
      );
      assert.ok(
        pods.some((pod) => pod.metadata.name === (lease.spec as { holderIdentity: string }).holderIdentity),
        "the holder is the Deployment's Pod, running from the image",
      );

      // The members: connected, exports valid, each other's endpoints imported.
      for (const id of ['east', 'central']) {
        const player = w.players.get(id)!;
        await eventually(
          `${id} connected (${w.troubles()})`,
          async () => (player.isConnected ? true : undefined),
          120_000,
        );
      }
      const east = w.cluster('east');
      const central = w.cluster('central');
      const centralCart = (await get(central, objectPath('Service', 'cart', 'shop')))!.spec as {
        clusterIP: string;
      };
      await eventually(
        `east's Endpoints shop/antrea-mc-cart hold central's ClusterIP (${w.troubles()})`,
        async () => {
          const ep = await get(east, objectPath('Endpoints', 'antrea-mc-cart', 'shop'));
          return JSON.stringify(ep?.subsets ?? []).includes(centralCart.clusterIP) ? true : undefined;
        },
        120_000,
      );

      // The restart Jobs ran, as the reconciler's image, and own nothing of Antrea's Deployment.
      for (const id of ['east', 'central']) {
        const c = w.cluster(id);
        const jobs = await list(
          c,
          `${collectionPath(resource('Job'), 'kube-system')}?labelSelector=app.kubernetes.io%2Fname%3D${MEMBER_RESTART_NAME}`,
        );
        assert.is(jobs.length, 1, `${id}: one restart Job`);
        assert.ok(
          ((jobs[0]!.status as { succeeded?: number }).succeeded ?? 0) >= 1,
          `${id}: the Job completed`,
        );
        const d = (await get(c, objectPath('Deployment', MEMBER_CONTROLLER_DEPLOYMENT, 'kube-system')))!;
        const template = (d.spec as { template: { metadata: { annotations?: Record<string, string> } } })
          .template;
        assert.ok(
          template.metadata.annotations?.[TIERS_CHECKSUM_ANNOTATION],
          `${id}: the Job set the Tiers' checksum`,
        );
        const managers = d.metadata.managedFields!.map((f) => `${f.manager}/${f.operation}`);
        assert.ok(managers.includes('kubectl-client-side-apply/Update'), managers.join());
        assert.not.ok(
          managers.some((m) => m.startsWith(`${DELIVERY_MANAGER[tool]}/`)),
          `${id}: the delivery tool owns nothing of Antrea's Deployment: ${managers.join()}`,
        );
        const install = d.metadata.managedFields!.find((f) => f.manager === 'kubectl-client-side-apply')!;
        assert.ok(
          JSON.stringify(install.fieldsV1).includes('"f:containers"'),
          `${id}: Antrea's install still owns its containers`,
        );
        assert.ok(
          d.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
          'installed with kubectl apply',
        );
      }
    },
  );

  step(
    'then nothing moves for two resync periods while exports change and the reconciler writes',
    async () => {
      const p = w.current!;
      const before = deliveryWrites(tool, await liveBundles(w, p));
      const apps = async (): Promise<Obj[]> =>
        tool === 'argocd'
          ? await Promise.all(
              [p.plan.clusterSetId, ...w.expectedDelivery()].map(
                async (n) => (await w.argocd!.app(n)) as Obj,
              ),
            )
          : [];
      const ops = JSON.stringify(
        (await apps()).map((a) => [
          (a.status as Obj).operationState ? ((a.status as Obj).operationState as Obj).startedAt : '',
          ((a.status as Obj).history as unknown[] | undefined)?.length ?? 0,
        ]),
      );
      const t0 = Date.now();
      const window = 2 * RESYNC_MS[tool] + 15_000;
      let churn = 0;
      const notSynced: string[] = [];
      while (Date.now() - t0 < window) {
        // Exports change: central withdraws shop/cart (no endpoints) and brings it back.
        const slice = '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices/cart-app';
        if (churn % 2 === 0) await request(w.cluster('central').admin, 'DELETE', slice);
        else await w.service('central', CART.namespace, CART.name, CART.ports);
        churn++;
        for (let i = 0; i < 5; i++) {
          for (const a of await apps()) {
            const s = ((a.status as Obj).sync as { status?: string } | undefined)?.status;
            if (s !== 'Synced') notSynced.push(`${a.metadata.name}: ${s}`);
          }
          await sleep(1000);
        }
      }
      await w.service('central', CART.namespace, CART.name, CART.ports);
      assert.equal(notSynced, [], 'no Application left Synced');
      assert.equal(
        JSON.stringify(
          (await apps()).map((a) => [
            (a.status as Obj).operationState ? ((a.status as Obj).operationState as Obj).startedAt : '',
            ((a.status as Obj).history as unknown[] | undefined)?.length ?? 0,
          ]),
        ),
        ops,
        'no sync operation ran',
      );
      const after = deliveryWrites(tool, await liveBundles(w, p));
      const moved = [...after]
        .filter(([k, v]) => before.get(k) !== v)
        .map(([k, v]) => `${k}: ${before.get(k)} → ${v}`);
      assert.equal(moved, [], `no object was applied again by ${DELIVERY_MANAGER[tool]}`);
      // It did churn: the reconciler wrote the endpoints import meanwhile.
      assert.ok(churn >= 3, `exports changed ${churn} times`);
      if (tool === 'flux') {
        for (const n of w.expectedDelivery()) {
          const k = (await w.flux!.kustomization(n))!;
          assert.ok(
            ((k.status as Obj).lastAppliedRevision as string).endsWith(p.sha),
            `${n} stays at the commit`,
          );
        }
      }
      await w.converged(p);
    },
  );

  step(
    "a refused export (ports that differ from the model) shows on the Service's compiled import, and heals",
    async () => {
      const importName = serviceImportName(CART.namespace, CART.name);
      await w.service('central', CART.namespace, CART.name, [{ name: 'http', port: 8081, protocol: 'TCP' }]);
      const ri = await eventually(
        'the reconciler reports central refused on the import',
        async () => {
          const i = await get(w.hub, objectPath('ResourceImport', importName, LNS));
          return JSON.stringify((i?.status as Obj | undefined)?.clusterStatuses ?? []).includes(
            '"status":"False"',
          )
            ? i
            : undefined;
        },
        120_000,
      );
      assert.match(
        JSON.stringify(ri.status),
        /central.*ports \[8081\/TCP http\] differ from the model's \[8080\/TCP http\]/,
      );
      const hubApp = w.deliveryOf(LEADER);
      if (tool === 'argocd') {
        await w.argocd!.refresh(hubApp);
        const app = await w.argocd!.waitApp(hubApp, { sync: 'Synced', health: 'Degraded' }, 120_000);
        const res = (
          (app.status as Obj).resources as {
            kind: string;
            name: string;
            health?: { status: string; message?: string };
          }[]
        ).find((r) => r.kind === 'ResourceImport' && r.name === importName)!;
        assert.is(res.health?.status, 'Degraded');
        assert.match(res.health?.message ?? '', /central: .*ports \[8081\/TCP http\] differ/);
        for (const r of (
          app.status as { resources: { kind: string; name: string; health?: { status: string } }[] }
        ).resources)
          if (r.kind === 'ResourceImport' && r.name !== importName)
            assert.is(r.health?.status, 'Healthy', `${r.name} stays Healthy`);
        for (const m of ['east', 'central'])
          await w.argocd!.waitApp(w.deliveryOf(m), { sync: 'Synced', health: 'Healthy' });
      } else {
        await w.flux!.requestReconcile('Kustomization', hubApp);
        const k = await w.flux!.waitReady(hubApp, { ready: false }, 180_000);
        const ready = (
          (k.status as Obj).conditions as { type: string; reason: string; message: string }[]
        ).find((c) => c.type === 'Ready')!;
        assert.is(ready.reason, 'HealthCheckFailed');
        assert.match(ready.message, new RegExp(`ResourceImport/${LNS}/${importName}`));
        // The members' delivery goes on: their readiness check of the leader accepts a failed health check.
        for (const m of ['east', 'central']) {
          await w.flux!.requestReconcile('Kustomization', w.deliveryOf(m));
          await w.flux!.waitReady(w.deliveryOf(m), {}, 180_000);
        }
      }
      await w.service('central', CART.namespace, CART.name, CART.ports);
      await eventually(
        'the import heals',
        async () => {
          const i = await get(w.hub, objectPath('ResourceImport', importName, LNS));
          return JSON.stringify((i?.status as Obj | undefined)?.clusterStatuses ?? []).includes(
            '"status":"False"',
          )
            ? undefined
            : true;
        },
        120_000,
      );
      if (tool === 'argocd') {
        await w.argocd!.refresh(hubApp);
        await w.argocd!.waitApp(hubApp, { sync: 'Synced', health: 'Healthy' }, 120_000);
      } else {
        await w.flux!.requestReconcile('Kustomization', hubApp);
        await w.flux!.waitReady(hubApp, {}, 180_000);
      }
    },
  );

  step(
    'a pull request adds a Service: its import, its export and its endpoints in the other member',
    async () => {
      await w.service('central', LEDGER.namespace, LEDGER.name, LEDGER.ports);
      // The application team's Namespace in east too, where the import lands.
      await w.service('east', LEDGER.namespace, 'unrelated', [{ name: 'x', port: 1 }]);
      await change(
        { ...shape, services: [...shape.services, { ...LEDGER, exportedFrom: ['central'] }] },
        'fleet: export payments/ledger',
      );
      const ip = (
        (await get(w.cluster('central'), objectPath('Service', 'ledger', 'payments')))!.spec as {
          clusterIP: string;
        }
      ).clusterIP;
      await eventually(
        `east's Endpoints payments/antrea-mc-ledger (${w.troubles()})`,
        async () => {
          const ep = await get(w.cluster('east'), objectPath('Endpoints', 'antrea-mc-ledger', 'payments'));
          return JSON.stringify(ep?.subsets ?? []).includes(ip) ? true : undefined;
        },
        120_000,
      );
    },
  );

  step(
    'a pull request adds a Tier and a policy in it: the restart Job restarts each member controller after the Tier, and the policy is imported',
    async () => {
      const before = new Map<string, string>();
      for (const id of ['east', 'central']) {
        const d = (await get(
          w.cluster(id),
          objectPath('Deployment', MEMBER_CONTROLLER_DEPLOYMENT, 'kube-system'),
        ))!;
        before.set(
          id,
          (d.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata
            .annotations[TIERS_CHECKSUM_ANNOTATION]!,
        );
      }
      const p = await publish({ ...shape, day2: true }, 'fleet: day-2 guard in a new Tier');
      // The leader first: the worst order for a member (its import before its Tier).
      await w.refresh([w.deliveryOf(LEADER)]);
      await w.refresh();
      for (const step of p.impact!.afterMerge.steps) await w.follow(step);
      assert.ok(
        p.impact!.items.some((i) =>
          /Antrea's member controller restarts in .*its Tiers changed/.test(i.text),
        ),
        'the PR comment says the controllers restart',
      );
      assert.not.ok(
        p.impact!.afterMerge.steps.some((s) => /rollout restart/.test(s)),
        'no restart is left to a person',
      );
      await w.converged(p);
      for (const id of ['east', 'central']) {
        const c = w.cluster(id);
        const tier = (await get(c, objectPath('Tier', 'loop-day2')))!;
        const d = (await get(c, objectPath('Deployment', MEMBER_CONTROLLER_DEPLOYMENT, 'kube-system')))!;
        const now = (d.spec as { template: { metadata: { annotations: Record<string, string> } } }).template
          .metadata.annotations[TIERS_CHECKSUM_ANNOTATION]!;
        assert.is.not(now, before.get(id), `${id}: the Tiers' checksum changed`);
        const rss = await list(c, '/apis/apps/v1/namespaces/kube-system/replicasets');
        const rolled = rss.filter((rs) => JSON.stringify(rs.spec).includes(now));
        assert.is(rolled.length, 1, `${id}: a ReplicaSet of the new template`);
        assert.ok(
          rolled[0]!.metadata.creationTimestamp! >= tier.metadata.creationTimestamp!,
          `${id}: rolled out after the Tier existed`,
        );
        await eventually(
          `${id} imported the policy (${w.troubles()}; dropped: ${w.players.get(id)!.events.dropped.join()})`,
          async () =>
            (await get(c, objectPath('ClusterNetworkPolicy', 'antrea-mc-day2-guard'))) ? true : undefined,
          120_000,
        );
      }
    },
  );

  step(
    "a pull request changes a member controller setting: the printed update and restart, in Antrea's install",
    async () => {
      const p = await publish({ ...shape, stretchedEast: true }, 'fleet: stretched policies in east');
      await w.refresh();
      const steps = p.impact!.afterMerge.steps;
      const update = steps.find((s) => s.startsWith("update Antrea's member controller config in east"));
      assert.ok(update, steps.join('\n'));
      const epochs = w.players.get('east')!.events.epochs;
      await w.converged(p);
      // What the step asks of Antrea's install: the ConfigMap as `clusterset explain` prints it (the
      // restart Job carries the same text), applied by that install (kubectl apply).
      const job = (
        await list(
          w.cluster('east'),
          `${collectionPath(resource('Job'), 'kube-system')}?labelSelector=app.kubernetes.io%2Fname%3D${MEMBER_RESTART_NAME}`,
        )
      )[0]!;
      assert.is(job.metadata.annotations![EXPECTED_MEMBER_CONFIG_ANNOTATION], expectedConfig(p, 'east'));
      assert.match(expectedConfig(p, 'east'), /enableStretchedNetworkPolicy: true/);
      updateAntreaInstall(w, p, 'east');
      for (const step of steps) await w.follow(step);
      assert.ok(
        w.ran.some(
          (r) =>
            r.outcome === 'ran' &&
            /--context east -n kube-system rollout restart deployment antrea-mc-controller|rollout restart/.test(
              r.command,
            ),
        ),
      );
      await eventually(
        "east's controller restarted",
        async () => (w.players.get('east')!.events.epochs > epochs ? true : undefined),
        60_000,
      );
    },
  );

  step(
    'a pull request adds a member: registration, token and AppProject as printed; it joins and imports',
    async () => {
      await w.service('west', CART.namespace, CART.name, CART.ports);
      await w.service('west', LEDGER.namespace, 'unrelated', [{ name: 'x', port: 1 }]);
      const next = {
        ...shape,
        members: ['east', 'central', 'west'],
        services: shape.services.map((s) =>
          s.name === 'cart' ? { ...s, exportedFrom: [...s.exportedFrom, 'west'] } : s,
        ),
      };
      const p = await publish(next, 'fleet: west joins');
      await w.refresh();
      for (const step of p.impact!.afterMerge.steps) {
        if (/^register west|argocd cluster add|kubeconfig/.test(step)) {
          // `argocd cluster add` (no Argo CD API server here) or the Flux kubeconfig Secret: made as they make them.
          await w.register('west');
          w.ran.push({ command: step, outcome: 'ran' });
          continue;
        }
        if (step.startsWith("before west's first sync, create the exported Services' Namespace")) {
          // The application teams' Namespaces, made above as they make them (w.service): the printed
          // `kubectl create namespace` would find them there already.
          for (const ns of [CART.namespace, LEDGER.namespace])
            assert.ok(step.includes(`\`kubectl --context <west> create namespace ${ns}\``), step);
          w.ran.push({ command: step, outcome: 'ran' });
          continue;
        }
        if (step.startsWith("before west's first sync, enable in Antrea's install there")) {
          // These test clusters run no Antrea agent or controller (only its member controller, played
          // by parties/antrea-member/player.ts), so nothing reads these files: the step is checked for what
          // it names, and its restarts are not run (nor recorded as run).
          assert.ok(step.includes('featureGates.Multicluster'), step);
          assert.ok(step.includes('rollout restart daemonset antrea-agent'), step);
          continue;
        }
        if (/clusterset token west/.test(step)) {
          await w.leaderApplied(p);
          await w.tokens(['west']);
          w.ran.push({ command: step, outcome: 'ran' });
          continue;
        }
        if (step.startsWith("update Antrea's member controller config in west"))
          updateAntreaInstall(w, p, 'west');
        await w.follow(step);
      }
      await w.refresh();
      await w.converged(p);
      await eventually(
        `west connected (${w.troubles()})`,
        async () => (w.players.get('west')!.isConnected ? true : undefined),
        120_000,
      );
      const ip = (
        (await get(w.cluster('east'), objectPath('Service', 'cart', 'shop')))!.spec as { clusterIP: string }
      ).clusterIP;
      await eventually(
        "west imports east's cart endpoints",
        async () => {
          const ep = await get(w.cluster('west'), objectPath('Endpoints', 'antrea-mc-cart', 'shop'));
          return JSON.stringify(ep?.subsets ?? []).includes(ip) ? true : undefined;
        },
        120_000,
      );
    },
  );

  step(
    'a pull request removes that member: the printed steps in order, and west is left as before it joined',
    async () => {
      const next = {
        ...shape,
        members: ['east', 'central'],
        services: shape.services.map((s) => ({
          ...s,
          exportedFrom: s.exportedFrom.filter((m) => m !== 'west'),
        })),
      };
      const p = await publish(next, 'fleet: west leaves');
      await w.refresh();
      for (const step of p.impact!.afterMerge.steps) {
        await w.follow(step);
      }
      await w.converged(p);
      const west = w.cluster('west');
      const set = p.plan.clusterSetId;
      await eventually(
        'west holds nothing of the set',
        async () => {
          const left: string[] = [];
          for (const kind of [
            'ClusterSet',
            'ServiceExport',
            'Job',
            'Role',
            'RoleBinding',
            'ServiceAccount',
            'Tier',
            'ClusterProperty',
          ]) {
            const r = resource(kind);
            const base = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
            for (const o of await list(
              west,
              `${base}/${r.plural}?labelSelector=${encodeURIComponent(`${PART_OF_LABEL}=${set}`)}`,
            ))
              left.push(`${kind} ${o.metadata.name}`);
          }
          return left.length === 0 ? true : undefined;
        },
        180_000,
      );
      assert.ok(
        await get(west, objectPath('Deployment', MEMBER_CONTROLLER_DEPLOYMENT, 'kube-system')),
        "Antrea's Deployment stays",
      );
      // The printed restart: started with no ClusterSet, Antrea's member deletes what it imported.
      await eventually(
        `west drops what it imported (${w.troubles()})`,
        async () => {
          const left = [
            ...(await list(west, '/apis/multicluster.x-k8s.io/v1alpha1/serviceimports')),
            ...(await list(west, '/api/v1/services')).filter((o) => o.metadata.name.startsWith('antrea-mc-')),
          ];
          return left.length === 0 ? true : undefined;
        },
        120_000,
      );
      await eventually(
        'the leader lets west go',
        async () =>
          (await get(w.hub, objectPath('MemberClusterAnnounce', announceName('west'), LNS)))
            ? undefined
            : true,
        120_000,
      );
    },
  );

  step(
    "a pull request whose restart Jobs cannot run yet (reconciler.image not pushed; Antrea's member controller gone from central) withdraws central's export of shop/cart: the withdrawal is pruned and reaches the leader meanwhile, each member says why, and the Jobs run by themselves once the image is pushed and Antrea is back",
    async () => {
      const central = w.cluster('central');
      const east = w.cluster('east');
      const ns = 'kube-system';
      // Antrea's member controller gone from central (its install undone, say): the restart there
      // will have nothing to restart. The played controller runs on: it is the process, not the object.
      await w.kubectl([
        '--context',
        'central',
        '-n',
        ns,
        'delete',
        'deployment',
        MEMBER_CONTROLLER_DEPLOYMENT,
      ]);
      const unpushed = `${BUILT_IMAGE}-next`;
      const p = await publish(
        {
          ...shape,
          image: unpushed,
          services: shape.services.map((x) => (x.name === CART.name ? { ...x, exportedFrom: ['east'] } : x)),
        },
        'fleet: a new reconciler image; central stops exporting shop/cart',
      );
      await w.refresh();
      // Not held back: central's ServiceExport is pruned, and its export withdrawn from the leader
      // (central's controller had re-exported it after its last restart: the restart Job of then).
      await eventually(
        `central's ServiceExport shop/cart pruned (${w.troubles()})`,
        async () =>
          (await get(central, objectPath('ServiceExport', CART.name, CART.namespace))) ? undefined : true,
        120_000,
      );
      await eventually(
        "central's exports of shop/cart withdrawn from the leader",
        async () => {
          const left = (await list(w.hub, collectionPath(resource('ResourceExport'), LNS))).filter((e) =>
            e.metadata.name.startsWith(`central-${CART.namespace}-${CART.name}-`),
          );
          return left.length === 0 ? true : undefined;
        },
        60_000,
      );
      // The new Jobs cannot start: their image is not on any node and no registry is reachable.
      const jobName = (id: string) =>
        [...p.files.keys()]
          .filter(
            (f) => f.startsWith(`out/clusters/${id}/${ns}/Job.`) || f.startsWith(`clusters/${id}/${ns}/Job.`),
          )
          .map((f) => f.replace(/^.*\/Job\.(.*)\.yaml$/, '$1'))[0]!;
      const pullFailure = async (c: Cluster, job: string) => {
        const pods = await list(c, `/api/v1/namespaces/${ns}/pods?labelSelector=job-name%3D${job}`);
        const waiting = pods.flatMap((x) =>
          (
            (x.status as { containerStatuses?: { state?: { waiting?: { reason?: string } } }[] } | undefined)
              ?.containerStatuses ?? []
          ).map((st) => st.state?.waiting?.reason ?? ''),
        );
        return waiting.some((r) => /ErrImagePull|ImagePullBackOff/.test(r)) ? true : undefined;
      };
      await eventually(
        `east's Job ${jobName('east')} cannot pull its image`,
        () => pullFailure(east, jobName('east')),
        120_000,
      );
      const status = () =>
        w.status<{
          clusters: { id: string; restart?: { state: string; detail?: string } }[];
          problems: string[];
        }>(true);
      const st = await status();
      assert.is(
        st.clusters.find((c) => c.id === 'east')?.restart?.state,
        'cannot start',
        JSON.stringify(st.clusters),
      );
      assert.ok(
        st.problems.some((x) =>
          /^east: the restart Job .* cannot start: its Pod .* waits, (ErrImagePull|ImagePullBackOff)/.test(x),
        ),
        st.problems.join('\n'),
      );
      // The delivery tool applied the commit all the same.
      if (tool === 'argocd')
        await w.argocd!.waitApp(w.deliveryOf('east'), { sync: 'Synced', revision: p.sha }, 120_000);
      // The image pushed (tagged on every node, as a registry would serve it): the kubelet's next
      // pull finds it, and east's Job goes on by itself.
      for (const id of [LEADER, ...shape.members])
        for (const n of w.cluster(id).nodes)
          await n.exec([
            'ctr',
            '--address',
            n.containerdSocket,
            '-n',
            'k8s.io',
            'images',
            'tag',
            BUILT_IMAGE,
            unpushed,
          ]);
      const complete = async (c: Cluster, job: string) =>
        (
          (await get(c, `/apis/batch/v1/namespaces/${ns}/jobs/${job}`))?.status as
            { succeeded?: number } | undefined
        )?.succeeded
          ? true
          : undefined;
      await eventually(
        `east's restart Job ${jobName('east')} complete`,
        () => complete(east, jobName('east')),
        360_000,
        2000,
      );
      // central's Job runs now and stops at what it can name: Antrea's Deployment is missing. Its
      // ClusterSet turns Degraded with the cause (the Job's own status says only "running").
      const cause =
        /Antrea's member controller restart cannot go on: clusterset-restart-\S+ failed: Deployment kube-system\/antrea-mc-controller does not exist/;
      if (tool === 'argocd')
        await eventually(
          "central's Application Degraded with the cause",
          async () => {
            const app = await w.argocd!.app(w.deliveryOf('central'));
            const st2 = (app?.status ?? {}) as {
              health?: { status?: string };
              resources?: { kind: string; health?: { status?: string; message?: string } }[];
            };
            const cs = st2.resources?.find((r) => r.kind === 'ClusterSet');
            return st2.health?.status === 'Degraded' && cause.test(cs?.health?.message ?? '')
              ? true
              : undefined;
          },
          360_000,
          2000,
        );
      else
        await eventually(
          "central's Kustomization not Ready on its ClusterSet's health check",
          async () => {
            const k = await w.flux!.kustomization(w.deliveryOf('central'));
            const ready = (
              (k?.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)
                ?.conditions ?? []
            ).find((c) => c.type === 'Ready');
            return ready?.status === 'False' && /ClusterSet/.test(ready.message ?? '') ? true : undefined;
          },
          360_000,
          2000,
        );
      const failed = await status();
      assert.match(
        failed.clusters.find((c) => c.id === 'central')?.restart?.detail ?? '',
        /Deployment kube-system\/antrea-mc-controller does not exist/,
      );
      // Antrea's member controller installed again: the kubelet's next restart of the Job's
      // container goes on, restarts it, re-exports and completes; everything converges.
      await installAntreaMemberDeployment(central, p.plan);
      await eventually(
        `central's restart Job ${jobName('central')} complete`,
        () => complete(central, jobName('central')),
        360_000,
        2000,
      );
      await w.converged(p);
    },
  );

  step(
    'a pull request removes a Service: its compiled import is pruned, whatever the propagation, and members drop it',
    async () => {
      const importName = serviceImportName(LEDGER.namespace, LEDGER.name);
      const p = await change(
        { ...shape, services: shape.services.filter((s) => s.name !== 'ledger') },
        'fleet: payments/ledger is no longer exported',
      );
      await eventually(
        'the compiled import is gone (not stuck Terminating)',
        async () => ((await get(w.hub, objectPath('ResourceImport', importName, LNS))) ? undefined : true),
        120_000,
      );
      await eventually(
        'east no longer imports ledger',
        async () =>
          (await get(w.cluster('east'), objectPath('ServiceImport', 'ledger', 'payments')))
            ? undefined
            : true,
        120_000,
      );
      if (tool === 'argocd')
        await w.argocd!.waitApp(w.deliveryOf(LEADER), { sync: 'Synced', health: 'Healthy', revision: p.sha });
    },
  );

  step(
    'the uninstall, as its After merge block prints it: the members leave through the leader, then the leader goes',
    async () => {
      const p = await publish({ ...shape, uninstall: true }, 'fleet: uninstall');
      await w.refresh();
      const steps = p.impact!.afterMerge.steps;
      const wait = steps.findIndex((x) => x.startsWith('then every member leaves'));
      assert.ok(wait > 0, steps.join('\n'));
      for (const step of steps.slice(0, wait + 1)) await w.follow(step);
      // Once every announce is gone, `clusterset status` says every member has left.
      const report = await w.status<{
        uninstalling: boolean;
        clusters: { id: string; leaving?: unknown }[];
      }>();
      assert.is(report.uninstalling, true);
      assert.equal(
        report.clusters.filter((c) => c.leaving).map((c) => [c.id, c.leaving]),
        ['central', 'east'].map((id) => [id, { clusterSet: 0, announce: 0, exports: 0, imported: 0 }]),
      );
      for (const step of steps.slice(wait + 1)) await w.follow(step);
      await eventually(
        `namespace ${LNS} gone from the leader`,
        async () => ((await get(w.hub, `/api/v1/namespaces/${LNS}`)) ? undefined : true),
        300_000,
        1000,
      );
      assert.equal(
        w.ran
          .filter((r) => r.outcome === 'not run')
          .map((r) => r.command)
          .filter((c) => !c.startsWith('argocd ')),
        [`kubectl --context <hub> -n ${LNS} delete memberclusterannounce ${announceName('<id>')}`],
        'every printed kubectl command ran, but the fallback for an announce that stays',
      );
    },
  );

  step(
    "then no cluster holds anything of the set but CRDs and Antrea's member install, nor a token, an import or a namespace stuck Terminating",
    async () => {
      const p = w.current!;
      const set = p.plan.clusterSetId;
      const labelled = (o: Listed) =>
        o.metadata.labels?.[MANAGED_BY_LABEL] === 'clusterset' && o.metadata.labels?.[PART_OF_LABEL] === set;
      const delivered = (o: Listed) =>
        tool === 'argocd'
          ? !o.metadata.ownerReferences?.length &&
            (o.metadata.annotations?.['argocd.argoproj.io/tracking-id'] ?? '').startsWith(set)
          : (o.metadata.labels?.['kustomize.toolkit.fluxcd.io/name'] ?? '').startsWith(set);
      for (const id of [LEADER, 'east', 'central', 'west']) {
        const all = await everything(w.cluster(id));
        const notCrd = (k: string) => !k.startsWith('CustomResourceDefinition ');
        assert.equal(
          all.filter(labelled).map(listedKey).filter(notCrd).sort(),
          [],
          `${id}: nothing but CRDs carries the set's labels`,
        );
        assert.equal(
          all.filter(delivered).map(listedKey).filter(notCrd).sort(),
          [],
          `${id}: the tool left nothing it applied but CRDs`,
        );
        assert.equal(
          all
            .filter(
              (o) =>
                o.kind === 'Namespace' &&
                (o.status as { phase?: string } | undefined)?.phase === 'Terminating',
            )
            .map(listedKey),
          [],
          `${id}: no namespace Terminating`,
        );
        if (id === LEADER) {
          assert.ok(
            all.some(
              (o) =>
                o.kind === 'CustomResourceDefinition' &&
                o.metadata.name === 'resourceimports.multicluster.crd.antrea.io',
            ),
            'the leader keeps its CRDs',
          );
          continue;
        }
        const imported = all.filter(
          (o) =>
            ['ServiceImport', 'LabelIdentity', 'ClusterInfoImport'].includes(o.kind) ||
            (['Service', 'Endpoints', 'EndpointSlice'].includes(o.kind) &&
              o.metadata.name.startsWith('antrea-mc-')) ||
            (o.kind === 'ClusterNetworkPolicy' && o.metadata.annotations?.[IMPORTED_ACNP] !== undefined),
        );
        assert.equal(imported.map(listedKey), [], `${id}: nothing Antrea imported is left`);
        assert.equal(
          all
            .filter((o) => o.kind === 'Secret' && o.metadata.name === p.plan.memberTokenSecretName)
            .map(listedKey),
          [],
          `${id}: its token Secret is gone`,
        );
        const d = all.find(
          (o) => o.kind === 'Deployment' && o.metadata.name === MEMBER_CONTROLLER_DEPLOYMENT,
        )!;
        assert.equal(
          (d.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers.map(
            (x) => x.name,
          ),
          ['antrea-mc-controller'],
          `${id}: Antrea's Deployment is Antrea's still`,
        );
      }
      const mgmt = await everything(w.hub);
      assert.equal(
        mgmt
          .filter(
            (o) =>
              ['Application', 'AppProject', 'Kustomization', 'GitRepository'].includes(o.kind) &&
              o.metadata.name.startsWith(set),
          )
          .map(listedKey),
        [],
        'the management cluster holds no delivery object of the set',
      );
      if (tool === 'flux')
        assert.equal(
          mgmt
            .filter(
              (o) =>
                o.kind === 'Secret' &&
                o.metadata.namespace === 'flux-system' &&
                o.metadata.name.endsWith('-kubeconfig'),
            )
            .map(listedKey),
          [],
          "no member's kubeconfig Secret is left",
        );
    },
  );

  test.run();
}

// Both, always; GITOPS_TOOLS=argocd (or flux) runs one while developing.
for (const tool of (process.env.GITOPS_TOOLS ?? 'argocd,flux').split(',') as Tool[]) worldSuite(tool);
