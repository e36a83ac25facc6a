/**
 * Antrea's member controller settings as ConfigMap `antrea-mc-controller-config` (key
 * `controller_manager_config.yaml`; the text is lib/antrea-member-config.ts), rendered into a member
 * bundle only with `takeOver.memberControllerConfig`: Antrea's install ships this ConfigMap too, and
 * two owners of one object fight. Taken over, it replaces the install's copy and is never pruned.
 */
import { k8s } from 'cdk8s-plus-33';
import { MEMBER_CONFIG_KEY, memberConfigText } from '../antrea-member-config';
import { MEMBER_CONTROLLER_CONFIG } from '../names';
import type { Plan, PlannedCluster } from '../plan';
import { NEVER_PRUNE } from './namespaces';
import { meta, put, type Sink } from './util';

export function renderMemberConfig(scope: Sink, plan: Plan, cluster: PlannedCluster): void {
  put(scope, k8s.KubeConfigMap, {
    // Antrea's install ships this ConfigMap too: never deleted, whatever happens to the bundle.
    metadata: meta(MEMBER_CONTROLLER_CONFIG, plan.memberNamespace, { annotations: { ...NEVER_PRUNE } }),
    data: { [MEMBER_CONFIG_KEY]: memberConfigText(cluster) },
  });
}
