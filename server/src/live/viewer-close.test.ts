import { describe, expect, it } from 'vitest';
import { closeWithReason, type ViewerSocket } from './viewer-connection.ts';

/** A socket that keeps what it was closed with (ws itself throws on what these refuse). */
function socket(): ViewerSocket & { closedWith: [number, string][] } {
  const closedWith: [number, string][] = [];
  return {
    readyState: 1,
    OPEN: 1,
    bufferedAmount: 0,
    closedWith,
    send: () => undefined,
    close: (code, reason) => {
      closedWith.push([code, reason]);
    },
    terminate: () => undefined,
  };
}

describe('closeWithReason', () => {
  it('sends a code a peer may not be sent as 1011, and a long reason cut to 123 bytes', () => {
    for (const code of [1004, 1005, 1006, 1015, 2000, 999, 5000, 1000.5]) {
      const target = socket();
      closeWithReason(target, code, 'ok');
      expect(target.closedWith, String(code)).toEqual([[1011, 'ok']]);
    }
    const target = socket();
    closeWithReason(target, 4403, 'é'.repeat(100));
    const [[code, reason] = [0, '']] = target.closedWith;
    expect(code).toBe(4403);
    expect(reason).toBe('é'.repeat(61));
    expect(Buffer.byteLength(reason)).toBe(122);
  });

  it('keeps codes and reasons that fit', () => {
    for (const code of [1000, 1001, 1011, 1012, 3000, 4999]) {
      const target = socket();
      closeWithReason(target, code, 'the host stopped answering');
      expect(target.closedWith).toEqual([[code, 'the host stopped answering']]);
    }
  });
});
