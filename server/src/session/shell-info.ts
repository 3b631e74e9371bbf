/**
 * What one shell reports about itself (`SessionInfo`, as the API, the live stream and the
 * store give it), put together from the parts that know each field. Its own module: the
 * report's shape changes with the API, not with how the shell wires its parts.
 */
import type { SessionEnding, SessionInfo } from '../../../shared/src/api.ts';
import type { ForegroundCommand } from './call-line.ts';
import type { ShellOwner } from './shell-options.ts';
import type { ShellStatus } from './shell-status.ts';

/** What anyone may read of a shell (the Shell itself). */
export interface ShellFace {
  readonly id: string;
  readonly agent: string | null;
  readonly owner: ShellOwner | null;
  readonly dialect: { readonly name: SessionInfo['dialect'] };
  readonly pid: number;
  readonly startedAt: Date;
}

/** The parts of a shell only it holds. */
export interface ShellInfoParts {
  readonly status: ShellStatus;
  /** The command that holds the terminal, if any. */
  readonly foreground: ForegroundCommand | null;
  /** The name of the person at the controls, if one is. */
  readonly controller: string | null;
  readonly size: { readonly cols: number; readonly rows: number };
  readonly viewers: number;
  readonly ending: SessionEnding | null;
}

export function shellInfo(shell: ShellFace, parts: ShellInfoParts): SessionInfo {
  const { owner } = shell;
  const { status, foreground, controller } = parts;
  return {
    id: shell.id,
    agent: shell.agent,
    owner: owner?.name ?? null,
    ...(owner === null ? {} : { ownerId: owner.tokenId }),
    dialect: shell.dialect.name,
    state: controller !== null && status.alive ? 'human_control' : status.state,
    command: foreground?.command ?? null,
    since: foreground?.since.toISOString() ?? null,
    stateSince: status.since.toISOString(),
    lastExitCode: status.lastExitCode,
    pid: status.alive ? shell.pid : null,
    cols: parts.size.cols,
    rows: parts.size.rows,
    controller,
    viewers: parts.viewers,
    startedAt: shell.startedAt.toISOString(),
    endedAt: status.endedAt?.toISOString() ?? null,
    ending: parts.ending,
  };
}
