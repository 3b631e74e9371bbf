/**
 * The whole contract the engine has with a pseudo-terminal process, kept as small as
 * node-pty's own typings so that node-pty lives behind one adapter.
 */
import { constants } from 'node:os';
import * as nodePty from 'node-pty';
import type { Disposable } from './disposable.ts';

export interface PtyExit {
  /** Exit status when the process exited normally, else null. */
  readonly code: number | null;
  /** Signal name (e.g. `SIGKILL`) when the process was killed by a signal, else null. */
  readonly signal: string | null;
}

export interface PtyProcess {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (chunk: Buffer) => void): Disposable;
  onExit(listener: (exit: PtyExit) => void): Disposable;
  /** Sends a signal to the process itself (not its group). */
  kill(signal?: NodeJS.Signals): void;
}

export interface PtySpawnOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number, name]),
);

export function signalName(signal: number): string | null {
  return SIGNAL_NAMES.get(signal) ?? null;
}

/** Starts `options.file` on a new PTY; it leads its own session (node-pty calls setsid). */
export function spawnPty(options: PtySpawnOptions): PtyProcess {
  const pty = nodePty.spawn(options.file, [...options.args], {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: { ...options.env },
    // Raw bytes: offsets for viewers count bytes, and our decoders handle UTF-8 streams.
    encoding: null,
  });
  return {
    pid: pty.pid,
    write: (data) => pty.write(data),
    resize: (cols, rows) => pty.resize(cols, rows),
    onData: (listener) => pty.onData((chunk) => listener(toBuffer(chunk))),
    onExit: (listener) =>
      pty.onExit(({ exitCode, signal }) => {
        const name = signal ? signalName(signal) : null;
        listener(name ? { code: null, signal: name } : { code: exitCode, signal: null });
      }),
    kill: (signal) => {
      try {
        process.kill(pty.pid, signal ?? 'SIGHUP');
      } catch {
        // Already gone: nothing to end.
      }
    },
  };
}

function toBuffer(chunk: string | Buffer): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}
