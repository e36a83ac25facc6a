/**
 * A live Antrea ClusterNetworkPolicy spec (a replicated policy's ResourceImport payload, or a
 * member's stretched ACNP) → the model's policy vocabulary, and back: the fields the model has are
 * copied, then the policy is rendered again with the compiler's own `acnpSpecJson` and compared with
 * the live spec. Every field that did not survive the round trip is named by its path, so that the
 * report can say exactly what the model cannot express. Pure.
 */
import type { ClusterGroupProps, PolicyProps } from '../model';
import { acnpSpecJson } from '../policy';
import { type Json, cmp, diffJson, isObject, show } from './live';

/** How a value is copied: as it is (`any`), or field by field (unknown fields are reported). */
type Shape = 'any' | { readonly obj: Readonly<Record<string, Shape>> } | { readonly list: Shape };

const obj = (fields: Record<string, Shape>): Shape => ({ obj: fields });
const list = (item: Shape): Shape => ({ list: item });

const selector = obj({
  matchLabels: 'any',
  matchExpressions: list(obj({ key: 'any', operator: 'any', values: 'any' })),
});
const namespacedName = obj({ name: 'any', namespace: 'any' });
const ipBlock = obj({ cidr: 'any', except: 'any' });
const ruleAppliedTo = obj({
  podSelector: selector,
  namespaceSelector: selector,
  group: 'any',
  serviceAccount: namespacedName,
});
const appliedTo = obj({ ...(ruleAppliedTo as { obj: Record<string, Shape> }).obj, nodeSelector: selector });
const peer = obj({
  scope: 'any',
  podSelector: selector,
  namespaceSelector: selector,
  namespaces: obj({ match: 'any', sameLabels: 'any' }),
  ipBlock,
  group: 'any',
  serviceAccount: namespacedName,
  nodeSelector: selector,
  fqdn: 'any',
});
const rule = obj({
  name: 'any',
  action: 'any',
  appliedTo: list(ruleAppliedTo),
  from: list(peer),
  to: list(peer),
  toServices: list(obj({ name: 'any', namespace: 'any', scope: 'any' })),
  ports: list(obj({ protocol: 'any', port: 'any', endPort: 'any', sourcePort: 'any', sourceEndPort: 'any' })),
  protocols: list(
    obj({
      icmp: obj({ icmpType: 'any', icmpCode: 'any' }),
      igmp: obj({ igmpType: 'any', groupAddress: 'any' }),
    }),
  ),
  l7Protocols: list(
    obj({ http: obj({ host: 'any', method: 'any', path: 'any' }), tls: obj({ sni: 'any' }) }),
  ),
  enableLogging: 'any',
  logLabel: 'any',
});
const policySpec = obj({
  tier: 'any',
  priority: 'any',
  appliedTo: list(appliedTo),
  ingress: list(rule),
  egress: list(rule),
});
const clusterGroupSpec = obj({
  podSelector: selector,
  namespaceSelector: selector,
  nodeSelector: selector,
  ipBlocks: list(ipBlock),
  serviceReference: namespacedName,
  childGroups: 'any',
});

function copy(value: unknown, shape: Shape, path: string, dropped: string[]): unknown {
  if (shape === 'any') return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  if ('list' in shape) {
    if (!Array.isArray(value)) return value === undefined ? undefined : (dropped.push(path), undefined);
    return value.map((v, i) => copy(v, shape.list, `${path}[${i}]`, dropped));
  }
  if (!isObject(value)) return value === undefined ? undefined : (dropped.push(path), undefined);
  const out: Json = {};
  // The shape's order (the model's), then unknown fields in code-unit order.
  const keys = [
    ...Object.keys(shape.obj),
    ...Object.keys(value)
      .filter((k) => !(k in shape.obj))
      .sort(cmp),
  ];
  for (const k of keys) {
    if (!(k in value)) continue;
    const p = path ? `${path}.${k}` : k;
    const field = shape.obj[k];
    if (field === undefined) {
      if (value[k] !== undefined && value[k] !== null) dropped.push(p);
      continue;
    }
    const v = copy(value[k], field, p, dropped);
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
}

/** One field of a live policy the model cannot carry: its path in the live spec, and why. */
export interface Unexpressible {
  readonly path: string;
  readonly why: string;
}

export interface ImportedPolicy {
  readonly policy: PolicyProps;
  readonly unexpressible: readonly Unexpressible[];
}

/**
 * The model policy of a live ACNP spec. Live `toServices` without a scope are Antrea's `Cluster`
 * scope; the model's default is `ClusterSet`, so they get `scope: 'Cluster'` written out.
 */
export function policyFromSpec(name: string, live: Json): ImportedPolicy {
  const dropped: string[] = [];
  const spec = copy(live, policySpec, '', dropped) as Json;
  for (const r of Array.isArray(spec.egress) ? spec.egress : [])
    for (const s of isObject(r) && Array.isArray(r.toServices) ? r.toServices : [])
      if (isObject(s) && s.scope === undefined) s.scope = 'Cluster';
  // Rules in the order of the model's interfaces (name, action first), for a readable model.
  const policy = { name, ...spec } as unknown as PolicyProps;
  const unexpressible: Unexpressible[] = dropped.map((path) => ({
    path,
    why: 'the model has no such field',
  }));
  const rendered = acnpSpecJson(policy);
  for (const d of diffJson(live, rendered, '')) {
    const path = d.path.replace(/^\./, '');
    if (dropped.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`))) continue;
    // The compiler always writes a port's protocol (TCP when unset): the same policy, said outright.
    if (d.live === undefined && d.rendered === 'TCP' && path.endsWith('.protocol')) continue;
    // A field the compiler drops here is dropped from the model too, so that the model still checks
    // clean and the comparison with the live import names the change.
    if (d.rendered === undefined) removePath(policy, path);
    unexpressible.push({
      path,
      why:
        d.rendered === undefined
          ? `the compiler does not render it here (live ${show(d.live)})`
          : `it renders as ${show(d.rendered)}, live ${show(d.live)}`,
    });
  }
  return { policy, unexpressible };
}

/** Deletes the field at `path` (`ingress[0].from[1].fqdn`) from `root`, if it is there. */
function removePath(root: unknown, path: string): void {
  const tokens = path.match(/[^.[\]]+/g) ?? [];
  let at: unknown = root;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(at)) at = at[Number(t)];
    else if (isObject(at)) at = at[t];
    else return;
  }
  const last = tokens[tokens.length - 1];
  if (last !== undefined && isObject(at)) delete at[last];
}

/** A policy is stretched when a peer or a `toServices` entry has ClusterSet scope. */
export function isStretched(spec: Json): boolean {
  const rules = (k: string) => (Array.isArray(spec[k]) ? (spec[k] as unknown[]) : []).filter(isObject);
  return (
    rules('ingress').some(
      (r) => Array.isArray(r.from) && r.from.some((p) => isObject(p) && p.scope === 'ClusterSet'),
    ) ||
    rules('egress').some(
      (r) => Array.isArray(r.toServices) && r.toServices.some((s) => isObject(s) && s.scope === 'ClusterSet'),
    )
  );
}

/** The model ClusterGroup of a live ClusterGroup spec, with the fields the model lacks. */
export function clusterGroupFromSpec(
  name: string,
  live: Json,
): { group: ClusterGroupProps; dropped: string[] } {
  const dropped: string[] = [];
  const spec = copy(live, clusterGroupSpec, '', dropped) as Json;
  return { group: { name, ...spec } as ClusterGroupProps, dropped };
}
