/**
 * Member identities: the names `memberIdentity` gives a member's ServiceAccount, RoleBinding and
 * token Secret in the leader, and its token Secret in the member (the plan's PlannedMemberIdentity
 * applies the same defaults).
 */
import type { ClusterProps, ClusterSetProps } from '../model';
import {
  DEFAULT_MEMBER_TOKEN_SECRET,
  DNS1123_SUBDOMAIN,
  RECONCILER_NAME,
  memberIdentityName,
  memberTokenReaderName,
} from '../names';
import {
  type At,
  clustersOf,
  isObject,
  memberClusters,
  memberIds,
  quote,
  roleReferencesResolve,
  str,
  strings,
} from './util';
import { type Rule, rule, checkName } from './rule';

const SUBDOMAIN_WORDS =
  "lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit";

const FIELDS = ['serviceAccount', 'roleBinding', 'tokenSecret', 'memberTokenSecret'] as const;
type Field = (typeof FIELDS)[number];

/** What each field names, in the words of the messages. */
const WHAT: Record<Field, string> = {
  serviceAccount: 'ServiceAccount',
  roleBinding: 'RoleBinding',
  tokenSecret: 'token Secret',
  memberTokenSecret: 'member token Secret',
};

/** `memberIdentity` of a cluster when it is an object. */
function identityOf(c: At<ClusterProps>): Record<string, unknown> | undefined {
  const x: unknown = c.value.memberIdentity;
  return isObject(x) ? x : undefined;
}

/** One resolved name of a member's identity, with the path of what sets it. */
interface Named {
  readonly name: string;
  /** The field that sets it, or the cluster ID when it is the default. */
  readonly path: string;
  /** Set in `memberIdentity` (or derived from a `serviceAccount` set there), not the default. */
  readonly explicit: boolean;
}

/**
 * The names of a member's identity, defaults applied as the plan applies them: `serviceAccount`
 * defaults to `member-<id>`, `roleBinding` and `tokenSecret` to the ServiceAccount, and
 * `memberTokenSecret` to `secrets.memberTokenSecretName`. Undefined for a cluster without a
 * string ID.
 */
function namesOf(m: ClusterSetProps, c: At<ClusterProps>): Record<Field, Named> | undefined {
  const id = str(c.value.id);
  if (id === undefined) return undefined;
  const x = identityOf(c);
  const at = (f: Field): string => `${c.path}.memberIdentity.${f}`;
  const given = (f: Field): string | undefined => (x ? str(x[f]) : undefined);
  const sa = given('serviceAccount');
  const serviceAccount: Named =
    sa !== undefined
      ? { name: sa, path: at('serviceAccount'), explicit: true }
      : { name: memberIdentityName(id), path: `${c.path}.id`, explicit: false };
  const fromSa = (f: Field): Named => {
    const v = given(f);
    return v !== undefined ? { name: v, path: at(f), explicit: true } : serviceAccount;
  };
  const secrets: unknown = m.secrets;
  const shared = isObject(secrets) ? str(secrets.memberTokenSecretName) : undefined;
  const mts = given('memberTokenSecret');
  return {
    serviceAccount,
    roleBinding: fromSa('roleBinding'),
    tokenSecret: fromSa('tokenSecret'),
    memberTokenSecret:
      mts !== undefined
        ? { name: mts, path: at('memberTokenSecret'), explicit: true }
        : shared !== undefined
          ? { name: shared, path: 'secrets.memberTokenSecretName', explicit: true }
          : { name: DEFAULT_MEMBER_TOKEN_SECRET, path: `${c.path}.id`, explicit: false },
  };
}

/**
 * Some member's token Secret is the shared name (`secrets.memberTokenSecretName`, or its default):
 * it sets no `memberIdentity.memberTokenSecret` of its own.
 */
export function someMemberUsesSharedTokenSecret(m: ClusterSetProps): boolean {
  return memberClusters(m).some((c) => {
    const n = namesOf(m, c);
    return n !== undefined && n.memberTokenSecret.path !== `${c.path}.memberIdentity.memberTokenSecret`;
  });
}

/** `reconciler.imagePullSecrets`, with their paths: Secrets in the leader namespace and in every member namespace. */
function imagePullSecretsOf(m: ClusterSetProps): At<string>[] {
  const r: unknown = m.reconciler;
  const given: unknown = isObject(r) ? r.imagePullSecrets : undefined;
  return strings(given as readonly string[] | undefined, 'reconciler.imagePullSecrets');
}

/** `secrets.externalSecrets` when it is an object. */
function externalSecretsOf(m: ClusterSetProps): Record<string, unknown> | undefined {
  const secrets: unknown = m.secrets;
  return isObject(secrets) && isObject(secrets.externalSecrets) ? secrets.externalSecrets : undefined;
}

export const memberIdentityRules: readonly Rule[] = [
  rule(
    'member-identity-names',
    'The names in memberIdentity are DNS-1123 subdomains (ServiceAccount, RoleBinding and Secret names).',
    "The API server refuses a ServiceAccount or Secret with an invalid name: the leader bundle does not apply, and the member's " +
      'identity, or its token Secret, never exists, so the member never connects to the leader.',
    (m, report) => {
      for (const c of clustersOf(m)) {
        const x = identityOf(c);
        if (!x) continue;
        for (const f of FIELDS)
          checkName(
            report,
            `${c.path}.memberIdentity.${f}`,
            x[f],
            `${WHAT[f]} name`,
            253,
            DNS1123_SUBDOMAIN,
            SUBDOMAIN_WORDS,
          );
      }
    },
  ),
  rule(
    'member-identity-not-member',
    'Only a member has a memberIdentity.',
    'A cluster that is no member gets no identity in the leader: names given for it would be silently ignored, and the ' +
      'identity they were meant to adopt would be left to nobody.',
    (m, report) => {
      // A misspelt member leaves the cluster it meant without a role: member-unknown says so.
      if (!roleReferencesResolve(m)) return;
      const members = memberIds(m);
      for (const c of clustersOf(m)) {
        const id = str(c.value.id);
        if (id === undefined || members.has(id) || c.value.memberIdentity === undefined) continue;
        report(
          `${c.path}.memberIdentity`,
          `cluster ${quote(id)} has a memberIdentity but is not a member`,
          `add ${quote(id)} to members, or remove its memberIdentity`,
        );
      }
    },
  ),
  rule(
    'member-identity-duplicate',
    'No two members share a ServiceAccount, RoleBinding or token Secret in the leader namespace.',
    "One ServiceAccount for two members is the one identity Antrea's leader refuses from 2.7 (it takes the cluster ID " +
      'from the ServiceAccount): the member-writes policy would know only one of them. One RoleBinding or token Secret ' +
      'for two would render two objects under one name, each replacing the other.',
    (m, report) => {
      // A RoleBinding or token Secret named after a clashing ServiceAccount is the same finding.
      const said = new Set<string>();
      for (const f of ['serviceAccount', 'roleBinding', 'tokenSecret'] as const) {
        const seen = new Map<string, { id: string; named: Named }>();
        for (const c of memberClusters(m)) {
          const named = namesOf(m, c)?.[f];
          if (!named) continue;
          const id = String(c.value.id);
          const first = seen.get(named.name);
          if (!first) {
            seen.set(named.name, { id, named });
            continue;
          }
          // Point at the name someone chose, not at a default it collides with.
          const [here, other, otherId] =
            !named.explicit && first.named.explicit
              ? [first.named, named, id]
              : [named, first.named, first.id];
          const key = `${here.path}\u0000${other.path}`;
          if (said.has(key)) continue;
          said.add(key);
          report(
            here.path,
            `${WHAT[f]} ${quote(named.name)} is also the ${WHAT[f]} of member ${quote(otherId)} (${other.path})`,
            `give each member its own ${WHAT[f]}, e.g. ${quote(memberIdentityName(here === named ? id : first.id))}`,
          );
        }
      }
    },
  ),
  rule(
    'member-identity-reserved',
    "A member's ServiceAccount, RoleBinding and token Secret are not named like another object clusterset renders, " +
      'or needs, in the leader namespace.',
    "Two objects under one name: the reconciler's ServiceAccount or RoleBinding, a member's token-reader RoleBinding or " +
      'an image pull Secret would be replaced by a member identity (or the other way round), so either the reconciler ' +
      'or that member loses its permissions, or the token a member copies is not a token.',
    (m, report) => {
      const reserved: Record<'serviceAccount' | 'roleBinding' | 'tokenSecret', Map<string, string>> = {
        serviceAccount: new Map([[RECONCILER_NAME, "the reconciler's ServiceAccount"]]),
        roleBinding: new Map([[RECONCILER_NAME, "the reconciler's RoleBinding"]]),
        tokenSecret: new Map(
          imagePullSecretsOf(m).map((s) => [s.value, `the image pull Secret ${s.path}`] as const),
        ),
      };
      if (externalSecretsOf(m))
        for (const c of memberClusters(m)) {
          const id = str(c.value.id);
          if (id !== undefined)
            reserved.roleBinding.set(
              memberTokenReaderName(id),
              `the RoleBinding that lets ${quote(id)}'s External Secrets store read its token`,
            );
        }
      for (const c of memberClusters(m)) {
        const names = namesOf(m, c);
        if (!names) continue;
        for (const f of ['serviceAccount', 'roleBinding', 'tokenSecret'] as const) {
          const taken = reserved[f].get(names[f].name);
          if (taken === undefined) continue;
          report(
            names[f].path,
            `${WHAT[f]} ${quote(names[f].name)} of member ${quote(c.value.id)} is already ${taken} in the leader namespace`,
            `rename it, e.g. to ${quote(memberIdentityName(String(c.value.id)))}`,
          );
        }
      }
    },
  ),
  rule(
    'member-token-secret-clash',
    "A member's token Secret is not named like another Secret its namespace needs: the External Secrets store's " +
      'bootstrap token or an image pull Secret.',
    "`clusterset token` or External Secrets would overwrite that Secret with the member's leader token (or the other way " +
      'round): the store could no longer read the leader, the restart Job no longer pull its image, or the member ' +
      'controller would read a Secret with no token in it and never connect.',
    (m, report) => {
      const x = externalSecretsOf(m);
      const auth: unknown = x?.auth;
      const bootstrap = isObject(auth) && isObject(auth.tokenSecret) ? str(auth.tokenSecret.name) : undefined;
      const taken = new Map<string, { what: string; path: string; bootstrap: boolean }>(
        imagePullSecretsOf(m).map((s) => [
          s.value,
          { what: `the image pull Secret ${s.path}`, path: s.path, bootstrap: false },
        ]),
      );
      if (bootstrap !== undefined)
        taken.set(bootstrap, {
          what: "the External Secrets store's token Secret",
          path: 'secrets.externalSecrets.auth.tokenSecret.name',
          bootstrap: true,
        });
      const reported = new Set<string>();
      for (const c of memberClusters(m)) {
        const named = namesOf(m, c)?.memberTokenSecret;
        const clash = named && taken.get(named.name);
        if (!named || !clash) continue;
        const own = named.explicit && named.path.startsWith(`${c.path}.`);
        // external-secrets-token-secret-clash reports the shared name against the store's token.
        if (clash.bootstrap && !own) continue;
        // A default name that collides is reported once, where the other Secret is named.
        const path = named.explicit ? named.path : clash.path;
        if (reported.has(path)) continue;
        reported.add(path);
        report(
          path,
          `member token Secret ${quote(named.name)}${own ? ` of member ${quote(c.value.id)}` : named.explicit ? '' : ' (the default)'} is also ${clash.what}, in the member namespace`,
          named.explicit
            ? `give the member token Secret another name, e.g. ${quote(`${DEFAULT_MEMBER_TOKEN_SECRET}-${String(c.value.id)}`)}`
            : 'rename that Secret, or set secrets.memberTokenSecretName to another name',
        );
      }
    },
  ),
];
