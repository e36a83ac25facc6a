// Self-signed certificates for what the tests serve over HTTPS (played webhooks, their CAs), made
// with openssl as an administrator would.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A self-signed certificate `<base>.crt` and key `<base>.key` in `dir` (RSA 2048, openssl), with
 * extra `openssl req` arguments (e.g. `-addext subjectAltName=...`); the PEMs.
 */
export function selfSigned(
  dir: string,
  base: string,
  cn: string,
  days: number,
  extra: readonly string[] = [],
): { key: string; cert: string } {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.crt`]
      .concat(['-days', String(days), '-subj', `/CN=${cn}`])
      .concat(extra),
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return {
    key: fs.readFileSync(path.join(dir, `${base}.key`), 'utf8'),
    cert: fs.readFileSync(path.join(dir, `${base}.crt`), 'utf8'),
  };
}

/**
 * A serving certificate for Antrea's webhooks at any of `ips` (the played leader's Pod gets one
 * address of its node's Pod CIDR; the tests' own webhook server listens on 127.0.0.1).
 */
export function webhookServingCert(dir: string, ips: readonly string[]): { key: string; cert: string } {
  return selfSigned(dir, 'tls', 'antrea-mc-webhook-service', 1, [
    '-addext',
    `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}`,
  ]);
}
