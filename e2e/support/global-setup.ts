/**
 * Starts one real jumpseat server for the whole e2e run (`--port 0`, a fresh data dir and
 * workspace, a known admin token) and tells the workers where it is through the environment (also as `JUMPSEAT_URL` and
 * `JUMPSEAT_TOKEN`, which `jumpseat/playwright`'s fixtures read).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, stopServerProcess } from './server-process.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-e2e-'));
  const dataDir = join(dir, 'data');
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const token = `js_e2e_${randomBytes(18).toString('hex')}`;
  const server = await startServerProcess({ dataDir, workspace, token });
  const { origin } = server;
  process.env.JUMPSEAT_E2E_URL = origin;
  process.env.JUMPSEAT_E2E_TOKEN = token;
  process.env.JUMPSEAT_E2E_WORKSPACE = workspace;
  // The same server for specs on jumpseat/playwright's fixtures (a server named this way).
  process.env.JUMPSEAT_URL = origin;
  process.env.JUMPSEAT_TOKEN = token;
  return async () => {
    await stopServerProcess(server);
    rmSync(dir, { recursive: true, force: true });
  };
}
