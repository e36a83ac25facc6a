/**
 * The one bootstrap step of a member without External Secrets: copy the member's token from the
 * leader into the Secret the member ClusterSet names, between two kubeconfigs, without the token
 * ever reaching a terminal, a log or an error message.
 *
 * The leader's token controller fills `member-<id>` (a `kubernetes.io/service-account-token` Secret
 * the leader bundle renders with no data); Antrea's member controller reads only `ca.crt` and
 * `token` from the member Secret (antrea-mc.md §b). So exactly those two keys are written, type
 * Opaque, by server-side apply with field manager `clusterset`: running it again changes nothing,
 * and a re-issued token replaces the old one.
 *
 * Every failure is a TokenError whose message is scrubbed of the token (raw and base64) and never
 * carries the client's exception, whose message embeds whole response bodies.
 */
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { memberIdentityName, TOKEN_SECRET_KEYS } from './names';
import type { Plan } from './plan';

/** Field manager of the member Secret, so that its owner is visible in managedFields. */
export const TOKEN_FIELD_MANAGER = 'clusterset';

/** A failure of the token copy, safe to print: no secret value, no raw response body. */
export class TokenError extends Error {
  override name = 'TokenError';
}

/** Where one side of the copy happens: a kubeconfig file (default: $KUBECONFIG or ~/.kube/config) and a context. */
export interface KubeTarget {
  /** @default - the default kubeconfig */
  readonly kubeconfig?: string;
  /** @default - the kubeconfig's current context */
  readonly context?: string;
}

/** What to copy and between which clusters; the model's plan supplies every name. */
export interface CopyTokenOptions {
  readonly plan: Plan;
  /** Member cluster ID. */
  readonly member: string;
  readonly leader: KubeTarget;
  readonly memberCluster: KubeTarget;
  /** How long to wait for the leader's token controller to fill the Secret. @default 30000 */
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

function openSide(role: Side['role'], t: KubeTarget): Side {
  const kc = new KubeConfig();
  try {
    if (t.kubeconfig !== undefined) kc.loadFromFile(t.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    throw new TokenError(
      `cannot read the ${role} kubeconfig ${t.kubeconfig ?? '(default)'}: ${(e as Error).message}`,
    );
  }
  const context = t.context ?? kc.getCurrentContext();
  const ctx = context ? kc.getContextObject(context) : null;
  if (!ctx) {
    const known = kc.getContexts().map((c) => c.name);
    throw new TokenError(
      `no context ${JSON.stringify(context ?? '')} in the ${role} kubeconfig ${t.kubeconfig ?? '(default)'}` +
        ` (it has: ${known.length > 0 ? known.join(', ') : 'none'}); pass --${role}-context`,
    );
  }
  kc.setCurrentContext(context);
  const cluster = kc.getCluster(ctx.cluster);
  return { role, context, server: cluster?.server ?? '(unknown server)', api: kc.makeApiClient(CoreV1Api) };
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
      if (apiFailure(e)?.code === 404)
        throw new TokenError(
          `Secret ${namespace}/${name} does not exist on the leader (context ${side.context}, ${side.server}): ` +
            'apply the leader bundle first',
        );
      throw describeFailure(side, `reading Secret ${namespace}/${name}`, e);
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
    throw new TokenError(
      `${JSON.stringify(opts.member)} is not a member of ClusterSet ${plan.clusterSetId} ` +
        `(members: ${plan.members.map((m) => m.id).join(', ')})`,
    );
  }
  if (plan.externalSecrets) {
    throw new TokenError(
      `the model delivers the token Secret with External Secrets (secrets.externalSecrets): the ExternalSecret ` +
        `${plan.memberNamespace}/${plan.memberTokenSecretName} owns it, and a copy would fight it`,
    );
  }
  const leader = openSide('leader', opts.leader);
  const target = openSide('member', opts.memberCluster);
  const leaderNs = plan.leaderNamespace;
  const leaderSecret = memberIdentityName(member.id);
  const ns = plan.memberNamespace;
  const name = plan.memberTokenSecretName;

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
    throw new TokenError(scrub(message, [token]));
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
