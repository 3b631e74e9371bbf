/** How shell states and call outcomes read in the UI (the data attributes keep the raw values). */
import type { CallOutcome, ControlEvent, SessionInfo, SessionState } from '../../shared/src/api.ts';
import { h } from './dom.ts';
import { shownName } from './sharing-rules.ts';

const STATE_LABELS: Record<SessionState, string> = {
  starting: 'starting',
  idle: 'idle',
  running: 'running',
  waiting_input: 'waiting for input',
  human_control: 'human in control',
  exited: 'exited',
  ended: 'ended',
};

export const OUTCOME_LABELS: Record<CallOutcome, string> = {
  completed: 'completed',
  timeout: 'timed out',
  waiting_input: 'waiting for input',
  shell_exit: 'shell exited',
  cancelled: 'cancelled',
};

/** The shell is over: exited in this server run, or ended before a restart. */
export function isOver(state: SessionState): boolean {
  return state === 'exited' || state === 'ended';
}

/** Whose shell it is: the agent's id, or the name of the person who opened it. */
export function shellOwnerLabel(session: SessionInfo): string {
  return session.agent ?? `${session.owner ?? 'someone'} (person)`;
}

/** Where the shell runs: the joined host's name, or this server for a shell of its own. */
export function shellHostLabel(session: SessionInfo): string {
  return session.host ?? 'this server';
}

/** A command can be a megabyte heredoc; lists show its first line, shortened. */
const MAX_COMMAND_PREVIEW_CHARS = 160;

export function commandPreview(command: string): string {
  const lines = command.split('\n');
  const first = lines[0] ?? '';
  const more = lines.length > 1 ? ` … (+${lines.length - 1} lines)` : '';
  const head =
    first.length > MAX_COMMAND_PREVIEW_CHARS
      ? `${first.slice(0, MAX_COMMAND_PREVIEW_CHARS)}…`
      : first;
  return head + more;
}

export function stateLabel(state: SessionState): string {
  return STATE_LABELS[state];
}

/**
 * The state as a badge; a shell that has waited for input long enough (`needsHuman`, see
 * needs-human.ts) says it needs a human, and is styled to call for one.
 */
export function stateBadge(session: SessionInfo, needsHuman: boolean): HTMLElement {
  return h(
    'span',
    {
      class: `state state-${session.state}${needsHuman ? ' state-needs-human' : ''}`,
      'data-testid': 'state',
    },
    STATE_LABELS[session.state],
    needsHuman && h('span', { class: 'call-out' }, ' — needs a human'),
  );
}

const CONTROL_WORDS: Record<Exclude<ControlEvent['kind'], 'hand_off'>, string> = {
  take: 'took the controls',
  release: 'handed the controls back',
  interrupt: 'interrupted the running command',
  secret_sent: "typed a hidden answer into the agent's shell after the warning",
  secret_withheld: "kept a hidden answer out of the agent's shell after the warning",
};

/** How a control event reads: `Ann took the controls`, `Handed to agent a1`. */
export function controlWords(event: ControlEvent): string {
  return event.kind === 'hand_off'
    ? `Handed to agent ${event.name}`
    : `${shownName(event)} ${CONTROL_WORDS[event.kind]}`;
}
