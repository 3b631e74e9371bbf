/**
 * The session's view of an output capture: it feeds bytes and later asks for the rendered
 * output. The tool layer supplies the implementation (its renderer), so this folder never
 * depends on how results are worded.
 */

export interface CapturedOutput {
  readonly text: string;
  readonly clipped: boolean;
  readonly totalChars: number;
  readonly spillPath: string | null;
  readonly lostPrefix: boolean;
  /** Head-tail clipping: characters left out between head and tail, and where the tail starts. */
  readonly omittedChars?: number;
  readonly tailStart?: number | null;
}

export interface OutputCapture {
  write(chunk: Uint8Array): void;
  /** True while the captured stream has switched to the alternate screen. */
  readonly altScreen: boolean;
  finish(): Promise<CapturedOutput>;
}

/** Makes the capture for one call of `agent` (spill files are kept per agent). */
export type CaptureFactory = (agent: string) => OutputCapture;

/** How a call ended, as the session saw it; the tool layer words it for the model. */
export type CallEnding =
  | { readonly kind: 'completed'; readonly exitCode: number }
  | { readonly kind: 'waiting_input'; readonly processName: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'shell_exit'; readonly code: number | null; readonly signal: string | null }
  | { readonly kind: 'cancelled' };

export interface CallResult {
  readonly ending: CallEnding;
  readonly output: CapturedOutput;
}
