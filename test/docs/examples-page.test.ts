/**
 * The Examples page (docs/examples.md) is generated from examples/ (scripts/docs/examples-page.ts):
 * it has a section for every example examples/README.md lists, each with its README's text, its
 * whole model and a link to each folder of its out/ with how many files it holds; the READMEs'
 * links are rewritten for docs/ (a link to an example's folder becomes a link to its section). A
 * fixture repository shows the page's parts; on the real examples, every folder is on the page. The
 * committed page equals what examples/ says: `npm run docs:check`, in the test command. An "Exit …"
 * paragraph of several statuses becomes a list on the CLI reference page (`exitBlock`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exitBlock } from '../../scripts/docs/cli-reference';
import { exampleRows, examplesPage, outputFolders, rewriteLinks } from '../../scripts/docs/examples-page';
import { tempRepo } from '../helpers/docs';

const root = path.resolve(__dirname, '..', '..');

const repo = (files: Record<string, string>): string => tempRepo('cs-docs-examples-', files);

const INDEX = [
  '# Examples',
  '',
  'Each folder is a model.',
  '',
  '| Example | What it shows |',
  '| --- | --- |',
  '| [tiny](tiny/) | The smallest one |',
  '| [wide](wide/) | Two networks, see [tiny](tiny/) |',
  '',
  '## Render one',
  '',
  '```sh',
  'npx clusterset synth examples/<name>/clusterset.ts',
  '```',
  '',
  '## Kept honest',
  '',
  'The test command checks them.',
  '',
].join('\n');

test('GIVEN examples/README.md WHEN read THEN its table gives the examples in order', () => {
  assert.equal(exampleRows(INDEX), [
    { name: 'tiny', shows: 'The smallest one' },
    { name: 'wide', shows: 'Two networks, see [tiny](tiny/)' },
  ]);
  assert.throws(() => exampleRows('# Examples\n\nnone\n'), /no table of examples/);
});

test("GIVEN README links WHEN rewritten for docs/ THEN an example's folder is its section, other files a repository path", () => {
  const md =
    'See [`out/`](out/), [a file](out/clusters/hub/x.yaml), [the other](../tiny/), [Antrea](https://antrea.io), [here](#render-it) and `[not](a-link)`.';
  assert.is(
    rewriteLinks(md, 'examples/wide', ['tiny', 'wide']),
    'See [`out/`](../examples/wide/out/), [a file](../examples/wide/out/clusters/hub/x.yaml), [the other](#tiny), [Antrea](https://antrea.io), [here](#render-it) and `[not](a-link)`.',
  );
});

test('GIVEN a fixture repository WHEN the page is made THEN each example has its text, model and output folders', () => {
  const example = (name: string, extra: Record<string, string>): Record<string, string> => ({
    [`examples/${name}/README.md`]: `# ${name}\n\nWhat ${name} shows.\n\n**Start from it** when so.\n\n## What to look at\n\n- [\`out/clusters/hub/\`](out/clusters/hub/): the leader.\n`,
    [`examples/${name}/clusterset.ts`]: `export default { clusterSetId: '${name}' };\n`,
    ...extra,
  });
  const dir = repo({
    'examples/README.md': INDEX,
    ...example('tiny', {
      'examples/tiny/out/clusters/hub/a.yaml': 'a',
      'examples/tiny/out/clusters/hub/ns/b.yaml': 'b',
      'examples/tiny/out/clusters/east/c.yaml': 'c',
    }),
    ...example('wide', {
      'examples/wide/out/clusters/hub/a.yaml': 'a',
      'examples/wide/out/argocd/x.yaml': 'x',
      'examples/wide/out/argocd/apps/y.yaml': 'y',
      'examples/wide/out/flux/z.yaml': 'z',
    }),
  });
  assert.equal(outputFolders(path.join(dir, 'examples', 'wide', 'out')), [
    { folder: 'clusters/hub/', files: 1 },
    { folder: 'argocd/', files: 2 },
    { folder: 'flux/', files: 1 },
  ]);
  const page = examplesPage(dir);
  for (const part of [
    '# Examples\n',
    'Each folder is a model.',
    '| [tiny](#tiny) | The smallest one |',
    '| [wide](#wide) | Two networks, see [tiny](#tiny) |',
    '## Rendering one',
    '## tiny\n\nWhat tiny shows.\n\n**Start from it** when so.',
    "```ts\nexport default { clusterSetId: 'tiny' };\n```",
    '**What it renders**: [`examples/tiny/out/`](../examples/tiny/out/), 3 files:',
    '| [`clusters/east/`](../examples/tiny/out/clusters/east/) | 1 |',
    '| [`clusters/hub/`](../examples/tiny/out/clusters/hub/) | 2 |',
    '**What to look at**',
    '[`out/clusters/hub/`](../examples/wide/out/clusters/hub/): the leader.',
    '| [`argocd/`](../examples/wide/out/argocd/) | 2 |',
  ])
    assert.ok(page.includes(part), `the page lacks ${JSON.stringify(part)}:\n${page}`);
  assert.not.match(page, 'Kept honest');
  assert.match(page, 'This page is generated from [`examples/`](../examples/)');
  assert.ok(page.indexOf('## tiny') < page.indexOf('## wide'));
});

test('GIVEN the real examples/ THEN every folder has its section, its model and its out/ on the page', () => {
  const page = examplesPage(root);
  const folders = fs
    .readdirSync(path.join(root, 'examples'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.ok(folders.length >= 7);
  for (const name of folders) {
    assert.match(page, `\n## ${name}\n`);
    assert.match(page, `<summary>examples/${name}/clusterset.ts</summary>`);
    assert.match(page, `(../examples/${name}/out/)`);
  }
});

test('GIVEN an Exit paragraph of several statuses THEN a list, one status a line; one status stays a line', () => {
  assert.equal(
    exitBlock('Exit 0 when fine. Exit 1 when not; or else. Exit 74 when a file fails.', '[x](x.ts)'),
    [
      'Exit statuses ([x](x.ts)):',
      '',
      '- Exit 0 when fine.',
      '- Exit 1 when not; or else.',
      '- Exit 74 when a file fails.',
    ],
  );
  assert.equal(exitBlock('Exit codes: 0 when fine; 3 when not.', '[x](x.ts)'), [
    'Exit codes: 0 when fine; 3 when not. ([x](x.ts))',
  ]);
});

test.run();
