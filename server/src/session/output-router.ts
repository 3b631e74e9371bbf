/**
 * Where one shell's PTY output goes. Every byte goes, in order, to the display stream (but
 * what the call line hides) and to the capture of the call in flight; marks go to the
 * shell; the shell's cursor queries are answered from the screen model; and the echo of
 * input typed to the shell's own line reader is dropped up to its line's end.
 */
import { CursorQueryScanner, cursorReport } from '../pty/cursor-queries.ts';
import { type Mark, MarkScanner } from '../pty/marks.ts';
import type { ShellDisplay } from './shell-display.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';

/** The shell's pieces the router uses. */
export interface OutputParts {
  readonly status: ShellStatus;
  readonly pty: ShellProcess;
  readonly output: ShellDisplay;
  /** The per-shell nonce the marks carry. */
  readonly nonce: string;
  /** The dialect's shell asks where the cursor is (see ShellDialect). */
  readonly answersCursorQueries: boolean;
}

/** What only the shell itself knows or does. */
export interface OutputHost {
  /** The bytes now are the call line's to hide from the display (see CallLine.hiding). */
  hiding(): boolean;
  onMark(mark: Mark): void;
  /** The call in flight's capture takes the bytes. */
  capture(data: Buffer): void;
}

export class OutputRouter {
  private readonly scanner: MarkScanner;
  /** Set for dialects whose shell asks where the cursor is (see ShellDialect). */
  private readonly cursorQueries: CursorQueryScanner | null;
  /** The integration's ready mark was seen: what follows is the shell's display. */
  private installed = false;
  /** Input was typed to the shell's own line reader, which echoes it: hide up to its LF. */
  private hidingHostEcho = false;

  constructor(
    private readonly parts: OutputParts,
    private readonly host: OutputHost,
  ) {
    this.scanner = new MarkScanner(parts.nonce);
    this.cursorQueries = parts.answersCursorQueries ? new CursorQueryScanner() : null;
  }

  /** The integration's ready mark: true the first time (a repair re-installs it). */
  integrationReady(): boolean {
    if (this.installed) return false;
    this.installed = true;
    return true;
  }

  /** Hide the echo of the input line just typed to the shell's own line reader, or not. */
  hideHostEcho(hide: boolean): void {
    this.hidingHostEcho = hide;
  }

  push(chunk: Buffer): void {
    for (const piece of this.scanner.push(chunk)) {
      if ('mark' in piece) this.host.onMark(piece.mark);
      else this.onBytes(piece.data);
    }
    // Answered even before the integration is ready: pwsh asks at its very first prompt.
    const queries = this.cursorQueries?.push(chunk) ?? 0;
    for (let i = 0; i < queries; i++) void this.answerCursorQuery();
  }

  /** The PTY is done: bytes held back as a possible mark's start are output after all. */
  flush(): void {
    const rest = this.scanner.flush();
    if (rest.length) this.onBytes(rest);
  }

  private onBytes(data: Buffer): void {
    if (!this.installed) return; // integration set-up noise
    if (this.hidingHostEcho) {
      const lineEnd = data.indexOf(0x0a);
      if (lineEnd === -1) return;
      this.hidingHostEcho = false;
      data = data.subarray(lineEnd + 1);
      if (data.length === 0) return;
    }
    if (!this.host.hiding()) this.parts.output.show(data);
    this.host.capture(data);
  }

  /**
   * Tells the shell where the cursor is, as the screen viewers see shows it. Hidden bytes
   * (the call line's echo) are not on that screen, so the shell's idea of its line may be
   * off by them; only its own redraws of a line it reads depend on it.
   */
  private async answerCursorQuery(): Promise<void> {
    const { row, col } = await this.parts.output.cursor();
    if (!this.parts.status.alive) return;
    try {
      this.parts.pty.write(cursorReport(row, col));
    } catch {
      // The PTY closed meanwhile: nobody is waiting for the answer.
    }
  }
}
