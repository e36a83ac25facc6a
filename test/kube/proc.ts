// Processes of the test clusters and nodes: each runs in its own process group with its output in a
// log file; stopping sends SIGTERM to the group, then SIGKILL.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<void>;
  exitCode: number | null | undefined;
}

export function startProc(
  name: string,
  bin: string,
  args: string[],
  logDir: string,
  env?: NodeJS.ProcessEnv,
): Proc {
  const log = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(log, 'a');
  const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd], env });
  fs.closeSync(fd);
  child.unref();
  const proc: Proc = { name, child, log, exitCode: undefined, exited: Promise.resolve() };
  proc.exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      proc.exitCode = code ?? (signal ? -1 : null);
      resolve();
    });
    child.once('error', (err) => {
      fs.appendFileSync(log, `\nspawn error: ${String(err)}\n`);
      proc.exitCode = -2;
      resolve();
    });
  });
  return proc;
}

export function tail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The start time of a process (field 22 of /proc/<pid>/stat), to tell it from a reused pid. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function stopProcs(procs: Proc[]): Promise<void> {
  // Controller manager and API server first, etcd last.
  for (const p of [...procs].reverse()) {
    if (p.exitCode !== undefined) continue;
    p.child.ref(); // unref'd at start: without this, awaiting its exit can let Node exit first
    killGroup(p.child.pid, 'SIGTERM');
    const done = await Promise.race([p.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) {
      killGroup(p.child.pid, 'SIGKILL');
      await p.exited;
    }
  }
}

/** True while pid exists and is not a zombie. */
export function isLive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Removes a directory, never throwing (a dying process may still be writing into it). */
export function removeDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (e) {
    process.stderr.write(`test/kube: could not remove ${dir}: ${String(e)}\n`);
  }
}

/** SIGKILLs pids' process groups and waits (synchronously, up to 5 s) until they are dead. */
export function killGroupsSync(pids: number[]): void {
  for (const pid of pids) killGroup(pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  while (pids.some(isLive) && Date.now() < deadline) sleepSync(20);
}

export async function waitFor(what: string, timeoutMs: number, procs: Proc[], check: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    const dead = procs.find((p) => p.exitCode !== undefined);
    if (dead) {
      throw new Error(
        `${dead.name} exited (code ${String(dead.exitCode)}) while waiting for ${what}:\n${tail(dead.log)}`,
      );
    }
    try {
      if (await check()) return;
    } catch (e) {
      lastErr = e;
    }
    await sleep(250);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}` +
      (lastErr ? ` (last error: ${String(lastErr)})` : '') +
      procs.map((p) => `\n--- ${p.name} (${p.log}) ---\n${tail(p.log)}`).join(''),
  );
}
