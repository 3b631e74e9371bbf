/**
 * MCP by the spec, against a real server and port: long calls outlive the SDK clients'
 * request timeout through progress notifications, the 2026-07-28 revision is spoken beside
 * the 2025 ones (SDK 2.x client in each mode, SDK 1.x client), Origin is checked on every
 * request, arguments are checked against the tool's input schema, and the OAuth discovery
 * documents answer 404 without a token.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

/** Progress every 300 ms here, so a client timeout of about a second is outlived. */
const PROGRESS_MS = 300;
/** The client timeout the tests set in place of the SDK's default 60 s. */
const CLIENT_TIMEOUT_MS = 1200;

/** Keep-alive comments every second here (15 s in production), so a 4 s call shows them. */
const KEEP_ALIVE_MS = 1000;

let server: TestServer;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startServer({ mcpProgressIntervalMs: PROGRESS_MS, mcpKeepAliveMs: KEEP_ALIVE_MS });
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await server.close();
});

function headersFor(agent: string): Record<string, string> {
  return { authorization: `Bearer ${server.adminToken}`, 'x-jumpseat-agent': agent };
}

async function legacyClient(agent: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers: headersFor(agent) },
  });
  const client = new Client({ name: 'jumpseat-test', version: '1.0.0' });
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

async function modernClient(
  agent: string,
  mode: 'auto' | 'legacy' = 'auto',
): Promise<ModernClient> {
  const transport = new ModernTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers: headersFor(agent) },
  });
  const client = new ModernClient(
    { name: 'jumpseat-test', version: '2.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(transport);
  closers.push(() => client.close());
  return client;
}

function textOf(result: unknown): string {
  const { content, isError } = result as {
    content: { type: string; text?: string }[];
    isError?: boolean;
  };
  const [item] = content;
  if (item?.type !== 'text' || item.text === undefined) throw new Error('not text content');
  return isError === true ? `ERROR: ${item.text}` : item.text;
}

async function postMcp(headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'curl-like', version: '1' },
  },
};

describe('long calls over MCP', () => {
  it('a call longer than the client timeout completes while progress arrives (SDK 1.x)', async () => {
    const client = await legacyClient('mcp-long-1');
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'bash', arguments: { command: 'export KEPT=yes; sleep 3; echo done' } },
      undefined,
      {
        timeout: CLIENT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(textOf(result)).toBe('done');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
    // Not reset: the same shell kept its variable.
    const again = await client.callTool({ name: 'bash', arguments: { command: 'echo $KEPT' } });
    expect(textOf(again)).toBe('yes');
  });

  it('without resetTimeoutOnProgress the same call times out in the client (the control)', async () => {
    const client = await legacyClient('mcp-long-control');
    await expect(
      client.callTool({ name: 'bash', arguments: { command: 'sleep 3; echo done' } }, undefined, {
        timeout: CLIENT_TIMEOUT_MS,
      }),
    ).rejects.toThrow(/timed out/i);
  });

  it('a call longer than the client timeout completes on the 2026-07-28 revision (SDK 2.x)', async () => {
    const client = await modernClient('mcp-long-2');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'bash', arguments: { command: 'sleep 3; echo done' } },
      {
        timeout: CLIENT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (update) => progress.push(update.progress),
      },
    );
    expect(textOf(result)).toBe('done');
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });
});

describe('keep-alive on the 2026-07-28 revision', () => {
  it('a call without progress gets its headers at once and keep-alive bytes before the result (SDK 2.x)', async () => {
    // What the client's fetch sees, in order: the response's headers, then each chunk of its
    // body, named by what it carries.
    const seen: string[] = [];
    let watching = false;
    const watchingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(input, init);
      if (!watching || response.body === null) return response;
      seen.push('headers');
      const decoder = new TextDecoder();
      const tap = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const text = decoder.decode(chunk, { stream: true });
          if (text.includes(': keepalive')) seen.push('keepalive');
          if (text.includes('event: message')) seen.push('result');
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(tap), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
    const transport = new ModernTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers: headersFor('mcp-keepalive') },
      fetch: watchingFetch,
    });
    const client = new ModernClient(
      { name: 'jumpseat-test', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);
    closers.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');

    watching = true;
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 4; echo done' } });
    // The headers came while the command still ran: the shell is busy with it.
    await untilRunning('mcp-keepalive');
    await until(() => seen.includes('headers'));
    expect((await listSessions()).find((s) => s.agent === 'mcp-keepalive')?.state).toBe('running');
    const result = await call;
    watching = false;
    expect(textOf(result)).toBe('done');
    expect(seen[0]).toBe('headers');
    expect(seen.at(-1)).toBe('result');
    expect(seen.filter((event) => event === 'result')).toHaveLength(1);
    expect(seen.slice(1, -1).length).toBeGreaterThanOrEqual(1);
    expect(seen.slice(1, -1).every((event) => event === 'keepalive')).toBe(true);
  });
});

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('cancelling over MCP', () => {
  it('aborting a 2026-07-28 call cancels it: the shell is reset (SDK 2.x)', async () => {
    const client = await modernClient('mcp-cancel-2');
    const marked = await client.callTool({
      name: 'bash',
      arguments: { command: 'export MARK=kept; echo ok' },
    });
    expect(textOf(marked)).toBe('ok');
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'bash', arguments: { command: 'sleep 600' } },
      { signal: controller.signal },
    );
    await untilRunning('mcp-cancel-2');
    controller.abort();
    await expect(call).rejects.toThrow();
    // The next call finds a fresh shell: the cancelled one was reset.
    for (;;) {
      const sessions = await listSessions();
      const live = sessions.find((s) => s.agent === 'mcp-cancel-2' && s.state !== 'exited');
      if (live === undefined || live.state === 'idle') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const after = await client.callTool({
      name: 'bash',
      arguments: { command: 'echo "${MARK:-unset}"' },
    });
    expect(textOf(after)).toBe('unset');
  });
});

async function listSessions(): Promise<{ agent: string | null; state: string }[]> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  return (await response.json()) as { agent: string | null; state: string }[];
}

async function untilRunning(agent: string): Promise<void> {
  for (;;) {
    if ((await listSessions()).some((s) => s.agent === agent && s.state === 'running')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('protocol revisions', () => {
  it('speaks 2026-07-28 to a negotiating client and 2025-11-25 to a legacy one, same shell', async () => {
    const modern = await modernClient('mcp-eras', 'auto');
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await modern.listTools();
    expect(tools.map((tool) => tool.name)).toContain('bash');
    expect(
      textOf(await modern.callTool({ name: 'bash', arguments: { command: 'cd /tmp; pwd' } })),
    ).toBe('/tmp');

    const legacy = await modernClient('mcp-eras', 'legacy');
    expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(textOf(await legacy.callTool({ name: 'bash', arguments: { command: 'pwd' } }))).toBe(
      '/tmp',
    );
  });

  it('answers server/discover with the revisions it speaks', async () => {
    const response = await postMcp(
      {
        ...headersFor('mcp-discover'),
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    );
    const text = await response.text();
    expect([response.status, text]).toEqual([200, expect.any(String)]);
    expect(text).toContain('2026-07-28');
    expect(text).toContain('"jumpseat"');
  });
});

describe('Origin', () => {
  it('refuses a request from a foreign page with 403, with or without a session', async () => {
    const foreign = await postMcp(
      { ...headersFor('mcp-origin'), origin: 'http://evil.example' },
      INITIALIZE,
    );
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        message: 'MCP request refused: origin "http://evil.example" is not this server',
      },
    });
    const opaque = await postMcp({ ...headersFor('mcp-origin'), origin: 'null' }, INITIALIZE);
    expect(opaque.status).toBe(403);
    // Before any token is looked at: a page without one is refused for its origin too.
    const tokenless = await postMcp({ origin: 'http://evil.example' }, INITIALIZE);
    expect(tokenless.status).toBe(403);
  });

  it("accepts this server's own origin and requests without one", async () => {
    const own = await postMcp({ ...headersFor('mcp-origin'), origin: server.origin }, INITIALIZE);
    expect(own.status).toBe(200);
    const none = await postMcp(headersFor('mcp-origin'), INITIALIZE);
    expect(none.status).toBe(200);
  });
});

describe('arguments against the input schema', () => {
  it.each([
    [{ command: 'echo hi', timeout: 5 }, 'must NOT have additional properties'],
    [{ command: 42 }, 'command must be a non-empty string'],
    [{}, 'command must be a non-empty string'],
  ])('refuses %j as a tool error and runs nothing', async (args, message) => {
    const client = await legacyClient('mcp-schema');
    const result = await client.callTool({ name: 'bash', arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(message);
  });

  it('runs what the schema allows', async () => {
    const client = await legacyClient('mcp-schema');
    const result = await client.callTool({ name: 'bash', arguments: { command: 'echo ok' } });
    expect(textOf(result)).toBe('ok');
  });
});

describe('OAuth discovery', () => {
  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ])('%s answers 404 without a token', async (path) => {
    const response = await fetch(`${server.origin}${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});
