/**
 * One cluster's report: whether it could be reached and listed, and its bundle's objects as
 * delivered, compared in the fields the bundle renders (delivered.ts). Who applied an object (its
 * field managers) is shown and counted, and is a problem only when the model's `delivery` names the
 * tools that deliver the bundles and none of them applied it: a team that applies `out/` with
 * kubectl from CI, and has no `delivery`, gets exit 0 once it matches. The leader's report also
 * holds its reconciler's (reconciler.ts).
 */
import { deliveryObjectName } from '../../names';
import type { Plan } from '../../plan';
import {
  compareObject,
  DELIVERY_MANAGERS,
  DELIVERY_TOOL_NAMES,
  deliveryManagers,
  type ObjectState,
} from '../delivered';
import { bundleKey, findNamed, isUnread, listOf } from '../live';
import type { Problems } from './problems';
import { reconcilerReport } from './reconciler';
import type { ClusterReport, StatusInput } from './types';

/**
 * Why an object that none of the model's delivery tools manages is a problem, and where to look:
 * the Argo CD Application or Flux Kustomization that delivers the cluster's bundle.
 */
function notDeliveredText(plan: Plan, id: string, tools: readonly string[], s: ObjectState): string {
  const names = tools.map((m) => DELIVERY_TOOL_NAMES[m] ?? m).join(' or ');
  const by = s.appliedBy ?? s.otherOwners ?? [];
  const who = by.length > 0 ? `was applied by ${by.join(', ')}` : 'names no field manager';
  const name = deliveryObjectName(plan.clusterSetId, id);
  const where = [
    ...(plan.delivery?.argocd ? [`Application ${plan.delivery.argocd.namespace}/${name}`] : []),
    ...(plan.delivery?.flux ? [`Kustomization ${plan.delivery.flux.namespace}/${name}`] : []),
  ].join(' or ');
  return `${who}, not by ${names}, which the model delivers it with: check that ${where} exists and syncs`;
}

export function clusterReport(inp: StatusInput, id: string, p: Problems): ClusterReport {
  const { plan } = inp;
  const read = inp.reads.get(id);
  const role = id === plan.leader.id ? 'leader' : 'member';
  const bundle = inp.bundles.get(id) ?? [];
  const unreadable = [...(read?.errors ?? new Map<string, string>())]
    .map(([collection, error]) => ({ collection, error }))
    .sort((a, b) => (a.collection < b.collection ? -1 : 1));
  if (!read || read.unreachable !== undefined) {
    const error = read?.unreachable ?? 'not read';
    p.add(id, `cannot be reached: ${error}`);
    return {
      id,
      role,
      reachable: false,
      error,
      unreadable: [],
      delivered: {
        total: bundle.length,
        ok: 0,
        matching: 0,
        unread: bundle.length,
        appliedBy: [],
        objects: [],
      },
    };
  }
  for (const u of unreadable) p.add(id, `cannot list ${u.collection}: ${u.error}`);
  const objects: ObjectState[] = [];
  const tools = deliveryManagers(plan);
  let ok = 0;
  let matching = 0;
  let unread = 0;
  const appliers = new Map<string, number>();
  for (const o of bundle) {
    const key = bundleKey(o);
    const list = key ? listOf(read, key) : undefined;
    if (isUnread(o) || !list) {
      unread++;
      continue;
    }
    const s = compareObject(o, findNamed(list, o.name), tools ?? DELIVERY_MANAGERS);
    for (const m of s.appliedBy ?? []) appliers.set(m, (appliers.get(m) ?? 0) + 1);
    const ref = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
    if (s.state === 'missing') p.add(id, `${ref} is missing`);
    if (s.state === 'drifted')
      for (const d of s.drifted ?? [])
        p.add(
          id,
          `${ref} drifted: ${d.path} is ${d.have ?? 'absent'}, the bundle has ${d.want}${
            d.changedBy.length > 0 ? ` (changed by ${d.changedBy.join(', ')})` : ''
          }`,
        );
    // Who applied it matters only when the model names the tools that must have: then one that
    // none of them manages is not theirs to heal, prune or update on the next merge.
    const notByTools = tools !== undefined && s.state !== 'missing' && s.otherOwners !== undefined;
    if (notByTools) p.add(id, `${ref} ${notDeliveredText(plan, id, tools, s)}`);
    if (s.state === 'ok') matching++;
    if (s.state === 'ok' && !notByTools) ok++;
    else objects.push(s);
  }
  const appliedBy = [...appliers]
    .map(([manager, n]) => ({ manager, objects: n }))
    .sort((a, b) => b.objects - a.objects || (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  const base = {
    id,
    role,
    reachable: true,
    unreadable,
    delivered: { total: bundle.length, ok, matching, unread, appliedBy, objects },
  } as const;
  if (role === 'leader') return { ...base, reconciler: reconcilerReport(inp, id, read, p) };
  return base;
}
