import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { render } from '../../lib/render';
import { memberConfig } from '../../lib/antrea-member-config';
import { DEFAULT_RECONCILER_IMAGE, MEMBER_RESTART_NAME } from '../../lib/names';
import {
  EXPECTED_MEMBER_CONFIG_ANNOTATION,
  MEMBER_CONFIG_CHECKSUM_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
  memberConfigChecksum,
  restartAnnotations,
  restartArgs,
  restartJobName,
  tiersChecksum,
} from '../../lib/render/member-restart';
import { CONTAINER_SECURITY_CONTEXT, POD_SECURITY_CONTEXT } from '../../lib/render/reconciler';
import { parseAnnotations } from '../../lib/reconciler/restart';
import { validateObject } from '../../lib/validate';
import { loadYaml } from '../../lib/yaml';
import type { K8sObject } from '../../lib/render';
import { baselinePolicy, memberOf, minimalModel, only, planOf } from '../helpers/models';
import type { ModelDraft } from '../helpers/models';

interface JobSpec {
  backoffLimit: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  template: {
    metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
    spec: {
      serviceAccountName: string;
      automountServiceAccountToken: boolean;
      restartPolicy: string;
      imagePullSecrets?: { name: string }[];
      securityContext: unknown;
      containers: {
        name: string;
        image: string;
        args: string[];
        env: { name: string; value?: string; valueFrom?: unknown }[];
        securityContext: unknown;
      }[];
    };
  };
}

function bundleOf(model: ModelDraft, member: string): K8sObject[] {
  const bundle = render(planOf(model)).get(member);
  if (!bundle) throw new Error(`no bundle for ${member}`);
  return bundle;
}

/** The member's restart Job, the one Job of its bundle. */
function jobOf(model: ModelDraft, member: string): K8sObject {
  return only(bundleOf(model, member), 'Job');
}

const jobSpec = (j: K8sObject) => j.spec as JobSpec;
const args = (j: K8sObject) => jobSpec(j).template.spec.containers[0]!.args;

/** The Pod template annotations the Job sets on Antrea's Deployment: its `--annotation` flags. */
function setAnnotations(j: K8sObject): Record<string, string> {
  const a = args(j);
  return parseAnnotations(a.flatMap((x, i) => (a[i - 1] === '--annotation' ? [x] : [])));
}

/** `minimalModel` with Antrea's member controller ConfigMap taken over. */
function owningConfig(): ModelDraft {
  const m = minimalModel();
  m.takeOver = { memberControllerConfig: true };
  return m;
}

test("GIVEN a member WHEN rendered THEN its bundle holds ServiceAccount, Role and RoleBinding clusterset-restart and one Job clusterset-restart-<10 hex>, in the member namespace, a Role and RoleBinding in each namespace it exports from, and nothing of Antrea's Deployment", () => {
  const bundle = bundleOf(minimalModel(), 'east');
  const restart = bundle.filter((o) => o.metadata.name.startsWith(MEMBER_RESTART_NAME));
  assert.equal(restart.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace}`).sort(), [
    'batch/v1 Job kube-system',
    'rbac.authorization.k8s.io/v1 Role kube-system',
    'rbac.authorization.k8s.io/v1 Role shop',
    'rbac.authorization.k8s.io/v1 RoleBinding kube-system',
    'rbac.authorization.k8s.io/v1 RoleBinding shop',
    'v1 ServiceAccount kube-system',
  ]);
  assert.not.ok(
    bundle.some((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding'),
    'no cluster-wide right',
  );
  for (const o of restart.filter((x) => x.kind !== 'Job')) assert.is(o.metadata.name, 'clusterset-restart');
  assert.match(only(bundle, 'Job').metadata.name, /^clusterset-restart-[0-9a-f]{10}$/);
  assert.not.ok(
    bundle.some((o) => o.kind === 'Deployment'),
    'a member bundle holds no Deployment',
  );
  for (const o of restart) assert.equal(validateObject(o, o.metadata.name), [], o.kind);
});

test("THEN the Role may get and patch Antrea's member controller Deployment and the member's ClusterSet alone, each exported-from namespace's Role list and patch ServiceExports there, and the RoleBindings give them to the Job's ServiceAccount", () => {
  const bundle = bundleOf(minimalModel(), 'east');
  const inNs = (kind: string, ns: string) =>
    bundle.filter(
      (o) => o.kind === kind && o.metadata.name === 'clusterset-restart' && o.metadata.namespace === ns,
    );
  assert.equal(inNs('Role', 'kube-system')[0]!.rules, [
    {
      apiGroups: ['apps'],
      resources: ['deployments'],
      resourceNames: ['antrea-mc-controller'],
      verbs: ['get', 'patch'],
    },
    {
      apiGroups: ['multicluster.crd.antrea.io'],
      resources: ['clustersets'],
      resourceNames: ['test-set'],
      verbs: ['get', 'patch'],
    },
  ]);
  assert.equal(inNs('Role', 'shop')[0]!.rules, [
    { apiGroups: ['multicluster.x-k8s.io'], resources: ['serviceexports'], verbs: ['list', 'patch'] },
  ]);
  for (const ns of ['kube-system', 'shop']) {
    const rb = inNs('RoleBinding', ns)[0]!;
    assert.equal(rb.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'clusterset-restart',
    });
    assert.equal(rb.subjects, [
      { kind: 'ServiceAccount', name: 'clusterset-restart', namespace: 'kube-system' },
    ]);
  }
  assert.is(jobSpec(jobOf(minimalModel(), 'east')).template.spec.serviceAccountName, 'clusterset-restart');
});

test("THEN the Job runs the reconciler's image, with the restart command for Antrea's Deployment, restarted on failure with no deadline and no limit a cause reaches, told its own name, as non-root with the reconciler's security contexts", () => {
  const j = jobOf(minimalModel(), 'east');
  const s = jobSpec(j);
  // A restart that cannot run yet (an image not pushed, Antrea not installed) runs again by itself
  // once the cause is gone (issue 39): the kubelet restarts it with its back-off, forever.
  assert.is(s.backoffLimit, 2147483647);
  assert.is(s.activeDeadlineSeconds, undefined);
  assert.is(
    s.ttlSecondsAfterFinished,
    undefined,
    'a finished Job stays: deleted, delivery would run it again',
  );
  assert.is(s.template.spec.restartPolicy, 'OnFailure');
  assert.equal(s.template.spec.containers[0]!.env[1], {
    name: 'CLUSTERSET_JOB',
    valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-name']" } },
  });
  assert.is(s.template.spec.automountServiceAccountToken, true);
  assert.equal(s.template.metadata.labels, { 'app.kubernetes.io/name': 'clusterset-restart' });
  assert.is(s.template.metadata.annotations, undefined);
  assert.equal(s.template.spec.securityContext, POD_SECURITY_CONTEXT);
  assert.equal(POD_SECURITY_CONTEXT.runAsNonRoot, true);
  assert.is(s.template.spec.containers.length, 1);
  const c = s.template.spec.containers[0]!;
  assert.is(c.image, DEFAULT_RECONCILER_IMAGE);
  assert.equal(c.securityContext, CONTAINER_SECURITY_CONTEXT);
  assert.equal(c.args.slice(0, 5), [
    'restart-member-controller',
    '--namespace',
    'kube-system',
    '--deployment',
    'antrea-mc-controller',
  ]);
  assert.equal(j.metadata.labels, {
    'app.kubernetes.io/name': 'clusterset-restart',
    'app.kubernetes.io/managed-by': 'clusterset',
    'app.kubernetes.io/part-of': 'test-set',
  });
});

test('GIVEN a member and takeOver.memberControllerConfig WHEN rendered THEN the Job sets the Tiers and settings checksums, and carries no expected settings', () => {
  const j = jobOf(owningConfig(), 'east');
  const east = memberOf(planOf(owningConfig()), 'east');
  assert.equal(setAnnotations(j), {
    [MEMBER_CONFIG_CHECKSUM_ANNOTATION]: memberConfigChecksum(east),
    [TIERS_CHECKSUM_ANNOTATION]: tiersChecksum([]),
  });
  // In key order, each a flag of its own.
  assert.equal(args(j).slice(5), [
    '--annotation',
    `clusterset/config-checksum=${memberConfigChecksum(east)}`,
    '--annotation',
    `clusterset/tiers-checksum=${tiersChecksum([])}`,
    '--cluster-set',
    'test-set',
    '--export-namespace',
    'shop',
  ]);
  assert.is(j.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION], undefined);
});

test("GIVEN a member and no takeOver (the default) WHEN rendered THEN only the Tiers roll the controller, and the settings Antrea's install must hold ride in the Job's own metadata", () => {
  const j = jobOf(minimalModel(), 'east');
  assert.equal(Object.keys(setAnnotations(j)), [TIERS_CHECKSUM_ANNOTATION]);
  const expected = j.metadata.annotations?.[EXPECTED_MEMBER_CONFIG_ANNOTATION];
  assert.type(expected, 'string');
  assert.equal(loadYaml(expected!), memberConfig(memberOf(planOf(minimalModel()), 'east')));
  // The same Tiers give the same checksum whoever owns the config.
  assert.is(
    setAnnotations(j)[TIERS_CHECKSUM_ANNOTATION],
    setAnnotations(jobOf(owningConfig(), 'east'))[TIERS_CHECKSUM_ANNOTATION],
  );
});

test('GIVEN no takeOver WHEN a member controller setting changes THEN the same Job (name and spec: no restart) with other expected settings', () => {
  const m = minimalModel();
  m.clusters = m.clusters.map((c) => (c.id === 'east' ? { ...c, endpointIPType: 'PodIP' as const } : c));
  const before = jobOf(minimalModel(), 'east');
  const after = jobOf(m, 'east');
  assert.is(after.metadata.name, before.metadata.name);
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

test('GIVEN the leader bundle (not a member) WHEN rendered THEN it restarts no member controller', () => {
  const bundle = render(planOf(minimalModel())).get('hub') ?? [];
  assert.ok(bundle.length > 0);
  assert.not.ok(
    bundle.some((o) => o.kind === 'Job' || o.metadata.name.startsWith(MEMBER_RESTART_NAME)),
    'no restart Job nor its access',
  );
});

test('GIVEN a custom member namespace WHEN rendered THEN the Job and its access live there and it patches the Deployment there', () => {
  const m = minimalModel();
  m.memberNamespace = 'antrea-mc';
  const bundle = bundleOf(m, 'east');
  for (const o of bundle.filter(
    (x) => x.metadata.name.startsWith(MEMBER_RESTART_NAME) && x.metadata.namespace !== 'shop',
  ))
    assert.is(o.metadata.namespace, 'antrea-mc', o.kind);
  assert.equal(args(only(bundle, 'Job')).slice(1, 3), ['--namespace', 'antrea-mc']);
  for (const rb of bundle.filter((o) => o.kind === 'RoleBinding' && o.metadata.name === 'clusterset-restart'))
    assert.equal(rb.subjects, [
      { kind: 'ServiceAccount', name: 'clusterset-restart', namespace: 'antrea-mc' },
    ]);
});

test('GIVEN a day-2 change that adds a Tier and a baseline policy in it WHEN rendered THEN every member gets a new Job (a new name) with a new tiers checksum, and nothing else changes it', () => {
  const before = owningConfig();
  const after = owningConfig();
  after.tiers = [{ name: 'mc-baseline', priority: 101 }];
  after.baselinePolicies = [baselinePolicy()];
  for (const member of ['east', 'west']) {
    const a = jobOf(before, member);
    const b = jobOf(after, member);
    assert.is.not(a.metadata.name, b.metadata.name, `${member}: a new Job`);
    assert.is.not(setAnnotations(a)[TIERS_CHECKSUM_ANNOTATION], setAnnotations(b)[TIERS_CHECKSUM_ANNOTATION]);
    assert.is(
      setAnnotations(a)[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
      setAnnotations(b)[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    );
  }
  // A Service change in a namespace the member exports from already touches neither checksum nor
  // the Job; a member's first (or last) Service in a namespace is a new Job: it re-exports there.
  const more = owningConfig();
  more.services = [...(more.services ?? []), { ...more.services![0]!, name: 'cart-2' }];
  assert.equal(jobOf(more, 'east'), jobOf(before, 'east'));
  const none = owningConfig();
  none.services = [];
  assert.is.not(jobOf(none, 'east').metadata.name, jobOf(before, 'east').metadata.name);
  assert.equal(setAnnotations(jobOf(none, 'east')), setAnnotations(jobOf(before, 'east')));
  assert.not.ok(args(jobOf(none, 'east')).includes('--export-namespace'));
});

test('GIVEN a Tier declared but used by no policy WHEN rendered THEN it is not in the checksum (not in the bundle either): the same Job', () => {
  const m = minimalModel();
  m.tiers = [{ name: 'mc-unused', priority: 102 }];
  assert.equal(jobOf(m, 'east'), jobOf(minimalModel(), 'east'));
});

test('GIVEN Tiers in any order WHEN checksummed THEN the same; a changed priority or description changes it', () => {
  const a = { name: 'a', priority: 1 };
  const b = { name: 'b', priority: 2, description: 'x' };
  assert.is(tiersChecksum([a, b]), tiersChecksum([b, a]));
  assert.is.not(tiersChecksum([a, b]), tiersChecksum([a, { ...b, priority: 3 }]));
  assert.is.not(tiersChecksum([a, b]), tiersChecksum([a, { ...b, description: 'y' }]));
  assert.match(tiersChecksum([]), /^[0-9a-f]{64}$/);
});

test("GIVEN takeOver.memberControllerConfig and a change of a member's controller settings WHEN rendered THEN that member's config checksum changes, and only its Job is new", () => {
  const p = planOf(owningConfig());
  const east = memberOf(p, 'east');
  const m = owningConfig();
  m.clusters = m.clusters.map((c) => (c.id === 'east' ? { ...c, endpointIPType: 'PodIP' as const } : c));
  assert.is.not(
    setAnnotations(jobOf(m, 'east'))[MEMBER_CONFIG_CHECKSUM_ANNOTATION],
    memberConfigChecksum(east),
  );
  assert.is.not(jobOf(m, 'east').metadata.name, jobOf(owningConfig(), 'east').metadata.name);
  assert.equal(jobOf(m, 'west'), jobOf(owningConfig(), 'west'));
});

test('GIVEN another reconciler image WHEN rendered THEN the Job runs it and is a new Job (its template cannot change), with the same annotations', () => {
  const m = minimalModel();
  m.reconciler = { image: 'registry.example.com/platform/clusterset:9.9.9' };
  const a = jobOf(minimalModel(), 'east');
  const b = jobOf(m, 'east');
  assert.is(jobSpec(b).template.spec.containers[0]!.image, 'registry.example.com/platform/clusterset:9.9.9');
  assert.is.not(a.metadata.name, b.metadata.name);
  assert.equal(setAnnotations(a), setAnnotations(b));
});

test("GIVEN reconciler.imagePullSecrets WHEN rendered THEN each member's Job pulls the image with them, sorted, and is a new Job (its template cannot change); without them the name is the one it always was", () => {
  const m = minimalModel();
  m.reconciler = { imagePullSecrets: ['regcred', 'mirror'] };
  const a = jobOf(minimalModel(), 'east');
  const b = jobOf(m, 'east');
  assert.equal(jobSpec(b).template.spec.imagePullSecrets, [{ name: 'mirror' }, { name: 'regcred' }]);
  assert.not.ok('imagePullSecrets' in jobSpec(a).template.spec);
  assert.is.not(a.metadata.name, b.metadata.name);
  assert.equal(setAnnotations(a), setAnnotations(b));
  // The name hashes the Secrets only when there are some.
  const p = planOf(m);
  const argv = args(b);
  assert.is(b.metadata.name, restartJobName(DEFAULT_RECONCILER_IMAGE, argv, ['mirror', 'regcred']));
  assert.is(
    restartJobName(DEFAULT_RECONCILER_IMAGE, argv, []),
    restartJobName(DEFAULT_RECONCILER_IMAGE, argv),
  );
  assert.is(a.metadata.name, restartJobName(DEFAULT_RECONCILER_IMAGE, args(a)));
  assert.equal(p.reconciler.imagePullSecrets, ['mirror', 'regcred']);
});

test("THEN the Job's name is clusterset-restart- and the first 10 hex digits of the SHA-256 of its image, command line and template version", () => {
  const p = planOf(minimalModel());
  const east = memberOf(p, 'east');
  const a = restartArgs(p, restartAnnotations(p, east, []), ['shop']);
  assert.equal(a, [
    'restart-member-controller',
    '--namespace',
    'kube-system',
    '--deployment',
    'antrea-mc-controller',
    '--annotation',
    `clusterset/tiers-checksum=${tiersChecksum([])}`,
    '--cluster-set',
    'test-set',
    '--export-namespace',
    'shop',
  ]);
  const digest = createHash('sha256')
    .update(JSON.stringify([DEFAULT_RECONCILER_IMAGE, ...a, { template: 2 }]), 'utf8')
    .digest('hex');
  assert.is(restartJobName(DEFAULT_RECONCILER_IMAGE, a), `clusterset-restart-${digest.slice(0, 10)}`);
  assert.is(jobOf(minimalModel(), 'east').metadata.name, restartJobName(DEFAULT_RECONCILER_IMAGE, a));
  // The flags sort by key, whatever order the annotations come in.
  assert.equal(restartArgs(p, { b: '2', a: '1' }).slice(5, 9), [
    '--annotation',
    'a=1',
    '--annotation',
    'b=2',
  ]);
});

test.run();
