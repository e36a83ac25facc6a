// A compiled ClusterSet on real control planes, for the reconciler's end-to-end tests and benchmark:
// the model compiled, its bundles applied the way Argo CD applies them (members prepared as Antrea's
// member manifest leaves them), the members' real tokens read from the Secrets the controller manager
// filled, and a token for the reconciler's own ServiceAccount, with a kubeconfig holding it.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compile } from '../../lib/compile';
import { identityOf, type Plan } from '../../lib/plan';
import { RECONCILER_CONFIG_KEY, RECONCILER_CONFIG_NAME } from '../../lib/names';
import { loadYaml } from '../../lib/yaml';
import { kubeconfigOf, tokenKubeconfig } from '../helpers/kubeconfig';
import type { ModelDraft } from '../helpers/models';
import type { Auth, Cluster } from '../kube/cluster';
import { request, startClusters } from '../kube/cluster';
import { applyBundle } from '../parties/argocd-apply';
import { eventually } from '../kube/wait';
import { installAntreaMember } from '../parties/antrea-member/install';
import { SimulatedMember } from '../parties/antrea-member/in-leader';

export interface ClusterSetFixture {
  readonly plan: Plan;
  /** Cluster ID → control plane (the leader and FixtureOptions.memberClusters). */
  readonly clusters: Map<string, Cluster>;
  readonly leader: Cluster;
  /** The leader namespace. */
  readonly ns: string;
  /** Member ID → its real token in the leader. */
  readonly tokens: Map<string, string>;
  /** A kubeconfig file authenticating as the reconciler's ServiceAccount (TokenRequest, 6 h). */
  readonly reconcilerKubeconfig: string;
  readonly reconcilerToken: string;
  /** The compiled config.json, as the Deployment mounts it. */
  readonly configPath: string;
  /** Temporary directory of the rendered output and kubeconfigs. */
  readonly dir: string;
}

export interface FixtureOptions {
  /** Members that get a control plane of their own (default: none; only the leader runs). */
  readonly memberClusters?: readonly string[];
  /** Extra kube-apiserver flags for the leader. */
  readonly leaderApiserverArgs?: string[];
  /**
   * Real nodes for the leader (test/kube ClusterOptions.nodes): the leader bundle's reconciler
   * Deployment then runs. @default 0
   */
  readonly leaderNodes?: number;
  /** Runs once the control planes are up, before any bundle is applied (e.g. imports images). */
  readonly beforeApply?: (clusters: ReadonlyMap<string, Cluster>) => Promise<void>;
}

/** Compiles `model`, starts control planes, applies the bundles and collects the credentials. */
export async function setUpClusterSet(
  model: ModelDraft,
  prefix: string,
  opts: FixtureOptions = {},
): Promise<ClusterSetFixture> {
  const r = compile(model);
  if (!r.plan || r.diagnostics.length > 0)
    throw new Error(
      `model does not compile:\n${r.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n')}`,
    );
  const plan = r.plan;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clusterset-${prefix}-`));
  for (const [file, text] of r.files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const ids = [plan.leader.id, ...(opts.memberClusters ?? []).filter((id) => id !== plan.leader.id)];
  const started = await startClusters(
    ids.map((id) => `${prefix}-${id}`),
    {
      ...(opts.leaderApiserverArgs ? { apiserverArgs: opts.leaderApiserverArgs } : {}),
      ...(opts.leaderNodes ? { nodes: { [`${prefix}-${plan.leader.id}`]: opts.leaderNodes } } : {}),
    },
  );
  const clusters = new Map(ids.map((id) => [id, started.get(`${prefix}-${id}`)!]));
  const leader = clusters.get(plan.leader.id)!;
  await opts.beforeApply?.(clusters);
  for (const id of [plan.leader.id, ...ids.filter((i) => i !== plan.leader.id)]) {
    const cluster = clusters.get(id)!;
    if (plan.members.some((m) => m.id === id)) await installAntreaMember(cluster, plan, id);
    const result = await applyBundle(cluster, path.join(dir, 'clusters', id));
    if (result.rejected.length > 0)
      throw new Error(
        `bundle ${id} was not applied cleanly:\n${result.rejected.map((x) => `${x.kind} ${x.name}: ${x.message}`).join('\n')}`,
      );
  }
  const ns = plan.leaderNamespace;
  const tokens = new Map<string, string>();
  for (const m of plan.members) {
    const secret = identityOf(m).tokenSecret;
    tokens.set(
      m.id,
      await eventually(`token in Secret ${ns}/${secret}`, async () => {
        const res = await request(leader.admin, 'GET', `/api/v1/namespaces/${ns}/secrets/${secret}`);
        const data = (res.json as { data?: Record<string, string> } | undefined)?.data;
        return data?.token ? Buffer.from(data.token, 'base64').toString('utf8') : undefined;
      }),
    );
  }
  const reconcilerToken = await tokenFor(leader, ns, 'clusterset-reconciler');
  const reconcilerKubeconfig = path.join(dir, 'reconciler.kubeconfig');
  fs.writeFileSync(reconcilerKubeconfig, kubeconfigFor(leader, 'reconciler', reconcilerToken));
  const cm = loadYaml(
    fs.readFileSync(
      path.join(dir, 'clusters', plan.leader.id, ns, `ConfigMap.${RECONCILER_CONFIG_NAME}.yaml`),
      'utf8',
    ),
  ) as { data: Record<string, string> };
  const configPath = path.join(dir, 'config.json');
  fs.writeFileSync(configPath, cm.data[RECONCILER_CONFIG_KEY]!);
  return { plan, clusters, leader, ns, tokens, reconcilerKubeconfig, reconcilerToken, configPath, dir };
}

/**
 * Creates `objs` (a read-only identity's ServiceAccount in `default`, ClusterRole and
 * ClusterRoleBinding) in `c` as the admin; throws unless each is created.
 */
export async function createRbac(c: Cluster, objs: readonly Record<string, unknown>[]): Promise<void> {
  for (const o of objs) {
    const kind = (o as { kind: string }).kind;
    const p = {
      ServiceAccount: '/api/v1/namespaces/default/serviceaccounts',
      ClusterRole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      ClusterRoleBinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    }[kind];
    if (!p) throw new Error(`createRbac: no collection for ${kind}`);
    const r = await request(c.admin, 'POST', p, o);
    if (r.status !== 201) throw new Error(`${c.name}: create ${kind}: HTTP ${r.status} ${r.body}`);
  }
}

/** A short-lived token of a ServiceAccount (TokenRequest), as its Pod would get one. */
export async function tokenFor(
  cluster: Cluster,
  ns: string,
  sa: string,
  seconds = 6 * 3600,
): Promise<string> {
  const tr = await request(cluster.admin, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: seconds },
  });
  const token = (tr.json as { status?: { token?: string } } | undefined)?.status?.token;
  if (!token) throw new Error(`TokenRequest for ${ns}/${sa}: HTTP ${tr.status} ${tr.body}`);
  return token;
}

/** A kubeconfig (JSON) for `cluster` with a bearer token. */
export function kubeconfigFor(cluster: Cluster, user: string, token: string): string {
  return JSON.stringify(tokenKubeconfig(cluster, user, token), null, 2) + '\n';
}

/**
 * A kubeconfig (JSON) with one context per cluster, named by its ID, each with the user `user`
 * gives for it (a bearer token, or a client certificate and key); `current` is current.
 */
export function contextsKubeconfig(
  clusters: ReadonlyMap<string, Cluster>,
  user: (id: string, c: Cluster) => { readonly name: string; readonly user: Record<string, string> },
  current: string,
): string {
  const ids = [...clusters.keys()];
  const users = ids.map((id) => user(id, clusters.get(id)!));
  return JSON.stringify(
    kubeconfigOf({
      clusters: ids.map((id) => ({
        name: id,
        cluster: { server: clusters.get(id)!.server, 'certificate-authority-data': clusters.get(id)!.caData },
      })),
      users,
      contexts: ids.map((id, i) => ({ name: id, context: { cluster: id, user: users[i]!.name } })),
      'current-context': current,
    }),
  );
}

/** Bearer-token credentials for raw requests to the leader. */
export function leaderAuth(f: ClusterSetFixture, token: string): Auth {
  return { server: f.leader.server, ca: f.leader.caPem, token };
}

/** Member `id` of the fixture as the member tests play it (its own control plane, when it has one). */
export function simulatedMember(f: ClusterSetFixture, id: string): SimulatedMember {
  return new SimulatedMember(
    id,
    f.leader,
    f.tokens.get(id)!,
    f.ns,
    f.plan.clusterSetId,
    f.plan.leader.id,
    f.clusters.get(id),
  );
}
