import { describe, expect, it } from 'vitest';
import { LINK_OUTPUT_WINDOW_BYTES } from '../../../shared/src/link.ts';
import { ShellInbox } from './output-inbox.ts';
import { LinkOutbox } from './output-outbox.ts';

/** Moves every frame the outbox gives into the inbox, acknowledging as the inbox credits. */
function drain(outbox: LinkOutbox, inboxes: Map<string, ShellInbox>, got: Map<string, Buffer[]>) {
  for (let frames = 0; frames < 10_000; frames++) {
    const frame = outbox.take();
    if (frame === null) return frames;
    const inbox = inboxes.get(frame.shellId) as ShellInbox;
    const delivery = inbox.receive(frame.offset, frame.data);
    if (delivery !== null) got.get(frame.shellId)?.push(Buffer.from(delivery.data));
    const credit = delivery?.credit ?? inbox.flushCredit();
    if (credit !== null) outbox.ack(frame.shellId, credit);
  }
  throw new Error('the outbox never ran dry');
}

describe('the link output stream', () => {
  it('resumes after a cut at the offset the control plane has: no byte lost, none twice', () => {
    const outbox = new LinkOutbox();
    outbox.add('s', 0);
    const inbox = new ShellInbox(0);
    const got = new Map([['s', [] as Buffer[]]]);
    const sent: Buffer[] = [];
    let offset = 0;
    const produce = (count: number) => {
      for (let i = 0; i < count; i++) {
        const chunk = Buffer.from(`line ${offset}\n`);
        outbox.push('s', offset, chunk);
        sent.push(chunk);
        offset += chunk.length;
      }
    };
    produce(500);
    drain(outbox, new Map([['s', inbox]]), got);
    // Frames in flight are lost with the link: taken from the outbox, never received.
    produce(300);
    expect(outbox.take()).not.toBeNull();
    produce(300);
    // The link is back: the control plane names what it has, the host resends from there.
    outbox.resume(new Map([['s', inbox.offset]]));
    drain(outbox, new Map([['s', inbox]]), got);
    expect(Buffer.concat(got.get('s') ?? []).toString()).toBe(Buffer.concat(sent).toString());
  });

  it('drops a resent frame the control plane already had', () => {
    const inbox = new ShellInbox(0);
    expect(inbox.receive(0, Buffer.from('abc'))?.data).toEqual(Buffer.from('abc'));
    expect(inbox.receive(0, Buffer.from('abc'))).toBeNull();
    expect(Buffer.from(inbox.receive(1, Buffer.from('bcde'))?.data ?? [])).toEqual(
      Buffer.from('de'),
    );
    expect(inbox.receive(10, Buffer.from('x'))?.gapBytes).toBe(5);
  });

  it('keeps a flooding shell within its window so a quiet shell still gets its turn', () => {
    const outbox = new LinkOutbox();
    outbox.add('flood', 0);
    outbox.add('quiet', 0);
    const flood = Buffer.alloc(4 * LINK_OUTPUT_WINDOW_BYTES, 'y');
    outbox.push('flood', 0, flood);
    outbox.push('quiet', 0, Buffer.from('$ '));
    let floodBytes = 0;
    let quietSeenAfter = -1;
    for (let frames = 0; frames < 100; frames++) {
      const frame = outbox.take();
      if (frame === null) break;
      if (frame.shellId === 'quiet') quietSeenAfter = floodBytes;
      else floodBytes += frame.data.length;
    }
    // Without credit the flood stops at its window; the quiet shell went out on its first turn.
    expect(floodBytes).toBe(LINK_OUTPUT_WINDOW_BYTES);
    expect(quietSeenAfter).toBeLessThanOrEqual(64 * 1024);
    outbox.ack('flood', LINK_OUTPUT_WINDOW_BYTES);
    expect(outbox.take()?.offset).toBe(LINK_OUTPUT_WINDOW_BYTES);
  });
});
