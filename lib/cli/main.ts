#!/usr/bin/env node
/**
 * The clusterset CLI. Thin: yargs parses, library verbs do the work; flags choose what to do and
 * where to write, never what is rendered. The commands are in commands.ts, loaded for every command
 * but `reconcile` and `restart-member-controller`: what the image runs (the leader's reconciler, a
 * member's restart Job) loads yargs and the in-cluster runtime alone, none of the compiler's modules
 * (cdk8s, the bindings, the renderers: about 35 MB of resident memory). `version`, `image` and
 * `completion` load none of them either.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { closest } from '../check/util';
import type * as Commands from './commands';
import { IMAGE_COMMAND, ImageBuildError, imageCommand } from './image';
import { reconcileCommand } from './reconcile';
import { restartCommand } from './restart';
import { RESTART_COMMAND } from '../names';
import { VERSION_COMMAND, versionCommand } from './version';
import type * as Write from '../fs/write';

/**
 * Exit statuses, the same for every command: 0 ok; 1 findings (a stale out/, changes with
 * `diff --exit-code`); 2 usage or model errors (EXIT_MODEL; a model's warnings too, under
 * `--strict`); 70 a bug; 74 a failed write (sysexits EX_IOERR).
 */
export const EXIT_USAGE = 2;
export const EXIT_IO = 74;

/** The shells `clusterset completion` prints a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

/**
 * `clusterset completion [bash|zsh]`: yargs' completion script for the shell named, or for $SHELL
 * (bash unless it is zsh). yargs picks the template from $SHELL when the instance is made, so the
 * script comes from an instance made with the shell asked for; the script then asks
 * `clusterset --get-yargs-completions …`, which main() answers with every command registered.
 */
function printCompletion(args: readonly string[]): void {
  const env = process.env;
  const shell = args[0] ?? ([env.SHELL, env.ZSH_NAME].some((v) => v?.includes('zsh')) ? 'zsh' : 'bash');
  if (args.length > 1 || !(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    process.stderr.write(
      `clusterset: completion: unknown shell "${args.join(' ')}"; the shells are ${COMPLETION_SHELLS.join(', ')}\n`,
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  const saved = { SHELL: env.SHELL, ZSH_NAME: env.ZSH_NAME };
  env.SHELL = `/bin/${shell}`;
  delete env.ZSH_NAME;
  try {
    yargs([]).scriptName('clusterset').completion('completion').showCompletionScript();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
  }
}

/**
 * `clusterset completion [shell]`: its own command, so that `completion --help` prints its help.
 * Completions themselves (`--get-yargs-completions`, what the script asks) need no command: yargs
 * answers them with every command registered.
 */
const completionCommand = {
  command: 'completion [shell]',
  describe: 'print the shell completion script (bash; `completion zsh` for zsh)',
  builder: (y: Argv) =>
    y
      .positional('shell', {
        type: 'string',
        describe: `${COMPLETION_SHELLS.join(' or ')}; default: from $SHELL`,
      })
      .example('$0 completion >> ~/.bashrc', 'complete clusterset in bash')
      .example(
        '$0 completion zsh > _clusterset',
        'complete clusterset in zsh: a file in a directory of $fpath',
      ),
  handler: (a: { shell?: string }) => printCompletion(a.shell === undefined ? [] : [a.shell]),
};

/** The option names `y` knows in the command being parsed, with their aliases and camelCase forms. */
function knownOptions(y: Argv): Set<string> {
  // getOptions() is yargs' own (the options of the command being parsed), missing from its types.
  const o = (
    y as unknown as { getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } }
  ).getOptions();
  const names = new Set<string>([
    ...Object.keys(o.key),
    ...Object.keys(o.alias),
    ...Object.values(o.alias).flat(),
  ]);
  for (const n of [...names]) names.add(n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
  return names;
}

/**
 * The flags of `argv` that `y` does not know (before any `--`), as typed, each with the nearest
 * known long option when one is close: `--outt` → `--out`. `--no-<flag>` negates a known flag.
 */
export function unknownFlags(
  argv: readonly string[],
  known: ReadonlySet<string>,
): { flag: string; nearest?: string }[] {
  const out: { flag: string; nearest?: string }[] = [];
  const end = argv.indexOf('--');
  for (const a of end < 0 ? argv : argv.slice(0, end)) {
    if (!/^--?[A-Za-z]/.test(a)) continue;
    const long = a.startsWith('--');
    const names = long ? [a.slice(2).split('=')[0]!] : [...a.slice(1).split('=')[0]!];
    for (const n of names) {
      if (known.has(n) || (long && n.startsWith('no-') && known.has(n.slice(3)))) continue;
      const flag = long ? `--${n}` : `-${n}`;
      if (out.some((u) => u.flag === flag)) continue;
      const near = closest(
        n,
        [...known].filter((k) => k.length > 1 && !/[A-Z]/.test(k)),
      );
      out.push(near === undefined ? { flag } : { flag, nearest: `--${near}` });
    }
  }
  return out;
}

/** The command words of `argv`: the first word, and the second for a command with actions (`image build`). */
function commandWords(argv: readonly string[]): string[] {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === IMAGE_COMMAND && words[1] !== undefined ? words.slice(0, 2) : words.slice(0, 1);
}

/**
 * A usage error in one or two short lines. A mistyped command (`clusterset synht`) names the
 * nearest command when yargs' recommendCommands() finds one, and an unknown flag (`synth --outt`)
 * the nearest flag of that command, instead of printing the whole help; every other usage error
 * prints the help of the command, then the message. Only the first failure is reported (yargs may
 * report `clusterset --frob` twice: no command, then the unknown argument).
 */
function usageFailure(argv: readonly string[], cli: () => Argv) {
  let suggestion: string | undefined;
  let reported = false;
  return (msg: string, err: Error | undefined, y: { showHelp(): unknown }): void => {
    if (err) throw err;
    if (reported) return;
    // recommendCommands() reports first ("Did you mean synth?"), then strict() the unknown argument.
    const did = /^Did you mean (.+)\?$/.exec(msg);
    if (did) {
      suggestion = did[1];
      return;
    }
    reported = true;
    process.exitCode = EXIT_USAGE;
    const unknown = /^Unknown arguments?: ([^,]+)/.exec(msg)?.[1];
    const [word, action] = argv.filter((a) => !a.startsWith('-'));
    if (unknown !== undefined && unknown === word) {
      const hint = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
      process.stderr.write(
        `clusterset: unknown command "${word}"${hint}\n(\`clusterset --help\` lists the commands)\n`,
      );
      return;
    }
    if (unknown !== undefined && word === IMAGE_COMMAND && unknown === action) {
      const hint = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
      process.stderr.write(
        `clusterset image: unknown action "${action}"${hint}\n(\`clusterset image --help\` lists the actions)\n`,
      );
      return;
    }
    const flags = unknownFlags(argv, knownOptions(cli()));
    if (flags.length > 0) {
      const words = suggestion === undefined ? commandWords(argv) : [];
      const where = ['clusterset', ...words].join(' ');
      for (const f of flags)
        process.stderr.write(
          `${where}: unknown option ${f.flag}${f.nearest === undefined ? '' : `; did you mean ${f.nearest}?`}\n`,
        );
      process.stderr.write(
        `(\`${where} --help\` lists ${words.length > 0 ? 'its options' : 'the commands and options'})\n`,
      );
      // Ends the parse here: the command's handler must not run with a flag it never saw.
      cli().exit(EXIT_USAGE, new Error(msg));
      return;
    }
    y.showHelp();
    process.stderr.write(`\n${msg}\n`);
  };
}

export async function main(argv: string[]): Promise<void> {
  const first = argv.find((a) => !a.startsWith('-'));
  // What follows `--` in `image build` goes to the engine's build, unparsed.
  const dd = first === IMAGE_COMMAND ? argv.indexOf('--') : -1;
  const args = dd < 0 ? argv : argv.slice(0, dd);
  const extra = dd < 0 ? [] : argv.slice(dd + 1);
  const base = yargs(args).scriptName('clusterset').option('progress', {
    type: 'boolean',
    describe: 'print stage timings to stderr',
    default: process.stderr.isTTY,
  });
  const light: Record<string, () => Argv<{ progress: boolean }>> = {
    reconcile: () => base.command(reconcileCommand),
    [RESTART_COMMAND]: () => base.command(restartCommand),
    [VERSION_COMMAND]: () => base.command(versionCommand),
    [IMAGE_COMMAND]: () => base.command(imageCommand(extra)),
    completion: () => base,
  };
  const cli =
    first !== undefined && Object.hasOwn(light, first)
      ? light[first]!()
      : // eslint-disable-next-line @typescript-eslint/no-require-imports
        (require('./commands') as typeof Commands).withCommands(base);
  await cli
    .command(completionCommand)
    .demandCommand(1)
    .strict()
    .recommendCommands()
    // A handler's error is the command's failure, reported by run(), not a usage error: yargs would
    // otherwise answer an async handler's rejection with the help text.
    .fail(usageFailure(argv, () => cli))
    .help()
    .parseAsync();
}

/** Runs the CLI: what main() does, with every failure reported and turned into an exit status. */
export async function run(argv: string[]): Promise<void> {
  try {
    await main(argv);
  } catch (e) {
    if (e instanceof ImageBuildError) {
      process.stderr.write(`clusterset: image build: ${e.message}\n`);
      process.exitCode = e.exitCode;
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (e instanceof (require('../fs/write') as typeof Write).WriteError) {
      // An I/O failure the user can fix: one line, out/ as it was.
      process.stderr.write(`clusterset: ${e.message}\n`);
      process.exitCode = EXIT_IO;
      return;
    }
    process.stderr.write(`clusterset: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 70;
  }
}

if (require.main === module) void run(hideBin(process.argv));
