/**
 * The OpenAPI document tells the truth and passes `redocly lint` with the recommended rules
 * (@redocly/cli, a devDependency): every operation has an operationId, a summary, tags and its
 * security; public pages are public; DELETEs answer 204, /login its page; the WebSockets, /mcp and
 * the document itself are described. The only lint findings allowed are the operations whose
 * real answer is not 2XX (NO_2XX_OPERATIONS).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_2XX_OPERATIONS, OPERATIONS } from '../src/api/openapi-operations.ts';
import { startServer, type TestServer } from './support/http-server.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const LINT_TIMEOUT_MS = 120_000;

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

let server: TestServer;
let doc: Document;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  const response = await server.request('/api/openapi.json', { token: server.adminToken });
  expect(response.status).toBe(200);
  doc = (await response.json()) as Document;
  const cache = join(REPO, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'jumpseat-openapi-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function operations(): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      op,
    ]),
  );
}

const pointer = (key: string): string => {
  const [method, path] = key.split(' ') as [string, string];
  return `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method.toLowerCase()}/responses`;
};

describe('GET /api/openapi.json', () => {
  it('describes every operation the table names, and nothing the table does not', () => {
    expect(
      operations()
        .map(([key]) => key)
        .sort(),
    ).toEqual(Object.keys(OPERATIONS).sort());
    for (const [key, op] of operations()) {
      expect(op.operationId, key).toMatch(/^[a-zA-Z]+$/);
      expect(op.summary, key).not.toBe('');
      expect(op.tags?.length, key).toBe(1);
    }
  });

  it("gives /mcp's refusals both shapes and /metrics its text, as the server answers them", async () => {
    const refusal = doc.paths['/mcp']?.post?.responses['4XX']?.content?.['application/json'] as {
      schema: { anyOf: { properties: Record<string, unknown> }[] };
    };
    expect(refusal.schema.anyOf.map((shape) => Object.keys(shape.properties).sort())).toEqual([
      ['error'],
      ['error', 'id', 'jsonrpc'],
    ]);
    const unknownSession = await server.request('/mcp', {
      method: 'POST',
      token: await server.mint({ role: 'agent', agent: 'openapi' }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect([unknownSession.status, await unknownSession.json()]).toEqual([
      404,
      { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    ]);
    const foreign = await server.request('/mcp', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect([
      foreign.status,
      ((await foreign.json()) as { error: { code: string } }).error.code,
    ]).toEqual([403, 'FORBIDDEN']);
    expect(Object.keys(doc.paths['/metrics']?.get?.responses['200']?.content ?? {})).toEqual([
      'text/plain',
    ]);
    const metrics = await server.request('/metrics', { token: server.adminToken });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('says which credential each route takes; pages, login and health are public', () => {
    const security = Object.fromEntries(operations().map(([key, op]) => [key, op.security]));
    for (const page of ['GET /', 'GET /sessions/{id}', 'GET /sessions/{id}/replay', 'GET /login']) {
      expect(security[page], page).toEqual([]);
    }
    expect(security['GET /healthz']).toEqual([]);
    expect(security['GET /api/sessions']).toEqual([{ bearer: [] }, { browser: [] }]);
    expect(security['POST /mcp']).toEqual([{ bearer: [] }]);
  });

  it('lists the real answers: 204 for DELETEs, the login page for /login, JSON errors everywhere', () => {
    const byKey = Object.fromEntries(operations());
    for (const key of ['DELETE /api/sessions/{id}', 'DELETE /api/sessions/{id}/shares/{shareId}']) {
      expect(Object.keys(byKey[key]?.responses ?? {}), key).toContain('204');
      expect(Object.keys(byKey[key]?.responses ?? {}), key).not.toContain('200');
    }
    expect(Object.keys(byKey['GET /login']?.responses ?? {})).toEqual(['200', '401']);
    expect(Object.keys(byKey['GET /api/sessions/{id}/live']?.responses ?? {})).toContain('101');
    for (const [key, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status) || response.content === undefined) continue;
        expect(Object.keys(response.content), `${key} ${status}`).toEqual(
          key === 'GET /login' ? ['text/html'] : ['application/json'],
        );
      }
    }
  });

  it(
    'passes redocly lint with the recommended rules',
    async () => {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const redocly = join(REPO, 'node_modules', '.bin', 'redocly');
      const output = await new Promise<string>((resolve) => {
        execFile(
          redocly,
          ['lint', file, '--extends=recommended', '--format=json'],
          { cwd: dir, timeout: LINT_TIMEOUT_MS },
          (_error, stdout) => resolve(stdout),
        );
      });
      const { problems } = JSON.parse(output) as {
        problems: { ruleId: string; severity: string; location: { pointer: string }[] }[];
      };
      const found = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}`);
      expect(found.sort()).toEqual(
        NO_2XX_OPERATIONS.map((key) => `warn operation-2xx-response ${pointer(key)}`).sort(),
      );
    },
    LINT_TIMEOUT_MS,
  );
});
