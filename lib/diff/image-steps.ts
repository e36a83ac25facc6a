/**
 * What must exist before a change merges, because the first sync after it pulls it: the reconciler
 * image and its pull Secrets. The image runs in the leader (the reconciler Deployment) and in every
 * member (the restart Job); it is new when the leader's reconciler Deployment is added (a first
 * ClusterSet) or names another image. A pull Secret (`reconciler.imagePullSecrets`) must exist in
 * each namespace where a Pod template names it, and is new where no Pod template of that cluster and
 * namespace named it before (a joining member, a Secret added to the model). Read from the semantic
 * diff alone, so a change that moves neither asks nothing. Pure.
 */
import { DEFAULT_RECONCILER_IMAGE, RECONCILER_NAME, imageRepository } from '../names';
import { buildCommand } from '../explain/image';
import { joinAnd } from './describe';
import type { DiffObject, TreeDiff } from './tree';

interface PodSpec {
  readonly containers?: readonly { readonly image?: string }[];
  readonly imagePullSecrets?: readonly { readonly name?: string }[];
}

function podSpec(o: DiffObject | undefined): PodSpec | undefined {
  const spec = (o as { spec?: { template?: { spec?: PodSpec } } } | undefined)?.spec;
  return spec?.template?.spec;
}

const images = (o: DiffObject | undefined): string[] =>
  (podSpec(o)?.containers ?? []).flatMap((c) => (c.image !== undefined ? [c.image] : []));

const pullSecrets = (o: DiffObject | undefined): string[] =>
  (podSpec(o)?.imagePullSecrets ?? []).flatMap((s) => (s.name !== undefined ? [s.name] : []));

/** The registry a reference pulls from: its first component when that names a host, else Docker Hub. */
export function registryOf(image: string): string {
  const first = image.split('/')[0]!;
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')
    ? first
    : 'docker.io';
}

/**
 * The reconciler image the leader's Deployment names after the change, when it names none before
 * (or another one); undefined when the image does not change.
 */
function newImage(diff: TreeDiff, leader: string | undefined): string | undefined {
  const b = diff.bundles.find((x) => x.type === 'cluster' && x.cluster === leader);
  const d = b?.objects.find((x) => x.kind === 'Deployment' && x.name === RECONCILER_NAME && x.after);
  const after = images(d?.after)[0];
  if (after === undefined) return undefined;
  return images(d?.before).includes(after) ? undefined : after;
}

/** `<cluster> -> <namespace> -> pull Secrets` that some Pod template names after and none before. */
function newPullSecrets(diff: TreeDiff): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  for (const b of diff.bundles) {
    if (b.type !== 'cluster' || b.cluster === undefined) continue;
    const had = new Set(
      b.objects.flatMap((x) => pullSecrets(x.before).map((s) => `${x.namespace ?? ''}/${s}`)),
    );
    for (const x of b.objects)
      for (const s of pullSecrets(x.after)) {
        const ns = x.namespace ?? 'default';
        if (had.has(`${x.namespace ?? ''}/${s}`)) continue;
        const byNs = out.get(b.cluster) ?? new Map<string, string[]>();
        const names = byNs.get(ns) ?? [];
        if (!names.includes(s)) names.push(s);
        byNs.set(ns, names.sort());
        out.set(b.cluster, byNs);
      }
  }
  return out;
}

/** The clusters whose bundle after the change runs `image`, sorted. */
function runners(diff: TreeDiff, image: string): string[] {
  return diff.bundles
    .filter(
      (b) =>
        b.type === 'cluster' &&
        b.cluster !== undefined &&
        b.objects.some((x) => images(x.after).includes(image)),
    )
    .map((b) => b.cluster!)
    .sort();
}

/**
 * The Before merge steps: the image built and pushed (its digest pinned), then each cluster's new
 * pull Secrets created, with the commands to run.
 */
export function beforeMergeSteps(diff: TreeDiff, leader: string | undefined): string[] {
  const steps: string[] = [];
  const image = newImage(diff, leader);
  if (image !== undefined) {
    const where = runners(diff, image);
    const pull = `${joinAnd(where)} pull${where.length === 1 ? 's' : ''} it at ${where.length === 1 ? 'its' : 'their'} first sync after the merge (the leader's reconciler, each member's restart Job)`;
    if (image === DEFAULT_RECONCILER_IMAGE)
      steps.push(
        `the reconciler image is the package's default, ${image}, which exists only once clusterset publishes that release; ${pull}: build it from the installed package and push it to a registry the nodes reach, \`${buildCommand(image, true)}\`, then set reconciler.image to the digest that prints (\`<registry>/clusterset@sha256:…\`) and synth again`,
      );
    else if (image.includes('@sha256:'))
      steps.push(
        `make sure the reconciler image ${image} is in its registry (${pull}): a digest is what \`clusterset image build --push\` printed when it pushed that image; if it was never pushed, \`${buildCommand(image, false)}\` and pin the digest it prints instead`,
      );
    else
      steps.push(
        `build and push the reconciler image ${image} (${pull}): \`${buildCommand(image, false)}\`; it prints the image's digest: pin it in reconciler.image (\`${imageRepository(image)}@sha256:…\`) and synth again, so that a tag moved in the registry never changes what runs`,
      );
  }
  for (const [cluster, byNs] of newPullSecrets(diff)) {
    const image0 = image ?? [...diff.bundles].flatMap((b) => b.objects.flatMap((x) => images(x.after)))[0];
    const server = image0 !== undefined ? registryOf(image0) : '<registry>';
    const commands = [...byNs].flatMap(([ns, names]) =>
      names.map(
        (s) =>
          `\`kubectl --context <${cluster}> -n ${ns} create secret docker-registry ${s} --docker-server=${server} --docker-username=<user> --docker-password=<token>\``,
      ),
    );
    const all = [...byNs].flatMap(([ns, names]) => names.map((s) => `${ns}/${s}`));
    steps.push(
      `create the image pull Secret${all.length > 1 ? 's' : ''} ${joinAnd(all)} in ${cluster} (reconciler.imagePullSecrets, type kubernetes.io/dockerconfigjson; its Pods pull the reconciler image with ${all.length > 1 ? 'them' : 'it'}, and never start without): ${joinAnd(commands)}`,
    );
  }
  return steps;
}
