/**
 * What a change asks of people once it is merged, read from the semantic diff: the manual steps
 * (re-applying the AppProject, registering a new member with Argo CD or giving Flux its kubeconfig,
 * its token or what External Secrets needs for it, annotating gateway Nodes where a member starts
 * exchanging Services across networks, what removing a member does under each tool), the breaking
 * changes that something outside out/ must follow (a Service's ports). What happens by itself (a
 * member controller restart) is in the impact summary instead. Pure.
 */
import type { GatewayNodeProps } from '../model';
import { memberImportName, memberTokenReaderName } from '../names';
import { joinAnd } from './describe';
import type { BundleDiff, DiffObject, ObjectChange, TreeDiff } from './tree';

export interface AfterMerge {
  /** Manual steps, in the order to take them. */
  readonly steps: readonly string[];
  /** Changes that something outside out/ must follow. */
  readonly breaking: readonly string[];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj.a.b.c`, or undefined. */
function at(obj: unknown, ...keys: string[]): unknown {
  let v: unknown = obj;
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `['http 8080/TCP', 'grpc 9090/TCP']`. */
function portList(v: unknown): string[] {
  const list = Array.isArray(v) ? v.filter(isObj) : [];
  return list.map(
    (p) => `${str(p.name) ? `${String(p.name)} ` : ''}${String(p.port)}/${str(p.protocol) ?? 'TCP'}`,
  );
}

/** The delivery objects of `kind` whose source is `clusters/<id>`, with the change they went through. */
function deliveryFor(
  diff: TreeDiff,
  kind: string,
  id: string,
  change: ObjectChange['change'],
): ObjectChange[] {
  const path = (o: ObjectChange): string | undefined =>
    kind === 'Application'
      ? str(at(o.after ?? o.before, 'spec', 'source', 'path'))
      : str(at(o.after ?? o.before, 'spec', 'path'));
  return diff.bundles
    .filter((b) => b.type === 'delivery')
    .flatMap((b) => b.objects)
    .filter(
      (o) =>
        o.kind === kind &&
        o.change === change &&
        (path(o) ?? '').replace(/\/+$/, '').endsWith(`clusters/${id}`),
    );
}

function clusterBundle(diff: TreeDiff, id: string | undefined): BundleDiff | undefined {
  return id === undefined ? undefined : diff.bundles.find((b) => b.cluster === id);
}

/** The object of `kind` (and `name`) that the change adds to `id`'s bundle. */
function added(diff: TreeDiff, id: string | undefined, kind: string, name?: string): DiffObject | undefined {
  return clusterBundle(diff, id)?.objects.find(
    (x) => x.change === 'added' && x.kind === kind && (name === undefined || x.name === name),
  )?.after;
}

const objName = (x: DiffObject): string =>
  `${x.metadata.namespace !== undefined ? `${x.metadata.namespace}/` : ''}${x.metadata.name}`;

/**
 * How a new member gets its leader token: `clusterset token`, or, when its bundle brings an
 * ExternalSecret, what External Secrets needs that no bundle can hold (the leader trusting the
 * store's identity, a bootstrap token Secret, a CA ConfigMap).
 */
function tokenSteps(diff: TreeDiff, id: string, leader: string | undefined): string[] {
  const es = added(diff, id, 'ExternalSecret');
  if (es === undefined)
    return [
      `copy ${id}'s token from the leader once the leader's bundle is applied: \`npx clusterset token ${id} --leader-context <${leader ?? 'leader'}> --member-context <${id}>\``,
    ];
  const store = added(diff, id, 'SecretStore', str(at(es, 'spec', 'secretStoreRef', 'name')));
  const k8s = at(store, 'spec', 'provider', 'kubernetes');
  const ns = es.metadata.namespace ?? '';
  const reader = added(diff, leader, 'RoleBinding', memberTokenReaderName(id));
  const subjects = at(reader, 'subjects');
  const user = Array.isArray(subjects) && isObj(subjects[0]) ? str(subjects[0].name) : undefined;
  const as = user !== undefined ? ` as \`${user}\`` : '';
  const steps: string[] = [];
  const sa = str(at(k8s, 'auth', 'serviceAccount', 'name'));
  const bearer = at(k8s, 'auth', 'token', 'bearerToken');
  const via = `${id}'s token comes by External Secrets (ExternalSecret ${objName(es)})`;
  if (sa !== undefined)
    steps.push(
      `${via}: the leader${leader ? ` (${leader})` : ''} must authenticate ${id}'s ServiceAccount ${ns}/${sa}${as} (a JWT authenticator in its AuthenticationConfiguration that trusts ${id}'s ServiceAccount issuer)`,
    );
  else if (isObj(bearer))
    steps.push(
      `${via}: create Secret ${ns}/${String(bearer.name)} in ${id}, key \`${String(bearer.key)}\`: a leader bearer token${user !== undefined ? ` for \`${user}\`` : ''}`,
    );
  else steps.push(`${via}: the leader must authenticate its SecretStore${as}`);
  const ca = at(k8s, 'server', 'caProvider');
  if (isObj(ca) && ca.type === 'ConfigMap')
    steps.push(
      `create ConfigMap ${ns}/${String(ca.name)} in ${id} with the leader's CA certificate under key \`${String(ca.key)}\``,
    );
  return steps;
}

/**
 * Where out/ sits in the repository (the model's `delivery.path`), read from a delivery object the
 * change touches: an Application's `spec.source.path` or a Kustomization's `spec.path` is
 * `<path>/clusters/<id>`, `<path>/argocd/apps` or `<path>/flux`. `out` when none says.
 */
function outPath(diff: TreeDiff): string {
  for (const b of diff.bundles) {
    if (b.type !== 'delivery') continue;
    for (const x of b.objects) {
      const obj = x.after ?? x.before;
      const p = str(at(obj, 'spec', 'source', 'path')) ?? str(at(obj, 'spec', 'path'));
      const m = p === undefined ? null : /^(?:\.\/)?(.+?)\/(?:clusters\/[^/]+|argocd\/apps|flux)\/?$/.exec(p);
      if (m) return m[1]!;
    }
  }
  return 'out';
}

/** A member that starts exchanging Services across networks, and where its peers are. */
export interface GatewayChange {
  readonly cluster: string;
  /** Its network; undefined: the default network. */
  readonly network: string | undefined;
  /** The other networks it exchanges Services with, sorted (undefined: the default network). */
  readonly peers: readonly (string | undefined)[];
  /** A member of the set before the change (its Nodes may be annotated already). */
  readonly existing: boolean;
  /** The model's gateway Nodes, when the caller knows them (no bundle holds them). */
  readonly nodes?: readonly GatewayNodeProps[];
}

/** A cluster on no declared network has none, or `network.k8s.io: default` once some cluster declares one. */
const networkName = (n: string | undefined): string =>
  n === undefined || n === 'default' ? 'the default network' : `network ${n}`;

/**
 * `kubectl annotate` for the gateway candidates: one command for the Nodes without an IP override,
 * one per Node with one (README "Gateways").
 */
function annotateCommands(g: GatewayChange): string {
  const ctx = `kubectl --context <${g.cluster}> annotate node`;
  const flag = 'multicluster.antrea.io/gateway=true';
  const nodes = g.nodes ?? [];
  if (nodes.length === 0) return `\`${ctx} <node> ${flag}\` for each Node the model lists in gateway.nodes`;
  const plain = nodes.filter((n) => n.ip === undefined).map((n) => n.name);
  const commands = [
    ...(plain.length > 0 ? [`${ctx} ${plain.join(' ')} ${flag}`] : []),
    ...nodes
      .filter((n) => n.ip !== undefined)
      .map((n) => `${ctx} ${n.name} ${flag} multicluster.antrea.io/gateway-ip=${n.ip!}`),
  ];
  return joinAnd(commands.map((c) => `\`${c}\``));
}

function gatewayStep(g: GatewayChange): string {
  const why = `it is on ${networkName(g.network)} and ${g.existing ? 'now exchanges' : 'exchanges'} Services with ${joinAnd(g.peers.map(networkName))}`;
  return `annotate ${g.cluster}'s gateway Nodes${g.existing ? ' unless they already are' : ''} (${why}): ${annotateCommands(g)}`;
}

export function afterMerge(
  diff: TreeDiff,
  o: {
    readonly leader?: string;
    readonly joined: readonly string[];
    readonly left: readonly string[];
    readonly exporters: (service: string) => readonly string[];
    /** Members that start exchanging Services across networks, new members first. */
    readonly gateways?: readonly GatewayChange[];
  },
): AfterMerge {
  const steps: string[] = [];
  const breaking: string[] = [];

  // First: until it is re-applied, Argo CD refuses Applications whose destination it does not list.
  const argocd = diff.bundles.find((b) => b.type === 'delivery' && b.bundle === 'argocd');
  if (argocd?.objects.some((x) => x.kind === 'AppProject' && x.change !== 'removed')) {
    steps.push(
      `re-apply the AppProject in the management cluster: \`kubectl apply -k ${outPath(diff)}/argocd\` (the root Application does not manage it, and Argo CD refuses an Application whose destination or kinds it does not permit)`,
    );
  }

  const gateways = new Map((o.gateways ?? []).map((g) => [g.cluster, g]));
  for (const id of o.joined) {
    for (const app of deliveryFor(diff, 'Application', id, 'added')) {
      const dest =
        str(at(app.after, 'spec', 'destination', 'server')) ??
        str(at(app.after, 'spec', 'destination', 'name'));
      steps.push(
        `register ${id} with Argo CD${dest ? ` as \`${dest}\`` : ''}: \`argocd cluster add <${id}> --name ${id}\``,
      );
    }
    const secrets = new Map<string, { ns: string; key: string }>();
    for (const ks of deliveryFor(diff, 'Kustomization', id, 'added')) {
      const name = str(at(ks.after, 'spec', 'kubeConfig', 'secretRef', 'name'));
      if (name)
        secrets.set(name, {
          ns: ks.namespace ?? 'flux-system',
          key: str(at(ks.after, 'spec', 'kubeConfig', 'secretRef', 'key')) ?? 'value',
        });
    }
    for (const [name, s] of secrets) {
      steps.push(
        `give Flux ${id}'s kubeconfig, in the management cluster: \`kubectl -n ${s.ns} create secret generic ${name} --from-file=${s.key}=${id}.kubeconfig\``,
      );
    }
    steps.push(...tokenSteps(diff, id, o.leader));
    const g = gateways.get(id);
    if (g) steps.push(gatewayStep(g));
  }
  for (const g of o.gateways ?? []) if (!o.joined.includes(g.cluster)) steps.push(gatewayStep(g));

  for (const id of o.left) {
    if (deliveryFor(diff, 'Application', id, 'removed').length > 0) {
      steps.push(
        `${id} leaves: Argo CD deletes its Application but leaves what it applied in ${id} (no resources finalizer); delete those objects by hand if ${id} stays in service, then \`argocd cluster rm <${id}>\``,
      );
    }
    const fluxRemoved = deliveryFor(diff, 'Kustomization', id, 'removed');
    if (fluxRemoved.length > 0) {
      steps.push(
        `${id} leaves: Flux deletes its Kustomization and, with prune on, everything it applied in ${id} but its CRDs, Namespaces and Antrea's member controller ConfigMap and Deployment (never pruned); then delete its kubeconfig Secret`,
      );
    }
  }

  // Ports of a Service: the import follows the model, each exporter's export follows its Service.
  for (const x of clusterBundle(diff, o.leader)?.objects ?? []) {
    if (
      x.kind !== 'ResourceImport' ||
      x.change !== 'changed' ||
      at(x.after, 'spec', 'kind') !== 'ServiceImport'
    )
      continue;
    const before = portList(at(x.before, 'spec', 'serviceImport', 'spec', 'ports'));
    const after = portList(at(x.after, 'spec', 'serviceImport', 'spec', 'ports'));
    if (before.join() === after.join()) continue;
    const ns = String(at(x.after, 'spec', 'namespace'));
    const name = String(at(x.after, 'spec', 'name'));
    const exporters = o.exporters(`${ns}/${name}`);
    const gone = before.filter((p) => !after.includes(p));
    breaking.push(
      `Service ${ns}/${name}: ports ${before.join(', ')} → ${after.join(', ')}. Change the Service ${exporters.length > 0 ? `in ${joinAnd(exporters)} ` : ''}to match: until it does, the leader refuses its export (ResourceExport condition Failure: its ports differ from the model's) and it brings no endpoints` +
        (gone.length > 0
          ? `. Clients follow too: ${ns}/${memberImportName(name)} in every member no longer serves ${joinAnd(gone)}`
          : ''),
    );
  }

  return { steps, breaking };
}
