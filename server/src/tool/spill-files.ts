/**
 * Saves the whole rendered output of calls that were clipped, one file per call under
 * `<dir>/<agent>/`, so the clip notice's "this file" exists and the agent can search it.
 * Only the newest files of each agent are kept.
 */
import { randomBytes } from 'node:crypto';
import {
  constants,
  createWriteStream,
  lstatSync,
  mkdirSync,
  openSync,
  type WriteStream,
} from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AGENT_ID_REGEX } from '../../../shared/src/api.ts';
import { Emitter } from '../pty/disposable.ts';
import { serverUid } from '../untrusted-file.ts';
import type { SpillTarget, SpillWriter } from './output-renderer.ts';
import { SpillBudget, type SpillCap } from './spill-budget.ts';

/** The folder of the data directory saved outputs live in, one sub-folder per agent. */
export const SPILL_DIR_NAME = 'outputs';
/** Files kept per agent (the contract promises the last 20); older ones are deleted. */
export const SPILL_FILES_KEPT_PER_AGENT = 20;
/** Bytes of output one file holds at most, so a runaway command cannot fill the disk. */
export const SPILL_FILE_MAX_BYTES = 256 * 1024 * 1024;
/** Characters collected before one write is issued: the renderer emits many small pieces
 *  (a line at a time for coloured output) and one fs write per piece would cost more. */
const SPILL_BATCH_CHARS = 64 * 1024;
/** Other users on the host must not read what an agent's commands printed. Group read is
 *  for a shell that runs as its own user (launch/shell-ownership.ts): the directory is 0700
 *  unless that shell's group is let in. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o640;
const RANDOM_BYTES = 4;
/** A new file only, never through a link (an unsandboxed shell can write these folders). */
const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Our file names: a UTC timestamp to the millisecond, then random hex. */
const FILE_NAME = /^\d{8}T\d{9}Z-[0-9a-f]+\.txt$/;
const BYTES_PER_MIB = 1024 * 1024;
/** Room held for the line that says where and why a saved output was cut (longer than any
 *  such line): it counts toward the caps like the output it ends. */
const CUT_LINE_RESERVE_BYTES = 128;

/** Defaults of the caps on all of one agent's saved outputs, and on everyone's. */
export const SPILL_AGENT_MAX_BYTES = 1024 * 1024 * 1024;
export const SPILL_TOTAL_MAX_BYTES = 4 * 1024 * 1024 * 1024;

function sizeText(bytes: number): string {
  return bytes % BYTES_PER_MIB === 0 ? `${bytes / BYTES_PER_MIB} MiB` : `${bytes} bytes`;
}

/** The line that ends a file cut at `maxBytes`. */
export function spillCutLine(maxBytes: number): string {
  return `[output cut here: a saved output is limited to ${sizeText(maxBytes)}]`;
}

/** The line that ends a file cut because an agent's saved outputs, or all, reached their cap. */
export function spillCapCutLine(cap: SpillCap, maxBytes: number): string {
  return cap === 'agent'
    ? `[output cut here: one agent's saved outputs are limited to ${sizeText(maxBytes)} in all]`
    : `[output cut here: saved outputs are limited to ${sizeText(maxBytes)} in all]`;
}

export interface SpillFilesOptions {
  /** Defaults to SPILL_FILE_MAX_BYTES; tests make it small. */
  maxFileBytes?: number;
  /** Defaults to SPILL_FILES_KEPT_PER_AGENT. */
  keepPerAgent?: number;
  /** Defaults to SPILL_AGENT_MAX_BYTES. */
  maxAgentBytes?: number;
  /** Defaults to SPILL_TOTAL_MAX_BYTES. */
  maxTotalBytes?: number;
}

export class SpillFiles {
  readonly dir: string;
  /** Each file's end: null when it was saved, else why the disk refused it. */
  readonly onSave = new Emitter<unknown>();
  private readonly maxFileBytes: number;
  private readonly keepPerAgent: number;
  private readonly budget: SpillBudget;
  private readonly caps: { readonly agent: number; readonly total: number };
  /** Last timestamp used: names stay in creation order even within one millisecond. */
  private lastStampMs = 0;

  constructor(dir: string, options: SpillFilesOptions = {}) {
    this.dir = resolve(dir);
    this.maxFileBytes = options.maxFileBytes ?? SPILL_FILE_MAX_BYTES;
    this.keepPerAgent = options.keepPerAgent ?? SPILL_FILES_KEPT_PER_AGENT;
    this.caps = {
      agent: options.maxAgentBytes ?? SPILL_AGENT_MAX_BYTES,
      total: options.maxTotalBytes ?? SPILL_TOTAL_MAX_BYTES,
    };
    this.budget = new SpillBudget(
      this.dir,
      { maxAgentBytes: this.caps.agent, maxTotalBytes: this.caps.total },
      FILE_NAME,
    );
  }

  /** Bytes all saved outputs take now (as written, counted at write time). */
  get totalBytes(): number {
    return this.budget.totalBytes;
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
    // An unsandboxed shell may have put a link (or anything else) in the folder's place:
    // files are made, pruned and served only in a real directory of the server's.
    const stats = lstatSync(agentDir);
    if (!stats.isDirectory() || stats.uid !== serverUid()) {
      throw new Error(`${agentDir} is not a directory of the server's own`);
    }
    return agentDir;
  }

  /** Creates a new, empty file for `agent` (throws if it cannot) and prunes old ones. */
  create(agent: string): SpillWriter {
    const agentDir = this.agentDir(agent);
    const name = `${this.stamp()}-${randomBytes(RANDOM_BYTES).toString('hex')}.txt`;
    const path = join(agentDir, name);
    this.budget.load();
    // Opened synchronously (one syscall) so a failure is known before any output is queued.
    let fd: number;
    try {
      fd = openSync(path, CREATE_FLAGS, FILE_MODE);
    } catch (error) {
      this.onSave.fire(error);
      throw error;
    }
    this.budget.opened(agent, name);
    return new SpillFile(path, fd, this.maxFileBytes, this.prune(agent, agentDir, name), {
      take: (bytes) => this.budget.take(agent, name, bytes),
      giveBack: (bytes) => this.budget.giveBack(agent, name, bytes),
      cutLine: (cap) => spillCapCutLine(cap, cap === 'agent' ? this.caps.agent : this.caps.total),
      closed: (error, deleted) => {
        if (deleted) this.budget.removed(agent, name);
        else this.budget.closed(agent, name);
        this.onSave.fire(error);
      },
    });
  }

  private stamp(): string {
    const ms = Math.max(Date.now(), this.lastStampMs + 1);
    this.lastStampMs = ms;
    return new Date(ms).toISOString().replace(/[-:.]/g, '');
  }

  /** Deletes all but the newest files of the agent; `keep` is never deleted. */
  private async prune(agent: string, agentDir: string, keep: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(agentDir);
    } catch {
      return;
    }
    const older = names.filter((n) => n !== keep && FILE_NAME.test(n)).sort();
    const excess = older.slice(0, Math.max(older.length - (this.keepPerAgent - 1), 0));
    // A concurrent prune may have removed a file already; that is the outcome we want.
    await Promise.all(
      excess.map((n) =>
        unlink(join(agentDir, n)).then(
          () => this.budget.removed(agent, n),
          () => undefined,
        ),
      ),
    );
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

/** Whether `fileName` is a name this module gives its files (a timestamp and random hex). */
export function isSavedOutputName(fileName: string): boolean {
  return FILE_NAME.test(fileName);
}

function checkAgent(agent: string): void {
  // The id becomes a directory name: the pattern rules out `..`, separators and dot-files.
  if (!AGENT_ID_REGEX.test(agent)) throw new Error(`invalid agent id: ${JSON.stringify(agent)}`);
}

/** How one file takes room from the budget and reports its end. */
interface SpillFileBudget {
  take(bytes: number): { granted: number; cap: SpillCap | null };
  /** Bytes taken and not written after all. */
  giveBack(bytes: number): void;
  cutLine(cap: SpillCap): string;
  /** `error`: the disk refused a write (null: saved); `deleted`: the file is gone. */
  closed(error: Error | null, deleted: boolean): void;
}

class SpillFile implements SpillWriter {
  readonly path: string;
  private readonly stream: WriteStream;
  private readonly maxBytes: number;
  private readonly pruned: Promise<void>;
  private readonly budget: SpillFileBudget;
  private pending = '';
  private bytes = 0;
  private endsWithNewline = true;
  /** Budget bytes held for the cut line (taken with the first write); null before it. */
  private cutRoom: number | null = null;
  /** No more output is taken: the cap was reached, or the file is being closed. */
  private stopped = false;
  private error: Error | null = null;
  private closed: Promise<void> | null = null;

  constructor(
    path: string,
    fd: number,
    maxBytes: number,
    pruned: Promise<void>,
    budget: SpillFileBudget,
  ) {
    this.path = path;
    this.maxBytes = maxBytes;
    this.pruned = pruned;
    this.budget = budget;
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
    if (this.error !== null) {
      // What the disk refused is not offered: the file goes, and the result says so.
      await unlink(this.path).catch(() => undefined);
      this.budget.closed(this.error, true);
      throw this.error;
    }
    this.releaseCutRoom();
    this.budget.closed(null, false);
  }

  async discard(): Promise<void> {
    this.pending = '';
    await this.close();
    await unlink(this.path).catch(() => undefined);
    this.budget.closed(null, true);
    await this.pruned;
  }

  private flush(): void {
    const text = this.pending;
    this.pending = '';
    if (this.stopped || text.length === 0) return;
    if (this.cutRoom === null) {
      // The room for the cut line is held from the first write on, so a file cut at any cap
      // (even one reached before this file took a byte) ends with why within that cap.
      const reserve = this.budget.take(CUT_LINE_RESERVE_BYTES);
      this.cutRoom = reserve.granted;
      if (reserve.cap !== null) {
        this.cut(Buffer.alloc(0), reserve.cap);
        return;
      }
    }
    const size = Buffer.byteLength(text);
    const wanted = Math.min(size, this.maxBytes - this.bytes);
    const { granted, cap } = this.budget.take(wanted);
    if (granted === size) {
      // Backpressure is not awaited (the PTY must not stall on the disk); what waits in the
      // stream is bounded by the byte caps, and a disk is far faster than a PTY anyway.
      this.stream.write(text);
      this.bytes += size;
      this.endsWithNewline = text.endsWith('\n');
      return;
    }
    // Over a cap: keep what fits, without splitting a UTF-8 sequence, then say so.
    const bytes = Buffer.from(text);
    let end = granted;
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
    this.budget.giveBack(granted - end);
    this.cut(bytes.subarray(0, end), granted < wanted ? cap : null);
  }

  /** Ends the file with what it keeps of the last text and the line saying why it stops. */
  private cut(kept: Buffer, cap: SpillCap | null): void {
    if (kept.length > 0) this.endsWithNewline = kept[kept.length - 1] === 0x0a;
    this.stream.write(kept);
    this.bytes += kept.length;
    const why = cap === null ? spillCutLine(this.maxBytes) : this.budget.cutLine(cap);
    const line = `${this.endsWithNewline ? '' : '\n'}${why}\n`;
    const lineBytes = Buffer.byteLength(line);
    // Only when the total cap was full before this file began (other agents' files being
    // written hold it) is there no room even for the line: the cap wins, the file stays short.
    if (lineBytes <= (this.cutRoom ?? 0)) {
      this.stream.write(line);
      this.cutRoom = (this.cutRoom ?? 0) - lineBytes;
    }
    this.stopped = true;
  }

  /** Room held for a cut line that was not needed goes back to the budget. */
  private releaseCutRoom(): void {
    if (this.cutRoom) this.budget.giveBack(this.cutRoom);
    this.cutRoom = 0;
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
