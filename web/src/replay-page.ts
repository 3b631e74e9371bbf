/**
 * `/sessions/:id/replay`: a shell's recording played back, live or ended — play, pause, a
 * scrubber, speed, and a timeline of its calls and control events that jumps the player to
 * each. Built on our own xterm.js view, not asciinema-player: the replay draws with the very
 * renderer, theme and fonts the live page uses, so what a supervisor replays looks like what
 * watchers saw, and the page needs no second terminal emulator.
 */
import type { ControlEvent, SessionInfo } from '../../shared/src/api.ts';
import { fetchSettings, unreachable } from './api-client.ts';
import { appOrigin, appUrl } from './app-path.ts';
import { h, replaceChildren } from './dom.ts';
import type { JumpseatHooks } from './hooks.ts';
import { pageFrame, showAccessProblem } from './page-frame.ts';
import { loadWhenReachable } from './reachability.ts';
import { callStarts, parseReplayCast, type ReplayCast } from './replay-cast.ts';
import { fetchReplayData } from './replay-data.ts';
import { replayKeys, SHORTCUTS_TEXT } from './replay-keys.ts';
import { ReplayPlayer, SPEEDS } from './replay-player.ts';
import { formatPlayback, replayTimeline } from './replay-timeline.ts';
import { isOver, shellOwnerLabel, stateBadge } from './session-labels.ts';
import { TerminalView } from './terminal-view.ts';
import { isDark, onThemeChange } from './theme.ts';
import { formatClock } from './time-format.ts';
import { zoomControl } from './zoom-control.ts';

const ENDING_WORDS: Record<NonNullable<SessionInfo['ending']>['kind'], string> = {
  exited: 'the shell exited',
  killed: 'killed by a signal',
  reset: 'reset by jumpseat (a timeout or a cancelled call)',
  closed: 'closed when the server shut down',
  server_stopped: 'the server stopped while it ran',
  host_lost: 'its host stopped answering',
};

export async function showReplay(
  root: HTMLElement,
  sessionId: string,
): Promise<JumpseatHooks | undefined> {
  const title = h('span', { class: 'session-title' }, 'Replay');
  const badge = h('span', {});
  const frame = pageFrame(
    root,
    h('span', { class: 'crumb', 'aria-hidden': 'true' }, '/'),
    title,
    badge,
  );
  // Nothing here is live: the connection indicator would only mislead.
  root.querySelector<HTMLElement>('[data-testid="connection"]')?.setAttribute('hidden', '');
  document.title = 'Replay · jumpseat';
  const [loaded, settings] = await loadWhenReachable(
    frame,
    () => Promise.all([fetchReplayData(sessionId), fetchSettings()]),
    (results) => unreachable(...results),
  );
  if (!loaded.ok) {
    showAccessProblem(frame.main, loaded.problem);
    return undefined;
  }
  const { session, calls, events, recording } = loaded.value;
  if (session !== null) {
    title.textContent = `${shellOwnerLabel(session)} · ${session.dialect} — replay`;
    document.title = `Replay ${shellOwnerLabel(session)} · jumpseat`;
    replaceChildren(badge, stateBadge(session, false));
  }
  const about = h(
    'p',
    { class: 'replay-about muted', 'data-testid': 'replay-about' },
    aboutText(session),
  );
  const live = session !== null && !isOver(session.state);
  const liveLink =
    live && h('a', { href: appUrl(`/sessions/${encodeURIComponent(sessionId)}`) }, 'Watch it live');

  let cast: ReplayCast | null = null;
  try {
    cast = recording === null ? null : parseReplayCast(recording);
  } catch {
    cast = null;
  }
  if (cast === null) {
    replaceChildren(
      frame.main,
      about,
      liveLink,
      h(
        'p',
        { class: 'notice', 'data-testid': 'replay-missing' },
        'No recording is kept for this shell (it printed nothing, or retention deleted it).',
      ),
      replayTimeline(
        calls,
        [],
        events,
        () => 0,
        () => undefined,
      ),
    );
    return undefined;
  }

  const replay = cast;
  const terminalHost = h('div', { class: 'terminal-frame', 'data-testid': 'replay-terminal' });
  // The whole screen fits the box (width and height), so Play is never below the fold.
  const view = new TerminalView(terminalHost, isDark(), 'box');
  onThemeChange((dark) => view.setTheme(dark));
  const starts = callStarts(replay, calls);
  const playButton = h(
    'button',
    { type: 'button', class: 'primary', 'data-testid': 'replay-play' },
    'Play',
  );
  const scrubber = h('input', {
    type: 'range',
    min: 0,
    max: Math.max(1, Math.ceil(replay.durationMs)),
    step: 1,
    value: 0,
    'aria-label': 'Position',
    'data-testid': 'replay-scrubber',
  });
  const time = h('span', { class: 'replay-time', 'data-testid': 'replay-time' });
  const speed = h(
    'select',
    { 'aria-label': 'Speed', 'data-testid': 'replay-speed' },
    ...SPEEDS.map((value) => h('option', { value, selected: value === 1 }, `${value}×`)),
  );
  const marks = h(
    'div',
    { class: 'replay-marks', 'aria-hidden': 'true' },
    ...starts.map((at) =>
      h('span', { style: `left: ${(100 * at) / Math.max(1, replay.durationMs)}%` }),
    ),
  );
  const fullscreenButton = h(
    'button',
    { type: 'button', class: 'quiet', 'data-testid': 'replay-fullscreen', title: 'Fullscreen (F)' },
    'Fullscreen',
  );
  const momentButton = h(
    'button',
    {
      type: 'button',
      class: 'quiet',
      'data-testid': 'replay-moment',
      title: 'Copy a link that opens the replay at this moment',
    },
    'Link to this moment',
  );
  const momentUrl = h('input', {
    type: 'text',
    readonly: true,
    class: 'moment-url',
    'aria-label': 'Link to this moment',
    'data-testid': 'replay-moment-url',
    hidden: true,
  });
  const controls = h(
    'div',
    { class: 'replay-controls', 'data-testid': 'replay-controls', 'data-state': 'paused' },
    playButton,
    h('div', { class: 'replay-scrub' }, scrubber, marks),
    time,
    speed,
    momentButton,
    fullscreenButton,
  );
  const playerSection = h(
    'section',
    { class: 'replay-player', 'data-testid': 'replay-player' },
    controls,
    zoomControl(view),
    terminalHost,
    momentUrl,
    h('p', { class: 'replay-keys muted', 'data-testid': 'replay-keys' }, SHORTCUTS_TEXT),
  );
  const toggleFullscreen = (): void => {
    if (document.fullscreenElement === playerSection) void document.exitFullscreen();
    else void playerSection.requestFullscreen().catch(() => undefined);
  };
  fullscreenButton.addEventListener('click', toggleFullscreen);
  document.addEventListener('fullscreenchange', () => {
    fullscreenButton.textContent =
      document.fullscreenElement === playerSection ? 'Exit fullscreen' : 'Fullscreen';
  });

  const player = new ReplayPlayer(view, replay, (current) => {
    controls.dataset.state = current.state;
    playButton.textContent = current.state === 'playing' ? 'Pause' : 'Play';
    scrubber.value = String(Math.round(current.position));
    time.textContent = `${formatPlayback(current.position)} / ${formatPlayback(current.duration)}`;
  });
  const base =
    settings.ok && settings.value.publicUrl !== null ? settings.value.publicUrl : appOrigin();
  momentButton.addEventListener('click', () => {
    const link = momentLink(base, sessionId, player.position);
    momentUrl.hidden = false;
    momentUrl.value = link;
    momentUrl.select();
    history.replaceState(null, '', new URL(link).search);
    void navigator.clipboard?.writeText(link).then(
      () => {
        momentButton.textContent = 'Link copied';
      },
      () => undefined,
    );
  });
  replayKeys(player, toggleFullscreen);
  playButton.addEventListener('click', () =>
    player.state === 'playing' ? player.pause() : player.play(),
  );
  scrubber.addEventListener('input', () => player.seek(Number(scrubber.value)));
  speed.addEventListener('change', () => player.setSpeed(Number(speed.value)));
  const jump = (ms: number): void => {
    player.seek(ms);
    player.play();
  };
  const eventTime = (event: ControlEvent): number => replay.playbackTime(Date.parse(event.at));

  replaceChildren(
    frame.main,
    h('div', { class: 'replay-head' }, about, liveLink),
    h(
      'div',
      { class: 'replay-layout' },
      playerSection,
      replayTimeline(calls, starts, events, eventTime, jump),
    ),
  );
  // `?t=SECONDS` opens at that moment; without it, the first frame shows before Play.
  const asked = Number.parseFloat(new URLSearchParams(location.search).get('t') ?? '');
  player.seek(Number.isFinite(asked) && asked >= 0 ? asked * 1000 : player.firstFrameAt);

  return {
    terminalText: () => view.screenText(),
    bufferText: () => view.bufferText(),
    dropConnection: () => null,
    position: () => null,
    replay: {
      position: () => player.position,
      duration: () => player.duration,
      state: () => player.state,
      seek: (ms) => player.seek(ms),
      play: () => player.play(),
      pause: () => player.pause(),
      callStarts: () => [...starts],
    },
  };
}

function aboutText(session: SessionInfo | null): string {
  if (session === null) return 'A shell from history.';
  const started = `Started ${formatClock(session.startedAt)} (${new Date(session.startedAt).toLocaleDateString()})`;
  if (session.endedAt === null)
    return `${started}; still running — this plays what it showed up to now.`;
  const how = session.ending === null ? '' : `: ${ENDING_WORDS[session.ending.kind]}`;
  const code =
    session.ending?.exitCode !== null && session.ending?.exitCode !== undefined
      ? ` (code ${session.ending.exitCode})`
      : session.ending?.signal
        ? ` (${session.ending.signal})`
        : '';
  return `${started}, ended ${formatClock(session.endedAt)}${how}${code}.`;
}

/** The replay at `positionMs` on the playback clock, as `?t=` seconds (tenths). */
function momentLink(base: string, sessionId: string, positionMs: number): string {
  const url = new URL(`sessions/${encodeURIComponent(sessionId)}/replay`, base);
  url.searchParams.set('t', (Math.floor(positionMs / 100) / 10).toFixed(1));
  return url.href;
}
