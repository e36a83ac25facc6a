/**
 * The token Secret by reference, through External Secrets (when the model configures it).
 *
 * Member side: a namespaced SecretStore (Kubernetes provider, pointed at the leader API server and
 * the leader namespace) and an ExternalSecret that writes the Secret the member ClusterSet names,
 * with exactly the keys Antrea reads (`ca.crt`, `token`), taken from the member's own
 * `kubernetes.io/service-account-token` Secret in the leader. A SecretStore, not a
 * ClusterSecretStore: the leader credential then serves only ExternalSecrets in the member
 * namespace, and ServiceAccount auth can only name a ServiceAccount of the store's own namespace.
 *
 * Leader side: per member, a Role and RoleBinding that give exactly that store's identity `get` on
 * exactly that member's token Secret; no list, no watch, no other Secret.
 *
 * No value is ever rendered: the store holds references (a ServiceAccount, or a bootstrap Secret)
 * and, at most, the leader's CA certificate, which is public.
 */
import { k8s } from 'cdk8s-plus-33';
import {
  ExternalSecret,
  ExternalSecretSpecSecretStoreRefKind,
  ExternalSecretSpecTargetCreationPolicy,
  ExternalSecretSpecTargetDeletionPolicy,
} from '../../generated/externalsecret';
import {
  SecretStore,
  SecretStoreSpecProviderKubernetesServerCaProviderType,
} from '../../generated/secretstore';
import { memberTokenReaderName, TOKEN_SECRET_KEYS } from '../names';
import type { Plan, PlannedCluster, PlannedExternalSecrets } from '../plan';
import { identityOf, storeUsername } from '../plan';
import { SYNC_WAVE, meta, put, type Sink } from './util';

/**
 * Sync wave of the store, its ServiceAccount and the ExternalSecret: the same wave as Namespaces,
 * so before the member ClusterSet (wave 0). Argo CD waits for a wave to be healthy, and an
 * ExternalSecret is healthy once its Secret is written, so Antrea's member controller never finds a
 * ClusterSet whose Secret is missing; it would fail and retry with a backoff that grows to minutes.
 * Within the wave Argo CD applies Namespaces and ServiceAccounts before custom resources.
 */
export const WAVE_TOKEN = '-1';

function externalSecretsOf(plan: Plan): PlannedExternalSecrets {
  if (!plan.externalSecrets) throw new Error('the model does not use External Secrets');
  return plan.externalSecrets;
}

/** The member's SecretStore, its ServiceAccount (with ServiceAccount auth), and the ExternalSecret. */
export function renderMemberExternalSecret(scope: Sink, plan: Plan, member: PlannedCluster): void {
  const x = externalSecretsOf(plan);
  const ns = plan.memberNamespace;
  const wave = { annotations: { [SYNC_WAVE]: WAVE_TOKEN } };
  if ('serviceAccount' in x.auth) {
    const sa = x.auth.serviceAccount.name;
    put(scope, k8s.KubeServiceAccount, {
      metadata: meta(sa, ns, wave),
    });
  }
  put(scope, SecretStore, {
    metadata: meta(x.storeName, ns, wave),
    spec: {
      provider: {
        kubernetes: {
          remoteNamespace: plan.leaderNamespace,
          server: {
            url: plan.leader.apiServer,
            ...('pem' in x.ca
              ? { caBundle: Buffer.from(`${x.ca.pem.trim()}\n`, 'utf8').toString('base64') }
              : {
                  caProvider: {
                    type: SecretStoreSpecProviderKubernetesServerCaProviderType.CONFIG_MAP,
                    name: x.ca.configMap.name,
                    key: x.ca.configMap.key,
                  },
                }),
          },
          auth:
            'serviceAccount' in x.auth
              ? {
                  serviceAccount: {
                    name: x.auth.serviceAccount.name,
                    ...(x.auth.serviceAccount.audiences.length > 0
                      ? { audiences: [...x.auth.serviceAccount.audiences] }
                      : {}),
                  },
                }
              : { token: { bearerToken: { name: x.auth.tokenSecret.name, key: x.auth.tokenSecret.key } } },
        },
      },
    },
  });
  const { tokenSecret: leaderSecret, memberTokenSecret } = identityOf(member);
  put(scope, ExternalSecret, {
    metadata: meta(memberTokenSecret, ns, wave),
    spec: {
      refreshInterval: x.refreshInterval,
      secretStoreRef: { kind: ExternalSecretSpecSecretStoreRefKind.SECRET_STORE, name: x.storeName },
      target: {
        name: memberTokenSecret,
        // Owner: External Secrets creates the Secret in one write, with every key or not at all.
        // Retain: if the leader Secret goes away, the last good token stays (no empty or half Secret).
        creationPolicy: ExternalSecretSpecTargetCreationPolicy.OWNER,
        deletionPolicy: ExternalSecretSpecTargetDeletionPolicy.RETAIN,
      },
      data: TOKEN_SECRET_KEYS.map((key) => ({
        secretKey: key,
        remoteRef: { key: leaderSecret, property: key },
      })),
    },
  });
}

/**
 * In the leader: `member-<id>-token-reader`, `get` on that member's token Secret only (`member-<id>`
 * unless `memberIdentity.tokenSecret` names it), bound to the store's user.
 */
export function renderTokenReaderAccess(scope: Sink, plan: Plan, member: PlannedCluster): void {
  const ns = plan.leaderNamespace;
  const name = memberTokenReaderName(member.id);
  put(scope, k8s.KubeRole, {
    metadata: meta(name, ns),
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: [identityOf(member).tokenSecret],
        verbs: ['get'],
      },
    ],
  });
  put(scope, k8s.KubeRoleBinding, {
    metadata: meta(name, ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: storeUsername(plan, member) }],
  });
}
