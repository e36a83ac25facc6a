/**
 * Rendering of the warm standby beside Antrea's leader (reconciler.waitForAntreaLeader, issue 33):
 * with the flag, the compiled-imports policy lets Antrea's leader through, the reconciler may read
 * Antrea's Deployment and its two webhook configurations by name and nothing broader, and its
 * config says to wait; without it, not a byte of that (the golden tests hold the whole bundles).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { diffTrees, impact } from '../../lib/diff';
import { render, type K8sObject } from '../../lib/render';
import { resource } from '../../lib/status/resources';
import {
  antreaLeaderUsername,
  compiledImportsPolicyName,
  memberWritesPolicyName,
  reconcilerWritesPolicyName,
} from '../../lib/render/admission';
import { ANTREA_LEADER_RULES, antreaLeaderWatcherName, ROLE_RULES } from '../../lib/render/reconciler';
import { RECONCILER_CONFIG_KEY, RECONCILER_CONFIG_NAME, RECONCILER_NAME } from '../../lib/names';
import { parseReconcilerConfigText } from '../../lib/reconciler-config';
import { validateObject } from '../../lib/validate';
import { loadYaml } from '../../lib/yaml';
import { minimalModel, only, planOf, type ModelDraft } from '../helpers/models';

function standbyModel(flag: boolean | undefined): ModelDraft {
  const m = minimalModel();
  return flag === undefined ? m : { ...m, reconciler: { ...m.reconciler, waitForAntreaLeader: flag } };
}

function leaderBundle(m: ModelDraft): K8sObject[] {
  const p = planOf(m);
  return render(p).get(p.leader.id)!;
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Condition = { name: string; expression: string };

const conditions = (objs: K8sObject[], policy: string): Condition[] =>
  (only(objs, 'ValidatingAdmissionPolicy', policy) as unknown as { spec: { matchConditions: Condition[] } })
    .spec.matchConditions;

test('GIVEN waitForAntreaLeader unset or false THEN the leader bundle is the same, without any trace of Antrea leader', () => {
  const unset = leaderBundle(standbyModel(undefined));
  const off = leaderBundle(standbyModel(false));
  assert.equal(off, unset, 'false renders what the default renders');
  const text = JSON.stringify(unset);
  assert.not.match(text, /antrea-mc-controller/, 'no username, no Deployment rule');
  assert.not.match(text, /webhookconfigurations/);
  assert.not.ok(unset.some((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'));
  const p = planOf(standbyModel(undefined));
  const role = only(unset, 'Role', RECONCILER_NAME) as unknown as { rules: Rule[] };
  assert.equal(role.rules, ROLE_RULES);
  const cm = only(unset, 'ConfigMap', RECONCILER_CONFIG_NAME) as unknown as { data: Record<string, string> };
  assert.not.match(cm.data[RECONCILER_CONFIG_KEY]!, /waitForAntreaLeader/);
  assert.not.ok(
    conditions(unset, compiledImportsPolicyName(p)).some((c) =>
      c.expression.includes(antreaLeaderUsername(p)),
    ),
  );
});

test('GIVEN waitForAntreaLeader WHEN rendered THEN only the Role, the config (and the Deployment checksum that follows it), the compiled-imports policy and the new ClusterRole and binding differ', () => {
  const off = new Map(leaderBundle(standbyModel(false)).map((o) => [key(o), o]));
  const on = new Map(leaderBundle(standbyModel(true)).map((o) => [key(o), o]));
  const p = planOf(standbyModel(true));
  const differ = [...new Set([...off.keys(), ...on.keys()])]
    .filter((k) => JSON.stringify(off.get(k)) !== JSON.stringify(on.get(k)))
    .sort();
  const watcher = antreaLeaderWatcherName(p);
  assert.equal(
    differ,
    [
      `ClusterRole//${watcher}`,
      `ClusterRoleBinding//${watcher}`,
      `ConfigMap/${p.leaderNamespace}/${RECONCILER_CONFIG_NAME}`,
      `Deployment/${p.leaderNamespace}/${RECONCILER_NAME}`,
      `Role/${p.leaderNamespace}/${RECONCILER_NAME}`,
      `ValidatingAdmissionPolicy//${compiledImportsPolicyName(p)}`,
    ].sort(),
  );
  // The member-writes and reconciler-writes policies never matched Antrea's leader: unchanged.
  for (const name of [memberWritesPolicyName(p), reconcilerWritesPolicyName(p)])
    assert.not.match(JSON.stringify(on.get(`ValidatingAdmissionPolicy//${name}`)), /antrea-mc-controller/);
});

test('GIVEN waitForAntreaLeader THEN compiled-imports lets exactly Antrea leader ServiceAccount through, and nothing else of the policy changes', () => {
  const pOff = planOf(standbyModel(false));
  const p = planOf(standbyModel(true));
  const before = conditions(leaderBundle(standbyModel(false)), compiledImportsPolicyName(pOff));
  const after = conditions(leaderBundle(standbyModel(true)), compiledImportsPolicyName(p));
  assert.equal(after.slice(0, before.length), before, 'the other conditions as they were');
  assert.equal(after.slice(before.length), [
    {
      name: 'not-antrea-leader-in-standby',
      expression:
        "request.userInfo.username != 'system:serviceaccount:antrea-multicluster:antrea-mc-controller'",
    },
  ]);
});

test('GIVEN waitForAntreaLeader THEN the reconciler may get, list and watch Antrea leader Deployment and webhook configurations by name, and the leader namespace Pods (read-only), and the config says to wait', () => {
  const objs = leaderBundle(standbyModel(true));
  const p = planOf(standbyModel(true));
  const role = only(objs, 'Role', RECONCILER_NAME) as unknown as { rules: Rule[] };
  assert.equal(role.rules.slice(0, ROLE_RULES.length), ROLE_RULES, 'the usual rules first, unchanged');
  assert.equal(role.rules.slice(ROLE_RULES.length), [
    {
      apiGroups: ['apps'],
      resources: ['deployments'],
      resourceNames: ['antrea-mc-controller'],
      verbs: ['get', 'list', 'watch'],
    },
    // Pods by no name: theirs are not known beforehand; the reconciler lists and watches only those
    // of ServiceAccount antrea-mc-controller, by field selector.
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
  ]);
  const watcher = antreaLeaderWatcherName(p);
  assert.is(watcher, 'antrea-multicluster-clusterset-reconciler-antrea-leader');
  const cr = only(objs, 'ClusterRole', watcher) as unknown as {
    rules: Rule[];
    metadata: { namespace?: string };
  };
  assert.is(cr.metadata.namespace, undefined);
  assert.equal(cr.rules, [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      resourceNames: ['antrea-multicluster-antrea-mc-mutating-webhook-configuration'],
      verbs: ['get', 'list', 'watch'],
    },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: ['antrea-multicluster-antrea-mc-validating-webhook-configuration'],
      verbs: ['get', 'list', 'watch'],
    },
  ]);
  assert.equal(cr.rules, JSON.parse(JSON.stringify(ANTREA_LEADER_RULES.clusterRole)));
  for (const r of [...cr.rules, ...role.rules.slice(ROLE_RULES.length)]) {
    if (r.resources[0] !== 'pods')
      assert.ok(r.resourceNames && r.resourceNames.length === 1, 'every other added rule names its object');
    assert.not.ok(
      r.verbs.some((v) => !['get', 'list', 'watch'].includes(v)),
      'read-only',
    );
  }
  const crb = only(objs, 'ClusterRoleBinding', watcher) as unknown as {
    roleRef: unknown;
    subjects: unknown[];
  };
  assert.equal(crb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: watcher });
  assert.equal(crb.subjects, [
    { kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: 'antrea-multicluster' },
  ]);
  for (const o of [cr, crb] as unknown as K8sObject[]) assert.equal(validateObject(o, key(o)), [], key(o));
  const cm = only(objs, 'ConfigMap', RECONCILER_CONFIG_NAME) as unknown as { data: Record<string, string> };
  assert.is(parseReconcilerConfigText(cm.data[RECONCILER_CONFIG_KEY]!, 'cm').waitForAntreaLeader, true);
});

test('GIVEN waitForAntreaLeader WHEN the model is compiled whole THEN no diagnostic (the new kinds are known to validation and to status)', () => {
  const r = compile(standbyModel(true));
  assert.equal(r.diagnostics, []);
  assert.ok(
    [...r.files.keys()].some((f) => f.includes('ClusterRole.')),
    [...r.files.keys()].join('\n'),
  );
  for (const kind of ['ClusterRole', 'ClusterRoleBinding'])
    assert.ok(resource(kind).plural.startsWith('cluster'));
});

function breakingOf(a: ModelDraft, b: ModelDraft): string[] {
  const before = compile(a);
  const after = compile(b);
  return [
    ...impact(before.files, after.files, diffTrees(before.files, after.files), after.plan).afterMerge
      .breaking,
  ];
}

test('GIVEN the flag set false WHEN diffed THEN one breaking line says to merge only once Antrea leader is gone, and what the sync removes; set true or left alone, none', () => {
  const off = breakingOf(standbyModel(true), standbyModel(false));
  assert.is(off.length, 1, off.join('\n'));
  assert.match(off[0]!, /stops waiting for Antrea's leader/);
  assert.match(off[0]!, /Deployment antrea-multicluster\/antrea-mc-controller at 0 replicas/);
  assert.match(off[0]!, /antrea-multicluster-antrea-mc-validating-webhook-configuration/);
  assert.match(off[0]!, /ClusterRole antrea-multicluster-clusterset-reconciler-antrea-leader/);
  assert.equal(breakingOf(standbyModel(false), standbyModel(true)), []);
  assert.equal(breakingOf(standbyModel(undefined), standbyModel(false)), []);
});

test.run();

test("GIVEN waitForAntreaLeader WHEN delivered by Flux THEN the leader's Kustomization has no ResourceImport health check (Flux's CEL errors on an import Antrea never gave a status) and the members' keep theirs; without the flag it has it", () => {
  const exprs = (flag: boolean, cluster: string) => {
    const m = standbyModel(flag);
    m.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', flux: {} };
    const r = compile(m);
    assert.equal(r.diagnostics, []);
    const p = planOf(m);
    const file = r.files.get(`flux/Kustomization.${p.clusterSetId}-${cluster}.yaml`);
    assert.ok(file, `the Kustomization of ${cluster}`);
    const k = loadYaml(file) as { spec: { healthCheckExprs?: { kind: string }[] } };
    return (k.spec.healthCheckExprs ?? []).map((e) => e.kind);
  };
  assert.ok(exprs(false, 'hub').includes('ResourceImport'));
  assert.not.ok(exprs(true, 'hub').includes('ResourceImport'));
  assert.ok(exprs(true, 'hub').includes('ClusterSet'), 'the leader ClusterSet is still checked');
  const member = planOf(standbyModel(true)).members.find((x) => !x.isLeader)!.id;
  assert.equal(exprs(true, member), exprs(false, member));
});
