import { describe, expect, it } from 'vitest';
import { isHiddenInput } from './hidden-input.ts';
import { HIDDEN_ANSWER, HumanUse } from './human-use.ts';

const LINE = { canonical: true, echo: true, interrupts: true };
const LINE_NO_ECHO = { canonical: true, echo: false, interrupts: true };
const RAW = { canonical: false, echo: false, interrupts: false };

describe('hidden input', () => {
  it('is a line read with the echo off (read -s, sudo, ssh, passwd)', () => {
    expect(isHiddenInput(LINE_NO_ECHO, '[sudo] password for ann: ', '')).toBe(true);
    expect(isHiddenInput(LINE, 'name? ', '')).toBe(false);
  });

  it('is a masked secret prompt of a program reading raw keys (pwsh -AsSecureString)', () => {
    expect(isHiddenInput(RAW, 'Password: ', '')).toBe(true);
    expect(isHiddenInput(RAW, 'Enter value: ***', '')).toBe(true);
    expect(isHiddenInput(RAW, 'PS /home/ann> Get-ChildItem', 'Get-ChildItem')).toBe(false);
  });

  it('is not the person typing a command that names a secret', () => {
    expect(isHiddenInput(RAW, "$ read -s -p 'Password:", "read -s -p 'Password:")).toBe(false);
  });

  it('cannot be told when the terminal is gone: not hidden', () => {
    expect(isHiddenInput(undefined, 'Password: ', '')).toBe(false);
  });
});

describe('the human-use summary with hidden keys', () => {
  it('says a hidden answer was typed, never what', () => {
    const use = new HumanUse();
    use.typed('sudo true\r');
    use.typed('hunter2', true);
    use.typed('\r', true);
    use.typed('ls\r');
    expect(use.take()).toBe(`sudo true; ${HIDDEN_ANSWER}; ls`);
  });

  it('names an interrupt of a hidden read, and drops the half-typed secret', () => {
    const use = new HumanUse();
    use.typed('hunt', true);
    expect(use.pendingLine).toBe(true);
    use.typed('\x03', true);
    expect(use.take()).toBe('^C');
  });
});
