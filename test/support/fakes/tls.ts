/**
 * A self-signed certificate for the provider fakes to serve HTTPS with, made at test time with the
 * `openssl` command (node's crypto makes keys, not X.509 certificates). It names 127.0.0.1 and
 * localhost, so a client that trusts it — a spawned Holdfast through `NODE_EXTRA_CA_CERTS=<certFile>`,
 * or an in-process client through an `https.Agent({ ca: cert })` — checks the fakes as it would
 * check Stripe and PayPal. One per test run, in a temporary folder removed at exit.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface FakeTls {
  /** PEM private key and certificate, for `https.createServer`. */
  key: string;
  cert: string;
  /** The certificate's file: what `NODE_EXTRA_CA_CERTS` names for a process that trusts the fakes. */
  certFile: string;
}

let made: FakeTls | undefined;

/** The run's self-signed certificate for 127.0.0.1 (made once, on first use). */
export function fakeTls(): FakeTls {
  if (made) return made;
  const dir = mkdtempSync(path.join(tmpdir(), 'holdfast-fake-tls-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=Holdfast test fakes',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  made = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
  return made;
}
