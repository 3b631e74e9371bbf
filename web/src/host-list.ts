/**
 * The Hosts page's words without the DOM: the hosts in name order, how each one's labels,
 * shells, load and versions read, which actions fit its state, and what the page says when no
 * host has joined.
 */
import type { HostInfo } from '../../shared/src/api.ts';

/** `build-2` before `build-10`, as people count. */
const collator = new Intl.Collator(undefined, { numeric: true });

export function hostsInOrder(hosts: readonly HostInfo[]): HostInfo[] {
  return [...hosts].sort((a, b) => collator.compare(a.name, b.name));
}

/** `gpu=1 zone=eu`, keys in order; empty for a host without labels. */
export function labelWords(labels: Readonly<Record<string, string>>): string[] {
  return Object.entries(labels)
    .sort(([a], [b]) => collator.compare(a, b))
    .map(([key, value]) => `${key}=${value}`);
}

/** `3 / 500`: its live shells and how many it takes at most. */
export function shellsText(host: HostInfo): string {
  return `${host.shells} / ${host.capacity}`;
}

/** `25%`: the share of its capacity in use, whole percents (a full host reads 100%). */
export function loadText(host: HostInfo): string {
  return `${Math.round(host.load * 100)}%`;
}

/** `link v1 · jumpseat 0.1.0`: the link protocol in use and what the host runs. */
export function versionsText(host: HostInfo): string {
  const engine = host.engineVersion === '' ? 'unknown' : host.engineVersion;
  return `link v${host.protocol} · jumpseat ${engine}`;
}

/** Draining a host that drains already, or is away, changes nothing. */
export function mayDrain(host: HostInfo): boolean {
  return host.state === 'connected';
}

/** A drained host that is linked may take new shells again. */
export function mayUndrain(host: HostInfo): boolean {
  return host.state === 'draining';
}

/**
 * Why the list is empty, in a person's words. `localShells`: the server runs shells itself
 * (null when its settings could not be read).
 */
export function noHostsText(localShells: boolean | null): string {
  if (localShells === true) {
    return 'No shell host has joined. This server runs its shells itself, so there is nothing to manage here. To run shells on other machines, start a host there with a host token:';
  }
  if (localShells === false) {
    return 'No shell host has joined, and this control plane runs no shells itself (--local-shells off): no shell can start until a host joins. On each machine, with a host token:';
  }
  return 'No shell host has joined. A host joins with a host token:';
}

/** The commands that join a host to the server at `origin` (its public URL when it has one). */
export function joinCommands(origin: string): string {
  return [
    '# on this server, once per machine: a host token (the name is bound to it)',
    'jumpseat token create --role host --name build-1',
    '# on that machine',
    `JUMPSEAT_TOKEN=js_… jumpseat host --join ${origin}`,
  ].join('\n');
}
