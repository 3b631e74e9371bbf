/**
 * What a key sends to a terminal, for `shell.press(key)`: Playwright's key names (`Enter`,
 * `ArrowUp`, `Control+C`, `Alt+F`, a single character), turned into the bytes xterm.js sends
 * for them. Arrow, Home and End keys follow the application cursor mode a TUI switches on.
 */

const PLAIN_KEYS: Readonly<Record<string, string>> = {
  Enter: '\r',
  Tab: '\t',
  Escape: '\x1b',
  Backspace: '\x7f',
  Delete: '\x1b[3~',
  Insert: '\x1b[2~',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
  Space: ' ',
  F1: '\x1bOP',
  F2: '\x1bOQ',
  F3: '\x1bOR',
  F4: '\x1bOS',
  F5: '\x1b[15~',
  F6: '\x1b[17~',
  F7: '\x1b[18~',
  F8: '\x1b[19~',
  F9: '\x1b[20~',
  F10: '\x1b[21~',
  F11: '\x1b[23~',
  F12: '\x1b[24~',
};

/** Cursor keys: the final byte after `ESC [` (normal mode) or `ESC O` (application mode). */
const CURSOR_KEYS: Readonly<Record<string, string>> = {
  ArrowUp: 'A',
  ArrowDown: 'B',
  ArrowRight: 'C',
  ArrowLeft: 'D',
  Home: 'H',
  End: 'F',
};

export const KEY_NAMES: readonly string[] = [
  ...Object.keys(PLAIN_KEYS),
  ...Object.keys(CURSOR_KEYS),
];

/** The bytes for `key`; throws naming the keys it knows when it is not one. */
export function keyBytes(key: string, applicationCursorKeys: boolean): string {
  // `+` alone, or after a modifier (`Control++`), is the plus key itself.
  const plusKey = key === '+' || key.endsWith('++');
  const parts = plusKey ? key.slice(0, -1).split('+').slice(0, -1) : key.split('+');
  const last = plusKey ? '+' : (parts.pop() ?? '');
  const modifiers = new Set(parts.filter((part) => part !== ''));
  for (const modifier of modifiers) {
    if (modifier !== 'Control' && modifier !== 'Alt') throw unknownKey(key);
  }
  const base = baseBytes(last, applicationCursorKeys, key);
  let bytes = base;
  if (modifiers.has('Control')) bytes = controlOf(last, key);
  if (modifiers.has('Alt')) bytes = `\x1b${bytes}`;
  return bytes;
}

function baseBytes(name: string, applicationCursorKeys: boolean, key: string): string {
  const plain = PLAIN_KEYS[name];
  if (plain !== undefined) return plain;
  const cursor = CURSOR_KEYS[name];
  if (cursor !== undefined) return `\x1b${applicationCursorKeys ? 'O' : '['}${cursor}`;
  if ([...name].length === 1) return name;
  throw unknownKey(key);
}

/** Control+letter is the letter's C0 code (Control+C is 0x03); a few symbols have one too. */
function controlOf(name: string, key: string): string {
  if (/^[A-Za-z]$/.test(name)) return String.fromCharCode(name.toUpperCase().charCodeAt(0) - 64);
  const symbols: Record<string, string> = {
    '@': '\x00',
    Space: '\x00',
    '[': '\x1b',
    '\\': '\x1c',
    ']': '\x1d',
    '^': '\x1e',
    _: '\x1f',
  };
  const code = symbols[name];
  if (code === undefined) throw unknownKey(key);
  return code;
}

function unknownKey(key: string): Error {
  return new Error(
    `unknown key ${JSON.stringify(key)}: give one character, or one of ${KEY_NAMES.join(', ')}, optionally after Control+ or Alt+ (for text, use shell.type())`,
  );
}
