/**
 * The generated references are complete and follow their sources:
 * - the model reference has a section for every type of the model's JSON Schema (an independent
 *   reading of lib/model.ts), every field of it in that section, marked required exactly where the
 *   schema requires it; a fixture model shows the field, type, default, example and comment of a
 *   new field, and an unknown doc tag fails the generation;
 * - the CLI reference has a section for every command the real CLI's `--help` lists, and every
 *   option `--help` shows for a command is in its section; a fixture CLI, recorded through the same
 *   stand-in for yargs, shows its usage, options with types, choices, aliases and defaults (a default
 *   computed at run time by its source), examples, actions, its module's exit codes, and leaves out
 *   the hidden command; a builder calling a yargs method the generator does not know fails it.
 * The committed pages equal what the sources say: `npm run docs:check`, in the test command.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBin } from '../helpers/cli';
import { recordCli, renderCliReference } from '../../scripts/docs/cli-reference';
import { modelReference } from '../../scripts/docs/model-reference';

const root = path.resolve(__dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

let generated: Promise<string> | undefined;
/** The pages as `npm run docs:generate` makes them now, written under a temporary directory. */
function generatedDir(): Promise<string> {
  generated ??= new Promise((resolve, reject) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-docs-ref-'));
    const r = spawnSync(tsx, [path.join(root, 'scripts', 'docs-reference.ts'), '--out', dir], {
      cwd: root,
      encoding: 'utf8',
    });
    if (r.status !== 0) reject(new Error(`docs-reference --out failed (${r.status}): ${r.stderr}`));
    else resolve(dir);
  });
  return generated;
}

/** `## Name` sections of a page, by name. */
function sections(page: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of page.split(/^## /m).slice(1)) {
    const nl = part.indexOf('\n');
    out.set(part.slice(0, nl).trim(), part.slice(nl + 1));
  }
  return out;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  $ref?: string;
}

/** Every field of a schema object, nested object literals included, with whether it is required. */
function fields(node: SchemaNode, prefix = ''): { name: string; required: boolean; nested: boolean }[] {
  return Object.entries(node.properties ?? {}).flatMap(([name, p]) => {
    const inner = p.properties ? p : p.items?.properties ? p.items : undefined;
    return [
      { name, required: (node.required ?? []).includes(name), nested: prefix !== '' },
      ...(inner ? fields(inner, `${prefix}${name}.`) : []),
    ];
  });
}

test('GIVEN the model JSON Schema WHEN compared with the model reference THEN every type and field is there, required as the schema says', async () => {
  const page = fs.readFileSync(path.join(await generatedDir(), 'docs', 'reference', 'model.md'), 'utf8');
  const bySection = sections(page);
  const schema = JSON.parse(
    fs.readFileSync(path.join(root, 'generated', 'model.schema.json'), 'utf8'),
  ) as SchemaNode & {
    definitions: Record<string, SchemaNode>;
  };
  const types: [string, SchemaNode][] = [['ClusterSetProps', schema], ...Object.entries(schema.definitions)];
  let checked = 0;
  for (const [name, node] of types) {
    let body = bySection.get(name);
    assert.ok(body !== undefined, `no section for ${name}`);
    const alias = /^Type: \[(\w+)\]\(#\w+\)\.$/m.exec(body ?? '');
    if (alias && node.properties) body = bySection.get(alias[1] as string);
    for (const f of fields(node)) {
      const line = (body ?? '').split('\n').find((l) => l.trimStart().startsWith(`- **\`${f.name}\`**`));
      assert.ok(line !== undefined, `${name}: no entry for ${f.name}`);
      // Nested fields sit in their parent's entry; a top-level entry says required exactly when it is.
      if (!f.nested) assert.is(line?.includes('**required**'), f.required, `${name}.${f.name}: ${line}`);
      checked++;
    }
  }
  assert.ok(checked > 150, `${checked} fields checked`);
});

test('GIVEN a model file with a new field WHEN the reference is generated THEN the field, its type, default, example and comment are on the page', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-docs-model-'));
  const file = path.join(dir, 'model.ts');
  fs.writeFileSync(
    file,
    [
      '/** The root. */',
      'export interface RootProps {',
      "  /** The name. @example 'x' */",
      '  readonly name: string;',
      '  /**',
      '   * How often the <thing> runs.',
      '   *',
      '   * A second paragraph.',
      "   * @default '5m' - Flux's default",
      '   */',
      '  readonly interval?: string;',
      '  readonly parts?: readonly PartProps[];',
      '}',
      '/** A part. */',
      'export interface PartProps extends BaseProps { readonly kind: Kind; readonly opts?: { readonly deep?: boolean } }',
      '/** Shared. */',
      'export interface BaseProps {',
      '  /** @default - none */',
      '  readonly label?: string;',
      '}',
      "/** Kinds. */\nexport type Kind = 'a' | 'b';",
      '/** Not reached from the root. */',
      'export interface Orphan { readonly x: number }',
      '',
    ].join('\n'),
  );
  const page = modelReference(file, {
    root: 'RootProps',
    shownPath: 'model.ts',
    linkToSource: '../model.ts',
  });
  assert.match(page, "- **`name`** · `string` · **required**\n\n  The name.\n\n  Example: `'x'`");
  assert.match(page, "- **`interval`** · `string` · default `'5m'` (Flux's default)");
  assert.match(page, 'How often the &lt;thing> runs.\n\n  A second paragraph.');
  assert.match(page, '- **`parts`** · [PartProps](#partprops)`[]` · optional');
  assert.match(page, '- **`label`** · `string` · default: none · from [BaseProps](#baseprops)');
  assert.match(page, '- **`kind`** · [Kind](#kind) · **required**');
  assert.match(page, "Type: `'a' | 'b'`.");
  assert.match(page, '- **`opts`** · object · optional\n\n  - **`deep`** · `boolean` · optional');
  assert.match(page, 'Used in: [RootProps](#rootprops)`.parts`.');
  assert.not.match(page, 'Orphan');
  fs.writeFileSync(
    file,
    '/** R. */\nexport interface RootProps {\n  /** @deprecated use y */\n  readonly x: string;\n}\n',
  );
  assert.throws(
    () => modelReference(file, { root: 'RootProps', shownPath: 'm', linkToSource: 'm' }),
    /@deprecated .* is not a tag this reference renders/,
  );
});

test('GIVEN the real CLI WHEN its --help is compared with the CLI reference THEN every command has a section and every option of synth and status is in it', async () => {
  const page = fs.readFileSync(path.join(await generatedDir(), 'docs', 'reference', 'cli.md'), 'utf8');
  const bySection = sections(page);
  const help = (args: string[]): string => {
    const r = runBin(args);
    assert.is(r.status, 0, r.stderr);
    return r.stdout;
  };
  const commands = [...help(['--help']).matchAll(/^ {2}clusterset ([a-z-]+)/gm)].map((m) => m[1] as string);
  assert.ok(commands.length >= 10, commands.join(' '));
  for (const c of commands) assert.ok(bySection.has(`clusterset ${c}`), `no section for clusterset ${c}`);
  for (const c of ['synth', 'status']) {
    const options = [...help([...c.split(' '), '--help']).matchAll(/^ {2}(--[a-z-]+)/gm)].map(
      (m) => m[1] as string,
    );
    assert.ok(options.length >= 3, `${c}: ${options.join(' ')}`);
    const body = `${bySection.get(`clusterset ${c}`) ?? ''}${bySection.get('Global options') ?? ''}`;
    for (const o of options)
      assert.ok(body.includes(`\`${o}`), `clusterset ${c}: ${o} is not in its section`);
  }
});

test('GIVEN a fixture CLI WHEN recorded and rendered THEN usage, options, defaults, examples, actions and exit codes are on the page', async () => {
  const cli = await recordCli(require.resolve('yargs'), async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const m = require('./fixtures/demo-cli') as { main(argv: string[]): Promise<void> };
    await m.main([]);
  });
  assert.is(cli.scriptName, 'demo');
  const file = 'test/docs/fixtures/demo-cli.ts';
  const page = renderCliReference(cli, {
    sources: [file],
    readFile: (f) => fs.readFileSync(path.join(root, f), 'utf8'),
    linkTo: (f) => `../${f}`,
    mainFile: file,
  });
  assert.match(page, '| `--verbose` | boolean | `process.stdout.isTTY` (when it runs) | say more |');
  assert.match(page, '## demo greet\n\nsay hello to someone.\n\n```sh\ndemo greet <name> [options]\n```');
  assert.match(page, '| `name` | string | **required** | who to greet |');
  assert.match(page, '| `--shout` | boolean | `false` | in capitals \\| loudly |');
  assert.match(page, '| `--times, -n` | number | `1` | how often |');
  assert.match(page, '| `demo greet ada --shout` | HELLO ADA |');
  assert.match(
    page,
    'Exit codes: 0 when the demo worked; 3 when it did not. ([test/docs/fixtures/demo-cli.ts]',
  );
  assert.match(page, 'Exit statuses, the same for every demo command: 0 ok; 2 usage.');
  assert.match(page, '- [demo tool sharpen](#demo-tool-sharpen): sharpen the tool');
  assert.match(
    page,
    '## demo tool sharpen\n\nsharpen the tool.\n\n```sh\ndemo tool sharpen [options] [-- <grinder options>]\n```',
  );
  assert.match(page, '| `--edge` | `fine` \\| `coarse` |');
  assert.not.match(page, 'secret');
});

test('fails GIVEN a builder that calls a yargs method the generator does not render THEN the generation names it', async () => {
  const dir = fs.mkdtempSync(path.join(__dirname, 'fixtures', 'tmp-'));
  try {
    const file = path.join(dir, 'cli.ts');
    fs.writeFileSync(
      file,
      "import yargs from 'yargs';\nexport const main = () => yargs([]).command('x', 'x', (y) => y.showHidden('all'), () => undefined).parseAsync();\n",
    );
    let failure = '';
    try {
      await recordCli(require.resolve('yargs'), async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        await (require(file) as { main(): Promise<unknown> }).main();
      });
    } catch (e) {
      failure = (e as Error).message;
    }
    assert.match(failure, "the builder of `x` calls yargs' .showHidden()");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
