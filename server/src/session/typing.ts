/**
 * What is typed into a waiting program for a call, and what viewers are shown in place of
 * the (switched-off) terminal echo: the agent's command after the prompt, or its input.
 */

/** Control keys an agent may send alone to a waiting program, and how they are shown. */
const CONTROL_KEYS: Readonly<Record<string, string>> = {
  '\u0003': '^C',
  '\u0004': '^D',
  '\u001a': '^Z',
};

/** A long command is shown in part: a screen is for people, the command file for bash. */
const ECHO_MAX_LINES = 40;
const ECHO_MAX_CHARS = 4000;

/** A command that is exactly one of the control keys, delivered as that keystroke. */
export function isControlKey(command: string): boolean {
  return command in CONTROL_KEYS;
}

export function keystrokesFor(command: string): string {
  if (isControlKey(command)) return command;
  // One line of input: Enter is CR on a terminal (ICRNL turns it into LF for line readers).
  return `${command.replace(/\r?\n/g, '\r')}\r`;
}

export function inputEcho(command: string): Buffer {
  const key = CONTROL_KEYS[command];
  if (key) return Buffer.from(key, 'utf8');
  return Buffer.from(`${shown(command)}\r\n`, 'utf8');
}

export function commandEcho(command: string): Buffer {
  return Buffer.from(`${shown(command)}\r\n`, 'utf8');
}

function shown(text: string): string {
  const lines = text.split(/\r?\n/);
  let head = lines.slice(0, ECHO_MAX_LINES).join('\r\n');
  let more = lines.length - Math.min(lines.length, ECHO_MAX_LINES);
  if (head.length > ECHO_MAX_CHARS) {
    head = head.slice(0, ECHO_MAX_CHARS);
    more = Math.max(more, 1);
  }
  // Control characters would act on viewers' terminals; show them the way a terminal echoes.
  const visible = head.replace(/[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]/g, (c) =>
    c === '\x7f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`,
  );
  return more > 0
    ? `${visible}\r\n… (${more} more line${more === 1 ? '' : 's'} not shown)`
    : visible;
}
