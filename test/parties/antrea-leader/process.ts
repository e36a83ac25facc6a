// The process of the played Antrea leader (player.ts), as the image that
// pod.ts builds runs it: its entrypoint `/antrea-mc-controller` under the name and
// command of Antrea's leader Deployment (`/antrea-mc-controller leader --config=...`), in a Pod under
// a real kubelet. What a process in a Pod has, and nothing from the tests:
//
// - the API server from its Pod's environment (KUBERNETES_SERVICE_HOST/PORT), its ServiceAccount
//   token, CA and namespace from the projected volume (the token read again for every request: the
//   kubelet rotates it);
// - signals as the kubelet sends them: on SIGTERM (its Pod marked for deletion) it goes on working
//   for `exitAfterSigtermMs` (Antrea's leader was seen to take about a second), then exits 0; the
//   kubelet SIGKILLs it at the end of the grace period if that comes first;
// - what the test wants of it, read from ConfigMap `played-antrea-leader` in its namespace (the one
//   thing here Antrea's leader does not have): `start: "true"` before it does anything (the tests
//   set the played set up before Antrea's leader runs over it), `exitAfterSigtermMs`, `periodMs`,
//   and the webhook serving certificate `tls.crt`/`tls.key` (valid for every address of the node's
//   Pod CIDR: Antrea generates its own at run time, which needs openssl this image lacks).
//
// It prints one JSON line per event on stdout (what pod.ts follows through the Pod's
// log): `started`, every `write`, `error`, `allocation`, `pass` and `deny`, `sigterm`, and `exit`
// right before it exits. Each carries `t`, epoch ms of this machine's clock (the tests run on the
// same machine, so they compare it with the API server's times).

import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import { apiOf, type Auth } from '../../kube/http';
import {
  ANTREA_WEBHOOK_PORT,
  AntreaLeaderPlayer,
  PLAYED_LEADER_CONFIG,
  AntreaWebhookServer,
  type PlayerEvent,
} from './player';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function say(e: Record<string, unknown>): void {
  // Synchronous: the line is out before the process exits.
  fs.writeSync(1, `${JSON.stringify({ t: Date.now(), ...e })}\n`);
}

function podIP(): string {
  for (const addrs of Object.values(os.networkInterfaces()))
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  throw new Error('no IPv4 address');
}

async function main(): Promise<void> {
  let exitAfterMs = 1000;
  process.on('SIGTERM', () => {
    say({ ev: 'sigterm', exitAfterMs });
    setTimeout(() => {
      say({ ev: 'exit', code: 0 });
      process.exit(0);
    }, exitAfterMs);
  });

  const ns = fs.readFileSync(`${SA_DIR}/namespace`, 'utf8').trim();
  const ca = fs.readFileSync(`${SA_DIR}/ca.crt`, 'utf8');
  const server = `https://${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT}`;
  const agent = new https.Agent({ keepAlive: true, ca });
  const auth = (): Auth => ({ server, ca, token: fs.readFileSync(`${SA_DIR}/token`, 'utf8').trim() });
  const api = apiOf(auth, agent);
  const onEvent = (e: PlayerEvent) => say({ ...e });

  // What the test wants, once it says start.
  let cfg: Record<string, string> | undefined;
  for (;;) {
    const r = await api('GET', `/api/v1/namespaces/${ns}/configmaps/${PLAYED_LEADER_CONFIG}`).catch(
      () => undefined,
    );
    cfg = (r?.json as { data?: Record<string, string> } | undefined)?.data;
    if (r?.status === 200 && cfg?.start === 'true') break;
    await new Promise((res) => setTimeout(res, 300));
  }
  exitAfterMs = Number(cfg.exitAfterSigtermMs ?? 1000);
  const sets = await api('GET', `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${ns}/clustersets`);
  const clusterSetId =
    ((sets.json as { items?: { metadata: { name: string } }[] }).items ?? [])[0]?.metadata.name ?? '';

  if (cfg['tls.crt'] && cfg['tls.key']) {
    const webhooks = new AntreaWebhookServer({
      clusters: new Map([['leader', api]]),
      leaderNs: ns,
      clusterSetId,
      tls: { cert: cfg['tls.crt'], key: cfg['tls.key'] },
      listen: '0.0.0.0',
      advertise: podIP(),
      port: ANTREA_WEBHOOK_PORT,
      onEvent,
    });
    await webhooks.start();
  }
  const player = new AntreaLeaderPlayer({
    api,
    leaderNs: ns,
    ...(cfg.periodMs ? { periodMs: Number(cfg.periodMs) } : {}),
    onEvent,
  });
  say({ ev: 'started', pod: os.hostname(), clusterSetId, exitAfterMs });
  await player.start();
}

main().catch((e: Error) => {
  say({ ev: 'fatal', message: e.stack ?? e.message });
  process.exit(1);
});
