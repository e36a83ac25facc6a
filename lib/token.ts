/**
 * The one bootstrap step of a member without External Secrets: copy the member's token from the
 * leader into the Secret the member ClusterSet names, between two kubeconfigs, without the token
 * ever reaching a terminal, a log or an error message.
 *
 * The leader's token controller fills the member's token Secret (`member-<id>`, or the model's
 * `memberIdentity.tokenSecret`: a `kubernetes.io/service-account-token` Secret the leader bundle
 * renders with no data), and the copy goes to the Secret the member ClusterSet names
 * (`secrets.memberTokenSecretName`, or `memberIdentity.memberTokenSecret`). Antrea's member
 * controller reads only `ca.crt` and `token` from the member Secret (antrea-mc.md §b). So exactly
 * those two keys are written, type
 * Opaque, by server-side apply with field manager `clusterset`: running it again changes nothing,
 * and a re-issued token replaces the old one.
 *
 * Each side is the kubeconfig context named as its cluster ID unless another is given, never the
 * current context. Unless the member is the leader, one API server for both sides is refused, by
 * every evidence there is: the model's two `apiServer` URLs, the two contexts' servers, and each
 * context's server against the other side's `apiServer` in the model (URLs compared normalised:
 * scheme and host in lower case, the default port written out, trailing slashes dropped).
 *
 * Every failure is a TokenError whose message is scrubbed of the token (raw and base64) and never
 * carries the client's exception, whose message embeds whole response bodies.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Secret } from '@kubernetes/client-node';
import { didYouMean, orClosest } from './check/util';
import { KubeconfigError, loadKubeconfig, normaliseServer } from './kubeconfig';
import { TOKEN_SECRET_KEYS } from './names';
import { identityOf, type Plan } from './plan';

/** Field manager of the member Secret, so that its owner is visible in managedFields. */
export const TOKEN_FIELD_MANAGER = 'clusterset';

/** A failure of the token copy, safe to print: no secret value, no raw response body. */
export class TokenError extends Error {
  override name = 'TokenError';
  /**
   * The command was asked for something it must not or cannot do, before any cluster was called: a
   * cluster ID that is no member, a kubeconfig or context that cannot be used, a member context that
   * reaches the leader. The CLI exits 2 for these (usage), 1 for the rest.
   */
  readonly usage: boolean;
  constructor(message: string, opts: { readonly usage?: boolean } = {}) {
    super(message);
    this.usage = opts.usage ?? false;
  }
}

/** Where one side of the copy happens: a kubeconfig file and a context in it. */
export interface KubeTarget {
  /** @default - $KUBECONFIG, else ~/.kube/config */
  readonly kubeconfig?: string;
  /**
   * Never the kubeconfig's current context: with no flags at all, that one context would be both
   * sides and the leader's token would be copied into the leader itself.
   * @default - the context named as the cluster's ID (the leader's, or the member's), as `status` picks one per cluster
   */
  readonly context?: string;
}

/** What to copy and between which clusters; the model's plan supplies every name. */
export interface CopyTokenOptions {
  readonly plan: Plan;
  /** Member cluster ID. */
  readonly member: string;
  readonly leader: KubeTarget;
  readonly memberCluster: KubeTarget;
  /**
   * How long to wait for the leader's bundle to create the Secret and its token controller to fill
   * it. @default 30000
   */
  readonly waitMs?: number;
  /** Poll interval while waiting. @default 500 */
  readonly pollMs?: number;
}

/** What was done, with names and sizes only. */
export interface CopyTokenResult {
  readonly member: string;
  readonly leaderContext: string;
  readonly leaderServer: string;
  readonly leaderSecret: string;
  readonly memberContext: string;
  readonly memberServer: string;
  readonly memberSecret: string;
  /** Byte counts of the copied keys. */
  readonly bytes: Readonly<Record<(typeof TOKEN_SECRET_KEYS)[number], number>>;
  /** `created`, `updated` (value or keys changed) or `unchanged`. */
  readonly outcome: 'created' | 'updated' | 'unchanged';
  /** Keys other than ca.crt and token found in an existing member Secret, removed. */
  readonly removedKeys: readonly string[];
}

/** One side of the copy, resolved: a client and names for messages. */
interface Side {
  readonly role: 'leader' | 'member';
  readonly context: string;
  readonly server: string;
  readonly api: CoreV1Api;
}

/** `role`'s side: its kubeconfig, and its context there (by default the one named `clusterId`). */
function openSide(role: Side['role'], t: KubeTarget, clusterId: string): Side {
  const flag = `--${role}-kubeconfig`;
  let kc: ReturnType<typeof loadKubeconfig>['kc'];
  let source: string;
  try {
    ({ kc, source } = loadKubeconfig(t.kubeconfig));
  } catch (e) {
    if (!(e instanceof KubeconfigError)) throw e;
    throw new TokenError(`${role}: ${e.message}; pass ${flag} FILE with a context for ${clusterId}`, {
      usage: true,
    });
  }
  const context = t.context ?? clusterId;
  const ctx = kc.getContextObject(context);
  if (!ctx) {
    const known = kc.getContexts().map((c) => c.name);
    const fix =
      t.context === undefined
        ? `pass --${role}-context (by default the context named as the ${role}'s cluster ID, ${clusterId})`
        : `pass --${role}-context naming one of them`;
    throw new TokenError(
      `no context ${JSON.stringify(context)} in the ${role} kubeconfig ${source}` +
        ` (it has: ${known.join(', ')}); ${orClosest(context, known, fix)}`,
      { usage: true },
    );
  }
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster)
    throw new TokenError(
      `context ${JSON.stringify(context)} of the ${role} kubeconfig ${source} names cluster ` +
        `${JSON.stringify(ctx.cluster)}, which that kubeconfig does not define`,
      { usage: true },
    );
  kc.setCurrentContext(context);
  return { role, context, server: cluster.server, api: kc.makeApiClient(CoreV1Api) };
}

/** `a`, or `a and b` when they are spelled differently. */
function sameOrBoth(a: string, b: string): string {
  return a === b ? a : `${a} and ${b}`;
}

/** HTTP status and the API server's Status message of a failed call, if it was an HTTP failure. */
function apiFailure(e: unknown): { code: number; message: string } | undefined {
  const x = e as { code?: unknown; body?: unknown };
  if (typeof x?.code !== 'number') return undefined;
  let body: unknown = x.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      body = undefined;
    }
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  return { code: x.code, message: typeof message === 'string' ? message : `HTTP ${x.code}` };
}

/** What went wrong in a call to one side, without the client's message (it embeds response bodies). */
function describeFailure(side: Side, doing: string, e: unknown): TokenError {
  const where = `the ${side.role} (context ${side.context}, ${side.server})`;
  const f = apiFailure(e);
  if (!f) {
    const err = e as { code?: unknown; message?: unknown };
    const reason = typeof err?.code === 'string' ? err.code : 'connection failed';
    return new TokenError(`cannot reach ${where} while ${doing}: ${reason}`);
  }
  if (f.code === 401)
    return new TokenError(`${where} did not accept the kubeconfig's credentials while ${doing} (HTTP 401)`);
  if (f.code === 403)
    return new TokenError(
      `permission denied on ${where} while ${doing}: ${f.message}; use a context allowed to do that`,
    );
  return new TokenError(`${where} refused ${doing}: ${f.message} (HTTP ${f.code})`);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Reads the leader Secret until its token controller has filled both keys, or times out. */
async function readFilled(
  side: Side,
  namespace: string,
  name: string,
  waitMs: number,
  pollMs: number,
): Promise<Record<string, string>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let secret: V1Secret;
    try {
      secret = await side.api.readNamespacedSecret({ name, namespace });
    } catch (e) {
      if (apiFailure(e)?.code !== 404) throw describeFailure(side, `reading Secret ${namespace}/${name}`, e);
      // Not there yet: the leader's bundle creates it when it syncs (a checklist runs this right
      // after the bootstrap or the merge); waited for like its token.
      if (Date.now() >= deadline)
        throw new TokenError(
          `Secret ${namespace}/${name} does not exist on the leader (context ${side.context}, ${side.server})` +
            (waitMs > 0 ? ` after ${Math.round(waitMs / 1000)} s` : '') +
            ': apply the leader bundle first (or wait until its Application or Kustomization has synced), then run this again',
        );
      await sleep(pollMs);
      continue;
    }
    const data = secret.data ?? {};
    if (TOKEN_SECRET_KEYS.every((k) => (data[k] ?? '') !== '')) return data;
    if (Date.now() >= deadline) {
      const missing = TOKEN_SECRET_KEYS.filter((k) => (data[k] ?? '') === '');
      throw new TokenError(
        `Secret ${namespace}/${name} on the leader (context ${side.context}) has no ${missing.join(' or ')} after ` +
          `${Math.round(waitMs / 1000)} s: the leader's token controller (kube-controller-manager) has not filled it; ` +
          'check that it runs, or wait and run this again',
      );
    }
    await sleep(pollMs);
  }
}

/** Replaces every occurrence of the secrets (raw and base64) in a text. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 8) continue;
    for (const form of [s, Buffer.from(s, 'utf8').toString('base64')])
      out = out.split(form).join('[redacted]');
  }
  return out;
}

/**
 * Copies member `opts.member`'s token Secret from the leader into the member. Safe to repeat. The
 * token only lives in memory between the two API calls; nothing is printed here.
 */
export async function copyMemberToken(opts: CopyTokenOptions): Promise<CopyTokenResult> {
  const { plan } = opts;
  const member = plan.members.find((m) => m.id === opts.member);
  if (!member) {
    const ids = plan.members.map((m) => m.id);
    throw new TokenError(
      `${JSON.stringify(opts.member)} is not a member of ClusterSet ${plan.clusterSetId} ` +
        `(members: ${ids.join(', ')})${didYouMean(opts.member, ids)}`,
      { usage: true },
    );
  }
  if (plan.externalSecrets) {
    throw new TokenError(
      `the model delivers the token Secret with External Secrets (secrets.externalSecrets): the ExternalSecret ` +
        `${plan.memberNamespace}/${identityOf(member).memberTokenSecret} owns it, and a copy would fight it`,
      { usage: true },
    );
  }
  const distinct = member.id !== plan.leader.id;
  const modelLeader = normaliseServer(plan.leader.apiServer);
  const modelMember = normaliseServer(member.apiServer);
  // One API server under two cluster IDs in the model: whatever the contexts, the token would go
  // back into the leader.
  if (distinct && modelLeader === modelMember) {
    throw new TokenError(
      `the model gives the leader ${plan.leader.id} and the member ${member.id} one API server ` +
        `(${sameOrBoth(plan.leader.apiServer, member.apiServer)}): one cluster under two IDs, so the token would be ` +
        `copied into the leader; give ${member.id} its own API server URL (apiServer) in the model`,
      { usage: true },
    );
  }
  const leader = openSide('leader', opts.leader, plan.leader.id);
  const target = openSide('member', opts.memberCluster, member.id);
  // Two contexts that reach one API server would copy the member's token from the leader into the
  // leader itself and report success, the member still without it; unless the member is the leader.
  if (distinct && normaliseServer(leader.server) === normaliseServer(target.server)) {
    throw new TokenError(
      `the member context ${target.context} and the leader context ${leader.context} reach the same API server ` +
        `(${sameOrBoth(target.server, leader.server)}): ` +
        `the token would be copied into the leader ${plan.leader.id}, not into ${member.id}; ` +
        `pass --member-context naming ${member.id}'s context (and --member-kubeconfig if it is in another file)`,
      { usage: true },
    );
  }
  // A context that reaches the API server the model gives the other side: the member context on the
  // leader (the token copied into the leader), or the leader context on the member.
  if (distinct && normaliseServer(target.server) === modelLeader) {
    throw new TokenError(
      `the member context ${target.context} reaches ${target.server}, the API server the model gives the ` +
        `leader ${plan.leader.id} (${plan.leader.apiServer}): the token would be copied into the leader, not into ` +
        `${member.id}; pass --member-context naming ${member.id}'s context (and --member-kubeconfig if it is in another file)`,
      { usage: true },
    );
  }
  if (distinct && normaliseServer(leader.server) === modelMember) {
    throw new TokenError(
      `the leader context ${leader.context} reaches ${leader.server}, the API server the model gives the ` +
        `member ${member.id} (${member.apiServer}): the token would be read from ${member.id}, not from the leader ` +
        `${plan.leader.id}; pass --leader-context naming ${plan.leader.id}'s context (and --leader-kubeconfig if it is in another file)`,
      { usage: true },
    );
  }
  const leaderNs = plan.leaderNamespace;
  const { tokenSecret: leaderSecret, memberTokenSecret: name } = identityOf(member);
  const ns = plan.memberNamespace;

  const data = await readFilled(leader, leaderNs, leaderSecret, opts.waitMs ?? 30_000, opts.pollMs ?? 500);
  const token = Buffer.from(data.token ?? '', 'base64').toString('utf8');
  const copied = { 'ca.crt': data['ca.crt'] ?? '', token: data.token ?? '' };
  try {
    let before: V1Secret | undefined;
    try {
      before = await target.api.readNamespacedSecret({ name, namespace: ns });
    } catch (e) {
      if (apiFailure(e)?.code !== 404) throw describeFailure(target, `reading Secret ${ns}/${name}`, e);
    }
    const owner = before?.metadata?.ownerReferences?.find((o) => o.kind === 'ExternalSecret');
    if (owner) {
      throw new TokenError(
        `Secret ${ns}/${name} on the member (context ${target.context}) is owned by ExternalSecret ${owner.name}; ` +
          'leave it to External Secrets',
      );
    }
    if (before && before.type !== undefined && before.type !== 'Opaque') {
      throw new TokenError(
        `Secret ${ns}/${name} on the member (context ${target.context}) has type ${before.type}, not Opaque, and a ` +
          'Secret type cannot change: delete it and run this again',
      );
    }
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns },
      type: 'Opaque',
      data: copied,
    };
    let after: V1Secret;
    try {
      after = await target.api.patchNamespacedSecret(
        { name, namespace: ns, body, fieldManager: TOKEN_FIELD_MANAGER, force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    } catch (e) {
      if (apiFailure(e)?.code === 404)
        throw new TokenError(
          `namespace ${ns} does not exist on the member (context ${target.context}, ${target.server}): ` +
            "install Antrea's member controller (or apply the member bundle) first",
        );
      throw describeFailure(target, `applying Secret ${ns}/${name}`, e);
    }
    // Keys another manager put there (e.g. `namespace` from Antrea's documented manual copy) survive a
    // server-side apply; Antrea ignores them, but the Secret should hold exactly what we copied.
    const removedKeys = Object.keys(after.data ?? {})
      .filter((k) => !(TOKEN_SECRET_KEYS as readonly string[]).includes(k))
      .sort();
    if (removedKeys.length > 0) {
      try {
        await target.api.patchNamespacedSecret(
          {
            name,
            namespace: ns,
            body: [
              { op: 'test', path: '/metadata/resourceVersion', value: after.metadata?.resourceVersion },
              ...removedKeys.map((k) => ({
                op: 'remove',
                path: `/data/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
              })),
            ],
            fieldManager: TOKEN_FIELD_MANAGER,
          },
          setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
        );
      } catch (e) {
        throw describeFailure(target, `removing keys ${removedKeys.join(', ')} from Secret ${ns}/${name}`, e);
      }
    }
    const same =
      before !== undefined &&
      TOKEN_SECRET_KEYS.every((k) => before.data?.[k] === copied[k]) &&
      removedKeys.length === 0;
    return {
      member: member.id,
      leaderContext: leader.context,
      leaderServer: leader.server,
      leaderSecret: `${leaderNs}/${leaderSecret}`,
      memberContext: target.context,
      memberServer: target.server,
      memberSecret: `${ns}/${name}`,
      bytes: {
        'ca.crt': Buffer.from(copied['ca.crt'], 'base64').length,
        token: Buffer.from(copied.token, 'base64').length,
      },
      outcome: before === undefined ? 'created' : same ? 'unchanged' : 'updated',
      removedKeys,
    };
  } catch (e) {
    const message =
      e instanceof TokenError ? e.message : `unexpected failure: ${(e as Error)?.name ?? 'error'}`;
    throw new TokenError(scrub(message, [token]), { usage: e instanceof TokenError && e.usage });
  }
}

/** One line saying what copyMemberToken did: names, namespaces, clusters and byte counts only. */
export function describeCopy(r: CopyTokenResult): string {
  const removed = r.removedKeys.length > 0 ? `; removed stale keys ${r.removedKeys.join(', ')}` : '';
  return (
    `member ${r.member}: Secret ${r.memberSecret} ${r.outcome} on ${r.memberContext} (${r.memberServer}) ` +
    `from ${r.leaderSecret} on ${r.leaderContext} (${r.leaderServer}): ca.crt ${r.bytes['ca.crt']} bytes, ` +
    `token ${r.bytes.token} bytes${removed}`
  );
}
