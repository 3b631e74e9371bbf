/**
 * The banner's `dialects:` line: the shells this server offers, pwsh with its version
 * (`dialects: bash, pwsh 7.6.9`), so a user sees at start whether PowerShell was found.
 */
import { execFile } from 'node:child_process';

/** `pwsh --version` starts .NET: about a second, far more on a loaded machine. */
const PWSH_VERSION_TIMEOUT_MS = 10_000;
const VERSION = /\b(\d+\.\d+\.\d+(?:-[\w.]+)?)\b/;

/** The version `pwsh --version` prints, or null when it could not be read. */
export function pwshVersion(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { timeout: PWSH_VERSION_TIMEOUT_MS }, (error, stdout) => {
      resolve(error === null ? (VERSION.exec(stdout)?.[1] ?? null) : null);
    });
  });
}

/** `dialects: bash, pwsh 7.6.9`; pwsh without a version when it did not say one. */
export function dialectsLine(dialects: readonly string[], pwsh: string | null): string {
  const named = dialects.map((dialect) =>
    dialect === 'pwsh' && pwsh !== null ? `pwsh ${pwsh}` : dialect,
  );
  return `dialects: ${named.join(', ')}`;
}
