/**
 * What a member that joins needs that no bundle of it holds, in the two places the After merge block
 * puts it: before its first sync, the exported Services' Namespaces and Antrea's own settings, as
 * `explain` lists them (memberPrerequisites, from explain/prerequisites.ts, the one source); once
 * merged, its registration with Argo CD or its kubeconfig for Flux, then its leader token, by
 * `clusterset token` or by External Secrets (joinSteps). Its gateway Nodes are gateways.ts's, the
 * settings of Antrea's member controller member-config.ts's.
 */
import { MEMBER_CONFIG_KEY } from '../../antrea-member-config';
import { antreaSettings, serviceNamespaces } from '../../explain/prerequisites';
import { memberTokenReaderName } from '../../names';
import type { Plan } from '../../plan';
import { joinAnd } from '../describe';
import type { TreeDiff } from '../tree';
import { added, at, clusterBundle, deliveryFor, isObj, objName, str } from './util';

/**
 * What joining member `id` needs before its first sync that no bundle of it holds, from the one
 * source `explain` prints it from (explain/prerequisites.ts): the exported Services' Namespaces,
 * which the application teams own unless the model takes them over (and then its bundle renders
 * them: any the bundle renders is left out), and the settings Antrea's agent and controller must
 * have there for the model's features (the member controller's own file is member-config.ts's).
 * Needs the plan of the model after the change: no bundle says either.
 */
export function memberPrerequisites(diff: TreeDiff, id: string, plan: Plan | undefined): string[] {
  const c = plan?.clusters.find((x) => x.id === id);
  if (!plan || !c) return [];
  const steps: string[] = [];
  const ctx = `kubectl --context <${id}>`;
  const rendered = new Set(
    (clusterBundle(diff, id)?.objects ?? [])
      .filter((x) => x.kind === 'Namespace' && x.after !== undefined)
      .map((x) => x.name),
  );
  const ns = serviceNamespaces(plan, c);
  if (ns && ns.renderedBy === 'application-teams') {
    const forExports = ns.forExports.filter((n) => !rendered.has(n));
    const forImports = ns.forImports.filter((n) => !rendered.has(n));
    const it = (xs: readonly string[], one: string, many: string): string => (xs.length > 1 ? many : one);
    const why = [
      ...(forExports.length > 0
        ? [
            `${joinAnd(forExports)} (its ServiceExports live there: its bundle applies only once ${it(forExports, 'it exists', 'they exist')})`,
          ]
        : []),
      ...(forImports.length > 0
        ? [
            `${joinAnd(forImports)} (imports only: Antrea imports into ${it(forImports, 'it', 'them')} once ${it(forImports, 'it exists', 'they exist')})`,
          ]
        : []),
    ];
    const all = [...forExports, ...forImports];
    if (all.length > 0)
      steps.push(
        `before ${id}'s first sync, create the exported Services' Namespace${all.length > 1 ? 's' : ''} there, which the application teams own (takeOver.serviceNamespaces is off), as \`npx clusterset explain --cluster ${id}\` lists ${all.length > 1 ? 'them' : 'it'}: ${why.join('; ')}: ${joinAnd(all.map((n) => `\`${ctx} create namespace ${n}\``))}`,
      );
  }
  // Antrea's agent and controller read their files only at start.
  const readers = {
    'antrea-agent.conf': 'daemonset antrea-agent',
    'antrea-controller.conf': 'deployment antrea-controller',
  } as const;
  const files = new Map<keyof typeof readers, { configMap: string; settings: string[] }>();
  for (const s of antreaSettings(plan, c)) {
    if (s.file === MEMBER_CONFIG_KEY) continue;
    const f = files.get(s.file) ?? { configMap: s.configMap, settings: [] };
    f.settings.push(`${s.setting}: ${s.value}`);
    files.set(s.file, f);
  }
  if (files.size > 0) {
    const where = [...files].map(
      ([file, f]) => `in ${file} (ConfigMap ${f.configMap}), ${joinAnd(f.settings.map((x) => `\`${x}\``))}`,
    );
    const restarts = [...files].map(([file, f]) => {
      const ns = f.configMap.split('/')[0]!;
      return `\`${ctx} -n ${ns} rollout restart ${readers[file]}\``;
    });
    steps.push(
      `before ${id}'s first sync, enable in Antrea's install there what the model's features need, as \`npx clusterset explain --cluster ${id}\` lists it with the reasons: ${where.join('; ')}; then restart what reads ${files.size > 1 ? 'them' : 'it'}, only at start: ${joinAnd(restarts)}`,
    );
  }
  return steps;
}

/**
 * How long a checklist's `clusterset token` waits for the leader's token Secret: the leader's bundle
 * syncs after the merge or the bootstrap, within a delivery tool's poll (Argo CD's 3 minutes).
 */
const TOKEN_STEP_WAIT_SECONDS = 600;

/**
 * How a new member gets its leader token: `clusterset token`, or, when its bundle brings an
 * ExternalSecret, what External Secrets needs that no bundle can hold (the leader trusting the
 * store's identity, a bootstrap token Secret, a CA ConfigMap).
 */
function tokenSteps(diff: TreeDiff, id: string, leader: string | undefined): string[] {
  const es = added(diff, id, 'ExternalSecret');
  if (es === undefined)
    return [
      `copy ${id}'s token from the leader (it waits until the leader's bundle has created the token Secret and Kubernetes has filled it): \`npx clusterset token ${id} --leader-context <${leader ?? 'leader'}> --member-context <${id}> --wait ${TOKEN_STEP_WAIT_SECONDS}\``,
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
 * What joining member `id` needs once merged, in order: its registration with Argo CD and its
 * kubeconfig for Flux, which start its first sync (none from a tool this change brings: its
 * bootstrap registers every cluster, delivery.ts), then its token (tokenSteps).
 */
export function joinSteps(
  diff: TreeDiff,
  id: string,
  o: { readonly leader: string | undefined; readonly newArgoCd: boolean; readonly newFlux: boolean },
): string[] {
  const steps: string[] = [];
  for (const app of o.newArgoCd ? [] : deliveryFor(diff, 'Application', id, 'added')) {
    const dest =
      str(at(app.after, 'spec', 'destination', 'server')) ??
      str(at(app.after, 'spec', 'destination', 'name'));
    steps.push(
      `register ${id} with Argo CD${dest ? ` as \`${dest}\`` : ''}: \`argocd cluster add <${id}> --name ${id}\``,
    );
  }
  const secrets = new Map<string, { ns: string; key: string }>();
  for (const ks of o.newFlux ? [] : deliveryFor(diff, 'Kustomization', id, 'added')) {
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
  return steps;
}
