/**
 * The tenant's list of calls waiting for (or given) a person's decision (docs/api.md#approvals), in
 * the TenantDO: each chat tells it what changed (`note`), beside its own work and retried by its
 * alarm until it lands, so `GET /v1/approvals` lists them without asking every chat. Decided
 * entries past the newest `MAX_DECIDED` go.
 */
import type { ApprovalEntry } from "../../src/core/approvals/approval";

const MAX_DECIDED = 10_000;

export class ApprovalIndex {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      `CREATE TABLE IF NOT EXISTS approvals (job_id TEXT PRIMARY KEY, chat_id TEXT NOT NULL, tool_name TEXT NOT NULL, tool_args TEXT,
         agent TEXT NOT NULL, status TEXT NOT NULL, requested_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, decided_at INTEGER,
         by TEXT, reason TEXT, metadata TEXT, pending INTEGER NOT NULL) WITHOUT ROWID`,
    );
    sql.exec(`CREATE INDEX IF NOT EXISTS approvals_listed ON approvals (pending, requested_at, job_id)`);
    sql.exec(`CREATE INDEX IF NOT EXISTS approvals_by_chat ON approvals (chat_id)`);
  }

  /** A chat's calls as they are now. A decision, once heard, is never taken back by an older report. */
  note(entries: ApprovalEntry[]): void {
    for (const e of entries) {
      this.sql.exec(
        `INSERT INTO approvals (job_id, chat_id, tool_name, tool_args, agent, status, requested_at, expires_at,
           decided_at, by, reason, metadata, pending)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (job_id) DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at, by = excluded.by,
           reason = excluded.reason, pending = excluded.pending WHERE approvals.pending = 1`,
        e.job_id,
        e.chat_id,
        e.tool_name,
        e.tool_args,
        e.agent,
        e.status,
        e.requested_at,
        e.expires_at,
        e.decided_at,
        e.by,
        e.reason,
        e.metadata,
        e.status === "pending" ? 1 : 0,
      );
    }
    const decided = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM approvals WHERE pending = 0`).one().n;
    if (decided > MAX_DECIDED) {
      this.sql.exec(
        `DELETE FROM approvals WHERE job_id IN (SELECT job_id FROM approvals WHERE pending = 0
           ORDER BY requested_at LIMIT ?)`,
        decided - MAX_DECIDED,
      );
    }
  }

  /** Deleted chats take their calls with them. */
  forget(chatIds: string[]): void {
    this.sql.exec(`DELETE FROM approvals WHERE chat_id IN (SELECT value FROM json_each(?))`, JSON.stringify(chatIds));
  }

  /** A page of pending or decided calls, newest first; the cursor is the last one's `<requested_at>.<job_id>`. */
  list(
    status: "pending" | "decided",
    cursor: string | null,
    limit: number,
  ): { approvals: ApprovalEntry[]; next_cursor: string | null } {
    const [at, id] = cursor
      ? [Number(cursor.slice(0, cursor.indexOf("."))), cursor.slice(cursor.indexOf(".") + 1)]
      : [Number.MAX_SAFE_INTEGER, ""];
    const rows = this.sql
      .exec<ApprovalEntry & Record<string, SqlStorageValue>>(
        `SELECT job_id, chat_id, tool_name, tool_args, agent, status, requested_at, expires_at, decided_at, by,
           reason, metadata FROM approvals
         WHERE pending = ? AND (requested_at < ? OR (requested_at = ? AND job_id < ?)) ORDER BY requested_at DESC, job_id DESC LIMIT ?`,
        status === "pending" ? 1 : 0,
        at,
        at,
        cursor ? id : "\uffff",
        limit + 1,
      )
      .toArray();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { approvals: page, next_cursor: rows.length > limit && last ? `${last.requested_at}.${last.job_id}` : null };
  }
}
