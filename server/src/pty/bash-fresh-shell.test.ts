import { describe, expect, it } from 'vitest';
import { startsInteractiveBash } from './bash-fresh-shell.ts';

describe('startsInteractiveBash', () => {
  it.each([
    [[]],
    [['-l']],
    [['--login']],
    [['--norc', '--noprofile']],
    [['--rcfile', 'my.rc']],
    [['-i', 'script.sh']],
    [['-o', 'vi']],
    [['-eo', 'pipefail']],
    [['+O', 'extglob']],
    [['-s', 'a', 'b']],
    [['-ic', 'echo x']],
    [['--posix', '-x']],
  ])('an interactive shell at its prompt: bash %j', (args) => {
    expect(startsInteractiveBash(args)).toBe(true);
  });

  it.each([
    [['script.sh']],
    [['-c', 'read x']],
    [['-xc', 'echo x']],
    [['-l', 'script.sh']],
    [['--rcfile', 'my.rc', 'script.sh']],
    [['-o', 'vi', 'script.sh']],
    [['--', 'script.sh']],
    [['-', 'script.sh']],
  ])('a script or a command string: bash %j', (args) => {
    expect(startsInteractiveBash(args)).toBe(false);
  });
});
