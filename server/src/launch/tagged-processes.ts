/**
 * Finding processes by a variable in their environment: how an unsandboxed shell's daemons,
 * and the slirp4netns of a sandbox whose server was killed, are found again (a process keeps the
 * environment it was started with unless it scrubs it).
 */
import { readdir, readFile } from 'node:fs/promises';

/** Processes (other than this one) whose `variable` has a value `matches` accepts. */
export async function taggedProcesses(
  variable: string,
  matches: (value: string) => boolean,
): Promise<number[]> {
  const prefix = `${variable}=`;
  const found: number[] = [];
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
        for (const entry of environ.split('\0')) {
          if (entry.startsWith(prefix) && matches(entry.slice(prefix.length))) {
            found.push(Number(name));
            return;
          }
        }
      }),
  );
  return found;
}
