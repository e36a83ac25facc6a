/**
 * What a change asks of people once it is merged, read from the semantic diff: the manual steps (a
 * new member's token, registering it with Argo CD or giving Flux its kubeconfig, re-applying the
 * AppProject, what removing a member does under each tool), the breaking changes that something
 * outside out/ must follow (a Service's ports). What happens by itself (a member controller
 * restart) is in the impact summary instead. Pure.
 */
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
function at(obj: DiffObject | undefined, ...keys: string[]): unknown {
  let v: unknown = obj;
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return v;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `http 8080/TCP, grpc 9090/TCP`. */
function ports(v: unknown): string {
  const list = Array.isArray(v) ? v.filter(isObj) : [];
  return list
    .map((p) => `${str(p.name) ? `${String(p.name)} ` : ''}${String(p.port)}/${str(p.protocol) ?? 'TCP'}`)
    .join(', ');
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

export function afterMerge(
  diff: TreeDiff,
  o: {
    readonly leader?: string;
    readonly joined: readonly string[];
    readonly left: readonly string[];
    readonly exporters: (service: string) => readonly string[];
  },
): AfterMerge {
  const steps: string[] = [];
  const breaking: string[] = [];

  for (const id of o.joined) {
    steps.push(
      `copy ${id}'s token from the leader${o.leader ? ` (${o.leader})` : ''}: \`npx clusterset token ${id} --leader-context <leader> --member-context <${id}>\``,
    );
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
        `give Flux ${id}'s kubeconfig: \`kubectl -n ${s.ns} create secret generic ${name} --from-file=${s.key}=${id}.kubeconfig\``,
      );
    }
  }

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

  const argocd = diff.bundles.find((b) => b.type === 'delivery' && b.bundle === 'argocd');
  if (argocd?.objects.some((x) => x.kind === 'AppProject' && x.change !== 'removed')) {
    steps.push(
      're-apply the AppProject in the management cluster: `kubectl apply -k out/argocd` (the root Application does not manage it)',
    );
  }

  // Ports of a Service: the import follows the model, each exporter's export follows its Service.
  for (const x of clusterBundle(diff, o.leader)?.objects ?? []) {
    if (
      x.kind !== 'ResourceImport' ||
      x.change !== 'changed' ||
      at(x.after, 'spec', 'kind') !== 'ServiceImport'
    )
      continue;
    const was = ports(at(x.before, 'spec', 'serviceImport', 'spec', 'ports'));
    const is = ports(at(x.after, 'spec', 'serviceImport', 'spec', 'ports'));
    if (was === is) continue;
    const service = `${String(at(x.after, 'spec', 'namespace'))}/${String(at(x.after, 'spec', 'name'))}`;
    const exporters = o.exporters(service);
    breaking.push(
      `Service ${service}: ports ${was} → ${is}. Change the Service ${exporters.length > 0 ? `in ${exporters.join(', ')} ` : ''}to match: until it does, its exports are refused (Failure: ports differ) and bring no endpoints`,
    );
  }

  return { steps, breaking };
}
