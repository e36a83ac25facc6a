/**
 * The documentation site (`npm run docs:build`, in the test command, into .cache/docs-site/;
 * `npm run docs:dev` serves it with live reload). VitePress fails the build on a link to a page that
 * does not exist (ignoreDeadLinks is left unset); scripts/docs/site.ts adds the rest: every page in
 * the sidebar, every `#anchor` a heading of its page, every link to a repository file
 * (`../examples/minimal/`) a file that exists, then shown on GitHub, and no paragraph longer than
 * PARAGRAPH_WORD_LIMIT words; the links of README.md and CONTRIBUTING.md are checked the same way.
 *
 * Nothing is fetched, neither while building nor while reading: the default theme's fonts are
 * bundled; the search is VitePress's local search (an index built with the site, searched in the
 * browser, no service); ```mermaid blocks are drawn in the browser by the mermaid package, bundled
 * with the site (`mermaidFence`, docs/.vitepress/theme/Mermaid.vue).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMarkdownRenderer, defineConfig } from 'vitepress';
import {
  LinkChecker,
  ParagraphChecker,
  SIDEBAR,
  formatLinkProblems,
  mermaidFence,
  repositoryWebUrl,
  sidebarProblems,
} from '../../scripts/docs/site';

const srcDir = fileURLToPath(new URL('..', import.meta.url));
const root = path.resolve(srcDir, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  repository: string | { url: string };
};
const webUrl = repositoryWebUrl(pkg.repository);

const sidebar = sidebarProblems(srcDir);
if (sidebar.length > 0) throw new Error(`docs: the sidebar and docs/ disagree:\n  ${sidebar.join('\n  ')}`);

const links = new LinkChecker(root, srcDir, webUrl);
const paragraphs = new ParagraphChecker(srcDir);
/** Markdown files of the repository, outside docs/, whose links the build checks too. */
const OUTSIDE_PAGES = ['README.md', 'CONTRIBUTING.md'];

export default defineConfig({
  title: 'clusterset',
  description: 'GitOps compiler for Antrea Multi-cluster',
  outDir: path.join(root, '.cache', 'docs-site'),
  cacheDir: path.join(root, '.cache', 'docs-vite'),
  srcExclude: ['**/node_modules/**'],
  lastUpdated: false,
  markdown: {
    config: (md) => {
      md.use(links.plugin);
      md.use(paragraphs.plugin);
      md.use(mermaidFence);
    },
  },
  themeConfig: {
    sidebar: SIDEBAR.map((g) => ({ text: g.text, items: g.items.map((i) => ({ ...i })) })),
    nav: [
      { text: 'Guide', link: '/getting-started' },
      { text: 'Reference', link: '/reference/model' },
      { text: 'Examples', link: '/examples' },
      { text: 'Contributing', link: `${webUrl}/blob/main/CONTRIBUTING.md` },
    ],
    search: { provider: 'local' },
    outline: [2, 3],
    socialLinks: [{ icon: 'github', link: webUrl }],
  },
  buildEnd: async (site) => {
    // The README and CONTRIBUTING.md are not pages of the site, but their links are checked the same way.
    const md = await createMarkdownRenderer(site.srcDir, site.markdown, site.site.base, site.logger);
    for (const f of OUTSIDE_PAGES) {
      const file = path.join(root, f);
      md.render(fs.readFileSync(file, 'utf8'), { path: file, relativePath: path.relative(srcDir, file) });
    }
    const problems = links.problems();
    if (problems.length > 0)
      throw new Error(`docs: ${problems.length} broken link(s):\n${formatLinkProblems(problems)}`);
    const walls = paragraphs.problems();
    if (walls.length > 0)
      throw new Error(`docs: ${walls.length} paragraph(s) too long:\n  ${walls.join('\n  ')}`);
  },
});
