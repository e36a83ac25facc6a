/**
 * The CLI reference (docs/reference/cli.md), written from the commands' own definitions: the CLI's
 * `main` (lib/cli/main.ts) is run with no arguments against a recorder that stands in for yargs, so
 * everything it declares is recorded as yargs would receive it: the global options, and every
 * command (withCommands' in lib/cli/commands.ts, and those main registers itself), with its usage,
 * description, positionals, options (types, choices, defaults), examples and sub-commands. Each
 * command's exit statuses come from the doc comment of the module that defines it (its "Exit …"
 * paragraph), else from the statuses every command shares (the comment on EXIT_USAGE in main.ts).
 * Nothing here is written by hand.
 *
 * A yargs method the recorder does not know fails the generation, naming it, instead of leaving
 * something out of the reference.
 */
import * as ts from 'typescript';
import { escapeProse } from './model-reference';

export interface OptionDef {
  readonly name: string;
  readonly positional: boolean;
  readonly type?: string;
  readonly array?: boolean;
  readonly choices?: readonly unknown[];
  readonly default?: unknown;
  /** A default computed when the CLI runs, as its source text. */
  readonly defaultSource?: string;
  readonly describe?: string;
  readonly required?: boolean;
  readonly alias?: readonly string[];
  readonly hidden?: boolean;
}

export interface CommandDef {
  /** As given to yargs: `synth [model]`. */
  readonly command: string;
  readonly describe: string;
  /** `.usage(…)`, when the command sets one. */
  readonly usage?: string;
  readonly options: OptionDef[];
  readonly examples: [string, string][];
  readonly epilogs: string[];
  readonly subcommands: CommandDef[];
}

export interface CliDefs {
  readonly scriptName: string;
  readonly globals: OptionDef[];
  readonly commands: CommandDef[];
  /** yargs' own `--version`, unless `.version(false)`. */
  readonly version: boolean;
}

/** yargs methods that change nothing the reference shows. */
const IGNORED = new Set([
  'check',
  'conflicts',
  'implies',
  'middleware',
  'coerce',
  'group',
  'strict',
  'strictOptions',
  'strictCommands',
  'parserConfiguration',
  'demandCommand',
  'recommendCommands',
  'fail',
  'help',
  'wrap',
  'showHelpOnFail',
  'exitProcess',
]);

type Builder = ((y: unknown) => unknown) | Record<string, Record<string, unknown>> | undefined;

function optionDef(name: string, o: Record<string, unknown>, positional: boolean): OptionDef {
  const alias = o.alias === undefined ? undefined : ([] as string[]).concat(o.alias as string | string[]);
  const describe = o.describe ?? o.description ?? o.desc;
  return {
    name,
    positional,
    ...(typeof o.type === 'string' ? { type: o.type } : {}),
    ...(o.array === true ? { array: true } : {}),
    ...(Array.isArray(o.choices) ? { choices: o.choices } : {}),
    ...('default' in o ? { default: o.default } : {}),
    ...(typeof describe === 'string' ? { describe } : {}),
    ...(o.demandOption === true || o.required === true ? { required: true } : {}),
    ...(alias ? { alias } : {}),
    ...(o.hidden === true ? { hidden: true } : {}),
  };
}

/** What one yargs instance (the CLI, or a command's builder) declared. */
interface Level {
  scriptName?: string;
  usage?: string;
  version: boolean;
  readonly options: OptionDef[];
  readonly examples: [string, string][];
  readonly epilogs: string[];
  readonly commands: CommandDef[];
}

/** A stand-in for a yargs instance that records what is declared on it into `level`. */
function recorder(level: Level, where: string): Record<string, unknown> {
  const patch = (name: string, extra: Partial<OptionDef>): void => {
    const i = level.options.findIndex((o) => o.name === name);
    const next = { ...(i < 0 ? { name, positional: false } : (level.options[i] as OptionDef)), ...extra };
    if (i < 0) level.options.push(next);
    else level.options[i] = next;
  };
  const y: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_t, prop) => {
        if (typeof prop !== 'string' || prop === 'then') return undefined;
        return (...args: unknown[]) => {
          const [a, b, c] = args;
          switch (prop) {
            case 'parse':
            case 'parseAsync':
              return Promise.resolve({});
            case 'scriptName':
              level.scriptName = a as string;
              break;
            case 'usage':
              level.usage = a as string;
              break;
            case 'version':
              if (a === false) level.version = false;
              break;
            case 'positional':
              level.options.push(optionDef(a as string, (b ?? {}) as Record<string, unknown>, true));
              break;
            case 'option':
            case 'options':
              if (typeof a === 'string')
                level.options.push(optionDef(a, (b ?? {}) as Record<string, unknown>, false));
              else
                for (const [k, v] of Object.entries(a as Record<string, Record<string, unknown>>))
                  level.options.push(optionDef(k, v, false));
              break;
            case 'example':
              level.examples.push([a as string, (b ?? '') as string]);
              break;
            case 'epilog':
            case 'epilogue':
              level.epilogs.push(a as string);
              break;
            case 'demandOption':
              for (const k of ([] as string[]).concat(a as string | string[])) patch(k, { required: true });
              break;
            case 'default':
              patch(a as string, { default: b });
              break;
            case 'describe':
              patch(a as string, { describe: b as string });
              break;
            case 'choices':
              patch(a as string, { choices: b as unknown[] });
              break;
            case 'hide':
              patch(a as string, { hidden: true });
              break;
            case 'command':
              recordCommand(level, a, b, c);
              break;
            case 'completion':
              // yargs' own completion command: `.completion(cmd, description)`.
              if (typeof b !== 'function' && b !== false)
                level.commands.push({
                  command: typeof a === 'string' ? a : 'completion',
                  describe: typeof b === 'string' ? b : '',
                  options: [],
                  examples: [],
                  epilogs: [],
                  subcommands: [],
                });
              break;
            default:
              if (!IGNORED.has(prop))
                throw new Error(
                  `CLI reference: ${where} calls yargs' .${prop}(), which scripts/docs/cli-reference.ts does not render yet`,
                );
          }
          return y;
        };
      },
    },
  );
  return y;
}

function newLevel(): Level {
  return { version: true, options: [], examples: [], epilogs: [], commands: [] };
}

/** `.command(module)` or `.command(cmd, describe, builder, handler)`; hidden commands are left out. */
function recordCommand(parent: Level, a: unknown, b: unknown, c: unknown): void {
  let command: string;
  let describe: unknown;
  let builder: Builder;
  if (typeof a === 'object' && a !== null && !Array.isArray(a)) {
    const m = a as {
      command: string | string[];
      describe?: unknown;
      description?: unknown;
      builder?: Builder;
    };
    command = ([] as string[]).concat(m.command)[0] as string;
    describe = m.describe ?? m.description;
    builder = m.builder;
  } else {
    command = ([] as string[]).concat(a as string | string[])[0] as string;
    describe = b;
    builder = c as Builder;
  }
  if (describe === false) return;
  const level = newLevel();
  if (typeof builder === 'function') builder(recorder(level, `the builder of \`${command}\``));
  else if (builder) for (const [k, v] of Object.entries(builder)) level.options.push(optionDef(k, v, false));
  parent.commands.push({
    command,
    describe: typeof describe === 'string' ? describe : '',
    ...(level.usage !== undefined ? { usage: level.usage } : {}),
    options: level.options,
    examples: level.examples,
    epilogs: level.epilogs,
    subcommands: level.commands,
  });
}

/**
 * Runs `runMain` (the CLI's main, loaded by it only now) with `yargsId`'s module replaced by the
 * recorder, and returns what it declared. The CLI must not be loaded in this process before.
 */
export async function recordCli(yargsId: string, runMain: () => Promise<unknown>): Promise<CliDefs> {
  const top = newLevel();
  let made = 0;
  const factory = (): Record<string, unknown> => {
    made++;
    return recorder(top, 'main');
  };
  const saved = require.cache[yargsId];
  require.cache[yargsId] = {
    id: yargsId,
    filename: yargsId,
    loaded: true,
    exports: factory,
  } as unknown as NodeJS.Module;
  try {
    await runMain();
  } finally {
    if (saved) require.cache[yargsId] = saved;
    else delete require.cache[yargsId];
  }
  if (made === 0)
    throw new Error('CLI reference: main made no yargs instance (was the CLI loaded before the recorder?)');
  return {
    scriptName: top.scriptName ?? 'cli',
    globals: top.options,
    commands: top.commands,
    version: top.version,
  };
}

/** A file's own doc comment (the first `/** … *\/` at its top), as plain lines. */
export function fileDoc(source: string): string {
  const m = /^(?:#!.*\n)?\s*\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!m) return '';
  return (m[1] as string)
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** The paragraphs of a comment that start with "Exit", each on one line. */
export function exitParagraphs(doc: string): string[] {
  return doc
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => /^Exit\b/.test(p));
}

/**
 * An "Exit …" paragraph as the page shows it: one line with its source when it names one status; a
 * list, one status a line, when it is several sentences each starting "Exit <n>" (a wall otherwise).
 */
export function exitBlock(paragraph: string, source: string): string[] {
  const sentences = paragraph.split(/(?<=\.) (?=Exit \d)/);
  if (sentences.length < 2) return [`${paragraph} (${source})`];
  return [`Exit statuses (${source}):`, '', ...sentences.map((x) => `- ${x}`)];
}

/** What only main.ts's source says: the shared exit statuses, and defaults computed at run time. */
export interface MainSource {
  readonly exitStatuses: string;
  /** Option name → the source of a default that is not a literal (`process.stderr.isTTY`). */
  readonly computedDefaults: ReadonlyMap<string, string>;
}

export function readMainSource(source: string, fileName = 'main.ts'): MainSource {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  let exitStatuses = '';
  const computedDefaults = new Map<string, string>();
  const literal = (e: ts.Expression): boolean =>
    ts.isStringLiteral(e) ||
    ts.isNoSubstitutionTemplateLiteral(e) ||
    ts.isNumericLiteral(e) ||
    e.kind === ts.SyntaxKind.TrueKeyword ||
    e.kind === ts.SyntaxKind.FalseKeyword;
  const visit = (n: ts.Node): void => {
    if (
      ts.isVariableStatement(n) &&
      n.declarationList.declarations.some((d) => d.name.getText() === 'EXIT_USAGE')
    ) {
      const doc = ts.getJSDocCommentsAndTags(n).filter(ts.isJSDoc).slice(-1)[0];
      exitStatuses = (ts.getTextOfJSDocComment(doc?.comment) ?? '').replace(/\s*\n\s*/g, ' ').trim();
    }
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === 'option'
    ) {
      const [a, b] = n.arguments;
      if (a && ts.isStringLiteral(a) && b && ts.isObjectLiteralExpression(b))
        for (const p of b.properties)
          if (ts.isPropertyAssignment(p) && p.name.getText() === 'default' && !literal(p.initializer))
            computedDefaults.set(a.text, p.initializer.getText());
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (exitStatuses === '')
    throw new Error(`CLI reference: ${fileName} documents no exit statuses on EXIT_USAGE`);
  return { exitStatuses, computedDefaults };
}

/** Text for a table cell: `|` escaped, `<` literal, one line. */
function cell(text: string): string {
  return escapeProse(text.replace(/\s*\n\s*/g, ' ')).replace(/\|/g, '\\|');
}

function codeCell(text: string): string {
  const t = text.replace(/\|/g, '\\|');
  return t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``;
}

function typeOf(o: OptionDef): string {
  if (o.choices) return o.choices.map((c) => codeCell(String(c))).join(' \\| ');
  const t = o.type ?? (typeof o.default === 'boolean' ? 'boolean' : 'string');
  return o.array ? `${t}, repeatable` : t;
}

function defaultOf(o: OptionDef): string {
  if (o.defaultSource !== undefined) return `${codeCell(o.defaultSource)} (when it runs)`;
  if (!('default' in o) || o.default === undefined) return o.required ? '**required**' : '';
  if (Array.isArray(o.default) && o.default.length === 0) return '';
  return codeCell(JSON.stringify(o.default));
}

function optionTable(options: readonly OptionDef[], positional: boolean): string[] {
  const shown = options.filter((o) => o.positional === positional && !o.hidden);
  if (shown.length === 0) return [];
  const out = [
    `| ${positional ? 'Argument' : 'Option'} | Type | Default | Description |`,
    '| --- | --- | --- | --- |',
  ];
  for (const o of shown) {
    const name = positional
      ? o.name
      : [o.name, ...(o.alias ?? [])].map((n) => (n.length === 1 ? `-${n}` : `--${n}`)).join(', ');
    out.push(`| ${codeCell(name)} | ${typeOf(o)} | ${defaultOf(o)} | ${cell(o.describe ?? '')} |`);
  }
  return [`${positional ? 'Arguments' : 'Options'}:`, '', ...out, ''];
}

/** `image <action>` → `image`. */
function nameOf(command: string): string {
  return command.split(' ')[0] as string;
}

/** Every command and sub-command, depth first, with its full name (`image build`). */
function flatten(commands: readonly CommandDef[], prefix = ''): { full: string; c: CommandDef }[] {
  return commands.flatMap((c) => {
    const full = `${prefix}${nameOf(c.command)}`;
    return [{ full, c }, ...flatten(c.subcommands, `${full} `)];
  });
}

export interface RenderOptions {
  /** The source files that may define commands, relative to the repository (lib/cli/*.ts). */
  readonly sources: readonly string[];
  readonly readFile: (file: string) => string;
  /** The page's link to a source file. */
  readonly linkTo: (file: string) => string;
  readonly mainFile: string;
}

export function renderCliReference(cli: CliDefs, o: RenderOptions): string {
  const s = cli.scriptName;
  const link = (file: string): string => `[${file}](${o.linkTo(file)})`;
  const main = readMainSource(o.readFile(o.mainFile), o.mainFile);
  const anchor = (full: string): string => `${s}-${full.replace(/ /g, '-')}`;
  /** The module whose source holds the command's description: where it is defined. */
  const definedIn = (c: CommandDef): string => {
    const file = o.sources.find((f) => c.describe !== '' && o.readFile(f).includes(c.describe));
    if (!file)
      throw new Error(`CLI reference: no source file of ${o.sources.join(', ')} holds "${c.describe}"`);
    return file;
  };
  const globals = cli.globals.map((g) => {
    const src = main.computedDefaults.get(g.name);
    if (src === undefined) return g;
    // The value recorded is this process's (a terminal or not): the page shows the expression.
    const rest: OptionDef = { ...g };
    delete (rest as { default?: unknown }).default;
    return { ...rest, defaultSource: src };
  });
  const all = flatten(cli.commands);
  const out = [
    '# CLI reference',
    '',
    'Generated by `npm run docs:generate` (`scripts/docs-reference.ts`) from the commands’ own yargs' +
      ' definitions and the doc comments of the modules that define them: edit those, never this page.' +
      ' The test command fails when this page is not what they say (`npm run docs:check`). The' +
      ' [CLI guide](../cli.md) says how the commands behave.',
    '',
    `Every command is \`${s} <command> [arguments] [options]\`: \`npx ${s}\` in a repository that` +
      ` depends on clusterset, \`node bin/${s}\` in a checkout of it.`,
    '',
    '## Commands',
    '',
    ...all.map(({ full, c }) => `- [${s} ${full}](#${anchor(full)}): ${escapeProse(c.describe)}`),
    '',
    '## Exit statuses',
    '',
    `${escapeProse(main.exitStatuses)} (${link(o.mainFile)})`,
    '',
    'A command whose module documents statuses of its own lists them under its name below.',
    '',
    '## Global options',
    '',
    'Every command takes these.',
    '',
    ...optionTable(
      [
        ...globals,
        {
          name: 'help',
          positional: false,
          type: 'boolean',
          describe: 'show the help of the command, and exit',
        },
        ...(cli.version
          ? [{ name: 'version', positional: false, type: 'boolean', describe: 'show the version, and exit' }]
          : []),
      ],
      false,
    ),
  ];
  for (const { full, c } of all) {
    const file = definedIn(c);
    const parent = full.includes(' ') ? full.slice(0, full.lastIndexOf(' ')) : '';
    const usage =
      c.usage?.replace(/\$0/g, s) ??
      `${s} ${parent === '' ? '' : `${parent} `}${c.command}${c.options.some((x) => !x.positional) ? ' [options]' : ''}`;
    out.push(
      `## ${s} ${full}`,
      '',
      escapeProse(c.describe.replace(/\.?$/, '.')),
      '',
      '```sh',
      usage,
      '```',
      '',
    );
    if (c.subcommands.length > 0) {
      out.push('Actions:', '');
      for (const sub of c.subcommands) {
        const f = `${full} ${nameOf(sub.command)}`;
        out.push(`- [${s} ${f}](#${anchor(f)}): ${escapeProse(sub.describe)}`);
      }
      out.push('');
    }
    out.push(...optionTable(c.options, true), ...optionTable(c.options, false));
    if (c.examples.length > 0) {
      out.push('Examples:', '', '| Command | What it does |', '| --- | --- |');
      for (const [cmd, what] of c.examples)
        out.push(`| ${codeCell(cmd.replace(/\$0/g, s))} | ${cell(what)} |`);
      out.push('');
    }
    for (const e of c.epilogs) out.push(escapeProse(e), '');
    const exits = exitParagraphs(fileDoc(o.readFile(file)));
    out.push(
      ...(exits.length > 0
        ? exits.flatMap((p) => exitBlock(escapeProse(p), link(file)))
        : [`Exit statuses: as for every command ([above](#exit-statuses)). Defined in ${link(file)}.`]),
      '',
    );
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
