/**
 * The read-only identity `clusterset status` needs in every cluster: get, list and watch on each
 * kind it reads (resources.ts), Secrets excepted (reading the leader namespace's Secrets would
 * mean reading every member's token). One ClusterRole, bound cluster-wide to a ServiceAccount,
 * because the kinds are cluster-scoped or live in namespaces the model chooses.
 */
import { dumpYaml } from '../yaml';
import { RESOURCES } from './resources';

export const STATUS_IDENTITY = 'clusterset-status';

/** The rules: one per API group, resources sorted, get/list/watch only. */
export function statusRules(): Rule[] {
  const byGroup = new Map<string, Set<string>>();
  for (const r of RESOURCES) {
    if (r.kind === 'Secret') continue;
    const group = r.apiVersion.includes('/') ? r.apiVersion.split('/')[0]! : '';
    if (!byGroup.has(group)) byGroup.set(group, new Set());
    byGroup.get(group)!.add(r.plural);
  }
  return [...byGroup]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([g, rs]) => ({ apiGroups: [g], resources: [...rs].sort(), verbs: ['get', 'list', 'watch'] }));
}

/** An RBAC rule as a ClusterRole holds it. */
export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/**
 * A read-only identity of clusterset's (`status`, `import`): a ServiceAccount `name` in `namespace`,
 * a ClusterRole `name` with `rules`, and the ClusterRoleBinding between them.
 */
export function readOnlyIdentity(name: string, namespace: string, rules: Rule[]): Record<string, unknown>[] {
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': 'clusterset' };
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  ];
}

/** ServiceAccount, ClusterRole and ClusterRoleBinding for a status identity in `namespace`. */
export function statusRbac(namespace: string): Record<string, unknown>[] {
  return readOnlyIdentity(STATUS_IDENTITY, namespace, statusRules());
}

export function statusRbacYaml(namespace: string): string {
  return statusRbac(namespace)
    .map((o) => dumpYaml(o))
    .join('---\n');
}
