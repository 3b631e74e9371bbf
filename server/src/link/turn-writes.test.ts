import { Duplex } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LATER_MS, TurnWrites } from './turn-writes.ts';

/** A socket's stand-in that records what each write to "the kernel" carried. */
function recordingSocket(): { socket: Duplex; writes: string[][] } {
  const writes: string[][] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  return { socket, writes };
}

describe('TurnWrites', () => {
  it("sends one turn's writes in one write, and the next turn's in another", async () => {
    const { socket, writes } = recordingSocket();
    const turn = new TurnWrites(socket);
    for (const text of ['story', 'output', 'answer']) {
      turn.hold();
      socket.write(text);
    }
    expect(writes).toEqual([]);
    await nextTurn();
    turn.hold();
    socket.write('next');
    await nextTurn();
    expect(writes).toEqual([['story', 'output', 'answer'], ['next']]);
  });

  it('sends a put-off message before the next write, in order', async () => {
    const { socket, writes } = recordingSocket();
    const turn = new TurnWrites(socket);
    turn.putOff(() => socket.write('ack 1'));
    turn.putOff(() => socket.write('ack 2'));
    await nextTurn();
    expect(writes).toEqual([]);
    turn.hold();
    socket.write('call');
    await nextTurn();
    expect(writes).toEqual([['ack 1', 'ack 2', 'call']]);
    // Sent once: the timer that would have sent them finds nothing.
    await new Promise((resolve) => setTimeout(resolve, LATER_MS * 3));
    expect(writes).toHaveLength(1);
  });

  it(`sends a put-off message within ${LATER_MS} ms when nothing else is written`, async () => {
    const { socket, writes } = recordingSocket();
    const turn = new TurnWrites(socket);
    const start = performance.now();
    turn.putOff(() => socket.write('ack'));
    while (writes.length === 0 && performance.now() - start < 2_000) await nextTurn();
    expect(writes).toEqual([['ack']]);
    // Not at once: it waited for a write to go with.
    expect(performance.now() - start).toBeGreaterThanOrEqual(LATER_MS - 1);
  });

  it('writes through a destroyed socket without corking it', async () => {
    const { socket, writes } = recordingSocket();
    const turn = new TurnWrites(socket);
    socket.destroy();
    turn.hold();
    expect(socket.writableCorked).toBe(0);
    await nextTurn();
    expect(writes).toEqual([]);
  });
});
