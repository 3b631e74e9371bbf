/**
 * Every PostgreSQL schema step of the control plane, in the order they run. Each area keeps
 * its steps next to its store and is listed here once; a new step goes at the end of its
 * area's list (postgres-migrations.ts explains why names, not numbers).
 */
import { AUTH_MIGRATIONS } from '../auth/auth-schema.ts';
import { HOST_MIGRATIONS } from '../control/host-schema.ts';
import { REPLICA_MIGRATIONS } from '../control/replica-registry.ts';
import { HISTORY_MIGRATIONS } from '../store/history-migrations.ts';
import type { PostgresMigration } from './postgres-migrations.ts';

/** What every area may rely on: settings shared by all replicas. */
const CORE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: 'core-1',
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value JSONB NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
];

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  ...CORE_MIGRATIONS,
  ...AUTH_MIGRATIONS,
  ...HISTORY_MIGRATIONS,
  ...REPLICA_MIGRATIONS,
  ...HOST_MIGRATIONS,
];
