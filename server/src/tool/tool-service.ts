/**
 * What the API layer needs from the engine: run one model-facing tool call, and read
 * the live shells (their calls are the history's, server/src/store). Implemented by the engine here.
 */
import type { CallOutcome, Dialect, SessionInfo, ToolDefinition } from '../../../shared/src/api.ts';
import type { Disposable } from '../pty/disposable.ts';

/**
 * How a call ended, for metrics and logs: the outcome of a call that ran (`cancelled` also
 * when it was cancelled while queued), `refused` when a coded error stopped it before it ran
 * (bad command, a human holds the shell, the shell could not start, shutting down), `error`
 * for anything unexpected.
 */
export type CallEndKind = CallOutcome | 'refused' | 'error';

export interface FinishedCall {
  readonly agent: string;
  readonly dialect: Dialect;
  readonly outcome: CallEndKind;
  /** From the start of the call's turn to its result; 0 for a refused call. */
  readonly durationMs: number;
  /** The command's exit status when it completed; null otherwise. */
  readonly exitCode: number | null;
}

/** What the caller asks of where a new shell starts (a control plane with joined hosts). */
export interface CallPlacement {
  /** The new shell goes only to a host with all of these labels (an agent token's). */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ToolService {
  /**
   * Runs `command` for `agent` in its persistent shell of `dialect` and resolves with the
   * exact model-facing result text. Rejects with a JumpseatError for refusals (400 for a
   * bad command, 409 HUMAN_CONTROL, 503 when the shell cannot start). When `signal` aborts
   * before the result, the call is cancelled (the shell is reset if the call had started).
   */
  call(
    agent: string,
    dialect: Dialect,
    command: string,
    signal: AbortSignal,
    placement?: CallPlacement,
  ): Promise<string>;
  /** The dialects this server can run (pwsh only when PowerShell is installed). */
  dialects(): readonly Dialect[];
  /** Every live shell. */
  sessions(): SessionInfo[];
  /** The tool definitions agents are given. */
  definitions(): ToolDefinition[];
  /**
   * The server begins to stop: no new shell starts, and whatever ends a shell from now on
   * (a cancelled call's reset included) records it `closed`. Called before calls in flight
   * are cancelled.
   */
  beginClose(): void;
  /** Ends every shell's process tree. */
  close(): Promise<void>;
  /** Fires once per call to `call`, however it ended (never with the command or its text). */
  onCallFinished(listener: (call: FinishedCall) => void): Disposable;
}
