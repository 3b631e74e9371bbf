import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cleanEnv, serve } from '/work/wtmerge/server/test/support/cli-process.ts';

const root = mkdtempSync('/tmp/mcpdbg-');
const server = await serve(['--data-dir', join(root, 'data')], cleanEnv());
const token = readFileSync(join(root, 'data', 'admin-token'), 'utf8').trim();
const mcp = new Client({ name: 'dbg', version: '1.0.0' });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'x-jumpseat-agent': 'dbg' } },
  }),
);
console.log('connected');
console.log(
  JSON.stringify(
    await mcp.callTool({ name: 'bash', arguments: { command: 'echo hi' } }, undefined, {
      timeout: 10000,
    }),
  ),
);
const p = mcp.callTool({ name: 'bash', arguments: { command: 'sleep 100' } }, undefined, {
  timeout: 15000,
});
await new Promise((r) => setTimeout(r, 1500));
server.process.kill('SIGTERM');
try {
  console.log(JSON.stringify(await p));
} catch (e) {
  console.log('ERR', String(e));
}
console.log('exit', await server.exited, server.stderr());
