/**
 * The control plane's tool service: an agent's call runs on the host that has its shell, or
 * on the host placement picks for a new one, through the link; the result is the exact text
 * the host's engine composed. Calls of one agent and dialect run one at a time, in arrival
 * order (placement too, so two first calls never start two shells). A call whose host is
 * away waits for it through the grace period; past it, the call answers that the shell was
 * lost, and the agent's next call starts a new shell elsewhere.
 */
import { randomUUID } from 'node:crypto';
import type { Dialect } from '../../../shared/src/api.ts';
import type { HostMessage } from '../../../shared/src/link.ts';
import type { DialectSettings } from '../config/config.ts';
import { JUMPSEAT_ERR_CANCELLED, JUMPSEAT_ERR_NOT_FOUND, JumpseatError } from '../errors.ts';
import { Emitter } from '../pty/disposable.ts';
import { resetLine, shellLostLine } from '../tool/contract-text.ts';
import { type EngineToolService, toolDefinition } from '../tool/create-tool-service.ts';
import type {
  CallEndKind,
  CallPlacement,
  FinishedCall,
  ToolService,
} from '../tool/tool-service.ts';
import { type HostDirectory, type JoinedHost, placementKey } from './joined-hosts.ts';
import { ShellPlacer } from './shell-placer.ts';

interface WaitingCall {
  readonly host: JoinedHost;
  readonly agent: string;
  readonly dialect: Dialect;
  /** Kept to offer the call again where its host's link moved (`hostReturned`). */
  readonly command: string;
  readonly signal: AbortSignal;
  readonly settle: (answer: { text: string; lost: boolean } | JumpseatError) => void;
}

export class RemoteCalls {
  private readonly waiting = new Map<string, WaitingCall>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly finished = new Emitter<FinishedCall>();
  private closed = false;
  private readonly placer: ShellPlacer;

  constructor(
    private readonly directory: HostDirectory,
    private readonly settings: (dialect: Dialect) => DialectSettings,
  ) {
    this.placer = new ShellPlacer(directory, directory.placements);
    directory.onHostLost.on((host) => {
      for (const [id, call] of this.waiting) {
        if (call.host !== host) continue;
        this.waiting.delete(id);
        call.settle({
          text: `${shellLostLine(host.name)}\n${resetLine(call.dialect)}`,
          lost: true,
        });
      }
    });
  }

  /** An answer from a host's link; whether a call here waited for it. */
  answered(
    host: JoinedHost,
    message: Extract<HostMessage, { type: 'call_result' | 'call_error' }>,
  ): boolean {
    const call = this.waiting.get(message.callId);
    if (call === undefined) return false; // a call this control plane no longer waits for
    // Only the host the call was placed on answers it: another host's token never settles it.
    if (call.host !== host) return false;
    this.waiting.delete(message.callId);
    call.settle(
      message.type === 'call_result'
        ? { text: message.output, lost: false }
        : new JumpseatError({ code: message.code, status: message.status }, message.message),
    );
    return true;
  }

  /**
   * A host came back: calls it no longer knows of (their start never reached it) fail. When
   * its link `moved` to another replica, that replica does not know this one's calls: each is
   * offered to it again (same id; the host runs a call once, and the replica answers one whose
   * answer it was handed already).
   */
  hostReturned(host: JoinedHost, knownCalls: readonly string[], moved = false): void {
    const known = new Set(knownCalls);
    for (const [id, call] of this.waiting) {
      if (call.host !== host) continue;
      if (moved && !known.has(id)) {
        const { agent, dialect, command } = call;
        host.connection?.send({ type: 'call_start', callId: id, agent, dialect, command });
        known.add(id);
      }
      if (known.has(id)) {
        // Cancelled while the host was away: it hears of it now.
        if (call.signal.aborted) host.connection?.send({ type: 'call_cancel', callId: id });
        continue;
      }
      this.waiting.delete(id);
      call.settle(
        new JumpseatError(
          { code: 'SHELL_UNAVAILABLE', status: 503 },
          `host ${host.name} came back without this call; it may not have run — check the shell's state`,
        ),
      );
    }
  }

  /** The tool service over these calls, with the local engine's parts for the rest. */
  service(local: EngineToolService): EngineToolService {
    const dialects = (): Dialect[] => {
      const found = new Set<Dialect>(['bash']);
      for (const host of this.directory.hosts.values()) for (const d of host.dialects) found.add(d);
      return [...found].sort();
    };
    const service: ToolService = {
      call: (agent, dialect, command, signal, placement) => {
        if (!dialects().includes(dialect)) {
          return Promise.reject(
            new JumpseatError(
              JUMPSEAT_ERR_NOT_FOUND,
              `unknown dialect "${dialect}"; the joined hosts run: ${dialects().join(', ')}`,
            ),
          );
        }
        return this.queued(agent, dialect, () =>
          this.run(agent, dialect, command, signal, placement),
        );
      },
      dialects,
      sessions: () => [...local.sessions(), ...this.directory.sessions()],
      definitions: () =>
        dialects().map((dialect) => toolDefinition(dialect, this.settings(dialect))),
      beginClose: () => {
        this.closed = true;
        local.beginClose();
      },
      close: async () => {
        // The hosts' shells outlive this control plane: only the links end.
        this.directory.close();
        await local.close();
      },
      onCallFinished: (listener) => this.finished.on(listener),
    };
    return { ...local, ...service };
  }

  private queued<T>(agent: string, dialect: Dialect, turn: () => Promise<T>): Promise<T> {
    const key = `${agent}\u0000${dialect}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(turn);
    const tail = result.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return result;
  }

  private async run(
    agent: string,
    dialect: Dialect,
    command: string,
    signal: AbortSignal,
    placement: CallPlacement | undefined,
  ): Promise<string> {
    const startedAt = Date.now();
    const report = (outcome: CallEndKind, exitCode: number | null = null): void =>
      this.finished.fire({ agent, dialect, outcome, durationMs: Date.now() - startedAt, exitCode });
    try {
      if (signal.aborted)
        throw new JumpseatError(JUMPSEAT_ERR_CANCELLED, 'the call was cancelled before it started');
      if (this.closed) {
        throw new JumpseatError(
          { code: 'SHUTTING_DOWN', status: 503 },
          'the server is shutting down',
        );
      }
      const host = await this.hostFor(agent, dialect, placement);
      const answer = await this.send(host, agent, dialect, command, signal);
      report(answer.lost ? 'shell_exit' : 'completed');
      return answer.text;
    } catch (error) {
      report(
        error instanceof JumpseatError
          ? error.code === JUMPSEAT_ERR_CANCELLED.code
            ? 'cancelled'
            : 'refused'
          : 'error',
      );
      throw error;
    }
  }

  /** The host of the agent's live shell (waiting for it while it is away), or a new place. */
  private async hostFor(
    agent: string,
    dialect: Dialect,
    placement: CallPlacement | undefined,
  ): Promise<JoinedHost> {
    const shell = this.directory.liveShell(agent, dialect);
    if (shell !== undefined) {
      if (shell.host.connected) return shell.host;
      const back = await new Promise<boolean>((resolve) => {
        const wait = shell.host.onBackOrLost.on((value) => {
          wait.dispose();
          resolve(value);
        });
      });
      if (back && shell.alive) return shell.host;
    }
    return this.placer.place(agent, dialect, placement?.labels ?? {}, (host) =>
      this.starting(host),
    );
  }

  /** Shells being started on `host` by calls in flight (not reported by the host yet). */
  private starting(host: JoinedHost): number {
    let count = 0;
    for (const call of this.waiting.values()) {
      if (call.host !== host) continue;
      const shell = this.directory.liveShell(call.agent, call.dialect);
      if (shell === undefined || shell.host !== host) count++;
    }
    return count;
  }

  private send(
    host: JoinedHost,
    agent: string,
    dialect: Dialect,
    command: string,
    signal: AbortSignal,
  ): Promise<{ text: string; lost: boolean }> {
    const callId = randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        // The host resets the shell and answers CANCELLED; away, the call waits for it.
        host.connection?.send({ type: 'call_cancel', callId });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(callId, {
        host,
        agent,
        dialect,
        command,
        signal,
        settle: (answer) => {
          signal.removeEventListener('abort', onAbort);
          if (answer instanceof JumpseatError) reject(answer);
          else resolve(answer);
        },
      });
      // The only shells a host may announce for an agent are those of calls sent to it.
      host.placed.add(placementKey(agent, dialect));
      host.connection?.send({ type: 'call_start', callId, agent, dialect, command });
    });
  }
}
