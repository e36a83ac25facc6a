// A team's gitops repository for the delivery tests: one bare repository served over git's smart
// HTTP protocol on 127.0.0.1, as a git host serves it to Argo CD's repo server and Flux's
// source-controller. Flux accepts only http, https and ssh URLs, and go-git speaks only the smart
// protocol, so the server is git's own CGI (`git http-backend`) behind a small Node HTTP server; no
// dependency. The test writes commits into the bare repository directly (what a merge does), and
// the tools fetch them over HTTP.

import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface GitServer {
  /** `http://127.0.0.1:<port>/<name>.git`, the URL the tools clone. */
  readonly url: string;
  /** The branch that commit() moves. */
  readonly branch: string;
  /** The bare repository on disk. */
  readonly repoDir: string;
  /**
   * Replaces the whole tree of the branch with `files` (path relative to the repository root →
   * contents) in one new commit on top of the branch, and returns its SHA. An unchanged tree still
   * makes a commit (a new revision), as an empty merge would.
   */
  commit(files: ReadonlyMap<string, string>, message: string): Promise<string>;
  /** The branch's commit SHA, or undefined before the first commit. */
  head(): Promise<string | undefined>;
  /** Fetches served so far, by path of the request (info/refs and upload-pack), for tests that count them. */
  readonly requests: () => number;
  stop(): Promise<void>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'clusterset test',
  GIT_AUTHOR_EMAIL: 'test@clusterset.invalid',
  GIT_COMMITTER_NAME: 'clusterset test',
  GIT_COMMITTER_EMAIL: 'test@clusterset.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: os.tmpdir(),
};

async function git(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const env = { ...process.env, ...GIT_ENV, ...opts.env };
  if (opts.input === undefined) {
    const { stdout } = await run('git', args, { cwd: opts.cwd, env, maxBuffer: 64 << 20 });
    return stdout;
  }
  return new Promise<string>((resolve, reject) => {
    const child = spawn('git', args, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString('utf8'))
        : reject(new Error(`git ${args.join(' ')}: exit ${code}: ${Buffer.concat(err).toString('utf8')}`)),
    );
    child.stdin.end(opts.input);
  });
}

/**
 * Writes `files` as a tree into the bare repository (objects only) and returns the tree's SHA:
 * a temporary index, `git update-index --index-info` with the blobs' SHAs, `git write-tree`.
 */
async function writeTree(repo: string, files: ReadonlyMap<string, string>): Promise<string> {
  const index = path.join(repo, `index.${process.pid}.${Date.now()}`);
  const env = { GIT_DIR: repo, GIT_INDEX_FILE: index };
  try {
    const lines: string[] = [];
    for (const [rel, text] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (rel.startsWith('/') || rel.split('/').includes('..')) throw new Error(`bad path in commit: ${rel}`);
      const sha = (await git(['hash-object', '-w', '--stdin'], { env, input: text })).trim();
      lines.push(`100644 ${sha}\t${rel}`);
    }
    await git(['update-index', '--add', '--index-info'], { env, input: lines.join('\n') + '\n' });
    return (await git(['write-tree'], { env })).trim();
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/** Serves one CGI request with `git http-backend`, streaming both bodies. */
function serveCgi(root: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...GIT_ENV,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REMOTE_USER: '',
    SERVER_PROTOCOL: 'HTTP/1.1',
    GATEWAY_INTERFACE: 'CGI/1.1',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersDone = false;
  const errs: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errs.push(b));
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    const endLf = head.indexOf('\n\n');
    const cut = end >= 0 ? end + 4 : endLf >= 0 ? endLf + 2 : -1;
    if (cut < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, cut).toString('latin1').split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 200;
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(cut));
  });
  child.once('close', (code) => {
    if (!headersDone) {
      res.statusCode = 500;
      res.end(`git http-backend exited with ${code}: ${Buffer.concat(errs).toString('utf8')}`);
      return;
    }
    res.end();
  });
}

/**
 * Starts a server for one new bare repository `<name>.git` (branch `main` unless told), empty until
 * the first commit().
 */
export async function startGitServer(opts: { name?: string; branch?: string } = {}): Promise<GitServer> {
  const name = opts.name ?? 'gitops';
  const branch = opts.branch ?? 'main';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterset-git-'));
  const repoDir = path.join(root, `${name}.git`);
  await git(['init', '--bare', '--quiet', `--initial-branch=${branch}`, repoDir]);
  // Read-only over HTTP: the test commits into the repository itself.
  await git(['config', 'http.receivepack', 'false'], { cwd: repoDir });
  await git(['config', 'uploadpack.allowAnySHA1InWant', 'true'], { cwd: repoDir });

  let served = 0;
  const server = http.createServer((req, res) => {
    served++;
    serveCgi(root, req, res);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const ref = `refs/heads/${branch}`;

  // One commit at a time: update-ref with the old value would refuse a lost race anyway.
  let chain: Promise<unknown> = Promise.resolve();
  const head = async (): Promise<string | undefined> => {
    try {
      return (await git(['rev-parse', '--verify', '--quiet', ref], { cwd: repoDir })).trim() || undefined;
    } catch {
      return undefined;
    }
  };

  return {
    url: `http://127.0.0.1:${port}/${name}.git`,
    branch,
    repoDir,
    requests: () => served,
    head,
    commit(files, message) {
      const next = chain.then(async () => {
        const tree = await writeTree(repoDir, files);
        const parent = await head();
        const args = ['commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])];
        const sha = (await git(args, { cwd: repoDir })).trim();
        await git(['update-ref', ref, sha, ...(parent ? [parent] : [''])], { cwd: repoDir });
        return sha;
      });
      chain = next.catch(() => undefined);
      return next;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
