/**
 * MCP over Streamable HTTP, driven by the SDK's own client against a real server and port.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallInfo, SessionInfo } from '../../shared/src/api.ts';
import { startServer, type TestServer } from './support/http-server.ts';

let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
});

async function connect(token: string, agent?: string): Promise<Client> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (agent !== undefined) headers['x-jumpseat-agent'] = agent;
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
    requestInit: { headers },
  });
  const client = new Client({ name: 'jumpseat-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  expect(content).toHaveLength(1);
  const [item] = content;
  if (item?.type !== 'text') throw new Error(`not text content: ${JSON.stringify(item)}`);
  return item.text;
}

async function httpCall(agent: string, command: string): Promise<string> {
  const response = await server.post(`/api/agents/${agent}/bash`, { command });
  expect(response.status).toBe(200);
  return ((await response.json()) as { output: string }).output;
}

async function sessions(): Promise<SessionInfo[]> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  return (await response.json()) as SessionInfo[];
}

async function callsOf(sessionId: string): Promise<CallInfo[]> {
  const response = await server.request(`/api/sessions/${sessionId}/calls`, {
    token: server.adminToken,
  });
  return (await response.json()) as CallInfo[];
}

/** Polls (no fixed sleeps) until `agent`'s bash shell reports `state`. */
async function untilState(agent: string, state: SessionInfo['state']): Promise<SessionInfo> {
  for (;;) {
    const found = (await sessions()).find((s) => s.agent === agent && s.state === state);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function untilCancelledCall(sessionId: string): Promise<CallInfo> {
  for (;;) {
    const found = (await callsOf(sessionId)).find((call) => call.outcome === 'cancelled');
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP at /mcp', () => {
  it('lists the tools with the configured description and input schema', async () => {
    const client = await connect(server.adminToken, 'mcp-list');
    const { tools } = await client.listTools();
    const definitions = (await (
      await server.request('/api/tools', { token: server.adminToken })
    ).json()) as { name: string; description: string; input_schema: unknown }[];
    expect(
      tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    ).toEqual(
      definitions.map(({ name, description, input_schema }) => ({
        name,
        description,
        inputSchema: input_schema,
      })),
    );
    expect(tools.map((tool) => tool.name)).toContain('bash');
  });

  it("returns the HTTP API's output as text, in the agent's one persistent shell", async () => {
    const token = await server.mint({ role: 'agent', agent: 'mcp-agent' });
    const client = await connect(token);
    const result = await client.callTool({
      name: 'bash',
      arguments: {
        command: 'cd /tmp && export GREETING=hi; echo "$GREETING from $(pwd)"; ls /nonexistent',
      },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(
      "hi from /tmp\nls: cannot access '/nonexistent': No such file or directory\n[exit code: 2]",
    );
    // The same shell the HTTP API reaches for this agent.
    expect(await httpCall('mcp-agent', 'echo "$GREETING $(pwd)"')).toBe('hi /tmp');
    const again = await client.callTool({
      name: 'bash',
      arguments: { command: 'printf "%s" "$GREETING"' },
    });
    expect(textOf(again)).toBe('hi');
  });

  it('reports a refused command as a tool error the model can read', async () => {
    const client = await connect(server.adminToken, 'mcp-refused');
    const result = await client.callTool({ name: 'bash', arguments: { command: '   ' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('command must be a non-empty string');
    await expect(client.callTool({ name: 'nope', arguments: { command: 'true' } })).rejects.toThrow(
      /no tool "nope"/,
    );
  });

  it('refuses an admin token that names no agent, another agent, and a viewer', async () => {
    await expect(connect(server.adminToken)).rejects.toThrow(/BAD_REQUEST.*X-Jumpseat-Agent/);
    const agentToken = await server.mint({ role: 'agent', agent: 'mcp-own' });
    await expect(connect(agentToken, 'someone-else')).rejects.toThrow(
      /FORBIDDEN.*may only call agent .*mcp-own/,
    );
    const viewer = await server.mint({ role: 'viewer' });
    await expect(connect(viewer, 'mcp-own')).rejects.toThrow(/FORBIDDEN.*may not make tool calls/);
    await expect(connect('js_not_a_token', 'mcp-own')).rejects.toThrow(/UNAUTHORIZED/);
  });

  it('keeps a session to the token and agent that opened it', async () => {
    const client = await connect(server.adminToken, 'mcp-owner');
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
    expect(sessionId).not.toBe('');
    const list = (token: string, agent: string): Promise<Response> =>
      server.request('/mcp', {
        method: 'POST',
        token,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'x-jumpseat-agent': agent,
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
      });
    expect((await list(server.adminToken, 'mcp-intruder')).status).toBe(404);
    const otherAdmin = await server.mint({ role: 'admin' });
    expect((await list(otherAdmin, 'mcp-owner')).status).toBe(404);
    const own = await list(server.adminToken, 'mcp-owner');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"name":"bash"');
  });

  it('MCP cancellation cancels the call: the shell is reset and its processes end', async () => {
    const client = await connect(server.adminToken, 'mcp-cancel');
    const before = textOf(
      await client.callTool({ name: 'bash', arguments: { command: 'export MARK=kept; echo $$' } }),
    );
    const controller = new AbortController();
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 600' } }, undefined, {
      signal: controller.signal,
    });
    const running = await untilState('mcp-cancel', 'running');
    // The shell's pid as the host numbers it (a sandboxed `$$` is its namespace's).
    expect(alive(running.pid ?? 0)).toBe(true);
    controller.abort(new Error('the user pressed stop'));
    await expect(call).rejects.toThrow(/the user pressed stop/);

    const cancelled = await untilCancelledCall(running.id);
    expect(cancelled.output).toBe('');
    expect(alive(running.pid ?? 0)).toBe(false);
    const after = textOf(
      await client.callTool({ name: 'bash', arguments: { command: 'echo "$$ ${MARK:-unset}"' } }),
    );
    expect(after).not.toBe(`${before} kept`);
    expect(after).toMatch(/^\d+ unset$/);
  });

  it('a client that goes away mid-call cancels it as a closed HTTP request does', async () => {
    const client = await connect(server.adminToken, 'mcp-gone');
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 600' } });
    const running = await untilState('mcp-gone', 'running');
    const pid = running.pid ?? 0;
    expect(alive(pid)).toBe(true);
    await client.close();
    await expect(call).rejects.toThrow();
    const cancelled = await untilCancelledCall(running.id);
    expect(cancelled.command).toBe('sleep 600');
    expect(alive(pid)).toBe(false);
  });
});
