import { describe, expect, it } from 'vitest';
import { ARCH_TABLES, encodeProgram, filterProgram, seccompFilterFor } from './seccomp-filter.ts';

// The generated program run by a small classic-BPF interpreter on made-up seccomp_data: what
// the kernel would answer for each call. The walls suite (server/test/walls.test.ts) makes
// the real calls in a real sandbox.

const ALLOW = 0x7fff0000;
const ERRNO_EPERM = 0x00050001;
const ERRNO_ENOSYS = 0x00050026;
const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_ARM = 0x40000028;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNET = 0x40000000;
/** What glibc's fork passes: CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD. */
const FORK_FLAGS = 0x01200011;
/** What pthread_create passes (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | …). */
const THREAD_FLAGS = 0x003d0f00;

/** Runs `bytes` (struct sock_filter[]) on seccomp_data {nr, arch, args[0]}. */
function run(bytes: Buffer, data: { nr: number; arch: number; arg0?: number }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset === 16) return (data.arg0 ?? 0) >>> 0;
    throw new Error(`load from unexpected offset ${offset}`);
  };
  let accumulator = 0;
  for (let pc = 0; pc * 8 < bytes.length; ) {
    const code = bytes.readUInt16LE(pc * 8);
    const jt = bytes.readUInt8(pc * 8 + 2);
    const jf = bytes.readUInt8(pc * 8 + 3);
    const k = bytes.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        accumulator = word(k);
        pc += 1;
        break;
      case 0x15:
        pc += 1 + (accumulator === k ? jt : jf);
        break;
      case 0x35:
        pc += 1 + (accumulator >= k ? jt : jf);
        break;
      case 0x45:
        pc += 1 + ((accumulator & k) !== 0 ? jt : jf);
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)}`);
    }
  }
  throw new Error('ran off the end of the program');
}

describe.each(Object.entries(ARCH_TABLES))('the seccomp filter for %s', (_arch, table) => {
  const bytes = encodeProgram(filterProgram(table));
  const call = (name: keyof typeof table.numbers, arg0?: number) => {
    const nr = table.numbers[name];
    if (nr === undefined) throw new Error(`no ${name}`);
    return run(bytes, { nr, arch: table.auditArch, ...(arg0 === undefined ? {} : { arg0 }) });
  };

  it('refuses every listed call with EPERM', () => {
    for (const name of Object.keys(table.numbers) as (keyof typeof table.numbers)[]) {
      if (name === 'clone' || name === 'clone3') continue;
      expect([name, call(name)]).toEqual([name, ERRNO_EPERM]);
    }
  });

  it('allows what a shell does all day (read, write, exec, wait: numbers below 20)', () => {
    const refused = new Set(Object.values(table.numbers));
    for (let nr = 0; nr < 20; nr++) {
      if (!refused.has(nr)) expect(run(bytes, { nr, arch: table.auditArch })).toBe(ALLOW);
    }
  });

  it('allows fork and threads, refuses clone with namespace flags, sends clone3 to clone', () => {
    expect(call('clone', FORK_FLAGS)).toBe(ALLOW);
    expect(call('clone', THREAD_FLAGS)).toBe(ALLOW);
    expect(call('clone', FORK_FLAGS | CLONE_NEWUSER)).toBe(ERRNO_EPERM);
    expect(call('clone', CLONE_NEWNET)).toBe(ERRNO_EPERM);
    expect(call('clone3')).toBe(ERRNO_ENOSYS);
  });

  it('refuses every call of a foreign ABI', () => {
    for (const arch of [AUDIT_ARCH_I386, AUDIT_ARCH_ARM]) {
      expect(run(bytes, { nr: 1, arch })).toBe(ERRNO_EPERM);
    }
  });
});

describe('the machine filter', () => {
  it('refuses x32 calls on x86-64 (numbers with bit 30 set)', () => {
    const table = ARCH_TABLES.x64;
    if (!table) throw new Error('no x64 table');
    const bytes = encodeProgram(filterProgram(table));
    expect(run(bytes, { nr: 0x40000000 + 1, arch: table.auditArch })).toBe(ERRNO_EPERM);
  });

  it('exists for x64 and arm64 and for no other machine', () => {
    expect(seccompFilterFor('x64')?.length).toBeGreaterThan(0);
    expect(seccompFilterFor('arm64')?.length).toBeGreaterThan(0);
    expect(seccompFilterFor('riscv64')).toBeNull();
  });
});
