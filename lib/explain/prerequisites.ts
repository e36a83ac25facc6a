/**
 * What Antrea itself must have enabled in a cluster for the model's features, which exported
 * Services' Namespaces a member needs and who provides them, and what the delivery tools need, as
 * `explain` prints it beside the member controller settings, and as the PR comment's After merge
 * block lists it for a new member or a new delivery tool (diff/after-merge/joining.ts and
 * delivery.ts): one source for both. Pure: a function of the plan.
 *
 * The switches (antrea-mc.md §d "Switches required", §e; Antrea's antrea-agent.conf and
 * antrea-controller.conf, in ConfigMap `kube-system/antrea-config`):
 * - a member with gateway nodes (it exchanges Services across networks): antrea-agent
 *   `featureGates.Multicluster: true` (the agent ignores its `multicluster` options without it) and
 *   `multicluster.enableGateway: true`;
 * - a member with stretched NetworkPolicy: antrea-controller `featureGates.Multicluster: true` and
 *   `multicluster.enableStretchedNetworkPolicy: true` (egress `toServices` and ingress), the member
 *   controller ConfigMap's `enableStretchedNetworkPolicy: true`; where it enforces an ingress rule
 *   with ClusterSet-scope peers, also antrea-agent `multicluster.enableGateway: true` and
 *   `multicluster.enableStretchedNetworkPolicy: true`, in `encap` traffic mode;
 * - whenever the agent's Multi-cluster options are in use and the member controller does not run in
 *   kube-system: antrea-agent `multicluster.namespace: <member namespace>` ("" means the agent's own).
 * The leader runs no Antrea Multi-cluster controller: the clusterset reconciler takes the leader
 * controller's place (LabelIdentity imports included, so nothing is enabled there for stretched
 * policies), and Antrea's leader controller must not also run there.
 *
 * Delivery from an ssh origin (`ssh://`, or scp-like `git@host:path`): Argo CD clones with repository
 * credentials it must be given (`argocd repo add … --ssh-private-key-path`, or a Secret labelled
 * `argocd.argoproj.io/secret-type: repository`); Flux with the Secret `gitSecretName` names.
 */
import { serviceNamespacesIn, type Plan, type PlannedCluster } from '../plan';
import { MEMBER_CONTROLLER_CONFIG } from '../names';
import { MEMBER_CONFIG_KEY } from '../antrea-member-config';
import { policiesIn } from './policies';
import { isSshOrigin } from '../git-url';

/** Where a setting lives. */
export type SettingFile = 'antrea-agent.conf' | 'antrea-controller.conf' | typeof MEMBER_CONFIG_KEY;

/** One setting Antrea must have in a cluster, and why the model needs it. */
export interface AntreaSetting {
  readonly file: SettingFile;
  /** `kube-system/antrea-config` for the agent's and controller's files; the member controller's ConfigMap otherwise. */
  readonly configMap: string;
  /** Dotted path in the file, e.g. `featureGates.Multicluster`. */
  readonly setting: string;
  /** The value, as YAML would spell it. */
  readonly value: string;
  readonly because: string;
}

/**
 * The exported Services' Namespaces a member needs (the ClusterSet's own and built-in ones left out),
 * and who renders them: the member's bundle with `takeOver.serviceNamespaces`, else the application
 * teams, and then they must exist first.
 */
export interface ServiceNamespacesEntry {
  readonly renderedBy: 'clusterset' | 'application-teams';
  /** Where the member's ServiceExports live: its bundle does not apply until they exist. Sorted. */
  readonly forExports: readonly string[];
  /** Where it only imports: Antrea creates `antrea-mc-<name>` there once the Namespace exists. Sorted. */
  readonly forImports: readonly string[];
}

/** What the delivery tools need that the bundles cannot carry. */
export interface DeliveryPrerequisite {
  readonly tool: 'argocd' | 'flux';
  readonly need: string;
  /** How to provide it. */
  readonly how: readonly string[];
}

/** Antrea's agent and controller read their files from this ConfigMap (Antrea's manifest and chart). */
export const ANTREA_CONFIG = 'kube-system/antrea-config';

/** Whether a policy in force in `c` has an ingress rule with a ClusterSet-scope peer. */
function enforcesStretchedIngress(plan: Plan, c: PlannedCluster): boolean {
  return policiesIn(plan, c.id).some((p) =>
    (p.policy.ingress ?? []).some((r) => (r.from ?? []).some((peer) => peer.scope === 'ClusterSet')),
  );
}

/** The Antrea settings cluster `c` needs, agent first, then controller, then the member controller. */
export function antreaSettings(plan: Plan, c: PlannedCluster): AntreaSetting[] {
  if (!c.isMember) return [];
  const mcConfig = `${plan.memberNamespace}/${MEMBER_CONTROLLER_CONFIG}`;
  const agent: AntreaSetting[] = [];
  const controller: AntreaSetting[] = [];
  const member: AntreaSetting[] = [];
  const on = (file: SettingFile, setting: string, because: string, value = 'true'): AntreaSetting => ({
    file,
    configMap: file === MEMBER_CONFIG_KEY ? mcConfig : ANTREA_CONFIG,
    setting,
    value,
    because,
  });
  const gateway = (c.gateway?.nodes.length ?? 0) > 0;
  const ingress = c.enableStretchedNetworkPolicy && enforcesStretchedIngress(plan, c);
  if (gateway || ingress) {
    agent.push(
      on(
        'antrea-agent.conf',
        'featureGates.Multicluster',
        'the agent ignores its multicluster options without it',
      ),
    );
    if (plan.memberNamespace !== 'kube-system')
      agent.push(
        on(
          'antrea-agent.conf',
          'multicluster.namespace',
          'the member controller runs there ("" means the agent\'s own namespace, kube-system)',
          plan.memberNamespace,
        ),
      );
    const why = [
      ...(gateway
        ? [
            `it has gateway nodes (${c.gateway!.nodes.map((n) => n.name).join(', ')}) for Services exchanged across networks`,
          ]
        : []),
      ...(ingress ? ['ingress rules with ClusterSet-scope peers need the gateways'] : []),
    ];
    agent.push(on('antrea-agent.conf', 'multicluster.enableGateway', why.join('; ')));
  }
  if (ingress) {
    agent.push(
      on(
        'antrea-agent.conf',
        'multicluster.enableStretchedNetworkPolicy',
        'it enforces ingress rules with ClusterSet-scope peers (matched by label identity)',
      ),
      on('antrea-agent.conf', 'trafficEncapMode', 'stretched ingress rules work in encap mode only', 'encap'),
    );
  }
  if (c.enableStretchedNetworkPolicy) {
    const because = 'the model enables stretched NetworkPolicy here (ClusterSet-scope peers, toServices)';
    controller.push(
      on(
        'antrea-controller.conf',
        'featureGates.Multicluster',
        'the controller ignores its multicluster options without it',
      ),
      on(
        'antrea-controller.conf',
        'multicluster.enableStretchedNetworkPolicy',
        `${because}: the controller skips those rules otherwise`,
      ),
    );
    member.push(
      on(
        MEMBER_CONFIG_KEY,
        'enableStretchedNetworkPolicy',
        `${because}: label identities are exchanged only then`,
      ),
    );
  }
  return [...agent, ...controller, ...member];
}

/** The Namespaces member `c` needs for the exported Services, and who renders them; null for a non-member. */
export function serviceNamespaces(plan: Plan, c: PlannedCluster): ServiceNamespacesEntry | null {
  if (!c.isMember) return null;
  const needed = serviceNamespacesIn(plan, c);
  const exportedIn = new Set((plan.exportsByMember.get(c.id) ?? []).map((s) => s.namespace));
  return {
    renderedBy: plan.takeOver.serviceNamespaces ? 'clusterset' : 'application-teams',
    forExports: needed.filter((n) => exportedIn.has(n)),
    forImports: needed.filter((n) => !exportedIn.has(n)),
  };
}

/** What the delivery tools need for the model's repository. */
export function deliveryPrerequisites(plan: Plan): DeliveryPrerequisite[] {
  const d = plan.delivery;
  if (!d || !isSshOrigin(d.repoURL)) return [];
  const out: DeliveryPrerequisite[] = [];
  if (d.argocd)
    out.push({
      tool: 'argocd',
      need: `Argo CD (namespace ${d.argocd.namespace}, cluster ${d.managementCluster}) clones ${d.repoURL} over ssh: it needs repository credentials for it`,
      how: [
        `argocd repo add ${d.repoURL} --ssh-private-key-path <key file>`,
        `or a Secret in ${d.argocd.namespace} labelled argocd.argoproj.io/secret-type: repository, with type: git, url: ${d.repoURL} and sshPrivateKey`,
      ],
    });
  if (d.flux)
    out.push({
      tool: 'flux',
      need: `Flux (namespace ${d.flux.namespace}) clones ${d.repoURL} over ssh: ${d.flux.gitSecretName ? `Secret ${d.flux.namespace}/${d.flux.gitSecretName} (gitSecretName) must exist` : 'it needs a Secret named by delivery.flux.gitSecretName'}`,
      how: [
        `flux create secret git <name> --namespace ${d.flux.namespace} --url ${d.repoURL} --private-key-file <key file>`,
        'keys: identity, known_hosts',
      ],
    });
  return out;
}
