// End-to-end: the Argo CD and Flux objects of a golden case, on real API servers (test/kube).
//
// 1. Each per-cluster Application of the dual-role case (Argo CD and Flux in the dual-role leader
//    `hub`) is synced the way Argo CD would: clusters in the root Application's wave order, the
//    destination resolved to a real control plane, the source path mapped onto the golden files,
//    and the bundle applied in sync-wave order exactly as the Application's syncOptions say. Every
//    bundle must apply cleanly and read back as sent; what the API server then writes at run time
//    in the leader (token Secret data) must be covered by the Application's ignoreDifferences, and
//    a second sync must leave it in place.
// 2. The management cluster gets the Argo CD Application and AppProject CRDs and the Flux CRDs
//    (vendored in crds/),
//    and every object of argocd/ and flux/ (the golden cases' and the example's out/) is applied
//    there with server-side apply: the API server's structural schema validation accepts them and
//    stores them as rendered; an object our validators refuse is refused by the server too.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import type { Plan } from '../../lib/plan';
import { IN_CLUSTER_SERVER } from '../../lib/render/argocd';
import { validateObject } from '../../lib/validate';
import { loadYaml } from '../../lib/yaml';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import type { ApplyResult, BundleObject, KubeObject } from '../parties/argocd-apply';
import { applyBundle, applyObject, loadBundle, notStoredAsApplied, readBack } from '../parties/argocd-apply';
import { eventually } from '../kube/wait';
import type { K8sObject } from '../../lib/render';
import { createApplicationNamespaces, installAntreaMemberDeployment } from '../parties/antrea-member/install';
import { ANTREA_MEMBER_CRDS } from '../parties/antrea-manifests';
import { ARGOCD_CRDS, installCrds } from './crds';

const ROOT = path.resolve(__dirname, '..', '..');
const CASE = 'dual-role';
const EXPECTED = path.join(ROOT, 'examples', CASE, 'out');

/** The CRDs Argo CD and Flux install in the management cluster. */
const DELIVERY_CRDS = [
  ...ARGOCD_CRDS,
  'source.toolkit.fluxcd.io_gitrepositories.yaml',
  'kustomize.toolkit.fluxcd.io_kustomizations.yaml',
];

interface AppSpec {
  source: { repoURL: string; targetRevision: string; path: string };
  destination: { server?: string; name?: string };
  syncPolicy: { syncOptions?: string[] };
  ignoreDifferences?: {
    kind: string;
    group?: string;
    name?: string;
    namespace?: string;
    jsonPointers?: string[];
  }[];
}
type App = KubeObject & { spec: AppSpec };

/**
 * Sync options our applier (test/parties/argocd-apply.ts) carries out. It only applies server-side (with
 * force, as Argo CD's ServerSideApply=true does); PruneLast changes nothing in a first sync, which prunes
 * nothing. An option missing here fails the test instead of being ignored.
 */
const UNDERSTOOD_OPTIONS = new Set(['ServerSideApply=true', 'PruneLast=true']);

function casePlan(): Plan {
  const r = compile(loadModel(path.join(ROOT, 'examples', CASE, 'clusterset.ts')));
  if (!r.plan || r.diagnostics.length > 0) throw new Error(`case ${CASE} does not compile`);
  return r.plan;
}

function readObject(file: string): KubeObject {
  return loadYaml(fs.readFileSync(file, 'utf8')) as KubeObject;
}

/** The per-cluster Applications, in the order the root Application syncs them (wave, then name). */
function applicationsInWaveOrder(): App[] {
  const dir = path.join(EXPECTED, 'argocd', 'apps');
  const apps = loadBundle(dir).map((b) => ({ ...b, obj: b.obj as App }));
  return apps
    .sort((a, b) => a.wave - b.wave || (a.obj.metadata.name ?? '').localeCompare(b.obj.metadata.name ?? ''))
    .map((a) => a.obj);
}

/** The cluster ID an Application's destination names: in-cluster, by registered name, or by URL. */
function destinationId(plan: Plan, app: App): string {
  const { server, name } = app.spec.destination;
  const delivery = plan.delivery;
  if (!delivery) throw new Error('the case has no delivery');
  if (server === IN_CLUSTER_SERVER) return delivery.managementCluster;
  const found = plan.clusters.filter((c) => (name !== undefined ? c.id === name : c.apiServer === server));
  if (found.length !== 1)
    throw new Error(
      `${app.metadata.name}: destination ${JSON.stringify(app.spec.destination)} names no cluster`,
    );
  return found[0]!.id;
}

/** The golden folder an Application's source path points at, inside the case's `out/`. */
function sourceDir(plan: Plan, app: App): string {
  const prefix = `${plan.delivery?.path}/`;
  const p = app.spec.source.path;
  if (!p.startsWith(prefix)) throw new Error(`${app.metadata.name}: source ${p} is outside ${prefix}`);
  return path.join(EXPECTED, p.slice(prefix.length));
}

/** What a sync left wrong: rejections, and objects not stored as sent. */
async function problemsOf(cluster: Cluster, id: string, result: ApplyResult): Promise<string[]> {
  const problems = result.rejected.map(
    (r) => `${id}: ${r.kind} ${r.namespace ?? ''}/${r.name}: ${r.message}`,
  );
  for (const a of result.applied) {
    const stored = await readBack(cluster, a.obj);
    if (!stored) problems.push(`${id}: ${a.file} is gone after apply`);
    else for (const d of notStoredAsApplied(a.obj, stored)) problems.push(`${id}: ${a.file}: ${d}`);
  }
  if (result.applied.length === 0) problems.push(`${id}: nothing was applied`);
  return problems;
}

const waveOf = (b: BundleObject) => b.wave;

const delivery = suite('Argo CD and Flux delivery on real API servers');

delivery(
  `GIVEN golden case ${CASE} WHEN every cluster's Application is synced in the root app's wave order, as its syncOptions say, THEN each bundle applies cleanly and run-time writes are ignored differences`,
  async () => {
    try {
      const plan = casePlan();
      const apps = applicationsInWaveOrder();
      assert.equal(
        apps.map((a) => destinationId(plan, a)),
        [plan.leader.id, ...plan.clusters.filter((c) => !c.isLeader).map((c) => c.id)],
        'the leader is synced first, then the members',
      );
      const ids = apps.map((a) => destinationId(plan, a));
      const clusters = await startClusters(ids.map((id) => `delivery-${id}`));
      const problems: string[] = [];
      for (const app of apps) {
        const id = destinationId(plan, app);
        const cluster = clusters.get(`delivery-${id}`) as Cluster;
        const options = app.spec.syncPolicy.syncOptions ?? [];
        assert.ok(options.includes('ServerSideApply=true'), `${app.metadata.name} syncs server-side`);
        for (const o of options) assert.ok(UNDERSTOOD_OPTIONS.has(o), `sync option ${o} is carried out`);
        if (plan.members.some((m) => m.id === id)) {
          await installCrds(cluster, ANTREA_MEMBER_CRDS, 'antrea-install');
          await installAntreaMemberDeployment(cluster, plan);
          await createApplicationNamespaces(cluster, plan, id);
        }
        const dir = sourceDir(plan, app);
        assert.ok(fs.existsSync(path.join(dir, 'kustomization.yaml')), `${app.spec.source.path} is a bundle`);
        const result = await applyBundle(cluster, dir);
        problems.push(...(await problemsOf(cluster, id, result)));
        // Sync waves: never decreasing, and in the leader the admission policies before any grant.
        const waves = result.order.map(waveOf);
        assert.equal(
          waves,
          [...waves].sort((a, b) => a - b),
          `${id}: applied in wave order`,
        );
        const kinds = result.order.map((b) => b.obj.kind);
        if (id === plan.leader.id) {
          assert.ok(
            kinds.lastIndexOf('ValidatingAdmissionPolicyBinding') < kinds.indexOf('RoleBinding'),
            `${id}: admission policies are bound before member identities get their RoleBindings`,
          );
        }
        assert.ok(
          kinds.lastIndexOf('CustomResourceDefinition') < kinds.indexOf('Namespace'),
          `${id}: CRDs first`,
        );
      }
      assert.equal(problems, []);

      // Run-time writes in the leader: the token controller fills every member's token Secret and
      // stamps the ServiceAccount's UID. Each such field must be an ignored difference.
      const leaderApp = apps[0]!;
      const leader = clusters.get(`delivery-${plan.leader.id}`) as Cluster;
      const ignored = leaderApp.spec.ignoreDifferences ?? [];
      for (const m of plan.members) {
        const secretFile = path.join(
          sourceDir(plan, leaderApp),
          plan.leaderNamespace,
          `Secret.member-${m.id}.yaml`,
        );
        const desired = readObject(secretFile);
        const live = await eventually(`token data in Secret member-${m.id}`, async () => {
          const s = await readBack(leader, desired);
          return (s?.data as Record<string, string> | undefined)?.token ? s : undefined;
        });
        const rule = ignored.find(
          (d) =>
            d.kind === 'Secret' &&
            d.name === desired.metadata.name &&
            d.namespace === desired.metadata.namespace,
        );
        assert.ok(rule, `Secret ${desired.metadata.name} has an ignoreDifferences entry`);
        assert.is(desired.data, undefined, 'git holds no token data');
        assert.ok(rule.jsonPointers?.includes('/data'), 'its /data is ignored');
        const liveAnnotations = (live.metadata.annotations ?? {}) as Record<string, string>;
        for (const k of Object.keys(liveAnnotations)) {
          if (desired.metadata.annotations?.[k] !== undefined) continue;
          assert.ok(
            rule.jsonPointers?.includes(
              `/metadata/annotations/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
            ),
            `annotation ${k} written at run time is ignored`,
          );
        }
      }

      // A second sync (selfHeal) leaves the run-time data in place: server-side apply never owned it.
      const again = await applyBundle(leader, sourceDir(plan, leaderApp));
      assert.equal(again.rejected, []);
      for (const m of plan.members) {
        const r = await request(
          leader.admin,
          'GET',
          `/api/v1/namespaces/${plan.leaderNamespace}/secrets/member-${m.id}`,
        );
        const data = (r.json as { data?: Record<string, string> }).data ?? {};
        assert.ok(data.token && data['ca.crt'], `member-${m.id} keeps its token after a second sync`);
      }

      // The management cluster holds Argo CD and Flux: their CRDs, then every delivery object.
      const mgmt = clusters.get(`delivery-${plan.delivery?.managementCluster}`) as Cluster;
      await installCrds(mgmt, DELIVERY_CRDS, 'delivery-install');
      const folders = [
        path.join(EXPECTED, 'argocd'),
        path.join(EXPECTED, 'flux'),
        path.join(ROOT, 'examples', 'two-networks', 'out', 'argocd'),
        path.join(ROOT, 'examples', 'two-networks', 'out', 'flux'),
        path.join(ROOT, 'out', 'argocd'),
        path.join(ROOT, 'out', 'flux'),
      ];
      const namespaces = new Set(
        folders.flatMap((f) => loadBundle(f).map((b) => b.obj.metadata.namespace ?? '')),
      );
      for (const ns of [...namespaces].sort()) {
        const obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } };
        const r = await applyObject(mgmt, { file: ns, obj, wave: 0 }, { fieldManager: 'delivery-install' });
        assert.ok(!('rejection' in r), `namespace ${ns}`);
      }
      const seen: string[] = [];
      for (const f of folders) {
        const result = await applyBundle(mgmt, f, { fieldManager: 'delivery-bootstrap' });
        assert.equal(await problemsOf(mgmt, path.relative(ROOT, f), result), []);
        seen.push(...result.applied.map((a) => a.obj.kind));
      }
      // ConfigMap: argocd/config's partial argocd-cm (the health checks), accepted as Argo CD's own.
      assert.equal([...new Set(seen)].sort(), [
        'AppProject',
        'Application',
        'ConfigMap',
        'GitRepository',
        'Kustomization',
      ]);

      // The rendered AppProject is stored as sent, whitelists and destinations untouched.
      const projectFile = path.join(EXPECTED, 'argocd', `AppProject.${plan.clusterSetId}.yaml`);
      const project = readObject(projectFile);
      const storedProject = await readBack(mgmt, project);
      assert.ok(storedProject, 'the AppProject is stored');
      assert.equal(storedProject.spec, project.spec, 'the AppProject spec reads back as rendered');
      // A whitelist entry without a kind: our validator and the API server both refuse it.
      const spec = project.spec as { clusterResourceWhitelist: { group: string; kind?: string }[] };
      const badProject = {
        ...project,
        spec: { ...spec, clusterResourceWhitelist: [{ group: 'crd.antrea.io' }] },
      };
      assert.ok(validateObject(badProject as K8sObject, 'bad').length > 0, 'our validator refuses it');
      const rp = await applyObject(mgmt, { file: 'bad', obj: badProject, wave: 0 }, { dryRun: true });
      assert.ok('rejection' in rp && rp.rejection.status === 422, 'the API server refuses it');

      // The server refuses what our validators refuse: a GitRepository URL Flux cannot clone.
      const repoFile = path.join(EXPECTED, 'flux', `GitRepository.${plan.clusterSetId}.yaml`);
      const repo = readObject(repoFile);
      const bad = { ...repo, spec: { ...(repo.spec as object), url: 'git@git.example.com:dual/gitops.git' } };
      assert.ok(validateObject(bad as K8sObject, 'bad').length > 0, 'our validator refuses it');
      const r = await applyObject(mgmt, { file: 'bad', obj: bad, wave: 0 }, { dryRun: true });
      assert.ok('rejection' in r && r.rejection.status === 422, 'the API server refuses it');
    } finally {
      await stopAll();
    }
  },
);

delivery.run();
