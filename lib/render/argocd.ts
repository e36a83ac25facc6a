/**
 * Argo CD delivery: a root Application (app-of-apps) and one Application per cluster bundle.
 *
 * The root Application, applied once by hand, syncs `<path>/argocd/apps`, where the per-cluster
 * Applications live; so a cluster added to the model gets its Application from git. Each
 * per-cluster Application syncs `<path>/clusters/<id>` into its cluster with server-side apply (as
 * test/parties/argocd-apply.ts does in the e2e tests), automated sync, and `ignoreDifferences` for
 * what is written at run time and must not show as drift: token Secret data, statuses, and fields
 * of ResourceImports that the reconciler owns.
 *
 * Order: the root Application puts the leader's Application in sync wave 0 and the members' in
 * wave 1, so a member's ClusterSet is applied only after the leader has the member's identity,
 * Role and admission policies. Argo CD (since 1.8) waits for a wave's Applications to be Healthy only
 * when Application health is assessed (a `resource.customizations.health.argoproj.io_Application`
 * entry in argocd-cm); without it waves only order creation, which is harmless here: a member that
 * connects too early retries.
 *
 * Removal, as Flux's garbage collection does it: with `prune` on, each per-cluster Application
 * carries `resources-finalizer.argocd.argoproj.io/background`, so when it is deleted (the root
 * prunes it when its cluster leaves the model) Argo CD first deletes, with background propagation
 * as Flux does, every object it applied in that cluster except CRDs (Argo CD never deletes those
 * on a cascade) and objects whose sync-options say `Delete=false` (Antrea's member controller
 * Deployment, and its ConfigMap and the Namespaces of exported Services where the model takes them
 * over; CRDs carry it too, for Flux's sake). The leader's Application as well: it leaves only when the leader moves, and Flux collects
 * its Kustomization's objects then too. With `prune` off, no Application carries it and nothing is
 * deleted in a cluster, as with Flux's `prune: false`. The root Application never carries it:
 * deleting the root must not cascade into every cluster's Application (Argo CD's own app-of-apps
 * advice); `argocd app delete` adds the finalizer unless given `--cascade=false`, `kubectl delete`
 * does not. (Proven on real API servers by test/e2e/removal.test.ts.)
 */
import { Application, type ApplicationSpecIgnoreDifferences } from '../../generated/application';
import {
  EXPORTED_AFTER_ANNOTATION,
  RECONCILER_FIELD_MANAGER,
  RESTART_RECORD_ANNOTATION,
  RESTART_STATE_ANNOTATION,
  deliveryObjectName,
} from '../names';
import {
  identityOf,
  memberBundle,
  type Plan,
  type PlannedArgoCd,
  type PlannedCluster,
  type PlannedDelivery,
} from '../plan';
import { SYNC_WAVE, meta, put, type Sink } from './util';

/** How Argo CD names the cluster it runs in. */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

/** Sync wave of the leader's Application in the root Application. */
export const WAVE_LEADER_APP = '0';
/** Sync wave of the members' Applications: after the leader's. */
export const WAVE_MEMBER_APPS = '1';

/** The finalizer that makes Argo CD delete an Application's objects first, with background propagation. */
export const CASCADE_FINALIZER = 'resources-finalizer.argocd.argoproj.io/background';

/** Folder, relative to `<path>`, of the per-cluster Applications (the root's source). */
export const ARGOCD_APPS_FOLDER = 'argocd/apps';

/**
 * Sync options of every per-cluster Application. Server-side apply: objects are merged field by
 * field with what controllers write (token data, statuses), and CRDs too large for the
 * last-applied annotation apply.
 *
 * No PruneLast: Argo CD waits for every object of a wave to be Healthy before the next wave, and
 * PruneLast makes pruning one more wave after the last, so that nothing the model dropped went while
 * anything of the bundle was not Healthy: a ServiceExport withdrawn from the model stayed exported
 * for as long as the member's restart Job could not run (its image not pushed yet), another
 * ServiceExport was invalid, or a new member waited for its token (issue 39). Without it, Argo CD
 * prunes an object in its own wave, the waves of what is pruned taken in reverse (a policy before
 * its Tier), and the last wave, where the Job is, is not waited on: the sync is done once it is
 * applied.
 */
export function clusterSyncOptions(): string[] {
  return ['ServerSideApply=true'];
}

/** `<path>/<rel>` in the repository, as both tools expect it (no `./`, `.` for the root). */
export function repoPath(d: PlannedDelivery, rel: string): string {
  return d.path === '.' ? rel : `${d.path}/${rel}`;
}

/** Where Argo CD reaches cluster `c`: in-cluster for the management cluster, else as `destinationBy` says. */
export function argoCdDestination(
  d: PlannedDelivery,
  a: PlannedArgoCd,
  c: PlannedCluster,
): { server: string } | { name: string } {
  if (c.id === d.managementCluster) return { server: IN_CLUSTER_SERVER };
  return a.destinationBy === 'name' ? { name: c.id } : { server: c.apiServer };
}

/** A key as one JSON Pointer token (RFC 6901: `~` and `/` escaped). */
function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** What is written at run time in a cluster and must neither show as drift nor be reverted. */
export function ignoreDifferences(plan: Plan, c: PlannedCluster): ApplicationSpecIgnoreDifferences[] {
  const mc = 'multicluster.crd.antrea.io';
  const out: ApplicationSpecIgnoreDifferences[] = [
    // The reconciler (leader) and Antrea's member controller (members) report ClusterSet status.
    { group: mc, kind: 'ClusterSet', jsonPointers: ['/status'] },
  ];
  if (c.isLeader) {
    // The reconciler writes import status (and the dynamic imports, which are not in git).
    // (Flux needs nothing alike: its server-side apply owns only the fields a manifest sets, and
    // its drift detection compares only those, so fields written by the reconciler never count.)
    out.push({
      group: mc,
      kind: 'ResourceImport',
      jsonPointers: ['/status'],
      managedFieldsManagers: [RECONCILER_FIELD_MANAGER],
    });
    // The token controller fills each member's token Secret and stamps the ServiceAccount's UID.
    for (const m of plan.members) {
      out.push({
        kind: 'Secret',
        namespace: plan.leaderNamespace,
        name: identityOf(m).tokenSecret,
        jsonPointers: ['/data', '/metadata/annotations/kubernetes.io~1service-account.uid'],
      });
    }
  }
  if (memberBundle(plan, c)) {
    // Antrea's member controller reports whether each export was accepted; the restart Job sets an
    // annotation on each after a restart, and records its progress on the member's ClusterSet
    // (member-restart.ts).
    out.push({
      group: 'multicluster.x-k8s.io',
      kind: 'ServiceExport',
      jsonPointers: ['/status', `/metadata/annotations/${pointerToken(EXPORTED_AFTER_ANNOTATION)}`],
    });
    out.push({
      group: mc,
      kind: 'ClusterSet',
      namespace: plan.memberNamespace,
      jsonPointers: [RESTART_RECORD_ANNOTATION, RESTART_STATE_ANNOTATION].map(
        (a) => `/metadata/annotations/${pointerToken(a)}`,
      ),
    });
  }
  return out;
}

/**
 * Retry policy of every per-cluster Application. Argo CD's automated sync never re-attempts a sync
 * that failed against the same commit unless the Application has one (auto_sync.md, "Automated Sync
 * Semantics"), and a first sync can fail for reasons that pass by themselves: a ServiceExport whose
 * Namespace the application team has not created yet, a member applied before its leader.
 * `limit: -1` retries without end ("unlimited number of attempts if less than 0", Argo CD's
 * application.yaml), 5 s doubling up to every 3 minutes.
 */
export const SYNC_RETRY = { limit: -1, backoff: { duration: '5s', factor: 2, maxDuration: '3m' } } as const;

function automated(a: PlannedArgoCd): { prune: boolean; selfHeal: boolean } {
  return { prune: a.prune, selfHeal: a.selfHeal };
}

/** The per-cluster Application of `c`, in the apps folder. */
export function renderClusterApplication(
  scope: Sink,
  plan: Plan,
  d: PlannedDelivery,
  a: PlannedArgoCd,
  c: PlannedCluster,
): void {
  const name = deliveryObjectName(plan.clusterSetId, c.id);
  put(scope, Application, {
    metadata: {
      ...meta(name, a.namespace, {
        annotations: { [SYNC_WAVE]: c.isLeader ? WAVE_LEADER_APP : WAVE_MEMBER_APPS },
      }),
      ...(a.prune ? { finalizers: [CASCADE_FINALIZER] } : {}),
    },
    spec: {
      project: a.project,
      source: { repoUrl: d.repoURL, targetRevision: d.branch, path: repoPath(d, `clusters/${c.id}`) },
      destination: argoCdDestination(d, a, c),
      syncPolicy: {
        automated: automated(a),
        syncOptions: clusterSyncOptions(),
        retry: { ...SYNC_RETRY, backoff: { ...SYNC_RETRY.backoff } },
      },
      ignoreDifferences: ignoreDifferences(plan, c),
    },
  });
}

/** The root Application: syncs the per-cluster Applications into Argo CD's own namespace. */
export function renderRootApplication(scope: Sink, plan: Plan, d: PlannedDelivery, a: PlannedArgoCd): void {
  const name = plan.clusterSetId;
  put(scope, Application, {
    metadata: meta(name, a.namespace),
    spec: {
      project: a.project,
      source: { repoUrl: d.repoURL, targetRevision: d.branch, path: repoPath(d, ARGOCD_APPS_FOLDER) },
      destination: { server: IN_CLUSTER_SERVER, namespace: a.namespace },
      syncPolicy: { automated: automated(a) },
    },
  });
}
