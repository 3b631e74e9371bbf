/**
 * pwsh is offered only where PowerShell 7 is found: the tool definitions, the dialect list
 * and a call all say so, and an explicit path that is not an executable stops start-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PWSH } from '../../test/support/pwsh.ts';
import { loadConfig } from '../config/config.ts';
import { DEFAULT_DESCRIPTIONS } from './contract-text.ts';
import { createToolService } from './create-tool-service.ts';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-pwsh-availability-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('pwsh availability', () => {
  it('offers bash alone, and refuses a pwsh call, when pwsh is nowhere to be found', async () => {
    const config = loadConfig(['--data-dir', join(root, 'none')], {});
    const tools = createToolService(config, { baseEnv: { PATH: root, HOME: root } });
    expect(tools.dialects()).toEqual(['bash']);
    expect(tools.definitions().map((tool) => tool.name)).toEqual(['bash']);
    await expect(
      tools.call('a1', 'pwsh', '$null', new AbortController().signal),
    ).rejects.toMatchObject({ status: 404, message: expect.stringContaining('"pwsh"') });
    await tools.close();
  });

  it('refuses at start-up an explicit pwsh that is not an executable file', () => {
    expect(() =>
      loadConfig(['--data-dir', join(root, 'bad'), '--pwsh', join(root, 'nothing')], {}),
    ).toThrow(`--pwsh "${join(root, 'nothing')}" is not an executable file`);
    expect(() =>
      loadConfig(['--data-dir', join(root, 'bad')], { JUMPSEAT_PWSH: join(root, 'nothing') }),
    ).toThrow(`JUMPSEAT_PWSH "${join(root, 'nothing')}" is not an executable file`);
  });

  it.skipIf(PWSH === null)('offers pwsh with its contract description when found', () => {
    const config = loadConfig(['--data-dir', join(root, 'found'), '--pwsh', PWSH ?? ''], {});
    const tools = createToolService(config, { baseEnv: { PATH: root, HOME: root } });
    expect(tools.dialects()).toEqual(['bash', 'pwsh']);
    expect(tools.definitions().find((tool) => tool.name === 'pwsh')).toEqual({
      name: 'pwsh',
      description: DEFAULT_DESCRIPTIONS.pwsh,
      input_schema: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The PowerShell command to run.' },
        },
        required: ['command'],
        additionalProperties: false,
      },
    });
  });
});
