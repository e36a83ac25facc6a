// End-to-end: the leader namespace can be deleted while the compiled-imports admission policy is in
// force (issue 21). kube-controller-manager's namespace controller deletes its contents as its own
// ServiceAccount (test/kube runs it with --use-service-account-credentials, as kubeadm does): the
// policy must let those deletes through, and still refuse a member's and the reconciler's. A
// foreground delete of one compiled import (what Argo CD's prune does by default) must complete too:
// it ends with the garbage collector's update that drops the `foregroundDeletion` finalizer.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { policiesModel } from '../helpers/models';
import { request, stopAll } from '../kube/cluster';
import { eventually } from '../kube/wait';
import { setUpClusterSet } from './fixture';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

test('GIVEN the leader bundle applied, with compiled ServiceImport and ACNP ResourceImports WHEN a member or the reconciler deletes one THEN it is refused, WHEN one is deleted in the foreground THEN it goes, and WHEN the leader namespace is deleted THEN it goes, contents and all', async () => {
  const m = policiesModel();
  m.clusterSetId = 'uninstall';
  const f = await setUpClusterSet(m, 'uninstall');
  const list = await request(f.leader.admin, 'GET', `${MC}/${f.ns}/resourceimports`);
  const names = ((list.json as { items?: { metadata: { name: string } }[] }).items ?? []).map(
    (i) => i.metadata.name,
  );
  const compiled = names.filter((n) => n.endsWith('-service') || n.endsWith('-antreaclusternetworkpolicy'));
  assert.ok(
    compiled.some((n) => n.endsWith('-service')) &&
      compiled.some((n) => n.endsWith('-antreaclusternetworkpolicy')),
    `compiled imports in ${f.ns}: ${names.join(', ')}`,
  );

  // Kubernetes' clean-up is let through by user name: a member's or the reconciler's token still
  // cannot delete a compiled import (RBAC or the policy refuses it). The API server enforces a
  // policy only once its admission plugin has seen it and its binding (a moment after the apply):
  // dry-run deletes (admission runs, nothing is deleted) wait for that, then the real ones.
  const as = (token: string) => ({ server: f.leader.admin.server, ca: f.leader.admin.ca, token });
  await eventually(
    'the compiled-imports policy in force',
    async () => {
      const r = await request(
        as(f.reconcilerToken),
        'DELETE',
        `${MC}/${f.ns}/resourceimports/${compiled[0]}?dryRun=All`,
      );
      return r.status === 403 ? true : undefined;
    },
    60_000,
    250,
  );
  for (const [who, token] of [
    ['member east', f.tokens.get('east')!],
    ['the reconciler', f.reconcilerToken],
  ] as const) {
    const r = await request(as(token), 'DELETE', `${MC}/${f.ns}/resourceimports/${compiled[0]}`);
    assert.is(r.status, 403, `${who} deleting ${compiled[0]}: HTTP ${r.status} ${r.body}`);
  }

  // A foreground delete, as Argo CD prunes unless an Application says PrunePropagationPolicy: the
  // API server sets the finalizer `foregroundDeletion` and the garbage collector removes it with an
  // update once the dependents are gone (here none).
  const pruned = compiled.find((n) => n.endsWith('-service'))!;
  const fg = await request(f.leader.admin, 'DELETE', `${MC}/${f.ns}/resourceimports/${pruned}`, {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    propagationPolicy: 'Foreground',
  });
  assert.ok(
    fg.status === 200 || fg.status === 202,
    `foreground DELETE ${pruned}: HTTP ${fg.status} ${fg.body}`,
  );
  let held = '';
  await eventually(
    `${pruned} gone after a foreground delete`,
    async () => {
      const r = await request(f.leader.admin, 'GET', `${MC}/${f.ns}/resourceimports/${pruned}`);
      if (r.status === 404) return true;
      held = JSON.stringify((r.json as { metadata?: { finalizers?: unknown } }).metadata?.finalizers);
      return undefined;
    },
    60_000,
    250,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; its finalizers: ${held}`);
  });

  const del = await request(f.leader.admin, 'DELETE', `/api/v1/namespaces/${f.ns}`);
  assert.ok(del.status === 200 || del.status === 202, `DELETE namespace: HTTP ${del.status} ${del.body}`);
  let last = '';
  await eventually(
    `namespace ${f.ns} deleted`,
    async () => {
      const r = await request(f.leader.admin, 'GET', `/api/v1/namespaces/${f.ns}`);
      if (r.status === 404) return true;
      last = JSON.stringify((r.json as { status?: unknown }).status);
      return undefined;
    },
    120_000,
    500,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; its status: ${last}`);
  });
  const left = await request(f.leader.admin, 'GET', `${MC}/${f.ns}/resourceimports`);
  assert.equal((left.json as { items?: unknown[] }).items ?? [], [], 'no ResourceImport left');
});

test.after(async () => {
  await stopAll();
});

test.run();
