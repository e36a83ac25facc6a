/**
 * docs/examples.md, the Examples page of the site, generated from examples/ itself, so that nothing
 * is written twice: the list and its one-line descriptions from examples/README.md's table, then for
 * each example its own README (what it shows, when to start from it, how to render it, what to look
 * at), its model (`clusterset.ts`, shown whole), and where its rendered output is (`out/`, folder by
 * folder, with how many files each holds).
 *
 * A README's own sections ("Render it", "What to look at") keep their titles in bold, so that the
 * page's outline lists the examples. Links of the READMEs are rewritten from their folder to docs/: a link to an example's folder
 * becomes a link to its section of this page, any other repository link a relative link that the
 * site's link check turns into a link to GitHub. Pure but for reading the files under `root`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** One row of examples/README.md's table: the folder and what it shows. */
export interface ExampleRow {
  readonly name: string;
  readonly shows: string;
}

/** The rows of examples/README.md's table, in its order. */
export function exampleRows(readme: string): ExampleRow[] {
  const rows: ExampleRow[] = [];
  for (const m of readme.matchAll(/^\|\s*\[([\w-]+)\]\(\1\/?\)\s*\|\s*(.*?)\s*\|\s*$/gm))
    rows.push({ name: m[1] as string, shows: m[2] as string });
  if (rows.length === 0)
    throw new Error('examples/README.md: no table of examples (| [name](name/) | what |)');
  return rows;
}

/** A README split at its `## ` headings: what comes before the first, then each section. */
export function readmeSections(md: string): { lead: string; sections: { title: string; body: string }[] } {
  const body = md.replace(/^# .*\n/, '');
  const parts = body.split(/^## /m);
  const lead = (parts[0] ?? '').trim();
  const sections = parts.slice(1).map((p) => {
    const nl = p.indexOf('\n');
    return { title: p.slice(0, nl).trim(), body: p.slice(nl + 1).trim() };
  });
  return { lead, sections };
}

/**
 * The markdown links of `md`, written relative to `from` (a folder of the repository, `/`-separated),
 * rewritten relative to docs/: a link to the folder of an example in `examples` becomes `#<name>`.
 * External links and anchors stay as they are; code spans are left alone.
 */
export function rewriteLinks(md: string, from: string, examples: readonly string[]): string {
  return md
    .split(/(^```[\s\S]*?^```$|`[^`\n]*`)/m)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/\]\(([^)\s]+)\)/g, (whole, href: string) => {
            if (/^(?:[a-z][a-z0-9+.-]*:|\/\/|#)/i.test(href)) return whole;
            const hashAt = href.indexOf('#');
            const target = hashAt < 0 ? href : href.slice(0, hashAt);
            const hash = hashAt < 0 ? '' : href.slice(hashAt);
            const inRepo = path.posix.normalize(path.posix.join(from, target));
            const example = /^examples\/([\w-]+)\/?$/.exec(inRepo);
            if (example && examples.includes(example[1] as string) && hash === '') return `](#${example[1]})`;
            const trailing = target.endsWith('/') && !inRepo.endsWith('/') ? '/' : '';
            return `](../${inRepo}${trailing}${hash})`;
          }),
    )
    .join('');
}

/** How many files `dir` holds, at any depth. */
function countFiles(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true }))
    n += e.isDirectory() ? countFiles(path.join(dir, e.name)) : 1;
  return n;
}

/** `out/`'s folders as a reader looks for them: each cluster's bundle, then the delivery folders. */
export function outputFolders(outDir: string): { folder: string; files: number }[] {
  const rows: { folder: string; files: number }[] = [];
  const top = fs
    .readdirSync(outDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a === 'clusters' ? -1 : b === 'clusters' ? 1 : a.localeCompare(b)));
  for (const t of top) {
    if (t === 'clusters') {
      const clusters = path.join(outDir, t);
      for (const c of fs
        .readdirSync(clusters, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort())
        rows.push({ folder: `clusters/${c}/`, files: countFiles(path.join(clusters, c)) });
    } else rows.push({ folder: `${t}/`, files: countFiles(path.join(outDir, t)) });
  }
  return rows;
}

/** The Examples page. `root` is the repository; links are written for docs/examples.md. */
export function examplesPage(root: string): string {
  const index = fs.readFileSync(path.join(root, 'examples', 'README.md'), 'utf8');
  const rows = exampleRows(index);
  const names = rows.map((r) => r.name);
  const { lead, sections } = readmeSections(index);
  const intro = lead.split(/\n\s*\n/)[0] ?? '';
  const renderOne = sections.find((s) => s.title === 'Render one');
  if (!renderOne) throw new Error('examples/README.md: no "## Render one" section');

  const out: string[] = [
    '# Examples',
    '',
    rewriteLinks(intro, 'examples', names),
    '',
    '| Example | What it shows |',
    '| --- | --- |',
    ...rows.map((r) => `| [${r.name}](#${r.name}) | ${rewriteLinks(r.shows, 'examples', names)} |`),
    '',
    '## Rendering one',
    '',
    rewriteLinks(
      renderOne.body.replace(/^#{2,} /gm, (h) => `#${h}`),
      'examples',
      names,
    ),
    '',
  ];

  for (const { name } of rows) {
    const dir = path.join(root, 'examples', name);
    const from = `examples/${name}`;
    const readme = readmeSections(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'));
    const model = fs.readFileSync(path.join(dir, 'clusterset.ts'), 'utf8').replace(/\n+$/, '');
    const lines = model.split('\n').length;
    const folders = outputFolders(path.join(dir, 'out'));
    const files = folders.reduce((n, f) => n + f.files, 0);
    out.push(
      `## ${name}`,
      '',
      rewriteLinks(readme.lead, from, names),
      '',
      `**The model**: [\`examples/${name}/clusterset.ts\`](../examples/${name}/clusterset.ts), ${lines} lines.`,
      '',
      '<details>',
      `<summary>examples/${name}/clusterset.ts</summary>`,
      '',
      '```ts',
      model,
      '```',
      '',
      '</details>',
      '',
      `**What it renders**: [\`examples/${name}/out/\`](../examples/${name}/out/), ${files} files:`,
      '',
      '| Folder | Files |',
      '| --- | ---: |',
      ...folders.map((f) => `| [\`${f.folder}\`](../examples/${name}/out/${f.folder}) | ${f.files} |`),
      '',
    );
    // Bold, not headings: the page's outline lists the examples, not seven times the same titles.
    for (const s of readme.sections) out.push(`**${s.title}**`, '', rewriteLinks(s.body, from, names), '');
  }
  out.push(
    '---',
    '',
    'This page is generated from [`examples/`](../examples/) by `npm run docs:generate` (`scripts/docs-reference.ts`): edit the examples and their READMEs, never this page. The test command fails when this page is not what they say (`npm run docs:check`), and when an example no longer renders exactly its `out/`.',
  );
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
