/**
 * What an agent's hostile output costs the server (shared/src/terminal-bounds.ts): memory
 * after agents each print a 9 MB OSC title that never ends, against a server whose agents
 * print 9 MB of plain text (xterm.js 6.0 kept such a title as a string per character: about
 * 300 MB per agent), and
 * how long another agent's call waits while the screen models parse a megabyte of
 * screenful scrolls (for context, no target: that CPU is spent on the server's event loop).
 */
import {
  call,
  median,
  report,
  settledRssKiB,
  startServer,
  stopServer,
  timed,
} from './bench-server.ts';

const AGENTS = 3;
const PRINTED_BYTES = 9_000_000;
const SCROLLS = 200_000;
/** The bound on the title's cost against plain text's: RSS wanders by some MB. */
const GROWTH_RATIO_TARGET = 1.5;

/** RSS growth (MiB) of a fresh server after AGENTS agents each print `opener` and 9 MB. */
async function growthAfter(opener: string): Promise<number> {
  const server = await startServer();
  const pid = server.child.pid as number;
  try {
    for (let i = 0; i < AGENTS; i++) await call(server, `bench-hostile-${i}`, 'true');
    const before = await settledRssKiB(pid);
    for (let i = 0; i < AGENTS; i++) {
      await call(
        server,
        `bench-hostile-${i}`,
        `printf '${opener}'; head -c ${PRINTED_BYTES} /dev/zero | tr '\\0' t; echo`,
      );
    }
    return ((await settledRssKiB(pid)) - before) / 1024;
  } finally {
    await stopServer(server);
  }
}

/** Another agent's calls while one screen model parses a megabyte of screenful scrolls. */
async function waitsDuringScrolls(): Promise<void> {
  const server = await startServer();
  try {
    await call(server, 'bench-hostile-bystander', 'true');
    await call(server, 'bench-hostile-flood', 'true');
    const flood = call(
      server,
      'bench-hostile-flood',
      `seq 3000; printf '\\033[40S%.0s' {1..${SCROLLS}}; echo`,
    );
    const waits: number[] = [];
    let done = false;
    void flood.finally(() => {
      done = true;
    });
    // Bounded: the flood's own call ends; more calls cover the parse that follows it.
    for (let i = 0; i < 400 && (!done || i < 200); i++) {
      waits.push(await timed(() => call(server, 'bench-hostile-bystander', 'true')));
    }
    await flood;
    const worst = Math.max(...waits);
    console.log(
      `another agent's true while a screen model parses ${SCROLLS} screenful scrolls: ` +
        `median ${median(waits).toFixed(1)} ms, worst ${worst.toFixed(0)} ms over ` +
        `${waits.length} calls (for context, no target)`,
    );
  } finally {
    await stopServer(server);
  }
}

export async function hostileOutputBenchmarks(): Promise<boolean[]> {
  const plain = await growthAfter('');
  const title = await growthAfter('\\033]0;');
  await waitsDuringScrolls();
  return [
    report(
      `server memory after ${AGENTS} agents each print a 9 MB unended title vs 9 MB of text`,
      title / Math.max(plain, 1),
      GROWTH_RATIO_TARGET,
      `(${title.toFixed(1)} MiB vs ${plain.toFixed(1)} MiB grown; xterm.js alone kept ~300 MB per title)`,
    ),
  ];
}
