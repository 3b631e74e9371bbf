/**
 * Spare workspace file systems for `--workspace-quota` as root: ext4 images copied from the
 * template and loop-mounted before any new agent asks, so that a new workspace's first shell
 * is not kept waiting by the copy and `mount -o loop` (about 55 ms of its start). A new,
 * empty workspace takes a spare: its start-up step (workspace-quota.ts) renames the spare's
 * image to the workspace's and moves the mount onto the workspace with a bind mount.
 *
 * The spares are made by a keeper, one `bash` per server that reads "make" lines on its
 * stdin, makes a spare for each, and answers "ready IMAGE MOUNT" or "failed". Every mount and copy
 * runs there, never on the server's event loop. When its stdin closes (the server stopped, or
 * died, even by SIGKILL) the keeper unmounts and removes the spares nobody took, and ends.
 * At its start it removes those a killed keeper of this data dir left (its own server dead).
 *
 * The keeper also holds the workspaces this run mounted (`mine` lines): when the server dies
 * without a stop, it unmounts them, so a server killed and never started again leaves no
 * mounts behind (a stop unmounts them itself, then tells the keeper so: a stop cut short
 * before that leaves the keeper to unmount them).
 *
 * A spare is `<quota dir>/.spare-<run key>-<server pid>.<its start time>-<n>.ext4` (the start
 * time tells a live server from a process given a dead one's pid), mounted at the same name
 * with `.d` in SPARE_MOUNT_DIR (nosuid, nodev; without ext4's lost+found). The quota dir is the
 * server's alone (0700, hidden from every sandbox), and a name starting with a dot is no
 * workspace's image.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { RefillSchedule } from './refill-schedule.ts';
import { runOf } from './server-run.ts';

/** Spares kept ready: a new agent's first shell, and the next one's a moment later. */
const SPARES = 2;
/** The keeper's niceness: making a spare yields the CPU to the shells being started. */
const KEEPER_NICENESS = '10';
/** After a spare failed to be made, the next try waits this long (no busy loop). */
const RETRY_AFTER_FAILURE_MS = 5000;
/** The keeper's name in `ps`. */
const KEEPER_NAME = 'jumpseat-spares';

/**
 * The keeper. Its arguments: the quota dir, the run key, the server's run (`<pid>.<start
 * time>`, runOf), the template, its size and mkfs.ext4. It ignores the terminal's signals (it
 * is in a session of its own too): only the end of its stdin ends it, after its clean-up.
 */
const KEEPER = [
  'dir=$1 key=$2 server=$3 template=$4 bytes=$5 mkfs=$6 at=$7',
  "trap '' INT TERM HUP PIPE",
  'mkdir -p -m 700 "$at"',
  // $1: a spare's name. Its mount first (lazily: a step may be moving it), then its files.
  'clean() {',
  '  mountpoint -q "$at/$1.d" && umount -l "$at/$1.d"',
  '  rmdir "$at/$1.d" 2>/dev/null; rm -f "$dir/$1" "$dir/$1.new"',
  '}',
  // $1: a run as a spare names it. Alive: its pid's process started when the run did (an
  // older name, the pid alone: that pid is taken); a start that cannot be read counts as alive.
  'alive() {',
  '  local pid=${1%%.*} stat',
  '  if [ "$pid" != "$1" ] && stat=$(cat "/proc/$pid/stat" 2>/dev/null); then',
  '    read -ra stat <<< "${stat##*) }"',
  '    [ "${stat[19]}" = "${1#*.}" ]; return',
  '  fi',
  '  kill -0 "$pid" 2>/dev/null',
  '}',
  // A killed keeper's spares (its server dead): their images, and their mounts.
  'for left in "$dir/.spare-$key-"* "$at/.spare-$key-"*; do',
  '  [ -e "$left" ] || continue',
  '  name=${left##*/}; name=${name%.d}; name=${name%.new}',
  '  run=${name#".spare-$key-"}; run=${run%%-*}',
  '  [ "$run" = "$server" ] && continue',
  '  alive "$run" && continue',
  '  clean "$name"',
  'done',
  'make() {',
  '  if [ ! -e "$template" ]; then',
  '    truncate -s "$bytes" "$template.$$" && "$mkfs" -q -F -m 0 -E lazy_itable_init=1,lazy_journal_init=1 "$template.$$" >/dev/null && mv "$template.$$" "$template" || return 1',
  '  fi',
  '  cp --sparse=always "$template" "$dir/$1.new" && mv "$dir/$1.new" "$dir/$1" || return 1',
  '  mkdir "$at/$1.d" && mount -o loop,nosuid,nodev "$dir/$1" "$at/$1.d" || return 1',
  '  rmdir "$at/$1.d/lost+found" 2>/dev/null',
  '  return 0',
  '}',
  'n=0 mine=() stopped=',
  'while read -r what path; do',
  '  case $what in',
  '    make)',
  '      n=$((n + 1)); name=".spare-$key-$server-$n.ext4"',
  '      if make "$name"; then echo "ready $dir/$name $at/$name.d"; else clean "$name"; echo failed; fi ;;',
  '    mine) mine+=("$path") ;;',
  '    stop) stopped=1 ;;',
  '  esac',
  'done',
  // The server died unstopped (a stop unmounts them itself, and says so after): the
  // workspaces it mounted go too, lazily (a process left in one keeps it until it ends).
  'if [ -z "$stopped" ]; then',
  '  for workspace in "${mine[@]}"; do mountpoint -q "$workspace" && umount -l "$workspace"; done',
  'fi',
  // The server is gone or stopping: what nobody took goes (a taken spare was renamed and
  // its mount moved; a step cut short left its mount, which goes too).
  'for left in "$dir/.spare-$key-$server-"* "$at/.spare-$key-$server-"*; do',
  '  [ -e "$left" ] || continue',
  '  name=${left##*/}; name=${name%.d}; clean "${name%.new}"',
  'done',
  'exit 0',
].join('\n');

export interface SpareSettings {
  /** The quota dir: the images' folder, the server's alone. */
  readonly dir: string;
  readonly runKey: string;
  readonly template: string;
  readonly bytes: number;
  readonly mkfs: string;
  /**
   * Where spares are mounted: outside the workspace root, so that the root can be removed
   * (`rm -r`) while a killed server's keeper is still unmounting them. Root's own.
   */
  readonly mountDir: string;
}

/** A spare: its image (in the quota dir) and where it is mounted. */
export interface Spare {
  readonly image: string;
  readonly mount: string;
}

/** Where a root server's spares are mounted (made by the keeper, 0700). */
export const SPARE_MOUNT_DIR = '/run/jumpseat-spares';

/** The keeper of a run's quota mounts: the spares it makes, and the workspaces it was told of. */
export class QuotaKeeper {
  private readonly ready: Spare[] = [];
  private keeper: ChildProcess | null = null;
  private making = false;
  private closed = false;
  private readonly refill = new RefillSchedule(() => this.fill());
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly settings: SpareSettings) {}

  /** Starts keeping spares (after the start-up sweep, or at the first shell). */
  arm(): void {
    if (this.closed || this.keeper !== null) return;
    const keeper = spawn(
      'nice',
      [
        '-n',
        KEEPER_NICENESS,
        'bash',
        '--noprofile',
        '--norc',
        '-c',
        KEEPER,
        KEEPER_NAME,
        this.settings.dir,
        this.settings.runKey,
        runOf(process.pid),
        this.settings.template,
        String(this.settings.bytes),
        this.settings.mkfs,
        this.settings.mountDir,
      ],
      // Its own session: a Ctrl-C at the server's terminal is not its business.
      { stdio: ['pipe', 'pipe', 'ignore'], detached: true, env: { PATH: keeperPath() } },
    );
    this.keeper = keeper;
    this.exited = new Promise((resolve) => {
      keeper.once('close', () => resolve());
      keeper.once('error', () => resolve());
    });
    keeper.stdin?.on('error', () => undefined);
    // The server must not wait for the keeper to exit (it never does before its stdin closes).
    keeper.unref();
    for (const pipe of [keeper.stdin, keeper.stdout]) (pipe as Socket | null)?.unref();
    createInterface({ input: keeper.stdout as NodeJS.ReadableStream }).on('line', (line) =>
      this.answered(line),
    );
    this.exited.then(() => {
      this.ready.length = 0;
      this.making = false;
    });
    this.fill();
  }

  /** A ready spare, or null (none ready); another is made a moment later. */
  take(): Spare | null {
    if (this.keeper === null) this.arm();
    const spare = this.ready.shift() ?? null;
    this.refill.afterTake();
    return spare;
  }

  /** A shell answered its first call: spares taken are made again now (refill-schedule.ts). */
  shellSettled(): void {
    this.refill.shellSettled();
  }

  /**
   * `workspace` is mounted by this run (or found mounted): should the server die without a
   * stop, the keeper unmounts it. A path the line protocol cannot carry is left mounted (the
   * next start on this data dir finds it mounted and uses it, as before there was a keeper).
   */
  claim(workspace: string): void {
    if (this.keeper === null) this.arm();
    if (/[\n\r]/.test(workspace) || this.keeper?.stdin?.writable !== true) return;
    this.keeper.stdin.write(`mine ${workspace}\n`);
  }

  /**
   * Makes no more, and waits until the keeper has unmounted and removed every spare nobody
   * took (the server stops; it unmounts its workspaces itself).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.refill.close();
    const keeper = this.keeper;
    if (keeper === null) return;
    // Waited for: held referenced again, or a process with nothing else left to do would end
    // before the keeper's answer (an unsettled await: the fuzz runner exited 13 so).
    keeper.ref();
    for (const pipe of [keeper.stdin, keeper.stdout]) (pipe as Socket | null)?.ref();
    if (keeper.stdin?.writable === true) keeper.stdin.end('stop\n');
    await this.exited;
  }

  private answered(line: string): void {
    this.making = false;
    const [said, image, mount] = line.split(' ');
    if (said === 'ready' && image !== undefined && mount !== undefined) {
      this.ready.push({ image, mount });
      this.fill();
    } else {
      // Shells still get their file systems the slow way; try again later, not in a loop.
      this.refill.later(RETRY_AFTER_FAILURE_MS);
    }
  }

  private fill(): void {
    if (this.closed || this.making || this.refill.pending) return;
    if (this.ready.length >= SPARES || this.keeper?.stdin?.writable !== true) return;
    this.making = true;
    this.keeper.stdin.write('make\n');
  }
}

/** The keeper's PATH: the server's, with the system dirs mount and mkfs live in. */
function keeperPath(): string {
  const base = process.env.PATH ?? '';
  return [base, '/usr/sbin', '/sbin', '/usr/bin', '/bin'].filter(Boolean).join(':');
}
