// Polling helper for tests against real API servers (controllers and admission informers are
// eventually consistent).

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
