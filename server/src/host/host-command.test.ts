import { describe, expect, it } from 'vitest';
import { ConfigError, HelpRequested } from '../config/config-error.ts';
import { HOST_HELP, readHostSettings } from './host-command.ts';

const TOKEN = { JUMPSEAT_TOKEN: 'js_host' };

describe('jumpseat host flags', () => {
  it("keeps the host's own flags and passes every other to the engine", () => {
    const settings = readHostSettings(
      [
        '--join',
        'http://cp:7400/',
        '--label',
        'gpu=1',
        '--label=zone=eu',
        '--sandbox',
        'off',
        '--max-shells',
        '50',
        '--shared-workspace',
        '--workspace=/w',
        '--proxy',
        'http://proxy.corp:3128',
      ],
      TOKEN,
    );
    expect(settings).toEqual({
      join: 'http://cp:7400/',
      token: 'js_host',
      name: undefined,
      labels: { gpu: '1', zone: 'eu' },
      maxShells: 50,
      graceMs: 60_000,
      proxy: 'http://proxy.corp:3128',
      engineArgs: ['--sandbox', 'off', '--shared-workspace', '--workspace=/w'],
    });
  });

  it('documents --proxy and the proxy variables in its help', () => {
    expect(() => readHostSettings(['--help'], TOKEN)).toThrow(HelpRequested);
    expect(HOST_HELP).toContain('  --proxy URL|off       the HTTP proxy to dial through');
    expect(HOST_HELP).toContain('HTTPS_PROXY for an https:// control plane, HTTP_PROXY');
  });

  it('reads its settings from the environment too', () => {
    const settings = readHostSettings([], {
      ...TOKEN,
      JUMPSEAT_JOIN: 'https://cp.example/',
      JUMPSEAT_HOST_NAME: 'build-3',
      JUMPSEAT_LABELS: 'gpu=1,arch=arm64',
      JUMPSEAT_HOST_GRACE_MS: '5000',
    });
    expect(settings).toMatchObject({
      join: 'https://cp.example/',
      name: 'build-3',
      labels: { gpu: '1', arch: 'arm64' },
      graceMs: 5000,
    });
  });

  it.each([
    [[], TOKEN, '--join URL (or JUMPSEAT_JOIN) is required: the control plane to join'],
    [['--join', 'ftp://x'], TOKEN, '--join "ftp://x" is not an http:// or https:// URL'],
    [
      ['--join', 'http://x'],
      {},
      'a host token is required: JUMPSEAT_TOKEN or --token-file (mint one with "jumpseat token create --role host --name NAME")',
    ],
    [['--join', 'http://x', '--label', 'gpu'], TOKEN, '--label: a label is key=value, not "gpu"'],
    [
      ['--join', 'http://x', '--max-shells', '0'],
      TOKEN,
      '--max-shells must be a positive integer, not "0"',
    ],
    [['--join', 'http://x', '--name', 'a b'], TOKEN, '--name "a b" is not a valid host name'],
  ])('refuses %j with a message to act on', (argv, env, message) => {
    expect(() => readHostSettings(argv, env)).toThrow(new ConfigError(message));
  });
});
