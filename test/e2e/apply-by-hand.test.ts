// End-to-end: the way docs/delivery.md ("Applying by hand") says to apply a bundle without Argo CD
// or Flux works the first time, on fresh real API servers, for the example's leader and a member;
// the one-command apply it replaces fails there (the negative control), and running the documented
// commands again changes nothing that fails. The commands run are read from the page itself, so the
// page cannot drift from what is tested.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compile } from '../../lib/compile';
import { loadModel } from '../../lib/load';
import type { Plan } from '../../lib/plan';
import type { Cluster } from '../kube/cluster';
import { request, startClusters, stopAll } from '../kube/cluster';
import { createApplicationNamespaces, installAntreaMemberDeployment } from '../parties/antrea-member/install';
import { ANTREA_MEMBER_CRDS } from '../parties/antrea-manifests';
import { installCrds } from './crds';
import { contextsKubeconfig } from './fixture';

const ROOT = path.resolve(__dirname, '..', '..');
const PAGE = path.join(ROOT, 'docs', 'delivery.md');

/** The first `sh` block under the page's "## Applying by hand" heading. */
function documentedCommands(): string {
  const page = fs.readFileSync(PAGE, 'utf8');
  const section = page.split(/^## /m).find((s) => s.startsWith('Applying by hand\n'));
  assert.ok(section, `${PAGE} has a section "Applying by hand"`);
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the section holds a sh block');
  assert.match(block, /^id=hub /m, 'the block starts by naming the cluster as id=hub');
  return block;
}

function plan(): Plan {
  const r = compile(loadModel(path.join(ROOT, 'clusterset.ts')));
  if (!r.plan || r.diagnostics.length > 0) throw new Error('the example model does not compile');
  return r.plan;
}

/** Runs `script` in bash from the repository root (its out/ is the example's) with `kubeconfig`. */
function bash(script: string, kubeconfig: string): { status: number; output: string } {
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: kubeconfig },
    timeout: 300_000,
  });
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}

/** Names of the objects of `kind` the bundle of `id` renders (from its file names). */
function rendered(id: string, kind: string): string[] {
  const dir = path.join(ROOT, 'out', 'clusters', id);
  const names: string[] = [];
  for (const sub of fs.readdirSync(dir, { withFileTypes: true }))
    if (sub.isDirectory())
      for (const f of fs.readdirSync(path.join(dir, sub.name)))
        if (f.startsWith(`${kind}.`)) names.push(f.slice(kind.length + 1, -'.yaml'.length));
  return names.sort();
}

async function listNames(c: Cluster, collection: string): Promise<string[]> {
  const r = await request(c.admin, 'GET', collection);
  assert.is(r.status, 200, `GET ${collection}: ${r.body}`);
  return (r.json as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort();
}

test.after(async () => {
  await stopAll();
});

test('GIVEN fresh clusters WHEN the bundles are applied as docs/delivery.md says THEN they apply the first time and again', async () => {
  const block = documentedCommands();
  const p = plan();
  const leader = p.leader.id;
  const member = p.members.find((m) => m.id !== leader)!.id;
  const clusters = await startClusters([leader, member, 'control']);
  const admin = (c: Cluster) => {
    const kc = JSON.parse(fs.readFileSync(c.kubeconfigPath, 'utf8')) as {
      users: { user: Record<string, string> }[];
    };
    return kc.users[0]!.user;
  };
  const kubeconfig = path.join(clusters.get(leader)!.dir, 'by-hand.kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    contextsKubeconfig(clusters, (id, c) => ({ name: `admin-${id}`, user: admin(c) }), leader),
  );

  // The negative control: one apply of the leader's bundle on a fresh cluster fails on the CRDs'
  // objects, which is why the page applies the CRDs first.
  const once = bash(`kubectl --context control apply --server-side -k out/clusters/${leader}`, kubeconfig);
  assert.is.not(once.status, 0, `a single apply of a fresh cluster fails: ${once.output}`);
  assert.match(once.output, /ensure CRDs are installed first|no matches for kind/);

  // The member's prerequisites, as explain lists them: Antrea's member install, the application
  // teams' Namespaces.
  const m = clusters.get(member)!;
  await installCrds(m, ANTREA_MEMBER_CRDS, 'antrea-install');
  await installAntreaMemberDeployment(m, p);
  await createApplicationNamespaces(m, p, member);

  for (const round of ['first', 'second'])
    for (const id of [leader, member]) {
      const r = bash(block.replace(/^id=hub /m, `id=${id} `), kubeconfig);
      assert.is(r.status, 0, `${round} apply of ${id} as documented: ${r.output}`);
    }

  const l = clusters.get(leader)!;
  const ns = p.leaderNamespace;
  assert.equal(
    await listNames(l, `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${ns}/resourceimports`),
    rendered(leader, 'ResourceImport'),
    'the leader holds every compiled import its bundle renders',
  );
  assert.equal(
    await listNames(l, `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${ns}/clustersets`),
    rendered(leader, 'ClusterSet'),
  );
  const exports: string[] = [];
  for (const n of new Set((p.exportsByMember.get(member) ?? []).map((s) => s.namespace)))
    exports.push(
      ...(await listNames(m, `/apis/multicluster.x-k8s.io/v1alpha1/namespaces/${n}/serviceexports`)),
    );
  assert.ok(exports.length > 0, `${member} exports something in the example`);
  assert.equal(exports.sort(), rendered(member, 'ServiceExport'), "the member's ServiceExports");
  assert.equal(
    await listNames(m, '/apis/crd.antrea.io/v1beta1/tiers'),
    rendered(member, 'Tier'),
    "the member's Tiers",
  );
});

test.run();
