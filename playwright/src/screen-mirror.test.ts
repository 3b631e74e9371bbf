import { describe, expect, it } from 'vitest';
import { ScreenMirror } from './screen-mirror.ts';

const encode = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));

describe('ScreenMirror', () => {
  it("keeps mirroring a shell whose output attacks xterm.js (the test run's own screen)", async () => {
    const mirror = new ScreenMirror();
    mirror.apply({ type: 'snapshot', reason: 'join', data: '', cols: 120, rows: 40, offset: 0 });
    let offset = 0;
    for (const attack of [
      // xterm.js 6.0 threw out of its write loop here: the test run's process ended.
      '\x1b[H\x1b[2J\x1b[3J\x1b[40;120H\x1b[1J',
      // …and ran 2^31 − 1 steps here: the test run hung for most of an hour.
      '\x1b[2147483647S\x1b[21474836',
      '47M',
      `x\x1b[2147483647b\r\nmirrored`,
    ]) {
      const data = encode(attack);
      mirror.apply({ type: 'output', offset, data });
      offset += data.length;
    }
    expect(await mirror.text()).toContain('mirrored');
  });
});
