/**
 * One shell a test drives: an agent's persistent bash or pwsh shell on a jumpseat server.
 * `run` makes a tool call and gives back the exact result text the agent would get;
 * `type` and `press` go through the live WebSocket as a person at the keyboard (take the
 * controls, send the keys; the next `run` hands them back); `screen` reads the screen from
 * the live stream; `watch` opens the shell's page in the test's browser.
 */
import { type Page, test } from '@playwright/test';
import { NotFoundError } from '../../client/src/index.ts';
import type {
  CallInfo,
  Dialect,
  JumpseatClient,
  LiveEvent,
  LiveWatch,
  SessionInfo,
  Viewer,
} from './client-types.ts';
import { promptCommand } from './fixture-prompt.ts';
import { keyBytes } from './keys.ts';
import { ScreenMirror } from './screen-mirror.ts';

/** A call that changes nothing, to start a shell a test types into before running anything. */
const NO_OP: Readonly<Record<Dialect, string>> = { bash: ':', pwsh: '$null' };
/** No-op calls made to start a shell before giving up (one is enough unless it exits). */
const START_ATTEMPTS = 3;
/** How often to look for the shell a first call is starting. */
const FIND_SESSION_EVERY_MS = 50;
/** The server answers a control message in milliseconds; past this something is wrong. */
const CONTROL_ANSWER_MS = 30_000;
/** Input frames stay well under the live protocol's 64 KiB message limit. */
const INPUT_CHUNK_CHARS = 16 * 1024;
/** A step's title shows this much of a command or typed text. */
const STEP_TITLE_CHARS = 80;
/** A result that says the shell ended: the next call starts its successor. */
const SHELL_EXITED = /\[shell exited[:\]]/;

/** `text` as one short line for a step's title. */
function stepText(text: string): string {
  const line = JSON.stringify(text);
  return line.length <= STEP_TITLE_CHARS ? line : `${line.slice(0, STEP_TITLE_CHARS - 1)}…`;
}

export interface RunOptions {
  /**
   * Give up after this many ms: the call is cancelled on the server (the shell is reset, as
   * when an agent stops waiting) and `run` rejects. Default: no limit but the test's own.
   */
  readonly timeout?: number;
}

export interface ShellTarget {
  readonly client: JumpseatClient;
  readonly url: string;
  loginUrl(token?: string): string;
}

export interface ShellOptions {
  /**
   * The prompt the shell shows, set (and the screen cleared) before the test's first call and
   * in a successor shell; null keeps the shell's own (its working directory). Default `$ `.
   */
  readonly prompt?: string | null;
}

export interface WatchOptions {
  /** Log the page in with this token (a viewer's, an operator's) instead of the admin's. */
  readonly token?: string;
}

export class JumpseatShell {
  #id: string | undefined;
  #starting: Promise<string> | undefined;
  #inFlight = 0;
  #watch: LiveWatch | undefined;
  #watching: Promise<void> | undefined;
  #mirror: ScreenMirror | undefined;
  #me: Viewer | undefined;
  #controller: Viewer | null = null;
  #lastError: { code: string; message: string; seq: number } | undefined;
  #seq = 0;
  /** The live connection ended for good (the shell is gone, or the token was revoked). */
  #closed = false;
  readonly #wakers = new Set<() => void>();
  readonly #calls = new AbortController();
  #disposed = false;
  /** The prompt call is due before the next call (a new shell, or the last one exited). */
  #promptDue = true;
  /** The prompt calls made, left out of `calls()`: they are the fixture's, not the test's. */
  readonly #promptCalls = new Set<string>();
  readonly #prompt: string | null;

  constructor(
    private readonly target: ShellTarget,
    /** The agent id this shell belongs to, named after its test; also its workspace's name. */
    readonly agent: string,
    readonly dialect: Dialect,
    options: ShellOptions = {},
  ) {
    this.#prompt = options.prompt === undefined ? '$ ' : options.prompt;
  }

  /** The shell's session id once it has started (`GET /api/sessions/:id`…). */
  get sessionId(): string | undefined {
    return this.#id;
  }

  /** Runs `command` as the agent's tool call; resolves with the exact result text. */
  run(command: string, options: RunOptions = {}): Promise<string> {
    return test.step(`shell.run(${stepText(command)})`, () => this.#run(command, options), {
      box: true,
    });
  }

  async #run(command: string, options: RunOptions = {}): Promise<string> {
    this.#alive();
    await this.#handBack();
    await this.#setPrompt();
    return this.#call(command, options);
  }

  /** Sets the fixture's prompt when it is due: before the first call of each shell. */
  async #setPrompt(): Promise<void> {
    if (!this.#promptDue || this.#prompt === null) return;
    this.#promptDue = false;
    const command = promptCommand(this.dialect, this.#prompt);
    this.#promptCalls.add(command);
    await this.#call(command);
  }

  async #call(command: string, options: RunOptions = {}): Promise<string> {
    const signals = [this.#calls.signal];
    if (options.timeout !== undefined) signals.push(AbortSignal.timeout(options.timeout));
    this.#inFlight += 1;
    try {
      const result = await this.target.client.call(this.agent, this.dialect, command, {
        signal: AbortSignal.any(signals),
      });
      if (SHELL_EXITED.test(result)) this.#promptDue = true;
      return result;
    } finally {
      this.#inFlight -= 1;
      // The call may have started the shell, or a successor if the last one had exited.
      if (!this.#disposed) await this.#follow();
    }
  }

  /** Types `text` as a person would (for prompts and TUIs); `\n` is Enter (sent as `\r`). */
  type(text: string): Promise<void> {
    return test.step(`shell.type(${stepText(text)})`, () => this.#type(text), { box: true });
  }

  async #type(text: string): Promise<void> {
    const keys = text.replace(/\r?\n/g, '\r');
    await this.#takeControls();
    for (let at = 0; at < keys.length; at += INPUT_CHUNK_CHARS) {
      this.#send({ type: 'input', data: keys.slice(at, at + INPUT_CHUNK_CHARS) });
    }
  }

  /** Presses one key: `Enter`, `Escape`, `ArrowDown`, `Control+C`, `q`, … */
  press(key: string): Promise<void> {
    return test.step(`shell.press(${stepText(key)})`, () => this.#press(key), { box: true });
  }

  async #press(key: string): Promise<void> {
    await this.#takeControls();
    const mirror = this.#mirror;
    this.#send({ type: 'input', data: keyBytes(key, mirror?.applicationCursorKeys ?? false) });
  }

  /** The screen as it is now: one line per row, trailing blanks trimmed. */
  async screen(): Promise<string> {
    await this.#live();
    return (await this.#mirror?.text()) ?? '';
  }

  /** Opens this shell's live page in `page`, logged in, and waits until it is live. */
  async watch(page: Page, options: WatchOptions = {}): Promise<void> {
    const id = await this.#session();
    await page.goto(this.target.loginUrl(options.token));
    await page.waitForURL(`${this.target.url}/`);
    await page.goto(`${this.target.url}/sessions/${encodeURIComponent(id)}`);
    await page
      .getByTestId('connection')
      .and(page.locator('[data-state="live"]'))
      .waitFor({ state: 'attached' });
  }

  /** The calls so far, with the result text exactly as the agent got each. */
  async calls(): Promise<CallInfo[]> {
    if (this.#id === undefined) return [];
    const calls = await this.target.client.calls(this.#id);
    return calls.filter((call) => !this.#promptCalls.has(call.command));
  }

  /** Everything the shell showed, as asciicast v2. */
  async recording(): Promise<string> {
    return this.#id === undefined ? '' : this.target.client.recording(this.#id);
  }

  /** Stops watching and ends the shell's process tree (the fixture does this after a test). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#calls.abort(new Error('the test ended'));
    this.#watch?.close();
    this.#mirror?.dispose();
    if (this.#id === undefined) return;
    try {
      await this.target.client.closeShell(this.#id);
    } catch (error) {
      // Ended and forgotten by the server already: nothing is left to end.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }

  #alive(): void {
    if (this.#disposed) throw new Error(`the shell of ${this.agent} was closed with its test`);
  }

  /** The session id, starting the shell with a no-op call if nothing has started it yet. */
  #session(): Promise<string> {
    this.#alive();
    if (this.#id !== undefined) return Promise.resolve(this.#id);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<string> {
    // A call in flight (a `run` still waiting) is starting the shell: find it meanwhile.
    let started = 0;
    for (;;) {
      if (this.#inFlight === 0) {
        if (started === START_ATTEMPTS) {
          throw new Error(`the shell of ${this.agent} did not appear in GET /api/sessions`);
        }
        started += 1;
        this.#alive();
        if (this.#promptDue && this.#prompt !== null) await this.#setPrompt();
        else await this.#call(NO_OP[this.dialect]);
      }
      const found = await this.#find();
      if (found !== undefined) {
        this.#id = found.id;
        return found.id;
      }
      if (this.#inFlight > 0) {
        await new Promise((resolve) => setTimeout(resolve, FIND_SESSION_EVERY_MS));
      }
    }
  }

  /** The agent's newest shell of this dialect that still runs (or the newest, if none does). */
  async #find(): Promise<SessionInfo | undefined> {
    const mine = (await this.target.client.sessions('live')).filter(
      (session) => session.agent === this.agent && session.dialect === this.dialect,
    );
    const running = mine.filter((session) => session.state !== 'exited');
    return running.at(-1) ?? mine.at(-1);
  }

  async #follow(): Promise<void> {
    const found = await this.#find();
    if (found === undefined || found.id === this.#id) return;
    this.#id = found.id;
    if (this.#watch !== undefined) {
      this.#watch.close();
      this.#mirror?.dispose();
      this.#watch = undefined;
      this.#watching = undefined;
      this.#mirror = undefined;
    }
  }

  /** Watching the shell live, its screen received. */
  async #live(): Promise<void> {
    const id = await this.#session();
    this.#watching ??= this.#open(id);
    await this.#watching;
  }

  async #open(id: string): Promise<void> {
    this.#closed = false;
    const mirror = new ScreenMirror();
    this.#mirror = mirror;
    this.#watch = await this.target.client.watch(id, (event) => this.#onEvent(mirror, event));
    await mirror.ready();
  }

  #onEvent(mirror: ScreenMirror, event: LiveEvent): void {
    mirror.apply(event);
    if (event.type === 'connection' && event.state === 'closed') {
      mirror.close();
      // A watch replaced by the successor's closes late: it says nothing of the current one.
      if (mirror === this.#mirror) {
        this.#closed = true;
        this.#controller = null;
      }
    } else if (event.type === 'hello') this.#me = event.you;
    else if (event.type === 'control') this.#controller = event.controller;
    else if (event.type === 'error') {
      this.#seq += 1;
      this.#lastError = { code: event.code, message: event.message, seq: this.#seq };
    }
    for (const wake of this.#wakers) wake();
  }

  #holding(): boolean {
    return this.#me !== undefined && this.#controller?.id === this.#me.id;
  }

  async #takeControls(): Promise<void> {
    this.#alive();
    await this.#live();
    if (this.#holding()) return;
    await this.#answer('take the controls', () => this.#holding(), { type: 'take_control' });
  }

  /** Gives the shell back to its agent before a call (a call is refused while a human types). */
  async #handBack(): Promise<void> {
    if (!this.#holding()) return;
    await this.#answer('hand the controls back', () => !this.#holding(), {
      type: 'release_control',
    });
  }

  #send(message: Parameters<LiveWatch['send']>[0]): void {
    if (this.#watch === undefined) throw new Error('the shell is not being watched');
    this.#watch.send(message);
  }

  /** Sends `message` and waits until `done()`; a refusal (an error frame) rejects. */
  #answer(what: string, done: () => boolean, message: Parameters<LiveWatch['send']>[0]) {
    const since = this.#seq;
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        this.#wakers.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = (): void => {
        const refused = this.#lastError;
        if (refused !== undefined && refused.seq > since) {
          finish(new Error(`could not ${what}: ${refused.code}: ${refused.message}`));
        } else if (done()) finish();
        else if (this.#closed) {
          finish(
            new Error(
              `could not ${what}: the shell's live connection closed (has the shell exited? a run() starts its successor)`,
            ),
          );
        }
      };
      const timer = setTimeout(
        () => finish(new Error(`could not ${what}: no answer in ${CONTROL_ANSWER_MS} ms`)),
        CONTROL_ANSWER_MS,
      );
      this.#wakers.add(check);
      try {
        this.#send(message);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }
}
