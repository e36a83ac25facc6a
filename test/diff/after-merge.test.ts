/**
 * The PR comment's After merge block for a new member and for a change of delivery tool: what a
 * joining member needs before its first sync is what `explain` lists for it (the application
 * teams' Namespaces unless its bundle renders them, Antrea's own settings), from the same source;
 * switching between Argo CD and Flux, in either direction and from or to both, bootstraps the new
 * tool and waits for it before anything of the old one is deleted, and never deletes the old one's
 * objects with a cascade (Argo CD's resources finalizer removed first, Flux's prune turned off
 * first); the scaffold's own "For Flux instead" edit gets that block from the CLI.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSources } from '../helpers/cli';
import { compile } from '../../lib/compile';
import { diffTrees, formatMarkdown, impact } from '../../lib/diff';
import type { AfterMerge } from '../../lib/diff/after-merge';
import { explain } from '../../lib/explain';
import { MODEL_FILE, scaffold } from '../../lib/init';
import type { DeliveryProps } from '../../lib/model';
import { cluster, policiesModel, service, stretchedPolicy, type ModelDraft } from '../helpers/models';

type Tools = Pick<DeliveryProps, 'argocd' | 'flux'>;

const ARGOCD: Tools = { flux: { enabled: false } };
const FLUX: Tools = { argocd: { enabled: false }, flux: {} };
const BOTH: Tools = { argocd: {}, flux: {} };

function delivered(tools: Tools | undefined, extra: Partial<DeliveryProps> = {}): ModelDraft {
  const m = policiesModel();
  if (tools)
    m.delivery = {
      repoURL: 'https://git.example.com/gitops.git',
      managementCluster: 'hub',
      ...tools,
      ...extra,
    };
  return m;
}

/** The After merge steps of going from model `a` to model `b`, with `b`'s plan as the CLI has it. */
function stepsOf(a: ModelDraft, b: ModelDraft): string[] {
  const before = compile(a);
  const after = compile(b);
  assert.equal(before.diagnostics, [], 'the base model compiles');
  assert.equal(after.diagnostics, [], 'the edited model compiles');
  const d = diffTrees(before.files, after.files);
  return [...impact(before.files, after.files, d, after.plan).afterMerge.steps];
}

/** `north` joins, exporting `web/frontend`, delivered by Argo CD. */
function northJoins(edit: (m: ModelDraft) => void = () => {}): { a: ModelDraft; b: ModelDraft } {
  const a = delivered(ARGOCD);
  edit(a);
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  b.services!.push(service('web', 'frontend', ['north'], [{ name: 'https', port: 443 }]));
  return { a, b };
}

const index = (steps: readonly string[], re: RegExp): number => steps.findIndex((s) => re.test(s));

/** The whole After merge block of going from model `a` (undefined: no out/ yet) to model `b`. */
function blockOf(a: ModelDraft | undefined, b: ModelDraft): AfterMerge {
  const before = a ? compile(a).files : new Map<string, string>();
  const after = compile(b);
  assert.equal(after.diagnostics, [], 'the edited model compiles');
  return impact(before, after.files, diffTrees(before, after.files), after.plan).afterMerge;
}

/** The indexes of the first step matching each pattern, each found, in increasing order. */
function inOrder(steps: readonly string[], ...res: RegExp[]): void {
  const at = res.map((re) => index(steps, re));
  res.forEach((re, n) => assert.ok(at[n]! >= 0, `no step matches ${String(re)}:\n${steps.join('\n')}`));
  assert.equal(
    [...at].sort((x, y) => x - y),
    at,
    steps.join('\n'),
  );
}

for (const [tool, tools, register, wait] of [
  [
    'Argo CD',
    ARGOCD,
    /^register east and west with Argo CD, before the bootstrap/,
    /^wait until every Application is Synced and Healthy/,
  ],
  ['Flux', FLUX, /^give Flux the kubeconfig of east and west/, /^wait until every Kustomization is Ready/],
] as const)
  test(`GIVEN a first ClusterSet delivered by ${tool} (no out/ before) WHEN diffed THEN the checklist runs top to bottom: what each member needs before its first sync, the clusters given to the tool, the bootstrap, the tokens, and the wait last`, () => {
    const b = delivered(tools);
    b.services!.push(service('web', 'frontend', ['east'], [{ name: 'https', port: 443 }]));
    const { steps, sections } = blockOf(undefined, b);
    inOrder(
      steps,
      /^before east's first sync, create the exported Services' Namespaces? there/,
      /^before west's first sync, /,
      register,
      /^bootstrap /,
      /^copy east's token from the leader .*--wait 600`$/,
      /^copy west's token /,
    );
    assert.match(steps[steps.length - 1]!, wait);
    assert.is(steps.filter((x) => wait.test(x)).length, 1, steps.join('\n'));
    // Every step in exactly one section, in order.
    assert.is(
      sections.reduce((n, x) => n + x.steps, 0),
      steps.length,
    );
    assert.equal(sections[0], {
      title: "before east's first sync",
      cluster: 'east',
      steps: sections[0]!.steps,
    });
    assert.equal(sections.at(-1), { title: 'wait until everything is delivered', steps: 1 });
  });

test('GIVEN a first ClusterSet with the default image WHEN diffed THEN Before merge says the default exists only with a release, and to build, push and pin one', () => {
  const { beforeMerge } = blockOf(undefined, delivered(ARGOCD));
  assert.is(beforeMerge.length, 1, beforeMerge.join('\n'));
  assert.match(
    beforeMerge[0]!,
    /^the reconciler image is the package's default, ghcr\.io\/clusterset\/clusterset:[^ ]+, which exists only once clusterset publishes that release; east, hub and west pull it at their first sync after the merge .*`npx clusterset image build --tag <registry>\/clusterset:[^ ]+ --push`, then set reconciler\.image to the digest/,
  );
});

test('GIVEN reconciler.image changed to a tag WHEN diffed THEN Before merge builds and pushes it and says to pin its digest; a member joining with the same image asks nothing of the image', () => {
  const a = delivered(ARGOCD);
  const b = structuredClone(a);
  b.reconciler = { image: 'registry.example.com/platform/clusterset:0.2.0' };
  const { beforeMerge } = blockOf(a, b);
  assert.equal(beforeMerge, [
    "build and push the reconciler image registry.example.com/platform/clusterset:0.2.0 (east, hub and west pull it at their first sync after the merge (the leader's reconciler, each member's restart Job)): `npx clusterset image build --tag registry.example.com/platform/clusterset:0.2.0 --push`; it prints the image's digest: pin it in reconciler.image (`registry.example.com/platform/clusterset@sha256:…`) and synth again, so that a tag moved in the registry never changes what runs",
  ]);
  const pinned = structuredClone(a);
  pinned.reconciler = { image: `registry.example.com/platform/clusterset@sha256:${'a'.repeat(64)}` };
  assert.match(
    blockOf(a, pinned).beforeMerge[0]!,
    /^make sure the reconciler image registry\.example\.com\/platform\/clusterset@sha256:a+ is in its registry /,
  );
  const joins = structuredClone(b);
  joins.clusters.push(cluster('north', 3));
  joins.members.push('north');
  assert.equal(blockOf(b, joins).beforeMerge, []);
  assert.equal(blockOf(b, b).beforeMerge, []);
});

test('GIVEN reconciler.imagePullSecrets added WHEN diffed THEN Before merge creates each Secret where the image runs, per cluster; a member joining gets its own, the others nothing', () => {
  const a = delivered(ARGOCD);
  a.reconciler = { image: 'registry.example.com/platform/clusterset:0.2.0' };
  const b = structuredClone(a);
  b.reconciler = { ...b.reconciler, imagePullSecrets: ['regcred'] };
  const { beforeMerge } = blockOf(a, b);
  assert.equal(
    beforeMerge.map((x) => x.split(' (')[0]),
    [
      'create the image pull Secret kube-system/regcred in east',
      'create the image pull Secret antrea-multicluster/regcred in hub',
      'create the image pull Secret kube-system/regcred in west',
    ],
  );
  assert.match(
    beforeMerge[1]!,
    /`kubectl --context <hub> -n antrea-multicluster create secret docker-registry regcred --docker-server=registry\.example\.com --docker-username=<user> --docker-password=<token>`$/,
  );
  const joins = structuredClone(b);
  joins.clusters.push(cluster('north', 3));
  joins.members.push('north');
  assert.equal(
    blockOf(b, joins).beforeMerge.map((x) => x.split(' (')[0]),
    ['create the image pull Secret kube-system/regcred in north'],
  );
});

test('GIVEN a first ClusterSet of many members WHEN rendered as markdown THEN every step is there, numbered, folded by section in order, and nothing says "more steps"', () => {
  const b = delivered(ARGOCD);
  for (let i = 3; i < 9; i++) {
    b.clusters.push(cluster(`m${i}`, i));
    b.members.push(`m${i}`);
  }
  const before = new Map<string, string>();
  const after = compile(b);
  const d = diffTrees(before, after.files);
  const i = impact(before, after.files, d, after.plan);
  const md = formatMarkdown(d, i, { before: 'main', after: 'HEAD' });
  const steps = i.afterMerge.steps;
  assert.ok(steps.length > 12, `${steps.length} steps`);
  assert.not.match(md, /more steps/);
  const numbered = md.split('\n').filter((l) => /^\d+\. \[ \] /.test(l));
  assert.equal(
    numbered.map((l) => Number(/^(\d+)\./.exec(l)![1])),
    steps.map((_, n) => n + 1),
  );
  assert.is((md.match(/<summary>steps? \d+/g) ?? []).length, i.afterMerge.sections.length);
  assert.match(md, /#### Before merge\n\n- \[ \] the reconciler image is the package's default/);
  assert.match(md, new RegExp(`#### After merge: ${steps.length} steps, in order`));
});

test('GIVEN a member joining that exports from a Namespace of its own WHEN diffed THEN its steps create the Namespaces explain lists, before it is registered', () => {
  const { a, b } = northJoins();
  const steps = stepsOf(a, b);
  const ns = index(steps, /^before north's first sync, create the exported Services' Namespaces there/);
  assert.ok(ns >= 0, steps.join('\n'));
  assert.match(
    steps[ns]!,
    /: web \(its ServiceExports live there: its bundle applies only once it exists\); shop \(imports only: Antrea imports into it once it exists\): `kubectl --context <north> create namespace web` and `kubectl --context <north> create namespace shop`$/,
  );
  // The same list as explain's, from the same source.
  const report = explain(compile(b).plan!, { cluster: 'north' }).clusters[0]!.serviceNamespaces!;
  assert.equal(report, { renderedBy: 'application-teams', forExports: ['web'], forImports: ['shop'] });
  // Before its first sync: before Argo CD can reach it, and before its token.
  assert.ok(ns < index(steps, /^register north with Argo CD/), steps.join('\n'));
  assert.ok(ns < index(steps, /^copy north's token/), steps.join('\n'));
});

test('GIVEN takeOver.serviceNamespaces WHEN a member joins THEN no step creates a Namespace: its bundle renders them', () => {
  const { a, b } = northJoins((m) => {
    m.takeOver = { serviceNamespaces: true };
  });
  const steps = stepsOf(a, b);
  assert.is(index(steps, /create namespace/), -1, steps.join('\n'));
  // The Namespaces its bundle now applies are named where another owner must let them go.
  // north's before its first sync (before its registration), the members that stay after.
  const north = index(
    steps,
    /^take Namespaces shop and web out of any other Application or Kustomization that applies them in north /,
  );
  const staying = index(
    steps,
    /^take Namespace web out of any other Application or Kustomization that applies it in east and west /,
  );
  assert.ok(north >= 0 && staying >= 0, steps.join('\n'));
  assert.ok(north < index(steps, /^register north /), steps.join('\n'));
});

test("GIVEN a member joining with stretched ingress policies WHEN diffed THEN one step enables Antrea's agent and controller settings explain lists, and restarts both", () => {
  const { a, b } = northJoins();
  b.clusters = b.clusters.map((c) => (c.id === 'north' ? { ...c, enableStretchedNetworkPolicy: true } : c));
  b.stretchedPolicies = [stretchedPolicy(['east', 'north'])];
  const steps = stepsOf(a, b);
  const antrea = steps.filter((s) => s.startsWith("before north's first sync, enable in Antrea's install"));
  assert.is(antrea.length, 1, steps.join('\n'));
  const settings = explain(compile(b).plan!, { cluster: 'north' })
    .clusters[0]!.antrea.filter((s) => s.file !== 'controller_manager_config.yaml')
    .map((s) => `\`${s.setting}: ${s.value}\``);
  assert.ok(settings.length >= 4, settings.join());
  for (const s of settings) assert.ok(antrea[0]!.includes(s), `${s} in ${antrea[0]!}`);
  assert.match(antrea[0]!, 'in antrea-agent.conf (ConfigMap kube-system/antrea-config)');
  assert.match(antrea[0]!, 'in antrea-controller.conf (ConfigMap kube-system/antrea-config)');
  // The member controller's own file is the config step's, never this one's.
  assert.not.match(antrea[0]!, /`enableStretchedNetworkPolicy: true`/);
  assert.match(
    antrea[0]!,
    /`kubectl --context <north> -n kube-system rollout restart daemonset antrea-agent` and `kubectl --context <north> -n kube-system rollout restart deployment antrea-controller`$/,
  );
});

test('GIVEN no plan (out/ against out/) WHEN a member joins THEN no step claims what only the model knows', () => {
  const { a, b } = northJoins();
  const before = compile(a).files;
  const after = compile(b).files;
  const steps = impact(before, after).afterMerge.steps;
  assert.is(index(steps, /^before north's first sync/), -1, steps.join('\n'));
  assert.ok(index(steps, /^register north with Argo CD/) >= 0, steps.join('\n'));
});

/** Every step's commands, in order. */
const commands = (steps: readonly string[]): string[] =>
  steps.flatMap((s) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));

/** The index of the first command matching `re`, failing when none does. */
function position(cmds: readonly string[], re: RegExp): number {
  const i = cmds.findIndex((c) => re.test(c));
  assert.ok(i >= 0, `no command matches ${String(re)}:\n${cmds.join('\n')}`);
  return i;
}

test('GIVEN Argo CD delivering WHEN the model switches to Flux THEN Flux is given kubeconfigs, bootstrapped and Ready before any Application goes, each without cascade', () => {
  const cmds = commands(stepsOf(delivered(ARGOCD), delivered(FLUX)));
  const apply = position(cmds, /^kubectl apply -k out\/flux$/);
  const secret = position(cmds, /^kubectl -n flux-system create secret generic east-kubeconfig /);
  const wait = position(cmds, /^kubectl -n flux-system wait .*--for=condition=Ready/);
  const root = position(cmds, /^kubectl -n argocd delete application test-set$/);
  const unfinalize = position(
    cmds,
    /^kubectl -n argocd patch application test-set-east test-set-hub test-set-west --type merge -p '\{"metadata":\{"finalizers":null\}\}'$/,
  );
  const del = position(
    cmds,
    /^kubectl -n argocd delete application test-set-east test-set-hub test-set-west$/,
  );
  const project = position(cmds, /^kubectl -n argocd delete appproject test-set$/);
  // The kubeconfig Secrets first: no Kustomization starts without one and waits out its retry.
  const order = [secret, apply, wait, root, unfinalize, del, project];
  assert.equal(
    [...order].sort((x, y) => x - y),
    order,
    cmds.join('\n'),
  );
  // Nothing is deleted with a cascade, nor by a flag that does not stop Argo CD's finalizer.
  assert.ok(
    cmds.every((c) => !/--cascade/.test(c) || !c.startsWith('kubectl -n argocd delete')),
    cmds.join('\n'),
  );
  // The Flux wait names every Kustomization, the Tiers' ones too.
  assert.match(cmds[wait]!, 'kustomization/test-set-east.tiers');
});

test('GIVEN Flux delivering WHEN the model switches to Argo CD THEN Argo CD is given the clusters, bootstrapped and healthy before Flux goes, its prune turned off first', () => {
  const steps = stepsOf(delivered(FLUX), delivered(ARGOCD));
  const cmds = commands(steps);
  const apply = position(cmds, /^kubectl apply -k out\/argocd$/);
  const health = position(cmds, /^kubectl -n argocd patch configmap argocd-cm --type merge --patch-file /);
  const register = position(cmds, /^argocd cluster add <east> --name east$/);
  const healthy = position(cmds, /--for=jsonpath='\{\.status\.health\.status\}'=Healthy/);
  const root = position(cmds, /^kubectl -n flux-system delete kustomization test-set$/);
  const prune = position(
    cmds,
    /^kubectl -n flux-system patch kustomization .* --type merge -p '\{"spec":\{"prune":false,"deletionPolicy":"Orphan"\}\}'$/,
  );
  const del = position(cmds, /^kubectl -n flux-system delete kustomization test-set-east /);
  const repo = position(cmds, /^kubectl -n flux-system delete gitrepository test-set$/);
  // The root (deletionPolicy Orphan) goes first: nothing can apply the others again once patched.
  // The registrations first: no Application starts with an unknown destination.
  const order = [register, apply, health, healthy, root, prune, del, repo];
  assert.equal(
    [...order].sort((x, y) => x - y),
    order,
    cmds.join('\n'),
  );
  // Every Kustomization that would collect what it applied is patched before it is deleted.
  for (const k of [
    'test-set-east',
    'test-set-east.tiers',
    'test-set-hub',
    'test-set-west',
    'test-set-west.tiers',
  ])
    assert.ok(cmds[prune]!.split(' ').includes(k) && cmds[del]!.split(' ').includes(k), k);
  assert.not.ok(cmds[prune]!.split(' ').includes('test-set'), 'the root keeps its Orphan policy');
  // No separate AppProject or health step: the bootstrap is both.
  assert.is(index(steps, /^re-apply the AppProject/), -1, steps.join('\n'));
  assert.is(index(steps, /^merge the health checks/), -1, steps.join('\n'));
});

test('GIVEN a root Kustomization without deletionPolicy Orphan (an earlier release) WHEN Flux retires THEN its prune is turned off before it is deleted', () => {
  const before = new Map(compile(delivered(FLUX)).files);
  const file = 'flux/Kustomization.test-set.yaml';
  const text = before.get(file)!;
  assert.match(text, /\n {2}deletionPolicy: Orphan\n/);
  before.set(file, text.replace(/\n {2}deletionPolicy: Orphan\n/, '\n'));
  const after = compile(delivered(ARGOCD));
  const cmds = commands(impact(before, after.files, undefined, after.plan).afterMerge.steps);
  const patch = position(cmds, /^kubectl -n flux-system patch kustomization test-set --type merge -p /);
  const del = position(cmds, /^kubectl -n flux-system delete kustomization test-set$/);
  assert.ok(patch < del, cmds.join('\n'));
});

test('GIVEN prune off WHEN switching either way THEN nothing is patched: the old tool deletes nothing', () => {
  const argoOff = commands(
    stepsOf(delivered({ argocd: { prune: false }, flux: { enabled: false } }), delivered(FLUX)),
  );
  assert.ok(
    argoOff.some(
      (c) => c === 'kubectl -n argocd delete application test-set-east test-set-hub test-set-west',
    ),
  );
  assert.not.ok(
    argoOff.some((c) => /patch application/.test(c)),
    argoOff.join('\n'),
  );
  const fluxOff = commands(
    stepsOf(delivered({ argocd: { enabled: false }, flux: { prune: false } }), delivered(ARGOCD)),
  );
  assert.ok(fluxOff.some((c) => /^kubectl -n flux-system delete kustomization test-set-east /.test(c)));
  assert.not.ok(
    fluxOff.some((c) => /patch kustomization/.test(c)),
    fluxOff.join('\n'),
  );
});

test('GIVEN both tools rendered WHEN Argo CD is turned off THEN Flux is bootstrapped unless it delivers already, then Argo CD retires', () => {
  const steps = stepsOf(delivered(BOTH), delivered(FLUX));
  assert.match(steps[0]!, /^give Flux the kubeconfig of east and west, in the management cluster /);
  assert.match(
    steps[1]!,
    /^unless Flux delivers the bundles already, bootstrap Flux in the management cluster \(hub\): `kubectl apply -k out\/flux`/,
  );
  assert.ok(
    index(steps, /^then delete the Applications of east, hub and west without cascade/) > 0,
    steps.join('\n'),
  );
});

test('GIVEN Flux delivering WHEN Argo CD is turned on beside it THEN one step says to bootstrap one tool only, and nothing applies out/argocd', () => {
  const steps = stepsOf(delivered(FLUX), delivered(BOTH));
  assert.equal(steps, [
    "out/argocd is new beside out/flux: bootstrap one delivery tool only (two would apply the same objects); to switch to Argo CD, turn Flux off in the model (`delivery.flux: { enabled: false }`): that change's After merge block lists the switch, in order",
  ]);
});

test('GIVEN no delivery WHEN Argo CD is turned on THEN its registrations, bootstrap and wait, once', () => {
  const steps = stepsOf(delivered(undefined), delivered(ARGOCD));
  assert.match(steps[0]!, /^register east and west with Argo CD, before the bootstrap, /);
  assert.match(
    steps[1]!,
    /^bootstrap Argo CD in the management cluster \(hub\): `kubectl apply -k out\/argocd`/,
  );
  assert.not.match(steps[1]!, /until .* objects are deleted below/);
  assert.match(steps[steps.length - 1]!, /^wait until every Application is Synced and Healthy: /);
  assert.is(steps.filter((s) => s.includes('kubectl apply -k out/argocd')).length, 1, steps.join('\n'));
});

test('GIVEN Argo CD delivering WHEN delivery leaves the model THEN Argo CD retires without cascade and the step says nothing delivers any more', () => {
  const steps = stepsOf(delivered(ARGOCD), delivered(undefined));
  assert.match(
    steps[0]!,
    /^stop Argo CD without deleting what it applied \(nothing delivers clusters\/ once it is gone: apply the bundles by hand\)/,
  );
  assert.ok(
    commands(steps).includes(
      `kubectl -n argocd patch application test-set-east test-set-hub test-set-west --type merge -p '{"metadata":{"finalizers":null}}'`,
    ),
  );
});

test('GIVEN an ssh origin WHEN switching to Flux THEN what explain says Flux needs comes first', () => {
  const ssh = { repoURL: 'ssh://git@git.example.com/team/gitops.git' };
  const steps = stepsOf(
    delivered(ARGOCD, ssh),
    delivered({ argocd: { enabled: false }, flux: { gitSecretName: 'gitops-ssh' } }, ssh),
  );
  assert.match(
    steps[0]!,
    /^Flux \(namespace flux-system\) clones ssh:\/\/git@git\.example\.com\/team\/gitops\.git over ssh: Secret flux-system\/gitops-ssh \(gitSecretName\) must exist: `flux create secret git <name> --namespace flux-system --url ssh:\/\/git@git\.example\.com\/team\/gitops\.git --private-key-file <key file>`; keys: identity, known_hosts$/,
  );
  assert.match(steps[1]!, /^give Flux the kubeconfig of /);
  assert.match(steps[2]!, /^bootstrap Flux /);
});

test('GIVEN a member joining in the switch WHEN diffed THEN the bootstrap registers it with the others, once, and its token comes before the wait, the wait before Flux retires', () => {
  const a = delivered(FLUX);
  const b = delivered(ARGOCD);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  const steps = stepsOf(a, b);
  assert.ok(
    steps.includes(
      'register east, north and west with Argo CD, before the bootstrap, so that no Application starts with an unknown destination: `argocd cluster add <east> --name east`, `argocd cluster add <north> --name north` and `argocd cluster add <west> --name west`',
    ),
    steps.join('\n'),
  );
  assert.is(index(steps, /^register north with Argo CD/), -1, steps.join('\n'));
  const order = [
    index(steps, /^before north's first sync, /),
    index(steps, /^register east, north and west /),
    index(steps, /^copy north's token/),
    index(steps, /^wait until every Application is Synced and Healthy/),
    index(steps, /^then stop Flux without deleting what it applied/),
  ];
  assert.ok(
    order.every((i) => i >= 0) && order.every((i, n) => n === 0 || i > order[n - 1]!),
    steps.join('\n'),
  );
});

test('GIVEN a member leaving in the same change as a switch WHEN diffed THEN the block says to split it, and lists no step of either', () => {
  const a = delivered(ARGOCD);
  const b = delivered(FLUX);
  b.members = ['east'];
  b.services![0]!.exportedFrom = ['east'];
  const steps = stepsOf(a, b);
  assert.match(steps[0]!, /^split this change: it removes west while it stops delivering with Argo CD/);
  assert.is(index(steps, /^west leaves:/), -1, steps.join('\n'));
  assert.is(index(steps, /bootstrap|delete application/), -1, steps.join('\n'));
});

// ---- a member's identity renamed (memberIdentity): a rotation ----

/** `east`'s identity renamed by `edit`, delivered by Argo CD (prune as given) or by nothing. */
function rotated(
  identity: NonNullable<ModelDraft['clusters'][number]['memberIdentity']>,
  o: { tools?: Tools; prune?: boolean; edit?: (m: ModelDraft) => void } = {},
): { steps: string[]; items: string[] } {
  const a = delivered(o.tools, o.prune === false ? { argocd: { prune: false } } : {});
  o.edit?.(a);
  const b = structuredClone(a);
  b.clusters[1]!.memberIdentity = identity;
  const before = compile(a);
  const after = compile(b);
  assert.equal(after.diagnostics, []);
  const i = impact(before.files, after.files, diffTrees(before.files, after.files), after.plan);
  return { steps: [...i.afterMerge.steps], items: i.items.map((x) => x.text) };
}

const COPY = '`npx clusterset token east --leader-context <hub> --member-context <east>`';
const RESTART = '`kubectl --context <east> -n kube-system rollout restart deployment antrea-mc-controller`';

test("GIVEN east's identity renamed in the leader and in east, prune on WHEN diffed THEN the rotation: the old identity goes with the leader's sync, the new token is copied into the new Secret, east reconnects through its ClusterSet, and its old Secret is deleted by hand last", () => {
  const { steps, items } = rotated(
    { serviceAccount: 'east-2', memberTokenSecret: 'east-token-2' },
    { tools: ARGOCD },
  );
  assert.ok(
    items.includes(
      "member east's identity is renamed: ServiceAccount member-east → east-2, RoleBinding member-east → east-2, token Secret member-east → east-2, its token Secret in east antrea-mc-leader-token → east-token-2 (a rotation: see After merge)",
    ),
    items.join('\n'),
  );
  // No leader object of the rotation is listed on its own.
  assert.not.ok(
    items.some((t) => /^ServiceAccount |^RoleBinding |^Secret /.test(t)),
    items.join('\n'),
  );
  assert.is(steps.length, 4, steps.join('\n'));
  assert.match(steps[0]!, /^east's identity is renamed \(ServiceAccount member-east → east-2, /);
  assert.match(
    steps[0]!,
    "When hub's bundle syncs (delivered by Argo CD), the new identity is created and the old one deleted (prune)",
  );
  assert.match(
    steps[0]!,
    'it is Disconnected from hub (its exports fail and are not updated, what it imported stays, nothing is deleted)',
  );
  assert.is(
    steps[1],
    `once hub has synced (its Secret antrea-multicluster/east-2 is then filled), copy east's new token into kube-system/east-token-2: ${COPY}`,
  );
  assert.match(
    steps[2]!,
    /^once east's bundle has synced, its ClusterSet names east-token-2, and Antrea's member controller rebuilds its connection to hub/,
  );
  assert.match(steps[2]!, 'in no set order');
  assert.match(steps[3]!, '`kubectl --context <east> -n kube-system delete secret antrea-mc-leader-token`');
  assert.not.ok(
    steps.some((x) => x.includes('delete serviceaccount')),
    'prune deletes the old identity',
  );
});

test("GIVEN east's identity renamed with prune off WHEN diffed THEN the old identity stays, unguarded by member-writes, and is deleted by hand once east is Ready again", () => {
  const { steps } = rotated(
    { serviceAccount: 'east-2', memberTokenSecret: 'east-token-2' },
    { tools: ARGOCD, prune: false },
  );
  assert.match(
    steps[0]!,
    'the new identity is created and the old one stays, so east keeps working with its old token',
  );
  assert.match(steps[0]!, 'the member-writes admission policy no longer knows the old ServiceAccount');
  const last = steps.find((x) => x.includes('delete its old identity in hub'));
  assert.ok(last, steps.join('\n'));
  for (const kind of ['serviceaccount', 'rolebinding', 'secret'])
    assert.match(last!, `\`kubectl --context <hub> -n antrea-multicluster delete ${kind} member-east\``);
  assert.ok(steps.indexOf(last!) > steps.findIndex((x) => x.includes(COPY)), 'after the copy');
});

test("GIVEN only east's ServiceAccount renamed WHEN diffed THEN east's ClusterSet does not change, so its controller is restarted once the new token is copied", () => {
  const { steps } = rotated({ serviceAccount: 'east-2' }, { tools: ARGOCD });
  assert.ok(
    steps.some((x) => x.endsWith(`copy east's new token into kube-system/antrea-mc-leader-token: ${COPY}`)),
    steps.join('\n'),
  );
  const restart = steps.find((x) => x.includes(RESTART));
  assert.ok(restart, steps.join('\n'));
  assert.match(restart!, /^east's ClusterSet does not change/);
  assert.not.ok(
    steps.some((x) => x.includes('delete secret')),
    'the member Secret keeps its name',
  );
});

test("GIVEN only east's token Secret in east renamed WHEN diffed THEN the leader is untouched, the token can be copied before east's bundle syncs, and the old Secret goes last", () => {
  const { steps } = rotated({ memberTokenSecret: 'east-token-2' }, { tools: ARGOCD });
  assert.match(steps[0]!, "hub's side does not change");
  assert.not.match(steps[0]!, 'Disconnected');
  assert.match(
    steps[1]!,
    /^copy east's token into its new Secret kube-system\/east-token-2 before east's bundle syncs if you can/,
  );
  assert.match(steps.at(-1)!, 'delete secret antrea-mc-leader-token`');
});

test("GIVEN External Secrets WHEN east's identity is renamed THEN its ExternalSecret copies the token, and no step runs clusterset token or deletes a Secret", () => {
  const { steps } = rotated(
    { serviceAccount: 'east-2', memberTokenSecret: 'east-token-2' },
    {
      tools: ARGOCD,
      edit: (m) =>
        void (m.secrets = {
          externalSecrets: {
            leaderCA: { pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
            auth: { serviceAccount: { name: 'antrea-mc-token-reader' } },
            leaderUsername: 'oidc:{cluster}:reader',
          },
        }),
    },
  );
  assert.ok(
    steps.some((x) =>
      x.startsWith(
        "east's token comes by External Secrets: once both bundles have synced, its ExternalSecret copies east-2 from hub into kube-system/east-token-2",
      ),
    ),
    steps.join('\n'),
  );
  assert.not.ok(steps.some((x) => x.includes('clusterset token east')));
  assert.not.ok(steps.some((x) => x.includes('delete secret')));
});

test("GIVEN no delivery WHEN east's identity is renamed THEN the leader bundle is applied by hand, which deletes nothing: the old identity is deleted by hand", () => {
  const { steps } = rotated({ serviceAccount: 'east-2' });
  assert.match(steps[0]!, "When hub's bundle is applied (applied by hand)");
  assert.ok(
    steps.some((x) =>
      x.includes('`kubectl --context <hub> -n antrea-multicluster delete serviceaccount member-east`'),
    ),
  );
});

test('GIVEN custom identity names that stay WHEN something else changes THEN no rotation step; WHEN such a member leaves THEN its identity is still found by its cluster ID', () => {
  const a = delivered(ARGOCD);
  a.clusters[2]!.memberIdentity = { serviceAccount: 'west-token', memberTokenSecret: 'west-leader' };
  const b = structuredClone(a);
  b.services![0]!.ports = [{ name: 'http', port: 8081, protocol: 'TCP' }];
  assert.not.ok(stepsOf(a, b).some((x) => x.includes('identity is renamed')));
  const c = structuredClone(a);
  c.members = ['east'];
  c.services![0]!.exportedFrom = ['east'];
  c.clusters.splice(2, 1);
  const before = compile(a);
  const after = compile(c);
  assert.equal(after.diagnostics, []);
  const i = impact(before.files, after.files, diffTrees(before.files, after.files), after.plan);
  assert.ok(
    i.items.some((x) =>
      x.text.startsWith(
        'member west leaves: removed ServiceAccount, RoleBinding and token Secret west-token in hub',
      ),
    ),
    i.items.map((x) => x.text).join('\n'),
  );
  assert.ok(
    i.afterMerge.steps.some((x) =>
      x.startsWith(
        "west leaves: only once its Application is gone, restart Antrea's member controller there",
      ),
    ),
    i.afterMerge.steps.join('\n'),
  );
  assert.ok(
    i.afterMerge.steps.some((x) => x.includes('delete secret west-leader')),
    'its own token Secret',
  );
});

test("GIVEN the scaffold's starter model WHEN switched to Flux as its comment says THEN `clusterset diff` prints the switch in its After merge block", () => {
  const root = path.resolve(__dirname, '..', '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-switch-'));
  fs.symlinkSync(path.join(root, 'lib'), path.join(dir, 'lib'));
  const model = scaffold({
    packageName: 'fleet',
    clusterSetId: 'fleet',
    repoURL: 'https://git.example.com/team/fleet.git',
    branch: 'main',
    clustersetSpec: 'file:..',
  })
    .get(MODEL_FILE)!
    .replace("from 'clusterset'", "from './lib/model'");
  assert.match(model, /For Flux instead: argocd: \{ enabled: false \}, flux: \{\}/);
  fs.writeFileSync(path.join(dir, MODEL_FILE), model);
  fs.writeFileSync(
    path.join(dir, 'switched.ts'),
    model.replace('flux: { enabled: false },', 'argocd: { enabled: false },\n    flux: {},'),
  );
  const run = (...args: string[]) => runSources(args, { cwd: dir });
  const synth = run('synth', MODEL_FILE);
  assert.is(synth.status, 0, synth.stderr);
  const diff = run('diff', 'switched.ts', '--format', 'markdown');
  assert.is(diff.status, 0, diff.stderr);
  // Every step, numbered, folded or not.
  const lines = diff.stdout.split('\n').filter((l) => /^\d+\. \[ \] /.test(l));
  const block = lines.join('\n');
  const secret = lines.findIndex((l) => /create secret generic [a-z-]+-kubeconfig/.test(l));
  const boot = lines.findIndex((l) =>
    /^\d+\. \[ \] bootstrap Flux in the management cluster \(hub\): `kubectl apply -k out\/flux`/.test(l),
  );
  assert.ok(secret >= 0 && boot > secret, block);
  assert.match(lines[0]!, /^1\. \[ \] /);
  assert.match(
    lines.at(-2)!,
    /^\d+\. \[ \] then delete the Applications of .* without cascade: .*'\{"metadata":\{"finalizers":null\}\}'/,
  );
  assert.match(
    lines.at(-1)!,
    /^\d+\. \[ \] then, once they are gone .*`kubectl -n argocd delete appproject fleet`/,
  );
});

test.run();
