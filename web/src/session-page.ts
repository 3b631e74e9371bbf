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
import { fetchCalls, fetchMe, fetchSession, ticketedSocketUrl } from './api-client.ts';
import { CallTimeline } from './call-timeline.ts';
import { h, replaceChildren } from './dom.ts';
import type { JumpseatHooks } from './hooks.ts';
import { askName } from './name-prompt.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { PresenceList } from './presence-list.ts';
import { ReconnectingSocket } from './reconnecting-socket.ts';
import { isOver, shellOwnerLabel, stateBadge } from './session-labels.ts';
import { ShellControls } from './shell-controls.ts';
import { ShellOwnerTools } from './shell-owner-tools.ts';
import { watchForSuccessor } from './successor-shell.ts';
import { TerminalView } from './terminal-view.ts';
import { isDark, onThemeChange } from './theme.ts';
import { tickElapsedClocks } from './time-format.ts';

/** How long a refusal or notice stays in the status line. */
const NOTICE_MS = 6000;

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
  const [me, initialCalls, known] = await Promise.all([
    fetchMe(),
    fetchCalls(sessionId),
    fetchSession(sessionId),
  ]);
  if (!initialCalls.ok) {
    frame.setConnection('closed', 'not connected');
    showAccessProblem(frame.main, initialCalls.problem);
    return undefined;
  }
  // A shell from before the server's restart has no live stream: its story is the replay.
  if (known.ok && known.value.state === 'ended') {
    location.replace(`/sessions/${encodeURIComponent(sessionId)}/replay`);
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
  let noticeTimer: ReturnType<typeof setTimeout> | undefined;

  const terminalHost = h('div', { class: 'terminal-frame', 'data-testid': 'terminal' });
  const notice = h('span', { class: 'notice-line', role: 'alert' });
  /** The controls go back to the agent soon: shown to the controller until they type. */
  const idleWarning = h('p', {
    class: 'idle-warning',
    'data-testid': 'idle-warning',
    role: 'alert',
    hidden: true,
  });
  let youId: string | null = null;
  const search = h('input', {
    type: 'search',
    placeholder: 'Find in terminal',
    'aria-label': 'Find in terminal',
    class: 'find',
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
    (text) => showNotice(text),
    (names) => {
      askers = names;
      renderTitle();
    },
    () => {
      idleWarning.hidden = true;
    },
  );
  const successor = h('p', { class: 'successor', 'data-testid': 'successor', hidden: true });
  const timeline = new CallTimeline();
  timeline.merge(initialCalls.value);
  const refreshCalls = (): void => {
    void fetchCalls(sessionId).then((calls) => calls.ok && timeline.merge(calls.value));
  };
  const ownerTools = new ShellOwnerTools(sessionId, who, (handed) => {
    session = handed;
    renderSession();
    showNotice(
      `Handed to agent ${handed.agent ?? ''}: its next ${handed.dialect} call runs in this shell.`,
    );
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
          search,
          h(
            'a',
            {
              class: 'replay-link',
              href: `/sessions/${encodeURIComponent(sessionId)}/replay`,
              'data-testid': 'replay-link',
            },
            'Replay',
          ),
        ),
        controls.requests.element,
        notice,
        idleWarning,
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
  onThemeChange((dark) => view.setTheme(dark));
  controls.attach(view);
  const cursor = new OutputCursor();
  const ended = (): boolean => session !== null && isOver(session.state);

  /** A refusal fades; a lost shell stays said (`sticky`). */
  const showNotice = (text: string, sticky = false): void => {
    notice.textContent = text;
    clearTimeout(noticeTimer);
    if (sticky) return;
    noticeTimer = setTimeout(() => {
      notice.textContent = '';
    }, NOTICE_MS);
  };

  const renderSession = (): void => {
    if (session === null) return;
    title.textContent = `${shellOwnerLabel(session)} · ${session.dialect}`;
    pageTitle = `${shellOwnerLabel(session)} · ${session.dialect} — jumpseat`;
    renderTitle();
    replaceChildren(badge, stateBadge(session));
    if (session.state !== 'running') timeline.idle();
    ownerTools.update(session);
    controls.set({ session });
    if (ended()) showEnded(session);
  };

  /** The shell ended: an agent's next call starts a new one; a person's shell is just over. */
  const showEnded = (over: SessionInfo): void => {
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
          { href: `/sessions/${encodeURIComponent(next.id)}` },
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
        session = message.session;
        renderSession();
        break;
      case 'call_started':
        timeline.started(message.command, message.startedAt);
        break;
      case 'call_finished':
        timeline.add(message.call);
        break;
      case 'control': {
        const wasMine = controls.inControl();
        controls.set({ controller: message.controller });
        presence.setController(message.controller?.id ?? null);
        idleWarning.hidden = true;
        if (message.takenFrom !== undefined && message.takenFrom.id === youId) {
          showNotice(`${message.controller?.name ?? 'Someone'} took the controls from you.`, true);
        } else if (message.reason === 'idle' && wasMine) {
          showNotice(
            'You typed nothing for a while, so the controls went back to the agent.',
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
        // Someone came or went: a share's holder may just have opened their link.
        ownerTools.refresh();
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
        showNotice(message.message);
        break;
    }
  };

  /** The page's access ended for good: say so in place of the shell, and stop. */
  const revoked = (): void => {
    frame.setConnection('closed', 'access revoked');
    showAccessProblem(frame.main, { kind: 'revoked' });
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
        if (connectedOnce) refreshCalls();
        connectedOnce = true;
      }
      if (state === 'closed') {
        controls.requests.clear();
        controls.set({ controller: null, canControl: false });
        presence.setController(null);
        if (code === LIVE_CLOSE.revoked) revoked();
        else if (code === LIVE_CLOSE.disconnected)
          showNotice(`${detail}. Reload the page to join again.`, true);
        else if (detail !== 'closed')
          showNotice(
            scoped
              ? `Disconnected: ${detail}.`
              : `Disconnected: ${detail}. See every shell on the dashboard.`,
            true,
          );
      }
    },
    async onRepeatedFailure() {
      const check = await fetchCalls(sessionId);
      if (!check.ok) {
        socket.stop('not connected');
        // A share link's token that stopped working was revoked or expired.
        if (scoped && check.problem.kind === 'login') revoked();
        else showAccessProblem(frame.main, check.problem);
      }
    },
  });

  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') view.find(search.value, event.shiftKey);
  });
  search.addEventListener('input', () => view.find(search.value, false));
  function send(message: ClientMessage): void {
    if (!socket.send(message)) showNotice('Not connected; try again in a moment.');
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
