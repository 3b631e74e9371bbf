import { describe, expect, it } from 'vitest';
import { decodeLinkOutput, encodeLinkOutput } from '../../../shared/src/link.ts';
import {
  decodeRelayFrame,
  encodeRelayFrame,
  parseRelayDown,
  parseRelayUp,
} from './replica-protocol.ts';

describe('the replica link protocol', () => {
  it("carries a host's own binary frame behind the host's name, byte for byte", () => {
    const inner = encodeLinkOutput('shell-1', 4096, Buffer.from('héllo\n'));
    const relayed = decodeRelayFrame(encodeRelayFrame('büild-3', inner));
    expect(relayed?.host).toBe('büild-3');
    const output = decodeLinkOutput(relayed?.frame ?? new Uint8Array());
    expect(output?.offset).toBe(4096);
    expect(Buffer.from(output?.data ?? []).toString()).toBe('héllo\n');
    expect(decodeRelayFrame(Uint8Array.of(8, 0))).toBeNull();
    expect(decodeRelayFrame(Uint8Array.of(2, 1, 65))).toBeNull();
  });

  it("takes only messages of each side's own, with a valid host message inside", () => {
    const credit = { type: 'credit', shellId: 's', offset: 10 };
    expect(
      parseRelayDown(JSON.stringify({ type: 'control', host: 'h1', message: credit })),
    ).toEqual({ type: 'control', host: 'h1', message: credit });
    // A control message is not the dialling side's to send, nor a malformed host message.
    expect(
      parseRelayUp(JSON.stringify({ type: 'control', host: 'h1', message: credit })),
    ).toBeNull();
    expect(
      parseRelayUp(JSON.stringify({ type: 'host', host: 'h1', message: { type: 'shell_info' } })),
    ).toBeNull();
    expect(parseRelayUp('not json')).toBeNull();
    expect(parseRelayUp(JSON.stringify({ type: 'peer_hello', replica: 'r-1' }))).toEqual({
      type: 'peer_hello',
      replica: 'r-1',
    });
  });
});
