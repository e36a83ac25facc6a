// The clusterset CLI as a user runs it, a child process, for every test that runs a command: its
// exit status and both streams. From the sources (lib/cli/main.ts through tsx) or as installed
// (bin/clusterset under this Node); synchronously for the unit tests, asynchronously for the
// end-to-end tests of commands that talk to clusters.
import { execFile, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'clusterset');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = path.join(ROOT, 'lib', 'cli', 'main.ts');

/** What a synchronous run gives back: the exit status (-1 when killed) and both streams. */
export interface Ran {
  status: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** @default the repository's root */
  readonly cwd?: string;
  /** @default this process's environment */
  readonly env?: NodeJS.ProcessEnv;
  /** Killed after this many ms (none by default). */
  readonly timeout?: number;
}

function spawned(command: string, args: string[], o: RunOptions): Ran {
  const r = spawnSync(command, args, {
    cwd: o.cwd ?? ROOT,
    encoding: 'utf8',
    env: o.env,
    timeout: o.timeout,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `clusterset ARGS` from the sources: lib/cli/main.ts run by tsx. */
export function runSources(args: string[], o: RunOptions = {}): Ran {
  return spawned(TSX, [MAIN, ...args], o);
}

/** `clusterset ARGS` as installed: bin/clusterset run by this Node. */
export function runBin(args: string[], o: RunOptions = {}): Ran {
  return spawned(process.execPath, [BIN, ...args], o);
}

/** `clusterset ARGS` as installed (bin/clusterset), without blocking: its exit code and both streams. */
export function cli(
  args: string[],
  o: { readonly env?: NodeJS.ProcessEnv; readonly timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, maxBuffer: 64 << 20, timeout: o.timeout ?? 300_000, env: o.env },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? -1) : 0;
        resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    );
  });
}
