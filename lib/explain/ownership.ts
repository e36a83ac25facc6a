/**
 * What in a cluster is clusterset's: every object a bundle renders carries
 * `app.kubernetes.io/managed-by: clusterset` and `app.kubernetes.io/part-of: <ClusterSet ID>`
 * (render/util.ts withOwnership), so one `kubectl get -l` lists them; some of them have another owner
 * too, as render/util.ts sharedWith says (Antrea's member install, application teams). Pure, over
 * the rendered objects of one cluster.
 */
import { cmp } from '../diagnostics';
import type { K8sObject } from '../render';
import { sharedWith } from '../render/util';
import { MANAGED_BY, MANAGED_BY_LABEL, PART_OF_LABEL } from '../names';

/** An object of the bundle that another owner shares. */
export interface SharedObject {
  /** `Kind namespace/name`, or `Kind name` for cluster-scoped objects. */
  readonly object: string;
  /** Whether it carries the ownership labels (a partial object does not). */
  readonly labelled: boolean;
  /** Who else owns it. */
  readonly with: string;
}

/** Ownership of one cluster's bundle. */
export interface ClusterOwnership {
  /** Objects of the bundle that carry both ownership labels. */
  readonly labelled: number;
  /** `kubectl get` that lists exactly those, against the cluster (`<id>` stands for its context). */
  readonly command: string;
  /** Objects shared with another owner, by kind, namespace and name. */
  readonly shared: readonly SharedObject[];
}

/** The label selector of a ClusterSet's objects. */
export function ownershipSelector(clusterSetId: string): string {
  return `${MANAGED_BY_LABEL}=${MANAGED_BY},${PART_OF_LABEL}=${clusterSetId}`;
}

/** `deployment.apps`, `configmap`: a resource name `kubectl get` resolves, group-qualified. */
function resourceName(o: K8sObject): string {
  const i = o.apiVersion.lastIndexOf('/');
  const group = i < 0 ? '' : o.apiVersion.slice(0, i);
  return `${o.kind.toLowerCase()}${group === '' ? '' : `.${group}`}`;
}

function objectName(o: K8sObject): string {
  return `${o.kind} ${o.metadata.namespace !== undefined ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** What in `objects` (one cluster's bundle) is ours, and what is shared with whom. */
export function clusterOwnership(
  clusterSetId: string,
  cluster: string,
  objects: readonly K8sObject[],
): ClusterOwnership {
  const ours = (o: K8sObject): boolean =>
    o.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY && o.metadata.labels[PART_OF_LABEL] === clusterSetId;
  const labelled = objects.filter(ours);
  const kinds = [...new Set(labelled.map(resourceName))].sort(cmp);
  const shared: SharedObject[] = [];
  for (const o of objects) {
    const other = sharedWith(o);
    if (other !== undefined) shared.push({ object: objectName(o), labelled: ours(o), with: other });
  }
  return {
    labelled: labelled.length,
    command: `kubectl --context <${cluster}> get -A -l ${ownershipSelector(clusterSetId)} ${kinds.join(',')}`,
    shared: shared.sort((a, b) => cmp(a.object, b.object)),
  };
}
