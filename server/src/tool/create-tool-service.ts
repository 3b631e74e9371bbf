/**
 * The engine as the API sees it: validates a command, runs it through the shell registry,
 * words the result for the model (contract text), and keeps each call's record with the
 * exact text the agent got.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { CallInfo, CallOutcome, Dialect, ToolDefinition } from '../../../shared/src/api.ts';
import type { Config, DialectSettings } from '../config/config.ts';
import { JUMPSEAT_ERR_CANCELLED, JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import { type ChosenLauncher, chooseLauncher } from '../launch/choose-launcher.ts';
import { readDescriptorLimit, shellCapacity } from '../ops/descriptor-limit.ts';
import { terminalSafe } from '../ops/terminal-safe.ts';
import { bashDialect } from '../pty/bash-dialect.ts';
import type { ShellDialect } from '../pty/dialect.ts';
import { Emitter } from '../pty/disposable.ts';
import { pwshDialect } from '../pty/pwsh-dialect.ts';
import { locatePwsh } from '../pty/pwsh-executable.ts';
import type { CallResult, OutputCapture } from '../session/capture.ts';
import { PrivateDirs } from '../session/shell-files.ts';
import { CallCancelledError, type ExecutedCall, ShellRegistry } from '../session/shell-registry.ts';
import { Workspaces } from '../session/workspaces.ts';
import { validateCommand } from './command-rules.ts';
import { OutputRenderer } from './output-renderer.ts';
import { type CallEnding, composeResult } from './result-text.ts';
import { SPILL_DIR_NAME, SpillFiles } from './spill-files.ts';
import type { CallEndKind, FinishedCall, ToolService } from './tool-service.ts';

/** The agent's terminal size: fixed, so output wraps the same way every time. */
export const AGENT_COLS = 120;
export const AGENT_ROWS = 40;

const INPUT_DESCRIPTIONS: Record<Dialect, string> = {
  bash: 'The bash command to run.',
  pwsh: 'The PowerShell command to run.',
};

export interface ToolServiceOptions {
  /** The environment shells inherit (filtered); defaults to the server's. */
  readonly baseEnv?: NodeJS.ProcessEnv;
  /** Live shells at most; defaults to what this process's open-file limit allows. */
  readonly maxShells?: number;
  /** Where a shell that could not start is said (one line); defaults to stderr. */
  readonly warn?: (line: string) => void;
}

/** The tool service plus the registry behind it, for the live hub and in-process tests. */
export interface EngineToolService extends ToolService {
  readonly registry: ShellRegistry;
  /** Where shells run, and the warning to print when that is not where they were meant to. */
  readonly placement: ChosenLauncher;
  /** The saved full outputs of clipped calls (their caps, and whether the disk takes them). */
  readonly spill: SpillFiles;
  /** The shells' private dirs under the data dir (swept of dead runs' at start). */
  readonly privateDirs: PrivateDirs;
  /** Live shells at most (see ops/descriptor-limit.ts). */
  readonly maxShells: number;
}

export function createToolService(
  config: Config,
  options: ToolServiceOptions = {},
): EngineToolService {
  const baseEnv = options.baseEnv ?? process.env;
  const maxShells = options.maxShells ?? shellCapacity(readDescriptorLimit());
  // pwsh is offered only when PowerShell 7 is found, the same way the tests look for it.
  const pwsh = locatePwsh(config.pwshPath, baseEnv);
  const engines: Partial<Record<Dialect, ShellDialect>> = {
    bash: bashDialect,
    ...(pwsh === null ? {} : { pwsh: pwshDialect(pwsh) }),
  };
  const spill = new SpillFiles(join(config.dataDir, SPILL_DIR_NAME), config.spill);
  const workspaces = new Workspaces(config.workspace, config.sharedWorkspace);
  const privateDirs = new PrivateDirs(config.dataDir);
  const placement = chooseLauncher({
    sandbox: config.sandbox,
    shellUser: config.shellUser,
    network: config.network,
    maxProcesses: config.maxProcesses,
    maxMemoryBytes: config.maxMemoryBytes,
    tmpSizeBytes: config.tmpSizeBytes,
    cpuWeight: config.cpuWeight,
    cpuMax: config.cpuMax,
    workspaceQuotaBytes: config.workspaceQuotaBytes,
    dataDir: config.dataDir,
    workspace: config.workspace,
    sharedWorkspace: config.sharedWorkspace,
    readable: config.readable,
    shellEnv: baseEnv,
    pwshPath: pwsh,
  });
  const settings = (dialect: Dialect): DialectSettings => config.dialects[dialect];
  // A data dir that refuses a new folder (full, read-only) must not stop the shell: its
  // results then say their full output was not saved.
  const savedOutputsOf = (agent: string): string[] => {
    try {
      return [spill.agentDir(agent)];
    } catch {
      return [];
    }
  };
  const registry = new ShellRegistry((dialect) => {
    const shellDialect = engines[dialect];
    if (!shellDialect) throw new Error(`no engine for ${dialect}`);
    return {
      dialect: shellDialect,
      launcher: placement.launcher,
      privateDirs,
      // An agent reads its own saved outputs at the path its results name; a person's shell
      // has none until it is handed to an agent.
      placeOf: (who) =>
        'agent' in who
          ? { workspace: workspaces.forAgent(who.agent), readable: savedOutputsOf(who.agent) }
          : { workspace: workspaces.forPerson(who.owner.tokenId), readable: [] },
      baseEnv,
      envPass: config.envPass,
      cols: AGENT_COLS,
      rows: AGENT_ROWS,
      timeoutMs: settings(dialect).timeoutMs,
      newCapture: (agent) =>
        rendererCapture(
          new OutputRenderer({
            maxOutputChars: settings(dialect).maxOutputChars,
            clip: settings(dialect).clip,
            // A person's own shell ('') has no agent folder: the one call it runs (its
            // prompt, see personal-prompt.ts) prints nothing worth saving.
            spill: agent === '' ? null : spill.forAgent(agent),
          }),
        ),
    };
  }, maxShells);
  // The caller is told too (503), but the operator learns it only here. The reason quotes what
  // the shell printed: its control and format characters reach no log as themselves.
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  registry.onStartFailed.on(({ shell, error }) => {
    const whose = shell.agent === null ? 'a person' : `agent "${terminalSafe(shell.agent)}"`;
    const reason = error instanceof Error ? error.message : String(error);
    warn(`jumpseat: warning: a shell of ${whose} could not start: ${terminalSafe(reason)}`);
  });
  const finished = new Emitter<FinishedCall>();
  const available = (): Dialect[] => (Object.keys(engines) as Dialect[]).sort();

  return {
    registry,
    placement,
    spill,
    privateDirs,
    maxShells,
    async call(agent, dialect, command, signal) {
      const report = (outcome: CallEndKind, durationMs: number, exitCode: number | null): void =>
        finished.fire({ agent, dialect, outcome, durationMs, exitCode });
      let executed: ExecutedCall;
      try {
        if (!available().includes(dialect)) {
          throw new JumpseatError(
            JUMPSEAT_ERR_NOT_FOUND,
            `unknown dialect "${dialect}"; this server runs: ${available().join(', ')}`,
          );
        }
        validateCommand(command);
        executed = await registry.execute(agent, dialect, command, signal);
      } catch (error) {
        if (error instanceof CallCancelledError) {
          report('cancelled', 0, null);
          throw new JumpseatError(JUMPSEAT_ERR_CANCELLED, error.message);
        }
        report(error instanceof JumpseatError ? 'refused' : 'error', 0, null);
        throw error;
      }
      const { shell, result } = executed;
      const text =
        result.ending.kind === 'cancelled'
          ? ''
          : composeResult({
              dialect,
              output: result.output,
              ending: wordEnding(result, settings(dialect)),
              humanSummary: result.humanSummary,
            });
      const record = callRecord(shell.id, command, text, executed);
      shell.recordCall(record);
      report(record.outcome, record.durationMs, record.exitCode);
      if (result.ending.kind === 'cancelled') {
        throw new JumpseatError(
          JUMPSEAT_ERR_CANCELLED,
          'the call was cancelled; the shell was reset',
        );
      }
      return text;
    },
    dialects: available,
    sessions: () => registry.sessions(),
    definitions: () => available().map((dialect) => toolDefinition(dialect, settings(dialect))),
    beginClose: () => registry.beginClose(),
    close: async () => {
      await registry.close();
      // Every shell is gone: their cgroups, private dirs and workspaces' file systems can go too.
      await Promise.all([
        placement.launcher.close?.(),
        privateDirs.removeRun(),
        'unmountAll' in placement.quota ? placement.quota.unmountAll() : undefined,
      ]);
    },
    onCallFinished: (listener) => finished.on(listener),
  };
}

function rendererCapture(renderer: OutputRenderer): OutputCapture {
  return {
    write: (chunk) => renderer.push(chunk),
    get altScreen() {
      return renderer.altScreen;
    },
    finish: (screen) => renderer.finish(screen),
  };
}

function wordEnding(result: CallResult, settings: DialectSettings): CallEnding {
  const { ending } = result;
  switch (ending.kind) {
    case 'completed':
      return { kind: 'completed', exitCode: ending.exitCode };
    case 'waiting_input':
      return { kind: 'waiting_input', processName: ending.processName };
    case 'timeout':
      return { kind: 'timeout', timeoutMs: settings.timeoutMs };
    case 'shell_exit':
      return { kind: 'shell_exit', code: ending.code, signal: ending.signal };
    case 'cancelled':
      throw new Error('a cancelled call has no result text');
  }
}

function callRecord(
  sessionId: string,
  command: string,
  output: string,
  executed: ExecutedCall,
): CallInfo {
  const { ending } = executed.result;
  const outcome: CallOutcome = ending.kind;
  return {
    id: randomUUID(),
    sessionId,
    command,
    output,
    exitCode: ending.kind === 'completed' ? ending.exitCode : null,
    outcome,
    startedAt: executed.startedAt.toISOString(),
    durationMs: executed.durationMs,
  };
}

export function toolDefinition(dialect: Dialect, settings: DialectSettings): ToolDefinition {
  return {
    name: dialect,
    description: settings.description,
    input_schema: {
      type: 'object',
      properties: { command: { type: 'string', description: INPUT_DESCRIPTIONS[dialect] } },
      required: ['command'],
      additionalProperties: false,
    },
  };
}
