/**
 * The live ClusterSet in the model's terms: a pure function of the plan, the bundles in out/ and
 * what was read from each cluster (live.ts). Every mismatch is also one line of `problems`, so that
 * the exit code, the text and the JSON agree on what "matches the model" means.
 *
 * Who applied an object (its field managers) is shown and counted, and is a problem only when the
 * model's `delivery` names the tools that deliver the bundles and none of them applied it: a team
 * that applies `out/` with kubectl from CI, and has no `delivery`, gets exit 0 once it matches.
 *
 * The JSON form of StatusReport is the documented, stable output of `status --format json`
 * (docs/day-two.md, "clusterset status"): fields are added, never renamed or removed, within
 * `version: 1`.
 */
import { antreaLeaderRunning, observeDeployment, observePod } from '../reconciler/antrea-leader';
import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_POD_SELECTOR,
  BUILTIN_TIERS,
  IMPORTED_ACNP_ANNOTATION,
  MEMBER_RESTART_NAME,
  RECONCILER_NAME,
  RESTART_RECORD_ANNOTATION,
  TOUCH_TS_ANNOTATION,
  acnpImportName,
  announceName,
  clusterInfoName,
  deliveryObjectName,
  memberImportName,
  serviceExportName,
} from '../names';
import type { Plan, PlannedPolicy, PlannedService } from '../plan';
import {
  compareObject,
  DELIVERY_MANAGERS,
  DELIVERY_TOOL_NAMES,
  deliveryManagers,
  type ObjectState,
} from './delivered';
import {
  ACNP_IMPORT_FAILED,
  bundleKey,
  findNamed,
  isUnread,
  kindKey,
  listOf,
  nameOf,
  RESTART_POD_SELECTOR,
  SERVICE_EXPORTS_ALL,
  type BundleObject,
  type ClusterRead,
  type Obj,
} from './live';

/** A member whose announce is older than this is reported stale (Antrea refreshes it every 10 s). */
export const ANNOUNCE_STALE_SECONDS = 30;

export interface Condition {
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface ClusterReport {
  readonly id: string;
  readonly role: 'leader' | 'member';
  readonly reachable: boolean;
  readonly error?: string;
  /** Collections that could not be listed, with why. */
  readonly unreadable: readonly { readonly collection: string; readonly error: string }[];
  readonly delivered: {
    readonly total: number;
    /**
     * Objects as they should be: equal to the bundle in the fields it renders and, when the model's
     * `delivery` names the tools, applied by one of them.
     */
    readonly ok: number;
    /** Objects equal to the bundle in the fields it renders, whoever applied them. */
    readonly matching: number;
    /** Objects not compared: Secrets (never read) and objects whose collection could not be read. */
    readonly unread: number;
    /**
     * Who applied the objects that are there (ObjectState.appliedBy), as information: each field
     * manager with the number of objects it applied; most objects first, then by name.
     */
    readonly appliedBy: readonly { readonly manager: string; readonly objects: number }[];
    /**
     * Every object that is missing or drifted and, when the model's `delivery` names the tools,
     * every object none of them applied (its `otherOwners` say who did).
     */
    readonly objects: readonly ObjectState[];
  };
  /** Members only. */
  readonly membership?: {
    readonly announce: { readonly present: boolean; readonly ageSeconds?: number };
    /** The leader ClusterSet's `status.clusterStatuses[].conditions[type=Ready]` for this member. */
    readonly leaderView?: Condition;
    /** This member's own ClusterSet `status.conditions[type=Ready]`. */
    readonly ready?: Condition;
  };
  /** The leader only: the reconciler's Lease. */
  readonly reconciler?: {
    readonly holder?: string;
    readonly renewedSecondsAgo?: number;
    readonly leaseDurationSeconds?: number;
    readonly healthy: boolean;
    /**
     * With `reconciler.waitForAntreaLeader`, while no one holds the Lease: what of Antrea's leader
     * still runs, as the reconciler's standby log names it (its Deployment's replicas; status does
     * not read webhook configurations). The reconciler waits for it: not a problem.
     */
    readonly waitingForAntreaLeader?: readonly string[];
  };
  /** Members only: label identities and ClusterInfo imports held. */
  readonly identities?: { readonly labelIdentities: number; readonly clusterInfoImports: number };
  /**
   * Members only: the restart Job the bundle holds (render/member-restart.ts), as far as it got:
   * `done`; `waiting` (for the restarted controller to connect, say); `running`; `failed` with the
   * cause it recorded on the member's ClusterSet; `cannot start` with what its Pod waits for (an
   * image that cannot be pulled, say: the Job cannot say so itself); `missing` when it is not there.
   */
  readonly restart?: {
    readonly job: string;
    readonly state: 'done' | 'waiting' | 'running' | 'failed' | 'cannot start' | 'missing';
    readonly detail?: string;
  };
  /**
   * Members only, while the ClusterSet is uninstalled (`uninstalling`): what is left of it, each
   * count undefined when its cluster could not be read. It has left once all are zero.
   */
  readonly leaving?: {
    /** Its own ClusterSet (0 or 1): the delivery tool deletes it. */
    readonly clusterSet?: number;
    /** Its MemberClusterAnnounce in the leader (0 or 1): Antrea's member deletes it once its ClusterSet is gone. */
    readonly announce?: number;
    /** Its ResourceExports in the leader: the reconciler deletes them before it lets the announce go. */
    readonly exports?: number;
    /** What Antrea imported into it (ServiceImports, imported policies, label identities, ClusterInfo imports). */
    readonly imported?: number;
  };
}

export interface ExporterReport {
  readonly cluster: string;
  /** Whether the exporting member could be read (its ServiceExport is unknown otherwise). */
  readonly reachable: boolean;
  /** ServiceExport `status.conditions[type=Valid]` in the exporting member. */
  readonly serviceExport?: Condition;
  readonly serviceExportPresent: boolean;
  /**
   * The Service ResourceExport's status on the leader: `Succeeded`, or the failure's reason;
   * `known` is false when the leader could not be read.
   */
  readonly export: {
    readonly known: boolean;
    readonly present: boolean;
    readonly condition?: Condition & { readonly type: string };
  };
  /** Endpoint addresses the member exports (its `-endpoints` ResourceExport). */
  readonly endpoints: number;
}

export interface ImporterReport {
  readonly cluster: string;
  readonly present: boolean;
  readonly endpoints: number;
  /** Exporters those endpoints come from (sorted); `unknown` for an address no export carries. */
  readonly from: readonly string[];
}

export interface ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly exporters: readonly ExporterReport[];
  readonly importers: readonly ImporterReport[];
  /** Some member holds endpoints for it (false too when no member could be read: see importers). */
  readonly reachable: boolean;
}

export interface PolicyMemberReport {
  readonly cluster: string;
  readonly present: boolean;
  readonly tier: string;
  readonly tierPresent: boolean;
  /** Antrea's ACNPImportFailed events for this member (baseline policies), while it is not held. */
  readonly events: readonly string[];
}

export interface PolicyReport {
  readonly name: string;
  readonly kind: 'baseline' | 'stretched';
  /** The object members hold: `antrea-mc-<name>` (imported) or `<name>` (delivered). */
  readonly object: string;
  readonly members: readonly PolicyMemberReport[];
}

export interface IdentityReport {
  readonly labelIdentities: { readonly exports: number; readonly imports: number };
  readonly clusterInfos: { readonly exports: number; readonly imports: number };
  /** ResourceExports of those kinds whose status is a failure: `name: message`. */
  readonly refused: readonly string[];
}

export interface StatusReport {
  readonly version: 1;
  /** Set when the model says `uninstall`: members are reported leaving, not serving. */
  readonly uninstalling?: true;
  readonly clusterSet: string;
  readonly leader: string;
  /**
   * The field managers of the delivery tools the model's `delivery` names (`argocd-controller`,
   * `kustomize-controller`): an object none of them applied is a problem. Absent when the model
   * has no `delivery`: who applied an object is then information only.
   */
  readonly deliveryManagers?: readonly string[];
  /** RFC 3339: when the report was made. */
  readonly at: string;
  readonly ok: boolean;
  readonly clusters: readonly ClusterReport[];
  readonly services: readonly ServiceReport[];
  readonly policies: readonly PolicyReport[];
  readonly identities?: IdentityReport;
  /** Every mismatch, one line each, prefixed by what it concerns. */
  readonly problems: readonly string[];
}

export interface StatusInput {
  readonly plan: Plan;
  /** Cluster ID → its bundle's objects in out/. */
  readonly bundles: ReadonlyMap<string, readonly BundleObject[]>;
  /** Cluster ID → what was read (every cluster of the plan). */
  readonly reads: ReadonlyMap<string, ClusterRead>;
  readonly nowMs: number;
}

function conditionOf(o: Obj | undefined, type?: string): (Condition & { type: string }) | undefined {
  const cs = (o?.status as Obj | undefined)?.conditions;
  if (!Array.isArray(cs)) return undefined;
  const c = (type ? cs.find((x: Obj) => x.type === type) : cs[0]) as Obj | undefined;
  if (!c) return undefined;
  return {
    type: String(c.type ?? ''),
    status: String(c.status ?? ''),
    ...(c.reason ? { reason: String(c.reason) } : {}),
    ...(c.message ? { message: String(c.message) } : {}),
  };
}

function describeCondition(c: Condition | undefined): string {
  if (!c) return 'no status';
  return [c.status, c.reason, c.message].filter(Boolean).join(': ');
}

function annotations(o: Obj | undefined): Obj {
  return ((o?.metadata as Obj | undefined)?.annotations as Obj | undefined) ?? {};
}

/** The IPs of every address in `subsets`. */
function addressesOf(subsets: unknown): string[] {
  if (!Array.isArray(subsets)) return [];
  return subsets.flatMap((s: Obj) =>
    Array.isArray(s.addresses) ? s.addresses.map((a: Obj) => String(a.ip ?? '')) : [],
  );
}

const secondsSince = (nowMs: number, t: unknown): number | undefined => {
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? undefined : Math.max(0, Math.round((nowMs - ms) / 1000));
};

class Problems {
  readonly lines: string[] = [];
  add(what: string, text: string): void {
    this.lines.push(`${what}: ${text}`);
  }
}

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

function clusterReport(inp: StatusInput, id: string, p: Problems): ClusterReport {
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
  if (role === 'leader') {
    const lease = findNamed(listOf(read, kindKey('Lease', plan.leaderNamespace)), RECONCILER_NAME);
    const spec = (lease?.spec as Obj | undefined) ?? {};
    const holder =
      typeof spec.holderIdentity === 'string' && spec.holderIdentity ? spec.holderIdentity : undefined;
    const renewed = secondsSince(inp.nowMs, spec.renewTime);
    const duration = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : undefined;
    const healthy = holder !== undefined && renewed !== undefined && renewed <= (duration ?? 15);
    const antrea = findNamed(
      listOf(read, kindKey('Deployment', plan.leaderNamespace)),
      ANTREA_LEADER_DEPLOYMENT,
    );
    const waiting =
      !healthy && plan.reconciler.waitForAntreaLeader
        ? antreaLeaderRunning({
            namespace: plan.leaderNamespace,
            deployment: antrea ? observeDeployment(antrea) : undefined,
            pods: (listOf(read, kindKey('Pod', plan.leaderNamespace, ANTREA_LEADER_POD_SELECTOR)) ?? []).map(
              observePod,
            ),
            mutatingWebhook: false,
            validatingWebhook: false,
          })
        : [];
    if (!healthy && waiting.length === 0)
      p.add(
        id,
        holder === undefined
          ? `the reconciler holds no Lease ${plan.leaderNamespace}/${RECONCILER_NAME}: is it running?${plan.reconciler.waitForAntreaLeader ? " (with reconciler.waitForAntreaLeader it also waits while Antrea's leader webhook configurations exist)" : ''}`
          : `the reconciler's Lease (holder ${holder}) was last renewed ${renewed ?? '?'} s ago, over its ${duration ?? 15} s`,
      );
    return {
      ...base,
      reconciler: {
        ...(holder !== undefined ? { holder } : {}),
        ...(renewed !== undefined ? { renewedSecondsAgo: renewed } : {}),
        ...(duration !== undefined ? { leaseDurationSeconds: duration } : {}),
        healthy,
        ...(waiting.length > 0 ? { waitingForAntreaLeader: waiting } : {}),
      },
    };
  }
  return base;
}

function membership(inp: StatusInput, id: string, p: Problems): ClusterReport['membership'] {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  const out: {
    announce: { present: boolean; ageSeconds?: number };
    leaderView?: Condition;
    ready?: Condition;
  } = {
    announce: { present: false },
  };
  if (leader && !leader.unreachable) {
    const a = findNamed(
      listOf(leader, kindKey('MemberClusterAnnounce', plan.leaderNamespace)),
      announceName(id),
    );
    const age = secondsSince(inp.nowMs, annotations(a)[TOUCH_TS_ANNOTATION]);
    out.announce = { present: a !== undefined, ...(age !== undefined ? { ageSeconds: age } : {}) };
    if (!a)
      p.add(id, `has not announced itself to the leader (no MemberClusterAnnounce ${announceName(id)})`);
    else if (age === undefined || age > ANNOUNCE_STALE_SECONDS)
      p.add(
        id,
        `last announced itself ${age ?? '?'} s ago (Antrea refreshes it every 10 s): is its controller running?`,
      );
    const cs = findNamed(listOf(leader, kindKey('ClusterSet', plan.leaderNamespace)), plan.clusterSetId);
    const statuses = (cs?.status as Obj | undefined)?.clusterStatuses;
    const mine = Array.isArray(statuses) ? (statuses as Obj[]).find((s) => s.clusterID === id) : undefined;
    const c = mine ? conditionOf({ status: mine }, 'Ready') : undefined;
    if (c) out.leaderView = c;
    if (c?.status !== 'True')
      p.add(id, `the leader ClusterSet reports it ${c ? describeCondition(c) : 'not at all'}`);
  }
  const own = inp.reads.get(id);
  if (own && !own.unreachable) {
    const cs = findNamed(listOf(own, kindKey('ClusterSet', plan.memberNamespace)), plan.clusterSetId);
    const c = conditionOf(cs, 'Ready');
    if (c) out.ready = c;
    if (c?.status !== 'True')
      p.add(
        id,
        `its ClusterSet ${plan.memberNamespace}/${plan.clusterSetId} is not Ready (${describeCondition(c)})`,
      );
  }
  return out;
}

/** Container waiting reasons that mean a Pod cannot start by itself until someone acts. */
const STUCK =
  /^(ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull|CreateContainerConfigError|CreateContainerError|CrashLoopBackOff)$/;

/**
 * The member's restart Job (render/member-restart.ts): what its record on the member's ClusterSet
 * says, and, when it says nothing of this Job yet, what its Pod waits for: a Job whose image cannot
 * be pulled never runs, and only its Pod says why. A failure is a problem, with the cause and a fix.
 */
function restartReport(inp: StatusInput, id: string, p: Problems): ClusterReport['restart'] {
  const { plan } = inp;
  const ns = plan.memberNamespace;
  const rendered = (inp.bundles.get(id) ?? []).find(
    (o) => o.kind === 'Job' && o.name.startsWith(`${MEMBER_RESTART_NAME}-`),
  );
  const own = inp.reads.get(id);
  if (!rendered || !own || own.unreachable) return undefined;
  const job = rendered.name;
  const live = findNamed(listOf(own, kindKey('Job', ns)), job);
  if (!live) return { job, state: 'missing' }; // the bundle's comparison names it
  const conds = ((live.status as Obj | undefined)?.conditions ?? []) as Obj[];
  if (conds.some((c) => c.type === 'Complete' && c.status === 'True')) return { job, state: 'done' };
  const cs = findNamed(listOf(own, kindKey('ClusterSet', ns)), plan.clusterSetId);
  const record = annotations(cs)[RESTART_RECORD_ANNOTATION];
  const mine =
    typeof record === 'string' && record.startsWith(`${job} `) ? record.slice(job.length + 1) : undefined;
  const where = `restart Job ${ns}/${job}`;
  if (mine?.startsWith('failed: ')) {
    const detail = mine.slice('failed: '.length);
    p.add(
      id,
      `the ${where} cannot go on: ${detail}. It runs again by itself (the kubelet restarts it with its back-off) and goes on once that is fixed`,
    );
    return { job, state: 'failed', detail };
  }
  const pods = (listOf(own, kindKey('Pod', ns, RESTART_POD_SELECTOR)) ?? []).filter(
    (o) => ((o.metadata as Obj | undefined)?.labels as Obj | undefined)?.['job-name'] === job,
  );
  for (const pod of pods) {
    const statuses = ((pod.status as Obj | undefined)?.containerStatuses ?? []) as Obj[];
    for (const st of statuses) {
      const waiting = (st.state as Obj | undefined)?.waiting as Obj | undefined;
      const reason = String(waiting?.reason ?? '');
      if (!STUCK.test(reason)) continue;
      const message = waiting?.message ? `: ${String(waiting.message)}` : '';
      const last = ((st.lastState as Obj | undefined)?.terminated as Obj | undefined)?.exitCode;
      const detail = `its Pod ${nameOf(pod)} waits, ${reason}${message}${last !== undefined ? ` (last exit code ${String(last)})` : ''}`;
      const fix = /Image/.test(reason)
        ? `: the member's nodes must be able to pull reconciler.image (build and push it with \`npx clusterset image build --push\`${
            plan.reconciler.imagePullSecrets.length > 0
              ? `; its pull Secrets ${plan.reconciler.imagePullSecrets.join(', ')} must exist in ${ns}`
              : ''
          }); the kubelet tries again by itself`
        : '';
      p.add(id, `the ${where} cannot start: ${detail}${fix}`);
      return { job, state: 'cannot start', detail };
    }
  }
  if (conds.some((c) => c.type === 'Failed' && c.status === 'True')) {
    const c = conds.find((x) => x.type === 'Failed')!;
    const detail = [c.reason, c.message].filter(Boolean).map(String).join(': ');
    p.add(id, `the ${where} failed: ${detail}; delete it, and delivery creates it again`);
    return { job, state: 'failed', detail };
  }
  if (mine?.startsWith('waiting: ')) return { job, state: 'waiting', detail: mine.slice('waiting: '.length) };
  return { job, state: 'running' };
}

/**
 * A member's Service export left in the leader after its ServiceExport went: Antrea's member drops
 * the ServiceExport reconciles that come before its connection to the leader (antrea-mc.md §i), so
 * after any restart of its controller it does not know it exported a quiet Service, and never
 * withdraws it when its ServiceExport is deleted. The member's restart Job makes good what its own
 * restarts would lose; an operator's restart does not. Named with what it means and the fix.
 */
function leftoverExports(inp: StatusInput, id: string, p: Problems): void {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  const own = inp.reads.get(id);
  if (!leader || leader.unreachable || !own || own.unreachable) return;
  const exports = listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)) ?? [];
  const present = listOf(own, SERVICE_EXPORTS_ALL);
  if (present === undefined) return;
  const have = new Set(present.map((o) => `${String((o.metadata as Obj).namespace)}/${nameOf(o)}`));
  for (const e of exports) {
    const spec = (e.spec as Obj | undefined) ?? {};
    if (spec.kind !== 'Service' || spec.clusterID !== id) continue;
    if ((e.metadata as Obj | undefined)?.deletionTimestamp) continue; // being withdrawn
    const svc = `${String(spec.namespace)}/${String(spec.name)}`;
    if (have.has(svc)) continue;
    const names = [nameOf(e), serviceExportName(id, String(spec.namespace), String(spec.name), 'endpoints')];
    p.add(
      plan.services.some((x) => `${x.namespace}/${x.name}` === svc) ? svc : id,
      `${id} has no ServiceExport ${svc}, yet its export ${nameOf(e)} is still in the leader: Antrea's member controller did not withdraw it ` +
        `(it drops what it sees before it connects to the leader, so after a restart of the controller it does not know it exported ${svc}, and the deletion of the ServiceExport went unheeded). ` +
        `Withdraw it: \`kubectl --context <${plan.leader.id}> -n ${plan.leaderNamespace} delete resourceexport ${names.join(' ')}\` ` +
        `(the reconciler releases their finalizers and takes ${id}'s endpoints out of the import), or restart Antrea's member controller in ${id}: once connected, its stale cleanup deletes them`,
    );
  }
}

function serviceReport(inp: StatusInput, svc: PlannedService, p: Problems): ServiceReport {
  const { plan } = inp;
  const what = `${svc.namespace}/${svc.name}`;
  const leader = inp.reads.get(plan.leader.id);
  const exportsList =
    leader && !leader.unreachable
      ? listOf(leader, kindKey('ResourceExport', plan.leaderNamespace))
      : undefined;
  const ipOwner = new Map<string, string>();
  const exporters: ExporterReport[] = svc.exportedFrom.map((id) => {
    const own = inp.reads.get(id);
    const se =
      own && !own.unreachable
        ? findNamed(listOf(own, kindKey('ServiceExport', svc.namespace)), svc.name)
        : undefined;
    const valid = conditionOf(se, 'Valid');
    if (own && !own.unreachable) {
      if (!se) p.add(what, `${id} has no ServiceExport`);
      else if (valid?.status !== 'True')
        p.add(what, `${id}'s ServiceExport is not Valid (${describeCondition(valid)})`);
    }
    const re = findNamed(exportsList, serviceExportName(id, svc.namespace, svc.name, 'service'));
    const ep = findNamed(exportsList, serviceExportName(id, svc.namespace, svc.name, 'endpoints'));
    const ips = addressesOf(((ep?.spec as Obj | undefined)?.endpoints as Obj | undefined)?.subsets);
    for (const ip of ips) ipOwner.set(ip, id);
    const cond = conditionOf(re);
    if (exportsList) {
      if (!re)
        p.add(
          what,
          `${id} exports nothing to the leader (no ResourceExport ${serviceExportName(id, svc.namespace, svc.name, 'service')})`,
        );
      else if (!cond) p.add(what, `${id}'s export has no status yet: is the reconciler running?`);
      else if (cond.type !== 'Succeeded')
        p.add(what, `${id}'s export is refused: ${[cond.reason, cond.message].filter(Boolean).join(': ')}`);
    }
    return {
      cluster: id,
      reachable: own !== undefined && own.unreachable === undefined,
      serviceExportPresent: se !== undefined,
      ...(valid ? { serviceExport: valid } : {}),
      export: {
        known: exportsList !== undefined,
        present: re !== undefined,
        ...(cond ? { condition: cond } : {}),
      },
      endpoints: ips.length,
    };
  });
  const expected = exporters
    .filter((e) => e.export.condition?.type === 'Succeeded' && e.endpoints > 0)
    .map((e) => e.cluster)
    .sort();
  const importers: ImporterReport[] = [];
  for (const m of plan.members) {
    const own = inp.reads.get(m.id);
    if (!own || own.unreachable) continue;
    const eps = findNamed(listOf(own, kindKey('Endpoints', svc.namespace)), memberImportName(svc.name));
    const ips = addressesOf(eps?.subsets);
    const from = [...new Set(ips.map((ip) => ipOwner.get(ip) ?? 'unknown'))].sort();
    importers.push({ cluster: m.id, present: eps !== undefined, endpoints: ips.length, from });
    if (expected.length > 0 && from.join(',') !== expected.join(','))
      p.add(
        what,
        eps === undefined
          ? `${m.id} has not imported it (no Endpoints ${svc.namespace}/${memberImportName(svc.name)})`
          : `${m.id} reaches it through ${from.length > 0 ? from.join(', ') : 'no exporter'}, not ${expected.join(', ')}`,
      );
  }
  const reachable = importers.some((i) => i.endpoints > 0);
  if (!reachable && importers.length > 0)
    p.add(what, 'no member can reach it: no member holds an endpoint for it');
  return { namespace: svc.namespace, name: svc.name, exporters, importers, reachable };
}

/** Antrea's member controller writes the cluster ID last: "... in importing cluster <id>". */
function eventCluster(message: string): string | undefined {
  return /cluster (\S+)$/.exec(message)?.[1];
}

function policyReport(inp: StatusInput, pol: PlannedPolicy, p: Problems): PolicyReport {
  const { plan } = inp;
  const object = pol.kind === 'baseline' ? memberImportName(pol.name) : pol.name;
  const tier = pol.tier ?? 'application';
  const leader = inp.reads.get(plan.leader.id);
  const events = (
    leader && !leader.unreachable
      ? (listOf(leader, kindKey('Event', plan.leaderNamespace, `reason=${ACNP_IMPORT_FAILED}`)) ?? [])
      : []
  ).filter(
    (e) => ((e.involvedObject as Obj | undefined)?.name as string | undefined) === acnpImportName(pol.name),
  );
  const members: PolicyMemberReport[] = [];
  for (const id of pol.members) {
    const own = inp.reads.get(id);
    if (!own || own.unreachable) continue;
    const present = findNamed(listOf(own, kindKey('ClusterNetworkPolicy')), object) !== undefined;
    const tierPresent =
      BUILTIN_TIERS.includes(tier) || findNamed(listOf(own, kindKey('Tier')), tier) !== undefined;
    // Antrea's Events outlive what they report (an hour): shown only while the policy is missing.
    const mine = events
      .filter((e) => !present && eventCluster(String(e.message ?? '')) === id)
      .map((e) => String(e.message ?? ''))
      .sort();
    const msgs = [...new Set(mine)];
    members.push({ cluster: id, present, tier, tierPresent, events: msgs });
    const what = `policy ${pol.name}`;
    if (!present) p.add(what, `${id} does not hold ClusterNetworkPolicy ${object}`);
    if (!tierPresent) p.add(what, `${id} has no Tier ${tier}`);
    for (const m of msgs) p.add(what, `${id}: Antrea could not import it: ${m}`);
  }
  return { name: pol.name, kind: pol.kind, object, members };
}

function identityReport(inp: StatusInput, p: Problems): IdentityReport | undefined {
  const { plan } = inp;
  const leader = inp.reads.get(plan.leader.id);
  if (!leader || leader.unreachable) return undefined;
  const res = listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)) ?? [];
  const ris = listOf(leader, kindKey('ResourceImport', plan.leaderNamespace)) ?? [];
  const ofKind = (list: readonly Obj[], kind: string) =>
    list.filter((o) => (o.spec as Obj | undefined)?.kind === kind);
  const refused = [...ofKind(res, 'LabelIdentity'), ...ofKind(res, 'ClusterInfo')]
    .filter((o) => conditionOf(o)?.type === 'Failure')
    .map((o) => `${nameOf(o)}: ${describeCondition(conditionOf(o))}`)
    .sort();
  for (const r of refused) p.add('identities', `export refused: ${r}`);
  const labelImports = ofKind(ris, 'LabelIdentity');
  const infoImports = ofKind(ris, 'ClusterInfo').map(nameOf);
  for (const m of plan.members) {
    const own = inp.reads.get(m.id);
    if (!own || own.unreachable) continue;
    const held = listOf(own, kindKey('LabelIdentity'))?.length;
    if (m.enableStretchedNetworkPolicy && held !== undefined && held !== labelImports.length)
      p.add(m.id, `holds ${held} label identities; the leader has ${labelImports.length}`);
    const infos = listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace))?.length;
    const want = infoImports.filter((n) => n !== clusterInfoName(m.id)).length;
    if (infos !== undefined && infos !== want)
      p.add(m.id, `holds ${infos} ClusterInfo imports; the leader has ${want} for it`);
  }
  return {
    labelIdentities: { exports: ofKind(res, 'LabelIdentity').length, imports: labelImports.length },
    clusterInfos: { exports: ofKind(res, 'ClusterInfo').length, imports: infoImports.length },
    refused,
  };
}

/**
 * A member of a ClusterSet being uninstalled: what is left of it, each a problem until it is gone,
 * in the order it goes (docs/runbook.md, "Step 9: uninstall").
 */
function leaving(inp: StatusInput, id: string, p: Problems): NonNullable<ClusterReport['leaving']> {
  const { plan } = inp;
  const readable = (r: ClusterRead | undefined) => (r && !r.unreachable ? r : undefined);
  const own = readable(inp.reads.get(id));
  const leader = readable(inp.reads.get(plan.leader.id));
  const count = (list: readonly Obj[] | undefined, keep: (o: Obj) => boolean = () => true) =>
    list === undefined ? undefined : list.filter(keep).length;
  const clusterSet = count(
    listOf(own, kindKey('ClusterSet', plan.memberNamespace)),
    (o) => nameOf(o) === plan.clusterSetId,
  );
  const announce = count(
    listOf(leader, kindKey('MemberClusterAnnounce', plan.leaderNamespace)),
    (o) => nameOf(o) === announceName(id),
  );
  const exports = count(
    listOf(leader, kindKey('ResourceExport', plan.leaderNamespace)),
    (o) => (o.spec as Obj | undefined)?.clusterID === id,
  );
  const imports = own
    ? [
        ...plan.serviceNamespaces.map((ns) => listOf(own, kindKey('ServiceImport', ns))),
        listOf(own, kindKey('LabelIdentity')),
        listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace)),
        listOf(own, kindKey('ClusterNetworkPolicy'))?.filter(
          (o) => IMPORTED_ACNP_ANNOTATION in annotations(o),
        ),
      ]
    : [];
  const imported =
    own && imports.every((l) => l !== undefined) ? imports.reduce((n, l) => n + l!.length, 0) : undefined;
  if (clusterSet)
    p.add(
      id,
      `still joined: its ClusterSet ${plan.memberNamespace}/${plan.clusterSetId} is there (its delivery deletes it)`,
    );
  if (announce)
    p.add(
      id,
      `has not left the leader: MemberClusterAnnounce ${announceName(id)} is still there (Antrea's member deletes it once its ClusterSet is gone)`,
    );
  if (exports) p.add(id, `${exports} of its exports are still in the leader (the reconciler deletes them)`);
  if (imported)
    p.add(
      id,
      `still holds ${imported} objects Antrea imported (Antrea's member deletes them once it has left)`,
    );
  return {
    ...(clusterSet !== undefined ? { clusterSet } : {}),
    ...(announce !== undefined ? { announce } : {}),
    ...(exports !== undefined ? { exports } : {}),
    ...(imported !== undefined ? { imported } : {}),
  };
}

function delivery(plan: Plan): { deliveryManagers?: readonly string[] } {
  const tools = deliveryManagers(plan);
  return tools ? { deliveryManagers: tools } : {};
}

export function statusReport(inp: StatusInput): StatusReport {
  const { plan } = inp;
  const p = new Problems();
  if (plan.uninstall) {
    // Only the leader still holds a bundle; the members are reported by what is left of them.
    const clusters = [
      plan.leader.id,
      ...plan.members.map((m) => m.id).filter((id) => id !== plan.leader.id),
    ].map((id) => {
      const c = clusterReport(inp, id, p);
      return plan.members.some((m) => m.id === id) ? { ...c, leaving: leaving(inp, id, p) } : c;
    });
    return {
      version: 1,
      uninstalling: true,
      clusterSet: plan.clusterSetId,
      leader: plan.leader.id,
      ...delivery(plan),
      at: new Date(inp.nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ok: p.lines.length === 0,
      clusters,
      services: [],
      policies: [],
      problems: p.lines,
    };
  }
  const ids = [plan.leader.id, ...plan.members.map((m) => m.id).filter((id) => id !== plan.leader.id)];
  const clusters = ids.map((id) => {
    const c = clusterReport(inp, id, p);
    if (!plan.members.some((m) => m.id === id)) return c;
    const own = inp.reads.get(id);
    const identities =
      c.reachable && own
        ? {
            identities: {
              labelIdentities: listOf(own, kindKey('LabelIdentity'))?.length ?? 0,
              clusterInfoImports:
                listOf(own, kindKey('ClusterInfoImport', plan.memberNamespace))?.length ?? 0,
            },
          }
        : {};
    const restart = c.reachable ? restartReport(inp, id, p) : undefined;
    leftoverExports(inp, id, p);
    return { ...c, membership: membership(inp, id, p), ...identities, ...(restart ? { restart } : {}) };
  });
  const services = plan.services.map((s) => serviceReport(inp, s, p));
  const policies = [...plan.baselinePolicies, ...plan.stretchedPolicies]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((pol) => policyReport(inp, pol, p));
  const identities = identityReport(inp, p);
  return {
    version: 1,
    clusterSet: plan.clusterSetId,
    leader: plan.leader.id,
    ...delivery(plan),
    at: new Date(inp.nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ok: p.lines.length === 0,
    clusters,
    services,
    policies,
    ...(identities ? { identities } : {}),
    problems: p.lines,
  };
}
