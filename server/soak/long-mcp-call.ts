/**
 * A 320 s MCP call on the 2026-07-28 revision (issue 22.7), run by hand (it takes six
 * minutes): `node --import tsx server/soak/long-mcp-call.ts`. Node's fetch gives up on a
 * body silent for 300 s (undici's bodyTimeout); the server's keep-alive comments must carry
 * the call past it. The SDK 2.x client is used with its defaults but one: its own 60 s
 * request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC), which no server outlives without progress
 * (run with defaults, it answers "Request timed out" at 60 s), is set past the call.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startServer, stopServer } from '../bench/bench-server.ts';

const CALL_SECONDS = 320;
/** The server's own deadline must not end the call first. */
const SERVER_TIMEOUT_MS = (CALL_SECONDS + 60) * 1000;

const server = await startServer(['--timeout-ms', String(SERVER_TIMEOUT_MS), '--network', 'off']);
let ok = false;
try {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: {
      headers: { authorization: `Bearer ${server.token}`, 'x-jumpseat-agent': 'soak-long' },
    },
  });
  const client = new Client(
    { name: 'jumpseat-soak', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  console.log(`protocol ${client.getNegotiatedProtocolVersion()}`);
  const start = performance.now();
  const result = await client.callTool(
    { name: 'bash', arguments: { command: `sleep ${CALL_SECONDS}; echo done` } },
    { timeout: SERVER_TIMEOUT_MS },
  );
  const seconds = (performance.now() - start) / 1000;
  const text = (result.content as { type: string; text?: string }[])[0]?.text;
  ok = text === 'done';
  console.log(
    `a ${CALL_SECONDS} s call answered after ${seconds.toFixed(0)} s: ${JSON.stringify(text)}`,
  );
  await client.close();
} catch (error) {
  console.log(`the ${CALL_SECONDS} s call failed: ${(error as Error).message}`);
} finally {
  await stopServer(server);
}
process.exit(ok ? 0 : 1);
