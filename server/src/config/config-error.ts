/**
 * The two ways start-up configuration stops the server before anything runs: a value the
 * user must fix (one line naming the flag or variable), or a request for the usage text.
 */

/** A configuration problem; `message` is one line that names the flag or variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `--help` was given: print `usage` and exit successfully, starting nothing. */
export class HelpRequested extends Error {
  readonly usage: string;

  constructor(usage: string) {
    super('help requested');
    this.name = 'HelpRequested';
    this.usage = usage;
  }
}
