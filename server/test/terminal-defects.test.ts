/**
 * A shell's output against the terminal emulator every screen of jumpseat runs (xterm.js 6.0:
 * the server's screen models, each page), attacked as an agent would, through the tool: a
 * few bytes that made xterm.js throw (which ended the whole server, every agent's shell) or
 * loop for most of an hour (the server's event loop with it). After each, the attacker's own
 * next call, another agent's call, a watching viewer and a viewer who joins later all carry on.
 * See shared/src/terminal-bounds.ts and shared/src/xterm-guard.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { LiveClient } from './support/live-client.ts';

/** What the agent prints (printf's format: octal escapes), each followed by a marker line. */
const ATTACKS: readonly (readonly [string, string])[] = [
  // ED 1 in the last cell of a screen with no scrollback (cleared): xterm.js threw.
  ['erase above at the last cell', String.raw`\033[H\033[2J\033[3J\033[40;120H\033[1J`],
  ['the same, the cursor moved there by tabs', String.raw`\033[3J\033[40;1H\033[300I\033[1J`],
  // Repeat counts xterm.js carries out one step at a time (2^31 − 1 steps).
  ['scroll up', String.raw`\033[2147483647S`],
  ['scroll down', String.raw`\033[2147483647T`],
  ['insert lines', String.raw`\033[2147483647L`],
  ['delete lines', String.raw`\033[2147483647M`],
  ['repeat a character', String.raw`x\033[2147483647b`],
  ['tab backwards', String.raw`\033[2147483647Z`],
  ['tab forwards', String.raw`\033[2147483647I`],
  ['scroll up through the 8-bit introducer', String.raw`\302\2332147483647S`],
  ['a count split by a byte xterm.js drops', String.raw`\033[21474\377\20083647S`],
];

/**
 * Commands whose output is a 9 MB title: xterm.js kept it as a string per character (about
 * 300 MB of the server's memory per shell, measured); now cut at STRING_MAX_BYTES.
 */
const LONG_STRINGS: readonly (readonly [string, string])[] = [
  [
    'a 9 MB title',
    String.raw`printf '\033]0;'; head -c 9000000 /dev/zero | tr '\0' t; printf '\007'`,
  ],
  [
    'a 9 MB status request',
    String.raw`printf '\033P$q'; head -c 9000000 /dev/zero | tr '\0' m; printf '\033\\'`,
  ],
];

let server: TestServer;
let viewer: LiveClient;
let session: SessionInfo;

function liveUrl(id: string): string {
  return `${server.origin.replace('http', 'ws')}/api/sessions/${id}/live`;
}

async function call(agent: string, command: string): Promise<string> {
  const reply = await server.post(`/api/agents/${agent}/bash`, { command });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { output: string }).output;
}

beforeAll(async () => {
  server = await startServer({ flags: ['--sandbox', 'off'] });
  expect(await call('attacker', 'echo ready')).toBe('ready');
  const sessions = (await (
    await server.request('/api/sessions', { token: server.adminToken })
  ).json()) as SessionInfo[];
  session = sessions.find((found) => found.agent === 'attacker') as SessionInfo;
  viewer = await LiveClient.connect(liveUrl(session.id), { token: server.adminToken });
  await viewer.next('snapshot');
});

afterAll(async () => {
  await viewer?.close();
  await server?.close();
});

describe('an agent printing what xterm.js cannot take', () => {
  it.each(
    [...ATTACKS.map(([name, bytes]) => [name, `printf '${bytes}'`] as const), ...LONG_STRINGS].map(
      ([name, command], index) => [name, command, index] as const,
    ),
  )('%s: the server, the other agents and the viewers carry on', async (_name, command, index) => {
    const marker = `after-attack-${index}`;
    expect(await call('attacker', `${command}; echo; echo ${marker}`)).toContain(marker);
    expect(await call(`bystander-${index}`, 'echo ok')).toBe('ok');
    // The viewer that watched it, and one who joins now (a snapshot of the server's model).
    await viewer.until(() => viewer.outputText().includes(marker), marker);
    expect(await viewer.screenText()).toContain(marker);
    const late = await LiveClient.connect(liveUrl(session.id), { token: server.adminToken });
    try {
      await late.next('snapshot');
      expect(await late.screenText()).toContain(marker);
      expect(late.problems).toEqual([]);
    } finally {
      await late.close();
    }
    expect(viewer.problems).toEqual([]);
  });
});

/**
 * Control strings a call leaves open: a terminal shows nothing until one ends, and the marks
 * whose ESC would end it are taken out of the stream (server/src/pty/open-string.ts). The same
 * happened when a Ctrl-C flushed a mark's tail from the terminal: every screen froze for good.
 */
const LEFT_OPEN: readonly (readonly [string, string])[] = [
  ['a title (OSC)', String.raw`\033]0;left-open`],
  ['a status request (DCS)', String.raw`\033P$qleft-open`],
  ['an application string (APC)', String.raw`\033_left-open`],
  ['a title through the 8-bit OSC', String.raw`\302\2350;left-open`],
  ['a mark of its own, cut short', String.raw`\033]7717;0123456789ABCDEF;H;0`],
  ['the start of a mark', String.raw`\033]77`],
];

describe('an agent leaving a control string open', () => {
  it.each(LEFT_OPEN.map(([name, bytes], index) => [name, bytes, index] as const))(
    '%s: the next call shows on every screen',
    async (_name, bytes, index) => {
      const marker = `after-open-${index}`;
      await call('attacker', `printf '${bytes}'`);
      expect(await call('attacker', `echo ${marker}`)).toBe(marker);
      await viewer.until(() => viewer.outputText().includes(marker), marker);
      await expect.poll(() => viewer.screenText(), { timeout: 5000 }).toContain(marker);
      const late = await LiveClient.connect(liveUrl(session.id), { token: server.adminToken });
      try {
        await late.next('snapshot');
        expect(await late.screenText()).toContain(marker);
      } finally {
        await late.close();
      }
    },
  );
});

/** The 8-bit string introducers: the result shows what the screens show, not the strings. */
const EIGHT_BIT: readonly (readonly [string, string])[] = [
  ['OSC', String.raw`\302\2350;hidden-title\007`],
  ['DCS', String.raw`\302\220qhidden-dcs\302\234`],
  ['SOS', String.raw`\302\230hidden-sos\302\234`],
  ['PM', String.raw`\302\236hidden-pm\302\234`],
  ['APC', String.raw`\302\237hidden-apc\033\\`],
];

describe('an 8-bit control string in the output', () => {
  it.each(EIGHT_BIT.map(([name, bytes], index) => [name, bytes, index] as const))(
    '%s is left out of the result as every screen leaves it out',
    async (_name, bytes, index) => {
      const line = `before-${index} after-${index}`;
      expect(await call('attacker', `printf 'before-${index} ${bytes}after-${index}\\n'`)).toBe(
        line,
      );
      await expect.poll(() => viewer.screenText(), { timeout: 5000 }).toContain(line);
      expect(viewer.screenText()).not.toContain('hidden');
    },
  );
});
