/**
 * Starts the real engine (real bash or pwsh, real PTYs) in a fresh data dir and workspace, for tests
 * that speak to it in process.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Dialect } from '../../../shared/src/api.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { createToolService, type EngineToolService } from '../../src/tool/create-tool-service.ts';

export interface TestEngine {
  readonly tools: EngineToolService;
  readonly config: Config;
  /** The workspace root; an agent works in `workspaceOf(agent)`. */
  readonly workspace: string;
  workspaceOf(agent: string): string;
  readonly dataDir: string;
  /** Runs one call and returns the exact result text. */
  call(command: string, agent?: string, signal?: AbortSignal, dialect?: Dialect): Promise<string>;
  close(): Promise<void>;
}

export interface TestEngineOptions {
  readonly flags?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** The dialect `call` uses when none is given (bash). */
  readonly dialect?: Dialect;
  /** Where the engine says a shell could not start (stderr by default). */
  readonly warn?: (line: string) => void;
}

export function startEngine(options: TestEngineOptions = {}): TestEngine {
  const root = mkdtempSync(join(tmpdir(), 'jumpseat-test-'));
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  const config = loadConfig(
    ['--data-dir', dataDir, '--workspace', workspace, ...(options.flags ?? [])],
    {},
  );
  const tools = createToolService(config, {
    baseEnv: options.env ?? process.env,
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });
  return {
    tools,
    config,
    workspace: config.workspace,
    workspaceOf: (agent) =>
      config.sharedWorkspace ? config.workspace : join(config.workspace, agent),
    dataDir,
    call: (
      command,
      agent = 'agent-1',
      signal = new AbortController().signal,
      dialect = options.dialect ?? 'bash',
    ) => tools.call(agent, dialect, command, signal),
    close: async () => {
      await tools.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * One engine for the enclosing file or describe block: started before its tests, closed after
 * them (within `closeLimitMs`, when closing every shell takes long). What it returns speaks to
 * that engine once it runs.
 */
export function sharedEngine(options: TestEngineOptions = {}, closeLimitMs?: number): TestEngine {
  let current: TestEngine | null = null;
  beforeAll(() => {
    current = startEngine(options);
  });
  afterAll(async () => {
    await current?.close();
  }, closeLimitMs);
  const running = (): TestEngine => {
    if (current === null) throw new Error('the shared engine starts before the tests');
    return current;
  };
  return {
    get tools() {
      return running().tools;
    },
    get config() {
      return running().config;
    },
    get workspace() {
      return running().workspace;
    },
    get dataDir() {
      return running().dataDir;
    },
    workspaceOf: (agent) => running().workspaceOf(agent),
    call: (command, agent, signal, dialect) => running().call(command, agent, signal, dialect),
    close: () => running().close(),
  };
}

/** The live shell an agent's calls run in (the first call made it). */
export function liveShellOf(engine: TestEngine, agent: string) {
  const info = engine.tools.registry
    .sessions()
    .find((s) => s.agent === agent && s.state !== 'exited');
  const shell = engine.tools.registry.find(info?.id ?? '');
  if (!shell) throw new Error(`no live shell for ${agent}`);
  return shell;
}
