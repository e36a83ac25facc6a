/**
 * The documentation site's link check (scripts/docs/site.ts), on pages rendered by VitePress's own
 * markdown renderer, as the build renders them: a link to a page that does not exist, an anchor no
 * heading has, an anchor whose id GitHub spells otherwise, a page link without `.md`, a site-absolute
 * link, a link out of the repository and a link to a repository file that does not exist are each
 * refused; a link to an existing repository file or directory becomes a link to it on GitHub. Every
 * page of docs/ is in the sidebar, and the sidebar names no page that is missing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LinkChecker,
  SIDEBAR,
  githubSlug,
  pageOfLink,
  repositoryWebUrl,
  sidebarProblems,
} from '../../scripts/docs/site';
import { tempRepo, vitepressRenderer } from '../helpers/docs';

const root = path.resolve(__dirname, '..', '..');

/** A repository in a temporary directory: `docs/` with the pages given, and other files. */
const repo = (files: Record<string, string>): string => tempRepo('cs-docs-', files);

/** Renders every `docs/*.md` of `dir` through VitePress's renderer with a checker; returns both. */
async function check(dir: string): Promise<{ checker: LinkChecker; html: Map<string, string> }> {
  const srcDir = path.join(dir, 'docs');
  const checker = new LinkChecker(dir, srcDir, 'https://github.com/acme/site');
  const md = await vitepressRenderer(srcDir, checker.plugin);
  const html = new Map<string, string>();
  for (const f of fs.readdirSync(srcDir).filter((f) => f.endsWith('.md'))) {
    const file = path.join(srcDir, f);
    html.set(f, md.render(fs.readFileSync(file, 'utf8'), { path: file, relativePath: f }));
  }
  return { checker, html };
}

test('GIVEN pages whose links all hold WHEN rendered THEN no problem, and repository links lead to GitHub', async () => {
  const dir = repo({
    'docs/index.md':
      '# Home\n\nSee [delivery](./delivery.md#health) and [the example](../examples/minimal/).\n',
    'docs/delivery.md': '# Delivery\n\n## Health\n\nBack [home](./index.md), the [model](../lib/model.ts).\n',
    'examples/minimal/clusterset.ts': 'export default {};\n',
    'lib/model.ts': 'export {};\n',
  });
  const { checker, html } = await check(dir);
  assert.equal(checker.problems(), []);
  assert.match(html.get('index.md') ?? '', 'href="https://github.com/acme/site/tree/main/examples/minimal"');
  assert.match(html.get('delivery.md') ?? '', 'href="https://github.com/acme/site/blob/main/lib/model.ts"');
  assert.match(html.get('index.md') ?? '', 'href="./delivery.html#health"');
});

test('fails GIVEN broken links of every kind WHEN rendered THEN each is named with why', async () => {
  const dir = repo({
    'docs/index.md': [
      '# Home',
      '',
      '- [gone](./gone.md)',
      '- [no anchor](./delivery.md#nope)',
      '- [apostrophe](./delivery.md#antrea-s-kinds)',
      '- [no md](./delivery)',
      '- [absolute](/delivery.md)',
      '- [missing file](../examples/nope/)',
      '- [outside](../../etc/passwd)',
      '- [own anchor](#nowhere)',
      '',
    ].join('\n'),
    'docs/delivery.md': "# Delivery\n\n## Antrea's kinds\n",
  });
  const { checker } = await check(dir);
  const problems = checker.problems().map((p) => `${p.page} ${p.link}: ${p.why}`);
  const expect = [
    'docs/index.md ./gone.md: docs/gone.md does not exist',
    'docs/index.md ./delivery.md#nope: docs/delivery.md has no heading with the id "nope"',
    `docs/index.md ./delivery.md#antrea-s-kinds: the heading's id is "antrea-s-kinds" on the site but "antreas-kinds" on GitHub`,
    'docs/index.md ./delivery: link to the page',
    'docs/index.md /delivery.md: write the link relative to this page',
    'docs/index.md ../examples/nope/: examples/nope does not exist in the repository',
    'docs/index.md ../../etc/passwd: it leads out of the repository',
    'docs/index.md #nowhere: docs/index.md has no heading with the id "nowhere"',
  ];
  for (const e of expect)
    assert.ok(
      problems.some((p) => p.startsWith(e)),
      `expected a problem starting "${e}" in:\n${problems.join('\n')}`,
    );
  assert.is(problems.length, expect.length, problems.join('\n'));
});

test('GIVEN heading texts WHEN slugged as GitHub does THEN punctuation goes and spaces become hyphens', () => {
  assert.is(githubSlug('Day-2 order: a Tier before the policy'), 'day-2-order-a-tier-before-the-policy');
  assert.is(githubSlug("Antrea's kinds"), 'antreas-kinds');
  assert.is(githubSlug('Argo CD / Flux'), 'argo-cd--flux');
});

test('GIVEN package.json repositories WHEN read THEN the GitHub address, and anything else refused', () => {
  assert.is(
    repositoryWebUrl('git+https://github.com/clusterset/clusterset.git'),
    'https://github.com/clusterset/clusterset',
  );
  assert.is(repositoryWebUrl({ url: 'git@github.com:acme/x.git' }), 'https://github.com/acme/x');
  assert.throws(() => repositoryWebUrl('https://git.example.com/a/b.git'), /not a GitHub repository/);
});

test('fails GIVEN a page the sidebar does not list and an entry with no page THEN both are named', () => {
  const dir = repo({
    'docs/index.md': '# a\n',
    'docs/extra.md': '# b\n',
    'docs/.vitepress/x.md': 'skipped\n',
  });
  const problems = sidebarProblems(path.join(dir, 'docs'), [
    {
      text: 'x',
      items: [
        { text: 'Home', link: '/' },
        { text: 'Gone', link: '/gone' },
      ],
    },
  ]);
  assert.equal(problems, [
    'docs/extra.md is not in the sidebar (scripts/docs/site.ts, SIDEBAR)',
    'the sidebar lists docs/gone.md, which does not exist',
  ]);
});

test('GIVEN the real docs/ THEN every page is in the sidebar once and every entry has its page', () => {
  assert.equal(sidebarProblems(path.join(root, 'docs')), []);
  assert.is(pageOfLink('/'), 'index.md');
  assert.is(pageOfLink('/reference/cli'), 'reference/cli.md');
  assert.ok(SIDEBAR.flatMap((g) => g.items).length >= 19);
});

test.run();
