/**
 * `--readable DIR` in the sandbox, through the tool as an agent: a program in the directory
 * runs at its own path, nothing there can be written, and the server refuses to start with a
 * readable directory that holds its data dir or the agents' workspaces.
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
    // As a checkout is: the shell reads it as its own user, not as the server's.
    chmodSync(project, 0o755);
    mkdirSync(join(project, 'bin'));
    writeFileSync(join(project, 'bin', 'hello'), '#!/bin/sh\necho "hello from $0"\n');
    chmodSync(join(project, 'bin', 'hello'), 0o755);
    server = await startServer({ flags: ['--sandbox', 'bwrap', '--readable', project] });
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

  it('lets the shell write its own workspace but nothing of the project', async () => {
    expect(await call('reader', 'echo kept > own.txt && cat own.txt')).toBe('kept');
    expect(await call('reader', `ls -A ${project}`)).toBe('bin');
  });

  it('refuses to start when the directory holds the data dir, naming the flag', async () => {
    const started = startServer({
      dataDir: join(project, 'state', 'data'),
      flags: ['--sandbox', 'bwrap', '--readable', project],
    });
    await expect(started).rejects.toThrow(
      `--readable: ${project} holds the data dir (the server's own); name a directory of the project instead`,
    );
  });
});
