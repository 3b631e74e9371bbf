/**
 * The link between two replicas (`REPLICA_LINK_PATH`): one WebSocket that replica A dials to
 * replica B, on which A relays the links of the hosts joined to A, so that B reaches them as
 * if they had joined B. Each relayed host's link is the host link protocol itself
 * (shared/src/link.ts), wrapped with the host's name: A offers a host with the hello it builds
 * from what it knows (`offer`), then forwards the host's messages (`host`), and B answers as
 * it answers a host (`control`: the welcome, calls, viewers, keys, credit). Binary frames (a
 * shell's output, a viewer's frames, a file's chunks) travel as the host's own frames behind
 * the host's name (`encodeRelayFrame`). A host whose link to A drops is `host_down` on B: its
 * grace period starts there too. B stops taking a host from A with `release`.
 *
 * Each replica dials every other, so a pair has two links, each relaying one side's hosts:
 * the dialling side plays the host, as a host dials its control plane.
 */
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ControlMessage, HostMessage, LinkHello } from '../../../shared/src/link.ts';

/** Where a replica dials another (WebSocket upgrade, the cluster's secret as a Bearer header). */
export const REPLICA_LINK_PATH = '/api/replicas/link';

const HostName = Type.String({ minLength: 1, maxLength: 100 });

/** A → B, first: who is dialling. */
const PeerHello = Type.Object({
  type: Type.Literal('peer_hello'),
  replica: Type.String({ minLength: 1, maxLength: 100 }),
});

/** A → B: a host joined to A, as its hello would say it (shells at the offsets A has). */
const Offer = Type.Object({
  type: Type.Literal('offer'),
  host: HostName,
  /** The host's token, so that B binds its name as A did. */
  tokenId: Type.String(),
  hello: LinkHello,
});

/** A → B: a message of the host's. */
const FromHost = Type.Object({
  type: Type.Literal('host'),
  host: HostName,
  message: HostMessage,
});

/** A → B: the host's link to A dropped. */
const HostDown = Type.Object({ type: Type.Literal('host_down'), host: HostName });

export const RelayUpMessage = Type.Union([PeerHello, Offer, FromHost, HostDown]);
export type RelayUpMessage = Static<typeof RelayUpMessage>;

/** B → A: a message for the host. */
const ToHost = Type.Object({
  type: Type.Literal('control'),
  host: HostName,
  message: ControlMessage,
});

/** B → A: B no longer takes this host from A (it refused it, or another link replaced it). */
const Release = Type.Object({ type: Type.Literal('release'), host: HostName });

export const RelayDownMessage = Type.Union([ToHost, Release]);
export type RelayDownMessage = Static<typeof RelayDownMessage>;

const upCheck = Compile(RelayUpMessage);
const downCheck = Compile(RelayDownMessage);

/** A frame from the dialling replica; null when it does not follow the protocol. */
export function parseRelayUp(text: string): RelayUpMessage | null {
  return parseWith(text, upCheck);
}

/** A frame from the dialled replica; null when it does not follow the protocol. */
export function parseRelayDown(text: string): RelayDownMessage | null {
  return parseWith(text, downCheck);
}

function parseWith<T>(text: string, check: { Check(value: unknown): boolean }): T | null {
  try {
    const value: unknown = JSON.parse(text);
    return check.Check(value) ? (value as T) : null;
  } catch {
    return null;
  }
}

/** First byte of a relayed binary frame; then the host name's length (1 byte), its UTF-8,
 *  and the host's own frame (output, viewer or file chunk) as it came. */
export const RELAY_FRAME = 8;

export function encodeRelayFrame(host: string, frame: Uint8Array): Uint8Array {
  const name = Buffer.from(host, 'utf8');
  if (name.length === 0 || name.length > 255) throw new Error('a host name is 1-255 bytes');
  const out = Buffer.allocUnsafe(2 + name.length + frame.length);
  out[0] = RELAY_FRAME;
  out[1] = name.length;
  name.copy(out, 2);
  out.set(frame, 2 + name.length);
  return out;
}

export function decodeRelayFrame(
  bytes: Uint8Array,
): { readonly host: string; readonly frame: Uint8Array } | null {
  if (bytes.length < 3 || bytes[0] !== RELAY_FRAME) return null;
  const length = bytes[1] ?? 0;
  if (length === 0 || bytes.length < 2 + length) return null;
  return {
    host: Buffer.from(bytes.subarray(2, 2 + length)).toString('utf8'),
    frame: bytes.subarray(2 + length),
  };
}
