/**
 * Host-side ownership for shells that run as their own user (the server is root, see
 * shell-user.ts): the shell's workspace becomes the shell user's, and the directories the
 * server writes for it (its private dir, its saved outputs) stay root's but readable by the
 * shell user's group, so the shell reads them and cannot change them. Files in them are
 * written mode 0640 (group read); unless a shell runs as its own user, those directories stay
 * mode 0700 and the group bit reaches no one.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  openSync,
  readdirSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ShellUser } from './shell-user.ts';

/**
 * The server writes, the shell's group reads and enters, nobody else; set-group-ID, so the
 * files the server makes there are the shell's group's (else they would be root's group).
 */
const SHARED_DIR_MODE = 0o2750;
const GROUP_READ = 0o040;

/** Opens a directory without following a link at its last component. */
function withDirectory(path: string, act: (fd: number) => void): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    act(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the shell user own its workspace directory. Only the directory itself: a recursive
 * chown by root through a tree the agent controls would follow links it plants. Files an
 * earlier root-run shell made there stay root's (the shell may delete or rename them).
 */
export function giveWorkspace(path: string, user: ShellUser): void {
  withDirectory(path, (fd) => {
    const stat = fstatSync(fd);
    if (stat.uid !== user.uid || stat.gid !== user.gid) fchownSync(fd, user.uid, user.gid);
  });
}

/**
 * Lets the shell user's group read a directory the server writes for the shell, and the files
 * already in it (the first time: no shell can write there, so nothing in it is a shell's).
 */
export function shareWithShell(path: string, user: ShellUser): void {
  withDirectory(path, (fd) => {
    const stat = fstatSync(fd);
    if (stat.gid === user.gid && (stat.mode & 0o7777) === SHARED_DIR_MODE) return;
    fchownSync(fd, stat.uid, user.gid);
    fchmodSync(fd, SHARED_DIR_MODE);
    for (const name of readdirSync(path)) shareFile(join(path, name), user);
  });
}

/** A regular file (never through a link) becomes readable by the shell user's group. */
function shareFile(path: string, user: ShellUser): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return; // A link or a file gone meanwhile: not one to share.
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return;
    if (stat.gid !== user.gid) fchownSync(fd, stat.uid, user.gid);
    if ((stat.mode & GROUP_READ) === 0) fchmodSync(fd, (stat.mode & 0o777) | GROUP_READ);
  } finally {
    closeSync(fd);
  }
}
