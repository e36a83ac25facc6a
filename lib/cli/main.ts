#!/usr/bin/env node
/**
 * The clusterset CLI. Thin: yargs parses, library verbs do the work; flags choose what to do and
 * where to write, never what is rendered. The commands are in commands.ts, loaded for every command
 * but `reconcile`: what the leader's image runs loads yargs and the reconciler alone, none of the
 * compiler's modules (cdk8s, the bindings, the renderers: about 35 MB of resident memory).
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import type * as Commands from './commands';
import { reconcileCommand } from './reconcile';
import type * as Write from './write';

/**
 * Exit statuses, the same for every command: 0 ok; 1 findings (a stale out/, changes with
 * `diff --exit-code`); 2 usage or model errors (EXIT_MODEL); 70 a bug; 74 a failed write
 * (sysexits EX_IOERR).
 */
export const EXIT_USAGE = 2;
export const EXIT_IO = 74;

export async function main(argv: string[]): Promise<void> {
  const base = yargs(argv).scriptName('clusterset').option('progress', {
    type: 'boolean',
    describe: 'print stage timings to stderr',
    default: process.stderr.isTTY,
  });
  const cli =
    argv.find((a) => !a.startsWith('-')) === 'reconcile'
      ? base.command(reconcileCommand)
      : // eslint-disable-next-line @typescript-eslint/no-require-imports
        (require('./commands') as typeof Commands).withCommands(base);
  await cli
    .demandCommand(1)
    .strict()
    // A handler's error is the command's failure, reported by run(), not a usage error: yargs would
    // otherwise answer an async handler's rejection with the help text.
    .fail((msg, err, y) => {
      if (err) throw err;
      y.showHelp();
      process.stderr.write(`\n${msg}\n`);
      process.exitCode = EXIT_USAGE;
    })
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
