/**
 * A live-protocol client for tests: connects over a real socket, validates every frame with
 * the shared schemas, keeps the messages and the output bytes it got, and rebuilds the
 * screen in its own headless xterm as a browser would.
 */
import headless from '@xterm/headless';
import { expect } from 'vitest';
import WebSocket from 'ws';
import {
  type ClientMessage,
  decodeOutputFrame,
  parseServerMessage,
  type ServerMessage,
} from '../../../shared/src/live.ts';
import { TerminalBounds } from '../../../shared/src/terminal-bounds.ts';
import { guardTerminal } from '../../../shared/src/xterm-guard.ts';

const { Terminal } = headless;

export interface LiveClientOptions {
  readonly token?: string;
  readonly origin?: string;
  readonly from?: number;
  /** Rebuild the screen in a headless xterm (costly for 20 MB runs). */
  readonly screen?: boolean;
}

export class LiveClient {
  readonly messages: ServerMessage[] = [];
  /** Output bytes in arrival order, from `startOffset`. */
  readonly output: Buffer[] = [];
  startOffset: number | null = null;
  /** Display offset just past the last byte received. */
  position = 0;
  readonly problems: string[] = [];
  private readonly terminal: InstanceType<typeof Terminal> | null;
  private readonly bounds = new TerminalBounds(() => this.terminal ?? { cols: 120, rows: 40 });
  private waiters: (() => void)[] = [];
  closed: { code: number; reason: string } | null = null;

  private constructor(
    readonly socket: WebSocket,
    screen: boolean,
  ) {
    this.terminal = screen
      ? new Terminal({ cols: 120, rows: 40, scrollback: 2000, allowProposedApi: true })
      : null;
    // As a page does (terminal-view.ts): counts bounded, xterm.js's defects guarded.
    if (this.terminal) {
      guardTerminal(this.terminal, (error) => this.problems.push(`xterm.js defect: ${error}`));
    }
    socket.on('message', (data, isBinary) => this.onFrame(data as Buffer, isBinary));
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static connect(url: string, options: LiveClientOptions = {}): Promise<LiveClient> {
    const query = options.from === undefined ? '' : `?from=${options.from}`;
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.origin) headers.origin = options.origin;
    const socket = new WebSocket(`${url}${query}`, { headers });
    const client = new LiveClient(socket, options.screen ?? true);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (request, response) => {
        request.destroy();
        reject(new Error(`upgrade refused: ${response.statusCode}`));
      });
      socket.once('error', reject);
    });
  }

  send(message: ClientMessage | Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Resolves with the first message (after `after` messages) that matches. */
  async next<T extends ServerMessage['type']>(
    type: T,
    match: (message: Extract<ServerMessage, { type: T }>) => boolean = () => true,
    after = 0,
  ): Promise<Extract<ServerMessage, { type: T }>> {
    return this.until(() => {
      const found = this.messages
        .slice(after)
        .find(
          (m): m is Extract<ServerMessage, { type: T }> => m.type === type && match(m as never),
        );
      return found ?? null;
    }, `a ${type} message`);
  }

  /** Resolves once `check` gives a value; fails after `timeoutMs` (a hang guard, not a timing test). */
  until<T>(
    check: () => T | null | undefined | false,
    what: string,
    timeoutMs = 20_000,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const look = (): boolean => {
        const value = check();
        if (value !== null && value !== undefined && value !== false) {
          clearTimeout(timer);
          resolve(value);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${what}; got ${this.summary()}`));
      }, timeoutMs);
      const waiter = (): void => {
        if (look()) this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      if (!look()) this.waiters.push(waiter);
    });
  }

  outputText(): string {
    return Buffer.concat(this.output).toString('utf8');
  }

  /** The output bytes received from display offset `offset` on, as text. */
  outputFrom(offset: number): string {
    const all = Buffer.concat(this.output);
    const start = offset - (this.startOffset ?? offset);
    if (start < 0) throw new Error(`output before ${this.startOffset} was not received`);
    return all.subarray(start).toString('utf8');
  }

  /** The screen rebuilt from snapshot and output, once xterm has parsed it all. */
  async screenText(): Promise<string> {
    const terminal = this.terminal;
    if (!terminal) throw new Error('screen not kept');
    await new Promise<void>((resolve) => terminal.write('', resolve));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < terminal.rows; y++) {
      lines.push(
        buffer
          .getLine(buffer.baseY + y)
          ?.translateToString(true)
          .trimEnd() ?? '',
      );
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
      this.terminal?.dispose();
    });
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      const frame = decodeOutputFrame(new Uint8Array(data));
      if (!frame) this.problems.push('undecodable binary frame');
      else {
        if (this.startOffset === null) this.startOffset = frame.offset;
        if (frame.offset !== this.position) {
          this.problems.push(`output at ${frame.offset}, expected ${this.position}`);
        }
        this.output.push(Buffer.from(frame.data));
        this.position = frame.offset + frame.data.length;
        this.terminal?.write(this.bounds.push(frame.data));
      }
    } else {
      const parsed = parseServerMessage(data.toString('utf8'));
      if (!parsed.ok) this.problems.push(`invalid message: ${data.toString('utf8').slice(0, 200)}`);
      else {
        const message = parsed.message;
        this.messages.push(message);
        if (message.type === 'snapshot') {
          this.position = message.offset;
          if (this.startOffset === null) this.startOffset = message.offset;
          this.terminal?.reset();
          this.bounds.reset();
          this.terminal?.resize(message.cols, message.rows);
          this.terminal?.write(message.data);
        } else if (message.type === 'resumed') {
          this.position = message.offset;
          if (this.startOffset === null) this.startOffset = message.offset;
        } else if (message.type === 'resize') {
          this.terminal?.resize(message.cols, message.rows);
        }
      }
    }
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private summary(): string {
    return (
      JSON.stringify(this.messages.map((m) => m.type)).slice(0, 500) +
      (this.closed ? ` closed ${this.closed.code}` : '')
    );
  }
}

/**
 * Resolves once clients `a` and `b` are at the same display offset. Looked at on either's
 * messages: `until` on one client alone looks only when that one hears something, so the
 * other's last frame, arriving after, was never seen (live.test's stalled viewer, as nobody).
 */
export async function sameOffset(a: LiveClient, b: LiveClient, what: string): Promise<void> {
  const same = () => a.position === b.position;
  try {
    await Promise.any([a.until(same, what), b.until(same, what)]);
  } catch (error) {
    throw error instanceof AggregateError ? error.errors[0] : error;
  }
}

/** How many times `sameScreen` reads again when output came while it read. */
const SCREEN_READ_TRIES = 50;

/**
 * Asserts that both clients show the same screen, read at one display offset that neither
 * moved from while they were read, and returns it: the shell may still print (its prompt,
 * after a call's end) between two reads, and the second screen then showed more than the
 * first (live.test's stalled viewer, beside two CPU hogs).
 */
export async function sameScreen(a: LiveClient, b: LiveClient, what: string): Promise<string> {
  for (let tries = 1; ; tries++) {
    await sameOffset(a, b, what);
    const at = a.position;
    const [screenA, screenB] = [await a.screenText(), await b.screenText()];
    if ((a.position === at && b.position === at) || tries === SCREEN_READ_TRIES) {
      expect(screenA, what).toBe(screenB);
      return screenB;
    }
  }
}
