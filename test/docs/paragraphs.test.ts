/**
 * The documentation site's wall check (scripts/docs/site.ts, `ParagraphChecker`), on pages rendered
 * by VitePress's own markdown renderer as the build renders them: a paragraph (a list item's
 * included) over PARAGRAPH_WORD_LIMIT words is refused with its page, line and first words; code
 * blocks, tables and link targets do not count; an allowance for a page kept by others silences its
 * paragraph, and an allowance that finds no such paragraph any more is refused too. Pages outside
 * docs/ (README.md, CONTRIBUTING.md, rendered for their links) are not checked. The committed docs/
 * holds no wall but the allowed ones.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PARAGRAPH_WORD_LIMIT, ParagraphChecker, WALLS_TO_SPLIT, listPages } from '../../scripts/docs/site';
import { vitepressRenderer } from '../helpers/docs';

const root = path.resolve(__dirname, '..', '..');

/** `n` words: `w1 w2 …`. */
const words = (n: number, prefix = 'w'): string =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join(' ');

/** Renders each `files` entry (relative to `dir`) through VitePress's renderer with `checker`. */
async function render(dir: string, files: Record<string, string>, checker: ParagraphChecker): Promise<void> {
  const srcDir = path.join(dir, 'docs');
  const md = await vitepressRenderer(srcDir, checker.plugin);
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    md.render(text, { path: file, relativePath: path.relative(srcDir, file) });
  }
}

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'cs-docs-walls-'));

test('GIVEN the limit THEN it is about a phone screen, well under a laptop one', () => {
  assert.is(PARAGRAPH_WORD_LIMIT, 120);
});

test('fails GIVEN a paragraph and a list item one word over the limit THEN both are named with page, line and first words', async () => {
  const dir = tmp();
  const checker = new ParagraphChecker(path.join(dir, 'docs'), 120, []);
  await render(
    dir,
    {
      'docs/page.md': [
        '# Page',
        '',
        words(120, 'ok'),
        '',
        words(121),
        '',
        `- ${words(121, 'item')}`,
        '- short',
        '',
      ].join('\n'),
    },
    checker,
  );
  assert.equal(checker.problems(), [
    'docs/page.md:5: a paragraph of 121 words ("w1 w2 w3 w4 w5 w6 w7 w8 …"), over 120: split it into short paragraphs, a list or a table',
    'docs/page.md:7: a paragraph of 121 words ("item1 item2 item3 item4 item5 item6 item7 item8 …"), over 120: split it into short paragraphs, a list or a table',
  ]);
});

test('GIVEN long code blocks, tables and link targets THEN none counts as a wall', async () => {
  const dir = tmp();
  const checker = new ParagraphChecker(path.join(dir, 'docs'), 10, []);
  const longUrl = Array.from({ length: 30 }, (_, i) => `seg${i}`).join('/');
  await render(
    dir,
    {
      'docs/page.md': [
        '# Page',
        '',
        '```sh',
        words(50),
        '```',
        '',
        '| a | b |',
        '| - | - |',
        `| ${words(30)} | ${words(30)} |`,
        '',
        `Read [the page](./${longUrl}.md) and \`some code\` now.`,
        '',
        '```mermaid',
        `flowchart LR\n  a["${words(40)}"] --> b`,
        '```',
        '',
      ].join('\n'),
    },
    checker,
  );
  assert.equal(checker.problems(), []);
});

test('GIVEN an allowance THEN its paragraph passes; fails GIVEN an allowance whose paragraph is gone', async () => {
  const dir = tmp();
  const allowed = [
    { page: 'kept.md', start: 'w1 w2 w3' },
    { page: 'kept.md', start: 'split already' },
    { page: 'not-rendered.md', start: 'anything' },
  ];
  const checker = new ParagraphChecker(path.join(dir, 'docs'), 20, allowed);
  await render(dir, { 'docs/kept.md': `# Kept\n\n${words(30)}\n\nsplit already, short.\n` }, checker);
  assert.equal(checker.problems(), [
    'docs/kept.md: no paragraph over 20 words starts "split already" any more: remove it from WALLS_TO_SPLIT (scripts/docs/site.ts)',
  ]);
});

test('GIVEN README.md rendered for its links THEN its paragraphs are not checked: it is not a page of the site', async () => {
  const dir = tmp();
  const checker = new ParagraphChecker(path.join(dir, 'docs'), 10, []);
  await render(dir, { 'README.md': `# Readme\n\n${words(50)}\n` }, checker);
  assert.equal(checker.problems(), []);
});

test('GIVEN a page rendered twice THEN its walls are counted once, from the last rendering', async () => {
  const dir = tmp();
  const checker = new ParagraphChecker(path.join(dir, 'docs'), 10, []);
  await render(dir, { 'docs/p.md': `# P\n\n${words(11)}\n` }, checker);
  await render(dir, { 'docs/p.md': `# P\n\n${words(5)}\n` }, checker);
  assert.equal(checker.problems(), []);
});

test('GIVEN the committed docs/ THEN no paragraph is over the limit but the allowed ones, and each allowance is used', async () => {
  const srcDir = path.join(root, 'docs');
  const checker = new ParagraphChecker(srcDir);
  const files = Object.fromEntries(
    listPages(srcDir).map((p) => [`docs/${p}`, fs.readFileSync(path.join(srcDir, p), 'utf8')]),
  );
  const md = await vitepressRenderer(srcDir, checker.plugin);
  for (const [rel, text] of Object.entries(files))
    md.render(text, {
      path: path.join(root, rel),
      relativePath: path.relative(srcDir, path.join(root, rel)),
    });
  assert.equal(checker.problems(), []);
  assert.ok(WALLS_TO_SPLIT.every((w) => !w.page.startsWith('/')));
});

test.run();
