/**
 * A host's side of the saved output files on the link: the control plane asks for a saved
 * output of one agent by the engine's name for it, and the host sends its bytes within the
 * request's credit window. Only files of the host's own spill folder are served, named as the
 * engine names them, opened as untrusted (an agent may plant links, FIFOs or hard links there).
 */
import { type FileHandle, lstat } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  encodeLinkFileChunk,
  type HostMessage,
  LINK_FILE_CHUNK_BYTES,
  LINK_FILE_IDLE_MS,
  LINK_FILE_WINDOW_BYTES,
  type LinkFileControlMessage,
} from '../../../shared/src/link.ts';
import { savedOutputPath } from '../tool/spill-files.ts';
import { openUntrusted, serverUid } from '../untrusted-file.ts';

/** Transfers served at once; more are refused `busy` (each holds a file open). */
export const MAX_FILE_TRANSFERS = 16;
/** A chunk waits while the socket holds this much unsent (bytes), as output does. */
const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
/** How soon a full socket is looked at again (ms). */
const SOCKET_RETRY_MS = 5;

/** What the transfers need of the link. */
export interface HostFilesPort {
  /** Sends a message; false when the link is down. */
  send(message: HostMessage): boolean;
  /** Sends a binary frame; false when the link is down. */
  sendFrame(frame: Uint8Array): boolean;
  /** Bytes the link's socket holds unsent. */
  readonly bufferedAmount: number;
}

interface Transfer {
  readonly id: string;
  handle: FileHandle | null;
  size: number;
  /** The span asked for (`end` exclusive); null until `file_read`. */
  span: { readonly end: number } | null;
  /** The next byte to send. */
  sent: number;
  /** The control plane has every byte before this. */
  acked: number;
  reading: boolean;
  retry: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
  closed: boolean;
}

export class HostFiles {
  private readonly transfers = new Map<string, Transfer>();

  /** `spillDir`: the engine's saved outputs folder (SpillFiles.dir). */
  constructor(
    private readonly spillDir: string,
    private readonly link: HostFilesPort,
  ) {}

  handle(message: LinkFileControlMessage): void {
    switch (message.type) {
      case 'file_open':
        void this.open(message.requestId, message.agent, message.name);
        break;
      case 'file_read': {
        const transfer = this.transfers.get(message.requestId);
        if (transfer === undefined || transfer.span !== null || transfer.handle === null) break;
        const end = Math.min(message.end, transfer.size);
        const start = Math.min(message.start, end);
        transfer.span = { end };
        transfer.sent = start;
        transfer.acked = start;
        this.touch(transfer);
        this.pump(transfer);
        break;
      }
      case 'file_credit': {
        const transfer = this.transfers.get(message.requestId);
        if (transfer === undefined) break;
        transfer.acked = Math.max(transfer.acked, Math.min(message.offset, transfer.sent));
        this.touch(transfer);
        this.pump(transfer);
        break;
      }
      case 'file_close': {
        const transfer = this.transfers.get(message.requestId);
        if (transfer !== undefined) this.close(transfer);
        break;
      }
    }
  }

  /** Ends every transfer (the host stops). */
  dispose(): void {
    for (const transfer of [...this.transfers.values()]) this.close(transfer);
  }

  private async open(id: string, agent: string, name: string): Promise<void> {
    if (this.transfers.has(id)) return; // sent again: one transfer per request
    if (this.transfers.size >= MAX_FILE_TRANSFERS) {
      this.link.send({
        type: 'file_error',
        requestId: id,
        reason: 'busy',
        message: `this host serves ${MAX_FILE_TRANSFERS} saved outputs at once; try again shortly`,
      });
      return;
    }
    const transfer: Transfer = {
      id,
      handle: null,
      size: 0,
      span: null,
      sent: 0,
      acked: 0,
      reading: false,
      retry: undefined,
      idle: undefined,
      closed: false,
    };
    this.transfers.set(id, transfer);
    this.touch(transfer);
    const path = savedOutputPath(this.spillDir, agent, name);
    const opened = path === null ? null : await openSaved(path);
    if (transfer.closed) {
      await opened?.handle.close().catch(() => undefined);
      return;
    }
    if (opened === null) {
      this.fail(transfer, 'not_found', `no saved output ${JSON.stringify(name)} of ${agent}`);
      return;
    }
    transfer.handle = opened.handle;
    transfer.size = opened.size;
    if (!this.link.send({ type: 'file_opened', requestId: id, size: opened.size })) {
      this.close(transfer);
    }
  }

  /** Sends what the window and the socket allow, one read at a time. */
  private pump(transfer: Transfer): void {
    const { span, handle } = transfer;
    if (transfer.closed || transfer.reading || span === null || handle === null) return;
    if (transfer.sent >= span.end) {
      this.close(transfer);
      return;
    }
    const room = transfer.acked + LINK_FILE_WINDOW_BYTES - transfer.sent;
    if (room <= 0 || transfer.retry !== undefined) return;
    if (this.link.bufferedAmount >= SOCKET_HIGH_WATER_BYTES) {
      transfer.retry = setTimeout(() => {
        transfer.retry = undefined;
        this.pump(transfer);
      }, SOCKET_RETRY_MS);
      return;
    }
    const length = Math.min(LINK_FILE_CHUNK_BYTES, room, span.end - transfer.sent);
    transfer.reading = true;
    // A buffer per chunk: the socket may still hold the last one when the next read lands.
    const buffer = Buffer.allocUnsafe(length);
    handle.read(buffer, 0, length, transfer.sent).then(
      ({ bytesRead }) => {
        transfer.reading = false;
        if (transfer.closed) return;
        if (bytesRead === 0) {
          this.fail(transfer, 'failed', 'the saved output shrank while it was being read');
          return;
        }
        const frame = encodeLinkFileChunk(
          transfer.id,
          transfer.sent,
          buffer.subarray(0, bytesRead),
        );
        if (!this.link.sendFrame(frame)) {
          this.close(transfer);
          return;
        }
        transfer.sent += bytesRead;
        this.pump(transfer);
      },
      (error: unknown) => {
        transfer.reading = false;
        if (!transfer.closed) this.fail(transfer, 'failed', `reading failed: ${String(error)}`);
      },
    );
  }

  private fail(transfer: Transfer, reason: 'not_found' | 'failed', message: string): void {
    this.link.send({ type: 'file_error', requestId: transfer.id, reason, message });
    this.close(transfer);
  }

  /** The control plane spoke of the transfer: it is not idle. */
  private touch(transfer: Transfer): void {
    clearTimeout(transfer.idle);
    transfer.idle = setTimeout(() => this.close(transfer), LINK_FILE_IDLE_MS);
  }

  private close(transfer: Transfer): void {
    if (transfer.closed) return;
    transfer.closed = true;
    clearTimeout(transfer.idle);
    clearTimeout(transfer.retry);
    this.transfers.delete(transfer.id);
    // A read in flight finishes on its own; the handle closes once nothing uses it.
    void transfer.handle?.close().catch(() => undefined);
  }
}

/**
 * The saved output at `path`, opened without following links, in a real folder of the host's
 * own (an unsandboxed agent may have put a link in its folder's place); null when not so.
 */
async function openSaved(path: string): Promise<{ handle: FileHandle; size: number } | null> {
  const folder = await lstat(dirname(path)).catch(() => null);
  if (folder === null || !folder.isDirectory() || folder.uid !== serverUid()) return null;
  return openUntrusted(path).catch(() => null);
}
