import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render } from '../../lib/render';
import {
  MEMBER_CONFIG_CHECKSUM_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
  memberConfigChecksum,
  tiersChecksum,
} from '../../lib/render/member-restart';
import type { K8sObject } from '../../lib/render';
import { baselinePolicy, minimalModel, only, planOf } from '../helpers/models';
import type { ModelDraft } from '../helpers/models';

function restartOf(model: ModelDraft, member: string): K8sObject {
  const bundle = render(planOf(model)).get(member);
  if (!bundle) throw new Error(`no bundle for ${member}`);
  return only(bundle, 'Deployment', 'antrea-mc-controller');
}

function templateAnnotations(d: K8sObject): Record<string, string> {
  return (d.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata
    .annotations;
}

test("GIVEN a member WHEN rendered THEN its bundle holds a partial Deployment of Antrea's member controller with only the restart annotations", () => {
  const d = restartOf(minimalModel(), 'east');
  assert.equal(d.metadata, {
    name: 'antrea-mc-controller',
    namespace: 'kube-system',
    annotations: {
      // After the Tiers (-1) and everything else (0).
      'argocd.argoproj.io/sync-wave': '1',
      // A partial object: server-side apply, no schema validation, never pruned.
      'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Validate=false,Prune=false,Delete=false',
      'kustomize.toolkit.fluxcd.io/prune': 'disabled',
    },
  });
  // Nothing that belongs to Antrea's install: no selector, replicas, labels or containers.
  assert.equal(Object.keys(d.spec as object), ['template']);
  assert.equal(Object.keys((d.spec as { template: object }).template), ['metadata']);
  assert.equal(Object.keys(templateAnnotations(d)).sort(), [
    MEMBER_CONFIG_CHECKSUM_ANNOTATION,
    TIERS_CHECKSUM_ANNOTATION,
  ]);
});

test('GIVEN the leader bundle WHEN rendered THEN it restarts no member controller', () => {
  const bundle = render(planOf(minimalModel())).get('hub') ?? [];
  assert.is(
    bundle.some((o) => o.kind === 'Deployment' && o.metadata.name === 'antrea-mc-controller'),
    false,
  );
});

test('GIVEN a custom member namespace WHEN rendered THEN the Deployment is looked for there', () => {
  const m = minimalModel();
  m.memberNamespace = 'antrea-mc';
  assert.is(restartOf(m, 'east').metadata.namespace, 'antrea-mc');
});

test('GIVEN a day-2 change that adds a Tier and a baseline policy in it WHEN rendered THEN every member restarts, and nothing else changes the tiers checksum', () => {
  const before = minimalModel();
  const after = minimalModel();
  after.tiers = [{ name: 'mc-baseline', priority: 101 }];
  after.baselinePolicies = [baselinePolicy()];
  for (const member of ['east', 'west']) {
    const a = templateAnnotations(restartOf(before, member));
    const b = templateAnnotations(restartOf(after, member));
    assert.is.not(a[TIERS_CHECKSUM_ANNOTATION], b[TIERS_CHECKSUM_ANNOTATION], `${member} rolls`);
    assert.is(a[MEMBER_CONFIG_CHECKSUM_ANNOTATION], b[MEMBER_CONFIG_CHECKSUM_ANNOTATION]);
  }
  // A Service change touches neither checksum.
  const svc = minimalModel();
  svc.services = [];
  assert.equal(templateAnnotations(restartOf(svc, 'east')), templateAnnotations(restartOf(before, 'east')));
});

test('GIVEN a Tier declared but used by no policy WHEN rendered THEN it is not in the checksum (not in the bundle either)', () => {
  const m = minimalModel();
  m.tiers = [{ name: 'mc-unused', priority: 102 }];
  assert.equal(
    templateAnnotations(restartOf(m, 'east')),
    templateAnnotations(restartOf(minimalModel(), 'east')),
  );
});

test('GIVEN Tiers in any order WHEN checksummed THEN the same; a changed priority or description changes it', () => {
  const a = { name: 'a', priority: 1 };
  const b = { name: 'b', priority: 2, description: 'x' };
  assert.is(tiersChecksum([a, b]), tiersChecksum([b, a]));
  assert.is.not(tiersChecksum([a, b]), tiersChecksum([a, { ...b, priority: 3 }]));
  assert.is.not(tiersChecksum([a, b]), tiersChecksum([a, { ...b, description: 'y' }]));
  assert.match(tiersChecksum([]), /^[0-9a-f]{64}$/);
});

test("GIVEN a change of a member's controller settings WHEN rendered THEN that member's config checksum changes", () => {
  const p = planOf(minimalModel());
  const east = p.clusters.find((c) => c.id === 'east');
  if (!east) throw new Error('no east');
  const m = minimalModel();
  m.clusters = m.clusters.map((c) => (c.id === 'east' ? { ...c, endpointIPType: 'PodIP' as const } : c));
  assert.is.not(
    templateAnnotations(restartOf(m, 'east'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    memberConfigChecksum(east),
  );
  assert.is(
    templateAnnotations(restartOf(m, 'west'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    templateAnnotations(restartOf(minimalModel(), 'west'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
  );
});

test.run();
