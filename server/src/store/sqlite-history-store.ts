/**
 * The embedded engine of history: the data dir's SQLite file (history-database.ts) behind the
 * engine-neutral HistoryStore. SQLite answers at once; the promises are only the interface's.
 */
import type {
  AuditEvent,
  AuditQuery,
  CallInfo,
  ControlEvent,
  SessionInfo,
} from '../../../shared/src/api.ts';
import { HistoryDatabase } from './history-database.ts';
import type { HistoryStore, WriteBatch } from './history-store.ts';

export class SqliteHistoryStore implements HistoryStore {
  private readonly db: HistoryDatabase;

  constructor(path: string) {
    this.db = new HistoryDatabase(path);
  }

  /**
   * One process writes this file: every shell it left without an ending was running when it
   * stopped without closing them (a joined host's shell that survived is written again, with
   * no ending, once its host links back).
   */
  async start(): Promise<void> {
    this.db.endUnfinished();
  }

  async write(batch: WriteBatch): Promise<void> {
    this.db.write(batch);
  }

  async capAudit(maxRows: number): Promise<number> {
    return this.db.capAudit(maxRows);
  }

  async forgetBefore(cutoff: string): Promise<number> {
    return this.db.forgetBefore(cutoff);
  }

  async shells(): Promise<SessionInfo[]> {
    return this.db.shells();
  }

  async shell(id: string): Promise<SessionInfo | undefined> {
    return this.db.shell(id);
  }

  async calls(sessionId: string): Promise<CallInfo[]> {
    return this.db.calls(sessionId);
  }

  async controlEvents(sessionId: string): Promise<ControlEvent[]> {
    return this.db.controlEvents(sessionId);
  }

  async auditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    return this.db.auditEvents(query);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
