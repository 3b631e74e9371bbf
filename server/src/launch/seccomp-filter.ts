/**
 * The seccomp filter every sandboxed shell runs under, as the classic-BPF program bwrap's
 * `--seccomp FD` loads: system calls an agent's work never needs, and that are how sandboxes
 * get escaped (nested user namespaces, mounts, keyrings, BPF, perf, kexec, modules,
 * userfaultfd, handle-based opens, another process's memory), fail with EPERM; so does every
 * call through a foreign ABI (32-bit x86 or ARM, x32), where the numbers below mean nothing.
 *
 * We generate the program here rather than use libseccomp or @anthropic-ai/sandbox-runtime:
 * libseccomp would need a C helper compiled at install time (a compiler on every machine),
 * and sandbox-runtime ships prebuilt filters that block only unix sockets (its network proxy's
 * concern), so neither the list nor the arguments we check. The format is short and fixed
 * (`linux/filter.h`, `linux/seccomp.h`): check the architecture, load the number, compare,
 * return ERRNO or ALLOW. Numbers are from the kernel's unistd headers (x86-64: unistd_64.h,
 * aarch64: asm-generic/unistd.h); other machines get no filter and the banner says so.
 *
 * Abstract unix sockets are not filtered here: they are scoped by network namespace, so the
 * per-sandbox network namespace is what keeps sandboxes from reaching each other's.
 */

/** `struct seccomp_data` offsets: nr (u32), arch (u32), then args[6] (u64 each) from 16. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of args[0] on a little-endian machine (both of ours are). */
const OFFSET_ARG0_LOW = 16;

// Classic BPF opcodes (linux/bpf_common.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
/** clone3's flags are behind a pointer a filter cannot read: ENOSYS makes glibc use clone. */
const ENOSYS = 38;

/** Bits of clone(2)'s flags that make new namespaces (CLONE_NEWTIME is clone3-only). */
const CLONE_NAMESPACE_FLAGS =
  0x00020000 | // CLONE_NEWNS
  0x02000000 | // CLONE_NEWCGROUP
  0x04000000 | // CLONE_NEWUTS
  0x08000000 | // CLONE_NEWIPC
  0x10000000 | // CLONE_NEWUSER
  0x20000000 | // CLONE_NEWPID
  0x40000000; // CLONE_NEWNET

/** Syscalls on x86-64 have numbers below this; x32's carry this bit. */
const X32_SYSCALL_BIT = 0x40000000;

/** Refused with EPERM, by name; a name an architecture lacks (iopl on aarch64) is skipped. */
export const REFUSED_SYSCALLS = [
  'keyctl',
  'add_key',
  'request_key',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'perf_event_open',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'bpf',
  'userfaultfd',
  'open_by_handle_at',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'iopl',
  'ioperm',
] as const;

type SyscallName = (typeof REFUSED_SYSCALLS)[number] | 'clone' | 'clone3';

interface ArchTable {
  /** AUDIT_ARCH_* of linux/audit.h. */
  readonly auditArch: number;
  readonly numbers: Partial<Record<SyscallName, number>>;
  readonly x32Bit: boolean;
}

export const ARCH_TABLES: Readonly<Record<string, ArchTable>> = {
  x64: {
    auditArch: 0xc000003e,
    x32Bit: true,
    numbers: {
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      perf_event_open: 298,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      chroot: 161,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 272,
      setns: 308,
      bpf: 321,
      userfaultfd: 323,
      open_by_handle_at: 304,
      reboot: 169,
      swapon: 167,
      swapoff: 168,
      acct: 163,
      iopl: 172,
      ioperm: 173,
      clone: 56,
      clone3: 435,
    },
  },
  arm64: {
    auditArch: 0xc00000b7,
    x32Bit: false,
    numbers: {
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      perf_event_open: 241,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      chroot: 51,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 97,
      setns: 268,
      bpf: 280,
      userfaultfd: 282,
      open_by_handle_at: 265,
      reboot: 142,
      swapon: 224,
      swapoff: 225,
      acct: 89,
      clone: 220,
      clone3: 435,
    },
  },
};

interface Instruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const op = (code: number, k: number, jt = 0, jf = 0): Instruction => ({ code, jt, jf, k });
const refuse = (errno: number): Instruction => op(RET_K, SECCOMP_RET_ERRNO | errno);

/** The filter's instructions for one architecture (see the module comment for the shape). */
export function filterProgram(table: ArchTable): Instruction[] {
  const program: Instruction[] = [
    op(LD_W_ABS, OFFSET_ARCH),
    op(JEQ_K, table.auditArch, 1, 0),
    refuse(EPERM),
    op(LD_W_ABS, OFFSET_NR),
  ];
  if (table.x32Bit) program.push(op(JGE_K, X32_SYSCALL_BIT, 0, 1), refuse(EPERM));
  for (const name of REFUSED_SYSCALLS) {
    const nr = table.numbers[name];
    if (nr !== undefined) program.push(op(JEQ_K, nr, 0, 1), refuse(EPERM));
  }
  const { clone, clone3 } = table.numbers;
  if (clone3 !== undefined) program.push(op(JEQ_K, clone3, 0, 1), refuse(ENOSYS));
  if (clone !== undefined) {
    // clone with a namespace flag: EPERM; the accumulator then holds the flags, so a plain
    // clone goes straight on to ALLOW.
    program.push(
      op(JEQ_K, clone, 0, 3),
      op(LD_W_ABS, OFFSET_ARG0_LOW),
      op(JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1),
      refuse(EPERM),
    );
  }
  program.push(op(RET_K, SECCOMP_RET_ALLOW));
  return program;
}

/** `struct sock_filter` is 8 bytes: u16 code, u8 jt, u8 jf, u32 k, in the machine's order. */
const INSTRUCTION_BYTES = 8;

export function encodeProgram(program: readonly Instruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * INSTRUCTION_BYTES);
  program.forEach((instruction, index) => {
    const at = index * INSTRUCTION_BYTES;
    bytes.writeUInt16LE(instruction.code, at);
    bytes.writeUInt8(instruction.jt, at + 2);
    bytes.writeUInt8(instruction.jf, at + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, at + 4);
  });
  return bytes;
}

/** The encoded filter for this machine, or null where we have no table (the banner says so). */
export function seccompFilterFor(arch: string = process.arch): Buffer | null {
  const table = ARCH_TABLES[arch];
  return table ? encodeProgram(filterProgram(table)) : null;
}
