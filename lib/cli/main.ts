#!/usr/bin/env node
/**
 * The clusterset CLI. Thin: yargs parses, library verbs do the work; flags choose what to do and
 * where to write, never what is rendered. The commands are in commands.ts, loaded for every command
 * but `reconcile` and `restart-member-controller`: what the image runs (the leader's reconciler, a
 * member's restart Job) loads yargs and the in-cluster runtime alone, none of the compiler's modules
 * (cdk8s, the bindings, the renderers: about 35 MB of resident memory).
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type * as Commands from './commands';
import { reconcileCommand } from './reconcile';
import { RESTART_COMMAND, restartCommand } from './restart';
import type * as Write from './write';

/**
 * Exit statuses, the same for every command: 0 ok; 1 findings (a stale out/, changes with
 * `diff --exit-code`); 2 usage or model errors (EXIT_MODEL); 70 a bug; 74 a failed write
 * (sysexits EX_IOERR).
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
 * A usage error in one or two short lines. A mistyped command (`clusterset synht`) names the
 * nearest command when yargs' recommendCommands() finds one, instead of printing the whole help;
 * every other usage error prints the help of the command, then the message.
 */
function usageFailure(argv: readonly string[]) {
  let suggestion: string | undefined;
  return (msg: string, err: Error | undefined, y: { showHelp(): unknown }): void => {
    if (err) throw err;
    // recommendCommands() reports first ("Did you mean synth?"), then strict() the unknown argument.
    const did = /^Did you mean (.+)\?$/.exec(msg);
    if (did) {
      suggestion = did[1];
      return;
    }
    process.exitCode = EXIT_USAGE;
    const unknown = /^Unknown arguments?: ([^,]+)/.exec(msg)?.[1];
    const word = argv.find((a) => !a.startsWith('-'));
    if (unknown !== undefined && unknown === word) {
      const hint = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
      process.stderr.write(
        `clusterset: unknown command "${word}"${hint}\n(\`clusterset --help\` lists the commands)\n`,
      );
      return;
    }
    y.showHelp();
    process.stderr.write(`\n${msg}\n`);
  };
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'completion' && !argv.some((a) => a.startsWith('-'))) return printCompletion(argv.slice(1));
  const base = yargs(argv).scriptName('clusterset').option('progress', {
    type: 'boolean',
    describe: 'print stage timings to stderr',
    default: process.stderr.isTTY,
  });
  const first = argv.find((a) => !a.startsWith('-'));
  const cli =
    first === 'reconcile'
      ? base.command(reconcileCommand)
      : first === RESTART_COMMAND
        ? base.command(restartCommand)
        : // eslint-disable-next-line @typescript-eslint/no-require-imports
          (require('./commands') as typeof Commands).withCommands(base);
  await cli
    .completion('completion', 'print the shell completion script (bash; `completion zsh` for zsh)')
    .demandCommand(1)
    .strict()
    .recommendCommands()
    // A handler's error is the command's failure, reported by run(), not a usage error: yargs would
    // otherwise answer an async handler's rejection with the help text.
    .fail(usageFailure(argv))
    .help()
    .parseAsync();
}

/** Runs the CLI: what main() does, with every failure reported and turned into an exit status. */
export async function run(argv: string[]): Promise<void> {
  try {
    await main(argv);
  } catch (e) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (e instanceof (require('./write') as typeof Write).WriteError) {
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
