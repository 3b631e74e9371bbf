import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configErrorOf } from '../../test/support/config-errors.ts';
import { makeTestCertificate, type TestCertificate } from '../../test/support/test-certificate.ts';
import { loadConfig } from './config.ts';
import { readTlsSettings } from './tls-settings.ts';

let dir: string;
let first: TestCertificate;
let second: TestCertificate;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jumpseat-tls-'));
  first = makeTestCertificate(dir, 'first');
  second = makeTestCertificate(dir, 'second');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flag = (name: string, raw: string) => ({ raw, source: `--${name}` });

describe('--tls-cert and --tls-key', () => {
  it('reads a certificate and its key, with their absolute paths', () => {
    const tls = readTlsSettings(
      flag('tls-cert', 'first.cert.pem'),
      flag('tls-key', 'first.key.pem'),
      dir,
    );
    expect(tls?.certFile).toBe(first.certFile);
    expect(tls?.keyFile).toBe(first.keyFile);
    expect(tls?.cert.toString()).toBe(first.pem);
    expect(readTlsSettings(undefined, undefined, dir)).toBeNull();
  });

  it('refuses one without the other', () => {
    expect(() => readTlsSettings(flag('tls-cert', first.certFile), undefined, dir)).toThrow(
      '--tls-cert needs --tls-key too: HTTPS takes a certificate and its key',
    );
    expect(() => readTlsSettings(undefined, flag('tls-key', first.keyFile), dir)).toThrow(
      '--tls-key needs --tls-cert too: HTTPS takes a certificate and its key',
    );
  });

  it('refuses a missing file, and a key of another certificate, naming both settings', () => {
    expect(() =>
      readTlsSettings(flag('tls-cert', 'nowhere.pem'), flag('tls-key', first.keyFile), dir),
    ).toThrow(`--tls-cert "${join(dir, 'nowhere.pem')}" does not exist`);
    expect(() =>
      readTlsSettings(flag('tls-cert', first.certFile), flag('tls-key', second.keyFile), dir),
    ).toThrow(
      new RegExp(
        `^--tls-cert "${first.certFile}" and --tls-key "${second.keyFile}" are not a PEM certificate and its private key \\(.*key values mismatch`,
      ),
    );
    const garbage = join(dir, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate\n');
    expect(() =>
      readTlsSettings(flag('tls-cert', garbage), flag('tls-key', first.keyFile), dir),
    ).toThrow(/are not a PEM certificate and its private key/);
  });

  it('is read from the variables and the config file like every setting', () => {
    const dataDir = join(dir, 'data');
    const fromEnv = loadConfig(['--data-dir', dataDir], {
      JUMPSEAT_TLS_CERT: first.certFile,
      JUMPSEAT_TLS_KEY: first.keyFile,
    });
    expect(fromEnv.tls?.certFile).toBe(first.certFile);
    const file = join(dir, 'jumpseat.yaml');
    writeFileSync(file, `tls-cert: ${first.certFile}\ntls-key: ${second.keyFile}\n`);
    expect(
      configErrorOf(() => loadConfig(['--data-dir', dataDir, '--config', file], {})).message,
    ).toMatch(
      new RegExp(
        `^tls-cert in config file "${file}" "${first.certFile}" and tls-key in config file`,
      ),
    );
  });
});
