/**
 * The numbers of the mount syscalls the server calls through perl's `syscall` (the unmounter,
 * the spare step, a shell's own mount namespace): x86-64's table, and the generic one arm64
 * uses. undefined elsewhere, where the callers use util-linux's programs instead (or, for the
 * mount namespace, go without: foreign-mounts.ts).
 */
const MOUNT: Record<string, number> = { x64: 165, arm64: 40 };
const UMOUNT2: Record<string, number> = { x64: 166, arm64: 39 };
const UNSHARE: Record<string, number> = { x64: 272, arm64: 97 };

export const MOUNT_SYSCALL: number | undefined = MOUNT[process.arch];
export const UMOUNT2_SYSCALL: number | undefined = UMOUNT2[process.arch];
export const UNSHARE_SYSCALL: number | undefined = UNSHARE[process.arch];
