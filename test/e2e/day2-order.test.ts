// End-to-end: a day-2 change that adds a Tier and a baseline policy in it, delivered to real API
// servers (test/kube: kube-apiserver, etcd, kube-controller-manager) leader first: the worst case
// for Argo CD (each Application syncs on its own) and the order Flux always takes (every member's
// Kustomization depends on the leader's).
//
// What Antrea's member does with it is Antrea's documented behaviour (antrea-mc.md §c.3): an ACNP
// import whose Tier is missing is dropped and retried only when the import changes or the member
// controller restarts, and a started member controller reconciles every import. No Antrea runs here.
// What this test proves is the part the delivery controls: the member's sync applies the new Tier,
// then (wave 1) the partial Deployment, and kube-controller-manager rolls Antrea's member controller
// Deployment out to a new ReplicaSet created after the Tier exists, while every field Antrea's install
// set stays as it was and a second sync changes nothing. Flux applies the same member bundle but the
// restart object, which its apply refuses (test/e2e/removal.test.ts) and the member's Kustomization
// deletes with a patch: under Flux a person restarts the controller once the Tiers are applied, a
// step the PR comment lists. Its Kustomizations, stored by a real API server, order the leader
// first and carry that patch.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import type { ClusterSetProps } from '../../lib/model';
import { acnpImportName } from '../../lib/names';
import { TIERS_CHECKSUM_ANNOTATION } from '../../lib/render/member-restart';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import type { KubeObject } from '../kube/apply';
import { applyBundle, applyObject, loadBundle, readBack } from '../kube/apply';
import { eventually } from '../kube/wait';
import { loadYaml } from '../../lib/yaml';
import {
  ANTREA_INSTALL_MANAGER,
  antreaMemberDeployment,
  createApplicationNamespaces,
  installAntreaMemberDeployment,
} from './antrea-member';
import { ANTREA_MEMBER_CRDS } from './crds';

const ROOT = path.resolve(__dirname, '..', '..');
const TIER = 'mc-day2';
const POLICY = 'day2-guard';

/** The minimal case with delivery by both tools; `day2` adds a Tier and a baseline policy in it. */
function model(day2: boolean): ClusterSetProps {
  const base = loadModel(path.join(ROOT, 'test', 'cases', 'minimal', 'clusterset.ts')) as ClusterSetProps;
  return {
    ...base,
    delivery: {
      repoURL: 'https://git.example.com/mini/gitops.git',
      branch: 'main',
      path: 'out',
      managementCluster: 'hub',
      argocd: {},
      flux: {},
    },
    ...(day2
      ? {
          tiers: [{ name: TIER, priority: 150 }],
          baselinePolicies: [
            {
              name: POLICY,
              tier: TIER,
              priority: 1,
              appliedTo: [{ namespaceSelector: {} }],
              ingress: [{ name: 'drop-rest', action: 'Drop' as const, from: [{ namespaceSelector: {} }] }],
            },
          ],
        }
      : {}),
  };
}

/** Compiles a model into a fresh directory (what the gitops repository's out/ holds at that commit). */
function synth(m: ClusterSetProps): string {
  const r = compile(m);
  if (r.diagnostics.length > 0) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-day2-'));
  for (const [rel, text] of r.files) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

interface ReplicaSet {
  metadata: {
    name: string;
    creationTimestamp: string;
    ownerReferences?: { kind: string; name: string }[];
  };
  spec: { template: { metadata?: { annotations?: Record<string, string> } } };
}

async function replicaSets(cluster: Cluster, ns: string): Promise<ReplicaSet[]> {
  const r = await request(cluster.admin, 'GET', `/apis/apps/v1/namespaces/${ns}/replicasets`);
  if (r.status !== 200) throw new Error(`list ReplicaSets: HTTP ${r.status}`);
  return ((r.json as { items: ReplicaSet[] }).items ?? []).filter((rs) =>
    rs.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === 'antrea-mc-controller'),
  );
}

async function deployment(cluster: Cluster, ns: string): Promise<KubeObject> {
  const d = await readBack(cluster, antreaMemberDeployment(ns) as KubeObject);
  if (!d) throw new Error('the member controller Deployment is gone');
  return d;
}

/** The ReplicaSet whose Pod template carries `checksum`; waits for kube-controller-manager to create it. */
function rolledOutTo(cluster: Cluster, ns: string, checksum: string): Promise<ReplicaSet> {
  return eventually(`a ReplicaSet with ${TIERS_CHECKSUM_ANNOTATION}=${checksum.slice(0, 12)}…`, async () =>
    (await replicaSets(cluster, ns)).find(
      (rs) => rs.spec.template.metadata?.annotations?.[TIERS_CHECKSUM_ANNOTATION] === checksum,
    ),
  );
}

function tierChecksumIn(dir: string, member: string, ns: string): string {
  const file = path.join(dir, 'clusters', member, ns, 'Deployment.antrea-mc-controller.yaml');
  const d = loadYaml(fs.readFileSync(file, 'utf8')) as {
    spec: { template: { metadata: { annotations: Record<string, string> } } };
  };
  return d.spec.template.metadata.annotations[TIERS_CHECKSUM_ANNOTATION] as string;
}

const day2 = suite('day-2 order: a Tier before the policy that needs it');

day2(
  "GIVEN a leader and a member delivered by Argo CD WHEN a day-2 change adds a Tier and a baseline policy in it and the leader's Application syncs first THEN the member's sync creates the Tier and only then rolls Antrea's member controller out to a new ReplicaSet, leaving Antrea's fields alone",
  async () => {
    const before = synth(model(false));
    const after = synth(model(true));
    try {
      const plan = compile(model(true)).plan;
      if (!plan) throw new Error('no plan');
      const ns = plan.memberNamespace;
      const member = 'east';
      const clusters = await startClusters(['day2-hub', `day2-${member}`]);
      const hub = clusters.get('day2-hub') as Cluster;
      const east = clusters.get(`day2-${member}`) as Cluster;

      // Bootstrap: the leader's bundle, then the member as Antrea's install left it, then its bundle.
      assert.equal((await applyBundle(hub, path.join(before, 'clusters', 'hub'))).rejected, []);
      for (const file of ANTREA_MEMBER_CRDS) {
        const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as KubeObject;
        const r = await applyObject(east, { file, obj, wave: 0 }, { fieldManager: 'antrea-install' });
        assert.ok(!('rejection' in r), `installing ${file}`);
      }
      await installAntreaMemberDeployment(east, plan);
      await createApplicationNamespaces(east, plan, member);
      await eventually('the installed ReplicaSet', async () =>
        (await replicaSets(east, ns)).length === 1 ? true : undefined,
      );
      assert.equal((await applyBundle(east, path.join(before, 'clusters', member))).rejected, []);
      const first = await rolledOutTo(east, ns, tierChecksumIn(before, member, ns));
      const rsBefore = new Set((await replicaSets(east, ns)).map((rs) => rs.metadata.name));
      assert.ok(rsBefore.has(first.metadata.name));

      // Day 2, leader first: the compiled import reaches the leader while the member has no Tier.
      // This is the moment Antrea's member drops the import (Warning Event, no retry).
      assert.equal((await applyBundle(hub, path.join(after, 'clusters', 'hub'))).rejected, []);
      const ri = await request(
        hub.admin,
        'GET',
        `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${plan.leaderNamespace}/resourceimports/${acnpImportName(POLICY)}`,
      );
      assert.is(ri.status, 200, 'the leader serves the ACNP import');
      const tierPath = `/apis/crd.antrea.io/v1beta1/tiers/${TIER}`;
      assert.is((await request(east.admin, 'GET', tierPath)).status, 404, 'the member has no Tier yet');
      assert.ok(
        (await replicaSets(east, ns)).every((rs) => rsBefore.has(rs.metadata.name)),
        'nothing restarted the member controller yet',
      );

      // Then the member's Application syncs, in wave order.
      const sync = await applyBundle(east, path.join(after, 'clusters', member));
      assert.equal(sync.rejected, []);
      const order = sync.order.map((b) => `${b.obj.kind}/${b.obj.metadata.name}`);
      assert.ok(
        order.indexOf(`Tier/${TIER}`) < order.indexOf('Deployment/antrea-mc-controller'),
        `the Tier is applied before the restart: ${order.join(', ')}`,
      );
      const tier = await request(east.admin, 'GET', tierPath);
      assert.is(tier.status, 200, 'the member has the Tier');
      const tierCreated = Date.parse(
        (tier.json as KubeObject & { metadata: { creationTimestamp: string } }).metadata.creationTimestamp,
      );

      const newChecksum = tierChecksumIn(after, member, ns);
      assert.is.not(newChecksum, tierChecksumIn(before, member, ns), 'the day-2 change changes the checksum');
      const rolled = await rolledOutTo(east, ns, newChecksum);
      assert.not.ok(rsBefore.has(rolled.metadata.name), 'a new ReplicaSet');
      assert.ok(
        Date.parse(rolled.metadata.creationTimestamp) >= tierCreated,
        `the new ReplicaSet (${rolled.metadata.creationTimestamp}) is created after the Tier (${new Date(tierCreated).toISOString()})`,
      );

      // Antrea's install keeps its fields and its ownership of them; ours are two annotations.
      const live = await deployment(east, ns);
      const installedSpec = antreaMemberDeployment(ns).spec as {
        selector: unknown;
        replicas: number;
        template: { metadata: { labels: unknown }; spec: { containers: { image: string }[] } };
      };
      const liveSpec = live.spec as typeof installedSpec;
      assert.equal(liveSpec.selector, installedSpec.selector);
      assert.is(liveSpec.replicas, installedSpec.replicas);
      assert.equal(liveSpec.template.metadata.labels, installedSpec.template.metadata.labels);
      assert.is(
        liveSpec.template.spec.containers[0]?.image,
        installedSpec.template.spec.containers[0]?.image,
      );
      const managers = (live.metadata.managedFields ?? []) as {
        manager: string;
        operation: string;
        fieldsV1: unknown;
      }[];
      const ours = managers.filter((m) => m.operation === 'Apply');
      assert.equal(
        ours.map((m) => m.manager),
        ['argocd-controller'],
      );
      const ownedByUs = JSON.stringify(ours[0]?.fieldsV1);
      assert.not.match(
        ownedByUs,
        /containers|selector|replicas/,
        'the delivery owns no field of the install',
      );
      assert.ok(
        managers.some(
          (m) => m.manager === ANTREA_INSTALL_MANAGER && JSON.stringify(m.fieldsV1).includes('containers'),
        ),
        'the install still owns the containers',
      );

      // Self-heal: a second sync of the same commit restarts nothing.
      const generation = live.metadata.generation;
      assert.equal((await applyBundle(east, path.join(after, 'clusters', member))).rejected, []);
      assert.is(
        (await deployment(east, ns)).metadata.generation,
        generation,
        'a second sync changes nothing',
      );

      // Flux: the rendered day-2 Kustomizations, stored by a real API server (the hub as the
      // management cluster). Every member's depends on the leader's, so Flux always applies the
      // leader first: the order played above; the member's Kustomization applies the same bundle
      // but the restart object, which its patch deletes (a person restarts the controller).
      for (const file of [
        'source.toolkit.fluxcd.io_gitrepositories.yaml',
        'kustomize.toolkit.fluxcd.io_kustomizations.yaml',
      ]) {
        const obj = loadYaml(fs.readFileSync(path.join(ROOT, 'crds', file), 'utf8')) as KubeObject;
        const r = await applyObject(hub, { file, obj, wave: 0 }, { fieldManager: 'flux-install' });
        assert.ok(!('rejection' in r), `installing ${file}`);
      }
      const fluxNs = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flux-system' } };
      assert.ok(!('rejection' in (await applyObject(hub, { file: 'ns', obj: fluxNs, wave: 0 }))));
      const flux = await applyBundle(hub, path.join(after, 'flux'), { fieldManager: 'flux-bootstrap' });
      assert.equal(flux.rejected, []);
      const stored = new Map<string, string[]>();
      const patched = new Map<string, string[]>();
      for (const b of loadBundle(path.join(after, 'flux')).filter((x) => x.obj.kind === 'Kustomization')) {
        const s = (await readBack(hub, b.obj))?.spec as
          | { dependsOn?: { name: string }[]; patches?: { target?: { kind?: string; name?: string } }[] }
          | undefined;
        stored.set(
          b.obj.metadata.name ?? '',
          (s?.dependsOn ?? []).map((d) => d.name),
        );
        patched.set(
          b.obj.metadata.name ?? '',
          (s?.patches ?? []).map((p) => `${p.target?.kind ?? ''}/${p.target?.name ?? '*'}`),
        );
      }
      const ks = (id: string) => `${plan.clusterSetId}-${id}`;
      assert.equal(stored.get(ks('hub')), [], 'the leader waits for nothing');
      for (const m of plan.members) {
        // The member's Tiers have a Kustomization of their own, which the rest of its bundle waits for.
        assert.equal(stored.get(`${ks(m.id)}.tiers`), [], `${m.id}'s Tiers wait for nothing`);
        assert.equal(
          stored.get(ks(m.id)),
          [ks('hub'), `${ks(m.id)}.tiers`],
          `${m.id} waits for the leader and its Tiers`,
        );
        assert.equal(
          patched.get(ks(m.id)),
          ['Tier/*', 'Deployment/antrea-mc-controller'],
          `${m.id}'s Kustomization applies neither the Tiers nor the restart object`,
        );
      }
    } finally {
      await stopAll();
      fs.rmSync(before, { recursive: true, force: true });
      fs.rmSync(after, { recursive: true, force: true });
    }
  },
);

day2.run();
