/**
 * `kubectl apply -f` as an operator runs it: the real kubectl on PATH, client-side (field manager
 * `kubectl-client-side-apply` and the `kubectl.kubernetes.io/last-applied-configuration` annotation,
 * which decides what a later server-side apply by anyone else takes over), of objects written to a
 * file, as Antrea's install guide, `antctl mc deploy` users and the user guide's member steps run it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { dumpYaml } from '../../lib/yaml';
import type { Cluster } from '../kube/cluster';

/** The field manager of what `kubectl apply` (client-side) writes. */
export const KUBECTL_CLIENT_SIDE_MANAGER = 'kubectl-client-side-apply';

/** `kubectl apply -f` of `objects` against `cluster`. */
export function kubectlApply(cluster: Cluster, objects: readonly Record<string, unknown>[]): void {
  const file = path.join(cluster.dir, `kubectl-apply-${process.pid}-${Date.now()}.yaml`);
  fs.writeFileSync(file, objects.map((o) => dumpYaml(o)).join('---\n'));
  try {
    execFileSync('kubectl', ['--kubeconfig', cluster.kubeconfigPath, 'apply', '-f', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  } catch (e) {
    const x = e as { stderr?: Buffer; message: string };
    throw new Error(`kubectl apply -f ${file}: ${x.stderr?.toString() ?? x.message}`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}
