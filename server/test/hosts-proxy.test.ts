/**
 * A host behind an HTTP proxy: a real control plane and real `jumpseat host` processes on
 * loopback, each dialling through a CONNECT proxy of the test's own (or not) as the standard
 * proxy variables and `--proxy` say. Through the proxy a call answers exactly; NO_PROXY
 * keeps the link off it; a proxy that refuses (wrong credentials, 403, nothing listening) is
 * named in one clear line without the password, and the host keeps retrying.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectProxy } from './support/connect-proxy.ts';
import {
  freePort,
  HostCluster,
  type HostProcess,
  PROCESS_START_MS,
} from './support/host-cluster.ts';

/** Attempts the host makes while a proxy refuses it: it retries, with backoff (200 ms, 500
 *  ms, 1 s, … ceilings), rather than stopping. */
const RETRIES_SEEN = 3;
const RETRIES_WAIT_MS = 30_000;

const cluster = new HostCluster();
/** Wants `jump:right-pass`. */
const guarded = new ConnectProxy({ credentials: 'jump:right-pass' });
const open = new ConnectProxy();
const forbidding = new ConnectProxy({ refuseWith: 403 });
/** The control plane as a CONNECT names it (`127.0.0.1:PORT`). */
let target = '';
let deadPort = 0;
const basic = (userinfo: string) => `Basic ${Buffer.from(userinfo).toString('base64')}`;

beforeAll(async () => {
  await Promise.all([guarded.listen(), open.listen(), forbidding.listen()]);
  // Taken and given back: nothing listens there.
  deadPort = await freePort();
  await cluster.startControlPlane();
  target = new URL(cluster.origin).host;
}, 2 * PROCESS_START_MS);

afterAll(async () => {
  await cluster.close();
  await Promise.all([guarded.close(), open.close(), forbidding.close()]);
}, 60_000);

describe('a host behind a proxy', () => {
  it(
    'joins through HTTP_PROXY, its credentials sent as Proxy-Authorization and never shown, and answers exactly',
    async () => {
      const host = await cluster.startHost('proxied', ['--label', 'via=proxy'], undefined, [], {
        env: { HTTP_PROXY: guarded.url('jump:right-pass') },
      });
      expect(guarded.tunnelsTo(target)).toBeGreaterThanOrEqual(1);
      expect(guarded.requests.map((r) => [r.target, r.authorization, r.status])).toContainEqual([
        target,
        basic('jump:right-pass'),
        200,
      ]);
      const token = await cluster.mint({
        role: 'agent',
        agent: 'behind-proxy',
        labels: { via: 'proxy' },
      });
      expect(
        await cluster.call('behind-proxy', 'export X=7; printf "a\\tb\\n"; echo $X', token),
      ).toEqual({ status: 200, output: 'a\tb\n7' });
      const [session] = (await cluster.sessions()).filter((s) => s.agent === 'behind-proxy');
      expect(session?.host).toBe('proxied');
      const shown = guarded.url('jump:***');
      expect(host.stdout()).toMatch(
        new RegExp(
          `^jumpseat host joining ${regexText(cluster.origin)} through the proxy ${regexText(shown)} \\(shells up to \\d+\\)\\n`,
        ),
      );
      expect(host.stderr()).toContain(
        `jumpseat host: joined ${cluster.origin} through the proxy ${shown} (link protocol 3)\n`,
      );
      expect(host.stdout() + host.stderr()).not.toContain('right-pass');
    },
    2 * PROCESS_START_MS,
  );

  it(
    'dials directly when NO_PROXY names the control plane: the proxy sees nothing',
    async () => {
      const host = await cluster.startHost('bypass', [], undefined, [], {
        env: { HTTP_PROXY: open.url(), no_proxy: `proxy-free.example, ${target}` },
      });
      expect(open.requests).toEqual([]);
      expect(host.stdout()).toMatch(/^jumpseat host joining \S+ \(shells up to \d+\)\n/);
    },
    2 * PROCESS_START_MS,
  );

  it(
    'takes --proxy over the environment',
    async () => {
      const before = open.tunnelsTo(target);
      await cluster.startHost('flagged', ['--proxy', open.url()], undefined, [], {
        env: { HTTP_PROXY: `http://127.0.0.1:${deadPort}`, NO_PROXY: '*' },
      });
      expect(open.tunnelsTo(target)).toBe(before + 1);
    },
    2 * PROCESS_START_MS,
  );

  it(
    'refused by its proxy (wrong credentials, 403, nothing listening), says why once without the password and keeps retrying',
    async () => {
      const [wrong, forbidden, unreachable] = await Promise.all([
        cluster.startHost('wrong-pass', [], undefined, [], {
          env: { HTTP_PROXY: guarded.url('jump:wrong-pass') },
          awaitJoin: false,
        }),
        cluster.startHost('forbidden', [], undefined, [], {
          env: { http_proxy: forbidding.url() },
          awaitJoin: false,
        }),
        cluster.startHost('unreachable', [], undefined, [], {
          env: { HTTP_PROXY: `http://jump:right-pass@127.0.0.1:${deadPort}` },
          awaitJoin: false,
        }),
      ]);
      const attempts = (proxy: ConnectProxy, authorization?: string) =>
        proxy.requests.filter((r) => r.target === target && r.authorization === authorization)
          .length;
      await cluster.waitFor(
        async () =>
          attempts(guarded, basic('jump:wrong-pass')) >= RETRIES_SEEN &&
          attempts(forbidding) >= RETRIES_SEEN &&
          unreachable.stderr().includes('cannot reach the proxy'),
        `${RETRIES_SEEN} attempts of each refused host`,
        PROCESS_START_MS + RETRIES_WAIT_MS,
        () => [wrong, forbidden, unreachable].map((h) => h.stderr()).join('\n'),
      );
      expect(guarded.requests.filter((r) => r.authorization === basic('jump:wrong-pass'))).toEqual(
        Array(
          guarded.requests.filter((r) => r.authorization === basic('jump:wrong-pass')).length,
        ).fill({
          target,
          authorization: basic('jump:wrong-pass'),
          status: 407,
        }),
      );
      expectOneLine(
        wrong,
        `jumpseat host: join failed: the proxy ${guarded.url('jump:***')} refused the tunnel to ${target}: 407 Proxy Authentication Required (it did not take the credentials in the proxy URL); retrying\n`,
      );
      expectOneLine(
        forbidden,
        `jumpseat host: join failed: the proxy ${forbidding.url()} refused the tunnel to ${target}: 403 Forbidden; retrying\n`,
      );
      const dead = `http://jump:***@127.0.0.1:${deadPort}`;
      expectOneLine(
        unreachable,
        `jumpseat host: join failed: cannot reach the proxy ${dead}: connect ECONNREFUSED 127.0.0.1:${deadPort}; retrying\n`,
      );
      for (const host of [wrong, forbidden, unreachable]) {
        expect(host.stdout() + host.stderr()).not.toMatch(/wrong-pass|right-pass/);
        expect(host.process.exitCode).toBe(null);
        expect(await cluster.hostState(host.name)).not.toBe('connected');
      }
    },
    2 * PROCESS_START_MS,
  );
});

/** The host's stderr holds `line` exactly once: the reason is told, not repeated each retry. */
function expectOneLine(host: HostProcess, line: string): void {
  expect(host.stderr()).toContain(line);
  expect(host.stderr().split(line).length - 1).toBe(1);
}

function regexText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
