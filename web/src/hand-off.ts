/**
 * Handing a person's shell to an agent: the shell, with its directory, variables and
 * history, becomes that agent's shell of its dialect, and the agent's next call runs in it.
 * The server refuses (409) when the agent already has a live shell of that dialect; the
 * refusal is shown as it came.
 */
import {
  AGENT_ID_PATTERN,
  AGENT_ID_REGEX,
  type Dialect,
  type SessionInfo,
} from '../../shared/src/api.ts';
import { handOff, problemText } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';

export class HandOffPanel {
  readonly element: HTMLElement;
  private readonly toggle = h(
    'button',
    { type: 'button', 'aria-expanded': 'false' },
    'Hand to agent…',
  );
  private readonly form: HTMLFormElement;
  private readonly agent = h('input', {
    type: 'text',
    name: 'agent',
    required: true,
    pattern: AGENT_ID_PATTERN,
    placeholder: 'agent id',
    'aria-label': 'Agent id',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  private readonly explain = h('p', { class: 'muted small' });
  private readonly error = h('p', {
    class: 'form-error',
    role: 'alert',
    'data-testid': 'hand-off-error',
  });
  private readonly submit = h('button', { type: 'submit', class: 'primary' }, 'Hand off');

  constructor(
    private readonly sessionId: string,
    dialect: Dialect,
    private readonly done: (session: SessionInfo) => void,
  ) {
    replaceChildren(
      this.explain,
      `The shell becomes this agent's ${dialect} shell — its directory, variables and history included — and its next ${dialect} call runs here. Your controls are released.`,
    );
    const cancel = h('button', { type: 'button', class: 'quiet' }, 'Cancel');
    this.form = h(
      'form',
      { class: 'hand-off-form', hidden: true },
      this.explain,
      h('div', { class: 'form-row' }, this.agent, this.submit, cancel),
      this.error,
    );
    this.toggle.addEventListener('click', () => this.open(this.form.hidden));
    cancel.addEventListener('click', () => this.open(false));
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.handOff();
    });
    this.element = h(
      'div',
      { class: 'hand-off', 'data-testid': 'hand-off' },
      this.toggle,
      this.form,
    );
  }

  private open(open: boolean): void {
    this.form.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    this.error.textContent = '';
    if (open) this.agent.focus();
  }

  private async handOff(): Promise<void> {
    const agent = this.agent.value.trim();
    if (!AGENT_ID_REGEX.test(agent)) {
      this.error.textContent =
        'An agent id is letters, digits, ".", "_" and "-", starting with a letter or digit.';
      return;
    }
    this.error.textContent = '';
    this.submit.disabled = true;
    const reply = await handOff(this.sessionId, agent);
    this.submit.disabled = false;
    if (!reply.ok) {
      this.error.textContent = problemText(reply.problem);
      return;
    }
    this.open(false);
    this.done(reply.value);
  }
}
