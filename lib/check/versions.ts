/**
 * The Antrea release the model names (`antreaVersion`): its format, whether the compiler supports
 * it, and the features it lacks (lib/antrea-releases.ts lists which release brought each one).
 */
import {
  FEATURES,
  NEWEST_SUPPORTED_MINOR,
  OLDEST_SUPPORTED,
  type Feature,
  type Version,
  hasFeature,
  isSupported,
  parseAntreaVersion,
  showVersion,
} from '../antrea-releases';
import type { ClusterSetProps } from '../model';
import { DEFAULT_ANTREA_VERSION } from '../names';
import { type Report, type Rule, rule } from './rule';
import { clustersOf, egressOf, ingressOf, isObject, objects, peersOf, policiesOf, quote, str } from './util';

/** The release the model names (the default when unset), if it parses and is supported. */
function supportedVersion(m: ClusterSetProps): Version | undefined {
  const raw = m.antreaVersion === undefined ? DEFAULT_ANTREA_VERSION : str(m.antreaVersion);
  const v = raw === undefined ? undefined : parseAntreaVersion(raw);
  return v && isSupported(v) ? v : undefined;
}

function lacks(report: Report, m: ClusterSetProps, f: Feature, path: string, what: string): void {
  report(
    path,
    `${what} needs ${f.what}, which Antrea brought in ${showVersion(f.since)}; antreaVersion is ${quote(m.antreaVersion ?? DEFAULT_ANTREA_VERSION)}`,
    `upgrade Antrea to ${showVersion(f.since)} or later and set antreaVersion to match, or remove it`,
  );
}

const newest = `${showVersion(NEWEST_SUPPORTED_MINOR)}.x`;

export const versionRules: readonly Rule[] = [
  rule(
    'antrea-version-format',
    'antreaVersion is MAJOR.MINOR[.PATCH], optionally with a leading v.',
    'Version-dependent output (ClusterSet API version, legacy ClusterClaims) would be guessed from a version that means nothing.',
    (m, report) => {
      const raw = str(m.antreaVersion);
      if (raw === undefined || parseAntreaVersion(raw)) return;
      report(
        'antreaVersion',
        `antreaVersion ${quote(raw)} is not MAJOR.MINOR[.PATCH]`,
        `write the release, e.g. ${quote(DEFAULT_ANTREA_VERSION)}`,
      );
    },
  ),
  rule(
    'antrea-version-supported',
    `antreaVersion is a release the compiler supports: ${showVersion(OLDEST_SUPPORTED)} to ${newest}.`,
    'Before 1.5 Antrea has no multi-cluster support; after the newest supported release, the CRDs, webhooks and ' +
      'member behaviour the output is built on may have changed.',
    (m, report) => {
      const raw = str(m.antreaVersion);
      const v = raw === undefined ? undefined : parseAntreaVersion(raw);
      if (!v || isSupported(v)) return;
      const older = !hasFeature(v, FEATURES.multicluster);
      report(
        'antreaVersion',
        older
          ? `Antrea ${raw} has no multi-cluster support: it arrived in ${showVersion(OLDEST_SUPPORTED)}`
          : `Antrea ${raw} is newer than ${newest}, the newest release this compiler's CRDs and admission policies are checked against`,
        older
          ? `upgrade Antrea to ${showVersion(OLDEST_SUPPORTED)} or later (${DEFAULT_ANTREA_VERSION} recommended)`
          : `set antreaVersion to a release from ${showVersion(OLDEST_SUPPORTED)} to ${newest}, or upgrade clusterset`,
      );
    },
  ),
  rule(
    'antrea-version-baseline-policies',
    `Baseline policies need Antrea ${showVersion(FEATURES.policyReplication.since)} or later.`,
    'Older members do not import ClusterNetworkPolicy ResourceImports: the policy never reaches them.',
    (m, report) => {
      const v = supportedVersion(m);
      if (!v || hasFeature(v, FEATURES.policyReplication)) return;
      for (const p of objects(m.baselinePolicies, 'baselinePolicies')) {
        lacks(report, m, FEATURES.policyReplication, p.path, `baseline policy ${quote(p.value.name)}`);
      }
    },
  ),
  rule(
    'antrea-version-stretched-policies',
    `Stretched policies, ClusterSet-scope peers and toServices need Antrea ${showVersion(FEATURES.stretchedPolicies.since)} or later.`,
    'Older antrea-controllers prune or ignore scope and toServices: the rule silently applies to the local cluster only, or to nothing.',
    (m, report) => {
      const v = supportedVersion(m);
      if (!v || hasFeature(v, FEATURES.stretchedPolicies)) return;
      const f = FEATURES.stretchedPolicies;
      for (const p of objects(m.stretchedPolicies, 'stretchedPolicies')) {
        lacks(report, m, f, p.path, `stretched policy ${quote(p.value.name)}`);
      }
      for (const c of clustersOf(m)) {
        if (c.value.enableStretchedNetworkPolicy === true) {
          lacks(report, m, f, `${c.path}.enableStretchedNetworkPolicy`, `cluster ${quote(c.value.id)}`);
        }
      }
      for (const p of policiesOf(m)) {
        if (p.kind === 'stretched') continue;
        for (const r of ingressOf(p)) {
          for (const peer of peersOf(r, 'from')) {
            if (peer.value.scope === 'ClusterSet')
              lacks(report, m, f, `${peer.path}.scope`, 'a ClusterSet-scope peer');
          }
        }
        for (const r of egressOf(p)) {
          // toServices default to scope ClusterSet (a multi-cluster Service); scope Cluster is in-cluster.
          const services: unknown[] = Array.isArray(r.value.toServices) ? r.value.toServices : [];
          if (services.some((s) => isObject(s) && s.scope !== 'Cluster')) {
            lacks(report, m, f, `${r.path}.toServices`, 'toServices to a multi-cluster Service');
          }
        }
      }
    },
  ),
  rule(
    'antrea-version-policy-fields',
    `Node and ServiceAccount selectors need Antrea ${showVersion(FEATURES.nodeAndServiceAccountPeers.since)}, l7Protocols ${showVersion(FEATURES.l7NetworkPolicy.since)}.`,
    'Older antrea-controllers prune the fields they do not know: the rule silently selects something else, or everything.',
    (m, report) => {
      const v = supportedVersion(m);
      if (!v) return;
      const gates: Readonly<Record<string, Feature>> = {
        nodeSelector: FEATURES.nodeAndServiceAccountPeers,
        serviceAccount: FEATURES.nodeAndServiceAccountPeers,
        l7Protocols: FEATURES.l7NetworkPolicy,
      };
      const walk = (node: unknown, path: string): void => {
        if (Array.isArray(node)) {
          node.forEach((x, i) => walk(x, `${path}[${i}]`));
          return;
        }
        if (!isObject(node)) return;
        for (const [k, child] of Object.entries(node)) {
          const f = gates[k];
          if (f && child !== undefined && !hasFeature(v, f))
            lacks(report, m, f, `${path}.${k}`, `${quote(k)}`);
          else walk(child, `${path}.${k}`);
        }
      };
      for (const p of policiesOf(m)) walk(p.value, p.path);
    },
  ),
];
