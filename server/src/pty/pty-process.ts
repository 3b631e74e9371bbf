/**
 * The whole contract the engine has with a pseudo-terminal process, kept as small as
 * node-pty's own typings so that node-pty lives behind one adapter.
 */
import { readSync, writeSync } from 'node:fs';
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
  /** Bytes given to `write` that the terminal has not taken yet (it takes them as read). */
  unwrittenBytes(): number;
  /** Forgets what `write` holds that has not begun going to the terminal. */
  dropUnwritten(): void;
}

export interface PtySpawnOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

/**
 * Names by number, the first name Node lists for a number winning: Node lists aliases after
 * the canonical name (`SIGABRT` then `SIGIOT` for 6, `SIGIO` then `SIGPOLL` for 29), and a
 * pwsh that aborts must be told as `SIGABRT`.
 */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(constants.signals)) {
  if (!SIGNAL_NAMES.has(number)) SIGNAL_NAMES.set(number, name);
}

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
  keepTailOnExit(pty);
  const writeNow = directWriter(pty);
  return {
    pid: pty.pid,
    write: (data) => {
      if (!writeNow(data)) pty.write(data);
    },
    resize: (cols, rows) => pty.resize(cols, rows),
    onData: (listener) => pty.onData((chunk) => listener(toBuffer(chunk))),
    onExit: (listener) =>
      pty.onExit(({ exitCode, signal }) => {
        const name = signal ? signalName(signal) : null;
        listener(name ? { code: null, signal: name } : { code: exitCode, signal: null });
      }),
    unwrittenBytes: () =>
      writeStreamOf(pty).queue.reduce((sum, task) => sum + task.buffer.byteLength - task.offset, 0),
    dropUnwritten: () => writeStreamOf(pty).drop(),
    kill: (signal) => {
      try {
        process.kill(pty.pid, signal ?? 'SIGHUP');
      } catch {
        // Already gone: nothing to end.
      }
    },
  };
}

/** One entry of node-pty's (1.1) write queue: a buffer and how much of it was written. */
interface WriteTask {
  readonly buffer: Buffer;
  readonly offset: number;
}

/** node-pty's (1.1) private write stream: its queue, and the retry set while the terminal is full. */
interface WriteStream {
  _writeQueue?: unknown;
  _writeImmediate?: NodeJS.Immediate;
}

/**
 * node-pty queues what the terminal does not take at once (a program that does not read its
 * input) without bound and without telling; bounding human input needs to see that queue.
 * It is private, so its shape is checked, and an unknown shape reads as empty (the pending
 * bound test then fails, which is how an upgrade of node-pty that moves it is noticed).
 */
function writeStreamOf(pty: unknown): { queue: WriteTask[]; drop(): void } {
  const stream = (pty as { _writeStream?: WriteStream })._writeStream;
  const queue = Array.isArray(stream?._writeQueue) ? (stream._writeQueue as WriteTask[]) : [];
  return {
    queue,
    drop() {
      if (stream === undefined) return;
      if (stream._writeImmediate === undefined) {
        // The first entry is being written (a write is in flight): it stays, the rest go.
        queue.splice(1);
        return;
      }
      // Waiting for room: nothing is in flight. The retry goes too, or a later write would
      // run beside it and send its bytes twice.
      clearImmediate(stream._writeImmediate);
      stream._writeImmediate = undefined;
      queue.length = 0;
    },
  };
}

/** node-pty's (1.1) terminal as far as writing goes: its state, descriptor and write stream. */
interface WritingTerminal {
  _writable?: unknown;
  _fd?: unknown;
  _socket?: { destroyed?: unknown };
  handleFlowControl?: unknown;
  _writeStream?: WriteStream;
}

/**
 * Writes `data` straight to the terminal's master descriptor when node-pty's write queue is
 * empty: node-pty (1.1) queues every write and sends it with an asynchronous `fs.write`, a
 * round trip through libuv's thread pool for the few bytes of a call line, on every call.
 * The master is non-blocking, so a write never waits: it takes all, part or none of the bytes.
 * Returns false when nothing was written and node-pty's own path is to take `data` whole: the
 * queue holds bytes (the order must hold), the terminal is closed or unknown in shape, or the
 * write failed (EAGAIN: the terminal is full; EIO, EBADF: it is gone). That path then retries
 * or reports the error exactly as it does for every other write. A part written, the rest goes
 * to node-pty's queue.
 */
function directWriter(pty: unknown): (data: string) => boolean {
  const terminal = pty as WritingTerminal;
  const stream = terminal._writeStream;
  const fd = terminal._fd;
  if (typeof fd !== 'number' || !Array.isArray(stream?._writeQueue)) return () => false;
  const queue = stream._writeQueue as unknown[];
  return (data) => {
    // node-pty's `write` becomes a no-op once the terminal closed; flow control is not used.
    if (terminal._writable !== true || terminal.handleFlowControl !== false) return false;
    // A destroyed socket has closed the descriptor, whose number a file opened since (on any
    // thread) may hold: never written to. `_writable` turns false only at the socket's close.
    if (terminal._socket?.destroyed !== false) return false;
    if (queue.length > 0 || stream._writeImmediate !== undefined) return false;
    const bytes = Buffer.from(data, 'utf8');
    let written: number;
    try {
      written = writeSync(fd, bytes);
    } catch {
      return false; // nothing was written: node-pty's path tries again and handles the error
    }
    if (written < bytes.length) (pty as nodePty.IPty).write(bytes.subarray(written));
    return true;
  };
}

/** node-pty's (1.1) private terminal socket and master descriptor. */
interface TerminalInternals {
  _socket?: { destroy?: (...args: unknown[]) => unknown; emit?: (...args: unknown[]) => boolean };
  _fd?: number;
}

/** The most read from a dead terminal before its socket goes: 64 MiB, in 64 KiB reads. */
const TAIL_READS = 1024;

/**
 * node-pty (1.1) destroys the terminal's socket 200 ms after its process exits when the socket
 * has not closed by then, and what the kernel still holds for it is lost. On a busy event loop
 * that timer runs before the pending reads: the last lines of a command that ended its shell
 * went missing from its result and its screen. Before the socket is destroyed, what is left is
 * read straight from the master descriptor (non-blocking: it stops at EAGAIN, or EIO once the
 * terminal is gone) and delivered as data. A private shape, checked: unknown, nothing changes.
 */
function keepTailOnExit(pty: unknown): void {
  const { _socket: socket, _fd: fd } = pty as TerminalInternals;
  if (typeof socket?.destroy !== 'function' || typeof socket.emit !== 'function') return;
  if (typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  const emit = socket.emit.bind(socket);
  socket.destroy = (...args: unknown[]) => {
    const buffer = Buffer.alloc(64 * 1024);
    for (let i = 0; i < TAIL_READS; i++) {
      let read = 0;
      try {
        read = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        break; // EAGAIN: nothing left; EIO or EBADF: the terminal is gone
      }
      if (read <= 0) break;
      emit('data', Buffer.from(buffer.subarray(0, read)));
    }
    return destroy(...args);
  };
}

function toBuffer(chunk: string | Buffer): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}
