/**
 * `GET /api/tools?format=…` is accepted unchanged by each provider's official SDK types: the
 * JSON a real server returns is written into a TypeScript file as a literal typed with the
 * `openai` and `@anthropic-ai/sdk` request types, and the compiler checks it (excess and
 * missing fields alike). A wrong shape, checked beside them, must fail.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/http-server.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** tsc loads both SDKs' declarations: tens of seconds on a busy two-core machine. */
const TSC_TIMEOUT_MS = 180_000;

let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startServer();
  // Inside the repository, so the SDK packages resolve from node_modules.
  const cache = join(REPO, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'jumpseat-tool-formats-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tools(format: string): Promise<string> {
  const response = await server.request(`/api/tools?format=${format}`, {
    token: server.adminToken,
  });
  expect(response.status).toBe(200);
  return JSON.stringify(await response.json(), null, 2);
}

function tsc(file: string): Promise<{ status: number; stdout: string }> {
  const compiler = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022'];
  const module = ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [compiler, ...flags, ...module, file],
      { cwd: REPO, timeout: TSC_TIMEOUT_MS },
      (error, stdout) => {
        resolve({ status: error === null ? 0 : Number(error.code ?? 1), stdout });
      },
    );
  });
}

describe('tool formats against the official SDK types', () => {
  it(
    'openai (Chat Completions and Responses) and anthropic type-check unchanged',
    async () => {
      const source = [
        "import type Anthropic from '@anthropic-ai/sdk';",
        "import type OpenAI from 'openai';",
        `export const chat: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = ${await tools('openai')};`,
        `export const chatTools: OpenAI.Chat.Completions.ChatCompletionTool[] = chat;`,
        `export const responses: OpenAI.Responses.FunctionTool[] = ${await tools('openai-responses')};`,
        `export const responsesTools: OpenAI.Responses.Tool[] = responses;`,
        `export const anthropic: Anthropic.Messages.Tool[] = ${await tools('anthropic')};`,
        `export const anthropicTools: Anthropic.Messages.ToolUnion[] = anthropic;`,
        // strict mode is on for both OpenAI shapes.
        'export const strict: true[] = [...chat.map((t) => t.function.strict), ...responses.map((t) => t.strict)] as true[];',
      ].join('\n');
      const good = join(dir, 'formats.mts');
      writeFileSync(good, `${source}\n`);
      // The control: the Responses shape without `strict`, which the openai types refuse.
      const bad = join(dir, 'missing-strict.mts');
      writeFileSync(
        bad,
        [
          "import type OpenAI from 'openai';",
          "export const tool: OpenAI.Responses.FunctionTool = { type: 'function', name: 'bash', parameters: {} };",
        ].join('\n'),
      );
      const [checked, control] = await Promise.all([tsc(good), tsc(bad)]);
      expect([checked.status, checked.stdout]).toEqual([0, '']);
      expect(control.status).not.toBe(0);
      expect(control.stdout).toContain("Property 'strict' is missing");
      const values = JSON.parse(await tools('openai-responses')) as { strict: unknown }[];
      expect(values.every((tool) => tool.strict === true)).toBe(true);
    },
    TSC_TIMEOUT_MS,
  );
});
