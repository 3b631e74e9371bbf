/**
 * A call longer than Node's fetch allows between bytes (300 s in undici) completes over MCP
 * on the 2026-07-28 revision (issue 22.7): the server sends the response's headers at once
 * and a keep-alive comment every 15 s, which is what fetch counts as progress. Through
 * `@ai-sdk/mcp` 2.x with its default settings, and through the SDK 2.x client with the
 * option it documents for long calls (its own 60 s request timer is client-side: no server
 * outlives it otherwise). The server's settings are production's, only its deadline is
 * raised above the call. Runs beside the other suites (`npm test` starts it first): it
 * mostly waits.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/http-server.ts';

/** The figure: longer than undici's 300 s body and header timeouts. */
const CALL_SECONDS = Number(process.env.JUMPSEAT_LONG_CALL_S ?? 320);
const TEST_TIMEOUT_MS = (CALL_SECONDS + 120) * 1000;

let server: TestServer;
/** The protocol revision each request named, by agent (read off the client's requests). */
const revisions = new Map<string, Set<string>>();
const realFetch = globalThis.fetch;

beforeAll(async () => {
  server = await startServer({
    flags: ['--timeout-ms', String((CALL_SECONDS + 60) * 1000), '--sandbox', 'off'],
  });
  globalThis.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const agent = headers.get('x-jumpseat-agent');
    const revision = headers.get('mcp-protocol-version');
    if (agent !== null && revision !== null) {
      revisions.set(agent, (revisions.get(agent) ?? new Set()).add(revision));
    }
    return realFetch(input, init);
  };
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await server?.close();
});

function headersFor(agent: string): Record<string, string> {
  return { authorization: `Bearer ${server.adminToken}`, 'x-jumpseat-agent': agent };
}

function textOf(result: unknown): string {
  const { content } = result as { content: { type: string; text?: string }[] };
  const [item] = content;
  if (item?.type !== 'text' || item.text === undefined) throw new Error('not text content');
  return item.text;
}

const command = `sleep ${CALL_SECONDS}; echo slept ${CALL_SECONDS}`;

describe(`a ${CALL_SECONDS} s MCP call on the 2026-07-28 revision`, () => {
  it(
    'completes through @ai-sdk/mcp 2.x and the SDK 2.x client at once',
    async () => {
      const aiSdk = await createMCPClient({
        transport: { type: 'http', url: `${server.origin}/mcp`, headers: headersFor('long-ai') },
      });
      const transport = new ModernTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: headersFor('long-sdk') },
      });
      // The SDK's default is the 2025 handshake (its session path has its own keep-alive);
      // `auto` takes the 2026-07-28 revision this test is about.
      const sdk = new ModernClient(
        { name: 'jumpseat-long', version: '2.0.0' },
        { versionNegotiation: { mode: 'auto' } },
      );
      await sdk.connect(transport);
      try {
        expect(sdk.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        const started = Date.now();
        const [fromAiSdk, fromSdk] = await Promise.all([
          aiSdk.callTool({ name: 'bash', arguments: { command } }),
          sdk.callTool(
            { name: 'bash', arguments: { command } },
            { resetTimeoutOnProgress: true, onprogress: () => undefined },
          ),
        ]);
        const seconds = (Date.now() - started) / 1000;
        console.log(`both ${CALL_SECONDS} s calls answered after ${seconds.toFixed(1)} s`);
        expect(seconds).toBeGreaterThanOrEqual(CALL_SECONDS);
        expect(textOf(fromAiSdk)).toBe(`slept ${CALL_SECONDS}`);
        expect(textOf(fromSdk)).toBe(`slept ${CALL_SECONDS}`);
        expect([...(revisions.get('long-ai') ?? [])]).toEqual(['2026-07-28']);
      } finally {
        await Promise.all([aiSdk.close(), sdk.close()]);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
