/**
 * The keyboard's controls on a shell's page: Take over or Ask for control, Release,
 * Interrupt, Fit to window, the control badge, and the terminal taking keys only while this
 * page holds them. One state in (who this page is, who holds the controls, the shell), all
 * of it rendered from that.
 */
import type { SessionInfo } from '../../shared/src/api.ts';
import type { ClientMessage, Viewer } from '../../shared/src/live.ts';
import { ControlRequests } from './control-request.ts';
import { h } from './dom.ts';
import type { NoticeTone } from './notice-line.ts';
import { isOver } from './session-labels.ts';
import { controlText, shownName } from './sharing-rules.ts';
import type { TerminalView } from './terminal-view.ts';

export interface ControlState {
  /** This page's own connection, once the server said hello. */
  readonly you: Viewer | null;
  readonly canControl: boolean;
  /** The admin or the shell's owner: Take over works while someone else holds the controls. */
  readonly inCharge: boolean;
  readonly controller: Viewer | null;
  readonly session: SessionInfo | null;
}

export class ShellControls {
  /** The buttons, for the toolbar. */
  readonly buttons: HTMLElement;
  /** The control badge: who types. */
  readonly status = h('span', {
    class: 'control-status',
    'data-testid': 'controller',
    role: 'status',
  });
  readonly hint = h(
    'p',
    { class: 'hint muted', hidden: true },
    'Your keys go to the shell. F6 moves the keyboard out of the terminal.',
  );
  readonly requests: ControlRequests;
  private readonly takeOver = h('button', { type: 'button', class: 'primary' }, 'Take over');
  private readonly release = h('button', { type: 'button', class: 'primary' }, 'Release');
  private readonly interrupt = h(
    'button',
    { type: 'button', title: 'Send Ctrl-C (SIGINT) to the running program' },
    'Interrupt',
  );
  private readonly fit = h(
    'button',
    {
      type: 'button',
      class: 'quiet',
      title: 'Resize the shell to fill this window while you hold control',
    },
    'Fit to window',
  );
  private state: ControlState = {
    you: null,
    canControl: false,
    inCharge: false,
    controller: null,
    session: null,
  };
  /** The terminal, once it is on the page (it measures itself there). */
  private view: TerminalView | null = null;

  constructor(
    private readonly terminalHost: HTMLElement,
    private readonly send: (message: ClientMessage) => void,
    notify: (text: string, tone: NoticeTone) => void,
    asked: (names: readonly string[]) => void,
    /** Called on each keystroke this page sends (the idle warning goes away). */
    private readonly typed: () => void = () => {},
  ) {
    this.requests = new ControlRequests(send, notify, asked);
    this.buttons = h(
      'span',
      { class: 'controls' },
      this.takeOver,
      this.requests.askButton,
      this.release,
      this.interrupt,
      this.fit,
    );
    this.takeOver.addEventListener('click', () => send({ type: 'take_control' }));
    this.release.addEventListener('click', () => send({ type: 'release_control' }));
    this.interrupt.addEventListener('click', () => send({ type: 'interrupt' }));
    this.fit.addEventListener('click', () => {
      // Fitted, the shell follows the window: a resize refits it (while this page types).
      const resize = (size: { cols: number; rows: number }): void => {
        if (this.inControl()) send({ type: 'resize', cols: size.cols, rows: size.rows });
      };
      const size = this.view?.fitting(true, resize);
      if (size !== undefined) resize(size);
    });
    this.render();
  }

  /** Keys typed in `view` go to the shell while this page holds the controls. */
  attach(view: TerminalView): void {
    this.view = view;
    view.terminal.onData((data) => {
      if (!this.inControl()) return;
      this.send({ type: 'input', data });
      this.typed();
    });
    view.terminal.attachCustomKeyEventHandler((event) => {
      if (event.key !== 'F6' || event.type !== 'keydown') return true;
      this.keyboardOut().focus();
      return false;
    });
    this.render();
  }

  set(change: Partial<ControlState>): void {
    const wasMine = this.inControl();
    this.state = { ...this.state, ...change };
    this.render();
    if (!wasMine && this.inControl()) this.view?.focus();
  }

  inControl(): boolean {
    const { you, controller } = this.state;
    return you !== null && controller?.id === you.id;
  }

  private ended(): boolean {
    const session = this.state.session;
    return session != null && isOver(session.state);
  }

  /** Where F6 takes the keyboard: an open request's Hand over, else the next control. */
  private keyboardOut(): HTMLElement {
    if (this.inControl()) return this.requests.handOverButton() ?? this.release;
    return this.takeOver.hidden ? this.requests.askButton : this.takeOver;
  }

  private render(): void {
    const { you, canControl, inCharge, controller, session } = this.state;
    const mine = this.inControl();
    const ended = this.ended();
    this.requests.update({ you, canControl, controller, inCharge, ended });
    const asking = !this.requests.askButton.hidden;
    // An ended shell offers nothing to take, interrupt or watch live: its page tells its story.
    this.takeOver.hidden = mine || asking || ended;
    this.interrupt.hidden = ended;
    this.status.hidden = ended;
    this.release.hidden = !mine;
    this.fit.hidden = !mine;
    this.hint.hidden = !mine;
    this.takeOver.disabled = !canControl || (controller !== null && !inCharge) || ended;
    this.interrupt.disabled = !canControl || ended;
    this.takeOver.title = !canControl
      ? 'Your token may only watch'
      : controller !== null
        ? inCharge
          ? `Take the keyboard from ${shownName(controller)}; they are told you took it`
          : `${shownName(controller)} holds the keyboard`
        : session?.agent === null
          ? 'Take the keyboard'
          : 'Take the keyboard; the agent’s new calls are refused until you release';
    this.status.textContent = controlText(mine, controller, canControl, session);
    this.status.dataset.controller = controller?.name ?? '';
    this.status.classList.toggle('held', controller !== null);
    this.terminalHost.classList.toggle('controlled', mine);
    if (!mine) this.view?.fitting(false);
    this.view?.setInputEnabled(mine);
  }
}
