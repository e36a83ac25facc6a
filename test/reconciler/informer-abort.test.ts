// A stopping reconciler must not wait out a LIST the API server is slow to answer: the kubelet
// SIGKILLs a container still running 30 s after SIGTERM (exit 137), and a request's own timeout is
// 30 s. Here the server takes every LIST and never answers; aborting the informer's run must close
// that request at once and end the run.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Informer } from '../../lib/reconciler/informer';
import { KubeClient } from '../../lib/reconciler/kube';
import { jsonLogger } from '../../lib/reconciler/log';
import { Metrics } from '../../lib/reconciler/metrics';

test('GIVEN a LIST the server never answers WHEN the informer is aborted THEN the request is closed and the run ends, long before the request timeout', async () => {
  let listed!: () => void;
  const gotList = new Promise<void>((r) => (listed = r));
  let closed!: () => void;
  const requestClosed = new Promise<void>((r) => (closed = r));
  const server = http.createServer((req, res) => {
    // Never answers; notes when the client gives up on the request.
    res.on('close', () => closed());
    if (req.method === 'GET') listed();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  // A request timeout far beyond the test: only the abort can end the LIST.
  const client = new KubeClient(kc, { userAgent: 'test', requestTimeoutMs: 600_000 });
  const informer = new Informer({
    client,
    path: '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/ns/resourceexports',
    resource: 'resourceexports',
    trim: (o) => ({ name: String((o.metadata as { name?: string }).name), resourceVersion: '1' }),
    onChange: () => undefined,
    log: jsonLogger('error'),
    metrics: new Metrics(),
  });
  const ac = new AbortController();
  const run = informer.run(ac.signal);
  await gotList;
  ac.abort();
  // A guard against a hang, not a speed bound: without the abort the run lasts 10 minutes.
  const guard = new Promise<string>((r) =>
    setTimeout(() => r('still running 20 s after the abort'), 20_000).unref(),
  );
  const outcome = await Promise.race([Promise.all([run, requestClosed]).then(() => 'ended'), guard]);
  client.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  assert.is(outcome, 'ended');
  assert.not.ok(informer.synced, 'nothing was listed');
});

test.run();
