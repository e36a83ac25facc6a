/**
 * Plain-language descriptions of rendered objects for the impact summary: label selectors, policy
 * peers and rules, Service ports. They read the rendered Antrea ClusterNetworkPolicy spec (the same
 * shape lib/policy.ts writes for stretched policies and inside ACNP ResourceImports), so they work
 * on any revision of out/ without the model that produced it.
 */

import { cmp } from '../diagnostics';
import { count, noun } from '../plural';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** `a, b and c` */
export function joinAnd(xs: readonly string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** `['ClusterSet', '2 ClusterProperties', 'ServiceExport']`: objects counted by kind, kinds in order. */
export function kindCounts(objects: readonly { readonly kind: string }[]): string[] {
  const counts = new Map<string, number>();
  for (const o of objects) counts.set(o.kind, (counts.get(o.kind) ?? 0) + 1);
  return [...counts.keys()].sort(cmp).map((k) => (counts.get(k) === 1 ? k : count(counts.get(k)!, k)));
}

/** `ClusterSet, 2 ClusterProperties, ServiceExport`. */
export function countKinds(objects: readonly { readonly kind: string }[]): string {
  return kindCounts(objects).join(', ');
}

const NS_NAME_LABEL = 'kubernetes.io/metadata.name';

/** `app=web, tier in (a, b)`; `undefined` for an empty selector (which matches everything). */
export function describeSelector(sel: unknown): string | undefined {
  if (!isObj(sel)) return undefined;
  const parts: string[] = [];
  const labels = isObj(sel.matchLabels) ? sel.matchLabels : {};
  for (const [k, v] of Object.entries(labels)) parts.push(`${k}=${String(v)}`);
  for (const e of list(sel.matchExpressions)) {
    const values = Array.isArray(e.values) ? e.values.map(String).join(', ') : '';
    const op = String(e.operator);
    if (op === 'Exists') parts.push(`${String(e.key)} set`);
    else if (op === 'DoesNotExist') parts.push(`${String(e.key)} unset`);
    else parts.push(`${String(e.key)} ${op === 'NotIn' ? 'not in' : 'in'} (${values})`);
  }
  return parts.length > 0 ? parts.join(', ') : undefined;
}

function describeNamespaces(sel: unknown): string {
  if (
    isObj(sel) &&
    isObj(sel.matchLabels) &&
    Object.keys(sel.matchLabels).length === 1 &&
    !sel.matchExpressions
  ) {
    const ns = sel.matchLabels[NS_NAME_LABEL];
    if (typeof ns === 'string') return `in namespace ${ns}`;
  }
  const d = describeSelector(sel);
  return d === undefined ? 'in any namespace' : `in namespaces ${d}`;
}

/** A policy peer or appliedTo entry: `pods app=frontend in namespace web from every cluster`. */
export function describePeer(p: Obj): string {
  const parts: string[] = [];
  if (isObj(p.ipBlock))
    parts.push(
      `IPs in ${String(p.ipBlock.cidr)}${Array.isArray(p.ipBlock.except) && p.ipBlock.except.length > 0 ? ` except ${p.ipBlock.except.map(String).join(', ')}` : ''}`,
    );
  if (typeof p.group === 'string') parts.push(`ClusterGroup ${p.group}`);
  if (isObj(p.serviceAccount))
    parts.push(`ServiceAccount ${String(p.serviceAccount.namespace)}/${String(p.serviceAccount.name)}`);
  if (p.nodeSelector !== undefined) parts.push(`nodes ${describeSelector(p.nodeSelector) ?? '(all)'}`);
  if (typeof p.fqdn === 'string') parts.push(`domain ${p.fqdn}`);
  if (isObj(p.namespaces)) {
    const ns = p.namespaces;
    const pods = describeSelector(p.podSelector);
    parts.push(
      `${pods === undefined ? 'all pods' : `pods ${pods}`} ${
        ns.match === 'Self'
          ? 'in the same namespace'
          : `in namespaces with the same ${(Array.isArray(ns.sameLabels) ? ns.sameLabels : [])
              .map(String)
              .join(', ')} labels`
      }`,
    );
  }
  const hasPods = p.podSelector !== undefined && !isObj(p.namespaces);
  const hasNs = p.namespaceSelector !== undefined;
  if (hasPods || hasNs) {
    const pods = describeSelector(p.podSelector);
    parts.push(
      [pods === undefined ? (hasNs ? 'all pods' : 'all pods in its namespace') : `pods ${pods}`]
        .concat(hasNs ? [describeNamespaces(p.namespaceSelector)] : [])
        .join(' '),
    );
  }
  if (p.scope === 'ClusterSet') parts.push('from every cluster');
  return parts.length > 0 ? parts.join(' ') : 'anything';
}

function describePort(p: Obj): string {
  const proto = typeof p.protocol === 'string' ? p.protocol : 'TCP';
  if (p.port === undefined) return `any ${proto} port`;
  return p.endPort !== undefined
    ? `${String(p.port)}-${String(p.endPort)}/${proto}`
    : `${String(p.port)}/${proto}`;
}

function describePorts(ports: unknown): string {
  const ps = list(ports);
  if (ps.length === 0) return '';
  return ` on ${noun(ps.length, 'port')} ${ps.map(describePort).join(', ')}`;
}

const INGRESS_VERB: Readonly<Record<string, string>> = {
  Allow: 'admits',
  Drop: 'drops',
  Reject: 'rejects',
  Pass: 'passes on',
};
const EGRESS_VERB: Readonly<Record<string, string>> = {
  Allow: 'allows egress to',
  Drop: 'drops egress to',
  Reject: 'rejects egress to',
  Pass: 'passes on egress to',
};

type Direction = 'ingress' | 'egress';

function verb(dir: Direction, action: unknown): string {
  return (dir === 'ingress' ? INGRESS_VERB : EGRESS_VERB)[String(action)] ?? `${String(action)}s`;
}

function peersOf(dir: Direction, r: Obj): string[] {
  if (dir === 'egress' && Array.isArray(r.toServices))
    return list(r.toServices).map(
      (s) =>
        `Service ${String(s.namespace)}/${String(s.name)}${s.scope === 'ClusterSet' ? ' in every cluster' : ''}`,
    );
  const peers = list(dir === 'ingress' ? r.from : r.to);
  return peers.map(describePeer);
}

function ruleName(r: Obj, i: number): string {
  return typeof r.name === 'string' ? `rule ${r.name}` : `rule #${i + 1}`;
}

/** `admits pods app=web in namespace shop from every cluster on port 8080/TCP (rule from-web)` */
export function describeRule(dir: Direction, r: Obj, i: number): string {
  const peers = peersOf(dir, r);
  const what = peers.length > 0 ? peers.join(' or ') : dir === 'ingress' ? 'any source' : 'any destination';
  return `${verb(dir, r.action)} ${what}${describePorts(r.ports)} (${ruleName(r, i)})`;
}

function ruleKey(r: Obj, i: number): string {
  return typeof r.name === 'string' ? `n:${r.name}` : `i:${i}`;
}

function json(v: unknown): string {
  return JSON.stringify(v) ?? 'undefined';
}

function describeRules(dir: Direction, before: Obj[], after: Obj[]): string[] {
  const out: string[] = [];
  const byKey = (rs: Obj[]) => new Map(rs.map((r, i) => [ruleKey(r, i), { r, i }]));
  const b = byKey(before);
  const a = byKey(after);
  for (const [k, { r, i }] of b) if (!a.has(k)) out.push(`no longer ${describeRule(dir, r, i)}`);
  for (const [k, { r, i }] of a) {
    const old = b.get(k);
    if (!old) {
      out.push(`now ${describeRule(dir, r, i)}`);
      continue;
    }
    if (json(old.r) === json(r)) continue;
    const name = ruleName(r, i);
    if (old.r.action !== r.action) out.push(`${name}: ${String(old.r.action)} → ${String(r.action)}`);
    const pb = peersOf(dir, old.r);
    const pa = peersOf(dir, r);
    for (const p of pa) if (!pb.includes(p)) out.push(`now ${verb(dir, r.action)} ${p} (${name})`);
    for (const p of pb) if (!pa.includes(p)) out.push(`no longer ${verb(dir, old.r.action)} ${p} (${name})`);
    const portsB = describePorts(old.r.ports);
    const portsA = describePorts(r.ports);
    if (portsB !== portsA)
      out.push(
        `${name}: ${portsB.replace(/^ on /, '') || 'any port'} → ${portsA.replace(/^ on /, '') || 'any port'}`,
      );
  }
  const order = (m: Map<string, unknown>, other: Map<string, unknown>) =>
    [...m.keys()].filter((k) => other.has(k)).join('\u0000');
  if (order(b, a) !== order(a, b)) out.push(`${dir} rules reordered (they are evaluated in order)`);
  return out;
}

/** A whole policy, for one that appears: `tier application, priority 20: admits …; drops …`. */
export function describePolicy(spec: Obj): string {
  const rules = [
    ...list(spec.ingress).map((r, i) => describeRule('ingress', r, i)),
    ...list(spec.egress).map((r, i) => describeRule('egress', r, i)),
  ];
  const applied = list(spec.appliedTo).map(describePeer).join(' or ');
  return `tier ${String(spec.tier ?? 'application')}, priority ${String(spec.priority)}, applies to ${applied || 'nothing'}${rules.length > 0 ? `: ${rules.join('; ')}` : ''}`;
}

/** What changed between two specs of one policy, as short phrases; `[]` when nothing did. */
export function describePolicyChange(before: Obj, after: Obj): string[] {
  const out: string[] = [];
  if (before.tier !== after.tier) out.push(`tier ${String(before.tier)} → ${String(after.tier)}`);
  if (before.priority !== after.priority)
    out.push(`priority ${String(before.priority)} → ${String(after.priority)}`);
  if (json(before.appliedTo) !== json(after.appliedTo))
    out.push(`now applies to ${list(after.appliedTo).map(describePeer).join(' or ') || 'nothing'}`);
  out.push(...describeRules('ingress', list(before.ingress), list(after.ingress)));
  out.push(...describeRules('egress', list(before.egress), list(after.egress)));
  return out;
}

/** Port changes of a ServiceImport: `port http 80/TCP → 8080/TCP`, `new port grpc 9090/TCP`. */
export function describePortChange(before: unknown, after: unknown): string[] {
  const key = (p: Obj, i: number): string =>
    typeof p.name === 'string' && p.name !== '' ? p.name : `#${i + 1}`;
  const fmt = (p: Obj): string => `${String(p.port)}/${String(p.protocol ?? 'TCP')}`;
  const b = new Map(list(before).map((p, i) => [key(p, i), p]));
  const a = new Map(list(after).map((p, i) => [key(p, i), p]));
  const out: string[] = [];
  for (const [k, p] of b) {
    const n = a.get(k);
    if (!n) out.push(`port ${k} ${fmt(p)} removed`);
    else if (fmt(n) !== fmt(p)) out.push(`port ${k} ${fmt(p)} → ${fmt(n)}`);
  }
  for (const [k, p] of a) if (!b.has(k)) out.push(`new port ${k} ${fmt(p)}`);
  return out;
}

/** Ports of a ServiceImport: `http 8080/TCP, grpc 9090/TCP`. */
export function describeServicePorts(ports: unknown): string {
  return list(ports)
    .map((p) => `${typeof p.name === 'string' && p.name !== '' ? `${p.name} ` : ''}${describePort(p)}`)
    .join(', ');
}
