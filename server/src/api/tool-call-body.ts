/**
 * The tool-call body rules of TOOL-CONTRACT.md ("Input rules"), checked before the schema so
 * an agent's model reads one precise sentence about what to change.
 */
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';
// The engine refuses the same commands by the same rule; here they only gain the detail of
// what the JSON held instead of a string.
import { commandProblem } from '../tool/command-rules.ts';
import { EMPTY_COMMAND_MESSAGE } from '../tool/contract-text.ts';

/** Why `body` is not a valid tool call, or undefined when it is. */
export function toolCallBodyProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return `request body must be a JSON object like {"command": "ls"} (got ${jsonType(body)})`;
  }
  const extra = Object.keys(body).filter((key) => key !== 'command');
  if (extra.length > 0) {
    const names = extra.map((key) => JSON.stringify(key)).join(', ');
    return `request body has unexpected field${extra.length === 1 ? '' : 's'} ${names}: only "command" is allowed`;
  }
  if (!('command' in body)) return `${EMPTY_COMMAND_MESSAGE} (it is missing)`;
  const command = body.command;
  if (typeof command !== 'string') return `${EMPTY_COMMAND_MESSAGE} (got ${jsonType(command)})`;
  return commandProblem(command);
}

export function checkToolCallBody(body: unknown): void {
  const problem = toolCallBodyProblem(body);
  if (problem !== undefined) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, problem);
}

/** JSON's own names for a value's type. */
function jsonType(value: unknown): string {
  if (value === undefined) return 'no body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}
