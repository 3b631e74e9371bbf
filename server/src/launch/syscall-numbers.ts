/**
 * The numbers of the syscalls the server calls through perl's `syscall` (the unmounter, the
 * spare step, a shell's own mount namespace, the drop of root, entering a spare network,
 * slirp4netns's Landlock confinement): x86-64's table, and the generic one arm64
 * uses. undefined elsewhere, where the callers use util-linux's programs instead (or, for the
 * mount namespace, go without: foreign-mounts.ts).
 */
const MOUNT: Record<string, number> = { x64: 165, arm64: 40 };
const UMOUNT2: Record<string, number> = { x64: 166, arm64: 39 };
const UNSHARE: Record<string, number> = { x64: 272, arm64: 97 };
/** What the root drop step (prelude.ts) calls to give up root inside a sandbox. */
const PRIVILEGE_DROP: Record<string, PrivilegeDropSyscalls> = {
  x64: { prctl: 157, capset: 126, setgroups: 116, setresuid: 117, setresgid: 119 },
  arm64: { prctl: 167, capset: 91, setgroups: 159, setresuid: 147, setresgid: 149 },
};
const SETNS: Record<string, number> = { x64: 308, arm64: 268 };
/** landlock_create_ruleset; add_rule and restrict_self are the next two on both tables. */
const LANDLOCK: Record<string, number> = { x64: 444, arm64: 444 };

export interface PrivilegeDropSyscalls {
  readonly prctl: number;
  readonly capset: number;
  readonly setgroups: number;
  readonly setresuid: number;
  readonly setresgid: number;
}

export const MOUNT_SYSCALL: number | undefined = MOUNT[process.arch];
export const UMOUNT2_SYSCALL: number | undefined = UMOUNT2[process.arch];
export const UNSHARE_SYSCALL: number | undefined = UNSHARE[process.arch];
export const PRIVILEGE_DROP_SYSCALLS: PrivilegeDropSyscalls | undefined =
  PRIVILEGE_DROP[process.arch];
export const SETNS_SYSCALL: number | undefined = SETNS[process.arch];
export const LANDLOCK_SYSCALL: number | undefined = LANDLOCK[process.arch];
