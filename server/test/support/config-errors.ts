/**
 * Helpers for configuration tests: the ConfigError a loading step throws, and a file's
 * permission bits.
 */
import { statSync } from 'node:fs';
import { ConfigError } from '../../src/config/config-error.ts';

/** Runs `run` and returns the ConfigError it throws; fails when it throws none. */
export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The permission bits of a file (e.g. 0o600). */
export function fileModeOf(path: string): number {
  return statSync(path).mode & 0o777;
}
