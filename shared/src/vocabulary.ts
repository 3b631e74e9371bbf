/**
 * The product's fixed names and limits as plain values, with no schema library behind them,
 * so a small program (the CLI) can use them without loading TypeBox; api.ts re-exports them.
 */

/** Agent ids as ARCHITECTURE.md defines them. */
export const AGENT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const AGENT_ID_REGEX = new RegExp(AGENT_ID_PATTERN);
/** Host names (`jumpseat token create --role host --name build-3`): the same shape as agent ids. */
export const HOST_NAME_REGEX = AGENT_ID_REGEX;

export const DIALECTS = ['bash', 'pwsh'] as const;
export type Dialect = (typeof DIALECTS)[number];

export const ROLES = ['admin', 'operator', 'viewer', 'agent', 'host'] as const;

/** A placement label (`--label key=value`, an agent token's `labels`): its key and value. */
export const LABEL_KEY_REGEX = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
export const LABEL_VALUE_REGEX = /^[A-Za-z0-9._/-]{0,100}$/;
export type RoleName = (typeof ROLES)[number];

/** Longest life a share link may be given (30 days), in seconds. */
export const MAX_SHARE_SECONDS = 30 * 24 * 3600;
