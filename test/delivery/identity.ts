// The identity a delivery controller has in its management cluster: the ServiceAccount its release
// runs it as, with the release's cluster-wide rights. What it writes must be admitted as that
// ServiceAccount, not as the test's admin (system:masters passes every admission policy of ours):
// the leader's compiled-imports policy lets only the delivery tools' identities
// (`admission.deliveryUsers`, by default `system:serviceaccount:argocd:argocd-application-controller`
// and `system:serviceaccount:flux-system:kustomize-controller`) write compiled ResourceImports.
//
// The token is a long-lived ServiceAccount token Secret, filled by the token controller, as a
// Pod's projected token would carry the same user.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cluster } from '../kube/cluster';
import { request } from '../kube/cluster';
import { expectStatus } from '../kube/objects';
import { eventually } from '../kube/wait';
import { tokenKubeconfig } from '../helpers/kubeconfig';

/**
 * Makes ServiceAccount `namespace/name` in `mgmt` with ClusterRoleBinding `<name>` to `clusterRole`
 * (cluster-admin: what Argo CD's application controller ClusterRole and Flux's `cluster-reconciler`
 * binding grant), and writes a kubeconfig with its token to `<dir>/<name>.kubeconfig`.
 */
export async function serviceAccountKubeconfig(
  mgmt: Cluster,
  namespace: string,
  name: string,
  dir: string,
  clusterRole = 'cluster-admin',
): Promise<string> {
  const ns = await request(mgmt.admin, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  expectStatus(`namespace ${namespace}`, ns, 201, 409);
  const sa = await request(mgmt.admin, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace },
  });
  expectStatus(`ServiceAccount ${namespace}/${name}`, sa, 201, 409);
  const crb = await request(mgmt.admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  expectStatus(`ClusterRoleBinding ${name}`, crb, 201, 409);
  const secret = `${name}-token`;
  const s = await request(mgmt.admin, 'POST', `/api/v1/namespaces/${namespace}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/service-account-token',
    metadata: { name: secret, namespace, annotations: { 'kubernetes.io/service-account.name': name } },
  });
  expectStatus(`Secret ${namespace}/${secret}`, s, 201, 409);
  const token = await eventually(`the token of ${namespace}/${name}`, async () => {
    const r = await request(mgmt.admin, 'GET', `/api/v1/namespaces/${namespace}/secrets/${secret}`);
    const data = (r.json as { data?: Record<string, string> } | undefined)?.data;
    return data?.token ? Buffer.from(data.token, 'base64').toString('utf8') : undefined;
  });
  const file = path.join(dir, `${name}.kubeconfig`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(tokenKubeconfig(mgmt, name, token, { namespace })), { mode: 0o600 });
  return file;
}
