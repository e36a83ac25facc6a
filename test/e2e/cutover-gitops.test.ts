// End-to-end: the cut-over runbook (issue 33, docs/import.md "Cut-over runbook") through the REAL
// Argo CD (test/delivery/argocd.ts: v3.2.6's controller and repo server) and, on a set of its own,
// the REAL Flux (test/delivery/flux.ts: source-controller and kustomize-controller) syncing from a git server,
// onto a set Antrea leads, played as cutover-world.ts says (Antrea's leader and members, label churn,
// watchers on every import and every member-side imported object), each cluster with a real node:
// the reconciler runs from the image `clusterset image build` builds, as its Deployment's Pod under
// the kubelet, and each member's restart Job runs there too.
//
// The runbook as a team runs it with the tool in the leader: (1) import with the read-only identity,
// `delivery` added, committed, `import --check` of the committed model (exit 0), which records what
// must survive; (2') the bootstrap (`kubectl apply -k out/argocd` and the health checks merged into
// argocd-cm, or `kubectl apply -k out/flux`): the tool delivers the leader's bundle at once
// (in-cluster), so the leader bundle's warm standby comes first here, its reconciler Pods Ready and
// not leading (under Argo CD the leader's Application is Progressing on exactly the imports Antrea
// never updated; Flux counts them current); (2) each member registered in turn (`argocd cluster
// add`, or its Flux kubeconfig Secret), its Application Synced and Healthy or its Kustomization
// Ready, its restart Job run, then verified; (4) the cut-over as the import report prints it (kubectl), the reconciler Pod
// leads; the leading Pod killed mid-stream (deleted at once, no grace): the next Pod leads; (5) the
// clean-up as printed, then the reviewed change that turns `waitForAntreaLeader` off, through git,
// its After merge steps followed. `import --verify` exits 0 after every step, the watchers record
// nothing, and every Application is Synced and Healthy (every Kustomization Ready) at the last commit.
//
// Clusters start inside the test, not in before(): uvu swallows before() errors.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadModelFile } from '../../lib/load';
import type { ClusterSetProps } from '../../lib/model';
import { RECONCILER_NAME } from '../../lib/names';
import { request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import {
  converged,
  checkModel,
  assertWatchersQuiet,
  leaderImportsChurn,
  leaseHolder,
  list,
  md,
  report,
  runImport,
  runPrintedStep,
  stopWorld,
  verifyPhase,
  world,
  type World,
} from './cutover-world';
import { GitOpsWorld, type Tool } from './gitops';

type Obj = Record<string, unknown>;
/** An entry of an Application's status.resources. */
interface AppResource {
  kind: string;
  name: string;
  health?: { status: string; message?: string };
}

const TOOL: Record<Tool, string> = { argocd: 'Argo CD', flux: 'Flux' };

/** The reconciler's Pods in the leader namespace, by name: whether each is Ready. */
async function reconcilerPods(w: World): Promise<Map<string, boolean>> {
  const pods = await list(
    w.set.leader,
    `/api/v1/namespaces/${w.set.leaderNs}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/name=${RECONCILER_NAME}`)}`,
  );
  return new Map(
    pods
      .filter((p) => !(p.metadata as { deletionTimestamp?: string }).deletionTimestamp)
      .map((p) => [
        md(p).name,
        ((p.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
      ]),
  );
}

/**
 * Argo CD's leader Application in warm standby: Synced, and Progressing on exactly the ServiceImport
 * imports Antrea's leader created and never updated (it writes an import's status only after an
 * update): they wait for the reconciler to report their exports.
 */
async function argoCdStandby(w: World, g: GitOpsWorld, sha: string): Promise<void> {
  const hubApp = g.deliveryOf(w.set.leaderId);
  await eventually(
    `${hubApp} exists`,
    async () => ((await g.argocd!.app(hubApp)) ? true : undefined),
    120_000,
  );
  await g.argocd!.waitApp(hubApp, { sync: 'Synced', revision: sha }, 300_000);
  const waiting = await eventually(
    `${hubApp}'s resources assessed`,
    async () => {
      const rs = (((await g.argocd!.app(hubApp))?.status as Obj | undefined)?.resources ??
        []) as AppResource[];
      if (
        rs.some(
          (r) => r.kind === 'Deployment' && r.name === RECONCILER_NAME && r.health?.status !== 'Healthy',
        )
      )
        return undefined;
      return rs.filter((r) => r.health && r.health.status !== 'Healthy');
    },
    240_000,
    1000,
  );
  const statusless = (
    await list(
      w.set.leader,
      `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${w.set.leaderNs}/resourceimports`,
    )
  )
    .filter((r) => (r.spec as { kind: string }).kind === 'ServiceImport' && r.status === undefined)
    .map((r) => md(r).name)
    .sort();
  assert.equal(
    waiting.map((r) => `${r.kind} ${r.name}: ${r.health!.status} ${r.health!.message ?? ''}`),
    statusless.map(
      (n) =>
        `ResourceImport ${n}: Progressing Waiting for the clusterset reconciler to report the exports of this Service`,
    ),
    'in standby, only the imports Antrea never updated wait for the reconciler',
  );
}

/** The runbook through `tool`, over a set of its own (prefix `prefix`). */
async function runbookThrough(tool: Tool, prefix: string): Promise<void> {
  const w = await world(prefix);
  const g = new GitOpsWorld({
    tool,
    prefix,
    leader: w.set.leaderId,
    members: [...w.set.memberIds],
    resync: '15s',
  });
  try {
    await g.attach(w.set.clusters);

    // (1) import, `delivery` added as docs/import.md says, committed; the committed model checked.
    const imported = (await loadModelFile(await runImport(w))) as ClusterSetProps;
    const model: ClusterSetProps = {
      ...imported,
      delivery: {
        repoURL: g.git.url,
        managementCluster: w.set.leaderId,
        ...(tool === 'argocd'
          ? { flux: { enabled: false } }
          : { argocd: { enabled: false }, flux: { interval: '30s' } }),
      },
    };
    const first = await g.publish(model, 'clusterset: the running set, imported');
    await checkModel(w, path.join(first.dir, 'clusterset.json'));

    // (2') the bootstrap: the tool delivers the leader's bundle in-cluster at once, in warm standby.
    await g.bootstrap(first, false);
    if (tool === 'argocd') await argoCdStandby(w, g, first.sha);
    else await g.leaderApplied(first);
    await eventually(
      'a reconciler Pod Ready',
      async () => ([...(await reconcilerPods(w)).values()].some((r) => r) ? true : undefined),
      180_000,
      1000,
    );
    await sleep(5000);
    assert.is(await leaseHolder(w), undefined, "the reconciler must not lead while Antrea's leader runs");
    await leaderImportsChurn(w, 30_000);
    await verifyPhase(w, 'the bootstrap (the leader bundle in warm standby)');

    // (2) the members, one by one: registered with the tool, synced, restarted, verified.
    for (const id of w.set.memberIds) {
      const player = w.memberPlayers.get(id)!;
      const epochs = player.events.epochs;
      await g.register(id);
      await g.refresh([g.deliveryOf(id)]);
      if (g.argocd)
        await g.argocd.waitApp(
          g.deliveryOf(id),
          { sync: 'Synced', health: 'Healthy', revision: first.sha },
          300_000,
        );
      else await g.flux!.waitReady(g.deliveryOf(id), { revision: first.sha }, 300_000);
      await eventually(
        `Antrea's member controller in ${id} restarted by the restart Job`,
        async () => (player.events.epochs > epochs ? true : undefined),
        120_000,
        500,
      );
      await sleep(2000);
      w.log.push(
        `member ${id}: delivered by ${TOOL[tool]}; stale cleanup deleted [${player.events.staleDeleted.join(', ')}]`,
      );
      await verifyPhase(w, `member ${id} under ${TOOL[tool]}`);
    }
    assert.is(await leaseHolder(w), undefined, 'still in standby once every member is delivered');

    // (4) the cut-over as printed; the reconciler Pod leads.
    await runPrintedStep(w, 4);
    assert.ok(
      await w.leaderPlayer.waitStopped(15_000),
      "Antrea's leader did not stop within its grace period",
    );
    const stoppedAt = w.leaderPlayer.stoppedAt!;
    const holder = await eventually('a reconciler Pod leads', async () => leaseHolder(w), 120_000, 200);
    assert.ok((await reconcilerPods(w)).has(holder), `the holder ${holder} is a reconciler Pod`);
    w.log.push(
      `cut-over: ${holder} leads ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after Antrea's leader stopped`,
    );
    await leaderImportsChurn(w, 60_000);
    await verifyPhase(w, 'the cut-over');
    // The reconciler reports every export: every Application Synced and Healthy (Kustomization Ready).
    await g.converged(first);

    // The leading Pod killed mid-stream (no grace: it cannot release its Lease), churn going on.
    const killed = await request(
      w.set.leader.admin,
      'DELETE',
      `/api/v1/namespaces/${w.set.leaderNs}/pods/${holder}`,
      { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 },
    );
    assert.is(killed.status, 200, `kill ${holder}: ${killed.body}`);
    const next = await eventually(
      'the next reconciler Pod leads',
      async () => {
        const h = await leaseHolder(w);
        return h && h !== holder ? h : undefined;
      },
      180_000,
      500,
    );
    w.log.push(`killed ${holder}; ${next} leads`);
    await leaderImportsChurn(w, 60_000);
    await verifyPhase(w, 'the leading reconciler Pod killed');

    // (5) the clean-up as printed, then the reviewed change through git.
    w.log.push(`clean-up: ${(await runPrintedStep(w, 5)).join('; ')}`);
    const crd = await request(
      w.set.leader.admin,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/resourceimports.multicluster.crd.antrea.io',
    );
    assert.is(crd.status, 200, 'the ResourceImport CRD stays');
    const last = await g.publish(
      { ...model, reconciler: { ...(model.reconciler ?? {}), waitForAntreaLeader: false } },
      'clusterset: the cut-over is done, no more waiting for Antrea leader',
    );
    assert.ok(
      last.impact!.afterMerge.breaking.some((b) => /waitForAntreaLeader/.test(b)),
      `the PR comment marks it breaking: ${JSON.stringify(last.impact!.afterMerge.breaking)}`,
    );
    await g.refresh();
    for (const step of last.impact!.afterMerge.steps) await g.follow(step);
    await g.converged(last);
    w.log.push(`after merge: ${JSON.stringify(g.ran)}`);
    await eventually('a reconciler Pod leads at the last commit', async () => leaseHolder(w), 180_000, 500);
    await leaderImportsChurn(w, 60_000);
    await w.churn.stop();
    await converged(w);
    await verifyPhase(w, 'the clean-up and the last commit');
    await sleep(1000);
    report(w, `runbook through ${TOOL[tool]}`);
    assertWatchersQuiet(w);
    assert.equal(w.churn.errors, [], 'member writes refused during the cut-over');
    fs.writeFileSync(path.join(w.dir, `${tool}-ran.json`), JSON.stringify(g.ran, null, 2));
  } finally {
    report(w, `runbook through ${TOOL[tool]}`);
    await g.stop();
    await stopWorld(w);
  }
}

for (const [tool, prefix] of [
  ['argocd', 'cgo'],
  ['flux', 'cgf'],
] as const) {
  const test = suite(`cut-over through the real ${TOOL[tool]}`);
  test.after(async () => {
    await stopAll();
  });
  test(`GIVEN a set Antrea leads, exports and churn going on WHEN the runbook runs through the real ${TOOL[tool]} THEN nothing is deleted or changed and a reconciler Pod leads`, () =>
    runbookThrough(tool, prefix));
  test.run();
}
