/**
 * Writes the generated pages of the documentation site, and nothing else:
 *  - docs/reference/model.md, from the doc comments of lib/model.ts (scripts/docs/model-reference.ts);
 *  - docs/reference/cli.md, from the commands' yargs definitions (scripts/docs/cli-reference.ts);
 *  - docs/examples.md, from examples/: its README's list, each example's README, model and out/
 *    (scripts/docs/examples-page.ts).
 *
 * Each page is formatted with the repository's Prettier settings, so that `prettier --check .` and
 * this script agree. `--check` writes nothing and exits 1 when a committed page differs from what
 * the sources say (`npm run docs:check`, in the test command); `--out DIR` writes them under DIR
 * instead (the tests read them there).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as prettier from 'prettier';
import { recordCli, renderCliReference } from './docs/cli-reference';
import { examplesPage } from './docs/examples-page';
import { modelReference } from './docs/model-reference';

const root = path.resolve(__dirname, '..');
const referenceDir = path.join(root, 'docs', 'reference');

/** A repository file as linked from a page of docs/reference/. */
function linkFromReference(file: string): string {
  return path.relative(referenceDir, path.join(root, file)).split(path.sep).join('/');
}

async function format(file: string, text: string): Promise<string> {
  const config = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...config, filepath: file });
}

/** Every generated page: path relative to the repository → its text. */
export async function generatedPages(): Promise<Map<string, string>> {
  const model = modelReference(path.join(root, 'lib', 'model.ts'), {
    shownPath: 'lib/model.ts',
    linkToSource: linkFromReference('lib/model.ts'),
  });
  // The CLI is loaded only now, by the recorder, with yargs replaced by it.
  const cli = await recordCli(require.resolve('yargs'), async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const m = require('../lib/cli/main') as { main(argv: string[]): Promise<void> };
    await m.main([]);
  });
  const cliDir = path.join(root, 'lib', 'cli');
  const cliPage = renderCliReference(cli, {
    sources: fs
      .readdirSync(cliDir)
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => `lib/cli/${f}`),
    readFile: (f) => fs.readFileSync(path.join(root, f), 'utf8'),
    linkTo: linkFromReference,
    mainFile: 'lib/cli/main.ts',
  });
  const pages = new Map<string, string>();
  for (const [rel, text] of [
    ['docs/reference/model.md', model],
    ['docs/reference/cli.md', cliPage],
    ['docs/examples.md', examplesPage(root)],
  ] as const)
    pages.set(rel, await format(path.join(root, rel), text));
  return pages;
}

/** The generated pages whose committed text differs from `pages` (missing ones included). */
export function stalePages(pages: ReadonlyMap<string, string>): string[] {
  return [...pages]
    .filter(([rel, text]) => {
      const file = path.join(root, rel);
      return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
    })
    .map(([rel]) => rel);
}

async function main(): Promise<void> {
  const pages = await generatedPages();
  const outAt = process.argv.indexOf('--out');
  if (outAt >= 0) {
    // For the tests: the pages written under another directory, the committed ones untouched.
    const dir = process.argv[outAt + 1];
    if (!dir) throw new Error('--out needs a directory');
    for (const [rel, text] of pages) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    return;
  }
  if (process.argv.includes('--check')) {
    const stale = stalePages(pages);
    if (stale.length > 0) {
      console.error(`${stale.join(', ')}: stale; run \`npm run docs:generate\` and commit the result.`);
      process.exit(1);
    }
    console.log(`the generated pages are up to date (${[...pages.keys()].join(', ')}).`);
    return;
  }
  for (const [rel, text] of pages) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  console.log(`written: ${[...pages.keys()].join(', ')}`);
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(`docs-reference: ${(e as Error).message}`);
    process.exit(1);
  });
