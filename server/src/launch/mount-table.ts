/** The mount table as /proc/self/mountinfo lists it: what is mounted where. */
import { readFileSync } from 'node:fs';

export interface MountEntry {
  /** Where it is mounted (octal escapes such as `\040` decoded). */
  readonly point: string;
  /** The file system type (`ext4`, `tmpfs`, …). */
  readonly type: string;
  /** The device, `major:minor`. */
  readonly device: string;
  /** The mount's own options (`rw,nosuid,nodev,…`). */
  readonly options: readonly string[];
}

export function mounts(): MountEntry[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const found: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    const fields = left?.split(' ') ?? [];
    const point = fields[4];
    if (point === undefined || right === undefined) continue;
    found.push({
      point: decodeOctal(point),
      type: right.split(' ')[0] ?? '',
      device: fields[2] ?? '',
      options: (fields[5] ?? '').split(','),
    });
  }
  return found;
}

/** The mount points at or below `prefix` (a path prefix, not only a folder). */
export function mountsUnder(prefix: string): string[] {
  return mounts()
    .map((m) => m.point)
    .filter((point) => point.startsWith(prefix));
}

export function isMountPoint(dir: string): boolean {
  return mounts().some((m) => m.point === dir);
}

function decodeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(parseInt(code, 8)));
}
