// Polling helpers for tests against real API servers (controllers and admission informers are
// eventually consistent), and the loop of a played controller.

import * as http from 'node:http';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Calls fn every intervalMs until it returns something other than undefined and returns that.
 * Errors thrown by fn count as "not yet"; on timeout it throws, naming `what` and fn's last error.
 */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) break;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms: ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** A step run again and again (repeat()) until stopped. */
export interface Repeating {
  /** No step starts after this; resolves once the one running (if any) has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `step` now, then again `periodMs` after each run ends, until stop(): a played controller's
 * loop. A step's rejection is not caught: `step` handles its own errors.
 */
export function repeat(step: () => Promise<void>, periodMs: number): Repeating {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = async () => {
    await step();
    if (!stopped) timer = setTimeout(() => void (running = tick()), periodMs);
  };
  running = tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** The status code of a GET of `url` (0 when it does not answer within `timeoutMs`): a health probe. */
export function httpStatus(url: string, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
