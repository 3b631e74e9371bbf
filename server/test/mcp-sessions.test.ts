/**
 * MCP sessions under abuse: one token opening session after session is capped on its own
 * sessions (`--mcp-sessions-per-token`): its least recently used idle session ends, never
 * another token's; when all of its own are busy, the new one is refused with 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

const CAP = 3;
let server: TestServer;
let greedy: string;
let other: string;

beforeAll(async () => {
  server = await startServer({ flags: ['--mcp-sessions-per-token', String(CAP)] });
  greedy = await server.mint({ role: 'agent', agent: 'mcp-greedy' });
  other = await server.mint({ role: 'agent', agent: 'mcp-other' });
});

afterAll(async () => {
  await server.close();
});

function postMcp(
  token: string,
  body: unknown,
  sessionId?: string,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${server.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

async function openSession(token: string): Promise<string> {
  const response = await postMcp(token, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'session-flood', version: '1' },
    },
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (response.status !== 200 || id === null) {
    throw new Error(`initialize answered ${response.status}`);
  }
  return id;
}

/** The status a session's next request gets: 200 while it lives, 404 once it was closed. */
async function statusOf(token: string, sessionId: string): Promise<number> {
  const response = await postMcp(token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId);
  await response.text();
  return response.status;
}

describe('MCP sessions per token', () => {
  it("evicts only the caller's own least recently used session, never another token's", async () => {
    const theirs = await openSession(other);
    const mine: string[] = [];
    // A bounded flood: three times the cap.
    for (let i = 0; i < CAP * 3; i++) mine.push(await openSession(greedy));
    expect(await statusOf(other, theirs)).toBe(200);
    const statuses = [];
    for (const id of mine) statuses.push(await statusOf(greedy, id));
    // The newest CAP live on; every older one was ended.
    expect(statuses).toEqual([...Array(CAP * 2).fill(404), ...Array(CAP).fill(200)]);
  });

  it('refuses a new session with 429 when all of the caller’s own are running calls', async () => {
    const token = await server.mint({ role: 'agent', agent: 'mcp-busy' });
    const bystander = await openSession(other);
    const stop = new AbortController();
    const running: Promise<unknown>[] = [];
    // Each session of this token runs a call that waits (its shell queues them): busy.
    const keepBusy = (id: string): void => {
      running.push(
        postMcp(
          token,
          {
            jsonrpc: '2.0',
            id: 10 + running.length,
            method: 'tools/call',
            params: { name: 'bash', arguments: { command: 'sleep 60' } },
          },
          id,
          stop.signal,
        ).catch(() => null),
      );
    };
    try {
      for (let i = 0; i < CAP; i++) keepBusy(await openSession(token));
      // A session whose call is not in flight yet is idle and is the one evicted; it is made
      // busy in turn, so the attempts end once every one of the token's sessions is busy.
      let refused: Response | null = null;
      for (let attempt = 0; attempt < 200 && refused === null; attempt++) {
        const response = await postMcp(token, {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'busy', version: '1' },
          },
        });
        if (response.status === 429) refused = response;
        else {
          await response.text();
          const id = response.headers.get('mcp-session-id');
          if (id !== null) keepBusy(id);
        }
      }
      expect(refused?.status).toBe(429);
      const body = (await refused?.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('TOO_MANY_MCP_SESSIONS');
      expect(body.error.message).toContain(`--mcp-sessions-per-token ${CAP}`);
      expect(await statusOf(other, bystander)).toBe(200);
    } finally {
      stop.abort();
      await Promise.all(running);
    }
  });
});
