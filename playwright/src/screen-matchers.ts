/**
 * `expect(shell).toShowText(…)` and `expect(shell).toMatchScreenSnapshot(…)`: they read the
 * shell's screen again and again until it matches or the expect timeout passes, as
 * Playwright's web-first assertions do. A screen snapshot is a text file kept with
 * Playwright's snapshots (`testInfo.snapshotPath`), written when missing and rewritten under
 * `--update-snapshots`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ExpectMatcherState, type MatcherReturnType, test } from '@playwright/test';
import { checkMasks, maskScreen, type ScreenMask } from './screen-mask.ts';

/** What the matchers need of a shell: its screen and a name for messages. */
export interface ScreenSource {
  readonly agent: string;
  readonly dialect: string;
  screen(): Promise<string>;
}

export interface ScreenMatchOptions {
  /** How long to keep reading the screen (ms); default the expect timeout, 0 for no limit. */
  readonly timeout?: number;
}

export interface ScreenSnapshotOptions extends ScreenMatchOptions {
  /**
   * What differs between runs, covered before comparing and in the snapshot file: patterns
   * (`/\d\d:\d\d:\d\d/`) and regions (`{ row: 0 }`, `{ row: 2, column: 10, width: 8 }`).
   */
  readonly mask?: readonly ScreenMask[];
}

/** Between reads of the screen, growing to the last value (Playwright's own poll steps). */
const POLL_STEPS_MS = [50, 100, 250, 500];
/** A screen read again after this long unchanged counts as settled for a new snapshot. */
const SETTLED_MS = 250;

function isScreenSource(value: unknown): value is ScreenSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    'screen' in value &&
    typeof value.screen === 'function' &&
    'agent' in value
  );
}

function checkReceiver(matcher: string, received: unknown): ScreenSource {
  if (!isScreenSource(received)) {
    throw new Error(`expect(received).${matcher}(): received must be a jumpseat shell`);
  }
  return received;
}

/** Calls `look` until it says done or the time is up; returns its last answer. */
async function poll<T>(
  timeoutMs: number,
  look: () => Promise<{ done: boolean; value: T }>,
): Promise<{ done: boolean; value: T }> {
  const deadline = timeoutMs === 0 ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  for (let step = 0; ; step += 1) {
    const answer = await look();
    if (answer.done || Date.now() >= deadline) return answer;
    const wait = POLL_STEPS_MS[Math.min(step, POLL_STEPS_MS.length - 1)] ?? SETTLED_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, deadline - Date.now())));
  }
}

function framed(screen: string): string {
  return screen === '' ? '  (blank screen)' : screen.replace(/^/gm, '  │ ');
}

function nameOf(shell: ScreenSource): string {
  return `the ${shell.dialect} shell of ${shell.agent}`;
}

export async function toShowText(
  this: ExpectMatcherState,
  received: unknown,
  expected: string | RegExp,
  options: ScreenMatchOptions = {},
): Promise<MatcherReturnType> {
  const shell = checkReceiver('toShowText', received);
  if (typeof expected !== 'string' && !(expected instanceof RegExp)) {
    throw new Error('expect(shell).toShowText(expected): expected must be a string or a RegExp');
  }
  const timeout = options.timeout ?? this.timeout;
  const shows = (screen: string): boolean => {
    if (typeof expected === 'string') return screen.includes(expected);
    expected.lastIndex = 0;
    return expected.test(screen);
  };
  const { value: screen } = await poll(timeout, async () => {
    const value = await shell.screen();
    return { done: shows(value) !== this.isNot, value };
  });
  const pass = shows(screen);
  const not = this.isNot ? '.not' : '';
  return {
    name: 'toShowText',
    pass,
    expected,
    actual: screen,
    message: () =>
      [
        `expect(shell)${not}.toShowText(${typeof expected === 'string' ? JSON.stringify(expected) : String(expected)}) failed after ${timeout} ms`,
        '',
        `${nameOf(shell)} ${pass ? 'still shows it' : 'does not show it'}; its screen:`,
        framed(screen),
      ].join('\n'),
  };
}

/** Per test: how many unnamed screen snapshots it has taken, for their file names. */
const unnamedCounts = new WeakMap<object, number>();

function snapshotName(name: string | undefined): string {
  if (name !== undefined) return name.endsWith('.txt') ? name : `${name}.txt`;
  const info = test.info();
  const count = (unnamedCounts.get(info) ?? 0) + 1;
  unnamedCounts.set(info, count);
  const title = info.titlePath.slice(1).join(' ');
  const slug = title.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${slug.slice(0, 60) || 'screen'}-${count}.txt`;
}

/** The screen once two reads in a row agree (a program still drawing has not finished). */
async function settledScreen(read: () => Promise<string>, timeoutMs: number): Promise<string> {
  let last = await read();
  const { value } = await poll(timeoutMs, async () => {
    await new Promise((resolve) => setTimeout(resolve, SETTLED_MS));
    const now = await read();
    const done = now === last;
    last = now;
    return { done, value: now };
  });
  return value;
}

function write(path: string, screen: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${screen}\n`);
}

export async function toMatchScreenSnapshot(
  this: ExpectMatcherState,
  received: unknown,
  nameOrOptions?: string | ScreenSnapshotOptions,
  maybeOptions: ScreenSnapshotOptions = {},
): Promise<MatcherReturnType> {
  const shell = checkReceiver('toMatchScreenSnapshot', received);
  if (this.isNot) throw new Error('expect(shell).not.toMatchScreenSnapshot() is not supported');
  const name = typeof nameOrOptions === 'string' ? nameOrOptions : undefined;
  const options = typeof nameOrOptions === 'object' ? nameOrOptions : maybeOptions;
  const masks = checkMasks(options.mask ?? []);
  const read = async (): Promise<string> => maskScreen(await shell.screen(), masks);
  const info = test.info();
  const file = snapshotName(name);
  const path = info.snapshotPath(file);
  const timeout = options.timeout ?? this.timeout;
  const mode = info.config.updateSnapshots;
  const result = (pass: boolean, message: string, actual?: string): MatcherReturnType => ({
    name: 'toMatchScreenSnapshot',
    pass,
    message: () => message,
    ...(actual === undefined ? {} : { actual }),
  });

  if (!existsSync(path)) {
    const screen = await settledScreen(read, timeout);
    if (mode === 'none') return result(false, `A screen snapshot doesn't exist at ${path}.`);
    write(path, screen);
    const message = `A screen snapshot doesn't exist at ${path}, writing actual.`;
    if (mode === 'all' || mode === 'changed' || mode === 'missing') {
      process.stdout.write(`${message}\n`);
      return result(true, message);
    }
    return result(false, `${message}\n\n${framed(screen)}`, screen);
  }

  const expected = readFileSync(path, 'utf8').replace(/\n$/, '');
  const { done, value: screen } = await poll(timeout, async () => {
    const value = await read();
    return { done: value === expected, value };
  });
  if (done) return result(true, `${nameOf(shell)} matches ${path}`);
  if (mode === 'all' || mode === 'changed') {
    const settled = await settledScreen(read, timeout);
    write(path, settled);
    process.stdout.write(`${path} does not match, writing actual.\n`);
    return result(true, `${path} rewritten`);
  }
  const diff = this.utils.diff(expected, screen) ?? '';
  return result(
    false,
    [
      `expect(shell).toMatchScreenSnapshot(${JSON.stringify(file)}) failed after ${timeout} ms`,
      '',
      `${nameOf(shell)} does not match ${path}:`,
      diff,
      '',
      'Its screen:',
      framed(screen),
      '',
      'Run with --update-snapshots to take the new screen as the snapshot.',
    ].join('\n'),
    screen,
  );
}
