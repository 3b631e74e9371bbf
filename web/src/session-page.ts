/**
 * `/sessions/:id`: one shell live — the terminal, who is watching and who types, the call
 * timeline, the controls (take over, ask for them, hand back, interrupt) and, for the
 * shell's owner, sharing it by link, handing it to an agent and closing it. The live stream
 * resumes from the page's own position after a drop (`?from=`), so nothing is lost or shown
 * twice. A share link's holder reaches this one shell only: nothing here reads the dashboard.
 */
import type { SessionInfo, WhoAmI } from '../../shared/src/api.ts';
import {
  type ClientMessage,
  decodeOutputFrame,
  LIVE_CLOSE,
  parseServerMessage,
  type ServerMessage,
} from '../../shared/src/live.ts';
import { OutputCursor } from '../../shared/src/output-cursor.ts';
import {
  type AccessProblem,
  endedAccess,
  fetchCalls,
  fetchControlEvents,
  fetchMe,
  fetchSession,
  ticketedSocketUrl,
  unreachable,
} from './api-client.ts';
import { appUrl } from './app-path.ts';
import { CallTimeline } from './call-timeline.ts';
import { h, replaceChildren } from './dom.ts';
import type { JumpseatHooks } from './hooks.ts';
import { askName } from './name-prompt.ts';
import { NeedsHuman } from './needs-human.ts';
import { NoticeLine, type NoticeTone } from './notice-line.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { PresenceList } from './presence-list.ts';
import { loadWhenReachable } from './reachability.ts';
import { ReconnectingSocket } from './reconnecting-socket.ts';
import { SecretQuestion } from './secret-question.ts';
import { isOver, shellOwnerLabel, stateBadge } from './session-labels.ts';
import { shownName } from './sharing-rules.ts';
import { ShellControls } from './shell-controls.ts';
import { ShellOwnerTools } from './shell-owner-tools.ts';
import { watchForSuccessor } from './successor-shell.ts';
import { TerminalView } from './terminal-view.ts';
import { isDark, onThemeChange } from './theme.ts';
import { tickElapsedClocks } from './time-format.ts';
import { zoomControl } from './zoom-control.ts';

/** Why the live connection stopped when the server came back without the shell. */
const SHELL_ENDED = 'the shell ended';
/** How often the running call's output tail is read from the terminal. */
const TAIL_REFRESH_MS = 400;
/** Lines of the running call's output the timeline shows. */
const TAIL_LINES = 6;
/** Control events arrive in bursts (take, release, a call ending): read them once per burst. */
const EVENTS_REFRESH_DELAY_MS = 150;

export async function showSession(
  root: HTMLElement,
  sessionId: string,
): Promise<JumpseatHooks | undefined> {
  const title = h('span', { class: 'session-title' });
  const badge = h('span', {});
  const frame = pageFrame(
    root,
    h('span', { class: 'crumb', 'aria-hidden': 'true' }, '/'),
    title,
    badge,
  );
  const [me, initialCalls, known, initialEvents, needsHuman] = await loadWhenReachable(
    frame,
    () =>
      Promise.all([
        fetchMe(),
        fetchCalls(sessionId),
        fetchSession(sessionId),
        fetchControlEvents(sessionId),
        NeedsHuman.load(),
      ]),
    ([me, calls, known, events]) => unreachable(me, calls, known, events),
  );
  if (!initialCalls.ok) {
    frame.setConnection('closed', 'not connected');
    showAccessProblem(frame.main, initialCalls.problem);
    return undefined;
  }
  // A shell from before the server's restart has no live stream: its story is the replay.
  if (known.ok && known.value.state === 'ended') {
    location.replace(appUrl(`/sessions/${encodeURIComponent(sessionId)}/replay`));
    return undefined;
  }
  let who: WhoAmI | null = me.ok ? me.value : null;
  const scoped = who?.scope !== null && who?.scope !== undefined;
  if (scoped) frame.unlinkHome();
  if (who !== null && !who.named) {
    // Before the live connection: the name others see is fixed when it joins.
    frame.setConnection('connecting', 'waiting for your name');
    if (known.ok) title.textContent = `${shellOwnerLabel(known.value)} · ${known.value.dialect}`;
    who = await askName(frame.main, known.ok ? known.value.owner : null);
  }

  let session: SessionInfo | null = null;

  const terminalHost = h('div', { class: 'terminal-frame', 'data-testid': 'terminal' });
  const notice = new NoticeLine();
  /** The controls go back to the agent soon: shown to the controller until they type. */
  const idleWarning = h('p', {
    class: 'idle-warning',
    'data-testid': 'idle-warning',
    role: 'alert',
    hidden: true,
  });
  /** The server came back without this shell (a restart ends live shells): where it went. */
  const endedNote = h(
    'p',
    { class: 'notice-line', 'data-testid': 'shell-ended', role: 'status', hidden: true },
    'This shell ended while jumpseat was away (live shells end when it restarts). ',
    h(
      'a',
      { href: appUrl(`/sessions/${encodeURIComponent(sessionId)}/replay`) },
      'Its replay has everything it showed',
    ),
    '.',
  );
  let youId: string | null = null;
  const search = h('input', {
    type: 'search',
    placeholder: 'Find in terminal',
    'aria-label': 'Find in terminal',
    class: 'find',
  });
  const findCount = h('span', {
    class: 'find-count muted',
    'data-testid': 'find-count',
    'aria-live': 'polite',
  });
  const presence = new PresenceList();
  /** The tab's title; a request for the controls is put in front, for a tab in the background. */
  let pageTitle = 'jumpseat';
  let askers: readonly string[] = [];
  const renderTitle = (): void => {
    document.title =
      askers.length === 0
        ? pageTitle
        : `(${askers.join(', ')} ${askers.length === 1 ? 'asks' : 'ask'} for control) ${pageTitle}`;
  };
  const controls = new ShellControls(
    terminalHost,
    (message) => send(message),
    (text, tone) => showNotice(text, tone),
    (names) => {
      askers = names;
      renderTitle();
    },
    () => {
      idleWarning.hidden = true;
    },
  );
  const successor = h('p', { class: 'successor', 'data-testid': 'successor', hidden: true });
  const secretQuestion = new SecretQuestion(
    (message) => send(message),
    () => view.focus(),
  );
  const timeline = new CallTimeline();
  timeline.merge(initialCalls.value);
  if (initialEvents.ok) timeline.mergeEvents(initialEvents.value);
  const refreshCalls = (): void => {
    void fetchCalls(sessionId).then((calls) => calls.ok && timeline.merge(calls.value));
  };
  let eventsTimer: ReturnType<typeof setTimeout> | undefined;
  const refreshEvents = (): void => {
    clearTimeout(eventsTimer);
    eventsTimer = setTimeout(() => {
      void fetchControlEvents(sessionId).then(
        (events) => events.ok && timeline.mergeEvents(events.value),
      );
    }, EVENTS_REFRESH_DELAY_MS);
  };
  const ownerTools = new ShellOwnerTools(sessionId, who, (handed) => {
    session = handed;
    renderSession();
    showNotice(
      `Handed to agent ${handed.agent ?? ''}: its next ${handed.dialect} call runs in this shell.`,
      'info',
    );
    refreshEvents();
  });

  replaceChildren(
    frame.main,
    h(
      'div',
      { class: 'session-layout' },
      h(
        'div',
        { class: 'session-main' },
        h(
          'div',
          { class: 'toolbar', role: 'toolbar', 'aria-label': 'Shell controls' },
          controls.buttons,
          controls.status,
          h('span', { class: 'spacer' }),
          h('span', { class: 'find-box' }, search, findCount),
          h(
            'a',
            {
              class: 'replay-link',
              href: appUrl(`/sessions/${encodeURIComponent(sessionId)}/replay`),
              'data-testid': 'replay-link',
            },
            'Replay',
          ),
        ),
        controls.requests.element,
        notice.element,
        idleWarning,
        secretQuestion.element,
        endedNote,
        successor,
        terminalHost,
        controls.hint,
      ),
      h(
        'aside',
        { class: 'session-side' },
        h(
          'section',
          { 'aria-labelledby': 'viewers-title' },
          h('h2', { id: 'viewers-title' }, 'Watching'),
          presence.element,
        ),
        ...ownerTools.elements,
        timeline.element,
      ),
    ),
  );

  const view = new TerminalView(terminalHost, isDark());
  terminalHost.before(zoomControl(view));
  view.onFindResults(({ index, count }) => {
    findCount.textContent =
      search.value === '' ? '' : count === 0 ? 'No results' : `${index + 1} of ${count}`;
    findCount.dataset.count = String(count);
  });
  onThemeChange((dark) => view.setTheme(dark));
  controls.attach(view);
  const cursor = new OutputCursor();
  const ended = (): boolean => session !== null && isOver(session.state);

  /** A refusal fades; a lost shell stays said (`sticky`). */
  const showNotice = (text: string, tone: NoticeTone, sticky = false): void =>
    notice.show(text, tone, sticky);

  /** What the running call prints, from where it started on the terminal. */
  let callMark = view.markLine();
  setInterval(() => {
    if (timeline.isRunning) timeline.setTail(view.tail(callMark, TAIL_LINES));
  }, TAIL_REFRESH_MS);
  let badgeTimer: ReturnType<typeof setTimeout> | undefined;

  const renderSession = (): void => {
    if (session === null) return;
    title.textContent = `${shellOwnerLabel(session)} · ${session.dialect}`;
    pageTitle = `${shellOwnerLabel(session)} · ${session.dialect} — jumpseat`;
    renderTitle();
    replaceChildren(badge, stateBadge(session, needsHuman.test(session)));
    // A wait for input becomes a call for a human without a message: redraw then.
    clearTimeout(badgeTimer);
    const flip = needsHuman.nextChangeIn([session]);
    if (flip !== null) badgeTimer = setTimeout(renderSession, flip + 1);
    const busy = session.state === 'running' || session.state === 'human_control';
    if (busy && session.command !== null && session.since !== null)
      timeline.started(session.command, session.since);
    else timeline.idle();
    ownerTools.update(session);
    controls.set({ session });
    if (ended()) showEnded(session);
  };

  /** The shell ended: an agent's next call starts a new one; a person's shell is just over. */
  const showEnded = (over: SessionInfo): void => {
    frame.hideConnection();
    if (!successor.hidden) return;
    successor.hidden = false;
    if (over.agent === null || scoped) {
      replaceChildren(successor, 'This shell has ended.');
      return;
    }
    replaceChildren(
      successor,
      `This shell has ended. The agent's next ${over.dialect} call starts a new one; a link to it appears here.`,
    );
    // Once: `successor` is shown from here on, so this is not reached again.
    watchForSuccessor(over, (next) => {
      replaceChildren(
        successor,
        'This shell has ended. ',
        h(
          'a',
          { href: appUrl(`/sessions/${encodeURIComponent(next.id)}`) },
          `Open ${next.agent ?? 'the agent'}'s new ${next.dialect} shell`,
        ),
      );
    });
  };

  const handle = (message: ServerMessage): void => {
    switch (message.type) {
      case 'hello':
        session = message.session;
        youId = message.you.id;
        controls.set({
          you: message.you,
          canControl: message.canControl,
          inCharge: message.inCharge === true,
        });
        presence.setYou(message.you.id);
        presence.allowDisconnect(
          message.inCharge === true
            ? (viewer) => send({ type: 'disconnect_viewer', viewer: viewer.id })
            : null,
        );
        renderSession();
        break;
      case 'snapshot':
        view.replace(message.cols, message.rows, message.data);
        cursor.moveTo(message.offset);
        // Fallen behind: call events were skipped along with the output.
        if (message.reason === 'resync') refreshCalls();
        break;
      case 'resumed':
        cursor.moveTo(message.offset);
        break;
      case 'session':
        // Handed to an agent: every watcher's timeline tells it, not only the owner's.
        if (session !== null && session.agent === null && message.session.agent !== null)
          refreshEvents();
        session = message.session;
        renderSession();
        break;
      case 'call_started':
        callMark = view.markLine();
        timeline.started(message.command, message.startedAt);
        break;
      case 'call_finished':
        timeline.add(message.call);
        // An interrupt shows as the call it ended: its event is on the server by now.
        refreshEvents();
        break;
      case 'control': {
        const wasMine = controls.inControl();
        controls.set({ controller: message.controller });
        presence.setController(message.controller?.id ?? null);
        idleWarning.hidden = true;
        refreshEvents();
        if (message.takenFrom !== undefined && message.takenFrom.id === youId) {
          showNotice(
            `${message.controller ? shownName(message.controller) : 'Someone'} took the controls from you.`,
            'warning',
            true,
          );
        } else if (message.reason === 'idle' && wasMine) {
          showNotice(
            'You typed nothing for a while, so the controls went back to the agent.',
            'warning',
            true,
          );
        }
        break;
      }
      case 'control_idle':
        if (message.controller.id !== youId) break;
        idleWarning.textContent = `No keystroke for a while: the controls go back to the agent in ${Math.round(message.releaseInMs / 1000)} s unless you type.`;
        idleWarning.hidden = false;
        break;
      case 'presence':
        presence.setViewers(message.viewers);
        ownerTools.refresh();
        break;
      case 'viewer_joined':
        presence.joined(message.viewer);
        // A share's holder may just have opened their link.
        ownerTools.refresh();
        break;
      case 'viewer_left':
        presence.left(message.id);
        ownerTools.refresh();
        break;
      case 'input_dropped':
        showNotice(
          `The shell is not reading what you type: ${message.pendingBytes} bytes wait for it, so your last ${message.droppedBytes} were dropped (at most ${message.limitBytes} may wait). Ctrl-C still goes through.`,
          'warning',
          true,
        );
        break;
      case 'secret_warning':
        secretQuestion.shown(message.open);
        // Either answer is kept in the shell's history: the timeline shows it.
        if (!message.open) refreshEvents();
        break;
      case 'control_requested':
        controls.requests.requested(message.from);
        break;
      case 'control_request_closed':
        controls.requests.closed(message.from, message.outcome);
        break;
      case 'resize':
        view.resize(message.cols, message.rows);
        break;
      case 'error':
        showNotice(message.message, 'error');
        break;
    }
  };

  /** The page's access ended for good (revoked, or the link expired): say which, and stop. */
  const revoked = (problem: AccessProblem): void => {
    frame.setConnection('closed', problem.kind === 'expired' ? 'link expired' : 'access revoked');
    // The notice says what ended; a red pill beside it would only repeat it.
    frame.hideConnection();
    showAccessProblem(frame.main, problem);
  };

  let connectedOnce = false;
  const socket = new ReconnectingSocket({
    async url() {
      const path = `/api/sessions/${encodeURIComponent(sessionId)}/live`;
      const from = cursor.position;
      return ticketedSocketUrl(from === null ? path : `${path}?from=${from}`);
    },
    onText(text) {
      const parsed = parseServerMessage(text);
      if (parsed.ok) handle(parsed.message);
    },
    onBinary(data) {
      const frame = decodeOutputFrame(data);
      if (frame === null) return;
      const verdict = cursor.accept(frame);
      if (verdict.kind === 'write') view.write(verdict.data);
      else if (verdict.kind === 'gap') socket.restart('output gap: resuming');
    },
    onState(state, detail, code) {
      frame.setConnection(state, detail);
      // Requests for the controls live on the server's connection: a new one starts clean.
      if (state === 'reconnecting') controls.requests.clear();
      if (state === 'live') {
        // Calls that finished while the page was away arrive with the list, not as events.
        if (connectedOnce) {
          refreshCalls();
          refreshEvents();
        }
        connectedOnce = true;
      }
      if (state === 'closed') {
        controls.requests.clear();
        controls.set({ controller: null, canControl: false });
        presence.setController(null);
        if (code === LIVE_CLOSE.revoked) revoked(endedAccess(detail, true));
        else if (code === LIVE_CLOSE.disconnected)
          showNotice(`${detail}. Reload the page to join again.`, 'warning', true);
        else if (detail !== 'closed' && detail !== SHELL_ENDED)
          showNotice(
            scoped
              ? `Disconnected: ${detail}.`
              : `Disconnected: ${detail}. See every shell on the dashboard.`,
            'warning',
            true,
          );
      }
    },
    async onRepeatedFailure() {
      const check = await fetchSession(sessionId);
      // Away (a restart, the network): keep trying; the socket's pauses are capped.
      if (!check.ok && check.problem.kind === 'unreachable') return;
      if (!check.ok) {
        socket.stop('not connected');
        // A share link's token that stopped working was revoked or expired.
        if (scoped && check.problem.kind === 'login')
          revoked({ kind: 'revoked', credential: 'link' });
        else if (check.problem.kind === 'revoked' || check.problem.kind === 'expired')
          revoked(check.problem);
        else showAccessProblem(frame.main, check.problem);
        return;
      }
      // Back, but the shell is not: live shells end with the server. Its story is kept.
      if (check.value.state === 'ended') {
        socket.stop(SHELL_ENDED);
        session = check.value;
        renderSession();
        refreshCalls();
        endedNote.hidden = false;
      }
    },
  });

  const find = (backwards: boolean): void => {
    const found = view.find(search.value, backwards);
    if (!found && search.value !== '') {
      findCount.textContent = 'No results';
      findCount.dataset.count = '0';
    }
  };
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') find(event.shiftKey);
  });
  search.addEventListener('input', () => find(false));
  function send(message: ClientMessage): void {
    if (!socket.send(message)) showNotice('Not connected; try again in a moment.', 'warning');
    // Everyone's timeline shows the interrupt; the server has it once the message is handled.
    else if (message.type === 'interrupt') refreshEvents();
  }

  socket.start();
  tickElapsedClocks(frame.main);

  return {
    terminalText: () => view.screenText(),
    bufferText: () => view.bufferText(),
    dropConnection() {
      socket.drop();
      return cursor.position;
    },
    position: () => cursor.position,
  };
}
