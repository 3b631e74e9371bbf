/**
 * The operational surfaces against a real server: Prometheus metrics, the OpenAPI document,
 * the tool definitions in each model API's shape, and logs without secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageHealth } from '../src/ops/storage-health.ts';
import { errorOf, startServer, type TestServer } from './support/http-server.ts';

let server: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  server = await startServer({
    logger: { level: 'trace', destination: { write: (line) => void logLines.push(line) } },
  });
});
afterAll(async () => {
  await server.close();
});

async function metrics(token = server.adminToken): Promise<string> {
  const response = await server.request('/metrics', { token });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one sample line, e.g. `jumpseat_calls_total{dialect="bash",outcome="completed"}`. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const COMPLETED = 'jumpseat_calls_total{dialect="bash",outcome="completed"}';
const DURATIONS = 'jumpseat_call_duration_seconds_count{dialect="bash",outcome="completed"}';

describe('GET /metrics', () => {
  it('counts calls by dialect and outcome, their durations, and shells by state', async () => {
    const before = await metrics();
    expect((await server.post('/api/agents/m1/bash', { command: 'true' })).status).toBe(200);
    expect((await server.post('/api/agents/m1/bash', { command: 'exit 0; false' })).status).toBe(
      200,
    );
    const after = await metrics();
    expect(sample(after, COMPLETED) - sample(before, COMPLETED)).toBe(1);
    expect(
      sample(after, 'jumpseat_calls_total{dialect="bash",outcome="shell_exit"}') -
        sample(before, 'jumpseat_calls_total{dialect="bash",outcome="shell_exit"}'),
    ).toBe(1);
    expect(sample(after, DURATIONS) - sample(before, DURATIONS)).toBe(1);
    expect(sample(after, 'jumpseat_shells{dialect="bash",state="exited"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(after).toContain('\njumpseat_viewers 0\n');
    expect(after).toContain('\njumpseat_streamed_bytes_total 0\n');
    expect(after).toContain('\njumpseat_viewer_resyncs_total 0\n');
  });

  it('is for supervisors only', async () => {
    const agent = await server.mint({ role: 'agent', agent: 'm1' });
    const response = await server.request('/metrics', { token: agent });
    expect(response.status).toBe(403);
    const viewer = await server.mint({ role: 'viewer' });
    expect(await metrics(viewer)).toContain('# TYPE jumpseat_calls_total counter');
  });
});

describe('GET /readyz', () => {
  it('is 200 without a token while the data dir takes writes', async () => {
    const response = await fetch(`${server.origin}/readyz`);
    expect([response.status, await response.json()]).toEqual([200, { ready: true }]);
  });

  it('is 503 with the failing areas while the history cannot be written', async () => {
    const health = new StorageHealth(() => undefined);
    const failing = await startServer({ health });
    try {
      const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      health.failed('history', full, 'saving a call');
      const response = await fetch(`${failing.origin}/readyz`);
      expect([response.status, await response.json()]).toEqual([
        503,
        { ready: false, reason: 'the data dir cannot be written (history)' },
      ]);
      health.recovered('history');
      expect((await fetch(`${failing.origin}/readyz`)).status).toBe(200);
    } finally {
      await failing.close();
    }
  });
});

describe('GET /api/openapi.json', () => {
  it('describes the routes from their schemas', async () => {
    const response = await server.request('/api/openapi.json', { token: server.adminToken });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/agents/{agent}/{dialect}',
        '/api/tools',
        '/api/sessions',
        '/api/sessions/{id}/calls',
        '/api/tokens',
        '/metrics',
        '/healthz',
      ]),
    );
    expect(Object.keys(doc.paths['/mcp'] ?? {}).sort()).toEqual(['delete', 'get', 'post']);
    expect(doc.paths['/api/agents/{agent}/{dialect}']?.post?.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['command'],
            properties: { command: { type: 'string', description: 'The command to run.' } },
            additionalProperties: false,
          },
        },
      },
    });
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
  });
});

describe('GET /api/tools?format=', () => {
  const INPUT = {
    type: 'object',
    properties: { command: { type: 'string', description: 'The bash command to run.' } },
    required: ['command'],
    additionalProperties: false,
  };
  const DESCRIPTION =
    'Run commands in a persistent bash shell. State, including the current directory and exported environment variables, persists across calls for this agent.';

  async function tools(format: string): Promise<unknown> {
    const response = await server.request(`/api/tools?format=${format}`, {
      token: server.adminToken,
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  it('gives each model API its own shape', async () => {
    // pwsh is listed too where PowerShell is installed; its shape is the same.
    const bashOnly = async (format: string) =>
      ((await tools(format)) as Record<string, unknown>[]).filter((tool) =>
        JSON.stringify(tool).match(/"(name|title)":"bash"/),
      );
    expect(await bashOnly('anthropic')).toEqual([
      { name: 'bash', description: DESCRIPTION, input_schema: INPUT },
    ]);
    expect(await bashOnly('openai')).toEqual([
      {
        type: 'function',
        function: { name: 'bash', description: DESCRIPTION, parameters: INPUT, strict: true },
      },
    ]);
    expect(await bashOnly('openai-responses')).toEqual([
      { type: 'function', name: 'bash', description: DESCRIPTION, parameters: INPUT, strict: true },
    ]);
    expect(await bashOnly('json-schema')).toEqual([
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: 'bash',
        description: DESCRIPTION,
        ...INPUT,
      },
    ]);
  });

  it('refuses an unknown format with 400', async () => {
    const response = await server.request('/api/tools?format=gemini', {
      token: server.adminToken,
    });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toBe(
      'format must be one of "anthropic", "openai", "openai-responses", "json-schema"',
    );
  });
});

describe('logs', () => {
  it('record each call without the command, and never a token', async () => {
    const agentToken = await server.mint({ role: 'agent', agent: 'logged' });
    await server.post(
      '/api/agents/logged/bash',
      { command: 'echo secret-command-text' },
      agentToken,
    );
    const calls = logLines
      .map((line) => JSON.parse(line) as { msg: string; call?: Record<string, unknown> })
      .filter((entry) => entry.msg === 'call finished' && entry.call?.agent === 'logged');
    expect(calls.map((entry) => entry.call)).toEqual([
      {
        agent: 'logged',
        dialect: 'bash',
        outcome: 'completed',
        durationMs: expect.any(Number),
        exitCode: 0,
      },
    ]);
    const all = logLines.join('');
    expect(all).not.toContain(agentToken);
    expect(all).not.toContain(server.adminToken);
    expect(all).not.toContain('secret-command-text');
  });
});
