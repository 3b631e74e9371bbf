/**
 * How much one token or one shell may hold open at once (live sockets, MCP sessions) and how
 * many typed keys may wait for a shell: the bounds that keep a careless or hostile client from
 * growing the server's memory. Read from flags here; enforced in live/, session/ and api/.
 */

import type { FlagName } from './flags.ts';
import { positiveInteger, type Setting } from './setting-values.ts';

export interface ConnectionLimits {
  /** Open live sockets (shell streams and dashboards) per token. */
  readonly livePerToken: number;
  /** Viewers per shell. */
  readonly livePerShell: number;
  /** Keys waiting for a shell past which a controller's next keys are dropped (bytes). */
  readonly inputPendingMaxBytes: number;
  /** Open MCP sessions per token; past it the token's own least recently used idle one ends. */
  readonly mcpSessionsPerToken: number;
}

/** A person has a dashboard and a few shells open in tabs; 32 sockets is many windows. */
export const DEFAULT_LIVE_PER_TOKEN = 32;
/** A pair or a team watching one shell, with room to spare. */
export const DEFAULT_LIVE_PER_SHELL = 64;
/** A large paste fits; a flood into a program that does not read costs at most this. */
export const DEFAULT_INPUT_PENDING_MAX_BYTES = 256 * 1024;
/** An agent harness opens one session per conversation it runs at once. */
export const DEFAULT_MCP_SESSIONS_PER_TOKEN = 64;
/** Past these a value is a typo (each connection costs memory; 64 MiB of keys is no paste). */
const MAX_CONNECTIONS = 100_000;
const MAX_INPUT_PENDING_BYTES = 64 * 1024 * 1024;
/** Below one frame (MAX_CLIENT_MESSAGE_BYTES is 64 KiB) a paste could never go through. */
const MIN_INPUT_PENDING_BYTES = 1024;

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  livePerToken: DEFAULT_LIVE_PER_TOKEN,
  livePerShell: DEFAULT_LIVE_PER_SHELL,
  inputPendingMaxBytes: DEFAULT_INPUT_PENDING_MAX_BYTES,
  mcpSessionsPerToken: DEFAULT_MCP_SESSIONS_PER_TOKEN,
};

export function readConnectionLimits(
  read: (name: FlagName) => Setting | undefined,
): ConnectionLimits {
  return {
    livePerToken: positiveInteger(read('live-per-token'), DEFAULT_LIVE_PER_TOKEN, MAX_CONNECTIONS),
    livePerShell: positiveInteger(read('live-per-shell'), DEFAULT_LIVE_PER_SHELL, MAX_CONNECTIONS),
    inputPendingMaxBytes: positiveInteger(
      read('input-pending-max-bytes'),
      DEFAULT_INPUT_PENDING_MAX_BYTES,
      MAX_INPUT_PENDING_BYTES,
      MIN_INPUT_PENDING_BYTES,
    ),
    mcpSessionsPerToken: positiveInteger(
      read('mcp-sessions-per-token'),
      DEFAULT_MCP_SESSIONS_PER_TOKEN,
      MAX_CONNECTIONS,
    ),
  };
}
