/**
 * A machine of a test's own: a network namespace joined to this one by a veth pair, on a /30
 * the test picks (`.1` on this side, `.2` inside), and on request a /64 of IPv6 as well. Made and removed by the test (removal also
 * on failure); needs root and iproute2. `cut` and `mend` take the namespace's end of the pair
 * down and up: a cable pulled, with no FIN or RST for either side (this side's address stays,
 * so the test still reaches a server listening on it).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';

export function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** Why a test machine cannot be made here (null: it can). */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'a test host in a network namespace needs root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'ip (iproute2) is needed';
  }
  return null;
}

export class TestNetns {
  readonly namespace: string;
  /** This side's end of the pair, and the end inside the namespace. */
  readonly outerVeth: string;
  readonly innerVeth: string;
  /** `.1` is this side's address, `.2` the namespace's. */
  readonly outer: string;
  readonly inner: string;

  /** With `ipv6`: the pair's IPv6 addresses too, `::1` and `::2` of a random fd6a::/32 /64. */
  readonly outer6: string | null;
  readonly inner6: string | null;

  /** `prefix`: the first two octets of the /30 (each test its own, against clashes). */
  constructor(label: string, prefix: string, options: { ipv6?: boolean } = {}) {
    const tag = randomBytes(3).toString('hex');
    this.namespace = `js-${label}-${tag}`;
    this.outerVeth = `jso${tag}`;
    this.innerVeth = `jsi${tag}`;
    const subnet = `${prefix}.${randomInt(0, 256)}`;
    this.outer = `${subnet}.1`;
    this.inner = `${subnet}.2`;
    const subnet6 = `fd6a:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:`;
    this.outer6 = options.ipv6 === true ? `${subnet6}:1` : null;
    this.inner6 = options.ipv6 === true ? `${subnet6}:2` : null;
  }

  create(): void {
    try {
      ip('netns', 'add', this.namespace);
      ip('link', 'add', this.outerVeth, 'type', 'veth', 'peer', 'name', this.innerVeth);
      ip('link', 'set', this.innerVeth, 'netns', this.namespace);
      ip('addr', 'add', `${this.outer}/30`, 'dev', this.outerVeth);
      ip('link', 'set', this.outerVeth, 'up');
      ip('-n', this.namespace, 'addr', 'add', `${this.inner}/30`, 'dev', this.innerVeth);
      ip('-n', this.namespace, 'link', 'set', this.innerVeth, 'up');
      ip('-n', this.namespace, 'link', 'set', 'lo', 'up');
      if (this.outer6 !== null && this.inner6 !== null) {
        // No duplicate address detection: usable at once, and nothing else is on this link.
        ip('-6', 'addr', 'add', `${this.outer6}/64`, 'dev', this.outerVeth, 'nodad');
        ip(
          '-n',
          this.namespace,
          '-6',
          'addr',
          'add',
          `${this.inner6}/64`,
          'dev',
          this.innerVeth,
          'nodad',
        );
      }
    } catch (error) {
      this.remove();
      throw error;
    }
  }

  /** The command prefix that runs a program inside the namespace. */
  get exec(): string[] {
    return ['ip', 'netns', 'exec', this.namespace];
  }

  cut(): void {
    ip('-n', this.namespace, 'link', 'set', this.innerVeth, 'down');
  }

  mend(): void {
    ip('-n', this.namespace, 'link', 'set', this.innerVeth, 'up');
  }

  /** Deleting the namespace deletes the end inside it, and so the pair. */
  remove(): void {
    for (const args of [
      ['netns', 'del', this.namespace],
      ['link', 'del', this.outerVeth],
    ]) {
      try {
        ip(...args);
      } catch {
        // Not made, or gone with the namespace.
      }
    }
  }
}
