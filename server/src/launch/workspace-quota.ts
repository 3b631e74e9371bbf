/**
 * A disk quota per workspace (`--workspace-quota`): as root, each workspace directory is a
 * loop-mounted ext4 file system of its own, so filling it ends in ENOSPC for that shell alone,
 * never for the history, tokens and recordings in the data dir or for another agent.
 *
 * The image is a sparse file under `<workspace root>/.quota/` (hidden from every sandbox with
 * the root), made once per workspace by copying a template file system (made once per size),
 * mounted the first time a shell of that workspace starts and kept mounted across shells;
 * unmounted at shutdown, or by the run's quota keeper (quota-keeper.ts) when the server dies
 * without one. New workspaces take a spare file system the keeper made ahead of need. The
 * mounting runs in the shell's own start-up process (a step before bubblewrap), never on the
 * server's event loop.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  opendirSync,
  realpathSync,
  renameSync,
  statSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { isExecutableFile } from '../pty/executable-path.ts';
import { withoutForeignMounts } from './foreign-mounts.ts';
import { isMountPoint, mounts } from './mount-table.ts';
import { PERL_STEP_END } from './perl-steps.ts';
import { QuotaKeeper, SPARE_MOUNT_DIR, type Spare } from './quota-keeper.ts';
import { MOUNT_SYSCALL } from './syscall-numbers.ts';
import { unmountMany } from './unmount.ts';

/** Below the workspace root: a name no agent id (`^[A-Za-z0-9]…`) can take. */
export const QUOTA_DIR_NAME = '.quota';
/** The kernel's interface for new loop devices; without it `mount -o loop` cannot work. */
const LOOP_CONTROL = '/dev/loop-control';
const MKFS = ['/usr/sbin/mkfs.ext4', '/sbin/mkfs.ext4'];
/** The images are the server's alone (shells see them only mounted, as their workspace). */
const IMAGE_DIR_MODE = 0o700;
/** What the start-up step's name shows as in `ps` for a moment. */
const STEP_NAME = 'jumpseat-quota';

/**
 * The start-up step: under a lock of its image, mount the workspace's image unless it
 * is mounted already, making the image (from the template, or from what the directory holds)
 * when it is missing. The root of the new file system keeps the directory's owner and mode,
 * and loses ext4's `lost+found`, so the shell sees the same empty directory it would have.
 * Exit 125 (as the host prelude uses) says the set-up failed, not the shell.
 */
const STEP = [
  'dir=$1 image=$2 template=$3 bytes=$4 mkfs=$5 at=$6; shift 7',
  'fail() { echo "jumpseat: workspace quota: $*" >&2; exit 125; }',
  'exec 9>"$image.lock" || fail "cannot lock $image"',
  'flock 9 || fail "cannot lock $image"',
  'if ! mountpoint -q "$dir"; then',
  // A spare (quota-keeper.ts), given only to a new, empty workspace: the server has named its
  // image the workspace's and given its root the directory's owner and mode; its mount moves
  // onto the workspace (a bind and an unmount where the parent mount is shared).
  '  if [ -n "$at" ] && [ -d "$at" ]; then',
  '    if ! mount --move "$at" "$dir" 2>/dev/null; then',
  '      if ! mountpoint -q "$at" || ! mount --bind "$at" "$dir"; then umount -l "$at"; fail "cannot mount $image"; fi',
  '      umount "$at" || umount -l "$at"',
  '    fi',
  '    rmdir "$at"',
  '  else',
  '    read -r owner mode < <(stat -c "%u:%g %a" "$dir") && [ -n "$mode" ] || fail "cannot read $dir"',
  '    if [ ! -e "$image" ]; then',
  '      if [ -n "$(ls -A "$dir")" ]; then',
  '        truncate -s "$bytes" "$image.new" && "$mkfs" -q -F -m 0 -d "$dir" -E lazy_itable_init=1,lazy_journal_init=1 "$image.new" >/dev/null || fail "mkfs.ext4 failed"',
  '      else',
  '        if [ ! -e "$template" ]; then',
  '          truncate -s "$bytes" "$template.$$" && "$mkfs" -q -F -m 0 -E lazy_itable_init=1,lazy_journal_init=1 "$template.$$" >/dev/null && mv "$template.$$" "$template" || fail "mkfs.ext4 failed"',
  '        fi',
  '        cp --sparse=always "$template" "$image.new" || fail "cannot copy $template"',
  '      fi',
  '      mv "$image.new" "$image" || fail "cannot make $image"',
  '    fi',
  // The file system may still be mounted elsewhere: in the mount namespace of a killed
  // run's process that has not ended yet (a process left in it keeps it after a lazy
  // unmount), or of another program's (sandboxes hold no copy: foreign-mounts.ts). Never a
  // second loop device on one image (two ext4 instances of one file would corrupt it): its
  // loop device, while attached, is mounted again (the same file system, as a bind would
  // be). One that goes meanwhile is waited for, up to 8 s.
  '    mounted=',
  '    for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do',
  '      loop=$([ -x /sbin/losetup ] && /sbin/losetup -n -O NAME -j "$image" | head -n 1)',
  '      if [ -z "$loop" ]; then break; fi',
  '      if mount -t ext4 -o nosuid,nodev "$loop" "$dir" 2>/dev/null; then mounted=1; break; fi',
  '      [ "$try" = 16 ] && fail "$image is still in use by a process of an earlier run"',
  '      sleep 0.5',
  '    done',
  '    if [ -z "$mounted" ]; then',
  '      mount -o loop,nosuid,nodev "$image" "$dir" || fail "cannot mount $image"',
  '    fi',
  '    rmdir "$dir/lost+found" 2>/dev/null',
  '    chown "$owner" "$dir" && chmod "$mode" "$dir" || fail "cannot set the owner of $dir"',
  '  fi',
  'fi',
  'exec 9>&-',
  'exec "$@"',
].join('\n');

const MS_MOVE = 8192;

/**
 * The step for a workspace given a spare, in one perl process (perl-base is essential on
 * Debian; the exit waiter needs it too) where the general step takes bash and five programs,
 * each a few milliseconds to start: under the image's lock, unless the workspace is a mount
 * point already (another device than its parent's), the spare's mount moves onto it
 * (MS_MOVE; `mount --bind` and `umount` where the parent mount is shared), then the command
 * runs. The server has named the image and given the root its owner and mode already.
 */
const SPARE_STEP = [
  'my ($nr, $move, $dir, $image, $at) = splice(@ARGV, 0, 5); shift @ARGV;',
  'sub fail { print STDERR "jumpseat: workspace quota: @_\n"; exit 125 }',
  'open(my $lock, ">", "$image.lock") or fail("cannot lock $image");',
  'flock($lock, 2) or fail("cannot lock $image");',
  'my @here = stat($dir); my @up = stat("$dir/..");',
  '@here && @up or fail("cannot read $dir");',
  'if ($here[0] == $up[0]) {',
  '  if (syscall($nr + 0, $at, $dir, 0, $move + 0, 0) != 0) {',
  '    system("mountpoint", "-q", $at) == 0 && system("mount", "--bind", $at, $dir) == 0',
  '      or do { system("umount", "-l", $at); fail("cannot mount $image") };',
  '    system("umount", $at) == 0 or system("umount", "-l", $at);',
  '  }',
  '  rmdir $at;',
  '}',
  'close $lock;',
  PERL_STEP_END,
].join('\n');

export class WorkspaceQuota {
  /** Workspaces this run has seen mounted: their next shells skip the step. */
  private readonly mounted = new Set<string>();
  /** Workspaces a step was issued for: unmounted at shutdown with those seen mounted. */
  private readonly stepped = new Set<string>();
  /** The spare each new workspace was given: its later shells' steps name the same one. */
  private readonly taken = new Map<string, Spare>();
  private readonly keeper: QuotaKeeper;

  private constructor(
    private readonly root: string,
    private readonly bytes: number,
    private readonly mkfs: string,
    runKey: string,
  ) {
    this.keeper = new QuotaKeeper({
      dir: this.imageDir,
      runKey,
      template: this.template,
      bytes,
      mkfs,
      mountDir: SPARE_MOUNT_DIR,
    });
  }

  /**
   * The quota where the kernel can enforce it here, else why not: it needs root (to mount),
   * mkfs.ext4 (e2fsprogs), loop devices, and a directory per workspace.
   */
  static detect(settings: {
    readonly bytes: number | undefined;
    readonly root: string;
    readonly shared: boolean;
    /** Names this server's spare file systems (quota-keeper.ts) across its runs. */
    readonly runKey: string;
  }): WorkspaceQuota | { why: string } {
    if (settings.bytes === undefined) return { why: 'turned off (--workspace-quota off)' };
    if (settings.shared) return { why: 'every shell shares one workspace (--shared-workspace)' };
    if (process.getuid?.() !== 0) return { why: 'mounting a file system per workspace needs root' };
    const mkfs = MKFS.find((path) => isExecutableFile(path));
    if (mkfs === undefined) return { why: 'mkfs.ext4 is not installed (Debian package e2fsprogs)' };
    if (!existsSync(LOOP_CONTROL)) return { why: `no loop devices here (${LOOP_CONTROL})` };
    let root: string;
    try {
      root = realpathSync(settings.root);
      mkdirSync(join(root, QUOTA_DIR_NAME), { recursive: true, mode: IMAGE_DIR_MODE });
    } catch (error) {
      return {
        why: `cannot make ${join(settings.root, QUOTA_DIR_NAME)} (${(error as Error).message})`,
      };
    }
    return new WorkspaceQuota(root, settings.bytes, mkfs, settings.runKey);
  }

  /** Where the workspace images live (made by the caller: it is the root's own folder). */
  get imageDir(): string {
    return join(this.root, QUOTA_DIR_NAME);
  }

  /**
   * The template every new workspace's file system is copied from, one per size. A name no
   * workspace's image can have: an image is named after its agent, whose id starts with a
   * letter or digit. Named `template-<bytes>.ext4`, it was the image of an agent called
   * `template-<bytes>`, which wrote into every later workspace's first copy.
   */
  private get template(): string {
    return join(this.imageDir, `.template-${this.bytes}.ext4`);
  }

  /** Starts keeping spare file systems for new workspaces (after the start-up sweep). */
  armSpares(): void {
    this.keeper.arm();
  }

  /** A shell answered its first call: a spare it took is replaced now (QuotaKeeper). */
  shellSettled(): void {
    this.keeper.shellSettled();
  }

  /**
   * `command` preceded by the step that mounts `workspace`'s file system when it is not yet,
   * and run where no other workspace's file system is mounted (foreign-mounts.ts).
   */
  wrap(workspace: string, shell: readonly string[]): string[] {
    const command = withoutForeignMounts(
      { workspace, root: this.root, spares: SPARE_MOUNT_DIR },
      shell,
    );
    if (this.mounted.has(workspace)) return command;
    if (isMountPoint(workspace)) {
      this.mounted.add(workspace);
      // Found mounted (a killed run's): this run's now, for the keeper.
      if (!this.stepped.has(workspace)) this.keeper.claim(workspace);
      return command;
    }
    const name = relative(this.root, workspace).split('/').join('%');
    const image = join(this.imageDir, `${name}.ext4`);
    const spare = this.taken.get(workspace) ?? this.spareFor(workspace, image);
    // Seen as mounted by the next shell's check, once this one's step has run.
    if (!this.stepped.has(workspace)) this.keeper.claim(workspace);
    this.stepped.add(workspace);
    const mountCall = MOUNT_SYSCALL;
    if (spare !== null && mountCall !== undefined) {
      const moved = [String(mountCall), String(MS_MOVE), workspace, image, spare.mount];
      return ['perl', '-e', SPARE_STEP, ...moved, '--', ...command];
    }
    return [
      'bash',
      '--noprofile',
      '--norc',
      '-c',
      STEP,
      STEP_NAME,
      workspace,
      image,
      this.template,
      String(this.bytes),
      this.mkfs,
      spare?.mount ?? '',
      '--',
      ...command,
    ];
  }

  /**
   * A spare for a workspace never mounted, with no image and nothing in it (what it holds
   * would be hidden under the spare; the step copies it into a file system of its own).
   */
  private spareFor(workspace: string, image: string): Spare | null {
    if (this.stepped.has(workspace) || existsSync(image) || !isEmptyDir(workspace)) return null;
    const spare = this.keeper.take();
    if (spare === null) return null;
    // Server-only paths (the quota dir and the spares' mount dir are root's, 0700): a few
    // syscalls here spare the step's forks. A spare that cannot be given is left to the keeper.
    try {
      const dir = statSync(workspace);
      chownSync(spare.mount, dir.uid, dir.gid);
      chmodSync(spare.mount, dir.mode & 0o7777);
      renameSync(spare.image, image);
    } catch {
      return null;
    }
    this.taken.set(workspace, spare);
    return spare;
  }

  /**
   * Unmounts the workspaces' file systems (at shutdown, once their shells are gone): those this
   * run mounted or found, and those an earlier, killed run left mounted (an ext4 at a workspace).
   */
  async unmountAll(): Promise<void> {
    const ours = new Set([...this.mounted, ...this.stepped]);
    // Workspaces are `<root>/<agent>` and `<root>/_people/<id>`: an ext4 there is one of ours.
    const isWorkspace = (point: string, type: string): boolean => {
      const rel = relative(this.root, point).split('/');
      const depth = rel[0] === '_people' ? 2 : 1;
      return type === 'ext4' && rel.length === depth && !rel[0]?.startsWith('.');
    };
    const left = () =>
      mounts()
        .filter((m) => ours.has(m.point) || isWorkspace(m.point, m.type))
        .map((m) => m.point);
    // Busy ones (a shell that outlived the stop) are detached: freed once unused.
    await unmountMany(left());
    // Then the spares nobody took: their keeper unmounts and removes them. Told to stop only
    // now: a stop cut short before this (its grace run out, or a SIGKILL) leaves the keeper
    // unstopped, and it unmounts the workspaces as for a killed server. Told first, it left
    // every workspace still mounted at that moment mounted (500 of a host's in the bench).
    await this.keeper.close();
    this.mounted.clear();
    this.stepped.clear();
    this.taken.clear();
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    const listing = opendirSync(dir);
    try {
      return listing.readSync() === null;
    } finally {
      listing.closeSync();
    }
  } catch {
    return false;
  }
}
