/**
 * The control plane's parts for `--local-shells off`: the directory of joined hosts, the calls
 * that run on them, and the tool service the API uses, so the agent API and MCP reach a shell
 * on a joined host exactly as they reach one of the server's own.
 */
import type { Config } from '../config/config.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import type { EngineToolService } from '../tool/create-tool-service.ts';
import { PostgresHostDrains } from './host-drains-postgres.ts';
import { SqliteHostDrains } from './host-drains-sqlite.ts';
import { PostgresPlacements } from './host-placements-postgres.ts';
import { SqlitePlacements } from './host-placements-sqlite.ts';
import { openHostsSqlite } from './hosts-sqlite.ts';
import { HostDirectory } from './joined-hosts.ts';
import { RemoteCalls } from './remote-calls.ts';
import { RemoteFiles } from './remote-files.ts';

export interface ControlPlane {
  readonly directory: HostDirectory;
  readonly calls: RemoteCalls;
  /** The saved outputs of the hosts' shells, read through their links. */
  readonly files: RemoteFiles;
  readonly tools: EngineToolService;
}

/**
 * `local`: the server's own engine (it runs no shell here; its store and paths serve the API).
 * With `database`, hosts' drains are read from it and shared with the other replicas; without
 * it, they are kept in the data dir's `hosts.db`. Either way a drain outlives a restart, and so
 * does where each agent's shells were placed last (placement goes back there).
 */
export async function createControlPlane(
  config: Config,
  local: EngineToolService,
  database?: PostgresDatabase,
): Promise<ControlPlane> {
  const drains =
    database === undefined
      ? new SqliteHostDrains(openHostsSqlite(config.dataDir))
      : await PostgresHostDrains.open(database);
  const placements =
    database === undefined
      ? new SqlitePlacements(openHostsSqlite(config.dataDir))
      : new PostgresPlacements(database);
  const directory = new HostDirectory(config.hostGraceMs, drains, placements);
  const calls = new RemoteCalls(directory, (dialect) => config.dialects[dialect]);
  return { directory, calls, files: new RemoteFiles(directory), tools: calls.service(local) };
}
