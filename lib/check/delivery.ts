/**
 * Delivery: Argo CD, Flux, the gitops repository and member token Secrets (External Secrets).
 */
import { cmp } from '../diagnostics';
import { GO_DURATION } from '../duration';
import type { ClusterSetProps, ExternalSecretsProps } from '../model';
import {
  CLUSTER_PLACEHOLDER,
  DEFAULT_MEMBER_TOKEN_SECRET,
  DNS1123_LABEL,
  DNS1123_SUBDOMAIN,
  deliveryObjectName,
  tiersDeliveryObjectName,
} from '../names';
import {
  type At,
  clusterById,
  clusterName,
  clustersOf,
  isObject,
  memberIds,
  orClosest,
  quote,
  roleReferencesResolve,
  str,
} from './util';
import { isSshOrigin } from '../git-url';
import { someMemberUsesSharedTokenSecret } from './member-identity';
import { type Rule, rule, LABEL_WORDS, checkName } from './rule';

// ---- token Secret references ----

/** `secrets.externalSecrets` when it is an object, with its path. */
function externalSecretsOf(m: ClusterSetProps): At<ExternalSecretsProps> | undefined {
  const secrets: unknown = m.secrets;
  if (!isObject(secrets) || !isObject(secrets.externalSecrets)) return undefined;
  return {
    value: secrets.externalSecrets as unknown as ExternalSecretsProps,
    path: 'secrets.externalSecrets',
    index: 0,
  };
}

/** The keys of `x` (an object or not) among `choices` that are set. */
function chosen(x: unknown, choices: readonly string[]): string[] {
  return isObject(x) ? choices.filter((k) => x[k] !== undefined) : [];
}

/** Data keys of Secrets and ConfigMaps. */
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export const secretRules: readonly Rule[] = [
  rule(
    'secret-reference-names',
    'The token Secret, the SecretStore and every object the store refers to have valid Kubernetes names and keys.',
    'The API server refuses a Secret, SecretStore or ExternalSecret with an invalid name, so the member never gets ' +
      'its token and the member controller never connects to the leader.',
    (m, report) => {
      const secrets: unknown = m.secrets;
      if (isObject(secrets)) {
        checkName(
          report,
          'secrets.memberTokenSecretName',
          secrets.memberTokenSecretName,
          'Secret name',
          253,
          DNS1123_SUBDOMAIN,
          LABEL_WORDS + " and '.'",
        );
      }
      const x = externalSecretsOf(m);
      if (!x) return;
      const names: [string, unknown][] = [[`${x.path}.storeName`, x.value.storeName]];
      const { leaderCA, auth } = x.value as { leaderCA?: unknown; auth?: unknown };
      const keys: [string, unknown][] = [];
      if (isObject(leaderCA) && isObject(leaderCA.configMap)) {
        names.push([`${x.path}.leaderCA.configMap.name`, leaderCA.configMap.name]);
        keys.push([`${x.path}.leaderCA.configMap.key`, leaderCA.configMap.key]);
      }
      if (isObject(auth) && isObject(auth.serviceAccount))
        names.push([`${x.path}.auth.serviceAccount.name`, auth.serviceAccount.name]);
      if (isObject(auth) && isObject(auth.tokenSecret)) {
        names.push([`${x.path}.auth.tokenSecret.name`, auth.tokenSecret.name]);
        keys.push([`${x.path}.auth.tokenSecret.key`, auth.tokenSecret.key]);
      }
      for (const [path, value] of names)
        checkName(report, path, value, 'name', 253, DNS1123_SUBDOMAIN, LABEL_WORDS + " and '.'");
      for (const [path, value] of keys) {
        const key = str(value);
        if (key !== undefined && (key.length > 253 || !DATA_KEY.test(key)))
          report(
            path,
            `key ${quote(key)} is not a valid data key (letters, digits, '-', '_' and '.', at most 253)`,
            'rename the key, e.g. to "ca.crt" or "token"',
          );
      }
    },
  ),
  rule(
    'external-secrets-ca-choice',
    'The leader CA is given exactly one way: a PEM in the model or a ConfigMap in the member.',
    'Without the leader CA, External Secrets cannot verify the leader API server and never writes the token Secret; ' +
      'with both, it is ambiguous which one the store trusts.',
    (m, report) => {
      const x = externalSecretsOf(m);
      if (!x) return;
      const set = chosen(x.value.leaderCA, ['pem', 'configMap']);
      if (set.length !== 1)
        report(
          `${x.path}.leaderCA`,
          set.length === 0
            ? 'the leader CA is not given'
            : 'the leader CA is given both as "pem" and as "configMap"',
          'set exactly one of leaderCA.pem (the PEM of the CA certificate) or leaderCA.configMap (a ConfigMap in each member namespace)',
        );
    },
  ),
  rule(
    'external-secrets-ca-pem',
    'leaderCA.pem holds PEM certificates and nothing else: never a private key.',
    'The PEM is rendered into every member bundle (out/, git): a private key there is a leaked secret, and a PEM that ' +
      'is no certificate makes External Secrets fail TLS to the leader, so the member never gets its token.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const pem = x && isObject(x.value.leaderCA) ? str(x.value.leaderCA.pem) : undefined;
      if (!x || pem === undefined) return;
      // Never quote the value: it may be the very secret we refuse to render.
      if (/PRIVATE KEY/.test(pem))
        report(
          `${x.path}.leaderCA.pem`,
          'leaderCA.pem contains a private key; a private key must never be in the model or in out/',
          'remove the key from the model (and rotate it, since it was in a file), keep only the CA certificate',
        );
      else if (!PEM_CERTIFICATE.test(pem))
        report(
          `${x.path}.leaderCA.pem`,
          'leaderCA.pem holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)',
          "paste the leader CA certificate, e.g. the leader kubeconfig's certificate-authority-data, base64-decoded",
        );
    },
  ),
  rule(
    'external-secrets-auth-choice',
    'The store authenticates to the leader exactly one way: a member ServiceAccount or a bootstrap token Secret.',
    'External Secrets refuses a Kubernetes store with no or several auth methods, and the member never gets its token.',
    (m, report) => {
      const x = externalSecretsOf(m);
      if (!x) return;
      const set = chosen(x.value.auth, ['serviceAccount', 'tokenSecret']);
      if (set.length !== 1)
        report(
          `${x.path}.auth`,
          set.length === 0 ? 'no auth method is given' : 'both "serviceAccount" and "tokenSecret" are given',
          'set exactly one of auth.serviceAccount (the leader trusts the member ServiceAccount issuer) or auth.tokenSecret (a bootstrap Secret)',
        );
    },
  ),
  rule(
    'external-secrets-username-per-member',
    `externalSecrets.leaderUsername contains ${CLUSTER_PLACEHOLDER}, so each member's store is a different leader user.`,
    "The leader grants each store user `get` on its own member's token Secret: one user shared by every member could " +
      "read every member's token and impersonate any member in the leader.",
    (m, report) => {
      const x = externalSecretsOf(m);
      const name = x ? str(x.value.leaderUsername) : undefined;
      if (!x || name === undefined || name.includes(CLUSTER_PLACEHOLDER)) return;
      report(
        `${x.path}.leaderUsername`,
        `leaderUsername ${quote(name)} does not contain ${CLUSTER_PLACEHOLDER}, so every member would be the same leader user`,
        `map each member to its own user in the leader's authenticator and write it with ${CLUSTER_PLACEHOLDER}, e.g. ${quote(`oidc:${CLUSTER_PLACEHOLDER}:system:serviceaccount:kube-system:antrea-mc-token-reader`)}`,
      );
    },
  ),
  rule(
    'external-secrets-token-secret-clash',
    "The store's bootstrap token Secret is not the token Secret the ExternalSecret writes.",
    'External Secrets would overwrite the credential it reads the leader with by the Antrea member token, and stop ' +
      'syncing once that token cannot read the leader Secret.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const auth: unknown = x?.value.auth;
      const name = isObject(auth) && isObject(auth.tokenSecret) ? str(auth.tokenSecret.name) : undefined;
      const secrets: unknown = m.secrets;
      const target =
        (isObject(secrets) ? str(secrets.memberTokenSecretName) : undefined) ?? DEFAULT_MEMBER_TOKEN_SECRET;
      // Every member naming a token Secret of its own leaves the shared name unused: no clash there.
      if (!x || name !== target || !someMemberUsesSharedTokenSecret(m)) return;
      report(
        `${x.path}.auth.tokenSecret.name`,
        `the store's token Secret ${quote(name)} is also the Secret the member ClusterSet names, which the ExternalSecret writes`,
        'give the bootstrap token Secret another name, e.g. "antrea-mc-leader-reader"',
      );
    },
  ),
  rule(
    'external-secrets-refresh-interval',
    'externalSecrets.refreshInterval is a Go duration greater than zero.',
    'External Secrets refuses an invalid interval, and "0" syncs once: a token the leader re-issues would never reach ' +
      'the member, which then loses the leader.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const interval = x ? str(x.value.refreshInterval) : undefined;
      if (!x || interval === undefined) return;
      if (!GO_DURATION.test(interval) || !/[1-9]/.test(interval))
        report(
          `${x.path}.refreshInterval`,
          `refreshInterval ${quote(interval)} is not a Go duration greater than zero`,
          'write it like "1h", "30m" or "1h30m"',
        );
    },
  ),
];

// ---- delivery (Argo CD and Flux) ----

/** `delivery`, `delivery.argocd` and `delivery.flux` when they are objects. */
function deliveryOf(m: ClusterSetProps):
  | {
      d: Record<string, unknown>;
      argocd: Record<string, unknown> | undefined;
      flux: Record<string, unknown> | undefined;
    }
  | undefined {
  const d: unknown = m.delivery;
  if (!isObject(d)) return undefined;
  return {
    d,
    argocd: isObject(d.argocd) ? (d.argocd.enabled !== false ? d.argocd : undefined) : {},
    flux: isObject(d.flux) ? (d.flux.enabled !== false ? d.flux : undefined) : {},
  };
}

/** IDs of the clusters that get a bundle (the leader and the members), as listed. */
function deliveredIds(m: ClusterSetProps): string[] {
  const ids = memberIds(m);
  const leader = str(m.leader);
  if (leader !== undefined) ids.add(leader);
  return [...clusterById(m).keys()].filter((id) => ids.has(id));
}

/** Flux's and Argo CD's duration format (the GitRepository CRD's pattern for `interval`). */
const FLUX_DURATION = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;

function isRepoUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return ['https:', 'http:', 'ssh:'].includes(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

export const deliveryRules: readonly Rule[] = [
  rule(
    'delivery-management-cluster-unknown',
    'The delivery management cluster is a declared cluster.',
    'Argo CD and Flux deliver the management cluster in-cluster and every other one remotely; an unknown ID ' +
      'would deliver every bundle through a kubeconfig or cluster registration that does not exist.',
    (m, report) => {
      const d = deliveryOf(m)?.d;
      const id = str(d?.managementCluster);
      if (id === undefined) return;
      const ids = clusterById(m);
      if (ids.has(id)) return;
      report(
        'delivery.managementCluster',
        `management cluster ${quote(id)} is not a declared cluster`,
        orClosest(id, ids.keys(), 'name the cluster Argo CD and Flux run in, declared in clusters'),
      );
    },
  ),
  rule(
    'delivery-repo-url',
    'The delivery repository URL is an https, http or ssh URL with a host.',
    "Flux's GitRepository refuses any other URL (scp-like `git@host:path` included), so nothing would be " +
      'delivered at all.',
    (m, report) => {
      const url = str(deliveryOf(m)?.d.repoURL);
      if (url === undefined || isRepoUrl(url)) return;
      const scp = /^([^@/:]+@)?([^/:]+):(.+)$/.exec(url);
      report(
        'delivery.repoURL',
        `repository ${quote(url)} is not an https, http or ssh URL`,
        scp
          ? `write it as ${quote(`ssh://${scp[1] ?? ''}${scp[2]}/${scp[3]}`)}`
          : `write it as a URL, e.g. ${quote('https://git.example.com/platform/gitops.git')}`,
      );
    },
  ),
  rule(
    'delivery-flux-ssh-secret',
    'Flux cloning an ssh repository names the Secret with its key: delivery.flux.gitSecretName.',
    "Flux's source-controller clones an ssh:// URL only with a private key and known_hosts from the GitRepository's " +
      'secretRef; without one the GitRepository never becomes Ready, and no Kustomization delivers anything.',
    (m, report) => {
      const x = deliveryOf(m);
      const url = str(x?.d.repoURL);
      if (!x?.flux || url === undefined || !isSshOrigin(url) || x.flux.gitSecretName !== undefined) return;
      const ns = str(x.flux.namespace) ?? 'flux-system';
      report(
        'delivery.flux.gitSecretName',
        `Flux clones ${quote(url)} over ssh, but delivery.flux.gitSecretName is not set: the GitRepository has no key to clone with`,
        `create the Secret (\`flux create secret git gitops-auth --namespace ${ns} --url ${url} --private-key-file <key file>\`, keys identity and known_hosts) and set delivery.flux.gitSecretName: "gitops-auth"; or deliver over https, or set delivery.flux.enabled: false`,
      );
    },
  ),
  rule(
    'delivery-path-format',
    'The delivery path is a relative path inside the repository, without "..".',
    'Argo CD refuses source paths that leave the repository, and Flux resolves them against the repository ' +
      'root: the bundles would not be found.',
    (m, report) => {
      const p = str(deliveryOf(m)?.d.path);
      if (p === undefined) return;
      const segments = p.split('/');
      if (p !== '' && !p.startsWith('/') && !segments.includes('..') && !/[\s\\]/.test(p)) return;
      report(
        'delivery.path',
        `path ${quote(p)} is not a relative path inside the repository`,
        `give the folder of the compiled output relative to the repository root, e.g. ${quote('out')}`,
      );
    },
  ),
  rule(
    'delivery-branch-format',
    'The delivery branch is a valid git branch name.',
    'Argo CD and Flux fail to resolve a branch git cannot name, and deliver nothing.',
    (m, report) => {
      const b = str(deliveryOf(m)?.d.branch);
      if (b === undefined) return;
      const bad =
        b === '' ||
        b.startsWith('-') ||
        b.startsWith('/') ||
        b.endsWith('/') ||
        b.endsWith('.lock') ||
        b.includes('..') ||
        b.includes('@{') ||
        /[\s~^:?*[\\]/.test(b) ||
        [...b].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
      if (!bad) return;
      report(
        'delivery.branch',
        `branch ${quote(b)} is not a valid git branch name`,
        `name a branch, e.g. ${quote('main')}`,
      );
    },
  ),
  rule(
    'delivery-name-format',
    'Delivery namespaces, project and Secret names are valid Kubernetes names.',
    'The API server refuses Applications, Kustomizations and GitRepositories in an invalid namespace or with an ' +
      'invalid reference, and Argo CD refuses an Application whose project cannot exist.',
    (m, report) => {
      const x = deliveryOf(m);
      if (!x) return;
      const label = (path: string, v: unknown, what: string) =>
        checkName(report, path, v, what, 63, DNS1123_LABEL, LABEL_WORDS);
      const subdomain = (path: string, v: unknown, what: string) =>
        checkName(report, path, v, what, 253, DNS1123_SUBDOMAIN, `${LABEL_WORDS}, and '.'`);
      label('delivery.argocd.namespace', x.argocd?.namespace, 'Argo CD namespace');
      subdomain('delivery.argocd.project', x.argocd?.project, 'Argo CD project');
      label('delivery.flux.namespace', x.flux?.namespace, 'Flux namespace');
      subdomain('delivery.flux.gitSecretName', x.flux?.gitSecretName, 'git Secret name');
      const secrets = x.flux?.kubeConfigSecrets;
      if (isObject(secrets)) {
        for (const [id, name] of Object.entries(secrets))
          subdomain(`delivery.flux.kubeConfigSecrets.${id}`, name, 'kubeconfig Secret name');
      }
      const key = str(x.flux?.kubeConfigKey);
      if (key !== undefined && (key.length > 253 || !DATA_KEY.test(key))) {
        report(
          'delivery.flux.kubeConfigKey',
          `kubeconfig key ${quote(key)} is not a valid Secret key (letters, digits, '-', '_' and '.', at most 253)`,
          `use Flux's default key ${quote('value')}, or the key your Secrets hold`,
        );
      }
    },
  ),
  rule(
    'delivery-argocd-project-default',
    'A rendered Argo CD AppProject is not named "default".',
    'Without delivery.argocd.project, an AppProject named the ClusterSet ID is rendered; one named "default" ' +
      "would replace Argo CD's built-in project, which other Applications of that Argo CD may rely on.",
    (m, report) => {
      const x = deliveryOf(m);
      if (!x?.argocd || x.argocd.project !== undefined || str(m.clusterSetId) !== 'default') return;
      report(
        'delivery.argocd',
        `the AppProject rendered for ClusterSet ${quote('default')} would be named ${quote('default')}, Argo CD's built-in project`,
        `set delivery.argocd.project to ${quote('default')} to use the built-in project as it is, or give the ClusterSet another ID`,
      );
    },
  ),
  rule(
    'delivery-kubeconfig-cluster',
    'Flux kubeconfig Secrets are named only for delivered clusters other than the management cluster.',
    'Flux reaches the management cluster in-cluster and never reads a kubeconfig for it; a Secret named for a ' +
      'cluster that gets no bundle, or a misspelt ID, leaves the intended cluster on the default Secret name.',
    (m, report) => {
      const x = deliveryOf(m);
      const secrets = x?.flux?.kubeConfigSecrets;
      if (!x || !isObject(secrets)) return;
      const delivered = deliveredIds(m);
      const management = str(x.d.managementCluster);
      // While the leader or a member names no declared cluster, which clusters get a bundle is not
      // known: the cluster meant would look undelivered.
      const known = roleReferencesResolve(m);
      for (const id of Object.keys(secrets).sort(cmp)) {
        const path = `delivery.flux.kubeConfigSecrets.${id}`;
        if (id === management) {
          report(
            path,
            `cluster ${quote(id)} is the management cluster, which Flux reaches without a kubeconfig`,
            'remove the entry',
          );
        } else if (known && !delivered.includes(id)) {
          report(
            path,
            `${quote(id)} is not a cluster that gets a bundle (the leader or a member)`,
            orClosest(id, delivered, 'remove the entry or name a delivered cluster'),
          );
        }
      }
    },
  ),
  rule(
    'delivery-interval-format',
    'The Flux interval is a Go duration such as "5m" or "1h30m".',
    "Flux's CRDs refuse any other interval: the GitRepository and every Kustomization would be rejected.",
    (m, report) => {
      const interval = deliveryOf(m)?.flux?.interval;
      const i = str(interval);
      if (i === undefined || FLUX_DURATION.test(i)) return;
      report(
        'delivery.flux.interval',
        `interval ${quote(i)} is not a duration made of numbers with the units ms, s, m or h`,
        `write it as e.g. ${quote('5m')} or ${quote('1h30m')}`,
      );
    },
  ),
  rule(
    'delivery-object-name-length',
    'Each delivered cluster\'s Application and Kustomization name, "<clusterSetId>-<cluster>" (with Flux and custom Tiers, also "<clusterSetId>-<cluster>.tiers"), is at most 63 characters.',
    'Flux labels every object it applies with kustomize.toolkit.fluxcd.io/name and Argo CD (label tracking) with ' +
      'app.kubernetes.io/instance, set to that name; a label value over 63 characters makes every apply fail.',
    (m, report) => {
      const set = str(m.clusterSetId);
      if (!deliveryOf(m) || set === undefined) return;
      // With Flux, a bundle with custom Tiers also gets `<set>-<cluster>.tiers` (render/flux.ts); which
      // bundles get Tiers is the plan's business, so any custom Tier counts here.
      const tiers = Boolean(deliveryOf(m)?.flux) && Array.isArray(m.tiers) && m.tiers.length > 0;
      for (const c of clustersOf(m)) {
        if (!deliveredIds(m).includes(c.value.id)) continue;
        const name = tiers ? tiersDeliveryObjectName(set, c.value.id) : deliveryObjectName(set, c.value.id);
        if (name.length <= 63) continue;
        report(
          `${c.path}.id`,
          `the delivery name ${quote(name)} of ${clusterName(c)} is ${name.length} characters long, more than 63`,
          'shorten the ClusterSet ID or the cluster ID',
        );
      }
    },
  ),
  rule(
    'delivery-remote-leader-users',
    'When the leader is not the management cluster, admission.deliveryUsers names the identity Argo CD or Flux uses there.',
    "The leader's compiled-imports admission policy admits only the delivery users, by default the in-cluster " +
      'controllers of the management cluster; a remote leader sees another identity, and every compiled ' +
      'ResourceImport would be refused.',
    (m, report) => {
      const x = deliveryOf(m);
      const management = str(x?.d.managementCluster);
      const leader = str(m.leader);
      if (!x || management === undefined || leader === undefined || management === leader) return;
      // An undeclared management cluster is reported by delivery-management-cluster-unknown alone,
      // an undeclared leader by leader-unknown alone: a misspelt leader is not a remote one.
      if (!clusterById(m).has(management) || !clusterById(m).has(leader)) return;
      if (!x.argocd && !x.flux) return;
      if (isObject(m.admission) && m.admission.deliveryUsers !== undefined) return;
      report(
        'admission.deliveryUsers',
        `the leader ${quote(leader)} is delivered remotely from ${quote(management)}, but admission.deliveryUsers is not set`,
        `list the users Argo CD and Flux write to ${quote(leader)} as, e.g. ${quote('system:serviceaccount:kube-system:argocd-manager')} (what \`argocd cluster add\` creates) and the user of the Flux kubeconfig Secret`,
      );
    },
  ),
];

// ---- the reconciler ----

/** `reconciler` when it is an object. */
