import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { render } from '../../lib/render';
import { renderNamespace } from '../../lib/render/namespaces';
import { validateObject } from '../../lib/validate';
import { dualRoleModel, minimalModel, only, planOf, renderInto, service } from '../helpers/models';

/** Names of the Namespaces in one cluster's bundle, as `render(plan)` builds it. */
function namespacesOf(m: ReturnType<typeof minimalModel>, cluster: string): string[] {
  const objs = render(planOf(m)).get(cluster) ?? [];
  return objs
    .filter((o) => o.kind === 'Namespace')
    .map((o) => o.metadata.name)
    .sort();
}

test('GIVEN a prunable namespace WHEN rendered THEN a Namespace with only the sync-wave annotation', () => {
  const ns = only(
    renderInto((s) => renderNamespace(s, 'antrea-multicluster', { prune: true })),
    'Namespace',
  );
  assert.equal(ns, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'antrea-multicluster', annotations: { 'argocd.argoproj.io/sync-wave': '-1' } },
  });
  assert.equal(validateObject(ns, 'ns'), []);
});

test('GIVEN an application namespace THEN Argo CD and Flux are told never to prune it', () => {
  const ns = only(
    renderInto((s) => renderNamespace(s, 'shop', { prune: false })),
    'Namespace',
  );
  assert.equal(ns.metadata, {
    name: 'shop',
    annotations: {
      'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
      'argocd.argoproj.io/sync-wave': '-1',
      'kustomize.toolkit.fluxcd.io/prune': 'disabled',
    },
  });
});

test('THEN every annotation value is a string', () => {
  const ns = only(
    renderInto((s) => renderNamespace(s, 'shop', { prune: false })),
    'Namespace',
  );
  for (const v of Object.values(ns.metadata.annotations ?? {})) assert.type(v, 'string');
});

test('GIVEN a member bundle and no takeOver (the default) THEN it brings only its custom member namespace, not the Service namespaces', () => {
  const m = minimalModel();
  m.memberNamespace = 'mc-member';
  m.services = [service('shop', 'cart', ['east']), service('prod', 'api', ['west'])];
  assert.equal(namespacesOf(m, 'east'), ['mc-member']);
  assert.equal(namespacesOf(m, 'west'), ['mc-member']);
  m.memberNamespace = undefined;
  assert.equal(namespacesOf(m, 'east'), [], 'kube-system is never rendered');
  m.takeOver = { serviceNamespaces: false, memberControllerConfig: true };
  assert.equal(namespacesOf(m, 'east'), [], 'taking over the config takes over no Namespace');
});

test('GIVEN takeOver.serviceNamespaces THEN a member bundle brings each exported Service namespace once, and the custom member namespace', () => {
  const m = minimalModel();
  m.takeOver = { serviceNamespaces: true };
  m.memberNamespace = 'mc-member';
  m.services = [
    service('shop', 'cart', ['east']),
    service('shop', 'web', ['west']),
    service('prod', 'api', ['west']),
  ];
  assert.equal(namespacesOf(m, 'east'), ['mc-member', 'prod', 'shop']);
  assert.equal(namespacesOf(m, 'hub'), ['antrea-multicluster']);
  const east = only(render(planOf(m)).get('east') ?? [], 'Namespace', 'shop');
  assert.is(east.metadata.annotations?.['argocd.argoproj.io/sync-options'], 'Prune=false,Delete=false');
});

test('GIVEN takeOver.serviceNamespaces and a dual-role leader THEN the leader namespace is rendered once, by the leader side', () => {
  const m = dualRoleModel();
  m.takeOver = { serviceNamespaces: true };
  m.services = [service('antrea-multicluster', 'probe', ['hub']), service('shop', 'cart', ['east'])];
  const hub = render(planOf(m)).get('hub') ?? [];
  const names = hub.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name);
  assert.equal(names.sort(), ['antrea-multicluster', 'shop']);
  // The leader side's copy: prunable, not the never-pruned one of an application namespace.
  assert.is(
    only(hub, 'Namespace', 'antrea-multicluster').metadata.annotations?.['argocd.argoproj.io/sync-options'],
    undefined,
  );
});

test('pins the duplicate-Namespace crash: a Service in the custom member namespace must not render that Namespace twice', () => {
  const m = minimalModel();
  m.takeOver = { serviceNamespaces: true };
  m.memberNamespace = 'mc-member';
  m.services = [service('mc-member', 'probe', ['east'])];
  // lib/render/index.ts renderMember renders the member namespace, then every Service namespace: the
  // member namespace must not be among the latter, or emit would refuse two Namespaces of one name.
  assert.equal(namespacesOf(m, 'east'), ['mc-member']);
});

test('fails: a dual-role leader whose member namespace is the leader namespace is refused before rendering (no crash)', () => {
  const m = dualRoleModel();
  m.memberNamespace = 'antrea-multicluster';
  // render() alone would build two Namespaces of one name (an output path collision), and both
  // ClusterSets would share one namespace, which Antrea refuses; the check stage must stop it first.
  const r = compile(m);
  assert.equal(r.files.size, 0);
  assert.ok(
    r.diagnostics.some((d) => d.rule === 'dual-role-namespace-clash' && d.path === 'memberNamespace'),
    JSON.stringify(r.diagnostics),
  );
});

test('pins kube-system being rendered as a GitOps-owned Namespace when a Service is exported from kube-system', () => {
  const m = minimalModel();
  m.takeOver = { serviceNamespaces: true };
  m.services = [service('kube-system', 'dns', ['east'])];
  // The member namespace kube-system is deliberately not rendered; a Service namespace of the same name should not be either.
  assert.not.ok(namespacesOf(m, 'east').includes('kube-system'));
});

test.run();
