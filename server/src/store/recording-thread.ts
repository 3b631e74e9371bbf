/**
 * The main thread's handle on the recording thread (recording-worker.ts): sends it gathered
 * events, output bytes moved rather than copied, and waits for it to say they are on disk.
 */
import { Worker } from 'node:worker_threads';
import type { RecordingDiskStatus } from './recording-disk.ts';
import type {
  FromRecordingThread,
  RecordingThreadData,
  ToRecordingThread,
} from './recording-messages.ts';

/**
 * Compiled (an installed package, `npm start`), the worker is plain JavaScript beside this
 * file. Run as TypeScript through tsx (tests, `node --import tsx server/src/main.ts`), a
 * worker does not inherit the loader: the thread registers tsx (resolved from here) first.
 */
const COMPILED = import.meta.url.endsWith('.js');

function startWorker(data: RecordingThreadData): Worker {
  if (COMPILED)
    return new Worker(new URL('./recording-worker.js', import.meta.url), { workerData: data });
  const workerUrl = new URL('./recording-worker.ts', import.meta.url).href;
  const tsxApiUrl = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApiUrl)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

export class RecordingThread {
  private readonly worker: Worker;
  private seq = 0;
  private readonly waiters = new Map<number, () => void>();
  private gone = false;

  constructor(
    data: RecordingThreadData,
    onError: (message: string) => void,
    onStatus: (status: RecordingDiskStatus) => void = () => undefined,
  ) {
    this.worker = startWorker(data);
    // Never what keeps the process alive: close() waits for it when it matters.
    this.worker.unref();
    this.worker.on('message', (message: FromRecordingThread) => {
      if (message.type === 'error') onError(message.message);
      else if (message.type === 'status') onStatus(message.status);
      else this.release(message.seq);
    });
    this.worker.on('error', (error) => {
      onError(`the recording thread failed: ${error.message}`);
      this.stopWaiting();
    });
    this.worker.on('exit', () => this.stopWaiting());
  }

  send(message: ToRecordingThread, transfer: ArrayBuffer[] = []): void {
    if (!this.gone) this.worker.postMessage(message, transfer);
  }

  /** Resolves once everything sent before is on disk (at once if the thread is gone). */
  settled(): Promise<void> {
    if (this.gone) return Promise.resolve();
    this.seq += 1;
    const seq = this.seq;
    const done = new Promise<void>((resolve) => this.waiters.set(seq, resolve));
    this.send({ type: 'settle', seq });
    return done;
  }

  async close(): Promise<void> {
    await this.settled();
    this.gone = true;
    await this.worker.terminate();
  }

  /** Replies come in order: one for `seq` settles every earlier request too. */
  private release(seq: number): void {
    for (const [waiting, resolve] of this.waiters) {
      if (waiting > seq) continue;
      this.waiters.delete(waiting);
      resolve();
    }
  }

  private stopWaiting(): void {
    this.gone = true;
    for (const resolve of this.waiters.values()) resolve();
    this.waiters.clear();
  }
}
