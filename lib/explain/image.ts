/**
 * The reconciler image as a prerequisite of a cluster, as `explain` prints it: what runs it there
 * (the leader's reconciler Deployment, a member's restart Job: every Pod template of the cluster's
 * bundle that names the image), the Secrets the kubelet pulls it with (the model's
 * `reconciler.imagePullSecrets`, which must exist in the namespace of each of those), and the one
 * command that builds and pushes it from the installed package (`clusterset image build`,
 * lib/cli/image.ts). Pure: a function of the plan and its bundles.
 *
 * The default image, `ghcr.io/clusterset/clusterset:<version>`, is pulled only where the nodes can
 * reach it as published; otherwise a team builds the package's image, pushes it to its own
 * registry and names it in `reconciler.image`.
 */
import { version as packageVersion } from '../../package.json';
import { cmp } from '../diagnostics';
import { DEFAULT_RECONCILER_IMAGE } from '../names';
import type { Plan } from '../plan';
import type { K8sObject } from '../render';

/** The reconciler image in one cluster. */
export interface ImageEntry {
  /** The reference the bundle's Pod templates name. */
  readonly image: string;
  /** Whether it is the package's default (the model sets no `reconciler.image`). */
  readonly default: boolean;
  /** What runs it in this cluster, e.g. `Deployment antrea-multicluster/clusterset-reconciler`. Sorted. */
  readonly runBy: readonly string[];
  /** `<namespace>/<name>` of each pull Secret that must exist in this cluster. Sorted. */
  readonly pullSecrets: readonly string[];
  /** The command that builds the image from the installed package and pushes it. */
  readonly build: string;
}

/** The tag `clusterset image build` pushes for `image`: the reference without its digest, tagged. */
export function buildTag(image: string, isDefault: boolean): string {
  if (isDefault) return `<registry>/clusterset:${packageVersion}`;
  const name = image.replace(/@.*$/, '');
  return /:[^/:]*$/.test(name) ? name : `${name}:${packageVersion}`;
}

/** The command that builds and pushes `image`. */
export function buildCommand(image: string, isDefault: boolean): string {
  return `npx clusterset image build --tag ${buildTag(image, isDefault)} --push`;
}

interface PodTemplateOwner {
  readonly spec?: {
    readonly template?: { readonly spec?: { readonly containers?: readonly { readonly image?: string }[] } };
  };
}

/** The image in the cluster whose bundle is `bundle`; null when nothing there runs it. */
export function imageEntry(plan: Plan, bundle: readonly K8sObject[] | undefined): ImageEntry | null {
  const image = plan.reconciler.image;
  const runners = (bundle ?? []).filter((o) =>
    ((o as PodTemplateOwner).spec?.template?.spec?.containers ?? []).some((c) => c.image === image),
  );
  if (runners.length === 0) return null;
  const namespaces = [...new Set(runners.map((o) => o.metadata.namespace ?? ''))].sort(cmp);
  const isDefault = image === DEFAULT_RECONCILER_IMAGE;
  return {
    image,
    default: isDefault,
    runBy: runners.map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).sort(cmp),
    pullSecrets: namespaces.flatMap((ns) => plan.reconciler.imagePullSecrets.map((s) => `${ns}/${s}`)),
    build: buildCommand(image, isDefault),
  };
}

/** What to print about `e`: the need, then the command (to indent as code), then the Secrets. */
export function imageLines(e: ImageEntry): { need: string; command: string; secrets?: string } {
  const need = e.default
    ? `reconciler image ${e.image} (the default), run here by ${e.runBy.join(' and ')}: the nodes must be able to pull it; unless they pull it as published, build it from the installed package, push it to your registry and set reconciler.image to that reference`
    : `reconciler image ${e.image} (reconciler.image), run here by ${e.runBy.join(' and ')}: the nodes must be able to pull it; build it from the installed package and push it with`;
  return {
    need,
    command: e.build,
    ...(e.pullSecrets.length > 0
      ? {
          secrets: `image pull Secrets (reconciler.imagePullSecrets, type kubernetes.io/dockerconfigjson), which must exist here: ${e.pullSecrets.join(', ')}`,
        }
      : {}),
  };
}
