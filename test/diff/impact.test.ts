/**
 * The impact summary and the output forms on whole compiled ClusterSets: reordering the model
 * changes nothing, the summary says what an edit means, and the markdown comment stays under
 * GitHub's limit with a fleet-wide change while keeping the whole summary.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { synthetic } from '../../bench/synth/model';
import { compile } from '../../lib/compile';
import {
  GITHUB_COMMENT_LIMIT,
  diffTrees,
  formatJson,
  formatMarkdown,
  formatSummaryText,
  formatText,
  impact,
} from '../../lib/diff';
import { restartJob, restartReasons } from '../../lib/diff/after-merge';
import { phrase } from '../../lib/diff/impact/summary';
import type { BundleDiff } from '../../lib/diff/tree';
import type { ClusterSetProps } from '../../lib/model';
import { dumpYaml, loadYaml } from '../../lib/yaml';
import { cluster, policiesModel, type ModelDraft } from '../helpers/models';

const LABELS = { before: 'out/', after: 'clusterset.ts' };

function files(model: unknown): ReadonlyMap<string, string> {
  const r = compile(model);
  assert.equal(r.diagnostics, []);
  return r.files;
}

test('GIVEN the same model listed in another order WHEN diffed THEN it reports no changes', () => {
  const a = policiesModel();
  const b = policiesModel();
  b.clusters.reverse();
  b.members.reverse();
  b.tiers!.reverse();
  b.services![0]!.exportedFrom.reverse();
  const d = diffTrees(files(a), files(b));
  const i = impact(files(a), files(b), d);
  assert.equal(d.bundles, []);
  assert.is(formatText(d, i, LABELS), 'No changes: clusterset.ts renders exactly out/.\n');
  assert.match(formatMarkdown(d, i, LABELS), /^### clusterset diff: no changes\n/);
  assert.is(JSON.parse(formatJson(d, i, LABELS)).changed, false);
  assert.is(formatSummaryText(d, i), '');
});

test('GIVEN a member that leaves THEN the summary names it, its identity and its bundle', () => {
  const a = policiesModel();
  const b = policiesModel();
  b.members = ['east'];
  b.services![0]!.exportedFrom = ['east'];
  const before = files(a);
  const after = files(b);
  const i = impact(before, after);
  const text = i.items.map((x) => x.text);
  assert.ok(
    text.some((t) =>
      /^member west leaves: removed ServiceAccount, RoleBinding and token Secret member-west in hub; removed bundle clusters\/west/.test(
        t,
      ),
    ),
    text.join('\n'),
  );
  assert.ok(text.includes('Service shop/cart is no longer exported from west'), text.join('\n'));
  assert.equal(i.membersBefore, ['east', 'west']);
  assert.equal(i.membersAfter, ['east']);
  const graph = formatMarkdown(diffTrees(before, after), i, LABELS);
  assert.match(graph, 'c_east -.->|"- shop/cart"| c_west');
  assert.match(graph, 'c_west["west (not a member)"]');
});

test('GIVEN a baseline policy rule changes THEN the summary says what changed in every member', () => {
  const a = policiesModel();
  const b = policiesModel();
  const p = b.baselinePolicies![0]!;
  p.priority = 11;
  p.ingress![1]!.action = 'Reject';
  p.ingress!.push({
    name: 'allow-web',
    action: 'Allow',
    from: [{ podSelector: { matchLabels: { app: 'web' } } }],
  });
  const i = impact(files(a), files(b));
  assert.equal(
    i.items.map((x) => x.text),
    [
      'baseline policy guard-rails changes in both members (east, west): priority 10 → 11; rule drop-rest: Drop → Reject; now admits pods app=web (rule allow-web)',
    ],
  );
});

test('GIVEN a stretched policy that loses a ClusterSet peer THEN the summary says whom it no longer admits', () => {
  const a = policiesModel();
  const b = policiesModel();
  b.stretchedPolicies![0]!.ingress![0]!.from = [{ podSelector: { matchLabels: { app: 'web' } } }];
  const i = impact(files(a), files(b));
  assert.equal(
    i.items.map((x) => x.text),
    [
      'stretched policy cart-stretched in east: no longer admits pods app=web from every cluster (rule from-web)',
      'stretched policy cart-stretched in east: now admits pods app=web (rule from-web)',
    ],
  );
});

test('GIVEN a config change WHEN diffed THEN the reconciler config line says its Pods restart and the checksum is not a line of its own', () => {
  const a = policiesModel();
  const b = policiesModel();
  b.services![0]!.ports[0]!.port = 9090;
  const i = impact(files(a), files(b));
  const texts = i.items.map((x) => x.text);
  assert.ok(
    texts.includes('reconciler config changes in hub (services); its Pods restart'),
    texts.join('\n'),
  );
  assert.not.ok(
    texts.some((t) => t.includes('Deployment')),
    texts.join('\n'),
  );
});

test('GIVEN a new reconciler image and retirement age WHEN diffed THEN both are named in the leader', () => {
  const a = policiesModel();
  const b = policiesModel();
  b.reconciler = { image: 'registry.example.com/clusterset:9.9.9', retireMembersAfter: '1h' };
  const texts = impact(files(a), files(b)).items.map((x) => x.text);
  assert.ok(texts.includes('reconciler config changes in hub (retireMembersAfterSeconds); its Pods restart'));
  assert.ok(
    texts.some(
      (t) =>
        t.startsWith('reconciler Deployment antrea-multicluster/clusterset-reconciler changes in hub: ') &&
        t.includes('registry.example.com/clusterset:9.9.9'),
    ),
    texts.join('\n'),
  );
});

test('GIVEN a fleet-wide change WHEN rendered as markdown THEN it stays under the limit, keeps the summary and says what was cut', () => {
  const big = synthetic(30, 600);
  const changed = JSON.parse(JSON.stringify(big)) as { services: { ports: { port: number }[] }[] };
  for (const s of changed.services) s.ports[0]!.port += 1;
  const before = files(big);
  const after = files(changed);
  const d = diffTrees(before, after);
  const i = impact(before, after, d);
  const md = formatMarkdown(d, i, LABELS);
  assert.ok(md.length <= GITHUB_COMMENT_LIMIT, `${md.length} characters`);
  assert.match(md, /^### clusterset diff: 1 of 30 clusters touched/);
  assert.match(md, /- … and 588 more Service changes \(--format json lists them all\)/);
  assert.match(md, /#### Impact[\s\S]*#### Per bundle[\s\S]*#### Details/);
  assert.match(
    md,
    /_Details cut to stay under GitHub's 65,536-character comment limit: part of clusters\/leader \(\d+ of 602 entries\) not shown/,
  );

  const all = formatMarkdown(diffTrees(new Map(), after), impact(new Map(), after), LABELS);
  assert.ok(all.length <= GITHUB_COMMENT_LIMIT, `${all.length} characters`);
  assert.match(all, /^### clusterset diff: 30 of 30 clusters touched/);
  assert.match(all, /Details cut .*\d+ bundles \(/);
  assert.match(
    all,
    /_Picture left out: 39,200 flows \(a Service from one member to another\) on 812 arrows change, too many to draw \(the ClusterSet has 39,200 flows in all\); the summary above lists the changes\._/,
  );
  assert.match(
    md,
    /_Picture left out: the ClusterSet has 39,200 flows \(a Service from one member to another\) on 812 arrows, too many to draw, and none of them changes\._/,
  );
});

test('GIVEN delivery objects and token references THEN the summary names them and their bundles', () => {
  const before = files(policiesModel());
  const after = new Map(before);
  after.set(
    'argocd/apps/Application.east.yaml',
    dumpYaml({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'east', namespace: 'argocd' },
    }),
  );
  for (const c of ['east', 'west'])
    after.set(
      `clusters/${c}/kube-system/ExternalSecret.antrea-mc-leader-token.yaml`,
      dumpYaml({
        apiVersion: 'external-secrets.io/v1',
        kind: 'ExternalSecret',
        metadata: { name: 'antrea-mc-leader-token', namespace: 'kube-system' },
      }),
    );
  const i = impact(before, after);
  assert.equal(
    i.items.map((x) => x.text),
    [
      'token reference ExternalSecret kube-system/antrea-mc-leader-token added in both members',
      'argocd/: 1 added (Application argocd/east)',
    ],
  );
  assert.equal(i.touched, ['east', 'west']);
  assert.equal(i.delivery, ['argocd']);
  assert.match(formatText(diffTrees(before, after), i, LABELS), /; delivery: argocd\/\n/);
});

test('GIVEN names with Mermaid syntax in them THEN labels are escaped and IDs stay plain', () => {
  const m = policiesModel() as ClusterSetProps;
  const i = impact(new Map(), files(m));
  const odd = {
    ...i,
    membersAfter: ['x y', 'z'],
    exports: [{ service: 'a"b<c>#d', exporters: [{ cluster: 'x y', change: 'added' as const }] }],
  };
  const md = formatMarkdown(diffTrees(new Map(), files(m)), odd, LABELS);
  assert.match(md, 'c_x_20_y ==>|"+ a#34;b#60;c#62;#35;d"| c_z');
  assert.match(md, 'c_x_20_y["x y"]');
});

test('GIVEN a third member joined WHEN a change touches the first two THEN they are named, never "both members"', () => {
  const after = ['central', 'east', 'west'];
  const before = ['east', 'west'];
  assert.is(phrase(new Set(['east', 'west']), [after, before]), 'east and west');
  assert.is(phrase(new Set(after), [after, before]), 'all 3 members');
  assert.is(phrase(new Set(before), [before, before]), 'both members');
});

test('GIVEN delivery by Argo CD and Flux WHEN a member joins THEN the after-merge block lists its controller settings (before its first sync), the AppProject, its Argo CD registration, its Flux kubeconfig Secret and its token, in that order; leaving, what each tool deletes', () => {
  const a = policiesModel();
  a.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    managementCluster: 'hub',
    argocd: {},
    flux: {},
  };
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  const d = diffTrees(files(a), files(b));
  const steps = impact(files(a), files(b), d).afterMerge.steps;
  assert.equal(steps.length, 5, steps.join('\n'));
  // Antrea's install owns the new member's controller config (no takeOver): it must get the
  // settings before its first sync, which its registration starts.
  assert.match(steps[0]!, /^update Antrea's member controller config in north: .*explain --cluster north/);
  assert.match(
    steps[1]!,
    /re-apply the AppProject in the management cluster: `kubectl apply -k out\/argocd`/,
  );
  assert.match(steps[2]!, /register north with Argo CD as `https:\/\/north\.example\.com:6443`/);
  assert.match(
    steps[3]!,
    /kubectl -n flux-system create secret generic north-kubeconfig --from-file=value=north\.kubeconfig/,
  );
  assert.match(steps[4]!, /npx clusterset token north --leader-context <hub> --member-context <north>/);
  const md = formatMarkdown(d, impact(files(a), files(b), d), LABELS);
  assert.match(md, /#### After merge\n\n1\. \[ \] update Antrea's member controller config/);
  assert.match(
    md,
    /`npx clusterset token north --leader-context <hub> --member-context <north> --wait 600`/,
    'commands stay code',
  );

  const back = diffTrees(files(b), files(a));
  const leaving = impact(files(b), files(a), back).afterMerge.steps;
  assert.equal(
    leaving.filter((l) => l.startsWith('north leaves')),
    [
      // Antrea's install keeps its ConfigMap and the application team the Namespace shop (no
      // takeOver): the bundle holds neither, so the sentence does not name them.
      // Its restart Job and the Job's access go with the rest; Antrea's Deployment was never ours.
      'north leaves: Argo CD and Flux delete its Application and Kustomizations, each after deleting what they applied in north (2 ClusterProperties, ClusterSet, Job, Role, RoleBinding, ServiceAccount and Tier) but not its CustomResourceDefinition, which is never deleted; only once both are gone, `argocd cluster rm <north>` and `kubectl -n flux-system delete secret north-kubeconfig`',
      'north leaves: its token Secret kube-system/antrea-mc-leader-token was written by `clusterset token`, not by a tool; delete it: `kubectl --context <north> -n kube-system delete secret antrea-mc-leader-token`',
      // Its identity leaves hub in the same change: its own clean-up stops at its announce, so it
      // is restarted once its delivery has deleted its ClusterSet.
      "north leaves: only once both are gone, restart Antrea's member controller there, so that it deletes what it imported (this change also removes its identity from hub, and its own clean-up, which first deletes its announce there with its token, stops at that; started with no ClusterSet, it deletes everything it imported; the reconciler retires its announce and exports): `kubectl --context <north> -n kube-system rollout restart deployment antrea-mc-controller`",
    ],
  );
});

/** The after-merge steps about `north` when it leaves a delivered policies model. */
function northLeaves(
  delivery: Pick<NonNullable<ModelDraft['delivery']>, 'argocd' | 'flux'>,
  takeOver?: ModelDraft['takeOver'],
): string[] {
  const a = policiesModel();
  if (takeOver) a.takeOver = takeOver;
  a.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', ...delivery };
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  return impact(files(b), files(a)).afterMerge.steps.filter((l) => l.startsWith('north leaves'));
}

test('GIVEN prune off in both tools WHEN a member leaves THEN neither deletes anything in it, and the steps say to delete the Application and Kustomization by hand', () => {
  const steps = northLeaves({ argocd: { prune: false }, flux: { prune: false } });
  assert.equal(steps.slice(0, 2), [
    'north leaves: prune is off, so Argo CD keeps its Application and deletes nothing in north; delete it by hand (`kubectl -n argocd delete application test-set-north`, nothing cascades), then `argocd cluster rm <north>`',
    'north leaves: prune is off, so Flux keeps its Kustomizations and deletes nothing in north; delete them by hand (`kubectl -n flux-system delete kustomization test-set-north test-set-north.tiers`, nothing cascades), then `kubectl -n flux-system delete secret north-kubeconfig`',
  ]);
});

test('GIVEN Argo CD with prune on and Flux with prune off WHEN a member leaves THEN Argo CD deletes what it applied, alone, and Flux deletes nothing', () => {
  const steps = northLeaves({ argocd: {}, flux: { prune: false } });
  assert.match(
    steps[0]!,
    /^north leaves: Argo CD deletes its Application after deleting what it applied in north \(2 ClusterProperties, ClusterSet, Job, Role, RoleBinding, ServiceAccount and Tier\) but not its CustomResourceDefinition, which is never deleted; only once it is gone, `argocd cluster rm <north>`$/,
  );
  assert.match(steps[1]!, /^north leaves: prune is off, so Flux keeps its Kustomizations/);
});

test("GIVEN takeOver of Antrea's member controller ConfigMap and the Services' Namespaces WHEN a member leaves THEN the sentence names them among what is never deleted", () => {
  const steps = northLeaves(
    { argocd: {}, flux: {} },
    { memberControllerConfig: true, serviceNamespaces: true },
  );
  assert.match(
    steps[0]!,
    /^north leaves: Argo CD and Flux delete .* \(2 ClusterProperties, ClusterSet, Job, Role, RoleBinding, ServiceAccount and Tier\) but not its ConfigMap, CustomResourceDefinition and Namespace, which are never deleted;/,
  );
});

test('GIVEN an AppProject that changes WHEN diffed THEN re-applying it is a step', () => {
  const a = policiesModel();
  a.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', argocd: {} };
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  const steps = impact(files(a), files(b)).afterMerge.steps;
  assert.ok(
    steps.some((l) => l.includes('kubectl apply -k out/argocd')),
    steps.join('\n'),
  );
});

/** The after-merge steps of a change from model `a` to model `b`, both delivered as `delivery` says. */
function stepsOf(
  delivery: Pick<NonNullable<ModelDraft['delivery']>, 'argocd' | 'flux'>,
  edit: (b: ModelDraft) => void,
  start?: (a: ModelDraft) => void,
): readonly string[] {
  const a = policiesModel();
  a.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', ...delivery };
  start?.(a);
  const b = structuredClone(a);
  edit(b);
  return impact(files(a), files(b)).afterMerge.steps;
}

const addNorth = (m: ModelDraft): void => {
  m.clusters.push(cluster('north', 3));
  m.members.push('north');
};
const dropNorth = (m: ModelDraft): void => {
  m.clusters = m.clusters.filter((c) => c.id !== 'north');
  m.members = m.members.filter((id) => id !== 'north');
};
const isProjectStep = (l: string): boolean => l.includes('re-apply the AppProject');

test("GIVEN Argo CD with prune on WHEN a member leaves THEN the AppProject is re-applied last, only once the member's Application is gone, and the step says why", () => {
  const steps = stepsOf({ argocd: {} }, dropNorth, addNorth);
  assert.is(steps.filter(isProjectStep).length, 1, steps.join('\n'));
  const i = steps.findIndex(isProjectStep);
  assert.ok(
    i > steps.findIndex((l) => l.startsWith('north leaves: Argo CD deletes its Application')),
    'after the cascade deletion',
  );
  assert.is(
    steps[i],
    "re-apply the AppProject in the management cluster only once test-set-north is gone (`kubectl -n argocd wait --for=delete application/test-set-north --timeout=15m`): `kubectl apply -k out/argocd`. Not before: Argo CD's cascade deletion deletes only what the live project permits, and the new one no longer lists the departing destination, so its namespaced objects and those of kinds no other cluster uses would stay behind",
  );
});

test('GIVEN Argo CD with prune on WHEN one member leaves and another joins in one change THEN the AppProject still waits for the departing Application, and the step says the new one syncs after', () => {
  const steps = stepsOf(
    { argocd: {} },
    (b) => {
      dropNorth(b);
      b.clusters.push(cluster('south', 4));
      b.members.push('south');
    },
    addNorth,
  );
  const project = steps.filter(isProjectStep);
  assert.is(project.length, 1, steps.join('\n'));
  assert.match(
    project[0]!,
    /^re-apply the AppProject in the management cluster only once test-set-north is gone/,
  );
  assert.match(
    project[0]!,
    /until then Argo CD refuses the Application of south, and syncs it once the project permits it$/,
  );
  assert.ok(
    steps.indexOf(project[0]!) > steps.findIndex((l) => l.startsWith('north leaves')),
    'after the cascade deletion',
  );
});

test('GIVEN Argo CD with prune off WHEN a member leaves THEN nothing cascades, so the AppProject is re-applied first as for any change', () => {
  const steps = stepsOf({ argocd: { prune: false } }, dropNorth, addNorth);
  assert.match(
    steps[0]!,
    /^re-apply the AppProject in the management cluster: `kubectl apply -k out\/argocd`/,
  );
  assert.is(steps.filter(isProjectStep).length, 1);
});

/** `policiesModel` with west's stretched NetworkPolicy switched on: a member controller setting of west. */
function settingsChange(takeOver?: { memberControllerConfig?: boolean }) {
  const a = policiesModel();
  if (takeOver) a.takeOver = takeOver;
  const b = structuredClone(a);
  b.clusters = b.clusters.map((c) => (c.id === 'west' ? { ...c, enableStretchedNetworkPolicy: true } : c));
  return impact(files(a), files(b));
}

test("GIVEN Antrea's install owns the member controller config (the default) WHEN a member's setting changes THEN the summary says what changed, nothing restarts, and the after-merge block says to update and restart it there", () => {
  const i = settingsChange();
  assert.equal(
    i.items.filter((x) => x.category === 'member-config').map((x) => x.text),
    [
      "member controller settings change in west: enableStretchedNetworkPolicy false → true; Antrea's install holds them (see After merge)",
    ],
  );
  assert.equal(i.touched, ['west']);
  assert.equal(i.afterMerge.steps, [
    "update Antrea's member controller config in west: ConfigMap kube-system/antrea-mc-controller-config, key controller_manager_config.yaml, in Antrea's install, as `npx clusterset explain --cluster west` prints it; then restart the controller, which reads it only at start: `kubectl --context <west> -n kube-system rollout restart deployment antrea-mc-controller`",
  ]);
});

test('GIVEN takeOver.memberControllerConfig WHEN the same setting changes THEN the ConfigMap changes, the controller restarts by itself, and nothing is left to do by hand', () => {
  const i = settingsChange({ memberControllerConfig: true });
  assert.equal(
    i.items.filter((x) => x.category === 'member-config').map((x) => x.text),
    [
      "Antrea's member controller restarts in west (its settings changed)",
      'member controller settings change in west: enableStretchedNetworkPolicy false → true',
    ],
  );
  assert.equal(i.afterMerge.steps, []);
});

test("GIVEN takeOver.memberControllerConfig turned on WHEN diffed THEN Antrea's install must stop shipping the ConfigMap; turned off, it must hold the settings again", () => {
  const off = policiesModel();
  const on = structuredClone(off);
  on.takeOver = { memberControllerConfig: true };
  const taking = impact(files(off), files(on));
  assert.equal(taking.afterMerge.steps, [
    "take ConfigMap kube-system/antrea-mc-controller-config out of Antrea's install in both members: clusterset applies it now (takeOver.memberControllerConfig), and two owners of one object fight",
  ]);
  assert.ok(
    taking.items.some(
      (x) =>
        x.text ===
        "Antrea's member controller ConfigMap kube-system/antrea-mc-controller-config is now rendered in both members: clusterset takes it over from Antrea's install",
    ),
    taking.items.map((x) => x.text).join('\n'),
  );
  const handing = impact(files(on), files(off));
  assert.equal(handing.afterMerge.steps.length, 1, handing.afterMerge.steps.join('\n'));
  assert.match(handing.afterMerge.steps[0]!, /^update Antrea's member controller config in both members: /);
  assert.ok(
    handing.items.some((x) =>
      /is no longer rendered in both members: it stays in the cluster \(never pruned\)/.test(x.text),
    ),
    handing.items.map((x) => x.text).join('\n'),
  );
});

type Tools = Pick<NonNullable<ModelDraft['delivery']>, 'argocd' | 'flux'>;

/** `m` delivered from `hub` by the tools `tools` says (both are rendered unless one is disabled). */
function delivered(m: ModelDraft, tools?: Tools): ModelDraft {
  if (tools)
    m.delivery = { repoURL: 'https://git.example.com/gitops.git', managementCluster: 'hub', ...tools };
  return m;
}

/**
 * A day-2 change of the policies model: a new Tier and a baseline policy in it, so every member's
 * Tiers change; delivered as `delivery` says (both tools are rendered unless one is disabled).
 */
function newTier(delivery?: Tools) {
  const a = delivered(policiesModel(), delivery);
  const b = structuredClone(a);
  b.tiers!.push({ name: 'mc-day2', priority: 150 });
  b.baselinePolicies!.push({ ...b.baselinePolicies![0]!, name: 'day2-guard', tier: 'mc-day2' });
  return impact(files(a), files(b));
}

const restarts = (i: ReturnType<typeof impact>): string[] =>
  i.items.filter((x) => x.category === 'member-config').map((x) => x.text);

test('GIVEN Flux alone delivers the members WHEN their Tiers change THEN the controller restarts by itself (the restart Job) and nothing is left to do by hand', () => {
  const i = newTier({ argocd: { enabled: false }, flux: {} });
  assert.equal(restarts(i), ["Antrea's member controller restarts in both members (its Tiers changed)"]);
  assert.equal(i.afterMerge.steps, []);
});

test('GIVEN Argo CD alone delivers the members WHEN their Tiers change THEN the controller restarts by itself and nothing is left to do by hand', () => {
  const i = newTier({ argocd: {}, flux: { enabled: false } });
  assert.equal(restarts(i), ["Antrea's member controller restarts in both members (its Tiers changed)"]);
  assert.equal(i.afterMerge.steps, []);
  // No delivery in the model, or both tools: the same, the Job does it.
  assert.equal(restarts(newTier()), restarts(i));
  assert.equal(newTier().afterMerge.steps, []);
  assert.equal(restarts(newTier({ argocd: {}, flux: {} })), restarts(i));
  assert.equal(newTier({ argocd: {}, flux: {} }).afterMerge.steps, []);
});

test("GIVEN one member's Tiers change WHEN diffed THEN the summary names that member alone, and its old and new restart Jobs are not described object by object", () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const b = structuredClone(a);
  // The stretched policy's Tier only reaches east.
  b.tiers = b.tiers!.map((t) => (t.name === 'mc-stretched' ? { ...t, priority: 99 } : t));
  const i = impact(files(a), files(b));
  assert.equal(restarts(i), ["Antrea's member controller restarts in east (its Tiers changed)"]);
  assert.not.ok(
    i.items.some((x) => /Job|clusterset-restart/.test(x.text)),
    i.items.map((x) => x.text).join('\n'),
  );
  assert.not.ok(
    i.afterMerge.steps.some((l) => /restart/.test(l)),
    i.afterMerge.steps.join('\n'),
  );
});

test('GIVEN a member joins WHEN diffed THEN no restart is said: its ClusterSet comes after its Tiers', () => {
  const a = delivered(policiesModel(), { argocd: { enabled: false }, flux: {} });
  const b = structuredClone(a);
  addNorth(b);
  const i = impact(files(a), files(b));
  assert.equal(
    restarts(i).filter((t) => t.includes('restarts')),
    [],
  );
  assert.not.ok(
    i.afterMerge.steps.some((l) => l.includes('rollout restart') && !l.startsWith("update Antrea's member")),
    i.afterMerge.steps.join('\n'),
  );
});

test("GIVEN Flux delivers and takeOver.memberControllerConfig WHEN a setting changes THEN the restart is the Job's, for its settings, and no step", () => {
  const a = delivered(policiesModel(), { argocd: { enabled: false }, flux: {} });
  a.takeOver = { memberControllerConfig: true };
  const b = structuredClone(a);
  b.clusters = b.clusters.map((c) => (c.id === 'west' ? { ...c, enableStretchedNetworkPolicy: true } : c));
  const i = impact(files(a), files(b));
  assert.ok(
    restarts(i).includes("Antrea's member controller restarts in west (its settings changed)"),
    restarts(i).join('\n'),
  );
  assert.equal(i.afterMerge.steps, []);
});

/** The cluster bundle diff of `id` between two models. */
function bundleDiff(a: ModelDraft, b: ModelDraft, id: string): BundleDiff {
  const d = diffTrees(files(a), files(b));
  const found = d.bundles.find((x) => x.cluster === id);
  if (!found) throw new Error(`no change in ${id}`);
  return found;
}

test('GIVEN the bundles before and after WHEN the restart Job changes THEN restartReasons reads why from what it sets: Tiers, settings, both, or nothing for another image', () => {
  const base = (): ModelDraft => {
    const m = policiesModel();
    m.takeOver = { memberControllerConfig: true };
    return m;
  };
  const tiers = base();
  tiers.tiers!.push({ name: 'mc-day2', priority: 150 });
  tiers.baselinePolicies!.push({ ...tiers.baselinePolicies![0]!, name: 'day2-guard', tier: 'mc-day2' });
  const tb = bundleDiff(base(), tiers, 'west');
  assert.equal(restartReasons(tb), ['Tiers']);
  assert.match(restartJob(tb, 'before')!.name, /^clusterset-restart-[0-9a-f]{10}$/);
  assert.is.not(restartJob(tb, 'before')!.name, restartJob(tb, 'after')!.name);

  const settings = base();
  settings.clusters = settings.clusters.map((c) =>
    c.id === 'west' ? { ...c, enableStretchedNetworkPolicy: true } : c,
  );
  assert.equal(restartReasons(bundleDiff(base(), settings, 'west')), ['settings']);

  const both = structuredClone(tiers);
  both.clusters = settings.clusters;
  assert.equal(restartReasons(bundleDiff(base(), both, 'west')), ['Tiers', 'settings']);

  // Another image: a new Job, which finds the annotations set and restarts nothing.
  const image = base();
  image.reconciler = { image: 'registry.example.com/clusterset:9.9.9' };
  const ib = bundleDiff(base(), image, 'west');
  assert.ok(restartJob(ib, 'after') && restartJob(ib, 'before'), 'a new Job replaces the old one');
  assert.is(restartReasons(ib), undefined);
  assert.equal(
    restarts(impact(files(base()), files(image))).filter((t) => t.includes('restarts')),
    [],
  );

  // A joining member has no Job before: its controller finds its Tiers in place.
  const joined = base();
  addNorth(joined);
  const nb = bundleDiff(base(), joined, 'north');
  assert.ok(restartJob(nb, 'after'));
  assert.is(restartJob(nb, 'before'), undefined);
  assert.is(restartReasons(nb), undefined);
});

/** The compiled files of `m`, with `edit` applied to them (what an earlier release wrote, say). */
function filesEdited(m: ModelDraft, edit: (f: Map<string, string>) => void): ReadonlyMap<string, string> {
  const f = new Map(files(m));
  edit(f);
  return f;
}

const HEALTH_FILE = 'argocd/config/ConfigMap.argocd-cm.yaml';
const isHealthStep = (l: string): boolean => l.startsWith("merge the health checks of Antrea's kinds");

test("GIVEN Argo CD's health checks added to out/ (an earlier release, or Argo CD turned on) WHEN diffed THEN a step merges them into Argo CD's settings", () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const before = filesEdited(a, (f) => f.delete(HEALTH_FILE));
  const steps = impact(before, files(a)).afterMerge.steps;
  assert.equal(steps.filter(isHealthStep), [
    "merge the health checks of Antrea's kinds into Argo CD's settings in the management cluster: `kubectl -n argocd patch configmap argocd-cm --type merge --patch-file out/argocd/config/ConfigMap.argocd-cm.yaml` (Argo CD's install owns that ConfigMap: the patch sets those keys alone; until then a refused export or a ClusterSet that is not Ready shows as Healthy)",
  ]);
  // Argo CD turned on in place of Flux: its bootstrap merges them, in Argo CD's namespace (no step
  // of its own).
  const off = delivered(policiesModel(), { argocd: { enabled: false }, flux: {} });
  const on = delivered(policiesModel(), { argocd: { namespace: 'gitops' }, flux: { enabled: false } });
  on.admission = { deliveryUsers: ['system:serviceaccount:gitops:argocd-application-controller'] };
  off.admission = on.admission;
  const switched = impact(files(off), files(on), undefined, compile(on).plan).afterMerge.steps;
  assert.equal(switched.filter(isHealthStep), []);
  assert.match(switched[0]!, /^register east and west with Argo CD, before the bootstrap/);
  assert.match(
    switched[1]!,
    /^bootstrap Argo CD .*, and merge the health checks of Antrea's kinds into its settings: `kubectl -n gitops patch configmap argocd-cm --type merge --patch-file out\/argocd\/config\/ConfigMap\.argocd-cm\.yaml`/,
  );
});

test('GIVEN the health checks changed (another release) WHEN diffed THEN the merge step is listed; unchanged or gone, it is not', () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const older = filesEdited(a, (f) => {
    const text = f.get(HEALTH_FILE)!;
    assert.match(text, 'hs.status = "Degraded"');
    f.set(HEALTH_FILE, text.replace(/hs\.status = "Degraded"/g, 'hs.status = "Healthy"'));
  });
  assert.is(impact(older, files(a)).afterMerge.steps.filter(isHealthStep).length, 1);
  // No change of the checks: no step, whatever else changes.
  const b = structuredClone(a);
  addNorth(b);
  assert.equal(impact(files(a), files(b)).afterMerge.steps.filter(isHealthStep), []);
  // Argo CD turned off: the file goes, and nothing is to be merged.
  const off = structuredClone(a);
  off.delivery = { ...off.delivery!, argocd: { enabled: false } };
  assert.equal(impact(files(a), files(off)).afterMerge.steps.filter(isHealthStep), []);
});

/** Antrea's member controller Deployment as earlier releases rendered it in a member bundle (partial). */
function legacyDeployment(ns: string, expectedConfig?: string): string {
  return dumpYaml({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'antrea-mc-controller',
      namespace: ns,
      annotations: {
        ...(expectedConfig !== undefined ? { 'clusterset/expected-member-config': expectedConfig } : {}),
        'argocd.argoproj.io/sync-wave': '1',
        'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Validate=false,Prune=false,Delete=false',
        'kustomize.toolkit.fluxcd.io/prune': 'disabled',
      },
    },
    spec: { template: { metadata: { annotations: { 'clusterset/tiers-checksum': '0'.repeat(64) } } } },
  });
}

const isLegacyStep = (l: string): boolean => l.startsWith("Antrea's member controller Deployment in ");

test("GIVEN member bundles that held the earlier partial Deployment of Antrea's member controller WHEN it goes THEN a step drops Argo CD's leftover tracking from Antrea's Deployment, naming the members", () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const before = filesEdited(a, (f) => {
    for (const id of ['east', 'west'])
      f.set(
        `clusters/${id}/kube-system/Deployment.antrea-mc-controller.yaml`,
        legacyDeployment('kube-system'),
      );
  });
  const i = impact(before, files(a));
  assert.equal(i.afterMerge.steps.filter(isLegacyStep), [
    "Antrea's member controller Deployment in east and west is no longer patched by the bundle (a restart Job is): where Argo CD applied the old partial object, drop what it left, so that the Application does not stay OutOfSync: `kubectl --context <member> -n kube-system annotate deployment antrea-mc-controller argocd.argoproj.io/tracking-id- argocd.argoproj.io/sync-options- argocd.argoproj.io/sync-wave-` and `kubectl --context <member> -n kube-system label deployment antrea-mc-controller app.kubernetes.io/instance-` (the label under Argo CD's label tracking)",
  ]);
  // One member, in a custom namespace: its own context and namespace.
  const m = delivered(policiesModel(), { argocd: {}, flux: {} });
  m.memberNamespace = 'antrea-mc';
  const one = filesEdited(m, (f) =>
    f.set('clusters/west/antrea-mc/Deployment.antrea-mc-controller.yaml', legacyDeployment('antrea-mc')),
  );
  const [step, ...more] = impact(one, files(m)).afterMerge.steps.filter(isLegacyStep);
  assert.equal(more, []);
  assert.match(step!, /^Antrea's member controller Deployment in west is no longer patched/);
  assert.match(step!, '`kubectl --context <west> -n antrea-mc annotate deployment antrea-mc-controller ');
  assert.match(step!, '`kubectl --context <west> -n antrea-mc label deployment antrea-mc-controller ');
});

test("GIVEN an upgrade from the earlier partial Deployment WHEN the settings Antrea's install must hold are the same THEN nothing to update; WHEN they differ THEN the update step and the settings line, read from the Deployment before and the Job after", () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const after = files(a);
  /** The settings the member's restart Job carries (clusterset/expected-member-config). */
  const expected = (id: string): string => {
    const job = [...after.keys()].find((f) =>
      f.startsWith(`clusters/${id}/kube-system/Job.clusterset-restart-`),
    )!;
    const o = loadYaml(after.get(job)!) as { metadata: { annotations: Record<string, string> } };
    return o.metadata.annotations['clusterset/expected-member-config']!;
  };
  assert.match(expected('west'), /endpointIPType: ClusterIP/);
  /** The tree an earlier release wrote: the partial Deployment in place of the Job and its access. */
  const earlier = (config: (id: string) => string) =>
    filesEdited(a, (f) => {
      for (const k of [...f.keys()])
        if (/^clusters\/(east|west)\/kube-system\/[A-Za-z]+\.clusterset-restart/.test(k)) f.delete(k);
      for (const id of ['east', 'west'])
        f.set(
          `clusters/${id}/kube-system/Deployment.antrea-mc-controller.yaml`,
          legacyDeployment('kube-system', config(id)),
        );
    });
  const isUpdate = (l: string) => l.startsWith("update Antrea's member controller config");
  const settingsLines = (i: ReturnType<typeof impact>) =>
    restarts(i).filter((t) => t.startsWith('member controller settings change in'));

  const same = impact(earlier(expected), after);
  assert.equal(same.afterMerge.steps.filter(isUpdate), []);
  assert.equal(settingsLines(same), []);
  // No restart is said: the Jobs are new, with nothing before to compare them with.
  assert.equal(restarts(same), []);

  const changed = impact(
    earlier((id) =>
      id === 'west'
        ? expected(id).replace('endpointIPType: ClusterIP', 'endpointIPType: PodIP')
        : expected(id),
    ),
    after,
  );
  assert.equal(changed.afterMerge.steps.filter(isUpdate).length, 1, changed.afterMerge.steps.join('\n'));
  assert.match(
    changed.afterMerge.steps.find(isUpdate)!,
    /^update Antrea's member controller config in west: /,
  );
  assert.equal(settingsLines(changed), [
    "member controller settings change in west: endpointIPType PodIP → ClusterIP; Antrea's install holds them (see After merge)",
  ]);
});

test('GIVEN no earlier partial Deployment, or a member that leaves with it WHEN diffed THEN no legacy step', () => {
  const a = delivered(policiesModel(), { argocd: {}, flux: {} });
  const b = structuredClone(a);
  b.tiers = b.tiers!.map((t) => ({ ...t, priority: t.priority + 100 }));
  assert.equal(impact(files(a), files(b)).afterMerge.steps.filter(isLegacyStep), []);
  // north leaves: what its bundle held goes with it (its own step says what), no legacy step.
  const withNorth = structuredClone(a);
  addNorth(withNorth);
  const before = filesEdited(withNorth, (f) =>
    f.set('clusters/north/kube-system/Deployment.antrea-mc-controller.yaml', legacyDeployment('kube-system')),
  );
  assert.equal(impact(before, files(a)).afterMerge.steps.filter(isLegacyStep), []);
});

test('GIVEN External Secrets WHEN a member joins THEN the token step says what the leader and the member need, never `clusterset token`', () => {
  const a = policiesModel();
  a.secrets = {
    externalSecrets: {
      leaderCA: { configMap: { name: 'leader-ca' } },
      auth: { serviceAccount: { name: 'token-reader' } },
      leaderUsername: 'oidc:{cluster}:token-reader',
    },
  };
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  const steps = impact(files(a), files(b)).afterMerge.steps;
  assert.equal(
    steps,
    [
      // Antrea's install owns north's member controller config (no takeOver): before its first sync.
      "update Antrea's member controller config in north: ConfigMap kube-system/antrea-mc-controller-config, key controller_manager_config.yaml, in Antrea's install, as `npx clusterset explain --cluster north` prints it; then restart the controller, which reads it only at start: `kubectl --context <north> -n kube-system rollout restart deployment antrea-mc-controller`",
      "north's token comes by External Secrets (ExternalSecret kube-system/antrea-mc-leader-token): the leader (hub) must authenticate north's ServiceAccount kube-system/token-reader as `oidc:north:token-reader` (a JWT authenticator in its AuthenticationConfiguration that trusts north's ServiceAccount issuer)",
      "create ConfigMap kube-system/leader-ca in north with the leader's CA certificate under key `ca.crt`",
    ],
    steps.join('\n'),
  );

  const t = structuredClone(a);
  t.secrets!.externalSecrets!.auth = { tokenSecret: { name: 'leader-bearer' } };
  const u = structuredClone(t);
  u.clusters.push(cluster('north', 3));
  u.members.push('north');
  const bearer = impact(files(t), files(u)).afterMerge.steps;
  assert.match(
    bearer[1]!,
    /^north's token comes by External Secrets \(ExternalSecret kube-system\/antrea-mc-leader-token\): create Secret kube-system\/leader-bearer in north, key `token`: a leader bearer token for `oidc:north:token-reader`$/,
  );
});

test('GIVEN members on one network WHEN a member joins on another THEN every member that starts exchanging Services across networks gets a gateway step, with the Nodes of the model', () => {
  const a = policiesModel();
  a.clusters = [
    cluster('hub', 0),
    cluster('east', 1, {
      enableStretchedNetworkPolicy: true,
      gateway: { nodes: [{ name: 'e-0' }, { name: 'e-1' }] },
    }),
    cluster('west', 2, { gateway: { nodes: [{ name: 'w-0', ip: '192.0.2.2' }] } }),
  ];
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3, { network: 'far', gateway: { nodes: [{ name: 'n-0' }] } }));
  b.members.push('north');
  const after = compile(b);
  const steps = impact(files(a), after.files, undefined, after.plan).afterMerge.steps;
  // After the token, last (the update of north's member controller config, no takeOver, comes
  // before its first sync).
  const token = steps.findIndex((x) => x.startsWith("copy north's token"));
  assert.ok(token > 0, steps.join('\n'));
  assert.equal(steps.slice(token + 1), [
    "annotate north's gateway Nodes (it is on network far and exchanges Services with the default network): `kubectl --context <north> annotate node n-0 multicluster.antrea.io/gateway=true`",
    "annotate east's gateway Nodes unless they already are (it is on the default network and now exchanges Services with network far): `kubectl --context <east> annotate node e-0 e-1 multicluster.antrea.io/gateway=true`",
    "annotate west's gateway Nodes unless they already are (it is on the default network and now exchanges Services with network far): `kubectl --context <west> annotate node w-0 multicluster.antrea.io/gateway=true multicluster.antrea.io/gateway-ip=192.0.2.2`",
  ]);
  // Without the plan (out/ against out/), the Nodes are not known: the step says where they are.
  const blind = impact(files(a), after.files).afterMerge.steps;
  assert.match(
    blind[2]!,
    /`kubectl --context <north> annotate node <node> multicluster.antrea.io\/gateway=true` for each Node the model lists in gateway.nodes$/,
  );

  // Joining the same network, or a change that keeps the networks, asks for no gateway.
  const same = structuredClone(a);
  same.clusters.push(cluster('north', 3));
  same.members.push('north');
  assert.not.ok(impact(files(a), files(same)).afterMerge.steps.some((l) => l.includes('gateway')));
  // A member that moves to a network of its own: it and the others start exchanging across.
  const moved = structuredClone(a);
  moved.clusters[2]!.network = 'far';
  assert.equal(
    impact(files(a), files(moved)).afterMerge.steps.map((l) => l.split(' (')[0]),
    [
      "annotate east's gateway Nodes unless they already are",
      "annotate west's gateway Nodes unless they already are",
    ],
  );
});

test('GIVEN delivery from another path of the repository THEN the AppProject step applies that path', () => {
  const a = policiesModel();
  a.delivery = {
    repoURL: 'https://git.example.com/gitops.git',
    managementCluster: 'hub',
    path: 'deploy/set',
  };
  const b = structuredClone(a);
  b.clusters.push(cluster('north', 3));
  b.members.push('north');
  const steps = impact(files(a), files(b)).afterMerge.steps;
  assert.ok(
    steps.some(
      (x) => x.startsWith('re-apply the AppProject') && x.includes('`kubectl apply -k deploy/set/argocd`'),
    ),
    steps.join('\n'),
  );
});

// Uninstall (the model's `uninstall`): every member leaves, the leader stays until they have.

/** The after-merge steps of uninstalling model `a` (delivered as `delivery` says, when it is). */
function uninstallSteps(delivery?: Tools, start?: (a: ModelDraft) => void): readonly string[] {
  const a = delivered(policiesModel(), delivery);
  start?.(a);
  const b = structuredClone(a);
  b.uninstall = true;
  return impact(files(a), files(b)).afterMerge.steps;
}

test('GIVEN Argo CD alone with prune on WHEN uninstalled THEN the members leave first, the wait names every announce, then the tokens, the root, the leader, the project, in that order', () => {
  const steps = uninstallSteps({ argocd: {}, flux: { enabled: false } });
  assert.equal(
    steps.map((s) => s.split(':')[0]),
    [
      'east leaves',
      'west leaves',
      'then every member leaves hub by itself',
      'east leaves',
      'west leaves',
      'then remove hub under Argo CD',
      'then, once test-set-hub is gone (its deletion reads the project), `kubectl -n argocd delete appproject test-set`',
      'then clusterset.ts and out/ can leave the repository',
    ].map((s) => s.split(':')[0]),
  );
  assert.match(
    steps[2]!,
    /`kubectl --context <hub> -n antrea-multicluster wait --for=delete memberclusterannounce\/member-announce-from-east memberclusterannounce\/member-announce-from-west --timeout=15m`/,
  );
  assert.match(
    steps[5]!,
    /first the root Application, `kubectl -n argocd delete application test-set` .* then `kubectl -n argocd delete application test-set-hub`, which deletes what Argo CD applied in hub first: the leader namespace antrea-multicluster/,
  );
  assert.not.ok(
    steps.some((s) => s.includes('flux-system')),
    'nothing of Flux',
  );
  assert.not.ok(
    steps.some((s) => s.includes('re-apply the AppProject')),
    'the project stays as it was',
  );
});

test('GIVEN a leader that is not the management cluster WHEN uninstalled THEN its registration goes too, after its Application', () => {
  const steps = uninstallSteps(undefined, (a) => {
    a.delivery = {
      repoURL: 'https://git.example.com/gitops.git',
      managementCluster: 'east',
      flux: { enabled: false },
    };
    a.admission = { deliveryUsers: ['system:serviceaccount:kube-system:argocd-manager'] };
  });
  assert.ok(
    steps.includes(
      'then, once test-set-hub is gone (its deletion reads the project and reaches the cluster through its registration), `kubectl -n argocd delete appproject test-set` and `argocd cluster rm <hub>`',
    ),
    steps.join('\n'),
  );
});

test('GIVEN prune off WHEN uninstalled THEN each member must have its ClusterSet deleted by hand, and the leader its namespace and policies', () => {
  const steps = uninstallSteps({ argocd: { prune: false }, flux: { enabled: false } });
  assert.ok(
    steps.includes(
      'east leaves only once its ClusterSet is gone, and nothing deletes it (prune is off): delete it by hand, `kubectl --context <east> -n kube-system delete clustersets.multicluster.crd.antrea.io test-set`, and later whatever else of its bundle you applied, but its CRDs',
    ),
    steps.join('\n'),
  );
  const leader = steps.find((s) => s.startsWith('then remove hub under Argo CD'))!;
  assert.match(
    leader,
    /which deletes nothing in hub \(prune is off\): then delete the rest by hand, `kubectl --context <hub> delete namespace antrea-multicluster`, `kubectl --context <hub> delete validatingadmissionpolicy antrea-multicluster-compiled-imports antrea-multicluster-member-writes antrea-multicluster-reconciler-writes` and `kubectl --context <hub> delete validatingadmissionpolicybinding /,
  );
});

test('GIVEN no delivery WHEN uninstalled THEN the members and the leader are removed by hand, the members first', () => {
  const steps = uninstallSteps();
  const i = (p: string) => steps.findIndex((s) => s.startsWith(p));
  assert.ok(i('east leaves only once its ClusterSet is gone') >= 0, steps.join('\n'));
  assert.ok(i('then every member leaves hub') > i('west leaves only once'));
  assert.ok(
    i(
      'then remove hub by hand (no Application or Kustomization delivers it): `kubectl --context <hub> delete namespace antrea-multicluster`',
    ) > i('then every member leaves hub'),
  );
});

test('GIVEN a leader that is also a member WHEN uninstalled THEN its member side leaves like the others, and the leader stays', () => {
  const a = delivered(policiesModel(), { argocd: { enabled: false }, flux: {} });
  a.members = ['hub', ...a.members];
  const b = structuredClone(a);
  b.uninstall = true;
  const i = impact(files(a), files(b));
  assert.equal(i.membersAfter, []);
  assert.match(
    i.items.map((x) => x.text).join('\n'),
    /the ClusterSet is uninstalled: all 3 members \(east, hub, west\) leave/,
  );
  const steps = i.afterMerge.steps;
  assert.match(
    steps.join('\n'),
    /wait --for=delete memberclusterannounce\/member-announce-from-east memberclusterannounce\/member-announce-from-hub memberclusterannounce\/member-announce-from-west/,
  );
  // Its member side goes by its own Kustomization's prune and its Tiers' Kustomization; its own stays.
  assert.ok(
    steps.includes(
      'hub leaves as a member: its Kustomization test-set-hub prunes what its bundle no longer holds of its member side (2 ClusterProperties, ClusterSet, Job, Role, RoleBinding, ServiceAccount and Tier); under Flux its Tiers go with their own Kustomization, which the root prunes',
    ),
    steps.join('\n'),
  );
  assert.ok(
    steps.some((s) => s.startsWith('hub leaves: its token Secret kube-system/antrea-mc-leader-token')),
  );
  assert.match(steps.join('\n'), /then `kubectl -n flux-system delete kustomization test-set-hub`,/);
});

test.run();
