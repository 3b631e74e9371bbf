/**
 * A real server started as `npm start` starts it, with --tls-cert/--tls-key and --base-path:
 * the banner and login URL say https and carry the path, HTTPS and WSS work under the path
 * (a proxy that passes it on) and without it (one that strips it), the served page's <base>
 * names the path, and SIGHUP swaps in a renewed certificate for new connections.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeTestCertificate, type TestCertificate } from './support/test-certificate.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** A from-source start under tsx on a loaded machine has taken over 20 s. */
const START_DEADLINE_MS = 60_000;

let root: string;
let server: ChildProcess;
let stdout = '';
let stderr = '';
let first: TestCertificate;
let renewed: TestCertificate;
let certFile: string;
let keyFile: string;
/** `https://127.0.0.1:PORT/` */
let listening: string;
let token: string;

interface Reply {
  readonly status: number;
  readonly body: string;
}

function httpsRequest(url: string, init: { method?: string; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      {
        method: init.method ?? 'GET',
        ca: first.pem,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end(init.body);
  });
}

/** The subject of the certificate a new TLS connection is shown. */
function servedSubject(): Promise<string> {
  const url = new URL(listening);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port), rejectUnauthorized: false },
      () => {
        const cn = socket.getPeerCertificate().subject?.CN;
        socket.end();
        resolve(String(cn));
      },
    );
    socket.on('error', reject);
  });
}

async function until(check: () => boolean, what: string, ms = START_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (server.exitCode !== null) throw new Error(`server exited ${server.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`${what}; stderr: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-tls-'));
  first = makeTestCertificate(root, 'first');
  renewed = makeTestCertificate(root, 'renewed');
  certFile = join(root, 'cert.pem');
  keyFile = join(root, 'key.pem');
  copyFileSync(first.certFile, certFile);
  copyFileSync(first.keyFile, keyFile);
  // Beside the data dir: a workspace root holding it is refused.
  mkdirSync(join(root, 'workspace'));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JUMPSEAT_')),
  );
  server = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'server/src/main.ts',
      '--port',
      '0',
      '--data-dir',
      join(root, 'data'),
      '--workspace',
      join(root, 'workspace'),
      '--base-path',
      '/jumpseat/',
    ],
    {
      cwd: REPO,
      // The pair from the environment, as a service unit would give it.
      env: { ...env, JUMPSEAT_TLS_CERT: certFile, JUMPSEAT_TLS_KEY: keyFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  server.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  server.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  await until(() => /\nlogin: .*\n/.test(stdout), 'no banner');
  listening = /^jumpseat listening on (\S+)$/m.exec(stdout)?.[1] ?? '';
  token = decodeURIComponent(/^login: \S+\?token=(\S+)$/m.exec(stdout)?.[1] ?? '');
}, START_DEADLINE_MS + 10_000);

afterAll(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
}, 30_000);

describe('HTTPS, WSS and a base path', () => {
  it('says https and the base path in the banner and the login URL', () => {
    expect(listening).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const lines = stdout.split('\n');
    expect(lines[1]).toBe(`open: ${listening}jumpseat/`);
    expect(lines[2]).toMatch(
      new RegExp(`^login: ${listening.replaceAll('.', '\\.')}jumpseat/login\\?token=js_\\S+$`),
    );
  });

  it('answers a call over HTTPS under the base path and without it', async () => {
    for (const path of ['jumpseat/api/agents/a1/bash', 'api/agents/a1/bash']) {
      const reply = await httpsRequest(`${listening}${path}`, {
        method: 'POST',
        body: JSON.stringify({ command: 'echo over-$((6*7))' }),
      });
      expect(reply).toEqual({ status: 200, body: JSON.stringify({ output: 'over-42' }) });
    }
  });

  it('serves the login page with the base path as its <base>, and its assets under it', async () => {
    const login = /^login: (\S+)$/m.exec(stdout)?.[1] ?? '';
    const page = await httpsRequest(login);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<base href="/jumpseat/" />');
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(asset).toBeDefined();
    expect((await httpsRequest(`${listening}jumpseat/${asset}`)).status).toBe(200);
  });

  it('streams a live shell over WSS under the base path', async () => {
    const sessions = JSON.parse((await httpsRequest(`${listening}jumpseat/api/sessions`)).body) as {
      id: string;
      agent: string;
    }[];
    const shell = sessions.find((session) => session.agent === 'a1');
    expect(shell).toBeDefined();
    const url = `${listening.replace(/^https/, 'wss')}jumpseat/api/sessions/${shell?.id}/live`;
    const socket = new WebSocket(url, {
      ca: first.pem,
      headers: { authorization: `Bearer ${token}` },
    });
    const snapshot = await new Promise<string>((resolve, reject) => {
      socket.on('message', (data, isBinary) => {
        const text = isBinary ? '' : String(data);
        if (text.includes('"type":"snapshot"')) resolve(text);
      });
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`upgrade refused: ${response.statusCode}`)),
      );
    });
    socket.close();
    expect(snapshot).toContain('over-42');
  });

  it('serves a renewed certificate to new connections after SIGHUP', async () => {
    expect(await servedSubject()).toBe('jumpseat test first');
    copyFileSync(renewed.certFile, certFile);
    copyFileSync(renewed.keyFile, keyFile);
    server.kill('SIGHUP');
    await until(() => stderr.includes('reloaded the TLS certificate'), 'no reload line', 10_000);
    expect(stderr).toContain(`jumpseat: reloaded the TLS certificate from "${certFile}"`);
    expect(await servedSubject()).toBe('jumpseat test renewed');
  });
});
