/**
 * The link between a shell host (`jumpseat host --join URL`) and the control plane, defined
 * once: one WebSocket the host dials out on (`LINK_PATH`), multiplexing every shell of the
 * host. JSON text frames carry every message but output; a shell's output travels in binary
 * frames (`encodeLinkOutput`) with its display offset, so a resumed stream continues at an
 * exact byte and a flood is never inflated by JSON or base64.
 *
 * Flow: the host sends `hello` (the protocol versions it speaks, what it is and what it
 * runs); the control plane answers `welcome` (the version chosen, where to resume each
 * shell's output, which shells it gave up on) or `refused` and closes. Then calls go down
 * (`call_start`, `call_cancel`), results and shell news come up (each result acknowledged,
 * `call_ack`, from protocol 3: the host keeps it until then), and output comes up within
 * each shell's credit: the host sends at most `LINK_OUTPUT_WINDOW_BYTES` past the last offset
 * the control plane acknowledged (`credit`), so one flooding shell cannot fill the socket
 * ahead of the others.
 */
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { CallInfo, SessionInfo } from './api.ts';
import { Viewer } from './live.ts';

/** The link protocol this build speaks (2: viewers relayed to the host's live hub; 3: the
 *  control plane acknowledges each answer, `call_ack`). */
export const LINK_PROTOCOL_VERSION = 3;
/** The oldest link protocol this build still speaks (a control plane takes hosts from it). */
export const LINK_PROTOCOL_MIN_VERSION = 1;
/**
 * From this version on, the control plane acknowledges every answer it reads (`call_ack`), and
 * the host keeps an answer until then: one written into a link that had died unnoticed goes up
 * again on the next link, where before it was lost and its call failed.
 */
export const LINK_ANSWER_ACK_VERSION = 3;

/** Where a host dials in (WebSocket upgrade with its `host` token as a Bearer header). */
export const LINK_PATH = '/api/hosts/link';

/** Unacknowledged output bytes one shell may have on the link (its credit window). */
export const LINK_OUTPUT_WINDOW_BYTES = 256 * 1024;
/** The control plane acknowledges a shell's output at least every this many bytes. */
export const LINK_CREDIT_EVERY_BYTES = 32 * 1024;
/** The control plane pings each host this often (ms)… */
export const LINK_PING_MS = 2000;
/** …and either side drops a link it heard nothing on for this long (ms): a cut cable sends
 *  no FIN, so silence is how a dead link shows. */
export const LINK_SILENCE_MS = 7000;
/** How long a host's shells outlive its link by default (`--host-grace-ms`). */
export const DEFAULT_HOST_GRACE_MS = 60_000;
/** Text frames larger than this are refused (a command may be 1 MiB; its JSON a bit more). */
export const MAX_LINK_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Close codes of the link (4000–4999 are ours). */
export const LINK_CLOSE = {
  /** The host speaks no protocol version the control plane speaks. */
  incompatible: 4426,
  /** Another connection took this host's name (the newer one wins). */
  replaced: 4409,
  /** The host was forgotten (`DELETE /api/hosts/{name}`) or its token revoked. */
  forgotten: 4403,
  /** The control plane does not take hosts (it runs its shells itself). */
  notControlPlane: 4501,
  /** A message that does not follow the protocol. */
  protocol: 4400,
} as const;

const Labels = Type.Record(Type.String(), Type.String());

/** A live shell as its host reports it: the engine's session info and its output offset. */
export const LinkShell = Type.Object({
  info: SessionInfo,
  /** Display bytes the shell has produced so far. */
  offset: Type.Integer({ minimum: 0 }),
});
export type LinkShell = Static<typeof LinkShell>;

// ---- saved output files (the full-output route for a shell on a joined host) -------------
//
// A clipped call's whole output is saved on the host that ran it (TOOL-CONTRACT.md, "this
// file"); a person reads it through the control plane. `file_open` names the file (its agent
// and the engine's name for it); the host opens it safely and answers `file_opened` with its
// size, or `file_error`. Holding that handle, it waits for `file_read`: the span the control
// plane wants, which it can only resolve (an HTTP `Range`, a 416) once it knows the size. The
// bytes come up in binary chunk frames (`encodeLinkFileChunk`), at most
// `LINK_FILE_WINDOW_BYTES` past the last offset the control plane acknowledged
// (`file_credit`), so a 256 MiB file never sits whole in either side's memory, and a slow
// reader slows only its own transfer. Binary rather than base64 in JSON: the bytes are bytes,
// as a shell's output is, and base64 would add a third to them and a JSON parse per chunk.
// `file_close` ends a request early (the reader left); a request the control plane stopped
// speaking of (its link dropped) is dropped by the host after `LINK_FILE_IDLE_MS`. A host of an
// older build ignores `file_open`: the control plane stops waiting after its own deadline.

/** Unacknowledged bytes of one file transfer on the link (its credit window). */
export const LINK_FILE_WINDOW_BYTES = 1024 * 1024;
/** Bytes one file chunk frame carries at most: transfers and shells' output take turns finely. */
export const LINK_FILE_CHUNK_BYTES = 64 * 1024;
/** The host drops a file request it heard nothing of for this long (ms): longer than the
 *  link's silence limit, so only a request whose link is gone (or a forgetful peer) ends so. */
export const LINK_FILE_IDLE_MS = 30_000;

/** Request ids head a binary frame: printable ASCII, like shell ids (the control plane's are
 *  UUIDs). */
const FileRequestId = Type.String({ pattern: '^[\\x21-\\x7e]{1,255}$' });

/** Control plane → host: open a saved output of `agent` named `name` (as the engine names it). */
export const LinkFileOpen = Type.Object({
  type: Type.Literal('file_open'),
  requestId: FileRequestId,
  agent: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
});

/** Control plane → host: send the bytes from `start` up to (not including) `end`. */
export const LinkFileRead = Type.Object({
  type: Type.Literal('file_read'),
  requestId: FileRequestId,
  start: Type.Integer({ minimum: 0 }),
  end: Type.Integer({ minimum: 0 }),
});

/** Control plane → host: it has every byte of the transfer before `offset`. */
export const LinkFileCredit = Type.Object({
  type: Type.Literal('file_credit'),
  requestId: FileRequestId,
  offset: Type.Integer({ minimum: 0 }),
});

/** Control plane → host: the transfer is no longer wanted; the host closes the file. */
export const LinkFileClose = Type.Object({
  type: Type.Literal('file_close'),
  requestId: FileRequestId,
});

/** Host → control plane: the file is open (the host holds it until read or closed). */
export const LinkFileOpened = Type.Object({
  type: Type.Literal('file_opened'),
  requestId: FileRequestId,
  size: Type.Integer({ minimum: 0 }),
});

/**
 * Host → control plane: the request ends without (more) bytes. `not_found`: no saved output of
 * that agent by that name (or not a plain file of the host's); `busy`: the host serves too many
 * transfers at once; `failed`: reading failed or the file shrank mid-transfer.
 */
export const LinkFileError = Type.Object({
  type: Type.Literal('file_error'),
  requestId: FileRequestId,
  reason: Type.Union([Type.Literal('not_found'), Type.Literal('busy'), Type.Literal('failed')]),
  message: Type.String(),
});

export const LinkFileControlMessage = Type.Union([
  LinkFileOpen,
  LinkFileRead,
  LinkFileCredit,
  LinkFileClose,
]);
export type LinkFileControlMessage = Static<typeof LinkFileControlMessage>;

export const LinkFileHostMessage = Type.Union([LinkFileOpened, LinkFileError]);
export type LinkFileHostMessage = Static<typeof LinkFileHostMessage>;

/** First byte of a file chunk frame (output frames are `LINK_OUTPUT_FRAME`, 2); then the
 *  request id's length (1 byte), the id (ASCII), the offset (float64, big-endian), the bytes. */
export const LINK_FILE_FRAME = 3;
const FILE_FRAME_ID_AT = 2;
const FILE_FRAME_OFFSET_BYTES = 8;
const FILE_REQUEST_ID = /^[\x21-\x7e]{1,255}$/;

export interface LinkFileChunk {
  readonly requestId: string;
  /** Where `data` starts in the file. */
  readonly offset: number;
  readonly data: Uint8Array;
}

export function encodeLinkFileChunk(
  requestId: string,
  offset: number,
  data: Uint8Array,
): Uint8Array {
  if (!FILE_REQUEST_ID.test(requestId)) {
    throw new Error('a file chunk frame takes a printable ASCII request id of at most 255 bytes');
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error('a file chunk frame takes a non-negative integer offset');
  }
  const head = FILE_FRAME_ID_AT + requestId.length + FILE_FRAME_OFFSET_BYTES;
  const frame = new Uint8Array(head + data.length);
  const view = new DataView(frame.buffer);
  view.setUint8(0, LINK_FILE_FRAME);
  view.setUint8(1, requestId.length);
  frame.set(
    Uint8Array.from(requestId, (char) => char.charCodeAt(0)),
    FILE_FRAME_ID_AT,
  );
  view.setFloat64(FILE_FRAME_ID_AT + requestId.length, offset);
  frame.set(data, head);
  return frame;
}

/** The chunk a frame carries; null for any other frame or a malformed one. */
export function decodeLinkFileChunk(frame: Uint8Array): LinkFileChunk | null {
  if (frame.length < FILE_FRAME_ID_AT || frame[0] !== LINK_FILE_FRAME) return null;
  const idLength = frame[1] ?? 0;
  const head = FILE_FRAME_ID_AT + idLength + FILE_FRAME_OFFSET_BYTES;
  if (idLength === 0 || frame.length < head) return null;
  const requestId = String.fromCharCode(
    ...frame.subarray(FILE_FRAME_ID_AT, FILE_FRAME_ID_AT + idLength),
  );
  if (!FILE_REQUEST_ID.test(requestId)) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const offset = view.getFloat64(FILE_FRAME_ID_AT + idLength);
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  return { requestId, offset, data: frame.subarray(head) };
}

// ---- end of saved output files ------------------------------------------------------------

// ---- host → control plane -----------------------------------------------------------------

export const LinkHello = Type.Object({
  type: Type.Literal('hello'),
  /** Every link protocol version the host speaks. */
  versions: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1 }),
  /** The name the host was started with (`--name`); its token's name binds it, so a host
   *  whose `--name` differs from its token's is refused. Absent: the token's name. */
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  labels: Labels,
  /** Live shells at most (`--max-shells`). */
  maxShells: Type.Integer({ minimum: 1 }),
  /** The dialects the host can run (pwsh only where PowerShell is installed). */
  dialects: Type.Array(Type.Union([Type.Literal('bash'), Type.Literal('pwsh')])),
  /** The jumpseat version the host runs. */
  engineVersion: Type.String(),
  /** The agents whose workspace the host holds (placement prefers it for them). */
  workspaces: Type.Array(Type.String()),
  /** Its shells (live ones lived through the outage or a control-plane restart; ended ones
   *  say how they ended meanwhile). */
  shells: Type.Array(LinkShell),
  /** Calls it still runs or whose results it still holds (their ids). */
  calls: Type.Array(Type.String()),
  /** Which of the host's links this is: one more at each link it makes (from 1 at its start).
   *  A replica that still holds an older link of the host lets it go to the one relaying a
   *  newer (docs/high-availability.md). Absent from hosts that predate it. */
  link: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The host process (a random id made at its start): its story count (`seq`) is this
   *  process's. Absent from hosts that predate it. */
  instance: Type.Optional(Type.String({ maxLength: 100 })),
});

export const LinkShellOpened = Type.Object({
  type: Type.Literal('shell_opened'),
  shell: LinkShell,
});

/** A shell's info changed (state, command, size, ending). */
export const LinkShellInfo = Type.Object({
  type: Type.Literal('shell_info'),
  info: SessionInfo,
});

/** A shell is gone from the host (its info says how it ended). */
export const LinkShellClosed = Type.Object({
  type: Type.Literal('shell_closed'),
  info: SessionInfo,
});

export const LinkCallResult = Type.Object({
  type: Type.Literal('call_result'),
  callId: Type.String(),
  /** The exact model-facing text. */
  output: Type.String(),
});

/** A call the engine refused or could not finish: the coded error, as the engine raised it. */
export const LinkCallError = Type.Object({
  type: Type.Literal('call_error'),
  callId: Type.String(),
  code: Type.String(),
  status: Type.Integer(),
  message: Type.String(),
});

/**
 * What happened in a shell, for the control plane's history (its calls, who took the controls,
 * its recording's markers): the host's shell events as they fire. Hidden keys never come up.
 */
export const LinkShellStory = Type.Object({
  type: Type.Literal('shell_story'),
  shellId: Type.String(),
  /**
   * From protocol 3: the host's count of the stories it sent (from 1 at its start). The
   * control plane acknowledges up to it (`call_ack`'s `stories`) and drops a story it had.
   */
  seq: Type.Optional(Type.Integer({ minimum: 1 })),
  story: Type.Union([
    Type.Object({ kind: Type.Literal('call_started'), command: Type.String() }),
    Type.Object({ kind: Type.Literal('call_finished'), call: CallInfo }),
    Type.Object({ kind: Type.Literal('control'), viewer: Type.Union([Viewer, Type.Null()]) }),
    Type.Object({ kind: Type.Literal('interrupt'), viewer: Viewer }),
    Type.Object({ kind: Type.Literal('input'), keys: Type.String() }),
    Type.Object({
      kind: Type.Literal('secret'),
      by: Viewer,
      answer: Type.Union([Type.Literal('sent'), Type.Literal('withheld')]),
    }),
  ]),
});
export type LinkShellStory = Static<typeof LinkShellStory>;

/** The host ended a relayed viewer (its join was refused, the viewer was disconnected or
 *  stopped reading); the control plane closes the person's socket with this code and reason. */
export const LinkViewerClosed = Type.Object({
  type: Type.Literal('viewer_closed'),
  viewerId: Type.String(),
  code: Type.Integer({ minimum: 1000, maximum: 4999 }),
  reason: Type.String({ maxLength: 200 }),
});

export const HostMessage = Type.Union([
  LinkHello,
  LinkFileHostMessage,
  LinkShellOpened,
  LinkShellInfo,
  LinkShellClosed,
  LinkCallResult,
  LinkCallError,
  LinkShellStory,
  LinkViewerClosed,
]);
export type HostMessage = Static<typeof HostMessage>;

// ---- control plane → host -----------------------------------------------------------------

export const LinkResume = Type.Object({
  shellId: Type.String(),
  /** The control plane has every output byte before this offset. */
  offset: Type.Integer({ minimum: 0 }),
});
export type LinkResume = Static<typeof LinkResume>;

export const LinkWelcome = Type.Object({
  type: Type.Literal('welcome'),
  version: Type.Integer({ minimum: 1 }),
  /** How long the host keeps its shells without a link before ending them (ms). */
  graceMs: Type.Integer({ minimum: 1 }),
  /** Where each shell's output resumes; a shell not listed resumes at its current offset. */
  resume: Type.Array(LinkResume),
  /** Shells the control plane declared lost: the host ends them. */
  lost: Type.Array(Type.String()),
});

export const LinkRefused = Type.Object({
  type: Type.Literal('refused'),
  message: Type.String(),
});

export const LinkCallStart = Type.Object({
  type: Type.Literal('call_start'),
  callId: Type.String({ minLength: 1 }),
  agent: Type.String(),
  dialect: Type.Union([Type.Literal('bash'), Type.Literal('pwsh')]),
  command: Type.String(),
});

export const LinkCallCancel = Type.Object({
  type: Type.Literal('call_cancel'),
  callId: Type.String(),
});

/**
 * The control plane has the call's answer: the host may let it go (protocol 3). An empty
 * `callId` names no call: the acknowledgement is for `stories` only (sent every so many
 * stories, so a host whose shells see only people at the keyboard keeps few).
 */
export const LinkCallAck = Type.Object({
  type: Type.Literal('call_ack'),
  callId: Type.String(),
  /** And every story up to this `seq`: the host may let those go too. */
  stories: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** Keys for a shell (a person at the controls on the control plane). */
export const LinkInput = Type.Object({
  type: Type.Literal('input'),
  shellId: Type.String(),
  data: Type.String(),
});

export const LinkResize = Type.Object({
  type: Type.Literal('resize'),
  shellId: Type.String(),
  cols: Type.Integer({ minimum: 2, maximum: 500 }),
  rows: Type.Integer({ minimum: 2, maximum: 300 }),
});

/** End a shell (its process tree); the host answers `shell_info` with its ending. */
export const LinkShellClose = Type.Object({
  type: Type.Literal('shell_close'),
  shellId: Type.String(),
});

/** The control plane has every output byte of the shell before `offset`. */
export const LinkCredit = Type.Object({
  type: Type.Literal('credit'),
  shellId: Type.String(),
  offset: Type.Integer({ minimum: 0 }),
});

// ---- relayed viewers (control plane → host) -------------------------------------------
// A person watching (or at the controls of) a shell on a joined host: the control plane
// authenticates them and decides what they may do; the host's own live hub serves them as it
// serves a local viewer (snapshot, output, presence, control). Their client frames go down as
// `viewer_message`; what the hub sends them comes up in binary viewer frames
// (`encodeViewerFrame`), forwarded to their socket byte for byte.

/** A person joins a shell's live stream through the control plane. */
export const LinkViewerOpen = Type.Object({
  type: Type.Literal('viewer_open'),
  viewerId: Type.String({ minLength: 1, maxLength: 100 }),
  shellId: Type.String(),
  viewer: Viewer,
  tokenId: Type.String(),
  canControl: Type.Boolean(),
  inCharge: Type.Boolean(),
  /** Resume the display stream at this offset (`?from=N`). */
  from: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** One client text frame of a relayed viewer, already size-checked and parsed once. */
export const LinkViewerMessage = Type.Object({
  type: Type.Literal('viewer_message'),
  viewerId: Type.String(),
  text: Type.String(),
});

/** The person's socket closed (or their access ended): the host lets the viewer go. */
export const LinkViewerClose = Type.Object({
  type: Type.Literal('viewer_close'),
  viewerId: Type.String(),
});

export const ControlMessage = Type.Union([
  LinkWelcome,
  LinkFileControlMessage,
  LinkRefused,
  LinkCallStart,
  LinkCallCancel,
  LinkCallAck,
  LinkInput,
  LinkResize,
  LinkShellClose,
  LinkCredit,
  LinkViewerOpen,
  LinkViewerMessage,
  LinkViewerClose,
]);
export type ControlMessage = Static<typeof ControlMessage>;

export type LinkParsed<T> = { ok: true; message: T } | { ok: false; error: string };

const hostCheck = Compile(HostMessage);
const controlCheck = Compile(ControlMessage);

/** Parses and validates one host text frame. */
export function parseHostMessage(text: string): LinkParsed<HostMessage> {
  return parseWith(text, hostCheck, 'host');
}

/** Parses and validates one control-plane text frame. */
export function parseControlMessage(text: string): LinkParsed<ControlMessage> {
  return parseWith(text, controlCheck, 'control-plane');
}

function parseWith<T>(
  text: string,
  check: { Check(value: unknown): boolean; Errors(value: unknown): { message: string }[] },
  side: string,
): LinkParsed<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (check.Check(value)) return { ok: true, message: value as T };
  const type = (value as { type?: unknown } | null)?.type;
  return { ok: false, error: `not a valid ${side} link message (type ${JSON.stringify(type)})` };
}

/**
 * The version both sides speak, the newest of them; null when they share none. The refusal
 * names both sides' versions (see `incompatibleMessage`).
 */
export function chooseLinkVersion(hostVersions: readonly number[]): number | null {
  let best: number | null = null;
  for (const version of hostVersions) {
    if (version < LINK_PROTOCOL_MIN_VERSION || version > LINK_PROTOCOL_VERSION) continue;
    if (best === null || version > best) best = version;
  }
  return best;
}

export function incompatibleMessage(hostVersions: readonly number[]): string {
  const ours = versionRange(LINK_PROTOCOL_MIN_VERSION, LINK_PROTOCOL_VERSION);
  return `incompatible link protocol: the host speaks version ${hostVersions.join(', ')}, this control plane speaks version ${ours}; upgrade the older side`;
}

/** The link protocol versions this build speaks, up to `newest` (default: all of them). */
export function linkVersionsUpTo(newest = LINK_PROTOCOL_VERSION): number[] {
  const versions: number[] = [];
  for (let v = LINK_PROTOCOL_MIN_VERSION; v <= newest; v++) versions.push(v);
  return versions;
}

function versionRange(low: number, high: number): string {
  return low === high ? `${high}` : `${low}-${high}`;
}

// ---- output frames (binary) ---------------------------------------------------------------

/** First byte of a link output frame; then the shell id's length (1 byte), the id (UTF-8),
 *  the offset (float64, big-endian) and the bytes. */
export const LINK_OUTPUT_FRAME = 2;
const ID_LENGTH_BYTES = 1;
const OFFSET_BYTES = 8;
const MAX_SHELL_ID_BYTES = 255;

export interface LinkOutput {
  readonly shellId: string;
  readonly offset: number;
  readonly data: Uint8Array;
}

/** Shell ids on the link are printable ASCII (the engine's are UUIDs). */
const SHELL_ID = /^[\x21-\x7e]{1,255}$/;

export function encodeLinkOutput(shellId: string, offset: number, data: Uint8Array): Uint8Array {
  if (!SHELL_ID.test(shellId) || shellId.length > MAX_SHELL_ID_BYTES) {
    throw new Error('a link frame takes a printable ASCII shell id of at most 255 bytes');
  }
  const id = Uint8Array.from(shellId, (char) => char.charCodeAt(0));
  const head = 1 + ID_LENGTH_BYTES + id.length + OFFSET_BYTES;
  const frame = new Uint8Array(head + data.length);
  const view = new DataView(frame.buffer);
  view.setUint8(0, LINK_OUTPUT_FRAME);
  view.setUint8(1, id.length);
  frame.set(id, 2);
  view.setFloat64(2 + id.length, offset);
  frame.set(data, head);
  return frame;
}

export function decodeLinkOutput(frame: Uint8Array): LinkOutput | null {
  if (frame.length < 2 || frame[0] !== LINK_OUTPUT_FRAME) return null;
  const idLength = frame[1] ?? 0;
  const head = 1 + ID_LENGTH_BYTES + idLength + OFFSET_BYTES;
  if (frame.length < head) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const offset = view.getFloat64(2 + idLength);
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  return {
    shellId: String.fromCharCode(...frame.subarray(2, 2 + idLength)),
    offset,
    data: frame.subarray(head),
  };
}

// ---- relayed viewer frames (binary, host → control plane) -------------------------------

/** First byte of a frame for a relayed viewer: a binary (output) frame, or a text frame. */
export const LINK_VIEWER_BINARY_FRAME = 4;
export const LINK_VIEWER_TEXT_FRAME = 5;

export interface LinkViewerFrame {
  readonly viewerId: string;
  readonly binary: boolean;
  readonly payload: Uint8Array;
}

/** `[kind][id length][viewer id (ASCII)][body]`: the body goes to the person as is (a text
 *  frame's is UTF-8). */
export function encodeViewerFrame(viewerId: string, body: Uint8Array, binary: boolean): Uint8Array {
  if (!SHELL_ID.test(viewerId)) throw new Error('a viewer id is printable ASCII, 1–255 bytes');
  const frame = new Uint8Array(2 + viewerId.length + body.length);
  frame[0] = binary ? LINK_VIEWER_BINARY_FRAME : LINK_VIEWER_TEXT_FRAME;
  frame[1] = viewerId.length;
  for (let i = 0; i < viewerId.length; i++) frame[2 + i] = viewerId.charCodeAt(i);
  frame.set(body, 2 + viewerId.length);
  return frame;
}

export function decodeViewerFrame(frame: Uint8Array): LinkViewerFrame | null {
  const kind = frame[0];
  if (frame.length < 2 || (kind !== LINK_VIEWER_BINARY_FRAME && kind !== LINK_VIEWER_TEXT_FRAME))
    return null;
  const idLength = frame[1] ?? 0;
  if (idLength === 0 || frame.length < 2 + idLength) return null;
  return {
    viewerId: String.fromCharCode(...frame.subarray(2, 2 + idLength)),
    binary: kind === LINK_VIEWER_BINARY_FRAME,
    payload: frame.subarray(2 + idLength),
  };
}
