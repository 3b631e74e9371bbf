/**
 * Asking for the keyboard instead of grabbing it: a viewer who may type presses "Ask for
 * control"; the person typing sees "X asks for the controls — Hand over / Keep"; everyone
 * else sees that X asked. The server decides and passes the controls on a grant.
 */
import type { ClientMessage, Viewer } from '../../shared/src/live.ts';
import { h, replaceChildren } from './dom.ts';
import type { NoticeTone } from './notice-line.ts';
import { shownName } from './sharing-rules.ts';

export interface ControlState {
  readonly you: Viewer | null;
  readonly canControl: boolean;
  readonly controller: Viewer | null;
  /** The admin or the shell's owner: takes over instead of asking. */
  readonly inCharge: boolean;
  /** The shell has ended: nothing to ask for. */
  readonly ended: boolean;
}

type Outcome = 'granted' | 'declined' | 'withdrawn';

export class ControlRequests {
  readonly askButton = h(
    'button',
    { type: 'button', class: 'primary', title: 'Ask the person typing to hand you the keyboard' },
    'Ask for control',
  );
  /** The prompts: the controller's hand-over questions, or who asked. */
  readonly element = h('div', {
    class: 'control-requests',
    'data-testid': 'control-requests',
    role: 'status',
    'aria-live': 'polite',
  });
  /** Open requests by the asking viewer's id, in the order they came. */
  private readonly open = new Map<string, Viewer>();
  private state: ControlState = {
    you: null,
    canControl: false,
    controller: null,
    inCharge: false,
    ended: false,
  };

  constructor(
    private readonly send: (message: ClientMessage) => void,
    private readonly notify: (text: string, tone: NoticeTone) => void,
    /** Who is asking this page's person for the controls now (empty: nobody). */
    private readonly asked: (names: readonly string[]) => void = () => {},
  ) {
    this.askButton.addEventListener('click', () => this.send({ type: 'request_control' }));
    this.render();
  }

  update(state: ControlState): void {
    this.state = state;
    this.render();
  }

  requested(from: Viewer): void {
    this.open.set(from.id, from);
    this.render();
  }

  closed(from: string, outcome: Outcome): void {
    const asker = this.open.get(from);
    this.open.delete(from);
    if (from === this.state.you?.id && outcome === 'declined') {
      this.notify(
        `${this.state.controller ? shownName(this.state.controller) : 'The person typing'} kept the controls.`,
        'warning',
      );
    } else if (asker !== undefined && outcome === 'granted' && !this.mine(from)) {
      this.notify(`${shownName(asker)} has the controls now.`, 'info');
    }
    this.render();
  }

  /** The first open "Hand over" button (the controller's prompt), for the keyboard. */
  handOverButton(): HTMLButtonElement | null {
    return this.element.querySelector<HTMLButtonElement>('.prompt button.primary');
  }

  /** The connection went away: requests are the server's and end with it. */
  clear(): void {
    this.open.clear();
    this.render();
  }

  private mine(id: string): boolean {
    return id === this.state.you?.id;
  }

  private render(): void {
    const { you, canControl, controller, inCharge, ended } = this.state;
    const youHold = you !== null && controller?.id === you.id;
    const asking = you !== null && this.open.has(you.id);
    this.askButton.hidden = !canControl || controller === null || youHold || ended || inCharge;
    this.askButton.disabled = asking;
    this.askButton.textContent = asking ? 'Asked…' : 'Ask for control';
    const items = [...this.open.values()].map((asker) => {
      if (youHold) return this.handOverPrompt(asker);
      if (this.mine(asker.id)) {
        return h(
          'p',
          { class: 'control-request', 'data-from': asker.name },
          `You asked ${controller ? shownName(controller) : 'the person typing'} for the controls — waiting for an answer.`,
        );
      }
      return h(
        'p',
        { class: 'control-request muted', 'data-from': asker.name },
        `${shownName(asker)} asked for control.`,
      );
    });
    replaceChildren(this.element, ...items);
    this.asked(youHold ? [...this.open.values()].map(shownName) : []);
    this.element.hidden = items.length === 0;
  }

  private handOverPrompt(asker: Viewer): HTMLElement {
    const handOver = h('button', { type: 'button', class: 'primary' }, 'Hand over');
    const keep = h('button', { type: 'button' }, 'Keep');
    handOver.addEventListener('click', () => this.send({ type: 'grant_control', to: asker.id }));
    keep.addEventListener('click', () => this.send({ type: 'decline_control', to: asker.id }));
    return h(
      'div',
      {
        class: 'control-request prompt',
        'data-testid': 'control-request',
        'data-from': asker.name,
        role: 'group',
        'aria-label': `${shownName(asker)} asks for the controls`,
      },
      h('span', {}, h('strong', {}, shownName(asker)), ' asks for the controls'),
      h('span', { class: 'spacer' }),
      handOver,
      keep,
    );
  }
}
