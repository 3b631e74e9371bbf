/**
 * The product's fixed names and limits as plain values, with no schema library behind them,
 * so a small program (the CLI) can use them without loading TypeBox; api.ts re-exports them.
 */

/** Agent ids as ARCHITECTURE.md defines them. */
export const AGENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const AGENT_ID_REGEX = new RegExp(AGENT_ID_PATTERN);

export const DIALECTS = ['bash', 'pwsh'] as const;
export type Dialect = (typeof DIALECTS)[number];

export const ROLES = ['admin', 'operator', 'viewer', 'agent'] as const;
export type RoleName = (typeof ROLES)[number];

/** Longest life a share link may be given (30 days), in seconds. */
export const MAX_SHARE_SECONDS = 30 * 24 * 3600;
