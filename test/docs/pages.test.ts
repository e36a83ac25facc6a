/**
 * The documentation's own rules, on the committed pages:
 * - the README is a short front page: what clusterset is, the Quick start (the same commands as
 *   docs/getting-started.md's, which the end-to-end tests follow), the two commands, and a "Read on"
 *   list that links every page of the site;
 * - no user page names a test file: which test proves what is on docs/testing.md (and the
 *   benchmarks page), never in the paragraphs a user reads;
 * - no page holds `{{` outside code (the site would evaluate it as Vue);
 * - no `git push` relies on an upstream a new repository does not have;
 * - the site's config leaves VitePress's dead-link check on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scaffold } from '../../lib/init';
import { SIDEBAR, listPages, pageOfLink } from '../../scripts/docs/site';
import { FLEET_SCAFFOLD } from '../helpers/models';

const root = path.resolve(__dirname, '..', '..');
const docs = path.join(root, 'docs');
const read = (rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');

/** The pages that may name test files: the one that says which test proves what, and the benchmarks. */
const PROJECT_PAGES = ['testing.md', 'benchmarks.md'];

/** Text outside fenced code blocks and code spans. */
function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The first ```sh block under `## Quick start`. */
function quickStart(md: string): string {
  const at = md.indexOf('\n## Quick start\n');
  assert.ok(at >= 0, 'no "## Quick start" section');
  const block = /```sh\n([\s\S]*?)```/.exec(md.slice(at));
  assert.ok(block, 'no sh block in the Quick start');
  return (block as RegExpExecArray)[1] as string;
}

test('GIVEN the README THEN it is a short front page: what it is, the Quick start, the two commands, Read on', () => {
  const readme = read('README.md');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 90, `README.md has ${lines} lines; the rest belongs on a page of docs/`);
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  assert.equal(headings, ['Quick start', 'The two commands', 'Read on']);
  assert.match(readme, /npm test\s+# the whole test suite/);
});

test('GIVEN the README and Getting started THEN their Quick start commands are the same', () => {
  const readme = quickStart(read('README.md'));
  assert.is(readme, quickStart(read('docs/getting-started.md')));
  assert.match(readme, 'npx clusterset init --set-id fleet');
  assert.match(readme, 'npm run synth');
});

test('GIVEN the README, every page and the README init writes THEN no `git push` relies on an upstream: the Quick start creates the repository, which has none until `git push -u origin HEAD`', () => {
  const texts: [string, string][] = [
    ['README.md', read('README.md')],
    ['CONTRIBUTING.md', read('CONTRIBUTING.md')],
    ...listPages(docs).map((p): [string, string] => [`docs/${p}`, read(`docs/${p}`)]),
    ['the README init writes', scaffold(FLEET_SCAFFOLD).get('README.md') ?? ''],
  ];
  for (const [where, text] of texts)
    for (const m of text.matchAll(/\bgit push\b([^\n]*)/g)) {
      const args = (m[1] ?? '').replace(/\s*(&&|;|\||#|`).*$/, '').trim();
      assert.ok(args !== '', `${where}: \`git push\` with no remote fails in a new repository: ${m[0]}`);
    }
  assert.match(quickStart(read('README.md')), /git push -u origin HEAD\b/);
});

test('GIVEN the README THEN its Read on list links every page of the site', () => {
  const readme = read('README.md');
  const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1]));
  for (const item of SIDEBAR.flatMap((g) => g.items)) {
    const page = `docs/${pageOfLink(item.link)}`;
    assert.ok(linked.has(page), `README.md does not link ${page} (${item.text})`);
  }
});

/** Test files and directories a text names, in prose or in code. */
function testFiles(md: string): string[] {
  return [...md.matchAll(/\btest\/[\w./*-]+|\b[\w-]+\.test\.ts\b/g)].map((m) => m[0]);
}

test('fails GIVEN a user page that names a test file THEN the page is named; testing.md names them', () => {
  assert.equal(testFiles('Proved by `test/e2e/status.test.ts` and gitops-loop.test.ts.'), [
    'test/e2e/status.test.ts',
    'gitops-loop.test.ts',
  ]);
  for (const page of listPages(docs)) {
    if (PROJECT_PAGES.includes(page)) continue;
    assert.equal(
      testFiles(fs.readFileSync(path.join(docs, page), 'utf8')),
      [],
      `docs/${page} names test files`,
    );
  }
  assert.ok(testFiles(read('docs/testing.md')).length > 20, 'docs/testing.md names the tests');
});

test('GIVEN every page THEN no {{ outside code, which the site would evaluate', () => {
  for (const page of [...listPages(docs).map((p) => `docs/${p}`), 'README.md', 'CONTRIBUTING.md'])
    assert.not.match(prose(read(page)), '{{', `${page} has {{ outside code`);
});

test('GIVEN the site config THEN VitePress keeps its dead-link check and runs the repository link check', () => {
  const config = read('docs/.vitepress/config.mts');
  assert.not.match(config, /ignoreDeadLinks\s*:/);
  assert.match(config, 'md.use(links.plugin)');
  assert.match(config, 'throw new Error(`docs: ${problems.length} broken link(s)');
});

test.run();
