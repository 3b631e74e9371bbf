/**
 * What the API layer needs from the engine: run one model-facing tool call, and read
 * the live shells and their calls. Implemented by the engine in this folder.
 */
import type { CallInfo, Dialect, SessionInfo, ToolDefinition } from '../../../shared/src/api.ts';

export interface ToolService {
  /**
   * Runs `command` for `agent` in its persistent shell of `dialect` and resolves with the
   * exact model-facing result text. Rejects with a JumpseatError for refusals (400 for a
   * bad command, 409 HUMAN_CONTROL, 503 when the shell cannot start). When `signal` aborts
   * before the result, the call is cancelled (the shell is reset if the call had started).
   */
  call(agent: string, dialect: Dialect, command: string, signal: AbortSignal): Promise<string>;
  /** The dialects this server can run (pwsh only when PowerShell is installed). */
  dialects(): readonly Dialect[];
  /** Every live shell. */
  sessions(): SessionInfo[];
  /** The calls of one shell, oldest first; undefined when no such shell is known. */
  calls(sessionId: string): CallInfo[] | undefined;
  /** The tool definitions agents are given. */
  definitions(): ToolDefinition[];
  /** Ends every shell's process tree. */
  close(): Promise<void>;
}
