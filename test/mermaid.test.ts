/**
 * Every Mermaid picture clusterset prints goes through Mermaid's own parser: the explain pictures of
 * the example and of every golden case (whole set and each cluster), the pictures in the diff
 * goldens, and graphs with names that are Mermaid keywords or carry quotes and brackets.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import clusterSet from '../clusterset';
import { explain, formatReport } from '../lib/explain';
import { exportGraphMermaid, renderExportGraph } from '../lib/explain/mermaid';
import type { ClusterSetProps } from '../lib/model';
import { plan } from '../lib/plan';
import { caseNames, loadCase } from './helpers/golden';
import { mermaidBlocks, parseMermaid } from './helpers/mermaid';
import { cluster, minimalModel, planOf, service } from './helpers/models';

async function assertParses(what: string, text: string): Promise<void> {
  try {
    await parseMermaid(text);
  } catch (e) {
    assert.unreachable(`${what} is not valid Mermaid: ${(e as Error).message}\n${text}`);
  }
}

test('GIVEN a broken diagram THEN the parser refuses it (the check is real)', async () => {
  let refused = false;
  try {
    await parseMermaid('flowchart LR\n  end --> b\n');
  } catch {
    refused = true;
  }
  assert.ok(refused, 'a node named end must be refused');
});

test('GIVEN the example and every golden case WHEN explained as markdown and mermaid THEN each picture parses', async () => {
  const models: [string, ClusterSetProps][] = [
    ['example', clusterSet],
    ...caseNames().map((n): [string, ClusterSetProps] => [n, loadCase(n)]),
  ];
  let pictures = 0;
  for (const [name, model] of models) {
    const p = plan(model);
    const scopes = [undefined, ...p.clusters.map((c) => c.id)];
    for (const cluster of scopes) {
      const report = explain(p, cluster === undefined ? {} : { cluster });
      const what = `${name}${cluster ? ` --cluster ${cluster}` : ''}`;
      await assertParses(`${what} --format mermaid`, formatReport(report, p, 'mermaid'));
      for (const block of mermaidBlocks(formatReport(report, p, 'markdown'))) {
        await assertParses(`${what} --format markdown`, block);
        pictures++;
      }
    }
  }
  assert.ok(pictures >= models.length, `${pictures} markdown pictures`);
});

test('GIVEN the diff goldens THEN every picture in their markdown parses', async () => {
  const dir = path.join(__dirname, 'diff', 'expected');
  let pictures = 0;
  for (const edit of fs.readdirSync(dir)) {
    const md = fs.readFileSync(path.join(dir, edit, 'diff.md'), 'utf8');
    for (const block of mermaidBlocks(md)) {
      await assertParses(`diff golden ${edit}`, block);
      pictures++;
    }
  }
  assert.ok(pictures > 0, 'the diff goldens hold pictures');
});

test('GIVEN Mermaid keywords, quotes and brackets in names THEN the pictures still parse', async () => {
  const m = minimalModel();
  m.members = ['end', 'graph', 'subgraph', 'click'];
  m.clusters = [
    cluster('hub', 0, { network: 'dc "1" <main>' }),
    cluster('end', 1, { network: 'end' }),
    cluster('graph', 2, { network: 'dc "1" <main>' }),
    cluster('subgraph', 3, { network: 'style' }),
    cluster('click', 4, { network: 'classDef' }),
  ];
  m.services = [service('end', 'subgraph', ['end', 'click']), service('default', 'class', ['graph'])];
  await assertParses('awkward set', exportGraphMermaid(planOf(m)));
  await assertParses('awkward focus', exportGraphMermaid(planOf(m), { focus: 'end' }));
  await assertParses(
    'awkward changes',
    renderExportGraph(
      [
        { id: 'end', network: 'subgraph', member: true },
        { id: 'hub', leader: true },
      ],
      [
        { exporter: 'end', importer: 'gone', service: 'a"b/c<d>', change: 'removed' },
        { exporter: 'end', importer: 'hub', service: 'x#y/z', change: 'added' },
        { exporter: 'end', importer: 'gone', service: 'shop/web' },
      ],
    ),
  );
});

test.run();
