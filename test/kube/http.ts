// A raw HTTPS request to an API server, and the credentials for it: no client library in between,
// no side effect at import, so that code bundled into a test Pod (the played Antrea leader,
// test/parties/antrea-leader/process.ts) can use it as the tests do. cluster.ts re-exports it.

import * as https from 'node:https';
import { createInterface } from 'node:readline';

/** Credentials for a raw HTTPS request to one API server. */
export interface Auth {
  server: string;
  /** CA bundle, PEM. */
  ca: string;
  /** Client certificate and key, PEM (admin) ... */
  cert?: string;
  key?: string;
  /** ... or a bearer token. */
  token?: string;
}

/** A request to one API server, with whatever identity it was made for (apiOf). */
export type Api = (method: string, path: string, body?: unknown) => Promise<Response>;

/** request() with `auth`, as an Api (over `agent`'s kept-alive connections, when given). */
export function apiOf(auth: Auth | (() => Auth), agent?: https.Agent): Api {
  return (method, path, body) =>
    request(
      typeof auth === 'function' ? auth() : auth,
      method,
      path,
      body,
      'application/json',
      30_000,
      agent,
    );
}

export interface Response {
  status: number;
  body: string;
  /** Parsed JSON body, if any. */
  json?: unknown;
}

/**
 * A raw HTTPS request to an API server (no client library in between): one TLS connection per
 * request, or `agent`'s kept-alive ones (as client-go keeps them), where a connection the server
 * closed meanwhile (it restarted, say) is retried once on a new one.
 */
export function request(
  auth: Auth,
  method: string,
  urlPath: string,
  body?: unknown,
  contentType = 'application/json',
  timeoutMs = 30_000,
  agent?: https.Agent,
): Promise<Response> {
  const url = new URL(urlPath, auth.server);
  const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (data !== undefined) {
    headers['Content-Type'] = contentType;
    headers['Content-Length'] = String(Buffer.byteLength(data));
  }
  if (auth.token) headers.Authorization = `Bearer ${auth.token}`;
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        headers,
        ca: auth.ca,
        cert: auth.cert,
        key: auth.key,
        timeout: timeoutMs,
        agent: agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (agent && req.reusedSocket && e.code === 'ECONNRESET')
        resolve(request(auth, method, urlPath, body, contentType, timeoutMs));
      else reject(e);
    });
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/**
 * request(), retried as client-go's REST client retries: a 429 answer (the API server's "storage is
 * (re)initializing" while a resource's watch cache starts, or its rate limits) is tried again after
 * the seconds it asks for (`details.retryAfterSeconds`, 1 when absent), up to 10 times. For test
 * code that plays a controller built on client-go, which never sees such an answer.
 */
export async function requestRetrying(
  auth: Auth,
  method: string,
  urlPath: string,
  body?: unknown,
  contentType?: string,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const r = await request(auth, method, urlPath, body, contentType);
    if (r.status !== 429 || attempt > 10) return r;
    const after = (r.json as { details?: { retryAfterSeconds?: number } } | undefined)?.details
      ?.retryAfterSeconds;
    await new Promise((res) => setTimeout(res, (after ?? 1) * 1000));
  }
}

/** GET with a streamed body, one callback per line, until the server ends it or `signal` aborts. */
export function followLines(
  auth: Auth,
  path: string,
  onLine: (line: string) => void,
  signal: AbortSignal,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, auth.server),
      { method: 'GET', ca: auth.ca, cert: auth.cert, key: auth.key, agent: false },
      (res) => {
        // A stream the server or the kubelet cuts (a Pod going away) ends it, never throws.
        res.on('error', () => resolve(res.statusCode ?? 0));
        if (res.statusCode !== 200) {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          return;
        }
        // readline re-emits the stream's errors: handled above, so ignored here.
        createInterface({ input: res, crlfDelay: Infinity })
          .on('line', onLine)
          .on('error', () => undefined);
        res.on('end', () => resolve(200));
      },
    );
    const abort = () => req.destroy();
    signal.addEventListener('abort', abort, { once: true });
    req.on('error', (e) => (signal.aborted ? resolve(0) : reject(e)));
    req.on('close', () => signal.removeEventListener('abort', abort));
    req.end();
  });
}
