/**
 * The leader's reconciler: its identity, least-privilege Role, and compiled config (the declared
 * exports and clusters) as a ConfigMap it reads at start. It writes only dynamic ResourceImports
 * (endpoints, cluster info, label identities); the compiled-imports admission policy keeps it off
 * the compiled ones.
 */
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import type { Plan } from '../plan';
import { constructId, meta } from './util';

export const RECONCILER_NAME = 'clusterset-reconciler';
/**
 * The field manager the reconciler writes with. Argo CD's Applications ignore the fields it owns in
 * ResourceImports (`managedFieldsManagers`), so its writes never show as drift: it must use this
 * name.
 */
export const RECONCILER_FIELD_MANAGER = RECONCILER_NAME;
export const RECONCILER_CONFIG_NAME = 'clusterset-reconciler-config';
export const RECONCILER_CONFIG_KEY = 'config.json';
const MC = 'multicluster.crd.antrea.io';

/** What the reconciler needs to know of the model, in canonical order. */
export function reconcilerConfig(plan: Plan): Record<string, unknown> {
  return {
    clusterSetId: plan.clusterSetId,
    leaderNamespace: plan.leaderNamespace,
    leader: plan.leader.id,
    members: plan.members.map((m) => ({
      id: m.id,
      network: m.network ?? null,
      endpointIPType: m.endpointIPType,
    })),
    services: plan.services.map((s) => ({
      namespace: s.namespace,
      name: s.name,
      ports: s.ports.map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol })),
      exportedFrom: s.exportedFrom,
    })),
  };
}

export function renderReconciler(scope: Construct, plan: Plan): void {
  const ns = plan.leaderNamespace;
  new k8s.KubeServiceAccount(scope, constructId('ServiceAccount', ns, RECONCILER_NAME), {
    metadata: meta(RECONCILER_NAME, ns),
  });
  new k8s.KubeRole(scope, constructId('Role', ns, RECONCILER_NAME), {
    metadata: meta(RECONCILER_NAME, ns),
    rules: [
      {
        apiGroups: [MC],
        resources: ['resourceexports', 'memberclusterannounces'],
        verbs: ['get', 'list', 'watch', 'patch', 'update'],
      },
      {
        apiGroups: [MC],
        resources: [
          'resourceexports/status',
          'resourceexports/finalizers',
          'memberclusterannounces/finalizers',
        ],
        verbs: ['update', 'patch'],
      },
      {
        apiGroups: [MC],
        resources: ['resourceimports'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      { apiGroups: [MC], resources: ['clustersets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [MC], resources: ['clustersets/status'], verbs: ['update', 'patch'] },
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: [RECONCILER_CONFIG_NAME],
        verbs: ['get', 'watch'],
      },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ],
  });
  new k8s.KubeRoleBinding(scope, constructId('RoleBinding', ns, RECONCILER_NAME), {
    metadata: meta(RECONCILER_NAME, ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECONCILER_NAME },
    subjects: [{ kind: 'ServiceAccount', name: RECONCILER_NAME, namespace: ns }],
  });
  new k8s.KubeConfigMap(scope, constructId('ConfigMap', ns, RECONCILER_CONFIG_NAME), {
    metadata: meta(RECONCILER_CONFIG_NAME, ns),
    data: { [RECONCILER_CONFIG_KEY]: JSON.stringify(reconcilerConfig(plan), null, 2) + '\n' },
  });
}
