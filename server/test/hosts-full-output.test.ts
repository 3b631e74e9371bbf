/**
 * The full-output route for a shell on a joined host, with real processes: a pure control
 * plane and one `jumpseat host`. A clipped call's saved file is read through the host's link,
 * byte for byte, whole and by range; only that shell's calls' files are served (symlinks and
 * other agents' files are refused on the host: host-files.test.ts); a link that
 * drops mid-transfer cuts the reply off; a host killed (SIGKILL) or forgotten is 503
 * `HOST_UNREACHABLE`, named.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savedOutputIn } from '../src/tool/contract-text.ts';
import { HostCluster, type HostProcess, PROCESS_START_MS } from './support/host-cluster.ts';

const cluster = new HostCluster();
let host: HostProcess;

/** A clipped call of `agent` on the host: its session and id, its saved file's name and bytes. */
interface Saved {
  readonly session: string;
  readonly callId: string;
  readonly name: string;
  readonly path: string;
  readonly bytes: Buffer;
}

async function clippedCall(agent: string, command: string): Promise<Saved> {
  const call = await cluster.call(agent, command);
  expect(call.status).toBe(200);
  const path = savedOutputIn(call.output ?? '');
  if (path === null) throw new Error(`not clipped: ${call.output}`);
  const session = (await cluster.sessions()).find((s) => s.agent === agent);
  expect(session?.host).toBe('fo1');
  // The control plane recorded the call from the link, with the host's exact result.
  const calls = (await (await cluster.request(`/api/sessions/${session?.id}/calls`)).json()) as {
    id: string;
    output: string;
  }[];
  const recorded = calls.at(-1);
  expect(recorded?.output).toBe(call.output);
  // Every process runs on this machine: the host's file is read here to compare with.
  return {
    session: session?.id ?? '',
    callId: recorded?.id ?? '',
    name: basename(path),
    path,
    bytes: readFileSync(path),
  };
}

const outputPath = (session: string, callId: string): string =>
  `/api/sessions/${session}/calls/${encodeURIComponent(callId)}/output`;

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

let a: Saved;
let b: Saved;

beforeAll(async () => {
  await cluster.startControlPlane();
  host = await cluster.startHost('fo1', ['--max-output-chars', '100']);
  a = await clippedCall('fo-a', 'seq 1 400000');
  b = await clippedCall('fo-b', 'seq 7 2000');
}, 3 * PROCESS_START_MS);

afterAll(async () => {
  await cluster.close();
}, 60_000);

describe('the full output of a call on a joined host', () => {
  it('is read through the link, byte for byte, inline or as a download', async () => {
    expect(a.bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(a.bytes.subarray(0, 8).toString()).toBe('1\n2\n3\n4\n');
    const response = await cluster.request(outputPath(a.session, a.callId));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(a.bytes.length));
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="fo-a-${a.name}"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(a.bytes)).toBe(true);
    const download = await cluster.request(`${outputPath(b.session, b.callId)}?download=1`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="fo-b-${b.name}"`,
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(b.bytes)).toBe(true);
  });

  it('honours a single Range: a span, a suffix, and 416 past the end', async () => {
    const size = a.bytes.length;
    const span = await cluster.request(outputPath(a.session, a.callId), {
      headers: { range: 'bytes=1048570-1048579' },
    });
    expect(span.status).toBe(206);
    expect(span.headers.get('content-range')).toBe(`bytes 1048570-1048579/${size}`);
    expect(span.headers.get('content-length')).toBe('10');
    expect(Buffer.from(await span.arrayBuffer()).equals(a.bytes.subarray(1048570, 1048580))).toBe(
      true,
    );
    const suffix = await cluster.request(outputPath(a.session, a.callId), {
      headers: { range: 'bytes=-7' },
    });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe(`bytes ${size - 7}-${size - 1}/${size}`);
    expect(await suffix.text()).toBe(a.bytes.subarray(size - 7).toString());
    const past = await cluster.request(outputPath(a.session, a.callId), {
      headers: { range: `bytes=${size}-` },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
  });

  it('is 404 for a call that is not that shell’s, or was not clipped, or no shell', async () => {
    // Another agent's clipped call, asked for through this agent's shell; a saved file's name.
    for (const callId of [b.callId, a.name, '../fo-b/x']) {
      const response = await cluster.request(outputPath(a.session, callId));
      expect(response.status, callId).toBe(404);
      expect(await errorOf(response)).toEqual({
        code: 'NOT_FOUND',
        message: `session ${JSON.stringify(a.session)} has no call ${JSON.stringify(callId)}`,
      });
    }
    const whole = await cluster.call('fo-a', 'echo short');
    expect(whole).toEqual({ status: 200, output: 'short' });
    const calls = (await (await cluster.request(`/api/sessions/${a.session}/calls`)).json()) as {
      id: string;
    }[];
    const unclipped = await cluster.request(outputPath(a.session, calls.at(-1)?.id ?? ''));
    expect(unclipped.status).toBe(404);
    expect(await errorOf(unclipped)).toEqual({
      code: 'NOT_FOUND',
      message: 'this call was not clipped: its result holds its whole output',
    });
    const unknown = await cluster.request(outputPath('no-such-session', a.callId));
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toEqual({
      code: 'NOT_FOUND',
      message: 'no session "no-such-session"',
    });
  });
});

describe('a host that goes away', () => {
  it('mid-transfer: the reply is cut off, never a short 200', async () => {
    // Larger than every buffer between the host and this reader (the window, the sockets).
    const big = await clippedCall(
      'fo-big',
      'yes 0123456789012345678901234567890123456789012345678901234567890123456789 | head -n 450000',
    );
    expect(big.bytes.length).toBeGreaterThan(30_000_000);
    const response = await cluster.request(outputPath(big.session, big.callId));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(big.bytes.length));
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const first = await reader.read();
    expect(first.done).toBe(false);
    let received = first.value?.length ?? 0;
    expect(big.bytes.subarray(0, received).equals(Buffer.from(first.value ?? []))).toBe(true);
    process.kill(host.process.pid as number, 'SIGKILL');
    const rest = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        received += value.length;
      }
    })();
    await expect(rest).rejects.toThrow();
    expect(received).toBeLessThan(big.bytes.length);
  }, 120_000);

  it('killed: 503 HOST_UNREACHABLE naming the host, before any byte', async () => {
    await host.exited;
    await cluster.waitFor(
      async () => (await cluster.hostState('fo1')) === 'unreachable',
      'fo1 to be unreachable',
      30_000,
    );
    const response = await cluster.request(outputPath(a.session, a.callId));
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({
      code: 'HOST_UNREACHABLE',
      message: 'host fo1 cannot be reached: it is not connected',
    });
  });

  it('forgotten: 503 HOST_UNREACHABLE saying so', async () => {
    expect((await cluster.request('/api/hosts/fo1', { method: 'DELETE' })).status).toBe(204);
    const response = await cluster.request(outputPath(a.session, a.callId));
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({
      code: 'HOST_UNREACHABLE',
      message: 'host fo1 cannot be reached: it was forgotten, and its saved outputs with it',
    });
  });
});
