/**
 * `clusterset restart-member-controller`: restarts Antrea's member controller when what it reads only
 * at start has changed, by setting Pod template annotations (checksums) on its Deployment, as
 * `kubectl rollout restart` does with its own annotation: a changed template rolls out a new
 * ReplicaSet; annotations that already hold these values change nothing, so a run repeated (a Job
 * re-created, a second sync) restarts nothing.
 *
 * Each member bundle runs it as a Job (render/member-restart.ts) after the member's Tiers. The
 * Deployment is Antrea's (its member manifest, usually installed with `kubectl apply`): a JSON merge
 * patch of those annotations alone, with field manager `clusterset`, changes nothing else and takes
 * no other field over; a delivery tool applying a partial object there could not (Argo CD's
 * client-side-apply migration refuses it; Flux normalizes it into an invalid Deployment).
 *
 * It lives with the reconciler because it runs from the same image, in one bundle of client-node's
 * KubeConfig (scripts/build-js.ts).
 */
import type { KubeClient } from './kube';
import { isApiError } from './kube';

/** The field manager of the patch. */
export const RESTART_FIELD_MANAGER = 'clusterset';

export interface DeploymentTemplate {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly spec?: {
    readonly template?: { readonly metadata?: { readonly annotations?: Record<string, string> } };
  };
}

/** The annotations of `want` that the Deployment's Pod template does not hold yet (pure). */
export function staleAnnotations(
  d: DeploymentTemplate,
  want: Readonly<Record<string, string>>,
): Record<string, string> {
  const have = d.spec?.template?.metadata?.annotations ?? {};
  return Object.fromEntries(Object.entries(want).filter(([k, v]) => have[k] !== v));
}

/** Parses `key=value` flags into annotations; throws on a malformed one or a key given twice. */
export function parseAnnotations(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const i = f.indexOf('=');
    const key = i > 0 ? f.slice(0, i) : '';
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key))
      throw new Error(`--annotation ${JSON.stringify(f)}: expected KEY=VALUE with a valid annotation key`);
    if (key in out) throw new Error(`--annotation ${key} is given twice`);
    out[key] = f.slice(i + 1);
  }
  return out;
}

export interface RestartResult {
  /** The annotations written (empty: the template already held them). */
  readonly changed: Readonly<Record<string, string>>;
}

export class DeploymentMissing extends Error {
  override name = 'DeploymentMissing';
}

/**
 * Sets `annotations` on the Pod template of Deployment `namespace/name` where they differ. The patch
 * carries the resourceVersion it was computed from, so a concurrent change is seen (409) and the
 * decision made again.
 */
export async function restartMemberController(
  client: KubeClient,
  namespace: string,
  name: string,
  annotations: Readonly<Record<string, string>>,
): Promise<RestartResult> {
  const path = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}`;
  for (let attempt = 0; ; attempt++) {
    let d: DeploymentTemplate;
    try {
      d = await client.request<DeploymentTemplate>('GET', path);
    } catch (e) {
      if (isApiError(e, 404))
        throw new DeploymentMissing(
          `Deployment ${namespace}/${name} does not exist: Antrea's member controller must be installed first (antrea-multicluster-member.yml)`,
        );
      throw e;
    }
    const changed = staleAnnotations(d, annotations);
    if (Object.keys(changed).length === 0) return { changed };
    const patch = {
      metadata: { resourceVersion: d.metadata?.resourceVersion },
      spec: { template: { metadata: { annotations: changed } } },
    };
    try {
      await client.request('PATCH', `${path}?fieldManager=${RESTART_FIELD_MANAGER}`, patch, {
        patch: 'merge',
      });
      return { changed };
    } catch (e) {
      if (!isApiError(e, 409) || attempt >= 5) throw e;
    }
  }
}
