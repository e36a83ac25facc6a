// Kubeconfig files the tests hand to the CLI and to the tools they run: written as JSON (valid YAML,
// with no YAML 1.1 surprises such as a cluster named "n"), and the common one of a bearer token for
// one test cluster.
import * as fs from 'node:fs';

/** What a kubeconfig holds besides its apiVersion and kind. */
export interface KubeconfigParts {
  readonly clusters: readonly unknown[];
  readonly users: readonly unknown[];
  readonly contexts: readonly unknown[];
  readonly 'current-context'?: string;
}

/** A kubeconfig of `parts`. */
export function kubeconfigOf(parts: KubeconfigParts): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Config', ...parts };
}

/** Writes the kubeconfig of `parts` to `file` (with file mode `mode`, when given); returns `file`. */
export function writeKubeconfig(file: string, parts: KubeconfigParts, mode?: number): string {
  fs.writeFileSync(file, JSON.stringify(kubeconfigOf(parts)), mode === undefined ? undefined : { mode });
  return file;
}

/**
 * The kubeconfig of a bearer token (a ServiceAccount's, say) for `cluster`: its one cluster, the user
 * `user`, and one context, named `context` (default: the user's name), in `namespace` when given,
 * current.
 */
export function tokenKubeconfig(
  cluster: { readonly name: string; readonly server: string; readonly caData: string },
  user: string,
  token: string,
  o: { readonly context?: string; readonly namespace?: string } = {},
): Record<string, unknown> {
  const context = o.context ?? user;
  return kubeconfigOf({
    clusters: [
      {
        name: cluster.name,
        cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [
      {
        name: context,
        context: { cluster: cluster.name, user, ...(o.namespace ? { namespace: o.namespace } : {}) },
      },
    ],
    'current-context': context,
  });
}
