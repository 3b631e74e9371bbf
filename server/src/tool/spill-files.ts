/**
 * Saves the whole rendered output of calls that were clipped, one file per call under
 * `<dir>/<agent>/`, so the clip notice's "this file" exists and the agent can search it.
 * Only the newest files of each agent are kept.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AGENT_ID_REGEX } from '../../../shared/src/api.ts';
import type { SpillTarget, SpillWriter } from './output-renderer.ts';

/** The folder of the data directory saved outputs live in, one sub-folder per agent. */
export const SPILL_DIR_NAME = 'outputs';
/** Files kept per agent (the contract promises the last 20); older ones are deleted. */
export const SPILL_FILES_KEPT_PER_AGENT = 20;
/** Bytes of output one file holds at most, so a runaway command cannot fill the disk. */
export const SPILL_FILE_MAX_BYTES = 256 * 1024 * 1024;
/** Characters collected before one write is issued: the renderer emits many small pieces
 *  (a line at a time for coloured output) and one fs write per piece would cost more. */
const SPILL_BATCH_CHARS = 64 * 1024;
/** Other users on the host must not read what an agent's commands printed. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const RANDOM_BYTES = 4;
/** Our file names: a UTC timestamp to the millisecond, then random hex. */
const FILE_NAME = /^\d{8}T\d{9}Z-[0-9a-f]+\.txt$/;
const BYTES_PER_MIB = 1024 * 1024;

/** The line that ends a file cut at `maxBytes`. */
export function spillCutLine(maxBytes: number): string {
  const size =
    maxBytes % BYTES_PER_MIB === 0 ? `${maxBytes / BYTES_PER_MIB} MiB` : `${maxBytes} bytes`;
  return `[output cut here: a saved output is limited to ${size}]`;
}

export interface SpillFilesOptions {
  /** Defaults to SPILL_FILE_MAX_BYTES; tests make it small. */
  maxFileBytes?: number;
  /** Defaults to SPILL_FILES_KEPT_PER_AGENT. */
  keepPerAgent?: number;
}

export class SpillFiles {
  readonly dir: string;
  private readonly maxFileBytes: number;
  private readonly keepPerAgent: number;
  /** Last timestamp used: names stay in creation order even within one millisecond. */
  private lastStampMs = 0;

  constructor(dir: string, options: SpillFilesOptions = {}) {
    this.dir = resolve(dir);
    this.maxFileBytes = options.maxFileBytes ?? SPILL_FILE_MAX_BYTES;
    this.keepPerAgent = options.keepPerAgent ?? SPILL_FILES_KEPT_PER_AGENT;
  }

  /** A target for OutputRenderer: a file is created only if the output outgrows the clip. */
  forAgent(agent: string): SpillTarget {
    checkAgent(agent);
    return { open: () => this.create(agent) };
  }

  /** The agent's own directory of saved outputs, made if missing: its sandbox may read it. */
  agentDir(agent: string): string {
    checkAgent(agent);
    const agentDir = join(this.dir, agent);
    mkdirSync(agentDir, { recursive: true, mode: DIR_MODE });
    return agentDir;
  }

  /** Creates a new, empty file for `agent` (throws if it cannot) and prunes old ones. */
  create(agent: string): SpillWriter {
    const agentDir = this.agentDir(agent);
    const name = `${this.stamp()}-${randomBytes(RANDOM_BYTES).toString('hex')}.txt`;
    const path = join(agentDir, name);
    // Opened synchronously (one syscall) so a failure is known before any output is queued.
    const fd = openSync(path, 'wx', FILE_MODE);
    return new SpillFile(path, fd, this.maxFileBytes, this.prune(agentDir, name));
  }

  private stamp(): string {
    const ms = Math.max(Date.now(), this.lastStampMs + 1);
    this.lastStampMs = ms;
    return new Date(ms).toISOString().replace(/[-:.]/g, '');
  }

  /** Deletes all but the newest files of the agent; `keep` is never deleted. */
  private async prune(agentDir: string, keep: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(agentDir);
    } catch {
      return;
    }
    const older = names.filter((n) => n !== keep && FILE_NAME.test(n)).sort();
    const excess = older.slice(0, Math.max(older.length - (this.keepPerAgent - 1), 0));
    // A concurrent prune may have removed a file already; that is the outcome we want.
    await Promise.all(excess.map((n) => unlink(join(agentDir, n)).catch(() => undefined)));
  }
}

/**
 * Where `fileName` (a name this module gave, from a result's saved-output line) of `agent`
 * lives under `dir`; null for a name that is not one of ours (a path, `..`, a dot-file).
 */
export function savedOutputPath(dir: string, agent: string, fileName: string): string | null {
  if (!AGENT_ID_REGEX.test(agent) || !FILE_NAME.test(fileName)) return null;
  return join(resolve(dir), agent, fileName);
}

function checkAgent(agent: string): void {
  // The id becomes a directory name: the pattern rules out `..`, separators and dot-files.
  if (!AGENT_ID_REGEX.test(agent)) throw new Error(`invalid agent id: ${JSON.stringify(agent)}`);
}

class SpillFile implements SpillWriter {
  readonly path: string;
  private readonly stream: WriteStream;
  private readonly maxBytes: number;
  private readonly pruned: Promise<void>;
  private pending = '';
  private bytes = 0;
  private endsWithNewline = true;
  /** No more output is taken: the cap was reached, or the file is being closed. */
  private stopped = false;
  private error: Error | null = null;
  private closed: Promise<void> | null = null;

  constructor(path: string, fd: number, maxBytes: number, pruned: Promise<void>) {
    this.path = path;
    this.maxBytes = maxBytes;
    this.pruned = pruned;
    this.stream = createWriteStream(path, { fd });
    this.stream.on('error', (err) => {
      this.error ??= err;
    });
  }

  write(text: string): void {
    if (this.stopped) return;
    this.pending += text;
    if (this.pending.length >= SPILL_BATCH_CHARS) this.flush();
  }

  /** Resolves once the file is closed: every byte is with the OS, readable by the shell
   *  (no fsync: a crash may lose the file, and that is acceptable for a convenience copy). */
  async finish(): Promise<void> {
    this.flush();
    await this.close();
    await this.pruned;
    if (this.error !== null) throw this.error;
  }

  async discard(): Promise<void> {
    this.pending = '';
    await this.close();
    await unlink(this.path).catch(() => undefined);
    await this.pruned;
  }

  private flush(): void {
    const text = this.pending;
    this.pending = '';
    if (this.stopped || text.length === 0) return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size <= this.maxBytes) {
      // Backpressure is not awaited (the PTY must not stall on the disk); what waits in the
      // stream is bounded by the byte cap, and a disk is far faster than a PTY anyway.
      this.stream.write(text);
      this.bytes += size;
      this.endsWithNewline = text.endsWith('\n');
      return;
    }
    // Over the cap: keep what fits, without splitting a UTF-8 sequence, then say so.
    const bytes = Buffer.from(text);
    let end = this.maxBytes - this.bytes;
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    const kept = bytes.subarray(0, end);
    if (kept.length > 0) this.endsWithNewline = kept[kept.length - 1] === 0x0a;
    this.stream.write(kept);
    this.stream.write(`${this.endsWithNewline ? '' : '\n'}${spillCutLine(this.maxBytes)}\n`);
    this.bytes += kept.length;
    this.stopped = true;
  }

  private close(): Promise<void> {
    this.stopped = true;
    this.closed ??= new Promise((done) => {
      if (this.stream.closed) {
        done();
        return;
      }
      this.stream.once('close', () => done());
      this.stream.end();
    });
    return this.closed;
  }
}
