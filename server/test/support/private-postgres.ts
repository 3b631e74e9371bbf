/**
 * A PostgreSQL server of one test's own, really stopped and started: `initdb` into a temporary
 * directory, on a free loopback port, its unix socket inside that directory, `pg_ctl stop -m
 * fast` and `pg_ctl start` on demand. initdb and postgres refuse to run as root, so a root
 * test runs them as the `postgres` user (setpriv, the directory given to that user); any other
 * user runs them as itself. The shared cluster on 5432 is never touched.
 */
import { execFile } from 'node:child_process';
import {
  accessSync,
  appendFileSync,
  chownSync,
  constants,
  mkdirSync,
  mkdtempSync,
  rmSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './host-cluster.ts';

const run = promisify(execFile);

/** Where Debian's postgresql-15 puts its server binaries (JUMPSEAT_TEST_PG_BIN overrides). */
const PG_BIN = process.env.JUMPSEAT_TEST_PG_BIN || '/usr/lib/postgresql/15/bin';
const SERVER_BINARIES = ['initdb', 'pg_ctl', 'postgres'];
/** pg_ctl's own wait for a start or a stop (s); a loaded machine is slow to fsync and fork. */
const PG_CTL_WAIT_S = 60;
/** The user a root test runs PostgreSQL as (Debian's package makes it). */
const SERVER_USER = 'postgres';

/** Why a private server cannot run here (no binaries), or null. */
export function privatePostgresMissing(): string | null {
  for (const name of SERVER_BINARIES) {
    try {
      accessSync(join(PG_BIN, name), constants.X_OK);
    } catch {
      return `no ${join(PG_BIN, name)} (install postgresql-15, or set JUMPSEAT_TEST_PG_BIN to its bin directory)`;
    }
  }
  return null;
}

export class PrivatePostgres {
  private running = false;

  private constructor(
    readonly root: string,
    readonly port: number,
    /** The command prefix that runs a binary as the server's user (empty: as this process). */
    private readonly runAs: readonly string[],
  ) {}

  /** A new cluster, started; its `url` reaches the `postgres` database as role `jumpseat`. */
  static async start(): Promise<PrivatePostgres> {
    const root = mkdtempSync(join(tmpdir(), 'jumpseat-pg-'));
    const asRoot = userInfo().uid === 0;
    const runAs = asRoot
      ? ['setpriv', '--reuid', SERVER_USER, '--regid', SERVER_USER, '--clear-groups', '--']
      : [];
    mkdirSync(join(root, 'socket'));
    if (asRoot) {
      const { stdout } = await run('id', ['-u', SERVER_USER]);
      const { stdout: group } = await run('id', ['-g', SERVER_USER]);
      for (const path of [root, join(root, 'socket')])
        chownSync(path, Number(stdout.trim()), Number(group.trim()));
    }
    const server = new PrivatePostgres(root, await freePort(), runAs);
    try {
      await server.pg('initdb', [
        ...['-D', server.dataDir, '-U', 'jumpseat', '--auth', 'trust'],
        ...['--encoding', 'UTF8', '--locale', 'C', '--no-sync'],
      ]);
      appendFileSync(
        join(server.dataDir, 'postgresql.conf'),
        [
          `port = ${server.port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${join(root, 'socket')}'`,
          // A test's data: speed over durability.
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          '',
        ].join('\n'),
      );
      await server.startAgain();
    } catch (error) {
      await server.remove();
      throw error;
    }
    return server;
  }

  get url(): string {
    return `postgres://jumpseat@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return join(this.root, 'data');
  }

  /** `pg_ctl start`, waiting until it accepts connections. */
  async startAgain(): Promise<void> {
    await this.pg('pg_ctl', [
      ...['-D', this.dataDir, '-l', join(this.root, 'server.log')],
      ...['-w', '-t', String(PG_CTL_WAIT_S), 'start'],
    ]);
    this.running = true;
  }

  /** `pg_ctl stop -m fast`: every connection ends, new ones are refused. */
  async stop(): Promise<void> {
    if (!this.running) return;
    await this.pg('pg_ctl', [
      '-D',
      this.dataDir,
      '-m',
      'fast',
      '-w',
      '-t',
      String(PG_CTL_WAIT_S),
      'stop',
    ]);
    this.running = false;
  }

  /** Stops the server if it runs and removes its directory. */
  async remove(): Promise<void> {
    try {
      await this.stop();
    } finally {
      rmSync(this.root, { recursive: true, force: true });
    }
  }

  private async pg(binary: string, args: readonly string[]): Promise<void> {
    const [file = join(PG_BIN, binary), ...rest] = [...this.runAs, join(PG_BIN, binary)];
    try {
      await run(file, [...rest, ...args], {
        cwd: this.root,
        env: { PATH: process.env.PATH ?? '' },
      });
    } catch (error) {
      const { stderr = '' } = error as { stderr?: string };
      throw new Error(`${binary} ${args.at(-1)} failed: ${stderr.trim() || String(error)}`);
    }
  }
}
