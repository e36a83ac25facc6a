/**
 * The health checks of Antrea's kinds (lib/render/health.ts): Lua for Argo CD's `argocd-cm`, CEL for
 * Flux's `healthCheckExprs`. Neither Lua nor CEL runs here (no evaluator among the dependencies):
 * these tests hold their structure; the e2e tests run them in the real Argo CD and Flux.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render, type K8sObject } from '../../lib/render';
import {
  HEALTH_CHECKS,
  argocdHealthData,
  argocdHealthKey,
  fluxHealthCheckExprs,
} from '../../lib/render/health';
import { dualRoleModel, planOf, service } from '../helpers/models';

const obj = (apiVersion: string, kind: string, name = 'x'): K8sObject => ({
  apiVersion,
  kind,
  metadata: { name },
});

const byKind = (kind: string) => {
  const c = HEALTH_CHECKS.find((x) => x.kind === kind);
  if (!c) throw new Error(`no check for ${kind}`);
  return c;
};

test("GIVEN the health checks THEN argocd-cm's data has one Lua script per kind, under Argo CD's key resource.customizations.health.<group>_<kind>", () => {
  const data = argocdHealthData();
  assert.equal(Object.keys(data), [
    'resource.customizations.health.multicluster.crd.antrea.io_ClusterSet',
    'resource.customizations.health.multicluster.crd.antrea.io_ResourceImport',
    'resource.customizations.health.multicluster.x-k8s.io_ServiceExport',
  ]);
  for (const c of HEALTH_CHECKS) assert.is(data[argocdHealthKey(c)], c.lua);
  assert.is(
    argocdHealthKey({ group: 'example.com', kind: 'Thing' }),
    'resource.customizations.health.example.com_Thing',
  );
});

/** Lua with its string literals and comments blanked, for counting keywords. */
function luaCode(lua: string): string {
  return lua.replace(/--[^\n]*/g, '').replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
}

test('THEN every Lua script is balanced (each if, for and function closed by an end), returns hs, and sets only statuses Argo CD knows', () => {
  for (const c of HEALTH_CHECKS) {
    const code = luaCode(c.lua);
    const words = code.match(/\b[a-z]+\b/g) ?? [];
    const count = (w: string) => words.filter((x) => x === w).length;
    assert.is(count('if') + count('for') + count('function'), count('end'), `${c.kind}: blocks`);
    assert.is(count('if') + count('elseif'), count('then'), `${c.kind}: if … then`);
    assert.is(count('for'), count('do'), `${c.kind}: for … do`);
    assert.not.match(code, '!=', `${c.kind}: Lua says ~=, not !=`);
    assert.not.match(code, /&&|\|\|/, `${c.kind}: Lua says and, or`);
    // Argo CD runs health scripts with the base, table, package and a safe os library only: no
    // string library, so no string.sub nor a string's methods (Argo CD 3.2.6 refused one that did).
    assert.not.match(
      code,
      /\bstring\.|:(sub|len|find|match|gsub|gmatch|format|lower|upper|rep|byte)\(/,
      `${c.kind}: no string library`,
    );
    assert.ok(c.lua.endsWith('return hs\n'), `${c.kind}: returns hs`);
    const statuses = [...c.lua.matchAll(/hs\.status = "([A-Za-z]+)"/g)].map((m) => m[1]);
    assert.ok(statuses.length >= 2, c.kind);
    for (const s of statuses)
      assert.ok(['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'].includes(s!), s);
    // Parentheses balance outside strings.
    assert.is((code.match(/\(/g) ?? []).length, (code.match(/\)/g) ?? []).length, `${c.kind}: parentheses`);
  }
});

test('THEN the ClusterSet and ServiceExport scripts read their condition (Ready, Valid): Healthy when True, Degraded when False, Progressing without one', () => {
  for (const [kind, type] of [
    ['ClusterSet', 'Ready'],
    ['ServiceExport', 'Valid'],
  ] as const) {
    const lua = byKind(kind).lua;
    assert.match(lua, 'local function condition(t)');
    assert.match(lua, 'if obj.status == nil or obj.status.conditions == nil then');
    assert.match(lua, `condition("${type}")`);
    for (const s of ['Healthy', 'Degraded', 'Progressing']) assert.match(lua, `hs.status = "${s}"`);
  }
  // The leader's ClusterSet names the members that are not ready.
  assert.match(byKind('ClusterSet').lua, 'obj.status.clusterStatuses');
});

test('THEN the ResourceImport script judges compiled ServiceImport imports alone: any other import is Healthy as applied, a Succeeded False cluster makes it Degraded', () => {
  const lua = byKind('ResourceImport').lua;
  assert.match(
    lua,
    /^local hs = \{\}\nif obj\.spec == nil or obj\.spec\.kind ~= "ServiceImport" then\n {2}hs\.status = "Healthy"\n {2}return hs\nend\n/,
  );
  assert.match(lua, 'if obj.status == nil then\n  hs.status = "Progressing"');
  assert.match(lua, 'if c.type == "Succeeded" and c.status == "False" then');
  assert.match(lua, 'if #refused > 0 then\n  hs.status = "Degraded"');
});

test('THEN the CEL of ClusterSet and ServiceExport: current when the condition is True, failed when it is False, on the same condition type', () => {
  const e = byKind('ServiceExport');
  assert.is(e.current, "status.conditions.exists(c, c.type == 'Valid' && c.status == 'True')");
  assert.is(e.failed, "status.conditions.exists(c, c.type == 'Valid' && c.status == 'False')");
  // The ClusterSet's as well, and a restart Job's recorded failure (below) on top.
  const c = byKind('ClusterSet');
  const restartFailed =
    "has(metadata.annotations) && 'clusterset/restart-job' in metadata.annotations && " +
    "'clusterset/restart-state' in metadata.annotations && " +
    "metadata.annotations['clusterset/restart-state'] == metadata.annotations['clusterset/restart-job'] + ' failed'";
  assert.is(
    c.current,
    `status.conditions.exists(c, c.type == 'Ready' && c.status == 'True') && !(${restartFailed})`,
  );
  assert.is(
    c.failed,
    `(${restartFailed}) || status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')`,
  );
});

test("THEN the ClusterSet script is Degraded first, with the cause, when the restart Job it names recorded that it cannot go on, and reads no other Job's record", () => {
  const lua = byKind('ClusterSet').lua;
  assert.match(lua, 'local job = a["clusterset/restart-job"]');
  assert.match(lua, 'if job == nil or a["clusterset/restart-state"] ~= job .. " failed" then');
  assert.match(lua, 'return a["clusterset/restart"] or (job .. " failed")');
  // Before the Ready condition is read: a member can be connected and its restart still fail.
  assert.ok(lua.indexOf('restartFailure()\nif failure ~= nil then') < lua.indexOf('condition("Ready")'));
  assert.match(lua, 'hs.message = "Antrea\'s member controller restart cannot go on: " .. failure');
});

test("THEN no Lua script reaches for a library Argo CD's health VM does not open (only base, table and package are)", () => {
  // Argo CD (util/lua/lua.go) skips OpenLibs for health scripts: `string`, `math`, `os` and `io` are
  // nil, and so is a string's metatable, so `s:sub(...)` fails with "attempt to index a non-table
  // object(string) with key 'sub'" at run time. The real Argo CD found this once (cutover-gitops).
  for (const c of HEALTH_CHECKS) {
    assert.not.match(c.lua, /\b(string|math|os|io|utf8|coroutine|debug)\.\w/, `${c.kind}: a library table`);
    assert.not.match(c.lua, /[\w\])"]:\w+\s*\(/, `${c.kind}: a method call on a string`);
  }
});

test('THEN the CEL of ResourceImport: failed is exactly the negation of current (De Morgan), both judging only ServiceImport imports with a refused cluster', () => {
  const c = byKind('ResourceImport');
  const refused =
    "status.clusterStatuses.exists(s, has(s.conditions) && s.conditions.exists(c, c.type == 'Succeeded' && c.status == 'False'))";
  assert.is(c.current, `spec.kind != 'ServiceImport' || !has(status.clusterStatuses) || !${refused}`);
  assert.is(c.failed, `spec.kind == 'ServiceImport' && has(status.clusterStatuses) && ${refused}`);
  // The first clause decides for compiled ACNP imports, which have no status: they are current
  // (CEL's || absorbs the error of the missing status), never failed.
  assert.ok(c.current.startsWith("spec.kind != 'ServiceImport' || "));
  assert.ok(c.failed.startsWith("spec.kind == 'ServiceImport' && "));
});

test('GIVEN a bundle WHEN its Flux checks are built THEN only the kinds it holds, matched by group and kind, in the table order, with the apiVersion the bundle renders', () => {
  assert.equal(fluxHealthCheckExprs([]), []);
  assert.equal(
    fluxHealthCheckExprs([obj('v1', 'ConfigMap'), obj('other.example.com/v1', 'ClusterSet')]),
    [],
    'a ClusterSet of another group is not ours to judge',
  );
  const exprs = fluxHealthCheckExprs([
    obj('multicluster.x-k8s.io/v1alpha1', 'ServiceExport', 'a'),
    obj('multicluster.x-k8s.io/v1alpha1', 'ServiceExport', 'b'),
    obj('multicluster.crd.antrea.io/v1alpha2', 'ClusterSet'),
  ]);
  assert.equal(
    exprs.map((e) => e.kind),
    ['ClusterSet', 'ServiceExport'],
    'once per kind, in the table order',
  );
  for (const e of exprs) {
    const c = byKind(e.kind ?? '');
    assert.equal(e, {
      apiVersion: `${c.group}/${c.version}`,
      kind: c.kind,
      current: c.current,
      failed: c.failed,
    });
  }
  // Each check's apiVersion is the one the bundles render (Flux matches a check by apiVersion).
  const m = dualRoleModel();
  m.services = [service('shop', 'cart', ['hub', 'east'])];
  const hub = render(planOf(m)).get('hub') ?? [];
  const checks = fluxHealthCheckExprs(hub);
  assert.equal(
    checks.map((e) => e.kind),
    ['ClusterSet', 'ResourceImport', 'ServiceExport'],
  );
  for (const e of checks) {
    const rendered = hub.filter((o) => o.kind === e.kind).map((o) => o.apiVersion);
    assert.ok(rendered.length > 0, e.kind);
    assert.equal([...new Set(rendered)], [e.apiVersion], e.kind);
  }
});

test.run();
