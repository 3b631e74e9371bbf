import { describe, expect, it } from 'vitest';
import { StorageHealth, storageErrorCode } from './storage-health.ts';

const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
  code: 'ENOSPC',
});

describe('StorageHealth', () => {
  it('says a failure once and its end once, and reports the state meanwhile', () => {
    const lines: string[] = [];
    const health = new StorageHealth((line) => lines.push(line));
    expect(health.report().state).toBe('ok');
    health.failed('history', enospc, 'history database write');
    health.failed('history', enospc, 'history database write');
    health.setBacklog('history', {
      keptItems: 3,
      keptBytes: 900,
      droppedItems: 0,
      droppedBytes: 0,
    });
    const report = health.report();
    expect(report.state).toBe('degraded');
    expect(report.areas.find((a) => a.area === 'history')).toMatchObject({
      failing: {
        code: 'ENOSPC',
        message: 'history database write: ENOSPC: no space left on device, write',
      },
      keptItems: 3,
    });
    health.recovered('history');
    health.recovered('history');
    expect(lines).toEqual([
      'jumpseat: warning: the data dir cannot be written (ENOSPC, history): history database write: ENOSPC: no space left on device, write; calls go on, and what can be kept waits in memory until the disk takes it again',
      'jumpseat: the data dir takes history writes again; nothing was lost',
    ]);
    expect(health.report().state).toBe('ok');
  });

  it('says a disk that keeps failing and recovering once a minute, not each time', () => {
    const lines: string[] = [];
    const health = new StorageHealth((line) => lines.push(line));
    for (let i = 0; i < 100; i++) {
      health.failed('recordings', enospc, 'recording');
      health.recovered('recordings');
    }
    expect(lines).toHaveLength(2);
  });

  it('knows the codes of a disk that says no, and nothing else', () => {
    expect(storageErrorCode(enospc)).toBe('ENOSPC');
    expect(storageErrorCode({ code: 'SQLITE_FULL' })).toBe('SQLITE_FULL');
    expect(storageErrorCode({ code: 'EROFS' })).toBe('EROFS');
    expect(storageErrorCode({ code: 'ECONNRESET' })).toBeUndefined();
    expect(storageErrorCode(new Error('plain'))).toBeUndefined();
  });
});
