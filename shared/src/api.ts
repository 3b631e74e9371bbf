/**
 * The HTTP API's request and response shapes, defined once as JSON Schemas (TypeBox)
 * so that the server validates and serializes with them and clients type against them.
 */
import { type Static, Type } from 'typebox';

import { AGENT_ID_PATTERN, type Dialect, MAX_SHARE_SECONDS, type RoleName } from './vocabulary.ts';

export {
  AGENT_ID_PATTERN,
  AGENT_ID_REGEX,
  DIALECTS,
  MAX_SHARE_SECONDS,
  ROLES,
} from './vocabulary.ts';
export type { Dialect, RoleName };

export const ToolCallBody = Type.Object(
  { command: Type.String({ description: 'The command to run.' }) },
  { additionalProperties: false },
);
export type ToolCallBody = Static<typeof ToolCallBody>;

export const ToolCallReply = Type.Object({ output: Type.String() });
export type ToolCallReply = Static<typeof ToolCallReply>;

export const ErrorReply = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});
export type ErrorReply = Static<typeof ErrorReply>;

export const SESSION_STATES = [
  'starting',
  'idle',
  'running',
  'waiting_input',
  'human_control',
  'exited',
  'ended',
] as const;
export type SessionState = (typeof SESSION_STATES)[number];

export const CALL_OUTCOMES = [
  'completed',
  'timeout',
  'waiting_input',
  'shell_exit',
  'cancelled',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** How a shell ended: by itself, by jumpseat, or with the server (see SessionInfo.ending). */
export const SESSION_ENDING_KINDS = [
  /** The shell exited by itself (`exit 3`): `exitCode` says with what. */
  'exited',
  /** A signal ended the shell from outside jumpseat: `signal` names it. */
  'killed',
  /** jumpseat ended it: a call timed out or was cancelled, or the shell never became ready. */
  'reset',
  /** The server closed it on shutdown (or let it go). */
  'closed',
  /** It was still running when the server stopped without closing it (a crash, `kill -9`). */
  'server_stopped',
  /** Its host stopped answering for longer than the grace period (or died). */
  'host_lost',
] as const;
export type SessionEndingKind = (typeof SESSION_ENDING_KINDS)[number];

export const SessionEnding = Type.Object({
  kind: Type.Union([
    Type.Literal('exited'),
    Type.Literal('killed'),
    Type.Literal('reset'),
    Type.Literal('closed'),
    Type.Literal('server_stopped'),
    Type.Literal('host_lost'),
  ]),
  exitCode: Nullable(Type.Integer()),
  signal: Nullable(Type.String()),
});
export type SessionEnding = Static<typeof SessionEnding>;

export const SessionInfo = Type.Object({
  id: Type.String(),
  /** The agent whose shell this is; null for a person's own shell not handed to an agent. */
  agent: Nullable(Type.String()),
  /** The display name of the person who opened this shell; null for an agent's shell. */
  owner: Nullable(Type.String()),
  /**
   * Who opened it, as `GET /api/me` gives its `id`: the page compares the two to offer the
   * owner's tools. Absent for agents' shells and past shells.
   */
  ownerId: Type.Optional(Type.String()),
  dialect: Type.Union([Type.Literal('bash'), Type.Literal('pwsh')]),
  state: Type.Union([
    Type.Literal('starting'),
    Type.Literal('idle'),
    Type.Literal('running'),
    Type.Literal('waiting_input'),
    Type.Literal('human_control'),
    Type.Literal('exited'),
    Type.Literal('ended'),
  ]),
  command: Nullable(Type.String()),
  since: Nullable(Type.String({ description: 'ISO time the current command started' })),
  /** ISO time the shell entered its current state (a wait for input is timed from it). */
  stateSince: Type.Optional(Type.String()),
  lastExitCode: Nullable(Type.Integer()),
  pid: Nullable(Type.Integer()),
  cols: Type.Integer(),
  rows: Type.Integer(),
  controller: Nullable(Type.String()),
  viewers: Type.Integer(),
  startedAt: Type.String(),
  /** When the shell ended; null while it runs. */
  endedAt: Nullable(Type.String()),
  /** How the shell ended; null while it runs. */
  ending: Nullable(SessionEnding),
  /** The joined host the shell runs on; absent for a shell of the server's own. */
  host: Type.Optional(Type.String()),
});
export type SessionInfo = Static<typeof SessionInfo>;

export const CallInfo = Type.Object({
  id: Type.String(),
  sessionId: Type.String(),
  command: Type.String(),
  output: Type.String({ description: 'The result text exactly as the agent got it' }),
  exitCode: Nullable(Type.Integer()),
  outcome: Type.Union([
    Type.Literal('completed'),
    Type.Literal('timeout'),
    Type.Literal('waiting_input'),
    Type.Literal('shell_exit'),
    Type.Literal('cancelled'),
  ]),
  startedAt: Type.String(),
  durationMs: Type.Number(),
  /**
   * The person who held the controls while the call ran (the last one, if several); null when
   * nobody did. Absent where it is not known yet (the live stream's `call_finished`).
   */
  controller: Type.Optional(Nullable(Type.String())),
  /** The id of that person's token, kept with the name (a name alone proves nothing). */
  controllerTokenId: Type.Optional(Nullable(Type.String())),
});
export type CallInfo = Static<typeof CallInfo>;

/** `GET /api/sessions?state=`: `live` (the default) lists this run's shells, `all` adds past ones. */
export const SESSION_LIST_STATES = ['live', 'ended', 'all'] as const;
export type SessionListState = (typeof SESSION_LIST_STATES)[number];

/**
 * `GET /api/sessions/:id/events`: who took, released or interrupted a shell, and when; and
 * when a person's shell was handed to an agent (`hand_off`, `name` being the agent's id).
 */
export const ControlEvent = Type.Object({
  at: Type.String(),
  kind: Type.Union([
    Type.Literal('take'),
    Type.Literal('release'),
    Type.Literal('interrupt'),
    Type.Literal('hand_off'),
    /** Warned that the shell is the agent's, the person sent a hidden answer anyway. */
    Type.Literal('secret_sent'),
    /** Warned, the person did not send it (or it went moot: nothing was sent). */
    Type.Literal('secret_withheld'),
  ]),
  /** The person's display name (for `hand_off`, the agent's id). */
  name: Type.String(),
  /** The id of the token they held the controls with; null in history from before it was kept. */
  tokenId: Type.Optional(Nullable(Type.String())),
  /** That token is a share link: the name is the one its holder gave (shown with "(link)"). */
  link: Type.Optional(Type.Boolean()),
  /** Their keystrokes went into the recording (the server records them only when configured). */
  keysRecorded: Type.Boolean(),
});
export type ControlEvent = Static<typeof ControlEvent>;

export const AUDIT_KINDS = ['minted', 'revoked', 'named', 'new_address', 'refused'] as const;

/** `GET /api/audit` (admin): the auth trail, newest first. Fields a kind lacks are null. */
export const AuditEvent = Type.Object({
  id: Type.Integer(),
  at: Type.String(),
  kind: Type.Union([
    Type.Literal('minted'),
    Type.Literal('revoked'),
    Type.Literal('named'),
    Type.Literal('new_address'),
    Type.Literal('refused'),
  ]),
  tokenId: Nullable(Type.String()),
  /** The token's display name. */
  name: Nullable(Type.String()),
  role: Nullable(Type.String()),
  /** The one shell a share link reaches. */
  scope: Nullable(Type.String()),
  /** Who minted or revoked it. */
  by: Nullable(Type.String()),
  address: Nullable(Type.String()),
  status: Nullable(Type.Integer()),
  reason: Nullable(Type.String()),
  method: Nullable(Type.String()),
  url: Nullable(Type.String()),
  /**
   * How many events the row stands for: refusals are one row per address, status and minute
   * (`at` the first, `lastAt` the last, `method` and `url` the first one's); 1 for the others.
   */
  count: Type.Integer({ minimum: 1 }),
  lastAt: Nullable(Type.String()),
});
export type AuditEvent = Static<typeof AuditEvent>;

/** `GET /api/audit`'s filters (all optional, combined with AND). */
export interface AuditQuery {
  readonly limit: number;
  readonly kinds?: readonly AuditEvent['kind'][];
  readonly tokenId?: string;
  /** ISO times: events at or after `since`, before `until`. */
  readonly since?: string;
  readonly until?: string;
  /** Only rows with a smaller id: the next page after the last row a previous read gave. */
  readonly before?: number;
}

/** The shapes `GET /api/tools?format=` gives the tool definitions in (default anthropic). */
export const TOOL_FORMATS = ['anthropic', 'openai', 'openai-responses', 'json-schema'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export const ToolDefinition = Type.Object({
  name: Type.String(),
  description: Type.String(),
  input_schema: Type.Object({}, { additionalProperties: true }),
});
export type ToolDefinition = Static<typeof ToolDefinition>;

export const TokenRequest = Type.Object(
  {
    role: Type.Union([
      Type.Literal('admin'),
      Type.Literal('operator'),
      Type.Literal('viewer'),
      Type.Literal('agent'),
      Type.Literal('host'),
    ]),
    agent: Type.Optional(Type.String({ pattern: AGENT_ID_PATTERN })),
    /** Role host: the host's name, bound to the token (required). */
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** Role agent: placement labels; the agent's shells go only to hosts with all of them. */
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenReply = Type.Object({
  token: Type.String(),
  role: Type.String(),
  agent: Type.Optional(Type.String()),
  name: Type.String(),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type TokenReply = Static<typeof TokenReply>;

/** `POST /api/sessions`: a person opens a shell of their own (operator or admin). */
export const NewShellRequest = Type.Object(
  { dialect: Type.Union([Type.Literal('bash'), Type.Literal('pwsh')]) },
  { additionalProperties: false },
);
export type NewShellRequest = Static<typeof NewShellRequest>;

/** `POST /api/sessions/:id/hand-off`: the shell becomes this agent's shell of its dialect. */
export const HandOffRequest = Type.Object(
  { agent: Type.String({ pattern: AGENT_ID_PATTERN }) },
  { additionalProperties: false },
);
export type HandOffRequest = Static<typeof HandOffRequest>;

/** `POST /api/sessions/:id/shares`: a link to this one shell, to watch or also to type. */
export const ShareRequest = Type.Object(
  {
    role: Type.Union([Type.Literal('viewer'), Type.Literal('operator')]),
    /** Omitted: the link works until revoked. */
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_SHARE_SECONDS })),
  },
  { additionalProperties: false },
);
export type ShareRequest = Static<typeof ShareRequest>;

/** A share link as listed (its token is shown only once, when it is created). */
export const ShareInfo = Type.Object({
  id: Type.String(),
  sessionId: Type.String(),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator')]),
  /** The holder's display name, once they gave it; null before. */
  name: Nullable(Type.String()),
  createdBy: Type.String(),
  createdAt: Type.String(),
  expiresAt: Nullable(Type.String()),
});
export type ShareInfo = Static<typeof ShareInfo>;

export const ShareCreated = Type.Object({
  share: ShareInfo,
  /** The secret; shown this once. */
  token: Type.String(),
  /** Opening it logs a browser in and lands on the shared shell. */
  url: Type.String(),
});
export type ShareCreated = Static<typeof ShareCreated>;

/** `GET /api/me`: who this token is. */
export const WhoAmI = Type.Object({
  /** This token's id (not the secret): a shell it opened has it as `ownerId`. */
  id: Type.String(),
  name: Type.String(),
  role: Type.String(),
  /** False for a share link whose holder has not given their name yet. */
  named: Type.Boolean(),
  /** The one shell a share link reaches; null for an unscoped token. */
  scope: Nullable(Type.String()),
  canControl: Type.Boolean(),
});
export type WhoAmI = Static<typeof WhoAmI>;

/** `GET /api/settings`: what the web app needs to know of the server's configuration. */
export const WebSettings = Type.Object({
  /** A shell waiting for input longer than this is marked "needs a human". */
  needsHumanAfterMs: Type.Integer(),
  /** `--public-url` (ending in `/`); null when people reach the server at its own address. */
  publicUrl: Nullable(Type.String()),
  /** The server's clock (ISO), so a page can time waits on the server's clock. */
  serverTime: Type.String(),
  /** The server runs shells itself (its embedded host); false with `--local-shells off`. */
  localShells: Type.Boolean(),
});
export type WebSettings = Static<typeof WebSettings>;

/** `PUT /api/me/name`: the display name others see. */
export const NameRequest = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 60, pattern: '\\S' }) },
  { additionalProperties: false },
);
export type NameRequest = Static<typeof NameRequest>;

/** `POST /api/login`: the browser credential the page keeps (origin-scoped) and sends. */
export const BrowserLogin = Type.Object({ credential: Type.String() });
export type BrowserLogin = Static<typeof BrowserLogin>;

/** `POST /api/live-tickets`: opens one WebSocket (`?ticket=`), once, within `expiresInMs`. */
export const LiveTicket = Type.Object({ ticket: Type.String(), expiresInMs: Type.Integer() });
export type LiveTicket = Static<typeof LiveTicket>;

/** `GET /api/tokens` (admin): every minted token and share link, without its secret. */
export const TokenInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: Type.String(),
  agent: Nullable(Type.String()),
  /** An agent token's placement labels: its shells start only on hosts with all of them. */
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** The one shell a share link reaches; null for an unscoped token. */
  scope: Nullable(Type.String()),
  /** A share link: its holder names themselves. */
  link: Type.Boolean(),
  createdAt: Type.String(),
  createdBy: Nullable(Type.String()),
  /** Last request it authenticated (kept to the minute); null if never used. */
  lastUsedAt: Nullable(Type.String()),
  expiresAt: Nullable(Type.String()),
  /** When it was revoked; null while it works. */
  revokedAt: Nullable(Type.String()),
});
export type TokenInfo = Static<typeof TokenInfo>;

/** `PATCH /api/tokens/:id` (admin): a minted token's new display name. */
export const TokenRename = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export type TokenRename = Static<typeof TokenRename>;

/** `GET /api/hosts` (admin): the shell hosts that joined this control plane. */
export const HostInfo = Type.Object({
  name: Type.String(),
  labels: Type.Record(Type.String(), Type.String()),
  state: Type.Union([
    Type.Literal('connected'),
    Type.Literal('unreachable'),
    Type.Literal('draining'),
  ]),
  /** Live shells on it. */
  shells: Type.Integer(),
  /** Live shells it takes at most (`--max-shells`). */
  capacity: Type.Integer(),
  /** shells / capacity, 0..1. */
  load: Type.Number(),
  dialects: Type.Array(Type.String()),
  /** The link protocol version in use, and the jumpseat version the host runs. */
  protocol: Type.Integer(),
  engineVersion: Type.String(),
  /** ISO time of the last message from it. */
  lastSeen: Type.String(),
  /** With replicas (`--database`): the id of the replica that holds the host's link (a host
   *  linked to another replica is reached through it). */
  replica: Type.Optional(Type.String()),
});
export type HostInfo = Static<typeof HostInfo>;
