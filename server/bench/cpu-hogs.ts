/**
 * Two busy loops, one per core of the 2-core machine: the load under which a
 * figure must still hold (a deadline kept, a race not lost). Each is a plain shell loop,
 * ended by its pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** The load: both cores of a 2-core machine busy. */
export const HOG_COUNT = 2;

export class CpuHogs {
  private readonly hogs: ChildProcess[];

  constructor(count = HOG_COUNT) {
    this.hogs = Array.from({ length: count }, () =>
      spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.hogs.map(
        (hog) =>
          new Promise<void>((resolve) => {
            if (hog.exitCode !== null || hog.signalCode !== null) return resolve();
            hog.once('exit', () => resolve());
            hog.kill('SIGKILL');
          }),
      ),
    );
  }
}
