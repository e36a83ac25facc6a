/**
 * `explain` names what Antrea itself must have enabled in each cluster for the model's features
 * (lib/explain/prerequisites.ts): a gateway member, a stretched-policy member (ingress and
 * egress-only), a plain member, the leader, a custom member namespace; and the repository
 * credentials Argo CD and Flux need for an ssh origin. Text, markdown and JSON.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkModel } from '../../lib/check';
import { explain, formatReport } from '../../lib/explain';
import { antreaSettings } from '../../lib/explain/prerequisites';
import { isSshOrigin } from '../../lib/git-url';
import type { ModelDraft } from '../helpers/models';
import {
  cluster,
  memberOf,
  planOf,
  policiesModel,
  stretchedPolicy,
  twoNetworkModel,
} from '../helpers/models';

/** The model's plan, after asserting it passes the checks (so the settings are for a valid model). */
function checkedPlan(m: ModelDraft) {
  assert.equal(checkModel(m), []);
  return planOf(m);
}

/** `file setting=value` for each setting Antrea needs in `id`. */
function settings(m: ModelDraft, id: string): string[] {
  const p = checkedPlan(m);
  return antreaSettings(p, memberOf(p, id)).map((s) => `${s.file} ${s.setting}=${s.value}`);
}

function textFor(m: ModelDraft, id: string): string {
  const p = checkedPlan(m);
  return formatReport(explain(p, { cluster: id }), p, 'text');
}

test('GIVEN a member behind gateways on its own network WHEN explained THEN it needs exactly the agent gate and enableGateway', () => {
  assert.equal(settings(twoNetworkModel(), 'west'), [
    'antrea-agent.conf featureGates.Multicluster=true',
    'antrea-agent.conf multicluster.enableGateway=true',
  ]);
  const out = textFor(twoNetworkModel(), 'west');
  assert.match(
    out,
    /antrea-agent\.conf \(ConfigMap kube-system\/antrea-config\):\n {6}featureGates\.Multicluster: true/,
  );
  assert.match(out, /multicluster\.enableGateway: true {2}# it has gateway nodes \(west-gw-0\)/);
  assert.not.match(out, /enableStretchedNetworkPolicy: true {2}#/);
  assert.not.match(out, /antrea-controller\.conf/);
});

test('GIVEN a member enforcing a stretched policy with ClusterSet-scope ingress WHEN explained THEN it needs the agent, controller and member controller switches', () => {
  assert.equal(settings(policiesModel(), 'east'), [
    'antrea-agent.conf featureGates.Multicluster=true',
    'antrea-agent.conf multicluster.enableGateway=true',
    'antrea-agent.conf multicluster.enableStretchedNetworkPolicy=true',
    'antrea-agent.conf trafficEncapMode=encap',
    'antrea-controller.conf featureGates.Multicluster=true',
    'antrea-controller.conf multicluster.enableStretchedNetworkPolicy=true',
    'controller_manager_config.yaml enableStretchedNetworkPolicy=true',
  ]);
  const out = textFor(policiesModel(), 'east');
  assert.match(out, /antrea-controller\.conf \(ConfigMap kube-system\/antrea-config\):/);
  assert.match(
    out,
    /controller_manager_config\.yaml \(ConfigMap kube-system\/antrea-mc-controller-config\):/,
  );
});

test('GIVEN a stretched policy with egress toServices only WHEN explained THEN the member needs the controller and member controller switches, not the agent ones', () => {
  const m = policiesModel();
  const p = stretchedPolicy(['east']);
  delete (p as { ingress?: unknown }).ingress;
  m.stretchedPolicies = [p];
  // The baseline policy has no ClusterSet-scope peers, so nothing in east has stretched ingress.
  assert.equal(settings(m, 'east'), [
    'antrea-controller.conf featureGates.Multicluster=true',
    'antrea-controller.conf multicluster.enableStretchedNetworkPolicy=true',
    'controller_manager_config.yaml enableStretchedNetworkPolicy=true',
  ]);
});

test('GIVEN a plain member (one network, no stretched NetworkPolicy) WHEN explained THEN no gateway or stretched setting is printed', () => {
  assert.equal(settings(policiesModel(), 'west'), []);
  const out = textFor(policiesModel(), 'west');
  assert.match(out, /Antrea: its Multi-cluster member controller; nothing else to enable/);
  assert.not.match(out, /enableGateway|antrea-agent\.conf|antrea-controller\.conf|Multicluster: true/);
});

test("GIVEN the leader WHEN explained THEN it says Antrea's leader controller must not run there, and names no setting", () => {
  assert.equal(settings(policiesModel(), 'hub'), []);
  assert.match(textFor(policiesModel(), 'hub'), /Antrea's Multi-cluster leader controller must not run here/);
});

test('GIVEN a member namespace other than kube-system WHEN a gateway member is explained THEN the agent is told where the member controller runs', () => {
  const m = twoNetworkModel();
  m.memberNamespace = 'antrea-mc';
  const s = settings(m, 'east');
  assert.ok(s.includes('antrea-agent.conf multicluster.namespace=antrea-mc'), s.join('\n'));
  assert.not.ok(s.includes('controller_manager_config.yaml enableStretchedNetworkPolicy=true'));
});

test('GIVEN a gateway member WHEN explained as markdown and JSON THEN both carry the same settings', () => {
  const p = checkedPlan(twoNetworkModel());
  const report = explain(p, { cluster: 'east' });
  const md = formatReport(report, p, 'markdown');
  assert.match(
    md,
    /`antrea-agent\.conf \(ConfigMap kube-system\/antrea-config\)`:\n\n```yaml\nfeatureGates\.Multicluster: true {2}#/,
  );
  const j = JSON.parse(formatReport(report, p, 'json')) as {
    clusters: { antrea: { file: string; setting: string; value: string; configMap: string }[] }[];
  };
  assert.equal(
    j.clusters[0]!.antrea.map((s) => [s.file, s.configMap, s.setting, s.value]),
    [
      ['antrea-agent.conf', 'kube-system/antrea-config', 'featureGates.Multicluster', 'true'],
      ['antrea-agent.conf', 'kube-system/antrea-config', 'multicluster.enableGateway', 'true'],
    ],
  );
});

function delivered(repoURL: string): ModelDraft {
  const m = twoNetworkModel();
  m.delivery = { repoURL, managementCluster: 'hub', flux: { gitSecretName: 'gitops-ssh' } };
  return m;
}

test('GIVEN Argo CD and Flux delivery from an ssh origin WHEN explained THEN both name the repository credentials they need, in every format', () => {
  const url = 'ssh://git@git.example.com/platform/gitops.git';
  const p = checkedPlan(delivered(url));
  const report = explain(p, { cluster: 'east' });
  const out = formatReport(report, p, 'text');
  assert.match(
    out,
    /delivery needs:\n {2}Argo CD \(namespace argocd, cluster hub\) clones ssh:\/\/git@git\.example\.com\/platform\/gitops\.git over ssh: it needs repository credentials for it:/,
  );
  assert.match(
    out,
    new RegExp(`argocd repo add ${url.replace(/[./]/g, '\\$&')} --ssh-private-key-path <key file>`),
  );
  assert.match(out, /labelled argocd\.argoproj\.io\/secret-type: repository/);
  assert.match(out, /Secret flux-system\/gitops-ssh \(gitSecretName\) must exist/);
  assert.match(formatReport(report, p, 'markdown'), /## Delivery needs\n\n- Argo CD/);
  const j = JSON.parse(formatReport(report, p, 'json')) as { delivery: { tool: string }[] };
  assert.equal(
    j.delivery.map((d) => d.tool),
    ['argocd', 'flux'],
  );
});

test('GIVEN delivery from an https origin WHEN explained THEN no credentials are asked for', () => {
  const p = checkedPlan(delivered('https://git.example.com/platform/gitops.git'));
  const report = explain(p);
  assert.equal(report.delivery, []);
  assert.not.match(formatReport(report, p, 'text'), /delivery needs/);
});

test('GIVEN repository URLs WHEN classified THEN ssh:// and scp-like git@host:path are ssh origins', () => {
  assert.ok(isSshOrigin('ssh://git@example.com/a.git'));
  assert.ok(isSshOrigin('git@github.com:org/repo.git'));
  assert.not.ok(isSshOrigin('https://github.com/org/repo.git'));
  assert.not.ok(isSshOrigin('https://user@github.com/org/repo.git'));
});

test('GIVEN a member with gateway nodes and stretched ingress WHEN explained THEN enableGateway is listed once, with both reasons', () => {
  const m = twoNetworkModel();
  m.clusters[1] = cluster('east', 1, {
    network: 'dc1',
    gateway: { nodes: [{ name: 'east-gw-0' }] },
    enableStretchedNetworkPolicy: true,
  });
  m.tiers = [{ name: 'mc-stretched', priority: 100 }];
  m.stretchedPolicies = [stretchedPolicy(['east'])];
  const p = checkedPlan(m);
  const gw = antreaSettings(p, memberOf(p, 'east')).filter((s) => s.setting === 'multicluster.enableGateway');
  assert.is(gw.length, 1);
  assert.match(gw[0]!.because, /gateway nodes \(east-gw-0\).*; ingress rules with ClusterSet-scope peers/);
});

test.run();
