/**
 * `--tls-cert` and `--tls-key`: the PEM files jumpseat serves HTTPS and WSS with. Read and
 * checked as a pair at start, so a wrong path or a key of another certificate stops the
 * server with one line instead of failing every browser's handshake later.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { errorCode } from './admin-token.ts';
import { ConfigError } from './config-error.ts';
import { nonEmpty, type Setting } from './setting-values.ts';

/** The files (absolute) and what they held when read. */
export interface TlsSettings {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Null when neither is given; both or neither. */
export function readTlsSettings(
  cert: Setting | undefined,
  key: Setting | undefined,
  cwd: string,
): TlsSettings | null {
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined || key === undefined) {
    const given = (cert ?? key) as Setting;
    const missing = cert === undefined ? '--tls-cert' : '--tls-key';
    throw new ConfigError(
      `${given.source} needs ${missing} too: HTTPS takes a certificate and its key`,
    );
  }
  const certFile = resolve(cwd, nonEmpty(cert));
  const keyFile = resolve(cwd, nonEmpty(key));
  return loadTlsFiles(certFile, keyFile, { cert: cert.source, key: key.source });
}

/**
 * Reads and checks the pair; `sources` name the settings in a refusal. Also used to re-read
 * renewed files while the server runs (SIGHUP).
 */
export function loadTlsFiles(
  certFile: string,
  keyFile: string,
  sources: { readonly cert: string; readonly key: string } = {
    cert: '--tls-cert',
    key: '--tls-key',
  },
): TlsSettings {
  const certPem = readPem(certFile, sources.cert);
  const keyPem = readPem(keyFile, sources.key);
  try {
    // The same check the server's handshakes make: PEM that parses, a key that fits.
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `${sources.cert} "${certFile}" and ${sources.key} "${keyFile}" are not a PEM certificate and its private key (${reason})`,
    );
  }
  return { certFile, keyFile, cert: certPem, key: keyPem };
}

function readPem(path: string, source: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = errorCode(error);
    const reason = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`;
    throw new ConfigError(`${source} "${path}" ${reason}`);
  }
}
