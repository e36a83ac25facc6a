import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MEMBER_CONFIG_KEY, memberConfig } from '../../lib/antrea-member-config';
import { MEMBER_CONTROLLER_CONFIG } from '../../lib/names';
import { renderMemberConfig } from '../../lib/render/member-config';
import { render } from '../../lib/render';
import { validateObject } from '../../lib/validate';
import { loadYaml } from '../../lib/yaml';
import {
  cluster,
  memberOf,
  minimalModel,
  only,
  planOf,
  renderInto,
  twoNetworkModel,
  type ModelDraft,
} from '../helpers/models';

function configOf(m: ModelDraft, id: string) {
  const p = planOf(m);
  const cm = only(
    renderInto((s) => renderMemberConfig(s, p, memberOf(p, id))),
    'ConfigMap',
  );
  return {
    cm,
    config: loadYaml((cm.data as Record<string, string>)[MEMBER_CONFIG_KEY]!) as Record<string, unknown>,
  };
}

test('GIVEN a member WHEN rendered THEN ConfigMap antrea-mc-controller-config in the member namespace with key controller_manager_config.yaml', () => {
  const { cm } = configOf(minimalModel(), 'east');
  assert.is(cm.apiVersion, 'v1');
  assert.equal(cm.metadata, {
    name: 'antrea-mc-controller-config',
    namespace: 'kube-system',
    // Antrea's install ships it too: never pruned, never deleted with the Application.
    annotations: {
      'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
      'kustomize.toolkit.fluxcd.io/prune': 'disabled',
    },
  });
  assert.is(MEMBER_CONTROLLER_CONFIG, 'antrea-mc-controller-config');
  assert.equal(Object.keys(cm.data as object), ['controller_manager_config.yaml']);
  assert.equal(validateObject(cm, 'cm'), []);
});

test("THEN the config is a MultiClusterConfig with Antrea's defaults and the cluster's CIDRs", () => {
  const m = minimalModel();
  m.clusters[1] = cluster('east', 1, { podCIDRs: ['10.201.0.0/16', '10.211.0.0/16'] });
  const { config } = configOf(m, 'east');
  assert.equal(config, {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1',
    kind: 'MultiClusterConfig',
    health: { healthProbeBindAddress: ':8080' },
    metrics: { bindAddress: '0' },
    webhook: { port: 9443 },
    leaderElection: { leaderElect: false, resourceName: '6536456a.crd.antrea.io' },
    serviceCIDR: '10.101.0.0/16',
    podCIDRs: ['10.201.0.0/16', '10.211.0.0/16'],
    gatewayIPPrecedence: 'private',
    endpointIPType: 'ClusterIP',
    enableStretchedNetworkPolicy: false,
  });
});

test('GIVEN no Pod CIDRs THEN podCIDRs is [""] as in Antrea\'s member manifest', () => {
  assert.equal(configOf(minimalModel(), 'west').config.podCIDRs, ['']);
});

test('GIVEN gateway precedence public, PodIP endpoints and stretched NP THEN the config carries them', () => {
  const m = twoNetworkModel();
  m.clusters[2]!.endpointIPType = 'PodIP';
  m.clusters[2]!.enableStretchedNetworkPolicy = true;
  const { config } = configOf(m, 'west');
  assert.is(config.gatewayIPPrecedence, 'public');
  assert.is(config.endpointIPType, 'PodIP');
  assert.is(config.enableStretchedNetworkPolicy, true);
});

test('THEN memberConfig() and the rendered YAML agree', () => {
  const p = planOf(minimalModel());
  assert.equal(configOf(minimalModel(), 'east').config, memberConfig(memberOf(p, 'east')));
});

test('GIVEN a custom member namespace THEN the ConfigMap lives there', () => {
  const m = minimalModel();
  m.memberNamespace = 'mc-member';
  assert.is(configOf(m, 'east').cm.metadata.namespace, 'mc-member');
});

/** The member controller ConfigMaps in each bundle, as `render(plan)` builds them. */
function configMapsIn(m: ModelDraft): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, objs] of render(planOf(m)))
    out.set(
      id,
      objs
        .filter((o) => o.kind === 'ConfigMap' && o.metadata.name === MEMBER_CONTROLLER_CONFIG)
        .map(() => id),
    );
  return out;
}

test("GIVEN no takeOver (the default) WHEN the bundles are rendered THEN no bundle holds Antrea's member controller ConfigMap: Antrea's install owns it", () => {
  for (const takeOver of [undefined, {}, { memberControllerConfig: false, serviceNamespaces: true }]) {
    const m = minimalModel();
    if (takeOver) m.takeOver = takeOver;
    assert.equal(
      [...configMapsIn(m)].filter(([, cms]) => cms.length > 0),
      [],
      JSON.stringify(takeOver),
    );
  }
});

test('GIVEN takeOver.memberControllerConfig WHEN the bundles are rendered THEN every member bundle holds the ConfigMap, the leader none', () => {
  const m = minimalModel();
  m.takeOver = { memberControllerConfig: true };
  assert.equal(Object.fromEntries(configMapsIn(m)), { hub: [], east: ['east'], west: ['west'] });
});

test.run();
