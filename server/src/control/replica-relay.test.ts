import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../../shared/src/api.ts';
import {
  type ControlMessage,
  decodeLinkOutput,
  type HostMessage,
  LINK_OUTPUT_WINDOW_BYTES,
  LINK_PROTOCOL_VERSION,
} from '../../../shared/src/link.ts';
import { HostDirectory, type JoinedHost } from './joined-hosts.ts';
import { decodeRelayFrame, type RelayUpMessage } from './replica-protocol.ts';
import { PeerRelay, type PeerSocket } from './replica-relay.ts';

const SHELL = '0b6c3a52-5d2f-4bd1-9a59-000000000001';

function info(): SessionInfo {
  return {
    id: SHELL,
    agent: 'a1',
    owner: null,
    dialect: 'bash',
    state: 'idle',
    command: null,
    since: null,
    lastExitCode: null,
    pid: 1,
    cols: 120,
    rows: 40,
    controller: null,
    viewers: 0,
    startedAt: new Date().toISOString(),
    endedAt: null,
    ending: null,
  };
}

/**
 * A directory with one host (linked here) running one shell at offset 0; `instance` is the host
 * process its hello names.
 */
function joinedHost(instance = 'process-1'): {
  directory: HostDirectory;
  host: JoinedHost;
  toHost: ControlMessage[];
} {
  const directory = new HostDirectory(60_000);
  const toHost: ControlMessage[] = [];
  const host = join(directory, instance, (message) => toHost.push(message));
  return { directory, host, toHost };
}

/** Host h1 (re)joins `directory` with its shell, from host process `instance`. */
function join(
  directory: HostDirectory,
  instance: string,
  send: (message: ControlMessage) => void = () => undefined,
): JoinedHost {
  const answer = directory.join(
    { send, sendLater: send, close: () => undefined },
    { id: 'token-1', name: 'h1' },
    {
      type: 'hello',
      versions: [LINK_PROTOCOL_VERSION],
      labels: {},
      maxShells: 10,
      dialects: ['bash'],
      engineVersion: 'test',
      workspaces: ['a1'],
      shells: [{ info: info(), offset: 0 }],
      calls: [],
      instance,
    },
  );
  if (!('host' in answer)) throw new Error(answer.refusal);
  return answer.host;
}

/** A peer's end that records what it was sent: messages, and output bytes by offset. */
function peerEnd(): PeerSocket & { messages: RelayUpMessage[]; bytes: Buffer; at: number[] } {
  const end = {
    messages: [] as RelayUpMessage[],
    bytes: Buffer.alloc(0),
    at: [] as number[],
    send(message: RelayUpMessage) {
      end.messages.push(message);
    },
    sendBinary(frame: Uint8Array) {
      const relayed = decodeRelayFrame(frame);
      const output = relayed === null ? null : decodeLinkOutput(relayed.frame);
      if (output === null) throw new Error('not a relayed output frame');
      end.at.push(output.offset);
      end.bytes = Buffer.concat([end.bytes, output.data]);
    },
  };
  return end;
}

function hostOutput(directory: HostDirectory, host: JoinedHost, offset: number, bytes: number) {
  const data = Buffer.alloc(bytes, 0x61 + (offset % 26));
  directory.output(host, { shellId: SHELL, offset, data });
  return data;
}

/** The peer welcomes host h1 at link protocol `version`, its shell's output from `offset`. */
function welcome(relay: PeerRelay, offset: number, version = 2): void {
  relay.fromPeer({
    type: 'control',
    host: 'h1',
    message: {
      type: 'welcome',
      version,
      graceMs: 60_000,
      resume: [{ shellId: SHELL, offset }],
      lost: [],
    },
  });
}

describe('PeerRelay', () => {
  it('sends a peer at most its own window, while the host is credited for every byte', () => {
    const { directory, host, toHost } = joinedHost();
    const relay = new PeerRelay('peer-b', directory);
    const shell = host.shells.get(SHELL);
    shell?.onOutput.on(({ offset, data }) => relay.output(shell, offset, data));
    const peer = peerEnd();
    relay.attach(peer);
    expect(peer.messages[0]).toMatchObject({ type: 'offer', host: 'h1', tokenId: 'token-1' });
    welcome(relay, 0);
    const total = 3 * LINK_OUTPUT_WINDOW_BYTES;
    for (let offset = 0; offset < total; offset += 16 * 1024)
      hostOutput(directory, host, offset, 16 * 1024);
    // The peer never credited: it has its window and no more…
    expect(peer.bytes.length).toBe(LINK_OUTPUT_WINDOW_BYTES);
    // …while this replica took (and credited the host for) everything.
    const credits = toHost
      .filter((m) => m.type === 'credit')
      .map((m) => (m as { offset: number }).offset);
    expect(Math.max(...credits)).toBe(total);
    relay.fromPeer({
      type: 'control',
      host: 'h1',
      message: { type: 'credit', shellId: SHELL, offset: LINK_OUTPUT_WINDOW_BYTES },
    });
    expect(peer.bytes.length).toBe(2 * LINK_OUTPUT_WINDOW_BYTES);
  });

  it('resumes a peer whose link dropped at the offset it names: no byte lost, none twice', () => {
    const { directory, host } = joinedHost();
    const relay = new PeerRelay('peer-b', directory);
    const shell = host.shells.get(SHELL);
    shell?.onOutput.on(({ offset, data }) => relay.output(shell, offset, data));
    const sent: Buffer[] = [];
    const first = peerEnd();
    relay.attach(first);
    welcome(relay, 0);
    sent.push(hostOutput(directory, host, 0, 1000));
    // The peer had only the first 600 bytes when its link dropped.
    relay.detach(first);
    sent.push(hostOutput(directory, host, 1000, 500));
    const second = peerEnd();
    relay.attach(second);
    expect(second.messages[0]).toMatchObject({
      type: 'offer',
      hello: { shells: [{ offset: 1500 }] },
    });
    expect(second.bytes.length).toBe(0);
    welcome(relay, 600);
    sent.push(hostOutput(directory, host, 1500, 100));
    expect(second.at[0]).toBe(600);
    expect(Buffer.concat([first.bytes.subarray(0, 600), second.bytes])).toEqual(
      Buffer.concat(sent),
    );
  });

  it("relays a host's answer only to the peer whose call it is, and keeps it while it is away", () => {
    const { directory, host, toHost } = joinedHost();
    const mine = new PeerRelay('peer-b', directory);
    const other = new PeerRelay('peer-c', directory);
    const [b, c] = [peerEnd(), peerEnd()];
    mine.attach(b);
    other.attach(c);
    welcome(mine, 0);
    welcome(other, 0);
    mine.fromPeer({
      type: 'control',
      host: 'h1',
      message: {
        type: 'call_start',
        callId: 'call-1',
        agent: 'a1',
        dialect: 'bash',
        command: 'true',
      },
    });
    expect(toHost.at(-1)).toMatchObject({ type: 'call_start', callId: 'call-1' });
    mine.detach(b);
    const result = { type: 'call_result', callId: 'call-1', output: 'done' } as const;
    mine.hostMessage(host, result);
    other.hostMessage(host, result);
    expect(c.messages.some((m) => m.type === 'host')).toBe(false);
    const back = peerEnd();
    mine.attach(back);
    expect(back.messages[0]).toMatchObject({ type: 'offer', hello: { calls: ['call-1'] } });
    welcome(mine, 0);
    expect(back.messages.at(-1)).toEqual({ type: 'host', host: 'h1', message: result });
  });

  it("keeps an answer for a peer of protocol 3 until it acknowledges it, and offers it again on the peer's next link", () => {
    const { directory, host, toHost } = joinedHost();
    const relay = new PeerRelay('peer-b', directory);
    const callId = '5e0f3c1a-0000-4000-8000-000000000001';
    const answer = { type: 'call_result', callId, output: 'done' } as const;
    const answersIn = (peer: ReturnType<typeof peerEnd>) =>
      peer.messages.filter((m) => m.type === 'host' && m.message.type === 'call_result');
    let peer = peerEnd();
    relay.attach(peer);
    // Every version up to the host's: a peer of an older build takes the host at its own.
    const offer = peer.messages[0];
    expect(offer?.type === 'offer' && offer.hello.versions).toEqual([1, 2, 3]);
    welcome(relay, 0, 3);
    startCall(relay, callId);
    relay.hostMessage(host, answer);
    expect(answersIn(peer)).toHaveLength(1);
    // The link died unnoticed with the answer on it: the next link's offer names the call, and
    // the answer goes again once the peer welcomes the host.
    let calls: unknown;
    ({ peer, calls } = relink(relay, peer));
    expect(calls).toEqual([callId]);
    welcome(relay, 0, 3);
    expect(answersIn(peer)).toEqual([{ type: 'host', host: 'h1', message: answer }]);
    // Acknowledged: it is let go, and the acknowledgement is not the host's business.
    const sentToHost = toHost.length;
    relay.fromPeer({ type: 'control', host: 'h1', message: { type: 'call_ack', callId } });
    expect(toHost).toHaveLength(sentToHost);
    ({ peer, calls } = relink(relay, peer));
    expect(calls).toEqual([]);
    welcome(relay, 0, 3);
    expect(answersIn(peer)).toEqual([]);
  });

  it('forwards an answer once to a peer that chose protocol 2 (it sends no acknowledgement)', () => {
    const { directory, host } = joinedHost();
    const relay = new PeerRelay('peer-b', directory);
    const callId = '5e0f3c1a-0000-4000-8000-000000000002';
    const first = peerEnd();
    relay.attach(first);
    welcome(relay, 0, 2);
    startCall(relay, callId);
    relay.hostMessage(host, { type: 'call_result', callId, output: 'done' });
    expect(first.messages.filter((m) => m.type === 'host')).toHaveLength(1);
    const { peer, calls } = relink(relay, first);
    expect(calls).toEqual([]);
    welcome(relay, 0, 2);
    expect(peer.messages.filter((m) => m.type === 'host')).toEqual([]);
  });
});

/** The peer starts call `callId` on host h1 through the relay. */
function startCall(relay: PeerRelay, callId: string): void {
  relay.fromPeer({
    type: 'control',
    host: 'h1',
    message: { type: 'call_start', callId, agent: 'a1', dialect: 'bash', command: 'true' },
  });
}

/** The peer's link dies and a new one comes: the new end, and the calls its offer names. */
function relink(
  relay: PeerRelay,
  old: PeerSocket,
): { peer: ReturnType<typeof peerEnd>; calls: unknown } {
  relay.detach(old);
  const peer = peerEnd();
  relay.attach(peer);
  const offer = peer.messages[0];
  return { peer, calls: offer?.type === 'offer' ? offer.hello.calls : undefined };
}

/**
 * A host's stories (calls, control changes, keys) counted per host process (`seq`, link
 * protocol 3), as every replica reads them: one sent again on a new link, unacknowledged when
 * the last one died, is told once; a restarted host process counts from 1 again and is heard.
 * (That the host sends them again: hosts.test.ts, a link that dies unnoticed.)
 */
describe("a host's stories", () => {
  const story = (seq: number, id: string): HostMessage => ({
    type: 'shell_story',
    shellId: SHELL,
    seq,
    story: {
      kind: 'call_finished',
      call: {
        id,
        sessionId: SHELL,
        command: 'true',
        output: '',
        exitCode: 0,
        outcome: 'completed',
        startedAt: new Date().toISOString(),
        durationMs: 1,
      },
    },
  });
  /**
   * Stories 1 and 2 on a link of host process-1; then h1 joins again from `instance` and sends
   * `after` ([seq, call id]): the ids of the calls the shell's story told, in order.
   */
  const across = (instance: string, after: [number, string][]): string[] => {
    const { directory, host } = joinedHost('process-1');
    const ids: string[] = [];
    host.shells.get(SHELL)?.story.onCallFinished.on((call) => ids.push(call.id));
    directory.received(host, story(1, 'c1'));
    directory.received(host, story(2, 'c2'));
    join(directory, instance);
    for (const [seq, id] of after) directory.received(host, story(seq, id));
    return ids;
  };

  it('are told once when sent again on a new link of the same host process', () => {
    expect(
      across('process-1', [
        [2, 'c2'],
        [3, 'c3'],
      ]),
    ).toEqual(['c1', 'c2', 'c3']);
  });

  it('of a restarted host process count from 1 again and are heard', () => {
    expect(across('process-2', [[1, 'c3']])).toEqual(['c1', 'c2', 'c3']);
  });
});
