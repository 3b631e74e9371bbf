/**
 * `--readable DIR` in the sandbox, through the tool as an agent: a program in the directory
 * runs at its own path, nothing there can be written, and what of the server lies inside the
 * directory (its data dir, the other agents' workspaces) stays hidden.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

let project: string;
let server: TestServer;

async function call(agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  const body = (await response.json()) as { output?: string };
  if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(body)}`);
  return body.output ?? '';
}

describe.runIf(SANDBOX_WORKS)('a readable directory in the sandbox', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'jumpseat-readable-project-'));
    mkdirSync(join(project, 'bin'));
    writeFileSync(join(project, 'bin', 'hello'), '#!/bin/sh\necho "hello from $0"\n');
    chmodSync(join(project, 'bin', 'hello'), 0o755);
    // The server's own state inside the project: it must stay out of the shells' sight.
    server = await startServer({
      dataDir: join(project, 'state', 'data'),
      flags: ['--sandbox', 'bwrap', '--readable', project],
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it('runs a program from it at its own path', async () => {
    expect(await call('reader', `${project}/bin/hello`)).toBe(`hello from ${project}/bin/hello`);
  });

  it('refuses to write in it', async () => {
    expect(await call('reader', `touch ${project}/bin/new 2>&1 | sed 's/.*: //'`)).toBe(
      'Read-only file system',
    );
  });

  it('keeps the data dir and the other agents workspaces inside it hidden', async () => {
    await call('other', 'echo secret > mine.txt');
    // Only the mount point of the agent's own saved outputs is there: no token, no history.
    expect(await call('reader', `ls -A ${project}/state/data`)).not.toMatch(/token|\.db/);
    expect(await call('reader', `cat ${project}/state/data/admin-token 2>&1`)).toMatch(
      /No such file or directory\n\[exit code: 1\]$/,
    );
    expect(await call('reader', `cat ${project}/state/workspace/other/mine.txt 2>&1`)).toMatch(
      /No such file or directory\n\[exit code: 1\]$/,
    );
    // The shell's own workspace (inside the directory too) is still its own, and writable.
    expect(await call('reader', 'echo kept > own.txt && cat own.txt && pwd')).toBe(
      `kept\n${project}/state/workspace/reader`,
    );
  });
});
