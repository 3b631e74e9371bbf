/**
 * `/login?token=…`: trades the link's token for this browser's credential (credential.ts)
 * and goes on to the dashboard, or to the shared shell. It asks first when the link would
 * make this browser someone else than who it is signed in as, or when another site (or
 * another port of this host) sent the browser here: a page must not silently switch who a
 * person is (login CSRF). The server tells it the latter in `<meta name="jumpseat-login">`.
 */
import type { WhoAmI } from '../../shared/src/api.ts';
import { fetchMeWith, problemText, tradeToken } from './api-client.ts';
import { appUrl } from './app-path.ts';
import { keepCredential, storedCredential } from './credential.ts';
import { h, replaceChildren } from './dom.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';

export async function showLogin(root: HTMLElement): Promise<void> {
  const frame = pageFrame(root);
  frame.setConnection('closed', 'signing in');
  const token = new URLSearchParams(location.search).get('token');
  // The token leaves the address bar (and this history entry) at once.
  history.replaceState(null, '', appUrl('/login'));
  if (token === null || token === '') {
    showAccessProblem(frame.main, { kind: 'login' });
    return;
  }
  const target = await fetchMeWith(token);
  if (!target.ok) {
    showAccessProblem(frame.main, target.problem);
    return;
  }
  const stored = storedCredential();
  const current = stored === null ? null : await fetchMeWith(stored);
  const signedInAs = current?.ok === true ? current.value : null;
  const fromElsewhere =
    document.querySelector<HTMLMetaElement>('meta[name="jumpseat-login"]')?.content !== 'own';
  if (signedInAs !== null && signedInAs.id === target.value.id) {
    location.replace(landingOf(target.value));
    return;
  }
  if (signedInAs === null && !fromElsewhere) {
    await signIn(frame.main, token, target.value);
    return;
  }
  ask(frame.main, token, target.value, signedInAs);
}

function ask(main: HTMLElement, token: string, target: WhoAmI, current: WhoAmI | null): void {
  const become = h('button', { type: 'button', class: 'primary' }, `Continue as ${target.name}`);
  const stay = h(
    'button',
    { type: 'button' },
    current === null ? 'Cancel' : `Stay as ${current.name}`,
  );
  become.addEventListener('click', () => void signIn(main, token, target));
  stay.addEventListener('click', () => location.replace(appUrl('/')));
  replaceChildren(
    main,
    h(
      'section',
      { class: 'notice', 'data-testid': 'login-confirm' },
      h('h1', {}, current === null ? 'Sign in to jumpseat?' : 'Switch who you are?'),
      current === null
        ? h(
            'p',
            {},
            'Another page sent you to this login link. Sign in only if you meant to open it.',
          )
        : h(
            'p',
            { 'data-testid': 'login-current' },
            'You are signed in as ',
            h('strong', {}, current.name),
            ` (${roleText(current)}).`,
          ),
      h(
        'p',
        { 'data-testid': 'login-target' },
        'This link signs you in as ',
        h('strong', {}, target.name),
        ` (${roleText(target)}).`,
      ),
      h('div', { class: 'form-row' }, become, stay),
    ),
  );
  become.focus();
}

async function signIn(main: HTMLElement, token: string, target: WhoAmI): Promise<void> {
  const traded = await tradeToken(token);
  if (!traded.ok) {
    replaceChildren(main, h('section', { class: 'notice' }, problemText(traded.problem)));
    return;
  }
  keepCredential(traded.value.credential);
  location.replace(appUrl(landingOf(target)));
}

/** A share link lands on its shell: the dashboard is not for it. */
function landingOf(who: WhoAmI): string {
  return who.scope === null ? '/' : `/sessions/${encodeURIComponent(who.scope)}`;
}

function roleText(who: WhoAmI): string {
  if (who.scope !== null) return `a link holder: ${who.role} of one shell`;
  return who.role;
}
