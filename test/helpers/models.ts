/**
 * Small typed model builders shared by the render, golden and determinism tests, plus the one-line
 * way to render a single module into a fresh chart and read back its objects as JSON.
 *
 * Every builder returns a fresh, fully mutable model, so a test can change one thing in place.
 */
import { Sink } from '../../lib/render/util';
import type {
  ClusterProps,
  ClusterSetProps,
  ExportedServiceProps,
  StretchedPolicyProps,
  BaselinePolicyProps,
} from '../../lib/model';
import { plan, type Plan } from '../../lib/plan';
import type { K8sObject } from '../../lib/render';
import type { InitOptions } from '../../lib/init';

/** A mutable copy of a readonly model type. */
export type Draft<T> = T extends readonly (infer U)[]
  ? Draft<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Draft<T[K]> }
    : T;

export type ModelDraft = Draft<ClusterSetProps>;

/** One cluster with a Service CIDR derived from `n`, so that clusters never overlap. */
export function cluster(
  id: string,
  n: number,
  extra: Partial<Draft<ClusterProps>> = {},
): Draft<ClusterProps> {
  return {
    id,
    apiServer: `https://${id}.example.com:6443`,
    serviceCIDR: `10.${100 + n}.0.0/16`,
    ...extra,
  };
}

/** A Service with named ports. */
export function service(
  namespace: string,
  name: string,
  exportedFrom: string[],
  ports: Draft<ExportedServiceProps>['ports'] = [{ name: 'http', port: 80 }],
): Draft<ExportedServiceProps> {
  return { namespace, name, ports, exportedFrom };
}

/**
 * GIVEN the smallest useful ClusterSet: leader `hub` (not a member), members `east` and `west` on
 * one flat (undeclared) network, and `shop/cart` exported from both.
 */
export function minimalModel(): ModelDraft {
  return {
    clusterSetId: 'test-set',
    leader: 'hub',
    members: ['east', 'west'],
    clusters: [cluster('hub', 0), cluster('east', 1), cluster('west', 2)],
    services: [service('shop', 'cart', ['east', 'west'], [{ name: 'http', port: 8080, protocol: 'TCP' }])],
  };
}

/** GIVEN `minimalModel` with `east` on network `dc1` and `west` on `dc2`, both behind gateways. */
export function twoNetworkModel(): ModelDraft {
  const m = minimalModel();
  m.clusters = [
    cluster('hub', 0, { network: 'dc1' }),
    cluster('east', 1, { network: 'dc1', gateway: { nodes: [{ name: 'east-gw-0' }] } }),
    cluster('west', 2, {
      network: 'dc2',
      gateway: { nodes: [{ name: 'west-gw-0', ip: '192.0.2.10' }], ipPrecedence: 'public' },
    }),
  ];
  return m;
}

/** A baseline policy with ingress and egress rules carrying port numbers (pins the dropped-port bug). */
export function baselinePolicy(): Draft<BaselinePolicyProps> {
  return {
    name: 'guard-rails',
    tier: 'mc-baseline',
    priority: 10,
    appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
    ingress: [
      {
        name: 'allow-shop',
        action: 'Allow',
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }],
        ports: [{ port: 8443 }, { protocol: 'TCP', port: 9000, endPort: 9100 }],
      },
      { name: 'drop-rest', action: 'Drop', from: [{ namespaceSelector: {} }] },
    ],
    egress: [
      {
        name: 'dns',
        action: 'Allow',
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
    ],
  };
}

/** A stretched policy: ClusterSet-scope ingress peers and `toServices` egress. */
export function stretchedPolicy(members?: string[]): Draft<StretchedPolicyProps> {
  return {
    name: 'cart-stretched',
    tier: 'mc-stretched',
    priority: 20,
    ...(members ? { members } : {}),
    appliedTo: [{ podSelector: { matchLabels: { app: 'cart' } } }],
    ingress: [
      {
        name: 'from-web',
        action: 'Allow',
        from: [{ scope: 'ClusterSet', podSelector: { matchLabels: { app: 'web' } } }],
        ports: [{ port: 8080 }],
      },
    ],
    egress: [{ name: 'to-cart', action: 'Allow', toServices: [{ namespace: 'shop', name: 'cart' }] }],
  };
}

/**
 * GIVEN `minimalModel` plus custom Tiers, one baseline policy, and one stretched policy that
 * targets only `east` (stretched NP enabled there; `west` has it off and is not targeted).
 */
export function policiesModel(): ModelDraft {
  const m = minimalModel();
  m.clusters[1] = cluster('east', 1, { enableStretchedNetworkPolicy: true });
  m.tiers = [
    { name: 'mc-stretched', priority: 100 },
    { name: 'mc-baseline', priority: 101, description: 'ClusterSet-wide guard rails' },
  ];
  m.baselinePolicies = [baselinePolicy()];
  m.stretchedPolicies = [stretchedPolicy(['east'])];
  return m;
}

/** GIVEN `minimalModel` in which the leader `hub` is also a member. */
export function dualRoleModel(): ModelDraft {
  const m = minimalModel();
  m.members = ['hub', 'east', 'west'];
  return m;
}

/** The plan of a model (models here are valid; the checks are tested elsewhere). */
export function planOf(model: ModelDraft): Plan {
  return plan(model as ClusterSetProps);
}

/** WHEN one render function runs into a fresh sink: the objects it added, as JSON. */
export function renderInto(f: (sink: Sink) => void): K8sObject[] {
  const sink = new Sink();
  f(sink);
  return sink.objects;
}

/** The single object of `kind` (and `name`, if given); fails when there is not exactly one. */
export function only(objects: readonly K8sObject[], kind: string, name?: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) {
    throw new Error(
      `expected exactly one ${kind}${name ? ` ${name}` : ''}, found ${found.length} among ` +
        objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', '),
    );
  }
  return found[0]!;
}

/** Member cluster of a plan by ID. */
export function memberOf(p: Plan, id: string) {
  const c = p.clusters.find((x) => x.id === id);
  if (!c) throw new Error(`no cluster ${id}`);
  return c;
}

/** What `clusterset init` is given for a team's repository `fleet` whose clusterset is a vendored tarball. */
export const FLEET_SCAFFOLD: InitOptions = {
  packageName: 'fleet',
  clusterSetId: 'fleet',
  repoURL: 'ssh://git@github.com/acme/fleet.git',
  branch: 'main',
  clustersetSpec: 'file:vendor/clusterset-0.1.0.tgz',
};
