import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from './config.ts';

let root: string;
let file: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-config-file-'));
  file = join(root, 'jumpseat.yaml');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function load(text: string, argv: string[] = [], env: NodeJS.ProcessEnv = {}): Config {
  writeFileSync(file, text);
  return loadConfig(['--data-dir', join(root, 'data'), '--config', file, ...argv], env, root);
}

describe('--config FILE', () => {
  it('reads each flag by its name from YAML, lists included', () => {
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    const config = load(
      [
        'port: 7001',
        'host: 0.0.0.0',
        'trust-proxy: 127.0.0.1, 10.0.0.0/8',
        'shared-workspace: true',
        `readable: [${join(root, 'a')}, ${join(root, 'b')}]`,
        'pass-env: [FOO, BAR]',
      ].join('\n'),
    );
    expect(config.port).toBe(7001);
    expect(config.host).toBe('0.0.0.0');
    expect(config.trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(config.sharedWorkspace).toBe(true);
    expect(config.readable).toEqual([join(root, 'a'), join(root, 'b')]);
    expect(config.envPass).toEqual(['FOO', 'BAR']);
  });

  it('reads JSON too, and is named by JUMPSEAT_CONFIG as well', () => {
    writeFileSync(file, '{"port": 7005}');
    const config = loadConfig(['--data-dir', join(root, 'data')], { JUMPSEAT_CONFIG: file }, root);
    expect(config.port).toBe(7005);
  });

  it('is the lowest layer: flags, then variables, then the file', () => {
    expect(load('port: 7001', [], { JUMPSEAT_PORT: '7002' }).port).toBe(7002);
    expect(load('port: 7001', ['--port', '7003'], { JUMPSEAT_PORT: '7002' }).port).toBe(7003);
    expect(load('port: 7001', [], { JUMPSEAT_PORT: '' }).port).toBe(7001);
  });

  it("refuses a bad value naming the file's key, and unknown keys, other shapes and bad YAML", () => {
    expect(() => load('port: seventy')).toThrow(
      `port in config file "${file}" must be an integer from 0 to 65535 (got "seventy")`,
    );
    expect(() => load('prot: 7400')).toThrow(
      `config file "${file}": unknown key "prot" (keys are flag names)`,
    );
    expect(() => load('help: true')).toThrow(`unknown key "help"`);
    expect(() => load('- port')).toThrow(`must be a mapping of flag names to values`);
    expect(() => load('port: {a: 1}')).toThrow(`port must be a string, a number, true/false`);
    expect(() => load('port: [7400')).toThrow(`config file "${file}" is not valid YAML`);
    expect(() =>
      loadConfig(['--data-dir', join(root, 'data'), '--config', join(root, 'none.yaml')], {}, root),
    ).toThrow(`config file "${join(root, 'none.yaml')}" cannot be read (ENOENT)`);
  });
});
