import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render } from '../../lib/render';
import { memberConfig } from '../../lib/antrea-member-config';
import {
  EXPECTED_MEMBER_CONFIG_ANNOTATION,
  MEMBER_CONFIG_CHECKSUM_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
  memberConfigChecksum,
  tiersChecksum,
} from '../../lib/render/member-restart';
import { loadYaml } from '../../lib/yaml';
import type { K8sObject } from '../../lib/render';
import { baselinePolicy, memberOf, minimalModel, only, planOf } from '../helpers/models';
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

/** `minimalModel` with Antrea's member controller ConfigMap taken over. */
function owningConfig(): ModelDraft {
  const m = minimalModel();
  m.takeOver = { memberControllerConfig: true };
  return m;
}

test("GIVEN a member and takeOver.memberControllerConfig WHEN rendered THEN its bundle holds a partial Deployment of Antrea's member controller with only the restart annotations", () => {
  const d = restartOf(owningConfig(), 'east');
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

test("GIVEN a member and no takeOver (the default) WHEN rendered THEN only the Tiers roll the controller, and the settings Antrea's install must hold ride in the Deployment's own metadata", () => {
  const d = restartOf(minimalModel(), 'east');
  // Not in the Pod template: a change of the expected settings restarts nothing by itself.
  assert.equal(Object.keys(templateAnnotations(d)), [TIERS_CHECKSUM_ANNOTATION]);
  const expected = d.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION];
  assert.type(expected, 'string');
  assert.equal(loadYaml(expected!), memberConfig(memberOf(planOf(minimalModel()), 'east')));
  assert.equal(Object.keys(d.spec as object), ['template']);
  assert.equal(Object.keys((d.spec as { template: object }).template), ['metadata']);
  // The same Tiers give the same checksum whoever owns the config.
  assert.is(
    templateAnnotations(d)[TIERS_CHECKSUM_ANNOTATION],
    templateAnnotations(restartOf(owningConfig(), 'east'))[TIERS_CHECKSUM_ANNOTATION],
  );
  assert.is(
    restartOf(owningConfig(), 'east').metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION],
    undefined,
  );
});

test('GIVEN no takeOver WHEN a member controller setting changes THEN the Pod template stays the same (no restart) and the expected settings change', () => {
  const m = minimalModel();
  m.clusters = m.clusters.map((c) => (c.id === 'east' ? { ...c, endpointIPType: 'PodIP' as const } : c));
  const before = restartOf(minimalModel(), 'east');
  const after = restartOf(m, 'east');
  assert.equal(after.spec, before.spec);
  assert.match(
    after.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION] ?? '',
    /endpointIPType: PodIP/,
  );
  assert.match(
    before.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION] ?? '',
    /endpointIPType: ClusterIP/,
  );
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
  const before = owningConfig();
  const after = owningConfig();
  after.tiers = [{ name: 'mc-baseline', priority: 101 }];
  after.baselinePolicies = [baselinePolicy()];
  for (const member of ['east', 'west']) {
    const a = templateAnnotations(restartOf(before, member));
    const b = templateAnnotations(restartOf(after, member));
    assert.is.not(a[TIERS_CHECKSUM_ANNOTATION], b[TIERS_CHECKSUM_ANNOTATION], `${member} rolls`);
    assert.is(a[MEMBER_CONFIG_CHECKSUM_ANNOTATION], b[MEMBER_CONFIG_CHECKSUM_ANNOTATION]);
  }
  // A Service change touches neither checksum.
  const svc = owningConfig();
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

test("GIVEN takeOver.memberControllerConfig and a change of a member's controller settings WHEN rendered THEN that member's config checksum changes", () => {
  const p = planOf(owningConfig());
  const east = p.clusters.find((c) => c.id === 'east');
  if (!east) throw new Error('no east');
  const m = owningConfig();
  m.clusters = m.clusters.map((c) => (c.id === 'east' ? { ...c, endpointIPType: 'PodIP' as const } : c));
  assert.is.not(
    templateAnnotations(restartOf(m, 'east'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    memberConfigChecksum(east),
  );
  assert.is(
    templateAnnotations(restartOf(m, 'west'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    templateAnnotations(restartOf(owningConfig(), 'west'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
  );
});

test.run();
