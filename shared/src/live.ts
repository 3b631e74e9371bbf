/**
 * The live protocol of `GET /api/sessions/:id/live` (WebSocket), defined once for the server,
 * the web app and the TypeScript client. JSON text frames carry every message but output;
 * output travels in binary frames (raw PTY bytes, see `encodeOutputFrame`), so a 20 MB burst
 * is never inflated by JSON or base64.
 *
 * Flow: the server sends `hello`, then either `snapshot` (join, or a resume offset no longer
 * retained) or `resumed` (the offset asked for with `?from=N` is still retained), then output
 * frames whose offsets continue exactly where the snapshot or the resume point ends, plus
 * events. A viewer that falls too far behind gets a fresh `snapshot` (reason `resync`).
 */
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { CallInfo, SessionInfo } from './api.ts';

export const LIVE_PROTOCOL_VERSION = 1;

/** Client text frames longer than this are refused with an error frame. */
export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024;
/** Bounds of a terminal size a controller may ask for. */
export const MIN_COLS = 2;
export const MAX_COLS = 500;
export const MIN_ROWS = 2;
export const MAX_ROWS = 300;

/** WebSocket close codes the server uses (4000–4999 are ours). */
export const LIVE_CLOSE = {
  /** The shell was forgotten by the server (or the server is shutting down). */
  gone: 4404,
  /** The viewer's access was revoked, or its share link expired. */
  revoked: 4403,
  /** The shell's owner (or the admin) disconnected this link holder; the link still works. */
  disconnected: 4409,
  /** A viewer whose send buffer stayed past its bound (it stopped reading); it may come back. */
  tooSlow: 4408,
  /** Refused at join: too many live connections for this token, or watching this shell. */
  tooMany: 4429,
} as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** A person (or program) connected to a shell's live stream. */
export const Viewer = Type.Object({
  /** Opaque id of this connection; one person with two tabs is two viewers. */
  id: Type.String(),
  name: Type.String(),
  role: Type.String(),
  /** Came in through a share link: the name is the one its holder gave, not the admin's. */
  link: Type.Optional(Type.Boolean()),
  /** The id (not the secret) of the token it connected with: names are kept with it. */
  tokenId: Type.Optional(Type.String()),
});
export type Viewer = Static<typeof Viewer>;

// ---- server → client ----------------------------------------------------------------------

export const HelloMessage = Type.Object({
  type: Type.Literal('hello'),
  protocol: Type.Literal(LIVE_PROTOCOL_VERSION),
  /** This connection, as the others see it. */
  you: Viewer,
  /** Whether this connection may take control, type, resize and interrupt. */
  canControl: Type.Boolean(),
  /**
   * The admin, or the owner of this person's own shell: takes the controls from whoever holds
   * them (the same Take over) and may disconnect link holders.
   */
  inCharge: Type.Optional(Type.Boolean()),
  session: SessionInfo,
});

export const SnapshotMessage = Type.Object({
  type: Type.Literal('snapshot'),
  reason: Type.Union([Type.Literal('join'), Type.Literal('resync'), Type.Literal('expired')]),
  /** Screen and scrollback as escape sequences (`@xterm/addon-serialize`). */
  data: Type.String(),
  cols: Type.Integer(),
  rows: Type.Integer(),
  /** Display-stream offset the snapshot covers: the next output frame starts here. */
  offset: Type.Number(),
});

export const ResumedMessage = Type.Object({
  type: Type.Literal('resumed'),
  /** Output frames continue from this offset (the one asked for). */
  offset: Type.Number(),
});

/** Everything a dashboard row shows changed: state, command, controller, viewers, size. */
export const SessionMessage = Type.Object({
  type: Type.Literal('session'),
  session: SessionInfo,
});

export const CallStartedMessage = Type.Object({
  type: Type.Literal('call_started'),
  command: Type.String(),
  startedAt: Type.String(),
});

export const CallFinishedMessage = Type.Object({
  type: Type.Literal('call_finished'),
  /** With the result text exactly as the agent got it. */
  call: CallInfo,
});

export const ControlMessage = Type.Object({
  type: Type.Literal('control'),
  /** Who holds the keyboard now; null when the agent has the shell. */
  controller: Nullable(Viewer),
  /** Set when someone in charge took the controls from this viewer. */
  takenFrom: Type.Optional(Viewer),
  /** `idle`: the controller typed nothing for `--control-idle-ms`; the agent has it back. */
  reason: Type.Optional(Type.Literal('idle')),
});

/** The controller has typed nothing for a while: the controls go back to the agent soon. */
export const ControlIdleMessage = Type.Object({
  type: Type.Literal('control_idle'),
  controller: Viewer,
  /** Milliseconds until the hand-back, unless the controller types. */
  releaseInMs: Type.Integer(),
});

/** Everyone watching: sent once to a joiner (and after a resync); then joined/left changes. */
export const PresenceMessage = Type.Object({
  type: Type.Literal('presence'),
  viewers: Type.Array(Viewer),
});

export const ViewerJoinedMessage = Type.Object({
  type: Type.Literal('viewer_joined'),
  viewer: Viewer,
});

export const ViewerLeftMessage = Type.Object({
  type: Type.Literal('viewer_left'),
  /** The id of the viewer who left. */
  id: Type.String(),
});

/**
 * The controller's keys were dropped, not queued: the shell has not taken what was typed
 * before (`pendingBytes` wait for it, at most `limitBytes`). Sent once per run of dropped
 * frames; Ctrl-C is never dropped.
 */
export const InputDroppedMessage = Type.Object({
  type: Type.Literal('input_dropped'),
  droppedBytes: Type.Integer(),
  pendingBytes: Type.Integer(),
  limitBytes: Type.Integer(),
});

export const ResizeMessage = Type.Object({
  type: Type.Literal('resize'),
  cols: Type.Integer(),
  rows: Type.Integer(),
});

/** A viewer who may type asks the controller for the keyboard (everyone is told). */
export const ControlRequestedMessage = Type.Object({
  type: Type.Literal('control_requested'),
  from: Viewer,
});

/** A request for the keyboard is over: granted, declined, or the asker or holder left. */
export const ControlRequestClosedMessage = Type.Object({
  type: Type.Literal('control_request_closed'),
  /** The asking viewer's id. */
  from: Type.String(),
  outcome: Type.Union([
    Type.Literal('granted'),
    Type.Literal('declined'),
    Type.Literal('withdrawn'),
  ]),
});

/**
 * What the person at the controls is told before a hidden answer (a password) they typed goes
 * into an agent's shell; the keys wait for their `secret_answer` (server/src/session/secret-warning.ts).
 */
export const SECRET_WARNING_TEXT =
  "This shell is the agent's: a program it started can read what you type. Use your own shell for secrets.";

/** Sent to the controller only: the question is open (keys held) or over (answered or moot). */
export const SecretWarningMessage = Type.Object({
  type: Type.Literal('secret_warning'),
  open: Type.Boolean(),
});

export const ErrorMessage = Type.Object({
  type: Type.Literal('error'),
  code: Type.String(),
  message: Type.String(),
});

export const ServerMessage = Type.Union([
  HelloMessage,
  SnapshotMessage,
  ResumedMessage,
  SessionMessage,
  CallStartedMessage,
  CallFinishedMessage,
  ControlMessage,
  PresenceMessage,
  ResizeMessage,
  ControlRequestedMessage,
  ControlRequestClosedMessage,
  ControlIdleMessage,
  SecretWarningMessage,
  ErrorMessage,
  ViewerJoinedMessage,
  ViewerLeftMessage,
  InputDroppedMessage,
]);
export type ServerMessage = Static<typeof ServerMessage>;

// ---- client → server ----------------------------------------------------------------------

export const TakeControlMessage = Type.Object(
  { type: Type.Literal('take_control') },
  { additionalProperties: false },
);
export const ReleaseControlMessage = Type.Object(
  { type: Type.Literal('release_control') },
  { additionalProperties: false },
);
/** Keystrokes from the controller, as the terminal produced them. */
export const InputMessage = Type.Object(
  { type: Type.Literal('input'), data: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const ClientResizeMessage = Type.Object(
  {
    type: Type.Literal('resize'),
    cols: Type.Integer({ minimum: MIN_COLS, maximum: MAX_COLS }),
    rows: Type.Integer({ minimum: MIN_ROWS, maximum: MAX_ROWS }),
  },
  { additionalProperties: false },
);
/** SIGINT to the shell's foreground process group. */
export const InterruptMessage = Type.Object(
  { type: Type.Literal('interrupt') },
  { additionalProperties: false },
);

/** Asks the controller for the keyboard (it is taken at once when nobody holds it). */
export const RequestControlMessage = Type.Object(
  { type: Type.Literal('request_control') },
  { additionalProperties: false },
);
/** The controller hands the keyboard to the viewer who asked. */
export const GrantControlMessage = Type.Object(
  { type: Type.Literal('grant_control'), to: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
/** The controller keeps the keyboard. */
export const DeclineControlMessage = Type.Object(
  { type: Type.Literal('decline_control'), to: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

/** The owner (or the admin) disconnects a link holder's connection; the link keeps working. */
export const DisconnectViewerMessage = Type.Object(
  { type: Type.Literal('disconnect_viewer'), viewer: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

/** The controller's answer to `secret_warning`: send the hidden answer anyway, or drop it. */
export const SecretAnswerMessage = Type.Object(
  { type: Type.Literal('secret_answer'), send: Type.Boolean() },
  { additionalProperties: false },
);

export const ClientMessage = Type.Union([
  TakeControlMessage,
  ReleaseControlMessage,
  InputMessage,
  ClientResizeMessage,
  InterruptMessage,
  RequestControlMessage,
  GrantControlMessage,
  DeclineControlMessage,
  DisconnectViewerMessage,
  SecretAnswerMessage,
]);
export type ClientMessage = Static<typeof ClientMessage>;

export const CLIENT_MESSAGE_TYPES = [
  'take_control',
  'release_control',
  'input',
  'resize',
  'interrupt',
  'request_control',
  'grant_control',
  'decline_control',
  'disconnect_viewer',
  'secret_answer',
] as const;

const serverMessageCheck = Compile(ServerMessage);
/** One validator per client message type, so an error names what is wrong with that type. */
const clientMessageChecks = {
  take_control: Compile(TakeControlMessage),
  release_control: Compile(ReleaseControlMessage),
  input: Compile(InputMessage),
  resize: Compile(ClientResizeMessage),
  interrupt: Compile(InterruptMessage),
  request_control: Compile(RequestControlMessage),
  grant_control: Compile(GrantControlMessage),
  decline_control: Compile(DeclineControlMessage),
  disconnect_viewer: Compile(DisconnectViewerMessage),
  secret_answer: Compile(SecretAnswerMessage),
} as const;

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: string };

/** Parses and validates one client text frame. */
export function parseClientMessage(text: string): Parsed<ClientMessage> {
  const value = parseJson(text);
  if (!value.ok) return value;
  const type = (value.message as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !Object.hasOwn(clientMessageChecks, type)) {
    return {
      ok: false,
      error: `unknown message type ${JSON.stringify(type ?? null)}; expected one of: ${CLIENT_MESSAGE_TYPES.join(', ')}`,
    };
  }
  const check = clientMessageChecks[type as ClientMessage['type']];
  if (check.Check(value.message)) return { ok: true, message: value.message as ClientMessage };
  const first = check.Errors(value.message)[0];
  return {
    ok: false,
    error: `invalid ${type} message${first ? `: ${first.instancePath || '/'} ${first.message}` : ''}`,
  };
}

/** Parses and validates one server text frame. */
export function parseServerMessage(text: string): Parsed<ServerMessage> {
  const value = parseJson(text);
  if (!value.ok) return value;
  if (serverMessageCheck.Check(value.message)) return { ok: true, message: value.message };
  return { ok: false, error: 'not a jumpseat live message' };
}

function parseJson(text: string): Parsed<unknown> {
  try {
    return { ok: true, message: JSON.parse(text) };
  } catch {
    return { ok: false, error: 'not JSON' };
  }
}

// ---- output frames (binary) ---------------------------------------------------------------

/** First byte of a binary output frame; the next 8 bytes are the offset (float64, BE). */
export const OUTPUT_FRAME = 1;
export const OUTPUT_HEADER_BYTES = 9;

export interface OutputFrame {
  /** Display-stream offset of the first byte of `data`. */
  readonly offset: number;
  readonly data: Uint8Array;
}

/** One frame of the bytes in `data` (or in its pieces, in order), copied once. */
export function encodeOutputFrame(
  offset: number,
  data: Uint8Array | readonly Uint8Array[],
): Uint8Array {
  const pieces = data instanceof Uint8Array ? [data] : data;
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const frame = new Uint8Array(OUTPUT_HEADER_BYTES + length);
  const view = new DataView(frame.buffer);
  view.setUint8(0, OUTPUT_FRAME);
  view.setFloat64(1, offset);
  let at = OUTPUT_HEADER_BYTES;
  for (const piece of pieces) {
    frame.set(piece, at);
    at += piece.length;
  }
  return frame;
}

export function decodeOutputFrame(frame: Uint8Array): OutputFrame | null {
  if (frame.length < OUTPUT_HEADER_BYTES || frame[0] !== OUTPUT_FRAME) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const offset = view.getFloat64(1);
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  return { offset, data: frame.subarray(OUTPUT_HEADER_BYTES) };
}

// ---- the dashboard stream: `GET /api/live` (WebSocket, server → client only) -------------

/** On join: every shell the server knows. */
export const SessionsMessage = Type.Object({
  type: Type.Literal('sessions'),
  sessions: Type.Array(SessionInfo),
});

/** A shell the server no longer lists. */
export const SessionRemovedMessage = Type.Object({
  type: Type.Literal('session_removed'),
  id: Type.String(),
});

/** `sessions` first, then `session` (a shell appeared or changed) and `session_removed`. */
export const DashboardMessage = Type.Union([
  SessionsMessage,
  SessionMessage,
  SessionRemovedMessage,
]);
export type DashboardMessage = Static<typeof DashboardMessage>;

const dashboardMessageCheck = Compile(DashboardMessage);

/** Parses and validates one dashboard stream frame. */
export function parseDashboardMessage(text: string): Parsed<DashboardMessage> {
  const value = parseJson(text);
  if (!value.ok) return value;
  if (dashboardMessageCheck.Check(value.message)) return { ok: true, message: value.message };
  return { ok: false, error: 'not a jumpseat dashboard message' };
}
