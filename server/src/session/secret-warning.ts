/**
 * The warning before a person's hidden answer (a password) goes into an agent's shell
 * (issue 21): whatever the agent ran there may be what reads it — a `sudo` it defined as a
 * function, an alias, a program early in its `PATH`, an `LD_PRELOAD` it exported, a trap, a
 * builtin it loaded, or a program of its own still running. Keys of a hidden answer wait
 * until the person at the controls says "send anyway" (the rest of that line then goes) or
 * "don't send" (they are dropped), and either answer is told to listeners for the history.
 *
 * Why every agent's shell, not only one whose functions, aliases or `PATH` look changed: a
 * fingerprint of `declare -F`, `alias` and `$PATH` is taken by the shell the agent controls
 * (it redefines `declare` too, or prints a stale hash), and misses `LD_PRELOAD`, traps,
 * `enable -f` and programs it left running, so it would stay silent exactly when it matters.
 * "An agent's commands ran here" is known to the server alone, costs nothing per call, and
 * cannot be forged; a person's own shell, never an agent's, is not warned about.
 */
import { Emitter } from '../pty/disposable.ts';
import type { Controller } from './human-control.ts';

/** What became of a hidden answer the person was warned about. */
export type SecretAnswer = 'sent' | 'withheld';

/** A line end: the hidden answer is complete, and the next one is asked about again. */
const LINE_END = /[\r\n]/;
/** Keys that hold no secret (Enter, Ctrl-C, Backspace, Ctrl-U): they go without a question. */
const CONTROL_KEYS_ONLY = /^[\x00-\x1f\x7f]*$/;

export class SecretWarning {
  /** The question opened (or closed) for the controller who typed the hidden answer. */
  readonly onQuestion = new Emitter<{ readonly by: Controller; readonly open: boolean }>();
  /** The answer: the person's, or `withheld` when the question went moot (nothing was sent). */
  readonly onAnswer = new Emitter<{ readonly by: Controller; readonly answer: SecretAnswer }>();
  private open: { readonly by: Controller; readonly settle: (a: SecretAnswer) => void } | null =
    null;
  /** The person said "send anyway" for the hidden line being typed. */
  private sending = false;

  /** `warns`: the shell is an agent's (the warning's subject), asked at each hidden answer. */
  constructor(private readonly warns: () => boolean) {}

  get asking(): Controller | null {
    return this.open?.by ?? null;
  }

  /**
   * Whether `keys` may be written: at once unless they are a hidden answer in an agent's
   * shell not yet confirmed; else once the person answers (false: don't send).
   */
  async clear(by: Controller, keys: string, hidden: boolean): Promise<boolean> {
    if (!hidden || !this.warns()) {
      this.sending = false;
      return true;
    }
    if (!this.sending && CONTROL_KEYS_ONLY.test(keys)) return true;
    if (!this.sending) {
      this.open?.settle('withheld'); // never two questions at once
      const answer = await new Promise<SecretAnswer>((resolve) => {
        this.open = { by, settle: (a) => this.settle(by, a, resolve) };
        this.onQuestion.fire({ by, open: true });
      });
      if (answer === 'withheld') return false;
      this.sending = true;
    }
    if (LINE_END.test(keys)) this.sending = false;
    return true;
  }

  /** The controller's answer to the open question (ignored from anyone else). */
  answer(id: string, send: boolean): void {
    if (this.open?.by.id === id) this.open.settle(send ? 'sent' : 'withheld');
  }

  /** The question is moot (a Ctrl-C, the controls changed hands, the shell ended). */
  cancel(): void {
    this.sending = false;
    this.open?.settle('withheld');
  }

  private settle(by: Controller, answer: SecretAnswer, resolve: (a: SecretAnswer) => void): void {
    this.open = null;
    this.onQuestion.fire({ by, open: false });
    this.onAnswer.fire({ by, answer });
    resolve(answer);
  }
}
