/**
 * Renewed certificates without a restart: on SIGHUP the server reads `--tls-cert` and
 * `--tls-key` again and new connections get them (open ones keep theirs). A pair that does
 * not load leaves the running one in place and says why on stderr.
 */
import type { Server } from 'node:https';
import { ConfigError } from '../config/config-error.ts';
import { loadTlsFiles, type TlsSettings } from '../config/tls-settings.ts';

/** Returns the function that reloads (what the signal calls), for tests and the signal. */
export function reloadTlsOnHangup(
  server: Server,
  tls: TlsSettings,
  report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): () => void {
  const reload = (): void => {
    try {
      const fresh = loadTlsFiles(tls.certFile, tls.keyFile);
      server.setSecureContext({ cert: fresh.cert, key: fresh.key });
      report(`jumpseat: reloaded the TLS certificate from "${tls.certFile}"`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      report(`jumpseat: kept the TLS certificate in use: ${error.message}`);
    }
  };
  process.on('SIGHUP', reload);
  return reload;
}
