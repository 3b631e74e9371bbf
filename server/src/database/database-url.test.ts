import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.ts';
import { maskDatabaseUrl, readDatabaseUrl } from './database-url.ts';

const setting = (raw: string) => ({ raw, source: '--database' });

describe('--database', () => {
  it('is the embedded SQLite when unset or empty', () => {
    expect(readDatabaseUrl(undefined)).toBeNull();
    expect(readDatabaseUrl(setting(' '))).toBeNull();
  });

  it('takes a postgres:// or postgresql:// URL and masks its password', () => {
    const read = readDatabaseUrl(setting('postgres://js:s3cret@db.example:5432/jumpseat'));
    expect(read).toEqual({
      url: 'postgres://js:s3cret@db.example:5432/jumpseat',
      masked: 'postgres://js:***@db.example:5432/jumpseat',
    });
    expect(readDatabaseUrl(setting('postgresql://db/x'))?.masked).toBe('postgresql://db/x');
  });

  it('masks a password given as a query parameter too', () => {
    expect(maskDatabaseUrl('postgres://db/x?user=a&password=hunter2')).toBe(
      'postgres://db/x?user=a&password=***',
    );
    expect(maskDatabaseUrl('not a url hunter2')).toBe('***');
  });

  it('refuses other schemes and URLs that do not parse, never echoing the password', () => {
    for (const raw of [
      'mysql://u:hunter2@db/x',
      'sqlite:///tmp/x.db',
      'u:hunter2@db',
      'postgres://u:hunter2@/x',
    ]) {
      let message = '';
      try {
        readDatabaseUrl(setting(raw));
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/^--database must/);
      expect(message).not.toContain('hunter2');
    }
  });
});
