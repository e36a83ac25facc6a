/**
 * The kubeconfig of the commands that reach clusters from a workstation (`status`, `token`): the
 * file given, else every file of $KUBECONFIG (merged as kubectl merges them: the first file that
 * names a cluster, user or context wins), else ~/.kube/config, else the in-cluster service account.
 *
 * A file that is empty, is not a kubeconfig, or leaves no context at all is refused here with its
 * name: @kubernetes/client-node would otherwise throw a TypeError about `clusters` of undefined, or
 * fall back to an unauthenticated http://localhost:8080. The caller adds the fix in its own flags.
 *
 * Also the one normal form of an API server URL, so that two contexts are known to reach the same
 * API server (`token` refuses to copy a member's token into the leader itself).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as ClientNode from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadYaml } from './yaml';

/** A kubeconfig that cannot be used; the message names the file and what is wrong with it. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

export interface LoadedKubeconfig {
  readonly kc: KubeConfig;
  /** What was read, for messages: a path, `$KUBECONFIG (a:b)` or the in-cluster service account. */
  readonly source: string;
}

/** Where client-node finds the in-cluster service account's token. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function clientNode(): typeof ClientNode {
  // @kubernetes/client-node is loaded only by the commands that reach a cluster.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@kubernetes/client-node') as typeof ClientNode;
}

/**
 * One file, or undefined when `skipEmpty` and it is missing or holds nothing. Relative paths in it
 * (certificates, keys) are taken from its folder, as kubectl does.
 */
function loadFile(file: string, skipEmpty: boolean): KubeConfig | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (skipEmpty && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KubeconfigError(`cannot read the kubeconfig ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (e) {
    throw new KubeconfigError(
      `the kubeconfig ${file} is not valid YAML: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  if (doc === undefined || doc === null) {
    if (skipEmpty) return undefined;
    throw new KubeconfigError(`the kubeconfig ${file} is empty`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new KubeconfigError(
      `${file} is not a kubeconfig: it holds a ${Array.isArray(doc) ? 'list' : typeof doc}, ` +
        'not a mapping with clusters, users and contexts',
    );
  const kc = new (clientNode().KubeConfig)();
  try {
    kc.loadFromString(text);
  } catch (e) {
    throw new KubeconfigError(`the kubeconfig ${file} is not valid: ${(e as Error).message}`);
  }
  kc.makePathsAbsolute(path.dirname(path.resolve(file)));
  return kc;
}

/** kubectl's merge: the first file to name a cluster, user or context, or to set the current context, wins. */
function merge(configs: readonly KubeConfig[]): KubeConfig {
  const firstByName = <T extends { readonly name: string }>(lists: readonly (readonly T[])[]): T[] => {
    const seen = new Map<string, T>();
    for (const l of lists) for (const x of l) if (!seen.has(x.name)) seen.set(x.name, x);
    return [...seen.values()];
  };
  const kc = new (clientNode().KubeConfig)();
  kc.loadFromOptions({
    clusters: firstByName(configs.map((c) => c.getClusters())),
    users: firstByName(configs.map((c) => c.getUsers())),
    contexts: firstByName(configs.map((c) => c.getContexts())),
    currentContext: configs.map((c) => c.getCurrentContext()).find((x) => !!x) ?? '',
  });
  return kc;
}

/**
 * Loads the kubeconfig `file`, or the default one. Throws KubeconfigError, naming what was read,
 * when there is none, when it cannot be read or parsed, or when it holds no context.
 */
export function loadKubeconfig(file: string | undefined): LoadedKubeconfig {
  let loaded: LoadedKubeconfig;
  if (file !== undefined) {
    loaded = { kc: loadFile(file, false)!, source: file };
  } else {
    const list = (process.env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
    const home = path.join(os.homedir(), '.kube', 'config');
    if (list.length === 1) {
      loaded = { kc: loadFile(list[0]!, false)!, source: `${list[0]} ($KUBECONFIG)` };
    } else if (list.length > 1) {
      const source = `$KUBECONFIG (${list.join(path.delimiter)})`;
      const configs = list.flatMap((f) => loadFile(f, true) ?? []);
      if (configs.length === 0) throw new KubeconfigError(`no file of ${source} exists or holds anything`);
      loaded = { kc: merge(configs), source };
    } else if (fs.existsSync(home)) {
      loaded = { kc: loadFile(home, false)!, source: home };
    } else if (fs.existsSync(SERVICE_ACCOUNT_TOKEN)) {
      const kc = new (clientNode().KubeConfig)();
      kc.loadFromCluster();
      return { kc, source: 'the in-cluster service account' };
    } else {
      throw new KubeconfigError(`no kubeconfig: $KUBECONFIG is not set and ${home} does not exist`);
    }
  }
  if (loaded.kc.getContexts().length === 0)
    throw new KubeconfigError(`the kubeconfig ${loaded.source} has no contexts`);
  return loaded;
}

/** The names of a kubeconfig's loopback host, one spelling for all. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An API server URL in one form, to tell whether two contexts reach the same API server: scheme and
 * host in lower case, a trailing dot and trailing slashes dropped, the default port written out,
 * `localhost`, `127.0.0.1` and `[::1]` one host. The path stays: two clusters behind one proxy
 * (Rancher's `/k8s/clusters/<id>`) differ by it.
 */
export function normaliseServer(server: string): string {
  const s = server.trim();
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `https://${s}`);
  } catch {
    return s.toLowerCase().replace(/\/+$/, '');
  }
  const scheme = u.protocol.toLowerCase();
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const port = u.port || (scheme === 'http:' ? '80' : '443');
  return `${scheme}//${LOOPBACK.has(host) ? 'loopback' : host}:${port}${u.pathname.replace(/\/+$/, '')}`;
}
