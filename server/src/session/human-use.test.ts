import { describe, expect, it } from 'vitest';
import { HumanUse } from './human-use.ts';

describe('HumanUse', () => {
  it('folds keystrokes into the lines entered', () => {
    const use = new HumanUse();
    use.typed('cd /tmpp\x7f\r');
    use.typed('export A=1\r\r');
    expect(use.take()).toBe('cd /tmp; export A=1');
    expect(use.take()).toBeNull();
  });

  it('names lone control keys and the interrupt button', () => {
    const use = new HumanUse();
    use.typed('sleep 10\r\x03');
    use.interrupted();
    expect(use.take()).toBe('sleep 10; ^C; interrupted the running command');
  });

  it('applies Ctrl-U and Ctrl-W, and marks lines edited with arrows or history keys', () => {
    const use = new HumanUse();
    use.typed('rm -rf /\x15ls -la\x17pwd\r');
    use.typed('\x1b[A\r');
    use.typed('echo x\x1b[D\x1b[Dy\r');
    expect(use.take()).toBe('ls pwd; a command recalled from history; echo xy (edited)');
  });

  it('leaves an unfinished line out, and can drop it', () => {
    const use = new HumanUse();
    use.typed('half typed');
    expect(use.pendingLine).toBe(true);
    expect(use.take()).toBeNull();
    use.dropPendingLine();
    expect(use.pendingLine).toBe(false);
  });
});
