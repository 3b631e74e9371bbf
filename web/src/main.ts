/**
 * Entry of the browser app (Vite root: web/): picks the page from the path (`/`, `/login`,
 * `/tokens`, `/hosts`, `/sessions/:id`, `/sessions/:id/replay` or
 * `/sessions/:id/calls/:callId/output`) and publishes `window.jumpseat`, the hooks Playwright
 * users rely on.
 */
import './style.css';
import { appRoute } from './app-path.ts';
import { showDashboard } from './dashboard-page.ts';
import type { JumpseatHooks } from './hooks.ts';
import { initTheme } from './theme.ts';

const NO_TERMINAL: JumpseatHooks = {
  terminalText: () => '',
  bufferText: () => '',
  dropConnection: () => null,
  position: () => null,
};

async function start(): Promise<void> {
  initTheme();
  window.jumpseat = { ...NO_TERMINAL };
  const root = document.getElementById('app');
  if (root === null) return;
  const route = appRoute();
  const match = /^\/sessions\/([^/]+)\/?$/.exec(route);
  const replay = /^\/sessions\/([^/]+)\/replay\/?$/.exec(route);
  const output = /^\/sessions\/([^/]+)\/calls\/([^/]+)\/output\/?$/.exec(route);
  if (/^\/login\/?$/.test(route)) {
    const { showLogin } = await import('./login-page.ts');
    await showLogin(root);
  } else if (/^\/tokens\/?$/.test(route)) {
    const { showTokens } = await import('./tokens-page.ts');
    await showTokens(root);
  } else if (/^\/hosts\/?$/.test(route)) {
    const { showHosts } = await import('./hosts-page.ts');
    await showHosts(root);
  } else if (output?.[1] !== undefined && output[2] !== undefined) {
    const { showFullOutput } = await import('./full-output-page.ts');
    await showFullOutput(root, decodeURIComponent(output[1]), decodeURIComponent(output[2]));
  } else if (replay?.[1] !== undefined) {
    const { showReplay } = await import('./replay-page.ts');
    const hooks = await showReplay(root, decodeURIComponent(replay[1]));
    if (hooks !== undefined) window.jumpseat = hooks;
  } else if (match?.[1] !== undefined) {
    // The terminal (xterm.js and its renderers) loads only on the session page.
    const { showSession } = await import('./session-page.ts');
    const hooks = await showSession(root, decodeURIComponent(match[1]));
    if (hooks !== undefined) window.jumpseat = hooks;
  } else {
    await showDashboard(root);
  }
}

void start();
