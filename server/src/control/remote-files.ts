/**
 * The control plane's side of the saved output files on the link: opens a saved output on the
 * host that holds it and streams a span of it, crediting the host as the reader takes the
 * bytes, so memory per transfer stays within the link's window. A host that is not linked, or
 * whose link drops before or during a transfer, is `HOST_UNREACHABLE`, named.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  LINK_FILE_WINDOW_BYTES,
  type LinkFileChunk,
  type LinkFileHostMessage,
} from '../../../shared/src/link.ts';
import { type ErrorSpec, JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import type { HostDirectory, JoinedHost } from './joined-hosts.ts';

/** The host of a shell cannot be reached through its link (the message names it and why). */
export const JUMPSEAT_ERR_HOST_UNREACHABLE: ErrorSpec = { code: 'HOST_UNREACHABLE', status: 503 };

/** How long the host may take to open a file (ms): a host of an older build never answers. */
export const FILE_OPEN_ANSWER_MS = 10_000;
/** How long a transfer whose reader waits may go without a chunk (ms) before it fails: a host
 *  whose link still answers pings but whose disk hangs. */
export const FILE_CHUNK_WAIT_MS = 30_000;
/** The host is credited once this many new bytes reached the reader (a quarter window, so
 *  the host never idles waiting for credit while the reader keeps up). */
const FILE_CREDIT_EVERY_BYTES = LINK_FILE_WINDOW_BYTES / 4;
/** Bytes the stream holds for its reader (on top of the window in flight). */
const READER_HIGH_WATER_BYTES = 256 * 1024;

/** A saved output opened on its host: its size, then one span of it streamed. */
export interface RemoteFile {
  readonly size: number;
  /**
   * Streams bytes `start` to `end` (inclusive); resolves once the first chunk arrived, so a
   * host lost before any byte is a refusal, not a broken reply.
   */
  stream(start: number, end: number): Promise<Readable>;
  /** Not read after all: the host closes it. */
  close(): void;
}

interface Opening {
  readonly kind: 'opening';
  readonly host: JoinedHost;
  readonly settle: (answer: RemoteFile | JumpseatError) => void;
}

export class RemoteFiles {
  private readonly requests = new Map<string, Opening | Transfer>();

  constructor(directory: HostDirectory) {
    directory.onLinkDown.on((host) => {
      for (const request of [...this.requests.values()]) {
        if (request.host !== host) continue;
        const lost = unreachable(host, 'its link dropped');
        if (request.kind === 'opening') request.settle(lost);
        else request.fail(lost);
      }
    });
  }

  /** Opens `agent`'s saved output `name` on `host`: 404 when it has none, 503 when away. */
  open(host: JoinedHost, agent: string, name: string): Promise<RemoteFile> {
    const connection = host.connection;
    if (connection === null) {
      return Promise.reject(unreachable(host, 'it is not connected'));
    }
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          settle(
            unreachable(
              host,
              `it did not answer within ${FILE_OPEN_ANSWER_MS / 1000} s (a host older than this control plane cannot serve saved outputs)`,
            ),
          ),
        FILE_OPEN_ANSWER_MS,
      );
      const settle = (answer: RemoteFile | JumpseatError): void => {
        clearTimeout(timer);
        if (this.requests.get(requestId)?.kind === 'opening') this.requests.delete(requestId);
        if (answer instanceof JumpseatError) reject(answer);
        else resolve(answer);
      };
      this.requests.set(requestId, { kind: 'opening', host, settle });
      connection.send({ type: 'file_open', requestId, agent, name });
    });
  }

  /** A message about a transfer from a host's link. */
  received(host: JoinedHost, message: LinkFileHostMessage): void {
    const request = this.requests.get(message.requestId);
    if (request === undefined && message.type === 'file_opened') {
      // Opened after this side stopped waiting: the host need not hold it till it idles out.
      host.connection?.send({ type: 'file_close', requestId: message.requestId });
      return;
    }
    // Only the host asked answers: another host's token never feeds this transfer.
    if (request === undefined || request.host !== host) return;
    if (message.type === 'file_opened') {
      if (request.kind !== 'opening') return;
      const transfer = new Transfer(host, message.requestId, message.size, () =>
        this.requests.delete(message.requestId),
      );
      this.requests.set(message.requestId, transfer);
      request.settle(transfer);
      return;
    }
    const error =
      message.reason === 'not_found'
        ? new JumpseatError(
            JUMPSEAT_ERR_NOT_FOUND,
            'the saved output is gone: the newest 20 of each agent are kept',
          )
        : unreachable(host, `it could not send the saved output (${message.message})`);
    if (request.kind === 'opening') request.settle(error);
    else request.fail(error);
  }

  /** A chunk frame from a host's link. */
  chunk(host: JoinedHost, chunk: LinkFileChunk): void {
    const request = this.requests.get(chunk.requestId);
    if (request === undefined || request.host !== host || request.kind !== 'transfer') return;
    request.receive(chunk);
  }
}

function unreachable(host: JoinedHost, why: string): JumpseatError {
  return new JumpseatError(
    JUMPSEAT_ERR_HOST_UNREACHABLE,
    `host ${host.name} cannot be reached: ${why}`,
  );
}

/** One opened file: a span streamed to one reader, credited as it reads. */
class Transfer implements RemoteFile {
  readonly kind = 'transfer';
  private stream_: Readable | null = null;
  /** The next byte expected, and the end of the span (exclusive). */
  private next = 0;
  private end = 0;
  private credited = 0;
  private first: { resolve: () => void; reject: (error: JumpseatError) => void } | null = null;
  private waitTimer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    readonly host: JoinedHost,
    private readonly id: string,
    readonly size: number,
    private readonly forget: () => void,
  ) {}

  stream(start: number, end: number): Promise<Readable> {
    if (this.stream_ !== null || this.done) throw new Error('a remote file is streamed once');
    this.next = start;
    this.credited = start;
    this.end = end + 1;
    const stream = new Readable({
      highWaterMark: READER_HIGH_WATER_BYTES,
      read: () => {
        this.credit(true);
        this.waitForChunk();
      },
      destroy: (error, callback) => {
        // The reader left (or the transfer failed): the host stops and closes the file.
        if (!this.done) this.finish(true);
        callback(error);
      },
    });
    this.stream_ = stream;
    const ready = new Promise<Readable>((resolve, reject) => {
      this.first = { resolve: () => resolve(stream), reject };
    });
    this.host.connection?.send({ type: 'file_read', requestId: this.id, start, end: this.end });
    this.waitForChunk();
    return ready;
  }

  close(): void {
    if (!this.done) this.finish(true);
  }

  receive(chunk: LinkFileChunk): void {
    const stream = this.stream_;
    if (stream === null || this.done) return;
    if (chunk.offset !== this.next || chunk.data.length > this.end - this.next) {
      this.fail(unreachable(this.host, 'it sent the saved output out of order'));
      return;
    }
    this.next += chunk.data.length;
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    stream.push(Buffer.from(chunk.data));
    this.first?.resolve();
    this.first = null;
    if (this.next >= this.end) {
      this.finish(false);
      stream.push(null);
      return;
    }
    this.credit(false);
  }

  /** The transfer cannot go on: before the first byte the caller is refused, after it the
   *  reader's stream errors (the reply is cut off, never a short 200). */
  fail(error: JumpseatError): void {
    if (this.done) return;
    this.finish(false);
    if (this.first !== null) {
      this.first.reject(error);
      this.first = null;
      this.stream_?.destroy();
      return;
    }
    this.stream_?.destroy(error);
  }

  /** Credits the host for what reached the stream, unless the reader is behind. */
  private credit(force: boolean): void {
    const stream = this.stream_;
    if (stream === null || this.done) return;
    if (stream.readableLength >= stream.readableHighWaterMark) return;
    const fresh = this.next - this.credited;
    if (fresh <= 0 || (!force && fresh < FILE_CREDIT_EVERY_BYTES)) return;
    this.credited = this.next;
    this.host.connection?.send({ type: 'file_credit', requestId: this.id, offset: this.next });
  }

  /** A reader waits for bytes: they must come within FILE_CHUNK_WAIT_MS. */
  private waitForChunk(): void {
    if (this.done || this.waitTimer !== undefined) return;
    this.waitTimer = setTimeout(() => {
      this.waitTimer = undefined;
      this.fail(
        unreachable(
          this.host,
          `it sent no byte of the saved output for ${FILE_CHUNK_WAIT_MS / 1000} s`,
        ),
      );
    }, FILE_CHUNK_WAIT_MS);
  }

  private finish(tellHost: boolean): void {
    this.done = true;
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    this.forget();
    if (tellHost) this.host.connection?.send({ type: 'file_close', requestId: this.id });
  }
}
