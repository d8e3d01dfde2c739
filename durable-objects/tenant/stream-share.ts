/**
 * A tenant's live streams, counted against `limits.max_streams` (docs/api.md#live-streams). Red
 * team, round 3: one tenant opened 300 tenant streams and every other tenant's `/parallel` went
 * from 30–100 ms to 10–13 s. The tenant stream's sockets are this object's own; a chat's sockets
 * are its chat's, which asks here before accepting one and reports what it has left after each
 * close. A chat's report older than an hour no longer counts: a chat restarted by a deploy loses
 * its sockets without a close to report, and an undercount only lets a stream more in.
 */
const STALE_MS = 3_600_000;

export class StreamShare {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS chat_streams (chat_id TEXT PRIMARY KEY, sockets INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
  }

  /** Live streams of the tenant: `own` tenant-stream sockets plus the chats' latest reports. */
  open(own: number, now: number): number {
    return own + this.sql.exec<{ n: number }>(`SELECT COALESCE(SUM(sockets), 0) AS n FROM chat_streams WHERE updated_at > ?`, now - STALE_MS).one().n;
  }

  /** One more stream of `chatId` if the tenant has room for it; false when it has `max` open. */
  admitChat(chatId: string, own: number, max: number, now: number): boolean {
    if (this.open(own, now) >= max) return false;
    this.sql.exec(
      `INSERT INTO chat_streams (chat_id, sockets, updated_at) VALUES (?, 1, ?)
       ON CONFLICT (chat_id) DO UPDATE SET sockets = CASE WHEN updated_at > ? THEN sockets + 1 ELSE 1 END, updated_at = excluded.updated_at`,
      chatId, now, now - STALE_MS,
    );
    return true;
  }

  /** What a chat has open after a stream of it closed. */
  chatStreams(chatId: string, sockets: number, now: number): void {
    if (sockets > 0) this.sql.exec(`INSERT OR REPLACE INTO chat_streams (chat_id, sockets, updated_at) VALUES (?, ?, ?)`, chatId, sockets, now);
    else this.sql.exec(`DELETE FROM chat_streams WHERE chat_id = ?`, chatId);
  }
}
