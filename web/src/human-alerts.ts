/**
 * Alerts when a shell starts to need a human, for a dashboard left in a background tab: an
 * opt-in desktop notification (one per shell and wait; a click opens the shell) and an
 * optional short tone. The choices are this browser's, kept in its local storage.
 */
import type { SessionInfo } from '../../shared/src/api.ts';
import { h } from './dom.ts';
import { shellOwnerLabel } from './session-labels.ts';

const STORAGE_KEY = 'jumpseat.alerts';
/** The tone: a short, soft beep (Hz, seconds, gain). */
const TONE_HZ = 880;
const TONE_SECONDS = 0.25;
const TONE_GAIN = 0.15;

export interface AlertSettings {
  readonly notify: boolean;
  readonly sound: boolean;
}

function readSettings(): AlertSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}') as Partial<AlertSettings>;
    return { notify: saved.notify === true, sound: saved.sound === true };
  } catch {
    return { notify: false, sound: false };
  }
}

/** Why desktop notifications cannot be had here, or null when they can. */
function notificationsUnavailable(): string | null {
  if (typeof Notification === 'undefined') {
    return 'This browser shows desktop notifications only for pages on HTTPS or localhost.';
  }
  if (Notification.permission === 'denied') {
    return 'Notifications are blocked for this site: allow them in the browser’s site settings.';
  }
  return null;
}

export class HumanAlerts {
  #settings = readSettings();
  /** Shells that needed a human at the last look; null before the first (no alert for those). */
  #needing: Set<string> | null = null;
  #audio: AudioContext | null = null;
  readonly #notes = new Map<string, Notification>();
  readonly element: HTMLElement;
  readonly #problem = h('p', {
    class: 'alerts-problem muted',
    'data-testid': 'alerts-problem',
    hidden: true,
  });

  constructor() {
    const notify = this.#checkbox('alert-notify', 'Desktop notification', this.#settings.notify);
    const sound = this.#checkbox('alert-sound', 'Sound', this.#settings.sound);
    notify.input.addEventListener('change', () => void this.#setNotify(notify.input));
    sound.input.addEventListener('change', () => {
      this.#save({ sound: sound.input.checked });
      if (sound.input.checked) this.#tone(); // a sample, and the gesture the audio needs
    });
    this.element = h(
      'details',
      { class: 'alerts', 'data-testid': 'alerts' },
      h('summary', {}, 'Alerts'),
      h(
        'div',
        { class: 'alerts-panel' },
        h('p', { class: 'muted' }, 'When a shell starts to need a human:'),
        notify.label,
        sound.label,
        this.#problem,
      ),
    );
  }

  /** Looks at the shells that need a human now; alerts for each that did not a moment ago. */
  update(needing: readonly SessionInfo[]): void {
    const now = new Set(needing.map((session) => session.id));
    const before = this.#needing;
    this.#needing = now;
    for (const [id, note] of this.#notes) {
      if (!now.has(id)) {
        note.close();
        this.#notes.delete(id);
      }
    }
    if (before === null) return;
    const fresh = needing.filter((session) => !before.has(session.id));
    if (fresh.length === 0) return;
    if (this.#settings.sound) this.#tone();
    if (this.#settings.notify && notificationsUnavailable() === null) {
      for (const session of fresh) this.#notify(session);
    }
  }

  #checkbox(id: string, text: string, checked: boolean) {
    const input = h('input', { type: 'checkbox', id, checked });
    return { input, label: h('label', { for: id, class: 'alert-choice' }, input, ` ${text}`) };
  }

  #save(change: Partial<AlertSettings>): void {
    this.#settings = { ...this.#settings, ...change };
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(this.#settings));
    } catch {
      // Storage refused (private mode): the choice lasts as long as the page.
    }
  }

  async #setNotify(input: HTMLInputElement): Promise<void> {
    this.#problem.hidden = true;
    if (!input.checked) {
      this.#save({ notify: false });
      return;
    }
    let problem = notificationsUnavailable();
    if (problem === null && Notification.permission !== 'granted') {
      const answer = await Notification.requestPermission();
      if (answer !== 'granted')
        problem = notificationsUnavailable() ?? 'Notifications were not allowed.';
    }
    if (problem !== null) {
      input.checked = false;
      this.#problem.textContent = problem;
      this.#problem.hidden = false;
      this.#save({ notify: false });
      return;
    }
    this.#save({ notify: true });
  }

  #notify(session: SessionInfo): void {
    const path = `/sessions/${encodeURIComponent(session.id)}`;
    const note = new Notification('A shell needs a human', {
      body: `${shellOwnerLabel(session)} (${session.dialect}) is waiting for input${session.command ? `: ${session.command}` : ''}`,
      // One per shell: a later alert for the same shell replaces this one.
      tag: `jumpseat-${session.id}`,
    });
    note.onclick = () => {
      window.focus();
      note.close();
      location.assign(path);
    };
    this.#notes.set(session.id, note);
  }

  #tone(): void {
    try {
      this.#audio ??= new AudioContext();
      const audio = this.#audio;
      void audio.resume();
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = TONE_HZ;
      gain.gain.value = TONE_GAIN;
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start();
      oscillator.stop(audio.currentTime + TONE_SECONDS);
    } catch {
      // No audio output here: the notification and the title still call.
    }
  }
}
