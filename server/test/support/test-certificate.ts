/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by Debian's openssl for a test
 * (no key is ever committed). Its PEM text is the CA a client trusts to reach the server.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate's PEM: the one CA a client of the test server trusts. */
  readonly pem: string;
}

/** Writes `<name>.cert.pem` and `<name>.key.pem` (a P-256 key, valid for two days) in `dir`. */
export function makeTestCertificate(dir: string, name = 'server'): TestCertificate {
  const certFile = join(dir, `${name}.cert.pem`);
  const keyFile = join(dir, `${name}.key.pem`);
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
      `/CN=jumpseat test ${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certFile, keyFile, pem: readFileSync(certFile, 'utf8') };
}
