/**
 * The model's `uninstall`: no member bundle and no member delivery; the leader's bundle, its
 * delivery, the roots and the AppProject stay exactly as they were (docs/runbook.md, "Step 9:
 * uninstall").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { explain } from '../../lib/explain';
import { UNINSTALL_NOTE } from '../../lib/explain/report';
import { formatDiagnostic } from '../../lib/diagnostics';
import { dualRoleModel, policiesModel, type ModelDraft } from '../helpers/models';

function delivered(m: ModelDraft): ModelDraft {
  m.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    managementCluster: 'hub',
    argocd: {},
    flux: {},
  };
  return m;
}

function files(m: ModelDraft): ReadonlyMap<string, string> {
  const r = compile(m);
  assert.equal(r.diagnostics.map(formatDiagnostic), []);
  return r.files;
}

function uninstalled(m: ModelDraft): ModelDraft {
  const u = structuredClone(m);
  u.uninstall = true;
  return u;
}

test('GIVEN uninstall THEN every member bundle and its delivery leave out/, and the leader, the roots and the AppProject stay byte for byte', () => {
  const m = delivered(policiesModel());
  const before = files(m);
  const after = files(uninstalled(m));
  const gone = [...before.keys()].filter((f) => !after.has(f));
  const changed = [...after.keys()].filter((f) => before.get(f) !== after.get(f));
  assert.ok(gone.length > 0);
  for (const f of gone)
    assert.match(
      f,
      /^(clusters\/(east|west)\/|argocd\/apps\/Application\.test-set-(east|west)\.yaml$|flux\/Kustomization\.test-set-(east|west)(\.tiers)?\.yaml$)/,
    );
  // Only the folder lists and the index follow; nothing of the leader or the roots changes.
  assert.equal(changed.sort(), [
    '.clusterset-index',
    'argocd/apps/kustomization.yaml',
    'flux/kustomization.yaml',
  ]);
  for (const keep of [
    'argocd/AppProject.test-set.yaml',
    'argocd/Application.test-set.yaml',
    'argocd/apps/Application.test-set-hub.yaml',
    'flux/Kustomization.test-set.yaml',
    'flux/Kustomization.test-set-hub.yaml',
    'flux/GitRepository.test-set.yaml',
  ])
    assert.is(after.get(keep), before.get(keep), keep);
});

test('GIVEN a leader that is also a member WHEN uninstalled THEN its bundle keeps the leader side only, and its Tiers leave with their Kustomization', () => {
  const m = delivered(dualRoleModel());
  m.tiers = [{ name: 'mc-baseline', priority: 101 }];
  m.baselinePolicies = [
    {
      name: 'guard',
      tier: 'mc-baseline',
      priority: 10,
      appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
      ingress: [{ name: 'drop', action: 'Drop', from: [{ namespaceSelector: {} }] }],
    },
  ] as ModelDraft['baselinePolicies'];
  const before = files(m);
  const after = files(uninstalled(m));
  const hubBefore = [...before.keys()].filter((f) => f.startsWith('clusters/hub/'));
  const hubAfter = [...after.keys()].filter((f) => f.startsWith('clusters/hub/'));
  const left = hubBefore.filter((f) => !after.has(f));
  assert.ok(left.includes('clusters/hub/kube-system/ClusterSet.test-set.yaml'), 'its member ClusterSet goes');
  assert.ok(left.includes('clusters/hub/_cluster/Tier.mc-baseline.yaml'), 'its Tier goes');
  assert.ok(
    hubAfter.includes('clusters/hub/antrea-multicluster/ClusterSet.test-set.yaml'),
    'its leader ClusterSet stays',
  );
  for (const f of hubAfter.filter(
    (x) => !x.endsWith('kustomization.yaml') && x.includes('/antrea-multicluster/'),
  ))
    assert.is(after.get(f), before.get(f), `${f} unchanged`);
  assert.ok(before.has('flux/Kustomization.test-set-hub.tiers.yaml'));
  assert.not.ok(after.has('flux/Kustomization.test-set-hub.tiers.yaml'), "the Tiers' Kustomization leaves");
  assert.is(after.get('argocd/AppProject.test-set.yaml'), before.get('argocd/AppProject.test-set.yaml'));
});

test('GIVEN uninstall WHEN explained THEN the report says first that the ClusterSet is being removed', () => {
  const m = uninstalled(delivered(policiesModel()));
  const r = compile(m);
  const report = explain(r.plan!);
  assert.is(report.notes[0], UNINSTALL_NOTE);
  const plain = explain(compile(delivered(policiesModel())).plan!);
  assert.not.ok(plain.notes.includes(UNINSTALL_NOTE));
});

test.run();
