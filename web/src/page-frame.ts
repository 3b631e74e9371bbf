/**
 * What every page shares: the header (name, connection state, theme switch) and the
 * explanations shown instead of data when the browser is not logged in or may not watch.
 */
import type { AccessProblem } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { h, replaceChildren } from './dom.ts';
import type { ConnectionState } from './reconnecting-socket.ts';
import { themeButton } from './theme.ts';

const CONNECTION_LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
};

export interface PageFrame {
  readonly main: HTMLElement;
  setConnection(state: ConnectionState, detail: string): void;
  /**
   * The server cannot be reached (true) or is back (false): "Reconnecting…" is shown
   * meanwhile, also on pages that hide the indicator; what was shown before comes back.
   */
  setAway(away: boolean): void;
  /** A share link reaches one shell only: the name stops linking to the dashboard. */
  unlinkHome(): void;
  /**
   * The page has no live stream (the Tokens page), or its stream has nothing live left (an
   * ended shell): no pill, rather than a red "Disconnected" or a green "Live" that mislead.
   */
  hideConnection(): void;
}

export function pageFrame(root: HTMLElement, ...headerItems: Node[]): PageFrame {
  const connection = h('span', {
    class: 'connection',
    'data-testid': 'connection',
    'data-state': 'connecting',
    role: 'status',
    'aria-live': 'polite',
  });
  connection.textContent = CONNECTION_LABELS.connecting;
  /** What the indicator showed before an outage (see setAway). */
  let before: { state: ConnectionState; detail: string; hidden: boolean } | null = null;
  const main = h('main', { id: 'main' });
  const brand = h(
    'a',
    { class: 'brand', href: appUrl('/') },
    h('span', { 'aria-hidden': 'true' }, '▍'),
    'jumpseat',
  );
  replaceChildren(
    root,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      brand,
      ...headerItems,
      h('span', { class: 'spacer' }),
      connection,
      themeButton(),
    ),
    main,
  );
  return {
    main,
    setConnection(state, detail) {
      connection.dataset.state = state;
      connection.textContent = CONNECTION_LABELS[state];
      connection.title = detail;
    },
    setAway(away) {
      if (away && before === null) {
        before = {
          state: (connection.dataset.state ?? 'connecting') as ConnectionState,
          detail: connection.title,
          hidden: connection.hidden,
        };
      }
      if (away) {
        this.setConnection('reconnecting', 'cannot reach jumpseat; trying again');
        connection.hidden = false;
        return;
      }
      if (before === null) return;
      this.setConnection(before.state, before.detail);
      connection.hidden = before.hidden;
      before = null;
    },
    unlinkHome() {
      brand.removeAttribute('href');
    },
    hideConnection() {
      connection.hidden = true;
    },
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Replaces the page's content with why there is nothing to show, and what to do. */
export function showAccessProblem(main: HTMLElement, problem: AccessProblem): void {
  replaceChildren(
    main,
    h(
      'section',
      { class: 'notice', 'data-testid': 'notice', 'data-problem': problem.kind },
      ...explain(problem),
    ),
  );
}

function explain(problem: AccessProblem): Node[] {
  switch (problem.kind) {
    case 'login':
      return [
        h('h1', {}, 'Log in to watch the shells'),
        h(
          'p',
          {},
          'Open the login URL jumpseat printed when it started — the line beginning with ',
          h('code', {}, 'login: http://…/login?token=…'),
          '. This browser then keeps a sign-in of its own that only jumpseat’s pages can read.',
        ),
        h(
          'p',
          { class: 'muted' },
          'For a viewer or operator token, an admin mints one with ',
          h('code', {}, 'POST /api/tokens'),
          ' and sends you ',
          h('code', {}, '/login?token=…'),
          ' with it.',
        ),
      ];
    case 'forbidden':
      return [h('h1', {}, 'Not allowed'), h('p', {}, problem.message)];
    case 'not_found':
      return [
        h('h1', {}, 'No such shell'),
        h('p', {}, problem.message),
        h('p', {}, h('a', { href: appUrl('/') }, 'See every shell')),
      ];
    case 'revoked':
      if (problem.credential === 'token') {
        return [
          h('h1', {}, 'Your token was revoked'),
          h(
            'p',
            { 'data-testid': 'revoked-detail' },
            problem.detail === undefined
              ? 'An admin revoked the token this browser signed in with.'
              : `${capitalized(problem.detail)}: this browser signed in with it.`,
          ),
          h('p', {}, 'What it showed was cleared. You no longer see any shell or type in one.'),
          h('p', { class: 'muted' }, 'Ask an admin for a new login URL if you still need access.'),
        ];
      }
      return [
        h('h1', {}, 'Your access to this shell was revoked'),
        h(
          'p',
          {},
          'The person who shared this shell revoked your link. You no longer see it or type in it.',
        ),
        h('p', { class: 'muted' }, 'Ask them for a new link if you still need it.'),
      ];
    case 'expired':
      return [
        h('h1', {}, 'Your share link expired'),
        h(
          'p',
          {},
          'The link to this shell was given a time limit, and it has run out. You no longer see it or type in it.',
        ),
        h(
          'p',
          { class: 'muted' },
          'Ask the person who shared it for a new link if you still need it.',
        ),
      ];
    case 'refused':
    case 'failed':
    case 'unreachable':
      return [h('h1', {}, 'Something went wrong'), h('p', {}, problem.message)];
  }
}
