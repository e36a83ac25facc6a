/**
 * Antrea's member controller settings and the member bundle's restart Job
 * (render/member-restart.ts): where Antrea's install owns the ConfigMap, a change of the settings
 * clusterset expects (read from the Job's annotation) is a person's update there, then a restart;
 * where clusterset takes the ConfigMap or a Service's Namespace over, the other owner must let go;
 * where an earlier release's partial Deployment leaves the bundle, what Argo CD left on it. impact.ts
 * reads the Job too (`restartJob`, `restartReasons`): that restart happens by itself.
 */
import { MEMBER_CONFIG_KEY } from '../../antrea-member-config';
import { MEMBER_CONTROLLER_CONFIG, MEMBER_CONTROLLER_DEPLOYMENT, MEMBER_RESTART_NAME } from '../../names';
import {
  EXPECTED_MEMBER_CONFIG_ANNOTATION,
  MEMBER_CONFIG_CHECKSUM_ANNOTATION,
  TIERS_CHECKSUM_ANNOTATION,
} from '../../render/member-restart';
import { ARGOCD_SYNC_OPTIONS } from '../../render/util';
import { joinAnd } from '../describe';
import type { BundleDiff, DiffObject, ObjectChange, TreeDiff } from '../tree';
import { at, str } from './util';

/**
 * The namespace of the bundle's ClusterSet when the change adds or moves it (a member's own
 * namespace). The member's own Namespace only appears together with it: a new member, or a new
 * `memberNamespace`; so the changed objects suffice.
 */
function clusterSetNamespace(b: BundleDiff): string | undefined {
  const changed = b.objects.find((y) => y.kind === 'ClusterSet' && y.after !== undefined);
  return changed?.namespace;
}

/** Up to this many members, a restart step lists one command per member. */
const MAX_LISTED_RESTARTS = 10;

/**
 * Antrea's member controller settings, per member bundle that stays: where Antrea's install owns the
 * ConfigMap (`takeOver.memberControllerConfig` off), the settings clusterset expects ride in the
 * restart Job's `clusterset/expected-member-config` annotation, and a change of them (a joining
 * member included) must be carried into that install, then the controller restarted, since
 * it reads the file only at start. Where clusterset starts rendering the ConfigMap, the install must
 * stop shipping it. Members grouped per step and namespace, so a change to every member is one line.
 */
export function memberConfigSteps(
  diff: TreeDiff,
  left: readonly string[],
  phrase: (clusters: readonly string[]) => string,
  only: (id: string) => boolean,
): string[] {
  const update = new Map<string, string[]>();
  const takeOver = new Map<string, string[]>();
  const namespaces = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, ns: string, id: string) => m.set(ns, [...(m.get(ns) ?? []), id]);
  for (const b of diff.bundles) {
    if (b.type !== 'cluster' || b.cluster === undefined || left.includes(b.cluster) || !only(b.cluster))
      continue;
    const own = clusterSetNamespace(b);
    const expected = expectedMemberConfig(b);
    if (expected.is !== undefined && expected.is !== expected.was) add(update, expected.ns, b.cluster);
    for (const x of b.objects) {
      const ns = x.namespace ?? 'kube-system';
      if (x.kind === 'ConfigMap' && x.name === MEMBER_CONTROLLER_CONFIG && x.change === 'added')
        add(takeOver, ns, b.cluster);
      // A Service's Namespace, never pruned (render/namespaces.ts), and not the member's own one,
      // where its ClusterSet lives: someone else may apply it too (takeOver.serviceNamespaces).
      const options = str(at(x.after, 'metadata', 'annotations', ARGOCD_SYNC_OPTIONS)) ?? '';
      if (x.kind === 'Namespace' && x.change === 'added' && x.name !== own && /Prune=false/.test(options))
        add(namespaces, x.name, b.cluster);
    }
  }
  const steps: string[] = [];
  for (const [ns, ids] of takeOver) {
    steps.push(
      `take ConfigMap ${ns}/${MEMBER_CONTROLLER_CONFIG} out of Antrea's install in ${phrase(ids)}: clusterset applies it now (takeOver.memberControllerConfig), and two owners of one object fight`,
    );
  }
  const byClusters = new Map<string, string[]>();
  for (const [name, ids] of namespaces)
    byClusters.set(phrase(ids), [...(byClusters.get(phrase(ids)) ?? []), name]);
  for (const [where, names] of byClusters) {
    steps.push(
      `take Namespace${names.length > 1 ? 's' : ''} ${joinAnd(names)} out of any other Application or Kustomization that applies ${names.length > 1 ? 'them' : 'it'} in ${where} (the application team's): clusterset applies ${names.length > 1 ? 'them' : 'it'} now (takeOver.serviceNamespaces), and two owners of one object fight`,
    );
  }
  for (const [ns, ids] of update) {
    const one = ids.length === 1 ? ids[0]! : '<member>';
    // One command per member, to follow as printed; a fleet-wide change says it once.
    const each = ids.length <= MAX_LISTED_RESTARTS ? ids : ['member'];
    const restarts = joinAnd(
      each.map(
        (id) =>
          `\`kubectl --context <${id}> -n ${ns} rollout restart deployment ${MEMBER_CONTROLLER_DEPLOYMENT}\``,
      ),
    );
    steps.push(
      `update Antrea's member controller config in ${phrase(ids)}: ConfigMap ${ns}/${MEMBER_CONTROLLER_CONFIG}, key ${MEMBER_CONFIG_KEY}, in Antrea's install, as \`npx clusterset explain --cluster ${one}\` prints it; then restart the controller, which reads it only at start: ${restarts}${each.length < ids.length ? ' in each' : ''}`,
    );
  }
  return steps;
}

/**
 * Earlier releases applied a partial Deployment of Antrea's member controller (now the restart Job
 * does its work): under Argo CD, where it took, its tracking stays on Antrea's Deployment, and the
 * Application would stay OutOfSync for a pruning its Prune=false forbids. One step for the members
 * that stay whose bundle drops it; none otherwise.
 */
export function legacyDeploymentSteps(diff: TreeDiff, left: readonly string[]): string[] {
  const legacy = diff.bundles.flatMap((b) =>
    b.type === 'cluster' && b.cluster !== undefined && !left.includes(b.cluster)
      ? b.objects
          .filter(
            (x) =>
              x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT && x.change === 'removed',
          )
          .map((x) => ({ id: b.cluster!, ns: x.namespace ?? 'kube-system' }))
      : [],
  );
  if (legacy.length === 0) return [];
  const one = legacy.length === 1 ? `<${legacy[0]!.id}>` : '<member>';
  const ns = legacy[0]!.ns;
  return [
    `Antrea's member controller Deployment in ${joinAnd(legacy.map((l) => l.id))} is no longer patched by the bundle (a restart Job is): where Argo CD applied the old partial object, drop what it left, so that the Application does not stay OutOfSync: \`kubectl --context ${one} -n ${ns} annotate deployment ${MEMBER_CONTROLLER_DEPLOYMENT} argocd.argoproj.io/tracking-id- argocd.argoproj.io/sync-options- argocd.argoproj.io/sync-wave-\` and \`kubectl --context ${one} -n ${ns} label deployment ${MEMBER_CONTROLLER_DEPLOYMENT} app.kubernetes.io/instance-\` (the label under Argo CD's label tracking)`,
  ];
}

/**
 * The member's restart Job (render/member-restart.ts) on one side of its bundle's diff. Named after
 * what it sets, so a change shows as one Job removed and another added.
 */
export function restartJob(b: BundleDiff, side: 'before' | 'after'): ObjectChange | undefined {
  return b.objects.find(
    (x) => x.kind === 'Job' && x.name.startsWith(`${MEMBER_RESTART_NAME}-`) && x[side] !== undefined,
  );
}

/** The Pod template annotations a restart Job sets (its `--annotation KEY=VALUE` arguments). */
function restartAnnotationsOf(job: DiffObject | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const containers = at(job, 'spec', 'template', 'spec', 'containers');
  const args = Array.isArray(containers) ? at(containers[0], 'args') : undefined;
  if (!Array.isArray(args)) return out;
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] !== '--annotation') continue;
    const kv = String(args[i + 1]);
    const eq = kv.indexOf('=');
    if (eq > 0) out.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  return out;
}

/**
 * The settings Antrea's install must hold for a member, before and after the change (the restart
 * Job's `clusterset/expected-member-config`; before it, the partial Deployment that earlier releases
 * rendered carried it), and the member namespace.
 */
function expectedMemberConfig(b: BundleDiff): { was?: string; is?: string; ns: string } {
  const before = restartJob(b, 'before')?.before;
  const after = restartJob(b, 'after')?.after;
  const legacy = b.objects.find((x) => x.kind === 'Deployment' && x.name === MEMBER_CONTROLLER_DEPLOYMENT);
  const was = str(at(before ?? legacy?.before, 'metadata', 'annotations', EXPECTED_MEMBER_CONFIG_ANNOTATION));
  const is = str(at(after, 'metadata', 'annotations', EXPECTED_MEMBER_CONFIG_ANNOTATION));
  const ns = str(at(after ?? before, 'metadata', 'namespace')) ?? 'kube-system';
  return { ...(was !== undefined ? { was } : {}), ...(is !== undefined ? { is } : {}), ns };
}

/**
 * Why the member's restart Job rolls Antrea's member controller: `['Tiers']`, `['settings']` or
 * both; undefined when what it sets does not change: no Job on either side (a joining or leaving
 * member, whose controller finds its Tiers in place), or the same annotations (another image: the
 * new Job runs and finds them set).
 */
export function restartReasons(b: BundleDiff): string[] | undefined {
  const before = restartJob(b, 'before');
  const after = restartJob(b, 'after');
  if (before === undefined || after === undefined) return undefined;
  const was = restartAnnotationsOf(before.before);
  const is = restartAnnotationsOf(after.after);
  const changed = (k: string) => was.get(k) !== is.get(k);
  const why = [
    ...(changed(TIERS_CHECKSUM_ANNOTATION) ? ['Tiers'] : []),
    ...(changed(MEMBER_CONFIG_CHECKSUM_ANNOTATION) ? ['settings'] : []),
  ];
  return why.length > 0 ? why : undefined;
}
