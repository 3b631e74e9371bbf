/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector, a devDependency) against a real
 * server, in each protocol era it offers: the tools listed, a call of a few seconds, and
 * arguments the input schema forbids refused as a tool error.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

const INSPECTOR = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector', import.meta.url));
/** Each run starts node and the Inspector (a few seconds on a busy two-core machine). */
const RUN_TIMEOUT_MS = 60_000;

let server: TestServer;
let home: string;

beforeAll(async () => {
  server = await startServer();
  home = mkdtempSync(join(tmpdir(), 'jumpseat-inspector-'));
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

interface InspectorResult {
  readonly result?: {
    readonly tools?: { name: string }[];
    readonly content?: { type: string; text: string }[];
    readonly isError?: boolean;
  };
}

function inspect(era: string, args: readonly string[]): Promise<InspectorResult> {
  const all = [
    '--cli',
    '--protocol-era',
    era,
    '--server-url',
    `${server.origin}/mcp`,
    '--header',
    `Authorization: Bearer ${server.adminToken}`,
    '--header',
    `X-Jumpseat-Agent: inspector-${era}`,
    '--format',
    'json',
    '--quiet',
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      INSPECTOR,
      all,
      { env: { ...process.env, HOME: home }, timeout: RUN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        // A tool error exits non-zero, with the result on stdout all the same.
        try {
          resolve(JSON.parse(stdout) as InspectorResult);
        } catch {
          reject(new Error(`inspector failed (${error?.message}): ${stderr}${stdout}`));
        }
      },
    );
  });
}

describe.each(['modern', 'legacy'])(
  'the MCP Inspector CLI, %s era',
  { timeout: 3 * RUN_TIMEOUT_MS },
  (era) => {
    it('lists the tools, runs a call of a few seconds, and refuses forbidden arguments', async () => {
      const listed = await inspect(era, ['--method', 'tools/list']);
      expect(listed.result?.tools?.map((tool) => tool.name)).toContain('bash');

      const called = await inspect(era, [
        '--method',
        'tools/call',
        '--tool-name',
        'bash',
        '--tool-args-json',
        JSON.stringify({ command: 'sleep 2; echo "done in $0"' }),
      ]);
      expect(called.result?.content).toEqual([{ type: 'text', text: 'done in bash' }]);
      expect(called.result?.isError).toBeFalsy();

      const refused = await inspect(era, [
        '--method',
        'tools/call',
        '--tool-name',
        'bash',
        '--tool-args-json',
        JSON.stringify({ command: 'echo never', cwd: '/' }),
      ]);
      expect(refused.result?.isError).toBe(true);
      expect(refused.result?.content?.[0]?.text).toContain('must NOT have additional properties');
    });
  },
);
