/**
 * The session's view of an output capture: it feeds bytes and later asks for the rendered
 * output. The tool layer supplies the implementation (its renderer), so this folder never
 * depends on how results are worded.
 */

/** A call's output, rendered and clipped, as the result text is built from it. */
export interface CapturedOutput {
  /** The output, one trailing newline removed, cut to `maxOutputChars` UTF-16 units: its
   *  start, or for head-tail its start and then its end (from `tailStart`). */
  readonly text: string;
  /** The output (after the newline removal) was longer than `maxOutputChars`. */
  readonly clipped: boolean;
  /** Length of the whole output after the newline removal, in UTF-16 units. */
  readonly totalChars: number;
  /** File holding the whole output; set only when `clipped` and the file was saved. */
  readonly spillPath: string | null;
  /** Why the whole output of a clipped call could not be saved; absent or null otherwise. */
  readonly spillFailure?: string | null;
  /** The engine knows the start of the output is missing. */
  readonly lostPrefix: boolean;
  /** UTF-16 units left out between head and tail; 0 unless head-tail clipped. */
  readonly omittedChars: number;
  /** Index in `text` where the tail begins; null unless head-tail clipped. */
  readonly tailStart: number | null;
}

export interface OutputCapture {
  write(chunk: Uint8Array): void;
  /** True while the captured stream has switched to the alternate screen. */
  readonly altScreen: boolean;
  /**
   * Ends the capture. With `screen`, the text of a full-screen program's screen, the output
   * is that screen (clipped by the same rules) instead of what the stream carried.
   */
  finish(screen?: string): Promise<CapturedOutput>;
}

/** Makes the capture for one call of `agent` (spill files are kept per agent). */
export type CaptureFactory = (agent: string) => OutputCapture;

/** How a call ended, as the session saw it; the tool layer words it for the model. */
export type CallEnding =
  | { readonly kind: 'completed'; readonly exitCode: number }
  | { readonly kind: 'waiting_input'; readonly processName: string; readonly pid: number }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'shell_exit'; readonly code: number | null; readonly signal: string | null }
  | { readonly kind: 'cancelled' };

export interface CallResult {
  readonly ending: CallEnding;
  readonly output: CapturedOutput;
}
