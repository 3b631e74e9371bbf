import { describe, expect, it } from 'vitest';
import { shellEnvironment } from './shell-environment.ts';

// The environment a shell starts with is an allowlist: the secrets a denylist of words let
// through (issue 21) stay out unless passed by name.

const SERVER_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/op',
  USER: 'op',
  LOGNAME: 'op',
  SHELL: '/bin/bash',
  TZ: 'Europe/Paris',
  TMPDIR: '/var/tmp',
  LANG: 'fr_FR.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  LANGUAGE: 'fr',
  DB_PASS: 'db-pass',
  MYSQL_PWD: 'mysql-pwd',
  DATABASE_URL: 'postgres://u:pw@db/app',
  GH_PAT: 'ghp_x',
  CI_JOB_JWT: 'eyJ.x',
  AWS_ACCESS_KEY_ID: 'AKIA',
  JUMPSEAT_TOKEN: 'admin',
  TMUX: '/tmp/tmux-0/default,1,0',
  COLUMNS: '80',
};

describe('shellEnvironment', () => {
  it('passes the allowlist and nothing else of the server', () => {
    expect(shellEnvironment(SERVER_ENV, { pass: [], extra: {} })).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/op',
      USER: 'op',
      LOGNAME: 'op',
      SHELL: '/bin/bash',
      TZ: 'Europe/Paris',
      TMPDIR: '/var/tmp',
      LANG: 'fr_FR.UTF-8',
      LC_TIME: 'de_DE.UTF-8',
      LANGUAGE: 'fr',
      TERM: 'xterm-256color',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
    });
  });

  it('adds the names passed with --pass-env, never a terminal leftover', () => {
    const env = shellEnvironment(SERVER_ENV, {
      pass: ['DATABASE_URL', 'COLUMNS', 'NOT_SET'],
      extra: {},
    });
    expect(env.DATABASE_URL).toBe('postgres://u:pw@db/app');
    expect(env.COLUMNS).toBeUndefined();
    expect('NOT_SET' in env).toBe(false);
    expect(env.DB_PASS).toBeUndefined();
  });

  it("lets the dialect's variables win and falls back to a UTF-8 locale", () => {
    const env = shellEnvironment(
      { PATH: '/bin', LANG: 'C', LC_ALL: 'POSIX', TERM: 'dumb' },
      { pass: [], extra: { HISTFILE: '' } },
    );
    expect(env).toEqual({
      PATH: '/bin',
      LANG: 'C.UTF-8',
      TERM: 'xterm-256color',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      HISTFILE: '',
    });
  });
});
