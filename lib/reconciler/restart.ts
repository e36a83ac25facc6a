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
 * Then, with the member's ClusterSet named (`clusterSet`, what the Job passes), it makes good what
 * Antrea's member controller loses at every start (antrea-mc.md §i, issue 39): a ServiceExport
 * reconcile that arrives before its connection to the leader is up is dropped, not requeued, so the
 * controller does not know it exported the Service, and a ServiceExport deleted later is never
 * withdrawn from the leader (and one that came with the restart is never exported). It waits until
 * the controller that started after the restart reports the leader connected (its ClusterSet's
 * `status.clusterStatuses[].conditions[Ready]` True since the restart: the member writes it every
 * 30 s), then sets an annotation on every ServiceExport of the namespaces where the member exports
 * (`clusterset/exported-after`, the restart's time): any change of a ServiceExport is a reconcile,
 * now with the connection up. Annotations that already hold that time are left alone, so a run
 * repeated writes nothing. A member that exports nothing has nothing to lose, and nothing to wait for.
 *
 * What it is doing, or why it cannot, it records on the member's ClusterSet
 * (`clusterset/restart`: `<Job> <state>: <what>`, and `clusterset/restart-state`: `<Job> <state>`),
 * where the ClusterSet's health check in Argo CD and Flux reads it (render/health.ts) and
 * `clusterset status` shows it: `waiting` while the
 * controller has not connected since the restart, `failed` with the cause when it cannot go on
 * (Antrea's member controller not installed, a write refused), `done` once every ServiceExport was
 * reconciled. Recording is best effort: Antrea's own webhook on ClusterSets refuses writes while its
 * Pod restarts.
 *
 * It lives with the reconciler because it runs from the same image, in one bundle of client-node's
 * KubeConfig (scripts/build-js.ts).
 */
import { EXPORTED_AFTER_ANNOTATION, RESTART_RECORD_ANNOTATION, RESTART_STATE_ANNOTATION } from '../names';
import type { KubeClient } from './kube';
import { isApiError } from './kube';

/** The field manager of the patch. */
export const RESTART_FIELD_MANAGER = 'clusterset';

export interface DeploymentTemplate {
  readonly metadata?: { readonly resourceVersion?: string; readonly managedFields?: readonly unknown[] };
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
  /**
   * When clusterset last set them (the API server's time of the `clusterset` field manager's last
   * write of the Deployment), RFC 3339; undefined when no such write is recorded.
   */
  readonly restartedAt: string | undefined;
}

export class DeploymentMissing extends Error {
  override name = 'DeploymentMissing';
}

/** The time of `manager`'s last Update of an object, from its managedFields (the API server's clock). */
export function managerTime(
  obj: { readonly metadata?: { readonly managedFields?: readonly unknown[] } },
  manager: string,
): string | undefined {
  let last: string | undefined;
  for (const f of (obj.metadata?.managedFields ?? []) as {
    manager?: string;
    operation?: string;
    time?: string;
  }[])
    if (f.manager === manager && f.operation === 'Update' && f.time && (!last || f.time > last))
      last = f.time;
  return last;
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
    if (Object.keys(changed).length === 0)
      return { changed, restartedAt: managerTime(d, RESTART_FIELD_MANAGER) };
    const patch = {
      metadata: { resourceVersion: d.metadata?.resourceVersion },
      spec: { template: { metadata: { annotations: changed } } },
    };
    try {
      const after = await client.request<DeploymentTemplate>(
        'PATCH',
        `${path}?fieldManager=${RESTART_FIELD_MANAGER}`,
        patch,
        { patch: 'merge' },
      );
      return { changed, restartedAt: managerTime(after, RESTART_FIELD_MANAGER) };
    } catch (e) {
      if (!isApiError(e, 409) || attempt >= 5) throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// After the restart: every ServiceExport reconciled once the controller is connected

export type RestartState = 'waiting' | 'failed' | 'done';

/** The record's text: `<job> <state>: <what>` (`<job> done` alone when done). */
export function restartRecord(job: string, state: RestartState, what = ''): string {
  return what ? `${job} ${state}: ${what}` : `${job} ${state}`;
}

export interface ClusterSetView {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: { readonly leaders?: readonly { readonly clusterID?: string }[] };
  readonly status?: {
    readonly clusterStatuses?: readonly {
      readonly clusterID?: string;
      readonly conditions?: readonly { type?: string; status?: string; lastTransitionTime?: string }[];
    }[];
  };
}

/**
 * Whether the member controller that started after `since` (RFC 3339) reports its leader connected:
 * the leader's `Ready` condition True with a lastTransitionTime not before `since` (to the second, as
 * the member writes it). A controller connected before the restart does not count: its status is
 * kept until the new one writes its own.
 */
export function connectedSince(cs: ClusterSetView, since: string): boolean {
  const leader = cs.spec?.leaders?.[0]?.clusterID;
  const floor = Math.floor(Date.parse(since) / 1000) * 1000;
  for (const st of cs.status?.clusterStatuses ?? []) {
    if (leader !== undefined && st.clusterID !== leader) continue;
    const ready = st.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True' && Date.parse(ready.lastTransitionTime ?? '') >= floor) return true;
  }
  return false;
}

export interface ServiceExportView {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/** The ServiceExports not yet annotated with `since` (pure). */
export function exportsToTouch(exports: readonly ServiceExportView[], since: string): ServiceExportView[] {
  return exports.filter((e) => e.metadata.annotations?.[EXPORTED_AFTER_ANNOTATION] !== since);
}

export interface ReexportOptions {
  readonly namespace: string;
  /** The member's ClusterSet. */
  readonly clusterSet: string;
  /** When the restart was made (RestartResult.restartedAt). */
  readonly since: string;
  /** The namespaces whose ServiceExports it annotates (where the member exports Services). */
  readonly exportNamespaces: readonly string[];
  /** The Job this runs in, for the record. */
  readonly job: string;
  /** Between reads of the ClusterSet's status. @default 5000 */
  readonly pollMs?: number;
  readonly log?: (line: string) => void;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Waits for the controller to be connected since `since`, then sets `since` on every ServiceExport
 * that does not hold it; records `waiting` and then `done` on the ClusterSet. Resolves with the
 * ServiceExports annotated (`<ns>/<name>`).
 */
export async function reexportAfterRestart(client: KubeClient, o: ReexportOptions): Promise<string[]> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const log = o.log ?? (() => undefined);
  const csPath = `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${encodeURIComponent(o.namespace)}/clustersets/${encodeURIComponent(o.clusterSet)}`;
  let recorded: string | undefined;
  const record = async (state: RestartState, what = '') => {
    const text = restartRecord(o.job, state, what);
    if (text === recorded) return;
    await recordRestart(client, csPath, o.job, state, what).then(
      () => (recorded = text),
      (e: Error) => log(`cannot record "${text}" on ClusterSet ${o.namespace}/${o.clusterSet}: ${e.message}`),
    );
  };
  let announced = false;
  for (;;) {
    if (o.exportNamespaces.length === 0) break; // nothing exported: nothing to withdraw
    let cs: ClusterSetView | undefined;
    try {
      cs = await client.request<ClusterSetView>('GET', csPath);
    } catch (e) {
      if (!isApiError(e, 404)) throw e;
    }
    if (cs && connectedSince(cs, o.since)) break;
    if (!announced) {
      log(
        cs
          ? `waiting for Antrea's member controller, restarted at ${o.since}, to report its leader connected`
          : `waiting for ClusterSet ${o.namespace}/${o.clusterSet}`,
      );
      announced = true;
    }
    await record(
      'waiting',
      cs
        ? `Antrea's member controller restarted at ${o.since}; waiting for it to connect to the leader (its ClusterSet's leader Ready since then), to re-export every ServiceExport`
        : `ClusterSet ${o.namespace}/${o.clusterSet} does not exist yet`,
    );
    await sleep(o.pollMs ?? 5000);
  }
  const exports: ServiceExportView[] = [];
  for (const ns of o.exportNamespaces) {
    const list = await client.request<{ items?: ServiceExportView[] }>(
      'GET',
      `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${encodeURIComponent(ns)}/serviceexports`,
    );
    exports.push(...(list.items ?? []));
  }
  const touched: string[] = [];
  for (const e of exportsToTouch(exports, o.since)) {
    const { namespace, name } = e.metadata;
    try {
      await client.request(
        'PATCH',
        `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${encodeURIComponent(namespace)}/serviceexports/${encodeURIComponent(name)}?fieldManager=${RESTART_FIELD_MANAGER}`,
        { metadata: { annotations: { [EXPORTED_AFTER_ANNOTATION]: o.since } } },
        { patch: 'merge' },
      );
      touched.push(`${namespace}/${name}`);
    } catch (err) {
      if (!isApiError(err, 404)) throw err; // deleted meanwhile: its deletion is a reconcile too
    }
  }
  log(
    `every ServiceExport reconciled by the controller started after ${o.since}: ${touched.length} annotated`,
  );
  // The final record must land: Antrea's webhook on ClusterSets is back once its controller runs.
  for (let attempt = 0; recorded !== restartRecord(o.job, 'done') && attempt < 24; attempt++) {
    await record('done');
    if (recorded !== restartRecord(o.job, 'done')) await sleep(5000);
  }
  return touched;
}

/**
 * Sets the record on the member ClusterSet: `clusterset/restart` (the text) and
 * `clusterset/restart-state` (its `<Job> <state>` alone), a merge patch of those annotations alone.
 */
export async function recordRestart(
  client: KubeClient,
  csPath: string,
  job: string,
  state: RestartState,
  what = '',
): Promise<void> {
  const annotations = {
    [RESTART_RECORD_ANNOTATION]: restartRecord(job, state, what),
    [RESTART_STATE_ANNOTATION]: `${job} ${state}`,
  };
  await client.request(
    'PATCH',
    `${csPath}?fieldManager=${RESTART_FIELD_MANAGER}`,
    { metadata: { annotations } },
    { patch: 'merge' },
  );
}
