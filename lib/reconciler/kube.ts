/**
 * The reconciler's way to the API server. Configuration and credentials come from
 * `@kubernetes/client-node`'s KubeConfig (kubeconfig files, contexts, in-cluster ServiceAccount
 * tokens that rotate, exec and OIDC plugins); requests go over one keep-alive connection pool.
 *
 * Why not the generated API clients: client-node 1.4 builds a new https.Agent for every request
 * (KubeConfig.createAgent), so every call pays a TLS handshake, and its informer (cache.js) stops
 * for good on any watch error but 410 and has no watchdog. The reconciler writes an import and a
 * status per export change and must keep watching through API server restarts, so it takes the
 * credentials from client-node and does the HTTP itself: plain JSON, keep-alive, timeouts, and
 * watches it can abort.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';

/** An error response of the API server, with its Status fields. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface KubeClientOptions {
  readonly userAgent: string;
  /** Per-request timeout (not for watches). @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Connections kept for requests (watches have their own). @default 16 */
  readonly maxSockets?: number;
}

export type PatchType = 'merge' | 'json';

const CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

interface Transport {
  readonly headers: Record<string, string>;
  readonly agent: http.Agent;
  readonly watchAgent: http.Agent;
}

/** One watch event as the API server sends it. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
}

export class KubeClient {
  readonly server: string;
  private readonly requestTimeoutMs: number;
  private readonly maxSockets: number;
  /** The TLS settings the pooled connections were made with. */
  private tls: Record<string, unknown> = {};
  private agents: { agent: http.Agent; watchAgent: http.Agent } | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: KubeClientOptions,
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.maxSockets = opts.maxSockets ?? 16;
  }

  /** Credentials for one request: read each time (tokens rotate), connections reused. */
  private async transport(): Promise<Transport> {
    const o: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(o);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.headers ?? {})) if (v !== undefined) headers[k] = String(v);
    if (o.auth) headers.Authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    if (this.kc.getCurrentCluster()?.proxyUrl) {
      // A proxy: client-node's own agent, one per request.
      const agent = o.agent as http.Agent;
      return { headers, agent, watchAgent: agent };
    }
    const tls = {
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      pfx: o.pfx,
      passphrase: o.passphrase,
      servername: o.servername,
      ...(o.rejectUnauthorized !== undefined ? { rejectUnauthorized: o.rejectUnauthorized } : {}),
    };
    if (!this.agents || !sameTls(tls, this.tls)) {
      this.agents?.agent.destroy();
      this.tls = tls;
      const plain = this.server.startsWith('http:');
      const make = (keepAlive: boolean) =>
        plain
          ? new http.Agent({ keepAlive, maxSockets: keepAlive ? this.maxSockets : Infinity })
          : new https.Agent({ ...tls, keepAlive, maxSockets: keepAlive ? this.maxSockets : Infinity });
      this.agents = { agent: make(true), watchAgent: make(false) };
    }
    return { headers, ...this.agents };
  }

  /** Closes pooled connections. */
  close(): void {
    this.agents?.agent.destroy();
    this.agents?.watchAgent.destroy();
    this.agents = undefined;
  }

  /**
   * One request; resolves with the parsed JSON body, rejects with ApiError for an error status and
   * with a plain Error for a network failure, a timeout or the signal aborting it (so a shutdown
   * does not wait out a request whose answer no one will read).
   */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    opts: { patch?: PatchType; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const { patch } = opts;
    const timeoutMs = opts.timeoutMs ?? this.requestTimeoutMs;
    const t = await this.transport();
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...t.headers,
      Accept: 'application/json',
      'User-Agent': this.opts.userAgent,
    };
    if (data !== undefined) {
      headers['Content-Type'] = patch ? CONTENT_TYPES[patch] : 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(data));
    }
    const url = new URL(this.server + path);
    const mod = url.protocol === 'http:' ? http : https;
    return new Promise<T>((resolve, reject) => {
      const options: http.RequestOptions = { method, headers, agent: t.agent, timeout: timeoutMs };
      if (opts.signal) options.signal = opts.signal;
      const req = mod.request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : {};
          } catch {
            json = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && json !== undefined) resolve(json as T);
          else reject(apiError(status, json, text, `${method} ${path}`));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      if (data !== undefined) req.write(data);
      req.end();
    });
  }

  /**
   * A watch: calls onEvent for each event until the server ends the stream (resolves), the signal
   * aborts it (resolves), or it fails (rejects; an error status rejects with ApiError).
   */
  async watch(path: string, onEvent: (e: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    const t = await this.transport();
    const url = new URL(this.server + path);
    const mod = url.protocol === 'http:' ? http : https;
    const headers = { ...t.headers, Accept: 'application/json', 'User-Agent': this.opts.userAgent };
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return resolve();
      let settled = false;
      const finish = (err?: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      const req = mod.request(url, { method: 'GET', headers, agent: t.watchAgent }, (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            finish(apiError(status, json, text, `watch ${path}`));
          });
          res.on('error', finish);
          return;
        }
        res.socket?.setKeepAlive(true, 30_000);
        const lines = createInterface({ input: res, crlfDelay: Infinity });
        lines.on('error', (err) => finish(signal.aborted ? undefined : err));
        lines.on('line', (line) => {
          if (settled || line === '') return;
          let e: WatchEvent;
          try {
            e = JSON.parse(line) as WatchEvent;
          } catch {
            req.destroy(new Error(`watch ${path}: not JSON: ${line.slice(0, 200)}`));
            return;
          }
          try {
            onEvent(e);
          } catch (err) {
            req.destroy(err as Error);
          }
        });
        res.on('error', (err) => finish(err));
        res.on('end', () => finish());
        res.on('close', () =>
          finish(
            signal.aborted
              ? undefined
              : res.complete
                ? undefined
                : new Error(`watch ${path}: connection closed`),
          ),
        );
      });
      const onAbort = () => {
        req.destroy();
        finish();
      };
      signal.addEventListener('abort', onAbort);
      req.on('error', (err) => finish(signal.aborted ? undefined : err));
      req.end();
    });
  }
}

/**
 * Whether two sets of TLS settings are the same (values compared, buffers by content): checked on
 * every request, so without serializing certificates each time.
 */
function sameTls(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (Buffer.isBuffer(x) && Buffer.isBuffer(y) && x.equals(y)) continue;
    if (
      Array.isArray(x) &&
      Array.isArray(y) &&
      x.length === y.length &&
      x.every((v, i) => sameTls({ v }, { v: y[i] }))
    )
      continue;
    return false;
  }
  return true;
}

function apiError(status: number, json: unknown, text: string, what: string): ApiError {
  const s = (json ?? {}) as { reason?: unknown; message?: unknown; code?: unknown };
  const code = typeof s.code === 'number' ? s.code : status;
  const reason = typeof s.reason === 'string' ? s.reason : `HTTP${status}`;
  const message = typeof s.message === 'string' ? s.message : text.slice(0, 300) || `HTTP ${status}`;
  return new ApiError(code, reason, `${what}: ${message}`);
}

export function isApiError(e: unknown, ...codes: number[]): e is ApiError {
  return e instanceof ApiError && (codes.length === 0 || codes.includes(e.code));
}
