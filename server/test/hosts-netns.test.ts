/**
 * A shell host on a machine of its own: `jumpseat host` runs in a network namespace the test
 * makes, joined by a veth pair, and dials the control plane at the address on this side. The
 * cable is pulled (`ip link set … down`: no FIN, no RST) while a call runs:
 * - for less than the grace period: both sides notice the silence, the host re-links when the
 *   cable is back, and the call answers exactly, its output in the control plane's recording
 *   once each, with no gap and no repeat, and the call (it ended while the cable was out) in
 *   the control plane's history;
 * - for more: the call answers that the shell was lost, the shell ends `host_lost`, and the
 *   agent's next call gets a new shell on the host once it is back.
 * The namespace and the pair are removed at the end, even on failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostCluster, PROCESS_START_MS } from './support/host-cluster.ts';
import { netnsUnavailable, TestNetns } from './support/test-netns.ts';

/** The /30s of this test: 10.232.<random>.0. */
const SUBNET_PREFIX = '10.232';
/** The control plane's grace for a host whose link dropped. */
const GRACE_MS = 20_000;
/** Long enough for both sides to call the link dead (LINK_SILENCE_MS is 7 s), within grace. */
const SHORT_CUT_MS = 10_000;
/** Past the grace period, with the silence before it. */
const LONG_CUT_MS = GRACE_MS + 12_000;
/** Re-linking after the cable is back: the host's backoff is at most 8 s. */
const RELINK_MS = 30_000;
const RESET =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.';

const CI = process.env.CI === 'true' || process.env.CI === '1';
const reason = netnsUnavailable();
if (reason !== null) {
  // Not root is no missing dependency: CI runs the whole suite as an unprivileged user too.
  if (CI && process.getuid?.() === 0)
    throw new Error(`hosts in network namespaces: ${reason}; CI=true, so this fails the run`);
  process.stdout.write(`hosts in network namespaces: NOT RUN — ${reason}\n`);
}

const machine = new TestNetns('host', SUBNET_PREFIX);
const cluster = new HostCluster();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(reason === null)('a host on a machine of its own, its cable pulled', () => {
  beforeAll(async () => {
    machine.create();
    await cluster.startControlPlane(['--host', machine.outer, '--host-grace-ms', String(GRACE_MS)]);
    expect(cluster.origin).toMatch(new RegExp(`^http://${machine.outer.replaceAll('.', '\\.')}:`));
    await cluster.startHost('remote-1', ['--network', 'off'], undefined, machine.exec);
  }, 3 * PROCESS_START_MS);

  afterAll(async () => {
    try {
      machine.mend(); // the host stops cleanly on a mended cable
    } catch {
      // never made
    }
    await cluster.close();
    machine.remove();
  }, 60_000);

  it('for less than the grace period: the call answers exactly, its output once', async () => {
    expect(await cluster.call('far', 'echo from-$((40+2)) > /dev/null; echo across')).toEqual({
      status: 200,
      output: 'across',
    });
    const call = cluster.call('far', 'for i in $(seq 1 24); do echo "line-$i"; sleep 0.5; done');
    await pause(1_500);
    machine.cut();
    await cluster.waitFor(
      async () => (await cluster.hostState('remote-1')) === 'unreachable',
      'the control plane to call the host unreachable',
      SHORT_CUT_MS + 5_000,
    );
    await pause(SHORT_CUT_MS / 2);
    machine.mend();
    await cluster.waitFor(
      async () => (await cluster.hostState('remote-1')) === 'connected',
      'the host to re-link',
      RELINK_MS,
    );
    const lines = Array.from({ length: 24 }, (_, i) => `line-${i + 1}`).join('\n');
    expect(await call).toEqual({ status: 200, output: lines });
    const [session] = (await cluster.sessions()).filter((s) => s.agent === 'far');
    expect(session?.host).toBe('remote-1');
    expect(await cluster.call('far', 'echo still-$((6*7))')).toEqual({
      status: 200,
      output: 'still-42',
    });
    // The call ended while the cable was out: the host kept its story, and the control
    // plane's history has it, between the calls before and after.
    const calls = (await (await cluster.request(`/api/sessions/${session?.id}/calls`)).json()) as {
      output: string;
    }[];
    expect(calls.map((c) => c.output)).toEqual(['across', lines, 'still-42']);
    // The control plane's recording got the stream resumed at its offset: each line once.
    await cluster.waitFor(
      async () => {
        const response = await cluster.request(`/api/sessions/${session?.id}/recording`);
        return (await response.text()).includes('still-42');
      },
      'the recording to hold the last call',
      20_000,
    );
    const recording = await (
      await cluster.request(`/api/sessions/${session?.id}/recording`)
    ).text();
    const output = recording
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as [number, string, string])
      .filter(([, code]) => code === 'o')
      .map(([, , data]) => data)
      .join('');
    for (let i = 1; i <= 24; i++) {
      expect(output.match(new RegExp(`^line-${i}\\r?$`, 'gm'))?.length, `line-${i}`).toBe(1);
    }
  }, 120_000);

  it('for more: the call answers that the shell was lost; the next call starts anew', async () => {
    expect(await cluster.call('lost', 'export KEPT=1; echo set')).toEqual({
      status: 200,
      output: 'set',
    });
    const call = cluster.call('lost', 'sleep 120; echo never');
    await pause(1_000);
    machine.cut();
    const answer = await call;
    expect(answer).toEqual({
      status: 200,
      output: `[shell lost: host remote-1 stopped answering]\n${RESET}`,
    });
    const ended = (await cluster.sessions()).find((s) => s.agent === 'lost');
    expect(ended?.ending).toMatchObject({ kind: 'host_lost' });
    await pause(Math.max(0, LONG_CUT_MS - GRACE_MS - 7_000));
    machine.mend();
    await cluster.waitFor(
      async () => (await cluster.hostState('remote-1')) === 'connected',
      'the host to re-link',
      RELINK_MS,
    );
    expect(await cluster.call('lost', 'echo "kept=${KEPT:-no}"')).toEqual({
      status: 200,
      output: 'kept=no',
    });
  }, 150_000);
});
