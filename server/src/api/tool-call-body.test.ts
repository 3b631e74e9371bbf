import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolCallBodyProblem } from './tool-call-body.ts';

describe('toolCallBodyProblem', () => {
  it('accepts any command with something other than white space and no NUL', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), (command) => {
        fc.pre(command.trim() !== '' && !command.includes('\u0000'));
        expect(toolCallBodyProblem({ command })).toBeUndefined();
      }),
    );
  });

  it('refuses every command made of white space only with the contract message', () => {
    const whiteSpace = fc.constantFrom(
      ' ',
      '\t',
      '\n',
      '\r',
      '\v',
      '\f',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
    );
    fc.assert(
      fc.property(fc.array(whiteSpace), (parts) => {
        expect(toolCallBodyProblem({ command: parts.join('') })).toBe(
          'command must be a non-empty string',
        );
      }),
    );
  });

  it('refuses every command holding a NUL', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        expect(toolCallBodyProblem({ command: `${before}\u0000${after}` })).toBe(
          'command must not contain a NUL character',
        );
      }),
    );
  });

  it('accepts a single control character, the keystrokes of TOOL-CONTRACT.md', () => {
    for (const key of ['\u0003', '\u0004', '\u001a']) {
      expect(toolCallBodyProblem({ command: key })).toBeUndefined();
    }
  });

  it('names every unexpected field', () => {
    expect(toolCallBodyProblem({ command: 'ls', a: 1, b: 2 })).toBe(
      'request body has unexpected fields "a", "b": only "command" is allowed',
    );
  });

  it.each([
    [undefined, 'no body'],
    [null, 'null'],
    [true, 'a boolean'],
    [3, 'a number'],
  ])('refuses a body that is %j', (body, got) => {
    expect(toolCallBodyProblem(body)).toBe(
      `request body must be a JSON object like {"command": "ls"} (got ${got})`,
    );
  });
});
