/**
 * The site's pictures and search:
 * - a ```mermaid block becomes the theme's <Mermaid> component with its source URI-encoded (so that
 *   nothing in it reads as HTML or as Vue), and every other block renders as VitePress renders it;
 * - every ```mermaid block of docs/ is a diagram Mermaid's own parser accepts, and the pages a reader
 *   would rather look at (Concepts, Adopting a running set, Delivery, Gateways) each have one;
 * - the config turns on VitePress's local search (an index built with the site: no service), and
 *   renders mermaid blocks through `mermaidFence`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listPages, mermaidFence } from '../../scripts/docs/site';
import { vitepressRenderer } from '../helpers/docs';
import { mermaidBlocks, parseMermaid } from '../helpers/mermaid';

const root = path.resolve(__dirname, '..', '..');
const docs = path.join(root, 'docs');
const read = (rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');

test('GIVEN a mermaid block and a sh block WHEN rendered THEN the first is a <Mermaid> component, the second code', async () => {
  const md = await vitepressRenderer(docs, mermaidFence);
  const source = 'flowchart LR\n  a["<b>x</b> {{ y }}"] --> b\n';
  const html = md.render(`# P\n\n\`\`\`mermaid\n${source}\`\`\`\n\n\`\`\`sh\necho hi\n\`\`\`\n`, {});
  const m = /<Mermaid code="([^"]*)" \/>/.exec(html);
  assert.ok(m, html);
  assert.is(decodeURIComponent((m as RegExpExecArray)[1] as string), source);
  assert.not.match((m as RegExpExecArray)[1] as string, /[<>{}"]/);
  assert.match(html, /<pre class="shiki[^"]*"[^>]*>/);
  assert.match(html, 'echo');
});

test('GIVEN every page of docs/ THEN each mermaid block parses, and the pages that need a picture have one', async () => {
  let pictures = 0;
  for (const page of listPages(docs)) {
    for (const block of mermaidBlocks(read(`docs/${page}`))) {
      try {
        await parseMermaid(block);
      } catch (e) {
        assert.unreachable(`docs/${page}: a diagram Mermaid refuses: ${(e as Error).message}\n${block}`);
      }
      pictures++;
    }
  }
  for (const page of ['concepts.md', 'import.md', 'delivery.md', 'gateways.md'])
    assert.ok(mermaidBlocks(read(`docs/${page}`)).length > 0, `docs/${page} has no diagram`);
  assert.ok(pictures >= 6, `${pictures} diagrams`);
});

test('GIVEN the site config THEN local search is on and mermaid blocks go through mermaidFence', () => {
  const config = read('docs/.vitepress/config.mts');
  assert.match(config, "search: { provider: 'local' }");
  assert.match(config, 'md.use(mermaidFence)');
  assert.match(config, 'md.use(paragraphs.plugin)');
  const theme = read('docs/.vitepress/theme/index.ts');
  assert.match(theme, "app.component('Mermaid', Mermaid)");
});

test.run();
