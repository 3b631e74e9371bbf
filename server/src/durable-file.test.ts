import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFileDurably } from './durable-file.ts';

const MODULE = fileURLToPath(new URL('./durable-file.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** node with tsx under strace: a couple of seconds, more on a busy machine. */
const TRACE_DEADLINE_MS = 60_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jumpseat-durable-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('replaceFileDurably', () => {
  it('creates and replaces the file with its mode, and leaves no temporary file', () => {
    const path = join(dir, 'tokens.json');
    replaceFileDurably(path, 'first\n', 0o600);
    writeFileSync(join(dir, 'other'), '');
    replaceFileDurably(path, 'second\n', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('second\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['other', 'tokens.json']);
  });

  it('flushes the new file before the rename and the directory after it (seen by strace)', {
    timeout: TRACE_DEADLINE_MS + 10_000,
  }, async () => {
    const path = join(dir, 'tokens.json');
    const trace = join(dir, 'trace.txt');
    const program = `import { replaceFileDurably } from ${JSON.stringify(MODULE)};\nreplaceFileDurably(${JSON.stringify(path)}, 'x', 0o600);\n`;
    await new Promise<void>((resolve, reject) => {
      execFile(
        'strace',
        [
          // The main thread only (no -f): the file calls are synchronous, so they are all
          // there, and no other thread's call splits a line into `<unfinished ...>` and
          // `<... resumed>` (under two CPU hogs that hid the open of the file, ci68).
          '-qq',
          '-e',
          'trace=openat,fsync,fdatasync,rename,renameat,renameat2',
          '-o',
          trace,
          process.execPath,
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          program,
        ],
        { cwd: REPO, timeout: TRACE_DEADLINE_MS },
        (error, _stdout, stderr) => (error ? reject(new Error(`${error}\n${stderr}`)) : resolve()),
      );
    });
    // Each traced call of ours, as "open FILE -> fd", "fsync FILE", "rename".
    const files = new Map<string, string>();
    const steps: string[] = [];
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      const opened = /openat\(AT_FDCWD, "([^"]+)", [^)]*\) = (\d+)/.exec(line);
      if (opened?.[1] !== undefined && opened[2] !== undefined) {
        if (opened[1].startsWith(dir)) files.set(opened[2], opened[1]);
        else files.delete(opened[2]);
        continue;
      }
      const synced = /f(?:data)?sync\((\d+)\)/.exec(line)?.[1];
      const name = synced === undefined ? undefined : files.get(synced);
      if (name !== undefined) steps.push(`fsync ${name}`);
      if (/rename(?:at2?)?\(.*tokens\.json\.\d+\.tmp/.test(line)) steps.push('rename');
    }
    expect(steps).toEqual([
      expect.stringMatching(new RegExp(`^fsync ${path}\\.\\d+\\.tmp$`)),
      'rename',
      `fsync ${dir}`,
    ]);
  });
});
