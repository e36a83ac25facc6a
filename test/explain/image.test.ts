/**
 * `explain` names the reconciler image as a prerequisite of every cluster that runs it
 * (lib/explain/image.ts): what runs it there (the leader's Deployment, a member's restart Job, both
 * in a dual-role leader), the pull Secrets that must exist in those namespaces, and the one command
 * that builds and pushes it from the installed package; in text, markdown and JSON. A member being
 * uninstalled runs nothing, so it needs nothing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkModel } from '../../lib/check';
import { explain, formatReport } from '../../lib/explain';
import { buildTag, imageEntry } from '../../lib/explain/image';
import { DEFAULT_RECONCILER_IMAGE } from '../../lib/names';
import { render } from '../../lib/render';
import pkg from '../../package.json';
import { dualRoleModel, minimalModel, planOf, type ModelDraft } from '../helpers/models';

/** The plan of a model that passes the checks. */
function checkedPlan(m: ModelDraft) {
  assert.equal(checkModel(m), []);
  return planOf(m);
}

/** The restart Job's name in `member`'s bundle. */
function jobName(m: ModelDraft, member: string): string {
  const job = render(planOf(m))
    .get(member)!
    .find((o) => o.kind === 'Job');
  return job!.metadata.name;
}

const PRIVATE = 'registry.example.com/platform/clusterset:0.1.0';

test('GIVEN the default image WHEN the leader is explained THEN it names the Deployment that runs it and the command that builds and pushes it to your registry', () => {
  const p = checkedPlan(minimalModel());
  const hub = explain(p, { cluster: 'hub' }).clusters[0]!;
  assert.equal(hub.image, {
    image: DEFAULT_RECONCILER_IMAGE,
    default: true,
    runBy: ['Deployment antrea-multicluster/clusterset-reconciler'],
    pullSecrets: [],
    build: `npx clusterset image build --tag <registry>/clusterset:${pkg.version} --push`,
  });
  const text = formatReport(explain(p, { cluster: 'hub' }), p, 'text');
  assert.match(
    text,
    `  reconciler image ${DEFAULT_RECONCILER_IMAGE} (the default), run here by Deployment antrea-multicluster/clusterset-reconciler: the nodes must be able to pull it; unless they pull it as published, build it from the installed package, push it to your registry and set reconciler.image to that reference:\n    npx clusterset image build --tag <registry>/clusterset:${pkg.version} --push\n`,
  );
  assert.not.match(text, /image pull Secrets/);
});

test("GIVEN a member WHEN explained THEN its restart Job runs the image, by the Job's exact name", () => {
  const m = minimalModel();
  const p = checkedPlan(m);
  const east = explain(p, { cluster: 'east' }).clusters[0]!;
  assert.equal(east.image?.runBy, [`Job kube-system/${jobName(m, 'east')}`]);
});

test('GIVEN reconciler.image and imagePullSecrets in a dual-role leader WHEN explained THEN both what runs it and the Secrets in both namespaces, in every format', () => {
  const m = dualRoleModel();
  m.reconciler = { image: PRIVATE, imagePullSecrets: ['regcred', 'mirror'] };
  const p = checkedPlan(m);
  const report = explain(p, { cluster: 'hub' });
  const hub = report.clusters[0]!;
  assert.equal(hub.image, {
    image: PRIVATE,
    default: false,
    runBy: ['Deployment antrea-multicluster/clusterset-reconciler', `Job kube-system/${jobName(m, 'hub')}`],
    pullSecrets: [
      'antrea-multicluster/mirror',
      'antrea-multicluster/regcred',
      'kube-system/mirror',
      'kube-system/regcred',
    ],
    build: `npx clusterset image build --tag ${PRIVATE} --push`,
  });
  const text = formatReport(report, p, 'text');
  assert.match(text, `  reconciler image ${PRIVATE} (reconciler.image), run here by Deployment`);
  assert.match(text, `build it from the installed package and push it with:\n    ${hub.image!.build}\n`);
  assert.match(
    text,
    '  image pull Secrets (reconciler.imagePullSecrets, type kubernetes.io/dockerconfigjson), which must exist here: antrea-multicluster/mirror, antrea-multicluster/regcred, kube-system/mirror, kube-system/regcred\n',
  );
  const md = formatReport(report, p, 'markdown');
  assert.match(md, `\`\`\`sh\n${hub.image!.build}\n\`\`\``);
  assert.match(md, 'which must exist here: antrea-multicluster/mirror');
  const json = JSON.parse(formatReport(report, p, 'json')) as { clusters: { image: unknown }[] };
  assert.equal(json.clusters[0]!.image, hub.image);
  // A plain member needs the Secrets in the member namespace only.
  const east = explain(p, { cluster: 'east' }).clusters[0]!;
  assert.equal(east.image?.pullSecrets, ['kube-system/mirror', 'kube-system/regcred']);
});

test('GIVEN an image pinned by digest WHEN the command is named THEN it tags the reference without the digest (the engine cannot tag a digest)', () => {
  const digest = `@sha256:${'a'.repeat(64)}`;
  assert.is(buildTag(`${PRIVATE}${digest}`, false), PRIVATE);
  assert.is(
    buildTag(`registry.example.com:5000/platform/clusterset${digest}`, false),
    `registry.example.com:5000/platform/clusterset:${pkg.version}`,
  );
  assert.is(
    buildTag('registry.example.com:5000/clusterset', false),
    `registry.example.com:5000/clusterset:${pkg.version}`,
  );
});

test('GIVEN uninstall WHEN explained THEN the members run nothing of the image any more and the leader still does', () => {
  const m = minimalModel();
  m.uninstall = true;
  const p = checkedPlan(m);
  const r = explain(p);
  const byId = new Map(r.clusters.map((c) => [c.id, c.image]));
  assert.is(byId.get('east'), null);
  assert.is(byId.get('west'), null);
  assert.equal(byId.get('hub')?.runBy, ['Deployment antrea-multicluster/clusterset-reconciler']);
  assert.is(imageEntry(p, undefined), null, 'no bundle, nothing runs it');
});

test.run();
