// End-to-end: the cut-over from Antrea's leader controller to the clusterset reconciler (issue 33,
// docs/import.md "Cut-over runbook"), on real API servers, with watchers and negative controls.
//
// The set, and what runs over it throughout (Antrea's leader played as the process of its own Pod
// under a real kubelet, its members played, label churn, watchers on every import and imported
// object): cutover-world.ts.
//
// Delivery is not the real Argo CD here: each bundle is applied AS Argo CD applies it
// (test/parties/argocd-apply.ts: server-side apply, field manager `argocd-controller`, its sync order), so
// that the runbook's own order is kept (members first, then the leader) and the controls run quickly; the
// same runbook through the real Argo CD, whose bootstrap delivers the leader first, is
// cutover-gitops.test.ts. The member bundle's restart Job runs on the member's node, from the built image;
// the member player plays the restart that follows (its dropped events, its stale cleanup).
//
// The runbook as docs/import.md prints it: (a) import (the real CLI) and freeze; (b) members under
// GitOps one by one; (c) the leader bundle in warm standby with `reconciler.waitForAntreaLeader`,
// the reconciler started and not leading; (d) the cut-over: Antrea's leader webhook configurations
// deleted, its Deployment scaled to zero, its process going on for 8 s after SIGTERM and its Pod
// held by a finalizer; the reconciler leads only once that process exited (issue 39); (e) clean-up
// of Antrea's leader install (never its CRDs). The watchers must record nothing, and the reconciler
// leads at the end with the members converged and every restart Job done. Then, on a set of its
// own, the way back after a cut-over: the reconciler steps down and Antrea's leader, restarted in a
// new Pod, re-adopts every import and label ID.
//
// Negative controls, each on a set of its own, prove the tests catch a naive cut-over: Antrea's
// leader Pod force-deleted while its process runs (the reconciler leads beside it: the overlap the
// standby prevents, recorded); imports deleted and re-applied; the Lease not held back (the
// reconciler leading while Antrea's leader runs); Antrea's webhooks left in place after its leader
// stops (what breaks is recorded).
//
// Clusters start inside the tests, not in before(): uvu swallows before() errors.

import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyBundle } from '../parties/argocd-apply';
import { request, stopAll } from '../kube/cluster';
import { eventually, sleep } from '../kube/wait';
import {
  assertNoOverlap,
  compileModel,
  converged,
  assertWatchersQuiet,
  checkModel,
  leaderImportsChurn,
  leaseAcquiredAt,
  leaseHolder,
  memberUnderGitOps,
  reconcilerFixture,
  report,
  restartJobsDone,
  runImport,
  runPrintedStep,
  stopAntreaLeader,
  stopWorld,
  verifyPhase,
  world,
  type World,
} from './cutover-world';
import { ANTCTL_MANAGER } from '../parties/antctl';
import { leaderWebhooks } from '../parties/antrea-manifests';
import { startReconciler } from './reconciler-process';

// ---------------------------------------------------------------------------------------------------

/** The Pod of Antrea's leader that runs the current process. */
async function antreaLeaderPod(w: World): Promise<{ name: string; path: string }> {
  const name = w.leaderPlayer.current!.pod;
  return { name, path: `/api/v1/namespaces/${w.set.leaderNs}/pods/${name}` };
}

/** Waits until Deployment antrea-mc-controller's status.replicas reads 0; when it did, epoch ms. */
function replicasZero(w: World): Promise<number> {
  return eventually(
    'status.replicas of antrea-mc-controller is 0',
    async () => {
      const r = await request(
        w.set.leader.admin,
        'GET',
        `/apis/apps/v1/namespaces/${w.set.leaderNs}/deployments/antrea-mc-controller`,
      );
      return ((r.json as { status?: { replicas?: number } }).status?.replicas ?? 0) === 0
        ? Date.now()
        : undefined;
    },
    10_000,
    100,
  );
}

/** The Pod at `path` is still there, being deleted, every container reported terminated. */
async function assertHeldAndStopped(w: World, path: string): Promise<void> {
  const held = await request(w.set.leader.admin, 'GET', path);
  assert.is(held.status, 200, "the finalizer holds Antrea's leader Pod");
  const st = held.json as {
    metadata: { deletionTimestamp?: string };
    status: { containerStatuses?: { state?: { terminated?: unknown } }[] };
  };
  assert.ok(st.metadata.deletionTimestamp, 'the Pod is being deleted');
  assert.ok(
    (st.status.containerStatuses ?? []).every((c) => c.state?.terminated),
    'its container is reported terminated',
  );
}

const runbook = suite('cut-over runbook');
runbook.after(async () => {
  await stopAll();
});

runbook(
  "GIVEN a set Antrea leads, exports and churn going on, its leader slow to stop (8 s from SIGTERM to exit, its grace period 10 s) and its Pod held by a finalizer WHEN the runbook runs THEN nothing is deleted or changed, the reconciler does not lead while Antrea's leader process writes (status.replicas already 0), and leads once it exited, the Pod object still there",
  async () => {
    const w = await world('cut', { exitAfterSigtermMs: 8000 });
    try {
      // (a) import and freeze (the test adds no member, export or identity from here on), then the
      // check of the committed model, which records what must survive.
      const modelFile = await runImport(w);
      await compileModel(w, modelFile, true);
      await checkModel(w, modelFile);
      // (b) members under GitOps, one by one.
      for (const id of w.set.memberIds) {
        await memberUnderGitOps(w, id);
        await sleep(2000);
        await verifyPhase(w, `member ${id} under GitOps`);
      }
      // (c) the leader bundle, applied while Antrea's leader runs.
      const lr = await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
      w.log.push(
        `leader bundle: ${lr.applied.length} applied, rejected: ${JSON.stringify(lr.rejected.map((x) => `${x.kind} ${x.name}: ${x.message}`))}`,
      );
      assert.equal(lr.rejected, [], 'leader bundle rejected objects');
      const f = await reconcilerFixture(w);
      w.reconciler = startReconciler(f, 'cut-a');
      await w.reconciler.port;
      await sleep(5000);
      assert.is(await leaseHolder(w), undefined, 'the reconciler must not lead while Antrea leader runs');
      // Antrea's leader keeps importing the churn under the leader bundle's admission policies.
      await leaderImportsChurn(w, 20_000);
      await verifyPhase(w, 'the leader bundle in warm standby');
      // (d) the cut-over, as the report prints it: the webhook configurations, then the scale. A
      // finalizer holds Antrea's leader Pod (a policy agent's, say) after its process exits.
      const p = await antreaLeaderPod(w);
      const fin = await request(
        w.set.leader.admin,
        'PATCH',
        p.path,
        { metadata: { finalizers: ['clusterset.test/hold'] } },
        'application/merge-patch+json',
      );
      assert.is(fin.status, 200, `finalizer: ${fin.body}`);
      await runPrintedStep(w, 4);
      // What the standby once went by reads "gone" at once: the ReplicaSet controller counts only
      // Pods without a deletionTimestamp. Antrea's leader writes on meanwhile (labels keep changing).
      const zero = await replicasZero(w);
      while (!w.leaderPlayer.stopped) {
        assert.is(await leaseHolder(w), undefined, "the reconciler leads while Antrea's leader process runs");
        if (Date.now() - zero < 6000) await w.churn.burst(3);
        await sleep(300);
      }
      const proc = w.leaderPlayer.current!;
      const late = proc.writes.filter((x) => x.t > zero);
      assert.ok(
        late.length > 0,
        "Antrea's leader wrote nothing after status.replicas read 0: no overlap to show",
      );
      const holder = await eventually('the reconciler leads', async () => leaseHolder(w), 60_000, 200);
      w.log.push(
        `cut-over: the reconciler (${holder}) leads; ${await assertNoOverlap(w)}; ${late.length} of its writes came after status.replicas read 0`,
      );
      // The Pod object is still there, held by the finalizer, its container reported stopped.
      await assertHeldAndStopped(w, p.path);
      const rel = await request(
        w.set.leader.admin,
        'PATCH',
        p.path,
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      );
      assert.is(rel.status, 200);
      await leaderImportsChurn(w, 30_000);
      await verifyPhase(w, 'the cut-over');
      // (e) clean-up.
      w.log.push(`clean-up: ${(await runPrintedStep(w, 5)).join('; ')}`);
      for (const [kind, name] of [
        ['deployments', 'antrea-mc-controller'],
        ['serviceaccounts', 'antrea-mc-controller'],
      ]) {
        const base = kind === 'deployments' ? '/apis/apps/v1' : '/api/v1';
        const r = await request(
          w.set.leader.admin,
          'GET',
          `${base}/namespaces/${w.set.leaderNs}/${kind}/${name}`,
        );
        assert.is(r.status, 404, `${kind}/${name} is left after the printed clean-up`);
      }
      const crd = await request(
        w.set.leader.admin,
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/resourceimports.multicluster.crd.antrea.io',
      );
      assert.is(crd.status, 200, 'the ResourceImport CRD stays');
      await sleep(5000);
      await w.churn.stop();
      await converged(w);
      await verifyPhase(w, 'the clean-up');
      assert.is(await leaseHolder(w), 'cut-a');
      await restartJobsDone(w);
      await sleep(1000);
      report(w, 'runbook');
      assertWatchersQuiet(w);
      assert.equal(w.churn.errors, [], 'member writes refused during the cut-over');
    } finally {
      report(w, 'runbook');
      await stopWorld(w);
    }
  },
);

runbook(
  "GIVEN the cut-over done WHEN the way back runs (Antrea's leader webhooks re-created, its Deployment scaled to 1) THEN the reconciler steps down and Antrea's leader re-adopts every import and label ID, nothing deleted or changed",
  async () => {
    const w = await world('cutb');
    try {
      const modelFile = await runImport(w);
      await compileModel(w, modelFile, true);
      await checkModel(w, modelFile);
      for (const id of w.set.memberIds) await memberUnderGitOps(w, id);
      const lr = await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
      assert.equal(lr.rejected, [], 'leader bundle rejected objects');
      w.reconciler = startReconciler(await reconcilerFixture(w), 'back-a');
      await w.reconciler.port;
      await runPrintedStep(w, 4);
      assert.ok(await w.leaderPlayer.waitStopped(10_000), "Antrea's leader did not stop");
      await eventually('the reconciler leads', async () => leaseHolder(w), 60_000, 200);
      await leaderImportsChurn(w, 30_000);
      await verifyPhase(w, 'the cut-over');

      // The way back, as docs/import.md says: Antrea's leader webhook configurations re-created as
      // `antctl mc deploy leadercluster` creates them, its Deployment scaled back to 1.
      const ns = w.set.leaderNs;
      const admin = w.set.leader.admin;
      const refusedBefore = w.churn.errors.length;
      const before = [...w.leaderPlayer.processes];
      const back = Date.now();
      const scaled = await request(
        admin,
        'PATCH',
        `/apis/apps/v1/namespaces/${ns}/deployments/antrea-mc-controller/scale`,
        { spec: { replicas: 1 } },
        'application/merge-patch+json',
      );
      assert.is(scaled.status, 200, `scale: ${scaled.body}`);
      const caMap = await request(admin, 'GET', `/api/v1/namespaces/${ns}/configmaps/antrea-mc-ca`);
      const ca = (caMap.json as { data: Record<string, string> }).data['ca.crt']!;
      for (const hook of leaderWebhooks(ns, ca)) {
        const kind = hook.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating';
        const r = await request(
          admin,
          'POST',
          `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations?fieldManager=${ANTCTL_MANAGER}`,
          hook,
        );
        assert.is(r.status, 201, `re-create ${kind} webhook configuration: ${r.body}`);
      }
      await eventually(
        'the reconciler steps down',
        async () => ((await leaseHolder(w)) === undefined ? true : undefined),
        30_000,
        100,
      );
      const steppedDown = Date.now();
      // Antrea's leader Pod starts (a new process: it re-adopts the label IDs its imports hold and
      // serves its webhooks again).
      const back2 = await w.leaderPlayer.waitStarted(60_000, before);
      await leaderImportsChurn(w, 60_000);
      await sleep(5000);
      assert.is(await leaseHolder(w), undefined, "the reconciler stays down while Antrea's leader runs");
      await verifyPhase(w, 'the way back');
      await w.churn.stop();
      await converged(w);
      await verifyPhase(w, 'the way back, churn stopped');
      const refused = w.churn.errors.slice(refusedBefore);
      w.log.push(
        `way back: the reconciler stepped down ${((steppedDown - back) / 1000).toFixed(1)} s after Antrea's leader came back; ` +
          `${refused.length} member writes refused while Antrea's webhooks had no server (members retry)`,
      );
      report(w, 'the way back');
      assertWatchersQuiet(w);
      assert.equal(back2.errors, [], "Antrea's leader failed writes after it came back");
    } finally {
      report(w, 'the way back');
      await stopWorld(w);
    }
  },
);

// CUTOVER_NAIVE_ONLY=1 runs the negative controls alone (a quicker loop while working on them).
if (process.env.CUTOVER_NAIVE_ONLY !== '1' && process.env.CUTOVER_POD_ONLY !== '1') runbook.run();

// ---------------------------------------------------------------------------------------------------
// The overlap the standby prevents (issue 39): Antrea's leader stops as a process in a Pod stops,
// SIGTERM then on writing until it exits; the runbook above proves the reconciler waits for that.
// Here the Pod object is force-deleted while the process runs, leaving the standby nothing to see.

/** The runbook up to the leader bundle in warm standby with the reconciler running. */
async function upToStandby(w: World, id: string): Promise<void> {
  const modelFile = await runImport(w);
  await compileModel(w, modelFile, true);
  await checkModel(w, modelFile);
  for (const m of w.set.memberIds) await memberUnderGitOps(w, m);
  const lr = await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
  assert.equal(lr.rejected, [], 'leader bundle rejected objects');
  w.reconciler = startReconciler(await reconcilerFixture(w), id);
  await w.reconciler.port;
  await sleep(3000);
  assert.is(await leaseHolder(w), undefined, "the reconciler must not lead while Antrea's leader runs");
}

const pod = suite("Antrea's leader force-deleted (negative control)");
pod.after(async () => {
  await stopAll();
});

pod(
  "GIVEN the standby WHEN Antrea's leader Pod is force-deleted while its process still writes (negative control: the wait has no Pod left to see) THEN the reconciler leads at once and both write: the overlap the wait prevents",
  async () => {
    const w = await world('cutnf', { exitAfterSigtermMs: 8000 });
    try {
      await upToStandby(w, 'cutnf-a');
      const p = await antreaLeaderPod(w);
      await runPrintedStep(w, 4);
      await sleep(500);
      // `kubectl delete pod --grace-period=0 --force`: the object goes at once; the kubelet stops
      // the process in its own time.
      const del = await request(w.set.leader.admin, 'DELETE', p.path, { gracePeriodSeconds: 0 });
      assert.ok(del.status === 200 || del.status === 202, `force delete: ${del.status} ${del.body}`);
      await w.churn.burst(5);
      await eventually('the reconciler leads', async () => leaseHolder(w), 10_000, 50);
      const acquired = (await leaseAcquiredAt(w))!;
      for (let i = 0; i < 6 && !w.leaderPlayer.stopped; i++) {
        await w.churn.burst(3);
        await sleep(500);
      }
      assert.ok(await w.leaderPlayer.waitStopped(15_000), "Antrea's leader process did not exit");
      const proc = w.leaderPlayer.current!;
      const overlap = proc.writes.filter((x) => x.t >= acquired);
      w.log.push(
        `force-deleted: the reconciler took the Lease ${((proc.exitedAt! - acquired) / 1000).toFixed(2)} s before Antrea's leader process exited; ${overlap.length} of its writes came after: ${overlap
          .slice(0, 5)
          .map((x) => x.what)
          .join(', ')}`,
      );
      report(w, 'force-deleted');
      assert.ok(acquired < proc.exitedAt!, 'the reconciler led before the process exited');
      assert.ok(overlap.length > 0, "Antrea's leader wrote nothing after the reconciler took the Lease");
    } finally {
      report(w, 'force-deleted');
      await stopWorld(w);
    }
  },
);

// CUTOVER_POD_ONLY=1 runs this alone.
if (process.env.CUTOVER_NAIVE_ONLY !== '1' && process.env.CUTOVER_RUNBOOK_ONLY !== '1') pod.run();

// ---------------------------------------------------------------------------------------------------
// Negative controls: each naive cut-over is caught.

const naive = suite('cut-over negative controls');
naive.after(async () => {
  await stopAll();
});

naive(
  'GIVEN the runbook up to the leader bundle WHEN the imports are deleted and re-applied THEN the watchers record deletions, UID and ClusterIP changes',
  async () => {
    const w = await world('cutnd');
    try {
      await compileModel(w, await runImport(w), false);
      for (const id of w.set.memberIds) await memberUnderGitOps(w, id);
      // Naive: "replace" the imports (kubectl delete, then Argo CD applies them again).
      const t = Date.now();
      const r = await request(
        w.set.leader.admin,
        'DELETE',
        `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${w.set.leaderNs}/resourceimports`,
      );
      assert.is(r.status, 200);
      await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
      const recorded = () =>
        new Set(
          w.watchers.anomalies
            .filter((a) => a.at >= t)
            .map((a) => `${a.cluster === 'leader' ? 'leader' : 'member'} ${a.kind} ${a.what}`),
        );
      // The members' reaction (Antrea's member deleting and re-creating its Service) comes after the
      // leader's: waited for, not slept on (a loaded machine takes longer than a quiet one).
      const changed = (w: Set<string>) =>
        w.has('member Service clusterip-changed') ||
        w.has('member ServiceImport clusterip-changed') ||
        w.has('member Service uid-changed');
      await eventually(
        'a member Service re-created',
        async () => changed(recorded()) || undefined,
        60_000,
        500,
      ).catch(() => undefined);
      report(w, 'imports deleted and re-applied');
      const what = recorded();
      w.log.push(`recorded: ${[...what].sort().join('; ')}`);
      assert.ok(what.has('leader ResourceImport deleted'), [...what].join('; '));
      assert.ok(
        [...what].some((x) => x.startsWith('member Service')),
        `no member Service event: ${[...what].join('; ')}`,
      );
      assert.ok(
        what.has('member Service clusterip-changed') ||
          what.has('member ServiceImport clusterip-changed') ||
          what.has('member Service uid-changed'),
        [...what].join('; '),
      );
    } finally {
      report(w, 'imports deleted and re-applied');
      await stopWorld(w);
    }
  },
);

naive(
  "GIVEN the leader bundle applied WHEN the reconciler leads while Antrea's leader still runs (the Lease not held back) THEN the watchers catch the two label ID allocators racing: a label import re-created, or its ID changed or held twice",
  async () => {
    const w = await world('cutnl');
    try {
      await compileModel(w, await runImport(w), false);
      for (const id of w.set.memberIds) await memberUnderGitOps(w, id);
      const lr = await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
      w.log.push(`leader bundle rejected: ${JSON.stringify(lr.rejected.map((x) => x.name))}`);
      const t = Date.now();
      const errorsBefore = w.leaderPlayer.errors.length;
      w.reconciler = startReconciler(await reconcilerFixture(w), 'cut-naive');
      await eventually('the reconciler leads', async () => leaseHolder(w), 60_000, 200);
      // Rollouts relabel many Pods at once while both leaders allocate label IDs (Antrea's reuses the
      // smallest released ID, the reconciler's never reuses one within a cycle). Each burst is a
      // chance for the race; it is lost within a burst or two, rarely more (about half of the bursts
      // show it), so bursts go on until the watchers record something, for at most two minutes.
      const caught = () => w.watchers.anomalies.filter((a) => a.at >= t);
      let bursts = 0;
      while (caught().length === 0 && Date.now() - t < 120_000) {
        await w.churn.burst(10);
        bursts++;
        await sleep(8000);
      }
      await sleep(2000);
      report(w, 'Lease not held back');
      const after = caught();
      const refused = w.leaderPlayer.errors.slice(errorsBefore);
      const kinds = [...new Set(after.map((a) => `${a.cluster} ${a.kind} ${a.what}`))].sort();
      w.log.push(
        `recorded after ${bursts} burst(s): ${after.length} anomalies [${kinds.join('; ')}], ${refused.length} refused writes of Antrea's leader`,
      );
      assert.ok(!w.leaderPlayer.stopped, "Antrea's leader kept running beside the reconciler");
      assert.ok(
        after.some((a) => /uid-changed|deleted|label-id-changed|label-id-duplicate/.test(a.what)),
        `two leaders ran for ${((Date.now() - t) / 1000).toFixed(0)} s (${bursts} bursts) and the watchers caught nothing: ${kinds.join('; ')}`,
      );
    } finally {
      report(w, 'Lease not held back');
      await stopWorld(w);
    }
  },
);

naive(
  "GIVEN Antrea's leader stopped WHEN its webhooks are left in place THEN members' writes are refused",
  async () => {
    const w = await world('cutnw');
    try {
      await compileModel(w, await runImport(w), false);
      for (const id of w.set.memberIds) await memberUnderGitOps(w, id);
      await applyBundle(w.set.leader, path.join(w.out!, 'clusters', w.set.leaderId));
      const churnErrors = w.churn.errors.length;
      await stopAntreaLeader(w, true);
      w.reconciler = startReconciler(await reconcilerFixture(w), 'cut-hooks');
      await eventually('the reconciler leads', async () => leaseHolder(w), 60_000, 200);
      await sleep(15_000);
      report(w, 'webhooks left in place');
      const refused = w.churn.errors.slice(churnErrors);
      const memberErrors = [...w.memberPlayers].map(([id, p]) => `${id}: ${p.lastError ?? '-'}`);
      w.log.push(
        `recorded: ${refused.length} churn writes refused; member players: ${memberErrors.join(' | ')}; watcher anomalies ${w.watchers.anomalies.length}`,
      );
      assert.ok(refused.length > 0, 'members wrote through webhooks no one serves');
      assert.match(refused[0]!.message, /failed calling webhook|connection refused/);
    } finally {
      report(w, 'webhooks left in place');
      await stopWorld(w);
    }
  },
);

// CUTOVER_RUNBOOK_ONLY=1 runs the runbook alone (a quicker loop while working on it).
if (process.env.CUTOVER_RUNBOOK_ONLY !== '1' && process.env.CUTOVER_POD_ONLY !== '1') naive.run();
